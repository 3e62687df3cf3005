//! NEON: the 32 lanes of [`Summation::Fast`] are sixteen 2-wide registers, as on SSE2.
//!
//! Lane `l` lives in register `l / 2`, element `l mod 2`, so the folds `h = 16, 8, 4, 2` add whole
//! registers and the last one adds a register's two elements. Products and sums are separate
//! instructions (`fmul`, `fadd`), never the fused `fmla`, so that the rounding is the documented one.

use std::arch::aarch64::*;

use crate::simd::shared::{RowSource, run_rows, run_sequential_for};
use crate::simd::{LANES, Mistake, Pass, Summation};

/// Values per register.
const V: usize = 2;
/// Registers per chunk of [`LANES`].
const REGS: usize = LANES / V;

#[target_feature(enable = "neon")]
pub(super) unsafe fn dot_fast(a: &[f64], b: &[f64]) -> f64 {
    unsafe { dot_fast_ptr(a.as_ptr(), b.as_ptr(), a.len().min(b.len())) }
}

/// The Fast order over `n` values at `a` and `b`. In the last partial chunk a lone value is loaded into
/// a register whose other element is `+0.0`: that lane adds `0·0 = +0.0`, which changes no accumulator.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn dot_fast_ptr(a: *const f64, b: *const f64, n: usize) -> f64 {
    let mut acc = [vdupq_n_f64(0.0); REGS];
    let full = n - n % LANES;
    let mut i = 0;
    while i < full {
        for (r, acc) in acc.iter_mut().enumerate() {
            let x = unsafe { vld1q_f64(a.add(i + r * V)) };
            let y = unsafe { vld1q_f64(b.add(i + r * V)) };
            *acc = vaddq_f64(*acc, vmulq_f64(x, y));
        }
        i += LANES;
    }
    let rest = n - full;
    for (r, acc) in acc.iter_mut().enumerate() {
        let first = r * V;
        if rest > first + 1 {
            let x = unsafe { vld1q_f64(a.add(i + first)) };
            let y = unsafe { vld1q_f64(b.add(i + first)) };
            *acc = vaddq_f64(*acc, vmulq_f64(x, y));
        } else if rest > first {
            let x = unsafe { vsetq_lane_f64::<0>(*a.add(i + first), vdupq_n_f64(0.0)) };
            let y = unsafe { vsetq_lane_f64::<0>(*b.add(i + first), vdupq_n_f64(0.0)) };
            *acc = vaddq_f64(*acc, vmulq_f64(x, y));
        }
    }
    let mut h = REGS / 2;
    while h >= 1 {
        for r in 0..h {
            acc[r] = vaddq_f64(acc[r], acc[r + h]);
        }
        h /= 2;
    }
    vgetq_lane_f64::<0>(acc[0]) + vgetq_lane_f64::<1>(acc[0])
}

#[target_feature(enable = "neon")]
pub(super) unsafe fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    unsafe { axpy_ptr(alpha, x.as_ptr(), y.as_mut_ptr(), x.len().min(y.len())) }
}

/// `y ← y + alpha·x` over `n` values.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn axpy_ptr(alpha: f64, x: *const f64, y: *mut f64, n: usize) {
    let a = vdupq_n_f64(alpha);
    let mut i = 0;
    while i + V <= n {
        unsafe {
            let sum = vaddq_f64(vld1q_f64(y.add(i)), vmulq_f64(a, vld1q_f64(x.add(i))));
            vst1q_f64(y.add(i), sum);
        }
        i += V;
    }
    if i < n {
        unsafe { *y.add(i) += alpha * *x.add(i) };
    }
}

/// [`dot_fast`] of `w` and `(x − centre)·factor`: the portable loop, vectorised by the compiler.
#[target_feature(enable = "neon")]
pub(super) unsafe fn dot_fast_affine(w: &[f64], x: &[f64], centre: &[f64], factor: f64) -> f64 {
    crate::simd::portable::dot_fast_affine(w, x, centre, factor)
}

/// [`axpy`] then [`dot_fast`]: at two values a register, one pass saves little.
#[target_feature(enable = "neon")]
pub(super) unsafe fn axpy_dot(alpha: f64, x: &[f64], y: &mut [f64], z: &[f64]) -> f64 {
    unsafe {
        axpy(alpha, x, y);
        dot_fast(z, y)
    }
}

crate::simd::loops::portable_loops!("neon");

/// The portable loop: at two values a register, the compiler's own vectorisation of it is as good.
#[target_feature(enable = "neon")]
pub(super) unsafe fn rot(c: f64, s: f64, x: &mut [f64], y: &mut [f64]) {
    crate::simd::portable::rot(c, s, x, y)
}

/// Scan or train over the block: Fast rows one at a time, Sequential rows four at a time.
#[target_feature(enable = "neon")]
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
