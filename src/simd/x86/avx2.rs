//! AVX2 (no FMA): the 32 lanes of [`Summation::Fast`] are eight 4-wide registers.
//!
//! Lane `l` lives in register `l / 4`, element `l mod 4`, so the folds `h = 16, 8, 4` add whole registers
//! (`r + r4`, then `r + r2`, then `r0 + r1`) and the last two fold one register's halves.

use std::arch::x86_64::*;

use crate::simd::Pass;
use crate::simd::prefetch::{Ahead, AskAhead};
use crate::simd::shared::{
    RowSource, bias_for_raw, negatives_of_four, on_mistake, run_rows, run_sequential_for,
};
use crate::simd::{LANES, Mistake, Summation};

/// Values per register.
const V: usize = 4;
/// Registers per chunk of [`LANES`].
const REGS: usize = LANES / V;

/// A `maskload` mask selecting the first `count` lanes (`count ≥ 4` means all of them).
#[inline]
#[target_feature(enable = "avx2")]
fn first_lanes(count: usize) -> __m256i {
    _mm256_cmpgt_epi64(
        _mm256_set1_epi64x(count.min(V) as i64),
        _mm256_set_epi64x(3, 2, 1, 0),
    )
}

#[target_feature(enable = "avx2")]
pub(super) unsafe fn dot_fast(a: &[f64], b: &[f64]) -> f64 {
    unsafe { dot_fast_ptr(a.as_ptr(), b.as_ptr(), a.len().min(b.len()), ()) }
}

/// [`dot_fast`], asking for `ahead` as it goes (the same bits).
#[target_feature(enable = "avx2")]
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

/// The Fast order over `n` values at `a` and `b`; masked-off lanes add `0·0 = +0.0`, which changes no
/// accumulator (see the AVX-512F path).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn dot_fast_ptr(a: *const f64, b: *const f64, n: usize, ahead: impl AskAhead) -> f64 {
    let mut acc = [_mm256_setzero_pd(); REGS];
    let full = n - n % LANES;
    let mut i = 0;
    while i < full {
        ahead.chunk(i);
        for (r, acc) in acc.iter_mut().enumerate() {
            let x = unsafe { _mm256_loadu_pd(a.add(i + r * V)) };
            let y = unsafe { _mm256_loadu_pd(b.add(i + r * V)) };
            *acc = _mm256_add_pd(*acc, _mm256_mul_pd(x, y));
        }
        i += LANES;
    }
    let rest = n - full;
    for (r, acc) in acc.iter_mut().enumerate() {
        if rest > r * V {
            let m = first_lanes(rest - r * V);
            let x = unsafe { _mm256_maskload_pd(a.add(i + r * V), m) };
            let y = unsafe { _mm256_maskload_pd(b.add(i + r * V), m) };
            *acc = _mm256_add_pd(*acc, _mm256_mul_pd(x, y));
        }
    }
    ahead.rest(full);
    for r in 0..4 {
        acc[r] = _mm256_add_pd(acc[r], acc[r + 4]);
    }
    for r in 0..2 {
        acc[r] = _mm256_add_pd(acc[r], acc[r + 2]);
    }
    fold_register(_mm256_add_pd(acc[0], acc[1]))
}

