//! AVX-512F: the 32 lanes of [`Summation::Fast`] are four 8-wide registers.
//!
//! Lane `l` lives in register `l / 8`, element `l mod 8`, so the tree's first two folds (`h = 16, 8`) add
//! whole registers (`r0 + r2`, `r1 + r3`, then `r0 + r1`) and the last three fold one register's halves.

use std::arch::x86_64::*;

use crate::simd::Pass;
use crate::simd::prefetch::{Ahead, AskAhead};
use crate::simd::shared::{
    RowSource, bias_for_raw, negatives_of_four, on_mistake, run_sequential_for,
};
use crate::simd::{LANES, Mistake, Summation};

mod fused;
mod several;
pub(super) use fused::{axpy_dot, axpy_dot_ahead, axpy_dot2};
use several::fold_four;
pub(super) use several::{dot_fast_affine4, dots_fast};

/// Values per register.
const V: usize = 8;
/// Registers per chunk of [`LANES`].
const REGS: usize = LANES / V;
/// Registers that may hold `w` in the short-row loop (16 of the 32; rows of up to 128 values).
const MAX_SHORT: usize = 16;

/// The first `count` lanes (`count ≥ 8` means all of them).
#[inline(always)]
fn first_lanes(count: usize) -> __mmask8 {
    if count >= V { 0xff } else { (1u8 << count) - 1 }
}

#[target_feature(enable = "avx512f")]
pub(super) unsafe fn dot_fast(a: &[f64], b: &[f64]) -> f64 {
    unsafe { dot_fast_ptr(a.as_ptr(), b.as_ptr(), a.len().min(b.len()), ()) }
}

/// [`dot_fast`], asking for `ahead` as it goes (the same bits).
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn dot_fast_ahead(a: &[f64], b: &[f64], ahead: &[f64]) -> f64 {
    unsafe {
        dot_fast_ptr(
            a.as_ptr(),
            b.as_ptr(),
            a.len().min(b.len()),
            Ahead::of(ahead),
        )
    }
}

/// The Fast order over `n` values at `a` and `b`.
///
/// The last partial chunk is loaded with masks: a masked-off lane reads `0.0` from both sides, adds
/// `0·0 = +0.0` to its accumulator, and that changes nothing, because an accumulator that starts at
/// `+0.0` is never `−0.0`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn dot_fast_ptr(a: *const f64, b: *const f64, n: usize, ahead: impl AskAhead) -> f64 {
    let mut acc = [_mm512_setzero_pd(); REGS];
    let full = n - n % LANES;
    let mut i = 0;
    while i < full {
        ahead.chunk(i);
        for (r, acc) in acc.iter_mut().enumerate() {
            let x = unsafe { _mm512_loadu_pd(a.add(i + r * V)) };
            let y = unsafe { _mm512_loadu_pd(b.add(i + r * V)) };
            *acc = _mm512_add_pd(*acc, _mm512_mul_pd(x, y));
        }
        i += LANES;
    }
    let rest = n - full;
    for (r, acc) in acc.iter_mut().enumerate() {
        if rest > r * V {
            let m = first_lanes(rest - r * V);
            let x = unsafe { _mm512_maskz_loadu_pd(m, a.add(i + r * V)) };
            let y = unsafe { _mm512_maskz_loadu_pd(m, b.add(i + r * V)) };
            *acc = _mm512_add_pd(*acc, _mm512_mul_pd(x, y));
        }
    }
    ahead.rest(full);
    let folded = _mm512_add_pd(_mm512_add_pd(acc[0], acc[2]), _mm512_add_pd(acc[1], acc[3]));
    fold_register(folded)
}

