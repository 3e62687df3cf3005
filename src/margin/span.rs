//! A sparse working set's points without their columns: each row's coordinates in an orthonormal basis
//! of the rows' span, a basis that is never formed.
//!
//! The exact solve of [`super::rounds`] needs the working set's geometry, nothing more: the inner
//! products of its rows. On sparse data with many columns (text, hashed features) a dense copy of the
//! rows in the columns they use holds `|W| × columns` values, which for an rcv1-sized set passes a
//! gigabyte long before the working set holds the support. The rows' Cholesky factor `L`, with
//! `L·Lᵀ = K` the Gram matrix of the rows, is lower triangular, packed row by row in about
//! `|W| × rank / 2` values ([`PackedRows`]), and its rows are coordinates of the rows in an orthonormal
//! basis of their span (the basis Gram–Schmidt would build, in the order the rows arrived), so the solve
//! sees exactly the same geometry in at most `|W|` dimensions. The solve reads the packed rows where
//! they are (a copy padded to the rank would take twice as much again), and its products with a row
//! run over the row's own coordinates only.
//!
//! The factor is built row by row: a new row's inner products with the rows that opened a dimension
//! ("pivots", `O(nnz)` each through one scattered copy of the row), a forward substitution, and the
//! residual `‖x‖² − ‖l‖²`, which opens a dimension when it is above the rounding noise of its own
//! computation. Rows that joined earlier keep their coordinates, so a round pays only for its new rows.
//!
//! Why this is accurate enough although it works with squared quantities: Cholesky's factorisation is
//! backward stable, `L·Lᵀ = K + ΔK` with `|ΔKᵢⱼ| ≲ (rank + nnz)·u·‖xᵢ‖·‖xⱼ‖` whatever the conditioning
//! (clamping a negative residual to zero stays within that bound). The solve therefore sees every inner
//! product to within `O(u·R²)`, which moves `γ*²` by as much, and the rigorous bracket is in any case
//! evaluated on the stored rows, not on these coordinates. The points are not centred (a free bias's
//! two simplices are translation invariant), so `R` is the data's radius about the origin.

use std::sync::Arc;

use super::Bias;
use super::accurate::{binary_exponent, times_power_of_two};
use super::packed::PackedRows;
use super::points::Points;
use super::problem::Problem;
use crate::simd::{Summation, dot_fast};

/// The coordinates of the working set's rows so far.
pub(super) struct Span {
    /// The working set's data rows, in order of arrival.
    rows: Vec<usize>,
    /// Row `k`'s coordinates (as many as the dimensions open when it arrived), shared with the
    /// working set's problem, which reads them where they are.
    coordinates: Arc<PackedRows>,
    /// The positions (in `rows`) of the rows that opened a dimension: dimension `k` was opened by
    /// `pivots[k]`, whose coordinates end with the positive entry `k`.
    pivots: Vec<usize>,
    /// The data's columns, `d`: the most dimensions the rows can open.
    columns: usize,
    /// The power of two that brings every row into the unit ball (exact, so it rounds nothing).
    factor: f64,
}

impl Span {
    /// An empty set, for the rows of `data`.
    pub(super) fn new(data: Points<'_>) -> Span {
        let radius = data.radius();
        Span {
            rows: Vec::new(),
            coordinates: Arc::new(PackedRows::new()),
            pivots: Vec::new(),
            columns: data.n_features(),
            factor: if radius > 0.0 && radius.is_finite() {
                times_power_of_two(1.0, -binary_exponent(radius) - 1)
            } else {
                1.0
            },
        }
    }

    /// The rows added so far.
    pub(super) fn len(&self) -> usize {
        self.rows.len()
    }

    /// The dimensions the rows span (numerically).
    pub(super) fn rank(&self) -> usize {
        self.pivots.len()
    }

    /// Add rows of `data` (the working set's new rows, in the order they joined it).
    ///
    /// The problem built from the rows before must have been dropped: the coordinates are extended
    /// where they are, and would be copied while it shares them.
    pub(super) fn extend(&mut self, data: Points<'_>, rows: &[usize]) {
        let added = self.values_added(rows.len());
        let coordinates = Arc::make_mut(&mut self.coordinates);
        coordinates.reserve(rows.len(), added);
        let mut products = Vec::new();
        // One dense row of length `d`, zero outside the entries of the row being added. It lives only
        // while rows join: with a million columns it is as large as the rest of the solve's memory, and
        // the solve's peak comes later, with the separator (another `d` values) and the bracket.
        let mut scatter = vec![0.0; self.columns];
        for &i in rows {
            let row = data.row(i);
            let factor = self.factor;
            let mut length2 = 0.0;
            for (j, v) in row.entries() {
                let v = v * factor;
                scatter[j] = v;
                length2 += v * v;
            }
            products.clear();
            // The factor is a power of two, so taking it out of the sum rounds nothing.
            products.extend(
                self.pivots
                    .iter()
                    .map(|&p| factor * data.row(self.rows[p]).dot(&scatter, Summation::Fast)),
            );
            for (j, _) in row.entries() {
                scatter[j] = 0.0;
            }
            // Forward substitution: lₖ = (gₖ − Σ_{j<k} Tₖⱼ·lⱼ) / Tₖₖ with Tₖ the k-th pivot's coordinates.
            let mut l: Vec<f64> = Vec::with_capacity(self.pivots.len() + 1);
            for (k, &p) in self.pivots.iter().enumerate() {
                let pivot = coordinates.row(p);
                let partial = dot_fast(&pivot[..k], &l);
                l.push((products[k] - partial) / pivot[k]);
            }
            let residual2 = length2 - dot_fast(&l, &l);
            // The residual's own rounding error is about (rank + nnz)·u·‖x‖²: below a few times that,
            // the row lies in the span of the pivots as far as the arithmetic can tell.
            let noise = 4.0 * (l.len() + row.nnz() + 2) as f64 * f64::EPSILON * length2;
            if residual2 > noise {
                l.push(residual2.sqrt());
                self.pivots.push(self.rows.len());
            }
            self.rows.push(i);
            coordinates.push(&l);
        }
    }

