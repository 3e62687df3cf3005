//! AVX-512F: the 32 lanes of [`Summation::Fast`] are four 8-wide registers.
//!
//! Lane `l` lives in register `l / 8`, element `l mod 8`, so the tree's first two folds (`h = 16, 8`) add
//! whole registers (`r0 + r2`, `r1 + r3`, then `r0 + r1`) and the last three fold one register's halves.

use std::arch::x86_64::*;

use super::{scan_sequential, RowSource};
use crate::kernel::{Mistake, Summation, LANES};

/// Values per register.
const V: usize = 8;
/// Registers per chunk of [`LANES`].
const REGS: usize = LANES / V;

/// The first `count` lanes (`count ≥ 8` means all of them).
#[inline(always)]
fn first_lanes(count: usize) -> __mmask8 {
    if count >= V {
        0xff
    } else {
        (1u8 << count) - 1
    }
}

#[target_feature(enable = "avx512f")]
pub(super) unsafe fn dot_fast(a: &[f64], b: &[f64]) -> f64 {
    unsafe { dot_fast_ptr(a.as_ptr(), b.as_ptr(), a.len().min(b.len())) }
}

/// The Fast order over `n` values at `a` and `b`.
///
/// The last partial chunk is loaded with masks: a masked-off lane reads `0.0` from both sides, adds
/// `0·0 = +0.0` to its accumulator, and that changes nothing, because an accumulator that starts at
/// `+0.0` is never `−0.0`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn dot_fast_ptr(a: *const f64, b: *const f64, n: usize) -> f64 {
    let mut acc = [_mm512_setzero_pd(); REGS];
    let full = n - n % LANES;
    let mut i = 0;
    while i < full {
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
    let folded = _mm512_add_pd(
        _mm512_add_pd(acc[0], acc[2]),
        _mm512_add_pd(acc[1], acc[3]),
    );
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
    let n = x.len().min(y.len());
    let (xp, yp) = (x.as_ptr(), y.as_mut_ptr());
    let a = _mm512_set1_pd(alpha);
    let mut i = 0;
    while i + V <= n {
        unsafe {
            let sum = _mm512_add_pd(
                _mm512_loadu_pd(yp.add(i)),
                _mm512_mul_pd(a, _mm512_loadu_pd(xp.add(i))),
            );
            _mm512_storeu_pd(yp.add(i), sum);
        }
        i += V;
    }
    if i < n {
        let m = first_lanes(n - i);
        unsafe {
            let sum = _mm512_add_pd(
                _mm512_maskz_loadu_pd(m, yp.add(i)),
                _mm512_mul_pd(a, _mm512_maskz_loadu_pd(m, xp.add(i))),
            );
            _mm512_mask_storeu_pd(yp.add(i), m, sum);
        }
    }
}

/// The first mistake of the block: Fast rows of at most 32 values with `w` held in registers, longer
/// Fast rows through the full loop, Sequential rows eight at a time (see [`scan_sequential`]).
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn scan<R: RowSource>(
    w: &[f64],
    b: f64,
    rows: R,
    summation: Summation,
) -> Option<Mistake> {
    let d = rows.d();
    debug_assert_eq!(w.len(), d);
    let w = w.as_ptr();
    unsafe {
        match (summation, d) {
            (Summation::Sequential, _) => scan_sequential::<R, 8>(w, b, rows),
            (Summation::Fast, 1) => scan_short::<R, 1, 0>(w, b, rows),
            (Summation::Fast, 2) => scan_short::<R, 1, 1>(w, b, rows),
            (Summation::Fast, 3..=4) => scan_short::<R, 1, 2>(w, b, rows),
            (Summation::Fast, 5..=8) => scan_short::<R, 1, 3>(w, b, rows),
            (Summation::Fast, 9..=16) => scan_short::<R, 2, 3>(w, b, rows),
            (Summation::Fast, 17..=24) => scan_short::<R, 3, 3>(w, b, rows),
            (Summation::Fast, 25..=32) => scan_short::<R, 4, 3>(w, b, rows),
            (Summation::Fast, _) => scan_long(w, b, rows),
        }
    }
}

/// Fast rows of `8(K−1) < d ≤ 8K` values: one chunk of the 32 lanes, `w` in `K` registers.
///
/// Each row's products go straight into the tree, without the `+0.0` the accumulators start from, and
/// lanes past `d` hold `0·0`; the register folds are skipped where only zeros would be added (`FOLDS` of
/// the last three are done). All this can only change the sign of an exact zero result, and adding
/// `b + 0.0` instead of `b` makes that sign `+` again (see [`super::bias_for_raw`]).
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn scan_short<R: RowSource, const K: usize, const FOLDS: usize>(
    w: *const f64,
    b: f64,
    rows: R,
) -> Option<Mistake> {
    let d = rows.d();
    let last = first_lanes(d - V * (K - 1));
    let load = |p: *const f64, r: usize| unsafe {
        if r + 1 < K {
            _mm512_loadu_pd(p.add(r * V))
        } else {
            _mm512_maskz_loadu_pd(last, p.add(r * V))
        }
    };
    let mut weights = [_mm512_setzero_pd(); REGS];
    for (r, weight) in weights.iter_mut().enumerate().take(K) {
        *weight = load(w, r);
    }
    let bias = super::bias_for_raw(b);
    for k in 0..rows.len() {
        let x = unsafe { rows.row(k) };
        let mut lanes = [_mm512_setzero_pd(); REGS];
        for r in 0..K {
            lanes[r] = _mm512_mul_pd(load(x, r), weights[r]);
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
        let activation = fold_register_partly::<FOLDS>(lanes[0]) + bias;
        if unsafe { rows.label(k) } * activation <= 0.0 {
            return Some(Mistake {
                offset: k,
                activation,
            });
        }
    }
    None
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

/// Fast rows longer than one chunk, one at a time, each through the full loop.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn scan_long<R: RowSource>(w: *const f64, b: f64, rows: R) -> Option<Mistake> {
    let d = rows.d();
    for k in 0..rows.len() {
        let activation = unsafe { dot_fast_ptr(w, rows.row(k), d) } + b;
        if unsafe { rows.label(k) } * activation <= 0.0 {
            return Some(Mistake {
                offset: k,
                activation,
            });
        }
    }
    None
}