/// [`dot_fast`] of `w` and `tⱼ = (xⱼ − centreⱼ)·factor`, each `tⱼ` computed in the lane that
/// [`dot_fast_ptr`] loads it into; in the last partial chunk the masked-off lanes of `t` are set to
/// `+0.0`, so that they add `0·0 = +0.0` there too, whatever `factor` is.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn dot_fast_affine(w: &[f64], x: &[f64], centre: &[f64], factor: f64) -> f64 {
    let n = w.len().min(x.len()).min(centre.len());
    let (w, x, c) = (w.as_ptr(), x.as_ptr(), centre.as_ptr());
    let f = _mm512_set1_pd(factor);
    let mut acc = [_mm512_setzero_pd(); REGS];
    let full = n - n % LANES;
    let mut i = 0;
    while i < full {
        for (r, acc) in acc.iter_mut().enumerate() {
            let k = i + r * V;
            unsafe {
                let t = _mm512_mul_pd(
                    _mm512_sub_pd(_mm512_loadu_pd(x.add(k)), _mm512_loadu_pd(c.add(k))),
                    f,
                );
                *acc = _mm512_add_pd(*acc, _mm512_mul_pd(_mm512_loadu_pd(w.add(k)), t));
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
                let shifted = _mm512_sub_pd(
                    _mm512_maskz_loadu_pd(m, x.add(k)),
                    _mm512_maskz_loadu_pd(m, c.add(k)),
                );
                let t = _mm512_maskz_mul_pd(m, shifted, f);
                let w = _mm512_maskz_loadu_pd(m, w.add(k));
                *acc = _mm512_add_pd(*acc, _mm512_mul_pd(w, t));
            }
        }
    }
    let folded = _mm512_add_pd(_mm512_add_pd(acc[0], acc[2]), _mm512_add_pd(acc[1], acc[3]));
    fold_register(folded)
}

/// The tree's last three folds (`h = 4, 2, 1`) within one register.
#[inline]
#[target_feature(enable = "avx512f")]
fn fold_register(v: __m512d) -> f64 {
    let quad = _mm256_add_pd(_mm512_castpd512_pd256(v), _mm512_extractf64x4_pd::<1>(v));
    let pair = _mm_add_pd(
        _mm256_castpd256_pd128(quad),
        _mm256_extractf128_pd::<1>(quad),
    );
    _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)))
}

#[target_feature(enable = "avx512f")]
pub(super) unsafe fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    unsafe { axpy_ptr(alpha, x.as_ptr(), y.as_mut_ptr(), x.len().min(y.len())) }
}

/// `y ← y + alpha·x` over `n` values.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn axpy_ptr(alpha: f64, x: *const f64, y: *mut f64, n: usize) {
    let a = _mm512_set1_pd(alpha);
    let mut i = 0;
    while i + V <= n {
        unsafe {
            let sum = _mm512_add_pd(
                _mm512_loadu_pd(y.add(i)),
                _mm512_mul_pd(a, _mm512_loadu_pd(x.add(i))),
            );
            _mm512_storeu_pd(y.add(i), sum);
        }
        i += V;
    }
    if i < n {
        let m = first_lanes(n - i);
        unsafe {
            let sum = _mm512_add_pd(
                _mm512_maskz_loadu_pd(m, y.add(i)),
                _mm512_mul_pd(a, _mm512_maskz_loadu_pd(m, x.add(i))),
            );
            _mm512_mask_storeu_pd(y.add(i), m, sum);
        }
    }
}

crate::simd::loops::portable_loops!("avx512f");

#[target_feature(enable = "avx512f")]
pub(super) unsafe fn rot(c: f64, s: f64, x: &mut [f64], y: &mut [f64]) {
    let n = x.len().min(y.len());
    let (xp, yp) = (x.as_mut_ptr(), y.as_mut_ptr());
    let (cv, sv) = (_mm512_set1_pd(c), _mm512_set1_pd(s));
    let rotate = |i: usize, m: __mmask8| unsafe {
        let (p, q) = (
            _mm512_maskz_loadu_pd(m, xp.add(i)),
            _mm512_maskz_loadu_pd(m, yp.add(i)),
        );
        _mm512_mask_storeu_pd(
            xp.add(i),
            m,
            _mm512_add_pd(_mm512_mul_pd(cv, p), _mm512_mul_pd(sv, q)),
        );
        _mm512_mask_storeu_pd(
            yp.add(i),
            m,
            _mm512_sub_pd(_mm512_mul_pd(cv, q), _mm512_mul_pd(sv, p)),
        );
    };
    // Whole registers with a constant mask (no mask to compute on the loop's path), then the tail.
    let full = n - n % V;
    let mut i = 0;
    while i < full {
        rotate(i, 0xff);
        i += V;
    }
    if i < n {
        rotate(i, first_lanes(n - i));
    }
}

