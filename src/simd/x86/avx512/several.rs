//! AVX-512F kernels over several rows against one vector: many rows' scores with `w` in registers, and
//! four rows read in place priced together. Each row meets the operations of its own call of the
//! one-row kernels, so the bits are theirs.

use std::arch::x86_64::*;

use super::{MAX_SHORT, REGS, V, dot_fast_ptr, first_lanes, fold_register, load_part, row_lanes};
#[cfg(doc)]
use super::{dot_fast, dot_fast_affine, run_short};
use crate::simd::LANES;

/// [`dot_fast_affine`] of four rows `xs` against the same `w`, `centre` and `factor`: each row meets the
/// operations of its own call (its own accumulators, the same folds, the last three of the four rows
/// shared in [`fold_four`]), while `w` and `centre` are loaded once for all four.
#[target_feature(enable = "avx512f")]
pub(in crate::simd::x86) unsafe fn dot_fast_affine4(
    w: &[f64],
    xs: [&[f64]; 4],
    centre: &[f64],
    factor: f64,
) -> [f64; 4] {
    // The dispatcher cut every slice to their common length.
    let n = w.len();
    debug_assert!(centre.len() == n && xs.iter().all(|x| x.len() == n));
    let (w, c) = (w.as_ptr(), centre.as_ptr());
    let xs = xs.map(<[f64]>::as_ptr);
    let f = _mm512_set1_pd(factor);
    let mut acc = [[_mm512_setzero_pd(); REGS]; 4];
    let full = n - n % LANES;
    let mut i = 0;
    while i < full {
        for r in 0..REGS {
            let k = i + r * V;
            unsafe {
                let (wv, cv) = (_mm512_loadu_pd(w.add(k)), _mm512_loadu_pd(c.add(k)));
                for (acc, x) in acc.iter_mut().zip(xs) {
                    let t = _mm512_mul_pd(_mm512_sub_pd(_mm512_loadu_pd(x.add(k)), cv), f);
                    acc[r] = _mm512_add_pd(acc[r], _mm512_mul_pd(wv, t));
                }
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
                let (wv, cv) = (
                    _mm512_maskz_loadu_pd(m, w.add(k)),
                    _mm512_maskz_loadu_pd(m, c.add(k)),
                );
                for (acc, x) in acc.iter_mut().zip(xs) {
                    let shifted = _mm512_sub_pd(_mm512_maskz_loadu_pd(m, x.add(k)), cv);
                    let t = _mm512_maskz_mul_pd(m, shifted, f);
                    acc[r] = _mm512_add_pd(acc[r], _mm512_mul_pd(wv, t));
                }
            }
        }
    }
    let folded = acc.map(|a| _mm512_add_pd(_mm512_add_pd(a[0], a[2]), _mm512_add_pd(a[1], a[3])));
    let sums = fold_four(folded[0], folded[1], folded[2], folded[3]);
    let mut lanes = [0.0; 8];
    unsafe { _mm512_storeu_pd(lanes.as_mut_ptr(), sums) };
    [lanes[0], lanes[2], lanes[4], lanes[6]]
}