/// [`dot_fast`] of `w` and `tⱼ = (xⱼ − centreⱼ)·factor`, each `tⱼ` computed in the lane that
/// [`dot_fast_ptr`] loads it into; in the last partial chunk the masked-off lanes of `t` are cleared,
/// so that they add `0·0 = +0.0` there too, whatever `factor` is.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn dot_fast_affine(w: &[f64], x: &[f64], centre: &[f64], factor: f64) -> f64 {
    let n = w.len().min(x.len()).min(centre.len());
    let (w, x, c) = (w.as_ptr(), x.as_ptr(), centre.as_ptr());
    let f = _mm256_set1_pd(factor);
    let mut acc = [_mm256_setzero_pd(); REGS];
    let full = n - n % LANES;
    let mut i = 0;
    while i < full {
        for (r, acc) in acc.iter_mut().enumerate() {
            let k = i + r * V;
            unsafe {
                let t = _mm256_mul_pd(
                    _mm256_sub_pd(_mm256_loadu_pd(x.add(k)), _mm256_loadu_pd(c.add(k))),
                    f,
                );
                *acc = _mm256_add_pd(*acc, _mm256_mul_pd(_mm256_loadu_pd(w.add(k)), t));
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
                let shifted = _mm256_sub_pd(
                    _mm256_maskload_pd(x.add(k), m),
                    _mm256_maskload_pd(c.add(k), m),
                );
                let t = _mm256_and_pd(_mm256_mul_pd(shifted, f), _mm256_castsi256_pd(m));
                let w = _mm256_maskload_pd(w.add(k), m);
                *acc = _mm256_add_pd(*acc, _mm256_mul_pd(w, t));
            }
        }
    }
    for r in 0..4 {
        acc[r] = _mm256_add_pd(acc[r], acc[r + 4]);
    }
    for r in 0..2 {
        acc[r] = _mm256_add_pd(acc[r], acc[r + 2]);
    }
    fold_register(_mm256_add_pd(acc[0], acc[1]))
}

/// The tree's last two folds (`h = 2, 1`) within one register.
#[inline]
#[target_feature(enable = "avx2")]
fn fold_register(v: __m256d) -> f64 {
    let pair = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v));
    _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)))
}

#[target_feature(enable = "avx2")]
pub(super) unsafe fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    unsafe { axpy_ptr(alpha, x.as_ptr(), y.as_mut_ptr(), x.len().min(y.len())) }
}

/// `y ← y + alpha·x` over `n` values.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn axpy_ptr(alpha: f64, x: *const f64, y: *mut f64, n: usize) {
    let a = _mm256_set1_pd(alpha);
    let mut i = 0;
    while i + V <= n {
        unsafe {
            let sum = _mm256_add_pd(
                _mm256_loadu_pd(y.add(i)),
                _mm256_mul_pd(a, _mm256_loadu_pd(x.add(i))),
            );
            _mm256_storeu_pd(y.add(i), sum);
        }
        i += V;
    }
    while i < n {
        unsafe { *y.add(i) += alpha * *x.add(i) };
        i += 1;
    }
}

/// `y ← y + alpha·x`, then `z · y` in the Fast order, in one pass over `y`: the axpy's and the dot
/// product's operations, element by element and lane by lane, exactly as [`axpy`] then [`dot_fast`].
#[target_feature(enable = "avx2")]
pub(super) unsafe fn axpy_dot(alpha: f64, x: &[f64], y: &mut [f64], z: &[f64]) -> f64 {
    unsafe { axpy_dot_asking(alpha, x, y, z, ()) }
}

