//! SSE2, the x86-64 baseline: the 32 lanes of [`Summation::Fast`] are sixteen 2-wide registers.
//!
//! Lane `l` lives in register `l / 2`, element `l mod 2`, so the folds `h = 16, 8, 4, 2` add whole
//! registers and the last one adds a register's two elements.

use std::arch::x86_64::*;

use crate::simd::Pass;
use crate::simd::shared::{RowSource, run_rows, run_sequential_for};
use crate::simd::{LANES, Mistake, Summation};

/// Values per register.
const V: usize = 2;
/// Registers per chunk of [`LANES`].
const REGS: usize = LANES / V;

#[target_feature(enable = "sse2")]
pub(super) unsafe fn dot_fast(a: &[f64], b: &[f64]) -> f64 {
    unsafe { dot_fast_ptr(a.as_ptr(), b.as_ptr(), a.len().min(b.len())) }
}

/// The Fast order over `n` values at `a` and `b`. In the last partial chunk a lone value is loaded with
/// `movsd`, which zeroes the other element: that lane adds `0·0 = +0.0`, which changes no accumulator.
#[inline]
#[target_feature(enable = "sse2")]
unsafe fn dot_fast_ptr(a: *const f64, b: *const f64, n: usize) -> f64 {
    let mut acc = [_mm_setzero_pd(); REGS];
    let full = n - n % LANES;
    let mut i = 0;
    while i < full {
        for (r, acc) in acc.iter_mut().enumerate() {
            let x = unsafe { _mm_loadu_pd(a.add(i + r * V)) };
            let y = unsafe { _mm_loadu_pd(b.add(i + r * V)) };
            *acc = _mm_add_pd(*acc, _mm_mul_pd(x, y));
        }
        i += LANES;
    }
    let rest = n - full;
    for (r, acc) in acc.iter_mut().enumerate() {
        let first = r * V;
        if rest > first + 1 {
            let x = unsafe { _mm_loadu_pd(a.add(i + first)) };
            let y = unsafe { _mm_loadu_pd(b.add(i + first)) };
            *acc = _mm_add_pd(*acc, _mm_mul_pd(x, y));
        } else if rest > first {
            let x = unsafe { _mm_load_sd(a.add(i + first)) };
            let y = unsafe { _mm_load_sd(b.add(i + first)) };
            *acc = _mm_add_pd(*acc, _mm_mul_pd(x, y));
        }
    }
    let mut h = REGS / 2;
    while h >= 1 {
        for r in 0..h {
            acc[r] = _mm_add_pd(acc[r], acc[r + h]);
        }
        h /= 2;
    }
    let pair = acc[0];
    _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)))
}

#[target_feature(enable = "sse2")]
pub(super) unsafe fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    unsafe { axpy_ptr(alpha, x.as_ptr(), y.as_mut_ptr(), x.len().min(y.len())) }
}

/// `y ← y + alpha·x` over `n` values.
#[inline]
#[target_feature(enable = "sse2")]
unsafe fn axpy_ptr(alpha: f64, x: *const f64, y: *mut f64, n: usize) {
    let a = _mm_set1_pd(alpha);
    let mut i = 0;
    while i + V <= n {
        unsafe {
            let sum = _mm_add_pd(
                _mm_loadu_pd(y.add(i)),
                _mm_mul_pd(a, _mm_loadu_pd(x.add(i))),
            );
            _mm_storeu_pd(y.add(i), sum);
        }
        i += V;
    }
    if i < n {
        unsafe { *y.add(i) += alpha * *x.add(i) };
    }
}

/// [`dot_fast`] of `w` and `(x − centre)·factor`: the portable loop, vectorised by the compiler.
#[target_feature(enable = "sse2")]
pub(super) unsafe fn dot_fast_affine(w: &[f64], x: &[f64], centre: &[f64], factor: f64) -> f64 {
    crate::simd::portable::dot_fast_affine(w, x, centre, factor)
}

/// [`axpy`] then [`dot_fast`]: at two values a register, one pass saves little.
#[target_feature(enable = "sse2")]
pub(super) unsafe fn axpy_dot(alpha: f64, x: &[f64], y: &mut [f64], z: &[f64]) -> f64 {
    unsafe {
        axpy(alpha, x, y);
        dot_fast(z, y)
    }
}

crate::simd::loops::portable_loops!("sse2");

/// The portable loop: at two values a register, the compiler's own vectorisation of it is as good.
#[target_feature(enable = "sse2")]
pub(super) unsafe fn rot(c: f64, s: f64, x: &mut [f64], y: &mut [f64]) {
    crate::simd::portable::rot(c, s, x, y)
}

/// Scan or train over the block: Fast rows one at a time, Sequential rows four at a time.
#[target_feature(enable = "sse2")]
pub(super) unsafe fn run<R: RowSource, const TRAIN: bool>(
    pass: &mut Pass<'_, '_>,
    rows: R,
    summation: Summation,
) -> Option<Mistake> {
    let d = rows.d();
    debug_assert_eq!(pass.d, d);
    let axpy = |alpha, x, y, n| unsafe { axpy_ptr(alpha, x, y, n) };
    unsafe {
        match summation {
            Summation::Sequential => run_sequential_for::<R, TRAIN, 4>(pass, rows, axpy),
            Summation::Fast => {
                run_rows::<R, TRAIN>(pass, rows, |w, x, n, _| dot_fast_ptr(w, x, n), axpy)
            }
        }
    }
}
