//! Hints to the caches: the lines the solver reads next from another allocation, where the hardware
//! prefetchers do not follow. On targets without such an instruction they do nothing.

/// Ask for every cache line of `values` (eight values a 64-byte line): for a row or a column read next
/// from another allocation, where the hardware prefetchers do not follow.
#[inline]
pub(crate) fn prefetch_values(values: &[f64]) {
    for k in (0..values.len()).step_by(8) {
        prefetch(values.as_ptr().wrapping_add(k));
    }
}

/// Ask for the cache line holding `p` (a hint: any address is allowed, none is dereferenced).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    // SAFETY (both): a prefetch never faults and changes nothing the program can observe. SSE is part
    // of the x86-64 baseline; `prfm` is part of the AArch64 base instruction set.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        std::arch::asm!("prfm pldl1keep, [{0}]", in(reg) p, options(nostack, preserves_flags, readonly));
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = p;
}

/// A row the caller reads next, asked for from inside a kernel's loop over another row: four lines (32
/// values) for each chunk of [`LANES`](super::LANES) values the kernel reads, so that the requests are
/// spread over the kernel's time instead of issued in one burst before it, which the core's few
/// outstanding misses cannot hold. A hint only: it changes no result. Only the x86-64 paths' kernels
/// ask as they go; the others ask first, at two values a register.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct Ahead {
    start: *const f64,
    len: usize,
}

#[cfg(target_arch = "x86_64")]
impl Ahead {
    pub(super) fn of(values: &[f64]) -> Ahead {
        Ahead {
            start: values.as_ptr(),
            len: values.len(),
        }
    }
}

/// What a kernel asks for as it goes: a row ([`Ahead`]) or nothing (`()`), so that the plain kernels
/// are compiled without a test in their loops.
#[cfg(target_arch = "x86_64")]
pub(super) trait AskAhead: Copy {
    /// Ask for the four lines from value `k` on, those within the row.
    fn chunk(self, k: usize);
    /// Ask for the lines from value `k` to the row's end (after a kernel's last whole chunk).
    fn rest(self, k: usize);
}

#[cfg(target_arch = "x86_64")]
impl AskAhead for () {
    #[inline(always)]
    fn chunk(self, _: usize) {}
    #[inline(always)]
    fn rest(self, _: usize) {}
}

#[cfg(target_arch = "x86_64")]
impl AskAhead for Ahead {
    #[inline(always)]
    fn chunk(self, k: usize) {
        if k < self.len {
            for line in 0..4 {
                if k + 8 * line < self.len {
                    prefetch(self.start.wrapping_add(k + 8 * line));
                }
            }
        }
    }

    #[inline(always)]
    fn rest(self, k: usize) {
        for k in (k..self.len).step_by(8) {
            prefetch(self.start.wrapping_add(k));
        }
    }
}