/// Scan or train over the block: Fast rows of at most 128 values with `w` held in registers, Sequential
/// rows four or eight at a time (see [`run_sequential_for`]), and longer Fast rows through the AVX2 path's
/// loop, 256 bits at a time (every CPU with AVX-512F has AVX2: [`super::detect`] checks both).
///
/// The long rows run at the speed of memory with 256-bit loads, and did not with 512-bit ones: on the
/// machine of `benches/README.md` (AMD Zen 4, whose units are 256 bits wide and run a 512-bit
/// instruction as two halves), the same 32-lane loop made the clean epoch at 10⁴ × 1000 run at
/// 0.80–0.94 of the bandwidth reference in 512-bit registers and at 0.98–1.06 in 256-bit ones, in five
/// interleaved runs. The bits are the same either way.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn run<R: RowSource, const TRAIN: bool>(
    pass: &mut Pass<'_, '_>,
    rows: R,
    summation: Summation,
) -> Option<Mistake> {
    let d = rows.d();
    debug_assert_eq!(pass.d, d);
    unsafe {
        match (summation, d) {
            (Summation::Sequential, _) => {
                run_sequential_for::<R, TRAIN, 8>(pass, rows, |alpha, x, y, n| {
                    axpy_ptr(alpha, x, y, n)
                })
            }
            (Summation::Fast, 1) => run_short::<R, TRAIN, 1, 0>(pass, rows),
            (Summation::Fast, 2) => run_short::<R, TRAIN, 1, 1>(pass, rows),
            (Summation::Fast, 3..=4) => run_short::<R, TRAIN, 1, 2>(pass, rows),
            (Summation::Fast, 5..=8) => run_short::<R, TRAIN, 1, 3>(pass, rows),
            (Summation::Fast, 9..=16) => run_short::<R, TRAIN, 2, 3>(pass, rows),
            (Summation::Fast, 17..=24) => run_short::<R, TRAIN, 3, 3>(pass, rows),
            (Summation::Fast, 25..=32) => run_short::<R, TRAIN, 4, 3>(pass, rows),
            (Summation::Fast, 33..=40) => run_short::<R, TRAIN, 5, 3>(pass, rows),
            (Summation::Fast, 41..=48) => run_short::<R, TRAIN, 6, 3>(pass, rows),
            (Summation::Fast, 49..=56) => run_short::<R, TRAIN, 7, 3>(pass, rows),
            (Summation::Fast, 57..=64) => run_short::<R, TRAIN, 8, 3>(pass, rows),
            (Summation::Fast, 65..=72) => run_short::<R, TRAIN, 9, 3>(pass, rows),
            (Summation::Fast, 73..=80) => run_short::<R, TRAIN, 10, 3>(pass, rows),
            (Summation::Fast, 81..=88) => run_short::<R, TRAIN, 11, 3>(pass, rows),
            (Summation::Fast, 89..=96) => run_short::<R, TRAIN, 12, 3>(pass, rows),
            (Summation::Fast, 97..=104) => run_short::<R, TRAIN, 13, 3>(pass, rows),
            (Summation::Fast, 105..=112) => run_short::<R, TRAIN, 14, 3>(pass, rows),
            (Summation::Fast, 113..=120) => run_short::<R, TRAIN, 15, 3>(pass, rows),
            (Summation::Fast, 121..=128) => run_short::<R, TRAIN, 16, 3>(pass, rows),
            (Summation::Fast, _) => super::avx2::run_long::<R, TRAIN>(pass, rows),
        }
    }
}

/// Rows in a row without a mistake after which [`run_short`] checks rows four at a time.
const CALM: usize = 8;

