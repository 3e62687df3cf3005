//! The kernels of the max-margin solver (`crate::margin`): many rows' scores, the pricing of rows read
//! in place, modified Gram–Schmidt's fused steps, plane rotations and compensated combinations, each
//! dispatched to the [`active`] path and each with the bits of the documented orders on every path.

use super::{AXPY_COLUMNS, AXPY_ROWS, CompensatedDot, active, portable};
#[cfg(doc)]
use super::{Summation, axpy, dot_fast, two_prod, two_sum};

/// [`dot_fast`] of `w` and each of the consecutive rows of `w.len()` values in `x` (row-major, at least
/// `out.len()` rows), into `out`: the bits of a call for each row, in a kernel that reads many rows at
/// once where the path has one (AVX-512, rows of up to 128 values). The max-margin solver's full passes
/// over dense rows.
#[inline]
pub(crate) fn dots_fast(x: &[f64], w: &[f64], out: &mut [f64]) {
    assert!(x.len() >= out.len() * w.len(), "fewer rows than scores");
    (active().dots_fast)(x, w, out)
}

/// `w · t` in the [`Summation::Fast`] order with `tⱼ = (xⱼ − centreⱼ)·factor`: the bits of
/// [`dot_fast`] of `w` and the vector `t` (each `tⱼ` rounded as that expression is), without forming `t`.
/// Only the common prefix of the slices is used. The max-margin solver prices with it the rows it reads
/// in place, in the coordinates of its working set.
#[inline]
pub(crate) fn dot_fast_affine(w: &[f64], x: &[f64], centre: &[f64], factor: f64) -> f64 {
    let n = w.len().min(x.len()).min(centre.len());
    // As `dot_fast`: eight values or fewer, inline.
    if n <= 8 {
        let mut t = [0.0; 8];
        for (t, (&x, &c)) in t.iter_mut().zip(x.iter().zip(centre)) {
            *t = (x - c) * factor;
        }
        return portable::dot_fast_short(&w[..n], &t[..n]);
    }
    (active().dot_fast_affine)(&w[..n], &x[..n], &centre[..n], factor)
}

/// [`dot_fast_affine`] of four rows `xs` against the same `w`, `centre` and `factor`: the bits of four
/// calls, with `w` and `centre` read once for all four where the path can (AVX-512). The max-margin
/// solver's pricing of the rows it reads in place.
#[inline]
pub(crate) fn dot_fast_affine4(
    w: &[f64],
    xs: [&[f64]; 4],
    centre: &[f64],
    factor: f64,
) -> [f64; 4] {
    let n = xs
        .iter()
        .fold(w.len().min(centre.len()), |n, x| n.min(x.len()));
    if n <= 8 {
        return xs.map(|x| dot_fast_affine(w, x, centre, factor));
    }
    (active().dot_fast_affine4)(&w[..n], xs.map(|x| &x[..n]), &centre[..n], factor)
}

/// `y ← y + alpha·x`, then `z · y` in the [`Summation::Fast`] order: the bits of [`axpy`] then
/// [`dot_fast`], in one pass over `y` where the path can. The slices should have the same length; only
/// the common prefix is used. Modified Gram–Schmidt's subtraction of one column and product with the
/// next, in the max-margin solver's factorisation.
#[inline]
pub(crate) fn axpy_dot(alpha: f64, x: &[f64], y: &mut [f64], z: &[f64]) -> f64 {
    debug_assert!(x.len() == y.len() && y.len() == z.len());
    (active().axpy_dot)(alpha, x, y, z)
}

/// [`axpy_dot`], asking the caches for the row `ahead` (read after `z`) a few lines at a time as it
/// goes: the same bits. The descent of the max-margin solver sweeps over long dense rows in a shuffled
/// order, each step reading the next row as `z`; asked for in one burst before the step, the row after
/// it waited on memory all the same (see [`mod@super::prefetch`]).
#[inline]
pub(crate) fn axpy_dot_ahead(
    alpha: f64,
    x: &[f64],
    y: &mut [f64],
    z: &[f64],
    ahead: &[f64],
) -> f64 {
    debug_assert!(x.len() == y.len() && y.len() == z.len());
    (active().axpy_dot_ahead)(alpha, x, y, z, ahead)
}

/// [`dot_fast`], asking the caches for the row `ahead` a few lines at a time as it goes (the same bits;
/// see [`axpy_dot_ahead`]).
#[inline]
pub(crate) fn dot_fast_ahead(a: &[f64], b: &[f64], ahead: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    if a.len().min(b.len()) <= 8 {
        super::prefetch_values(ahead);
        return portable::dot_fast_short(a, b);
    }
    (active().dot_fast_ahead)(a, b, ahead)
}