/// [`dot_fast`] of `w` and each of the consecutive rows of `w.len()` values in `x`, into `out` (one
/// score a row). Rows of up to 128 values are read as the short-row scan reads them: `w` in
/// registers, and four rows' last folds at once ([`fold_four`]), which in a margin solve's full pass
/// of 100-value rows cost as much as their products when each row was a call of its own. A zero
/// result keeps the `+` sign of the order's `+0` start (the final `+ 0.0`, as in [`run_short`]).
#[target_feature(enable = "avx512f")]
pub(in crate::simd::x86) unsafe fn dots_fast(x: &[f64], w: &[f64], out: &mut [f64]) {
    let d = w.len();
    debug_assert!(x.len() >= out.len() * d);
    unsafe {
        match d {
            0 => out.fill(0.0),
            1..=8 => dots_short::<1>(x, w, out),
            9..=16 => dots_short::<2>(x, w, out),
            17..=24 => dots_short::<3>(x, w, out),
            25..=32 => dots_short::<4>(x, w, out),
            33..=40 => dots_short::<5>(x, w, out),
            41..=48 => dots_short::<6>(x, w, out),
            49..=56 => dots_short::<7>(x, w, out),
            57..=64 => dots_short::<8>(x, w, out),
            65..=72 => dots_short::<9>(x, w, out),
            73..=80 => dots_short::<10>(x, w, out),
            81..=88 => dots_short::<11>(x, w, out),
            89..=96 => dots_short::<12>(x, w, out),
            97..=104 => dots_short::<13>(x, w, out),
            105..=112 => dots_short::<14>(x, w, out),
            113..=120 => dots_short::<15>(x, w, out),
            121..=128 => dots_short::<16>(x, w, out),
            _ => {
                for (k, s) in out.iter_mut().enumerate() {
                    *s = dot_fast_ptr(x.as_ptr().add(k * d), w.as_ptr(), d, ());
                }
            }
        }
    }
}

/// [`dots_fast`] of rows of `8(K−1) < d ≤ 8K ≤ 128` values.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn dots_short<const K: usize>(x: &[f64], w: &[f64], out: &mut [f64]) {
    let d = w.len();
    let last = first_lanes(d - V * (K - 1));
    let mut weights = [_mm512_setzero_pd(); MAX_SHORT];
    for (r, weight) in weights.iter_mut().enumerate().take(K) {
        *weight = unsafe { load_part::<K>(w.as_ptr(), r, last) };
    }
    let mut scratch = [_mm512_setzero_pd(); MAX_SHORT];
    let row = |k: usize| x.as_ptr().wrapping_add(k * d);
    let n = out.len();
    let mut k = 0;
    while k + 4 <= n {
        let sums = unsafe {
            fold_four(
                row_lanes::<K>(row(k), &weights, last, &mut scratch),
                row_lanes::<K>(row(k + 1), &weights, last, &mut scratch),
                row_lanes::<K>(row(k + 2), &weights, last, &mut scratch),
                row_lanes::<K>(row(k + 3), &weights, last, &mut scratch),
            )
        };
        // Lanes 0, 2, 4, 6 hold the four rows' sums.
        let sums = _mm512_add_pd(sums, _mm512_setzero_pd());
        let four = _mm512_permutexvar_pd(_mm512_set_epi64(6, 4, 2, 0, 6, 4, 2, 0), sums);
        unsafe { _mm256_storeu_pd(out.as_mut_ptr().add(k), _mm512_castpd512_pd256(four)) };
        k += 4;
    }
    while k < n {
        let lanes = unsafe { row_lanes::<K>(row(k), &weights, last, &mut scratch) };
        out[k] = fold_register(lanes) + 0.0;
        k += 1;
    }
}

/// The tree's last three folds (`h = 4, 2, 1`) of four rows at once: row `j`'s sum lands in lane `2j`.
/// Every lane gets the additions [`fold_register`] makes, in the same order; the four rows share the
/// shuffles and adds that one row would need alone.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn fold_four(a: __m512d, b: __m512d, c: __m512d, d: __m512d) -> __m512d {
    // h = 4: the upper half of each row onto its lower half, two rows per register.
    let ab = _mm512_add_pd(
        _mm512_shuffle_f64x2::<0x44>(a, b),
        _mm512_shuffle_f64x2::<0xee>(a, b),
    );
    let cd = _mm512_add_pd(
        _mm512_shuffle_f64x2::<0x44>(c, d),
        _mm512_shuffle_f64x2::<0xee>(c, d),
    );
    // h = 2: lanes 2 and 3 of each row onto lanes 0 and 1, the four rows in one register.
    let pairs = _mm512_add_pd(
        _mm512_shuffle_f64x2::<0x88>(ab, cd),
        _mm512_shuffle_f64x2::<0xdd>(ab, cd),
    );
    // h = 1: lane 1 of each row onto lane 0.
    _mm512_add_pd(pairs, _mm512_permute_pd::<0x55>(pairs))
}