/// Fast rows of `8(K−1) < d ≤ 8K ≤ 128` values, with `w` in `K` registers, updated there and written
/// back at each update. Besides the memory traffic it saves, this keeps the scan a single stream of
/// reads: on the machine of `benches/README.md`, reading `w` from L1 beside the rows cost 10–15% of the
/// bandwidth.
///
/// Each row's products go straight into the tree, without the `+0.0` the accumulators start from, and
/// lanes past `d` hold `0·0`; the register folds are skipped where only zeros would be added (`FOLDS` of
/// the last three are done). All this can only change the sign of an exact zero result, and adding
/// `b + 0.0` instead of `b` makes that sign `+` again (see [`bias_for_raw`]).
///
/// **Blocks of rows, sized by the mistakes.** A row's last three folds work within one register, and
/// for short rows they cost as much as the products. So once [`CALM`] rows in a row have passed without
/// a mistake, the loop takes rows four at a time with `w` fixed: the four rows' folds share their
/// shuffles and adds ([`fold_four`], the same additions in the same order, so the same bits), and one
/// compare tests all four. A block with a mistake is resumed one row at a time from its first mistake
/// (its earlier rows were right, and nothing else from the block is kept), and single rows continue until
/// the next calm stretch. So the block is 1 row while mistakes are frequent, when most of a block would be
/// wasted, and 4 rows when they are rare.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn run_short<R: RowSource, const TRAIN: bool, const K: usize, const FOLDS: usize>(
    pass: &mut Pass<'_, '_>,
    rows: R,
) -> Option<Mistake> {
    let (n, d) = (rows.len(), rows.d());
    let last = first_lanes(d - V * (K - 1));
    let mut weights = [_mm512_setzero_pd(); MAX_SHORT];
    for (r, weight) in weights.iter_mut().enumerate().take(K) {
        *weight = unsafe { load_part::<K>(pass.w, r, last) };
    }
    let mut bias = bias_for_raw(pass.b);
    let mut scratch = [_mm512_setzero_pd(); MAX_SHORT];
    let mut calm = 0usize;
    let mut k = 0;
    while k < n {
        if calm >= CALM && k + 4 <= n {
            let sums = unsafe {
                fold_four(
                    row_lanes::<K>(rows.row(k), &weights, last, &mut scratch),
                    row_lanes::<K>(rows.row(k + 1), &weights, last, &mut scratch),
                    row_lanes::<K>(rows.row(k + 2), &weights, last, &mut scratch),
                    row_lanes::<K>(rows.row(k + 3), &weights, last, &mut scratch),
                )
            };
            let activations = _mm512_add_pd(sums, _mm512_set1_pd(bias));
            // Lanes 0, 2, 4, 6 hold the four rows; `≤` and `≥` are false for NaN, as in the scalar
            // test.
            let wrong = if R::CONTIGUOUS && !rows.signs().is_null() {
                // y·a ≤ 0 is a ≤ 0 for y = +1 and a ≥ 0 for y = −1 (see `LabelSigns`).
                let b = unsafe { negatives_of_four(rows.signs(), k) } as u8;
                let negative = (b & 1) | (b & 2) << 1 | (b & 4) << 2 | (b & 8) << 3;
                let zero = _mm512_setzero_pd();
                _mm512_mask_cmp_pd_mask::<_CMP_LE_OQ>(0x55 & !negative, activations, zero)
                    | _mm512_mask_cmp_pd_mask::<_CMP_GE_OQ>(negative, activations, zero)
            } else {
                let margins = _mm512_mul_pd(unsafe { labels_of_four(rows, k) }, activations);
                _mm512_mask_cmp_pd_mask::<_CMP_LE_OQ>(0x55, margins, _mm512_setzero_pd())
            };
            if wrong == 0 {
                k += 4;
                calm += 4;
                continue;
            }
            k += wrong.trailing_zeros() as usize / 2;
        }
        let mut values = [_mm512_setzero_pd(); MAX_SHORT];
        let lanes = unsafe { row_lanes::<K>(rows.row(k), &weights, last, &mut values) };
        let activation = fold_register_partly::<FOLDS>(lanes) + bias;
        let y = unsafe { rows.label(k) };
        if y * activation <= 0.0 {
            // w ← w + step·x, as `axpy` does it; the lanes past d stay 0.
            let update = |step, w: *mut f64| {
                let alpha = _mm512_set1_pd(step);
                for r in 0..K {
                    weights[r] = _mm512_add_pd(weights[r], _mm512_mul_pd(alpha, values[r]));
                    let m = if r + 1 < K { 0xff } else { last };
                    unsafe { _mm512_mask_storeu_pd(w.add(r * V), m, weights[r]) };
                }
            };
            if let Some(stop) = on_mistake::<TRAIN>(pass, k, activation, y, update) {
                return Some(stop);
            }
            bias = bias_for_raw(pass.b);
            calm = 0;
        } else {
            calm += 1;
        }
        k += 1;
    }
    None
}

