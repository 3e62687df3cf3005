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
    /// True when row `k` of the block is row `k` of `x`.
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

/// The matrix rows of block rows `k0 .. k0 + N` (all `< len`), as element offsets of their first values
/// from `x`, and as label offsets.
///
/// # Safety
/// `k0 + N <= rows.len()`.
#[inline(always)]
unsafe fn row_offsets<R: RowSource, const N: usize>(rows: R, k0: usize) -> ([i64; N], [i64; N]) {
    let mut values = [0i64; N];
    let mut labels = [0i64; N];
    for lane in 0..N {
        // The offsets fit in i64: they index live allocations, which never exceed isize::MAX bytes.
        let row = unsafe { rows.matrix_row(k0 + lane) };
        values[lane] = (row * rows.d()) as i64;
        labels[lane] = row as i64;
    }
    (values, labels)
}