/// [`axpy_dot`], asking for `ahead` as it goes (the same bits).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn axpy_dot_ahead(
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
#[target_feature(enable = "avx2")]
unsafe fn axpy_dot_asking(
    alpha: f64,
    x: &[f64],
    y: &mut [f64],
    z: &[f64],
    ahead: impl AskAhead,
) -> f64 {
    let n = x.len().min(y.len()).min(z.len());
    let (x, y, z) = (x.as_ptr(), y.as_mut_ptr(), z.as_ptr());
    let a = _mm256_set1_pd(alpha);
    let mut acc = [_mm256_setzero_pd(); REGS];
    let full = n - n % LANES;
    let mut i = 0;
    while i < full {
        ahead.chunk(i);
        for (r, acc) in acc.iter_mut().enumerate() {
            let k = i + r * V;
            unsafe {
                let updated = _mm256_add_pd(
                    _mm256_loadu_pd(y.add(k)),
                    _mm256_mul_pd(a, _mm256_loadu_pd(x.add(k))),
                );
                _mm256_storeu_pd(y.add(k), updated);
                *acc = _mm256_add_pd(*acc, _mm256_mul_pd(_mm256_loadu_pd(z.add(k)), updated));
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
                let updated = _mm256_add_pd(
                    _mm256_maskload_pd(y.add(k), m),
                    _mm256_mul_pd(a, _mm256_maskload_pd(x.add(k), m)),
                );
                _mm256_maskstore_pd(y.add(k), m, updated);
                // Masked-off lanes of `z` are zero and of `updated` `0 + alpha·0`, zero too for a
                // finite `alpha`; they are cleared all the same, so that they add `0·0 = +0.0` as in
                // `dot_fast_ptr` whatever `alpha` is.
                let updated = _mm256_and_pd(updated, _mm256_castsi256_pd(m));
                let w = _mm256_maskload_pd(z.add(k), m);
                *acc = _mm256_add_pd(*acc, _mm256_mul_pd(w, updated));
            }
        }
    }
    ahead.rest(full);
    for r in 0..4 {
        acc[r] = _mm256_add_pd(acc[r], acc[r + 4]);
    }
    for r in 0..2 {
        acc[r] = _mm256_add_pd(acc[r], acc[r + 2]);
    }
    fold_register(_mm256_add_pd(acc[0], acc[1]))
}

crate::simd::loops::portable_loops!("avx2");

#[target_feature(enable = "avx2")]
pub(super) unsafe fn rot(c: f64, s: f64, x: &mut [f64], y: &mut [f64]) {
    let n = x.len().min(y.len());
    let (xp, yp) = (x.as_mut_ptr(), y.as_mut_ptr());
    let (cv, sv) = (_mm256_set1_pd(c), _mm256_set1_pd(s));
    let mut i = 0;
    while i + V <= n {
        unsafe {
            let (p, q) = (_mm256_loadu_pd(xp.add(i)), _mm256_loadu_pd(yp.add(i)));
            _mm256_storeu_pd(
                xp.add(i),
                _mm256_add_pd(_mm256_mul_pd(cv, p), _mm256_mul_pd(sv, q)),
            );
            _mm256_storeu_pd(
                yp.add(i),
                _mm256_sub_pd(_mm256_mul_pd(cv, q), _mm256_mul_pd(sv, p)),
            );
        }
        i += V;
    }
    crate::simd::portable::rot(c, s, &mut x[i..n], &mut y[i..n]);
}

/// Scan or train over the block: Fast rows of at most 32 values with `w` held in registers, longer Fast
/// rows through the full loop, Sequential rows four or eight at a time.
#[target_feature(enable = "avx2")]
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
            (Summation::Fast, 5..=8) => run_short::<R, TRAIN, 2, 2>(pass, rows),
            (Summation::Fast, 9..=12) => run_short::<R, TRAIN, 3, 2>(pass, rows),
            (Summation::Fast, 13..=16) => run_short::<R, TRAIN, 4, 2>(pass, rows),
            (Summation::Fast, 17..=20) => run_short::<R, TRAIN, 5, 2>(pass, rows),
            (Summation::Fast, 21..=24) => run_short::<R, TRAIN, 6, 2>(pass, rows),
            (Summation::Fast, 25..=28) => run_short::<R, TRAIN, 7, 2>(pass, rows),
            (Summation::Fast, 29..=32) => run_short::<R, TRAIN, 8, 2>(pass, rows),
            (Summation::Fast, _) => run_long::<R, TRAIN>(pass, rows),
        }
    }
}

/// Rows in a row without a mistake after which [`run_short`] checks rows four at a time.
const CALM: usize = 8;