/// Register `r` of the `K` that hold a short row at `p` (the last one masked to the row's end).
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn load_part<const K: usize>(p: *const f64, r: usize, last: __mmask8) -> __m512d {
    unsafe {
        if r + 1 < K {
            _mm512_loadu_pd(p.add(r * V))
        } else {
            _mm512_maskz_loadu_pd(last, p.add(r * V))
        }
    }
}

/// A short row's products folded by the tree's first two steps (`h = 16, 8`) into one register; the
/// row's values are left in `values` for an update.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn row_lanes<const K: usize>(
    x: *const f64,
    weights: &[__m512d; MAX_SHORT],
    last: __mmask8,
    values: &mut [__m512d; MAX_SHORT],
) -> __m512d {
    let mut lanes = [_mm512_setzero_pd(); REGS];
    // Register r of every chunk goes to accumulator r: lane l gets the values i ≡ l (mod 32), in
    // increasing i (the first chunk's products start the accumulators).
    for r in 0..K {
        values[r] = unsafe { load_part::<K>(x, r, last) };
        let product = _mm512_mul_pd(values[r], weights[r]);
        lanes[r % REGS] = if r < REGS {
            product
        } else {
            _mm512_add_pd(lanes[r % REGS], product)
        };
    }
    // h = 16: register r takes register r + 2; h = 8: register 0 takes register 1.
    for r in 0..2 {
        if r + 2 < K {
            lanes[r] = _mm512_add_pd(lanes[r], lanes[r + 2]);
        }
    }
    if K > 1 {
        lanes[0] = _mm512_add_pd(lanes[0], lanes[1]);
    }
    lanes[0]
}

/// The labels of rows `k..k + 4` in lanes 0, 2, 4, 6.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn labels_of_four<R: RowSource>(rows: R, k: usize) -> __m512d {
    unsafe {
        if R::CONTIGUOUS {
            let four = _mm256_loadu_pd(rows.labels().add(k));
            _mm512_permutexvar_pd(
                _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0),
                _mm512_castpd256_pd512(four),
            )
        } else {
            let (y0, y1, y2, y3) = (
                rows.label(k),
                rows.label(k + 1),
                rows.label(k + 2),
                rows.label(k + 3),
            );
            _mm512_set_pd(y3, y3, y2, y2, y1, y1, y0, y0)
        }
    }
}

/// The last `FOLDS` of the three in-register folds (`h = 4, 2, 1`); the ones left out would only add
/// lanes that hold `+0.0`.
#[inline]
#[target_feature(enable = "avx512f")]
fn fold_register_partly<const FOLDS: usize>(v: __m512d) -> f64 {
    match FOLDS {
        3 => fold_register(v),
        2 => {
            let quad = _mm512_castpd512_pd256(v);
            let pair = _mm_add_pd(
                _mm256_castpd256_pd128(quad),
                _mm256_extractf128_pd::<1>(quad),
            );
            _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)))
        }
        1 => {
            let pair = _mm512_castpd512_pd128(v);
            _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)))
        }
        _ => _mm_cvtsd_f64(_mm512_castpd512_pd128(v)),
    }
}
