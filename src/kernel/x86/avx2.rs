//! AVX2 (no FMA): the 32 lanes of [`Summation::Fast`] are eight 4-wide registers.
//!
//! Lane `l` lives in register `l / 4`, element `l mod 4`, so the folds `h = 16, 8, 4` add whole registers
//! (`r + r4`, then `r + r2`, then `r0 + r1`) and the last two fold one register's halves.

use std::arch::x86_64::*;

use super::{row_offsets, RowSource};
use crate::kernel::{Mistake, Summation, LANES};

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
    unsafe { dot_fast_ptr(a.as_ptr(), b.as_ptr(), a.len().min(b.len())) }
}

/// The Fast order over `n` values at `a` and `b`; masked-off lanes add `0·0 = +0.0`, which changes no
/// accumulator (see the AVX-512F path).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn dot_fast_ptr(a: *const f64, b: *const f64, n: usize) -> f64 {
    let mut acc = [_mm256_setzero_pd(); REGS];
    let full = n - n % LANES;
    let mut i = 0;
    while i < full {
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
    let n = x.len().min(y.len());
    let (xp, yp) = (x.as_ptr(), y.as_mut_ptr());
    let a = _mm256_set1_pd(alpha);
    let mut i = 0;
    while i + V <= n {
        unsafe {
            let sum = _mm256_add_pd(
                _mm256_loadu_pd(yp.add(i)),
                _mm256_mul_pd(a, _mm256_loadu_pd(xp.add(i))),
            );
            _mm256_storeu_pd(yp.add(i), sum);
        }
        i += V;
    }
    while i < n {
        unsafe { *yp.add(i) += alpha * *xp.add(i) };
        i += 1;
    }
}

/// The first mistake of the block. Fast rows of at most 32 values, and Sequential rows of any length,
/// are computed 4 rows at a time, one row per lane; longer Fast rows one at a time along the row.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn scan<R: RowSource>(
    w: &[f64],
    b: f64,
    rows: R,
    summation: Summation,
) -> Option<Mistake> {
    debug_assert_eq!(w.len(), rows.d());
    unsafe {
        match summation {
            Summation::Fast if rows.d() <= LANES => scan_across::<R, true>(w.as_ptr(), b, rows),
            Summation::Fast => scan_along::<R, true>(w.as_ptr(), b, rows, 0),
            Summation::Sequential => scan_across::<R, false>(w.as_ptr(), b, rows),
        }
    }
}

/// Rows `start..` one at a time, each dot product vectorised along the row.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn scan_along<R: RowSource, const FAST: bool>(
    w: *const f64,
    b: f64,
    rows: R,
    start: usize,
) -> Option<Mistake> {
    let d = rows.d();
    for k in start..rows.len() {
        let x = unsafe { rows.row(k) };
        let dot = if FAST {
            unsafe { dot_fast_ptr(w, x, d) }
        } else {
            let mut sum = 0.0;
            for j in 0..d {
                sum += unsafe { *w.add(j) * *x.add(j) };
            }
            sum
        };
        let activation = dot + b;
        if unsafe { rows.label(k) } * activation <= 0.0 {
            return Some(Mistake {
                offset: k,
                activation,
            });
        }
    }
    None
}

/// Four rows at a time, one per lane, each in its own scalar order (the reasoning of the AVX-512F path:
/// raw products, `+0.0` added once at the end, empty tree lanes skipped).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn scan_across<R: RowSource, const FAST: bool>(
    w: *const f64,
    b: f64,
    rows: R,
) -> Option<Mistake> {
    let (n, d) = (rows.len(), rows.d());
    let zero = _mm256_setzero_pd();
    let bias = _mm256_set1_pd(b);
    let step = d as i64;
    let stride = _mm256_set_epi64x(3 * step, 2 * step, step, 0);
    let mut products = [zero; LANES];
    let groups = n / V;
    for g in 0..groups {
        let k0 = g * V;
        let (base, offsets, labels) = if R::CONTIGUOUS {
            unsafe {
                (
                    rows.x().add(k0 * d),
                    stride,
                    _mm256_loadu_pd(rows.labels().add(k0)),
                )
            }
        } else {
            let (values, labels) = unsafe { row_offsets::<R, V>(rows, k0) };
            unsafe {
                (
                    rows.x(),
                    _mm256_loadu_si256(values.as_ptr().cast()),
                    _mm256_i64gather_pd::<8>(
                        rows.labels(),
                        _mm256_loadu_si256(labels.as_ptr().cast()),
                    ),
                )
            }
        };
        let column = |j: usize| unsafe {
            _mm256_mul_pd(
                _mm256_i64gather_pd::<8>(base.add(j), offsets),
                _mm256_set1_pd(*w.add(j)),
            )
        };
        let dot = if FAST {
            for (j, product) in products.iter_mut().enumerate().take(d) {
                *product = column(j);
            }
            fold_present(&mut products, d)
        } else {
            let mut sum = column(0);
            for j in 1..d {
                sum = _mm256_add_pd(sum, column(j));
            }
            sum
        };
        let activation = _mm256_add_pd(_mm256_add_pd(dot, zero), bias);
        let wrong = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LE_OQ>(
            _mm256_mul_pd(labels, activation),
            zero,
        ));
        if wrong != 0 {
            let lane = wrong.trailing_zeros() as usize;
            let mut values = [0.0; V];
            unsafe { _mm256_storeu_pd(values.as_mut_ptr(), activation) };
            return Some(Mistake {
                offset: k0 + lane,
                activation: values[lane],
            });
        }
    }
    unsafe { scan_along::<R, FAST>(w, b, rows, groups * V) }
}

/// The Fast tree over lanes `0..present` (`present ≤ 32`), skipping the lanes that hold no value.
#[inline]
#[target_feature(enable = "avx2")]
fn fold_present(lanes: &mut [__m256d; LANES], present: usize) -> __m256d {
    let mut present = present;
    let mut h = LANES / 2;
    while h >= 1 {
        if present > h {
            for l in 0..present - h {
                lanes[l] = _mm256_add_pd(lanes[l], lanes[l + h]);
            }
            present = h;
        }
        h /= 2;
    }
    lanes[0]
}