/// [`axpy_dot`] on two columns against the same `x` and `z`: `(alphas.0, ys.0)` and `(alphas.1, ys.1)`
/// each get the bits of their own call, but `x` and `z` are read once for both where the path has
/// registers for both columns' sums (AVX-512). Modified Gram–Schmidt's step on two columns of a batch.
#[inline]
pub(crate) fn axpy_dot2(
    alphas: (f64, f64),
    x: &[f64],
    ys: (&mut [f64], &mut [f64]),
    z: &[f64],
) -> (f64, f64) {
    debug_assert!(x.len() == ys.0.len() && x.len() == ys.1.len() && x.len() == z.len());
    (active().axpy_dot2)(alphas, x, ys, z)
}

/// The plane rotation `(x, y) ← (c·x + s·y, c·y − s·x)`, element by element (BLAS `drot`): each product
/// is rounded, then added (no FMA), so every path gives the same bits. The slices should have the same
/// length; only the common prefix is used. The max-margin solver's factorisation restores its triangle
/// with these.
#[inline]
pub(crate) fn rot(c: f64, s: f64, x: &mut [f64], y: &mut [f64]) {
    debug_assert_eq!(x.len(), y.len());
    (active().rot)(c, s, x, y)
}

/// `sums[j] + corrections[j]` gains `alpha·x[j]` in twice working precision: the product exactly as
/// `p + e` ([`two_prod`]), `p` added to `sums[j]` exactly as `s + e′` ([`two_sum`]), the errors `e + e′`
/// added to `corrections[j]`. Element by element, so every path gives the same bits. The slices should
/// have the same length; only the common prefix is used. The compensated combinations of the max-margin
/// solver's twice-working-precision mode.
#[inline]
pub(crate) fn axpy_compensated(alpha: f64, x: &[f64], sums: &mut [f64], corrections: &mut [f64]) {
    debug_assert!(x.len() == sums.len() && sums.len() == corrections.len());
    (active().axpy_compensated)(alpha, x, sums, corrections)
}

/// Every class's score of a sparse row from weights stored column by column (column `j`'s weights of
/// the `k = scores.len()` classes at `w[j·k..(j + 1)·k]`), each with the bits of [`super::sparse_dot`]
/// on that class's weights ([`super::loops::class_scores`]). `lanes` holds at least `4k` values, the
/// Fast order's lane sums.
#[inline]
pub(crate) fn class_scores(
    w: &[f64],
    indices: &[super::SparseIndex],
    values: &[f64],
    summation: super::Summation,
    lanes: &mut [f64],
    scores: &mut [f64],
) {
    (active().class_scores)(w, indices, values, summation, lanes, scores)
}

/// `y ← y + alpha·t` with `tⱼ = (xⱼ − centreⱼ)·factor`: the bits of [`axpy`] of `alpha` and the vector
/// `t` (each `tⱼ` rounded as that expression is), without forming `t`. Only the common prefix of the
/// slices is used. The max-margin solver combines with it the points it reads in place.
#[inline]
pub(crate) fn axpy_affine(alpha: f64, x: &[f64], centre: &[f64], factor: f64, y: &mut [f64]) {
    let n = x.len().min(centre.len()).min(y.len());
    (active().axpy_affine)(alpha, &x[..n], &centre[..n], factor, &mut y[..n])
}

/// `y ← y + alphas[0]·columns[0] + … + alphas[7]·columns[7]`, the columns added in that order: the
/// bits of eight [`axpy`]s, with `y` read and written once ([`super::loops::axpy_columns`]). Only the
/// common prefix of the slices is used. The back substitutions of the max-margin solver's
/// factorisation, eight columns of `R` at a time.
#[inline]
pub(crate) fn axpy_columns(
    alphas: &[f64; AXPY_COLUMNS],
    columns: [&[f64]; AXPY_COLUMNS],
    y: &mut [f64],
) {
    (active().axpy_columns)(alphas, columns, y)
}

/// `ys[r] ← ys[r] + alphas[0][r]·columns[0] + alphas[1][r]·columns[1] + …` for each of four rows, the
/// columns added in order: the bits of an [`axpy`] for each column and row, with each row read and
/// written once ([`super::loops::axpy_rows`]). Only the common prefix of the slices is used. The sums of
/// outer products and the Cholesky factorisation of the max-margin solver's Newton steps, four rows of
/// a triangle at a time.
#[inline]
pub(crate) fn axpy_rows(
    alphas: &[[f64; AXPY_ROWS]],
    columns: &[&[f64]],
    ys: [&mut [f64]; AXPY_ROWS],
) {
    (active().axpy_rows)(alphas, columns, ys)
}

/// `Σ aᵢbᵢ` in twice working precision as `Dot2` leaves it, before its error bound: eight interleaved
/// lanes, then the lanes in order ([`super::compensated::dot_compensated`]), the same bits on every
/// path. The slices should have the same length; only the common prefix is used. The rigorous
/// products of the max-margin solver (`margin::accurate::dot2`).
#[inline]
pub(crate) fn dot_compensated(a: &[f64], b: &[f64]) -> CompensatedDot {
    debug_assert_eq!(a.len(), b.len());
    (active().dot_compensated)(a, b)
}