/// Fast rows of `4(K−1) < d ≤ 4K` values: one chunk of the 32 lanes, `w` in `K` registers, products
/// straight into the tree, `FOLDS` of the last two in-register folds, and rows four at a time after a calm
/// stretch, with their folds shared by [`fold_four`] (see the AVX-512F path).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn run_short<R: RowSource, const TRAIN: bool, const K: usize, const FOLDS: usize>(
    pass: &mut Pass<'_, '_>,
    rows: R,
) -> Option<Mistake> {
    let (n, d) = (rows.len(), rows.d());
    let last = first_lanes(d - V * (K - 1));
    let mut weights = [_mm256_setzero_pd(); REGS];
    for (r, weight) in weights.iter_mut().enumerate().take(K) {
        *weight = unsafe { load_part::<K>(pass.w, r, last) };
    }
    let mut bias = bias_for_raw(pass.b);
    let mut scratch = [_mm256_setzero_pd(); REGS];
    let mut calm = 0usize;
    let mut k = 0;
    while k < n {
        if calm >= CALM && k + 4 <= n {
            // Lanes hold rows 0, 2, 1, 3 (see `fold_four`).
            let sums = unsafe {
                fold_four(
                    row_lanes::<K>(rows.row(k), &weights, last, &mut scratch),
                    row_lanes::<K>(rows.row(k + 1), &weights, last, &mut scratch),
                    row_lanes::<K>(rows.row(k + 2), &weights, last, &mut scratch),
                    row_lanes::<K>(rows.row(k + 3), &weights, last, &mut scratch),
                )
            };
            let activations = _mm256_add_pd(sums, _mm256_set1_pd(bias));
            let zero = _mm256_setzero_pd();
            // `≤` and `≥` are false for NaN, as in the scalar test.
            let wrong = if R::CONTIGUOUS && !rows.signs().is_null() {
                // y·a ≤ 0 is a ≤ 0 for y = +1 and a ≥ 0 for y = −1 (see `LabelSigns`); the mask
                // bits follow the lanes, rows 0, 2, 1, 3.
                let b = unsafe { negatives_of_four(rows.signs(), k) };
                let negative = (b & 0b1001) | ((b & 0b0100) >> 1) | ((b & 0b0010) << 1);
                let at_most = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LE_OQ>(activations, zero));
                let at_least = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_GE_OQ>(activations, zero));
                (at_most as u32 & !negative) | (at_least as u32 & negative)
            } else {
                let labels = unsafe {
                    if R::CONTIGUOUS {
                        _mm256_permute4x64_pd::<0xd8>(_mm256_loadu_pd(rows.labels().add(k)))
                    } else {
                        _mm256_set_pd(
                            rows.label(k + 3),
                            rows.label(k + 1),
                            rows.label(k + 2),
                            rows.label(k),
                        )
                    }
                };
                let margins = _mm256_mul_pd(labels, activations);
                _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LE_OQ>(margins, zero)) as u32
            };
            if wrong == 0 {
                k += 4;
                calm += 4;
                continue;
            }
            let by_row = (wrong & 0b1001) | ((wrong & 0b0100) >> 1) | ((wrong & 0b0010) << 1);
            k += by_row.trailing_zeros() as usize;
        }
        let mut values = [_mm256_setzero_pd(); REGS];
        let lanes = unsafe { row_lanes::<K>(rows.row(k), &weights, last, &mut values) };
        let activation = fold_register_partly::<FOLDS>(lanes) + bias;
        let y = unsafe { rows.label(k) };
        if y * activation <= 0.0 {
            // w ← w + step·x, as `axpy` does it; the lanes past d stay 0.
            let update = |step, w: *mut f64| {
                let alpha = _mm256_set1_pd(step);
                for r in 0..K {
                    weights[r] = _mm256_add_pd(weights[r], _mm256_mul_pd(alpha, values[r]));
                    unsafe {
                        if r + 1 < K {
                            _mm256_storeu_pd(w.add(r * V), weights[r]);
                        } else {
                            _mm256_maskstore_pd(w.add(r * V), last, weights[r]);
                        }
                    }
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
#[target_feature(enable = "avx2")]
unsafe fn load_part<const K: usize>(p: *const f64, r: usize, last: __m256i) -> __m256d {
    unsafe {
        if r + 1 < K {
            _mm256_loadu_pd(p.add(r * V))
        } else {
            _mm256_maskload_pd(p.add(r * V), last)
        }
    }
}

/// A short row's products folded by the tree's first three steps (`h = 16, 8, 4`) into one register; the
/// row's values are left in `values` for an update.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn row_lanes<const K: usize>(
    x: *const f64,
    weights: &[__m256d; REGS],
    last: __m256i,
    values: &mut [__m256d; REGS],
) -> __m256d {
    let mut lanes = [_mm256_setzero_pd(); REGS];
    for r in 0..K {
        values[r] = unsafe { load_part::<K>(x, r, last) };
        lanes[r] = _mm256_mul_pd(values[r], weights[r]);
    }
    // h = 16, 8, 4: register r takes register r + 4, r + 2, r + 1, where that one holds values.
    let mut present = K;
    let mut h = 4;
    while h >= 1 {
        if present > h {
            for r in 0..present - h {
                lanes[r] = _mm256_add_pd(lanes[r], lanes[r + h]);
            }
            present = h;
        }
        h /= 2;
    }
    lanes[0]
}

/// The tree's last two folds (`h = 2, 1`) of four rows at once, with the additions [`fold_register`]
/// makes, in the same order. The sums land in lanes 0, 2, 1, 3 for rows 0, 1, 2, 3 (the order
/// `hadd` leaves them in).
#[inline]
#[target_feature(enable = "avx2")]
fn fold_four(a: __m256d, b: __m256d, c: __m256d, d: __m256d) -> __m256d {
    // h = 2: the upper half of each row onto its lower half, two rows per register.
    let ab = _mm256_add_pd(
        _mm256_permute2f128_pd::<0x20>(a, b),
        _mm256_permute2f128_pd::<0x31>(a, b),
    );
    let cd = _mm256_add_pd(
        _mm256_permute2f128_pd::<0x20>(c, d),
        _mm256_permute2f128_pd::<0x31>(c, d),
    );
    // h = 1: lane 1 of each row onto lane 0; `hadd` interleaves its two sources.
    _mm256_hadd_pd(ab, cd)
}

/// The last `FOLDS` of the two in-register folds (`h = 2, 1`).
#[inline]
#[target_feature(enable = "avx2")]
fn fold_register_partly<const FOLDS: usize>(v: __m256d) -> f64 {
    match FOLDS {
        2 => fold_register(v),
        1 => {
            let pair = _mm256_castpd256_pd128(v);
            _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)))
        }
        _ => _mm_cvtsd_f64(_mm256_castpd256_pd128(v)),
    }
}

/// Fast rows longer than one chunk, one at a time, each through the full loop; scattered rows ask for
/// the row after next as they go ([`run_rows`]): on this crate's shared AMD Zen 4 (session 45) a clean
/// shuffled epoch over 2·10⁴ × 1000 took 6.7–6.8 ms instead of 15.8–16.1, and over 5·10⁴ × 200
/// 7.6–7.7 instead of 10.5–10.6. Contiguous rows keep the kernel that asks for nothing.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn run_long<R: RowSource, const TRAIN: bool>(
    pass: &mut Pass<'_, '_>,
    rows: R,
) -> Option<Mistake> {
    let axpy = |alpha, x, y, n| unsafe { axpy_ptr(alpha, x, y, n) };
    unsafe {
        if R::CONTIGUOUS {
            run_rows::<R, TRAIN>(pass, rows, |w, x, n, _| dot_fast_ptr(w, x, n, ()), axpy)
        } else {
            let dot = |w, x, n, ahead: &[f64]| dot_fast_ptr(w, x, n, Ahead::of(ahead));
            run_rows::<R, TRAIN>(pass, rows, dot, axpy)
        }
    }
}
