//! `y ← y + alpha·x`, then `z · y`, in one pass over `y`: on one column (the descent's step and its next
//! row's score, asking for a row ahead as it goes), and modified Gram–Schmidt's step on two columns at
//! once, whose sums take eight of the 32 registers, where the AVX2, SSE2 and NEON paths would spill
//! theirs.

use std::arch::x86_64::*;

use super::{REGS, V, first_lanes, fold_register};
use crate::simd::LANES;
use crate::simd::prefetch::{Ahead, AskAhead};

/// `y ← y + alpha·x`, then `z · y` in the Fast order, in one pass over `y`: the axpy's and the dot
/// product's operations, element by element and lane by lane, exactly as [`axpy`](super::axpy) then
/// [`dot_fast`](super::dot_fast).
#[target_feature(enable = "avx512f")]
pub(in crate::simd::x86) unsafe fn axpy_dot(
    alpha: f64,
    x: &[f64],
    y: &mut [f64],
    z: &[f64],
) -> f64 {
    unsafe { axpy_dot_asking(alpha, x, y, z, ()) }
}

/// [`axpy_dot`], asking for `ahead` as it goes (the same bits).
#[target_feature(enable = "avx512f")]
pub(in crate::simd::x86) unsafe fn axpy_dot_ahead(
    alpha: f64,
    x: &[f64],
    y: &mut [f64],
    z: &[f64],
    ahead: &[f64],
) -> f64 {
    unsafe { axpy_dot_asking(alpha, x, y, z, Ahead::of(ahead)) }
}

/// [`axpy_dot`], asking for what `ahead` names as it goes.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn axpy_dot_asking(
    alpha: f64,
    x: &[f64],
    y: &mut [f64],
    z: &[f64],
    ahead: impl AskAhead,
) -> f64 {
    let n = x.len().min(y.len()).min(z.len());
    let (x, y, z) = (x.as_ptr(), y.as_mut_ptr(), z.as_ptr());
    let a = _mm512_set1_pd(alpha);
    let mut acc = [_mm512_setzero_pd(); REGS];
    let full = n - n % LANES;
    let mut i = 0;
    while i < full {
        ahead.chunk(i);
        for (r, acc) in acc.iter_mut().enumerate() {
            let k = i + r * V;
            unsafe {
                let updated = _mm512_add_pd(
                    _mm512_loadu_pd(y.add(k)),
                    _mm512_mul_pd(a, _mm512_loadu_pd(x.add(k))),
                );
                _mm512_storeu_pd(y.add(k), updated);
                *acc = _mm512_add_pd(*acc, _mm512_mul_pd(_mm512_loadu_pd(z.add(k)), updated));
            }
        }
        i += LANES;
    }
    let rest = n - full;
    for (r, acc) in acc.iter_mut().enumerate() {
        if rest > r * V {
            let m = first_lanes(rest - r * V);
            let k = i + r * V;
            unsafe {
                // Masked-off lanes are zero (whatever `alpha`), so they add `0·0 = +0.0`, as in
                // `dot_fast_ptr`.
                let updated = _mm512_maskz_add_pd(
                    m,
                    _mm512_maskz_loadu_pd(m, y.add(k)),
                    _mm512_mul_pd(a, _mm512_maskz_loadu_pd(m, x.add(k))),
                );
                _mm512_mask_storeu_pd(y.add(k), m, updated);
                let w = _mm512_maskz_loadu_pd(m, z.add(k));
                *acc = _mm512_add_pd(*acc, _mm512_mul_pd(w, updated));
            }
        }
    }
    ahead.rest(full);
    let folded = _mm512_add_pd(_mm512_add_pd(acc[0], acc[2]), _mm512_add_pd(acc[1], acc[3]));
    fold_register(folded)
}

/// [`axpy_dot`] on two columns `y1`, `y2` against the same `x` and `z`, in one pass:
/// each column meets exactly the operations of its own call (its own accumulators, folded alike),
/// while `x` and `z` are loaded once for both, which halves the loads of modified Gram–Schmidt's step.
#[target_feature(enable = "avx512f")]
pub(in crate::simd::x86) unsafe fn axpy_dot2(
    alphas: (f64, f64),
    x: &[f64],
    ys: (&mut [f64], &mut [f64]),
    z: &[f64],
) -> (f64, f64) {
    let n = x.len().min(ys.0.len()).min(ys.1.len()).min(z.len());
    let (x, z) = (x.as_ptr(), z.as_ptr());
    let (y1, y2) = (ys.0.as_mut_ptr(), ys.1.as_mut_ptr());
    let (a1, a2) = (_mm512_set1_pd(alphas.0), _mm512_set1_pd(alphas.1));
    let mut acc1 = [_mm512_setzero_pd(); REGS];
    let mut acc2 = [_mm512_setzero_pd(); REGS];
    let full = n - n % LANES;
    let mut i = 0;
    while i < full {
        for r in 0..REGS {
            let k = i + r * V;
            unsafe {
                let (xv, zv) = (_mm512_loadu_pd(x.add(k)), _mm512_loadu_pd(z.add(k)));
                let u1 = _mm512_add_pd(_mm512_loadu_pd(y1.add(k)), _mm512_mul_pd(a1, xv));
                let u2 = _mm512_add_pd(_mm512_loadu_pd(y2.add(k)), _mm512_mul_pd(a2, xv));
                _mm512_storeu_pd(y1.add(k), u1);
                _mm512_storeu_pd(y2.add(k), u2);
                acc1[r] = _mm512_add_pd(acc1[r], _mm512_mul_pd(zv, u1));
                acc2[r] = _mm512_add_pd(acc2[r], _mm512_mul_pd(zv, u2));
            }
        }
        i += LANES;
    }
    let rest = n - full;
    for r in 0..REGS {
        if rest > r * V {
            let m = first_lanes(rest - r * V);
            let k = i + r * V;
            unsafe {
                // As in `axpy_dot`: masked-off lanes are zero and add `0·0 = +0.0`.
                let xv = _mm512_maskz_loadu_pd(m, x.add(k));
                let zv = _mm512_maskz_loadu_pd(m, z.add(k));
                let u1 = _mm512_maskz_add_pd(
                    m,
                    _mm512_maskz_loadu_pd(m, y1.add(k)),
                    _mm512_mul_pd(a1, xv),
                );
                let u2 = _mm512_maskz_add_pd(
                    m,
                    _mm512_maskz_loadu_pd(m, y2.add(k)),
                    _mm512_mul_pd(a2, xv),
                );
                _mm512_mask_storeu_pd(y1.add(k), m, u1);
                _mm512_mask_storeu_pd(y2.add(k), m, u2);
                acc1[r] = _mm512_add_pd(acc1[r], _mm512_mul_pd(zv, u1));
                acc2[r] = _mm512_add_pd(acc2[r], _mm512_mul_pd(zv, u2));
            }
        }
    }
    let fold = |acc: [__m512d; REGS]| {
        let folded = _mm512_add_pd(_mm512_add_pd(acc[0], acc[2]), _mm512_add_pd(acc[1], acc[3]));
        fold_register(folded)
    };
    (fold(acc1), fold(acc2))
}