    /// The most values `joining` more rows can add to the coordinates: the `k`-th of them at most
    /// `rank + k + 1`, and never more than the data's columns.
    fn values_added(&self, joining: usize) -> usize {
        let rank = self.rank();
        let opening = joining.min(self.columns.saturating_sub(rank));
        let triangle = opening.saturating_mul(opening + 1) / 2;
        let full = (joining - opening).saturating_mul(self.columns);
        opening
            .saturating_mul(rank)
            .saturating_add(triangle)
            .saturating_add(full)
    }

    /// The most values the coordinates can hold once `joining` more rows are added.
    pub(super) fn values_with(&self, joining: usize) -> usize {
        self.values().saturating_add(self.values_added(joining))
    }

    /// The values the coordinates hold (about half of `|W| × rank`).
    pub(super) fn values(&self) -> usize {
        self.coordinates.values()
    }

    /// The working set's problem: row `k` is the `k`-th row's coordinates, zeros after them up to the
    /// rank, read where the span keeps them.
    pub(super) fn problem(&self, data: Points<'_>, bias: Bias) -> Problem<'static> {
        let labels = self.rows.iter().map(|&i| data.labels()[i]).collect();
        Problem::in_span(
            Arc::clone(&self.coordinates),
            self.rank(),
            labels,
            bias,
            data.data().nnz(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Dataset;
    use ndarray::array;

    /// The coordinates reproduce every inner product of the rows (scaled by the factor squared), and a
    /// row in the span of earlier ones opens no dimension.
    #[test]
    fn coordinates_keep_the_inner_products() {
        let x = array![
            [1.0, 0.0, 2.0, 0.0, 0.0],
            [0.0, 3.0, 0.0, 0.0, 1.0],
            [1.0, 3.0, 2.0, 0.0, 1.0],
            [0.0, 0.0, 0.0, 0.0, 0.0],
            [0.5, -1.0, 0.0, 4.0, 0.0],
        ];
        let data = Dataset::new(x.clone(), array![1.0, -1.0, 1.0, -1.0, 1.0])
            .unwrap()
            .to_sparse();
        let points = Points::from(&data);
        let mut span = Span::new(points);
        span.extend(points, &[0, 1]);
        let bound = span.values_with(3);
        span.extend(points, &[2, 3, 4]);
        assert_eq!(span.rank(), 3, "row 2 is row 0 + row 1, row 3 is zero");
        assert!(span.values() <= bound && bound <= span.values() + 8);
        let problem = span.problem(points, Bias::Free);
        // The problem reads the span's coordinates where they are.
        assert_eq!(Arc::strong_count(&span.coordinates), 2);
        assert_eq!(problem.copied_values(), span.values());
        let f2 = span.factor * span.factor;
        let w = [0.5, -2.0, 0.25];
        for i in 0..5 {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let (point, stored) = (problem.point(i, &mut a), problem.stored(i, &mut b));
            assert_eq!(point.len(), 3);
            assert_eq!(&point[..stored.len()], stored);
            assert!(point[stored.len()..].iter().all(|&v| v == 0.0));
            let product: f64 = point.iter().zip(&w).map(|(p, w)| p * w).sum();
            let fast = problem.dot_fast(i, &w, &mut a);
            assert!((product - fast).abs() < 1e-15, "{i}: {product} vs {fast}");
        }
        for i in 0..5 {
            for j in 0..5 {
                let exact = x.row(i).dot(&x.row(j)) * f2;
                let (mut a, mut b) = (Vec::new(), Vec::new());
                let got: f64 = problem
                    .point(i, &mut a)
                    .iter()
                    .zip(problem.point(j, &mut b))
                    .map(|(a, b)| a * b)
                    .sum();
                assert!((exact - got).abs() < 1e-14, "({i}, {j}): {exact} vs {got}");
            }
        }
    }
}
