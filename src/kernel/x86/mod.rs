//! The x86-64 paths: SSE2 (part of every x86-64 CPU), AVX2 and AVX-512F, chosen by run-time detection.
//!
//! Each path is a set of `#[target_feature]` functions. They may only run on a CPU that has the
//! feature, so the safe wrappers below are private and reachable only through the [`KernelPath`]s that
//! [`detect`] returns after checking the CPU.

mod avx2;
mod avx512;
mod sse2;

use super::{KernelPath, Mistake, Rows, Summation};

/// The paths this CPU can run, in order of preference (best last).
pub(super) fn detect() -> Vec<KernelPath> {
    let mut paths = vec![SSE2];
    if is_x86_feature_detected!("avx2") {
        paths.push(AVX2);
        if is_x86_feature_detected!("avx512f") {
            paths.push(AVX512);
        }
    }
    paths
}

// SAFETY (all wrappers below): SSE2 is part of the x86-64 baseline, and the AVX2 and AVX-512F wrappers
// are only stored in the `KernelPath`s that `detect` returns after `is_x86_feature_detected!` confirmed
// the feature; the fields of `KernelPath` are private, so no other code can reach them.

const SSE2: KernelPath = KernelPath {
    name: "sse2",
    dot_fast: sse2_dot_fast,
    axpy: sse2_axpy,
    scan: sse2_scan,
};

fn sse2_dot_fast(a: &[f64], b: &[f64]) -> f64 {
    unsafe { sse2::dot_fast(a, b) }
}

fn sse2_axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    unsafe { sse2::axpy(alpha, x, y) }
}

fn sse2_scan(w: &[f64], b: f64, rows: &Rows<'_>, summation: Summation) -> Option<Mistake> {
    unsafe {
        match rows.index {
            None => sse2::scan(w, b, Contiguous::new(rows), summation),
            Some(index) => sse2::scan(w, b, Indexed::new(rows, index), summation),
        }
    }
}

const AVX2: KernelPath = KernelPath {
    name: "avx2",
    dot_fast: avx2_dot_fast,
    axpy: avx2_axpy,
    scan: avx2_scan,
};

fn avx2_dot_fast(a: &[f64], b: &[f64]) -> f64 {
    unsafe { avx2::dot_fast(a, b) }
}

fn avx2_axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    unsafe { avx2::axpy(alpha, x, y) }
}

fn avx2_scan(w: &[f64], b: f64, rows: &Rows<'_>, summation: Summation) -> Option<Mistake> {
    unsafe {
        match rows.index {
            None => avx2::scan(w, b, Contiguous::new(rows), summation),
            Some(index) => avx2::scan(w, b, Indexed::new(rows, index), summation),
        }
    }
}

const AVX512: KernelPath = KernelPath {
    name: "avx512f",
    dot_fast: avx512_dot_fast,
    axpy: avx512_axpy,
    scan: avx512_scan,
};

fn avx512_dot_fast(a: &[f64], b: &[f64]) -> f64 {
    unsafe { avx512::dot_fast(a, b) }
}

fn avx512_axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    unsafe { avx512::axpy(alpha, x, y) }
}

fn avx512_scan(w: &[f64], b: f64, rows: &Rows<'_>, summation: Summation) -> Option<Mistake> {
    unsafe {
        match rows.index {
            None => avx512::scan(w, b, Contiguous::new(rows), summation),
            Some(index) => avx512::scan(w, b, Indexed::new(rows, index), summation),
        }
    }
}

/// Raw access to the rows of a validated [`Rows`] block, for the SIMD loops (no bounds checks there).
///
/// Invariant: `x` holds `n_rows · d` values and `labels` `n_rows` labels (checked by the `Rows`
/// constructors), and for an indexed block every index is below `n_rows`, so `row(k)` and `label(k)` are
/// in bounds for every `k < len()`.
trait RowSource: Copy {
    /// True when block row `k` is matrix row `k`: the rows of a group are one contiguous region.
    const CONTIGUOUS: bool;
    /// Rows in the block.
    fn len(self) -> usize;
    /// Features per row.
    fn d(self) -> usize;
    /// The matrix.
    fn x(self) -> *const f64;
    /// The labels of the matrix's rows.
    fn labels(self) -> *const f64;
    /// The matrix row of block row `k`.
    ///
    /// # Safety
    /// `k < self.len()`.
    unsafe fn matrix_row(self, k: usize) -> usize;
    /// The first value of block row `k`.
    ///
    /// # Safety
    /// `k < self.len()`.
    #[inline(always)]
    unsafe fn row(self, k: usize) -> *const f64 {
        unsafe { self.x().add(self.matrix_row(k) * self.d()) }
    }
    /// The label of block row `k`.
    ///
    /// # Safety
    /// `k < self.len()`.
    #[inline(always)]
    unsafe fn label(self, k: usize) -> f64 {
        unsafe { *self.labels().add(self.matrix_row(k)) }
    }
}

#[derive(Clone, Copy)]
struct Contiguous {
    x: *const f64,
    labels: *const f64,
    len: usize,
    d: usize,
}

impl Contiguous {
    fn new(rows: &Rows<'_>) -> Self {
        Self {
            x: rows.x.as_ptr(),
            labels: rows.labels.as_ptr(),
            len: rows.labels.len(),
            d: rows.n_features,
        }
    }
}

