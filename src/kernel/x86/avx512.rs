//! AVX-512F: the 32 lanes of [`Summation::Fast`] are four 8-wide registers.
//!
//! Lane `l` lives in register `l / 8`, element `l mod 8`, so the tree's first two folds (`h = 16, 8`) add
//! whole registers (`r0 + r2`, `r1 + r3`, then `r0 + r1`) and the last three fold one register's halves.

use std::arch::x86_64::*;

use super::{row_offsets, RowSource};
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

/// The first mistake of the block. Fast rows of at most 32 values, and Sequential rows of any length,
/// are computed 8 rows at a time, one row per lane; longer Fast rows one at a time along the row.
#[target_feature(enable = "avx512f")]
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
#[target_feature(enable = "avx512f")]
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
            unsafe { dot_sequential_ptr(w, x, d) }
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

#[inline(always)]
unsafe fn dot_sequential_ptr(a: *const f64, b: *const f64, n: usize) -> f64 {
    let mut sum = 0.0;
    for j in 0..n {
        sum += unsafe { *a.add(j) * *b.add(j) };
    }
    sum
}

/// Eight rows at a time, one per lane: lane `r` of a register holds row `k0 + r`, and column `j` of the
/// eight rows is gathered into one register, so each row's products are combined in exactly the scalar
/// order of its summation.
///
/// The products are used as they are, without the `+0.0` each accumulator starts from, and `+0.0` is
/// added once at the end instead. The two agree bit for bit: a `−0.0` leaf only ever changes the sign of
/// an exact zero result, and adding `+0.0` at the end turns any zero into `+0.0`, as the documented
/// order gives. For Fast rows (at most 32 values, one per lane of the tree) the additions of lanes that
/// hold no value (`x + 0.0 = x` for every `x` that is not `−0.0`) are left out.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn scan_across<R: RowSource, const FAST: bool>(
    w: *const f64,
    b: f64,
    rows: R,
) -> Option<Mistake> {
    let (n, d) = (rows.len(), rows.d());
    let zero = _mm512_setzero_pd();
    let bias = _mm512_set1_pd(b);
    let step = d as i64;
    let stride = _mm512_set_epi64(
        7 * step,
        6 * step,
        5 * step,
        4 * step,
        3 * step,
        2 * step,
        step,
        0,
    );
    let mut products = [zero; LANES];
    let groups = n / V;
    for g in 0..groups {
        let k0 = g * V;
        let (base, offsets, labels) = if R::CONTIGUOUS {
            unsafe {
                (
                    rows.x().add(k0 * d),
                    stride,
                    _mm512_loadu_pd(rows.labels().add(k0)),
                )
            }
        } else {
            let (values, labels) = unsafe { row_offsets::<R, V>(rows, k0) };
            unsafe {
                (
                    rows.x(),
                    _mm512_loadu_epi64(values.as_ptr()),
                    _mm512_i64gather_pd::<8>(_mm512_loadu_epi64(labels.as_ptr()), rows.labels()),
                )
            }
        };
        let column = |j: usize| unsafe {
            _mm512_mul_pd(
                _mm512_i64gather_pd::<8>(offsets, base.add(j)),
                _mm512_set1_pd(*w.add(j)),
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
                sum = _mm512_add_pd(sum, column(j));
            }
            sum
        };
        let activation = _mm512_add_pd(_mm512_add_pd(dot, zero), bias);
        let wrong =
            _mm512_cmp_pd_mask::<_CMP_LE_OQ>(_mm512_mul_pd(labels, activation), zero);
        if wrong != 0 {
            let lane = wrong.trailing_zeros() as usize;
            let mut values = [0.0; V];
            unsafe { _mm512_storeu_pd(values.as_mut_ptr(), activation) };
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
#[target_feature(enable = "avx512f")]
fn fold_present(lanes: &mut [__m512d; LANES], present: usize) -> __m512d {
    let mut present = present;
    let mut h = LANES / 2;
    while h >= 1 {
        if present > h {
            for l in 0..present - h {
                lanes[l] = _mm512_add_pd(lanes[l], lanes[l + h]);
            }
            present = h;
        }
        h /= 2;
    }
    lanes[0]
}
