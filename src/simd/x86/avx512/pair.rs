//! Modified Gram–Schmidt's step on two columns at once, in AVX-512 registers: the two columns' sums
//! take eight of the 32 registers, where the AVX2, SSE2 and NEON paths would spill theirs.

use std::arch::x86_64::*;

use super::{REGS, V, first_lanes, fold_register};
use crate::simd::LANES;

/// [`axpy_dot`](super::axpy_dot) on two columns `y1`, `y2` against the same `x` and `z`, in one pass:
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