impl RowSource for Contiguous {
    const CONTIGUOUS: bool = true;
    #[inline(always)]
    fn len(self) -> usize {
        self.len
    }
    #[inline(always)]
    fn d(self) -> usize {
        self.d
    }
    #[inline(always)]
    fn x(self) -> *const f64 {
        self.x
    }
    #[inline(always)]
    fn labels(self) -> *const f64 {
        self.labels
    }
    #[inline(always)]
    unsafe fn matrix_row(self, k: usize) -> usize {
        k
    }
}

#[derive(Clone, Copy)]
struct Indexed {
    x: *const f64,
    labels: *const f64,
    index: *const usize,
    len: usize,
    d: usize,
}

impl Indexed {
    fn new(rows: &Rows<'_>, index: &[usize]) -> Self {
        Self {
            x: rows.x.as_ptr(),
            labels: rows.labels.as_ptr(),
            index: index.as_ptr(),
            len: index.len(),
            d: rows.n_features,
        }
    }
}

impl RowSource for Indexed {
    const CONTIGUOUS: bool = false;
    #[inline(always)]
    fn len(self) -> usize {
        self.len
    }
    #[inline(always)]
    fn d(self) -> usize {
        self.d
    }
    #[inline(always)]
    fn x(self) -> *const f64 {
        self.x
    }
    #[inline(always)]
    fn labels(self) -> *const f64 {
        self.labels
    }
    #[inline(always)]
    unsafe fn matrix_row(self, k: usize) -> usize {
        unsafe { *self.index.add(k) }
    }
}

/// The bias to add to a "raw" Fast dot product: one whose products went into the tree without the
/// `+0.0` every accumulator starts from, and whose empty lanes may hold `+0.0` or nothing at all.
///
/// A raw sum can differ from the documented one only in the sign of an exact zero: sums of leaves that
/// differ only in the sign of zero differ only in the sign of zero, and the documented sum is never
/// `−0.0`. So `raw + (b + 0.0)` is `documented + b` bit for bit. If `b` is not `−0.0`, then
/// `b + 0.0 = b`, and `−0.0 + b = +0.0 + b`. If `b` is `−0.0`, then `documented + b = documented`
/// (never `−0.0`) `= raw + (+0.0)`.
#[inline(always)]
fn bias_for_raw(b: f64) -> f64 {
    b + 0.0
}

/// Ask for the cache line holding `p` (a hint: any address is allowed, none is dereferenced).
#[inline(always)]
fn prefetch(p: *const f64) {
    // SAFETY: prefetching never faults and reads nothing into the program's state; SSE is part of the
    // x86-64 baseline.
    unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast()) }
}

/// The Sequential scan, `G` rows at a time: `G` independent left-to-right sums, one per row, advance
/// together through the columns (`w[j]` is read once for all of them). A single row's sum is one chain
/// of dependent additions, so this is what keeps the adder busy; each row still gets exactly its own
/// left-to-right sum. Plain scalar code, compiled inside each path's `#[target_feature]` function.
///
/// The rows of a group after its first mistake are computed for nothing; the training loop keeps that
/// waste small by scanning short blocks while mistakes are frequent (a block shorter than `G` goes one
/// row at a time).
///
/// # Safety
/// `w` points to `rows.d()` values.
#[inline(always)]
unsafe fn scan_sequential<R: RowSource, const G: usize>(
    w: *const f64,
    b: f64,
    rows: R,
) -> Option<Mistake> {
    let (n, d) = (rows.len(), rows.d());
    let mut k = 0;
    while k + G <= n {
        let starts: [*const f64; G] = std::array::from_fn(|r| unsafe { rows.row(k + r) });
        // The next group's rows, fetched one cache line per column step: the hardware prefetchers do
        // not follow G streams advancing 8 bytes at a time through one region.
        let ahead: [*const f64; G] = if k + 2 * G <= n {
            std::array::from_fn(|r| unsafe { rows.row(k + G + r) })
        } else {
            starts
        };
        let mut sums = [0.0f64; G];
        for j in 0..d {
            if R::CONTIGUOUS {
                // The next group is one region of G·d values: G values per column step, in order.
                prefetch(ahead[0].wrapping_add(j * G));
            } else {
                prefetch(ahead[j % G].wrapping_add(j / G * 8));
            }
            let wj = unsafe { *w.add(j) };
            for (sum, start) in sums.iter_mut().zip(&starts) {
                *sum += wj * unsafe { *start.add(j) };
            }
        }
        for (r, sum) in sums.iter().enumerate() {
            let activation = sum + b;
            if unsafe { rows.label(k + r) } * activation <= 0.0 {
                return Some(Mistake {
                    offset: k + r,
                    activation,
                });
            }
        }
        k += G;
    }
    while k < n {
        let x = unsafe { rows.row(k) };
        let mut sum = 0.0;
        for j in 0..d {
            sum += unsafe { *w.add(j) * *x.add(j) };
        }
        let activation = sum + b;
        if unsafe { rows.label(k) } * activation <= 0.0 {
            return Some(Mistake {
                offset: k,
                activation,
            });
        }
        k += 1;
    }
    None
}
