//! Transparent huge pages for the buffers that hold a dataset's matrix.
//!
//! An epoch reads the matrix once, front to back. With the 4 KiB pages the OS hands out by default, an
//! 80 MB matrix is 20 000 pages, and the hardware prefetchers, which do not follow a stream across a page
//! boundary, start over at every one. Backed by 2 MiB pages the same stream is read markedly faster: on
//! the machine of `benches/README.md` a plain read of an 80 MB matrix went from about 21 to 27 GB/s, and
//! an epoch with it.
//!
//! Linux gives huge pages to memory that asks for them (`madvise(MADV_HUGEPAGE)`) when
//! `/sys/kernel/mm/transparent_hugepage/enabled` is `madvise` (Debian's and Ubuntu's default) or
//! `always`. The advice must come before the memory is first written, so the crate's loaders
//! ([`io`](crate::io)) and generators ([`generate`](crate::generate)) reserve the matrix, advise it, and
//! only then fill it. A matrix built by the caller can get the same by building it in a buffer passed
//! through [`advise_huge_pages`] first.
//!
//! Advice never changes what the memory holds, only how the OS maps it, so it is safe whatever happens
//! to the buffer later. Elsewhere than Linux, and where the OS refuses, nothing happens.

/// The size of a transparent huge page (x86-64; AArch64 with 4 KiB base pages).
pub const HUGE_PAGE_BYTES: usize = 2 << 20;

/// Ask the OS to back the reserved memory of `buffer` with transparent huge pages; returns whether it
/// agreed.
///
/// The advice covers every whole 2 MiB page inside the buffer's capacity, filled or not, and applies to
/// the pages written after it: reserve the buffer, advise it, then fill it. Nothing is advised (and
/// `false` returned) for a buffer smaller than two huge pages, off Linux, or where the kernel has no
/// transparent huge pages. It never changes the buffer's length, capacity or values.
///
/// ```
/// use ndarray::Array2;
/// let (n, d) = (100_000, 100);
/// let mut values: Vec<f64> = Vec::with_capacity(n * d);
/// let advised = novikoff::simd::advise_huge_pages(&mut values);
/// values.extend((0..n * d).map(|i| (i % 7) as f64 - 3.0));
/// let x = Array2::from_shape_vec((n, d), values)?;
/// assert_eq!(x[[1, 0]], (100 % 7) as f64 - 3.0);
/// # let _ = advised;
/// # Ok::<(), ndarray::ShapeError>(())
/// ```
pub fn advise_huge_pages<T: Copy>(buffer: &mut Vec<T>) -> bool {
    let start = buffer.as_mut_ptr() as usize;
    let bytes = buffer.capacity() * size_of::<T>();
    let Some((first, len)) = whole_huge_pages(start, bytes) else {
        return false;
    };
    advise(first, len)
}

/// The whole huge pages inside `[start, start + bytes)`, as (first address, length); none for a span of
/// fewer than two huge pages, where the advice would buy too little to be worth a system call.
fn whole_huge_pages(start: usize, bytes: usize) -> Option<(usize, usize)> {
    if bytes < 2 * HUGE_PAGE_BYTES {
        return None;
    }
    let first = start.checked_next_multiple_of(HUGE_PAGE_BYTES)?;
    let end = (start + bytes) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
    (end > first).then(|| (first, end - first))
}

#[cfg(target_os = "linux")]
fn advise(first: usize, len: usize) -> bool {
    // SAFETY: [first, first + len) lies inside one live allocation that the caller holds mutably (a
    // Vec's reserved capacity), and MADV_HUGEPAGE only changes how the kernel may map those pages,
    // never their contents, so no reference into the buffer, held now or later, can observe it.
    unsafe { libc::madvise(first as *mut libc::c_void, len, libc::MADV_HUGEPAGE) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn advise(_first: usize, _len: usize) -> bool {
    false
}

/// An empty buffer with room for exactly `len` values, advised for huge pages; an error instead of an
/// abort when memory is short.
pub(crate) fn reserve(
    len: usize,
) -> std::result::Result<Vec<f64>, std::collections::TryReserveError> {
    let mut values = Vec::new();
    values.try_reserve_exact(len)?;
    advise_huge_pages(&mut values);
    Ok(values)
}

/// [`reserve`] for a matrix made from one already in memory, where running short aborts as any
/// allocation does.
pub(crate) fn buffer(len: usize) -> Vec<f64> {
    let mut values = Vec::with_capacity(len);
    advise_huge_pages(&mut values);
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_huge_pages_inside_the_span_are_advised() {
        let page = HUGE_PAGE_BYTES;
        assert_eq!(whole_huge_pages(0, 2 * page), Some((0, 2 * page)));
        assert_eq!(whole_huge_pages(16, 3 * page), Some((page, 2 * page)));
        assert_eq!(
            whole_huge_pages(page + 16, 4 * page - 32),
            Some((2 * page, 2 * page))
        );
        assert_eq!(whole_huge_pages(16, 2 * page - 32), None);
        assert_eq!(whole_huge_pages(16, 2 * page), Some((page, page)));
        assert_eq!(whole_huge_pages(0, 2 * page - 1), None);
    }

    #[test]
    fn advice_keeps_the_buffer_as_it_was() {
        let mut values: Vec<f64> = Vec::with_capacity(3 * HUGE_PAGE_BYTES / 8);
        values.extend([1.0, 2.0, 3.0]);
        let capacity = values.capacity();
        advise_huge_pages(&mut values);
        assert_eq!(values, [1.0, 2.0, 3.0]);
        assert_eq!(values.capacity(), capacity);
        values.resize(values.capacity(), 5.0);
        assert_eq!(values[values.len() - 1], 5.0);
        let mut small = vec![1.0f64; 10];
        assert!(!advise_huge_pages(&mut small));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn linux_backs_an_advised_buffer_with_huge_pages_when_the_kernel_offers_them() {
        let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        let mut values: Vec<f64> = Vec::with_capacity(8 * HUGE_PAGE_BYTES / 8);
        let advised = advise_huge_pages(&mut values);
        if !(mode.contains("[madvise]") || mode.contains("[always]")) {
            // No transparent huge pages on this kernel: nothing to check but that nothing broke.
            return;
        }
        assert!(advised, "the kernel refused MADV_HUGEPAGE in mode {mode:?}");
        let flags = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let start = values.as_ptr() as usize;
        // The mapping holding the buffer must carry the `hg` (VM_HUGEPAGE) flag.
        let mut in_buffer = false;
        let mut found = false;
        for line in flags.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((lo, hi)) = range.split_once('-')
                && let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            {
                in_buffer = lo <= start + HUGE_PAGE_BYTES && start + HUGE_PAGE_BYTES < hi;
            } else if in_buffer && line.starts_with("VmFlags:") {
                found = line.split_whitespace().any(|flag| flag == "hg");
            }
        }
        assert!(found, "no `hg` flag on the advised mapping");
    }
}
