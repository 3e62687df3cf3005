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
//! ("pivots"), summed over the columns it shares with each ([`SharedColumns`]: text rows share a
//! handful of their hundreds), a forward substitution from the first pivot it shares a column with,
//! and the residual `‖x‖² − ‖l‖²`, which opens a dimension when it is above the rounding noise of its
//! own computation. The substitutions of a block of new rows read each earlier pivot together, so the
//! triangle comes from memory once a block rather than once a row, with the bits of one row at a time.
//! Rows that joined earlier keep their coordinates, so a round pays only for its new rows.
//!
//! Why this is accurate enough although it works with squared quantities: Cholesky's factorisation is
//! backward stable, `L·Lᵀ = K + ΔK` with `|ΔKᵢⱼ| ≲ (rank + nnz)·u·‖xᵢ‖·‖xⱼ‖` whatever the conditioning
//! (clamping a negative residual to zero stays within that bound). The solve therefore sees every inner
//! product to within `O(u·R²)`, which moves `γ*²` by as much, and the rigorous bracket is in any case
//! evaluated on the stored rows, not on these coordinates. The points are not centred (a free bias's
//! two simplices are translation invariant), so `R` is the data's radius about the origin.
//!
//! That argument has a hole, measured in session 32: the factor is built without pivoting, and a row
//! barely out of the earlier rows' span opens a dimension with a pivot near `√u·‖x‖`. Later rows'
//! coordinates along it lose digits by that factor, and a row judged inside the span can come out
//! longer than it is (by 10⁻³ of its squared length on random sparse sets of three values a row in
//! 400 columns). The bracket stays rigorous, but it can stay wide. So sparse data in few columns are
//! read in place instead, and a solve the span leaves `Inaccurate` in a few thousand columns is done
//! again in place ([`super::store::Representation`]).

use std::sync::Arc;

use rayon::prelude::*;

use super::Bias;
use super::accurate::{binary_exponent, times_power_of_two};
use super::packed::PackedRows;
use super::points::Points;
use super::problem::Problem;
use super::shared_columns::SharedColumns;
use crate::simd::dot_fast;

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
        // Rows are tagged by their position in the set: those so far, then this call's.
        let old_rows = self.rows.len();
        let tagged: Vec<usize> = self.rows.iter().chain(rows).copied().collect();
        let shared = SharedColumns::new(data, &tagged);
        let mut by_tag = vec![0.0; tagged.len()];
        // The factor is a power of two, so taking it out of the sums rounds nothing.
        let factor = self.factor;
        let factor2 = factor * factor;
        let threads = rayon::current_num_threads();
        for (b, block) in rows.chunks(SUBSTITUTION_BLOCK).enumerate() {
            let block_start = old_rows + b * SUBSTITUTION_BLOCK;
            let known = self.pivots.len();
            let pivots = &self.pivots;
            let join = |by_tag: &mut Vec<f64>, (s, &i): (usize, &usize)| {
                let tag = block_start + s;
                shared.products(data, tag, by_tag);
                let products: Vec<f64> = pivots.iter().map(|&p| factor2 * by_tag[p]).collect();
                let earlier = by_tag[block_start..tag]
                    .iter()
                    .map(|&g| factor2 * g)
                    .collect();
                by_tag[..tag].fill(0.0);
                // Up to the first pivot the row shares a column with, g and l are zero.
                let first = products.iter().position(|&g| g != 0.0).unwrap_or(known);
                let mut l = Vec::with_capacity(known + s + 1);
                l.resize(first, 0.0);
                Joining {
                    row: i,
                    products,
                    earlier,
                    first,
                    l,
                }
            };
            // Each row of the block is its own computation until the pivots before the block are
            // behind it, so the threads share the block's rows, each row with the bits it has alone.
            let parallel = threads > 1 && known >= PARALLEL_PIVOTS;
            let mut joining: Vec<Joining> = if parallel {
                block
                    .par_iter()
                    .enumerate()
                    .map_init(|| vec![0.0; tagged.len()], join)
                    .collect()
            } else {
                block
                    .iter()
                    .enumerate()
                    .map(|row| join(&mut by_tag, row))
                    .collect()
            };
            // Forward substitution, lₖ = (gₖ − Σ_{j<k} Tₖⱼ·lⱼ) / Tₖₖ with Tₖ the k-th pivot's
            // coordinates: first over the pivots before the block, each read once for all its rows
            // (row by row, the triangle was read from memory once a row: a quarter of the
            // 150 000 × 2·10⁶ solve of the README), with each row's own products, so the same bits.
            let from = joining.iter().map(|j| j.first).min().unwrap_or(known);
            let triangle: &PackedRows = coordinates;
            let substitute = |rows: &mut [Joining]| {
                for k in from..known {
                    let pivot = triangle.row(pivots[k]);
                    for j in rows.iter_mut().filter(|j| j.first <= k) {
                        let partial = dot_fast(&pivot[j.first..k], &j.l[j.first..]);
                        j.l.push((j.products[k] - partial) / pivot[k]);
                    }
                }
            };
            if parallel {
                let share = joining.len().div_ceil(threads);
                joining.par_chunks_mut(share).for_each(substitute);
            } else {
                substitute(&mut joining);
            }
            // Then, row by row, over the pivots that the block's earlier rows opened.
            for joining in joining {
                let Joining {
                    row: i,
                    mut products,
                    earlier,
                    mut first,
                    mut l,
                } = joining;
                products.extend(
                    self.pivots[known..]
                        .iter()
                        .map(|&p| earlier[p - block_start]),
                );
                if first == known {
                    first = products[known..]
                        .iter()
                        .position(|&g| g != 0.0)
                        .map_or(products.len(), |q| known + q);
                    l.resize(first, 0.0);
                }
                for (k, &p) in self.pivots.iter().enumerate().skip(first.max(known)) {
                    let pivot = coordinates.row(p);
                    let partial = dot_fast(&pivot[first..k], &l[first..]);
                    l.push((products[k] - partial) / pivot[k]);
                }
                let row = data.row(i);
                let length2: f64 = row
                    .entries()
                    .map(|(_, v)| (v * factor) * (v * factor))
                    .sum();
                let residual2 = length2 - dot_fast(&l[first..], &l[first..]);
                // The residual's own rounding error is about (rank + nnz)·u·‖x‖²: below a few times
                // that, the row lies in the span of the pivots as far as the arithmetic can tell.
                let noise = 4.0 * (l.len() + row.nnz() + 2) as f64 * f64::EPSILON * length2;
                if residual2 > noise {
                    l.push(residual2.sqrt());
                    self.pivots.push(self.rows.len());
                }
                self.rows.push(i);
                coordinates.push(&l);
            }
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

/// Rows of one [`Span::extend`] whose forward substitutions read each earlier pivot once together
/// (their partial coordinates, `|W|` values each, stay in the core's caches).
const SUBSTITUTION_BLOCK: usize = 16;

/// Pivots before a block from which its rows are substituted on the threads: below it a block's
/// substitutions (about `16 × pivots² / 2` products) are too short to pay for the threads' start.
const PARALLEL_PIVOTS: usize = 256;

/// A row of a block of [`Span::extend`] on its way in: its products with the pivots before the block
/// and with the block's earlier rows, and its coordinates so far.
struct Joining {
    row: usize,
    products: Vec<f64>,
    earlier: Vec<f64>,
    first: usize,
    l: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Dataset;
    use crate::margin::problem::bits;
    use ndarray::array;

    /// The inner product of the problem's points `a` and `b`, from their coordinates.
    fn inner_product(problem: &Problem<'_>, a: usize, b: usize) -> f64 {
        let (mut u, mut v) = (Vec::new(), Vec::new());
        let (p, q) = (problem.point(a, &mut u), problem.point(b, &mut v));
        p.iter().zip(q).map(|(p, q)| p * q).sum()
    }

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
                let got = inner_product(&problem, i, j);
                assert!((exact - got).abs() < 1e-14, "({i}, {j}): {exact} vs {got}");
            }
        }
    }

    /// With the augmented points' constant (a column every row stores), rows joining over three calls
    /// in another order, and rows that share no column with the earlier ones: the coordinates still
    /// give every inner product, the constant's included.
    #[test]
    fn augmented_rows_joining_in_any_order_keep_their_inner_products() {
        let x = array![
            [1.0, 0.0, 2.0, 0.0, 0.0, 0.0],
            [0.0, 3.0, 0.0, 0.0, 1.0, 0.0],
            [1.0, 3.0, 2.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.5, -1.0, 0.0, 4.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, -2.0],
        ];
        let data = Dataset::new(x.clone(), array![1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
            .unwrap()
            .to_sparse();
        let c = 1.5;
        let points = Points::augmented(&data, c);
        let mut span = Span::new(points);
        let order = [4, 5, 0, 2, 1, 3];
        span.extend(points, &order[..1]);
        span.extend(points, &order[1..4]);
        span.extend(points, &order[4..]);
        assert_eq!(
            span.rank(),
            5,
            "row 2 is row 0 + row 1 − row 3 (the constant alone)"
        );
        let problem = span.problem(points, Bias::ThroughOrigin);
        let f2 = span.factor * span.factor;
        for (a, &i) in order.iter().enumerate() {
            for (b, &j) in order.iter().enumerate() {
                let exact = (x.row(i).dot(&x.row(j)) + c * c) * f2;
                let got = inner_product(&problem, a, b);
                assert!((exact - got).abs() < 1e-14, "({i}, {j}): {exact} vs {got}");
            }
        }
    }

    /// Rows joining in blocks (the block's rows substituted together over the pivots before it, then
    /// one by one over those the block opened) get the bits of joining one call a row: over three
    /// blocks, with rows that share no column with any earlier row, rows that share columns only
    /// with rows of their own block, and rows in the span of earlier ones, which open nothing.
    #[test]
    fn rows_joining_in_blocks_get_the_bits_of_joining_one_by_one() {
        let n = 2 * SUBSTITUTION_BLOCK + 9;
        let x = ndarray::Array2::from_shape_fn((n, 90), |(i, j)| match i % 5 {
            // Columns of their own, none shared with any other row.
            0 => {
                if j == 50 + i / 5 {
                    1.5
                } else {
                    0.0
                }
            }
            // Twice the row before it: in the span, no dimension opened.
            4 => {
                if (j + 3 * (i - 1)) % 7 == 0 && j < 45 {
                    2.0 * ((i - 1 + j) % 4 + 1) as f64
                } else {
                    0.0
                }
            }
            _ => {
                if (j + 3 * i) % 7 == 0 && j < 45 {
                    ((i + j) % 4 + 1) as f64
                } else {
                    0.0
                }
            }
        });
        let labels = ndarray::Array1::from_shape_fn(n, |i| if i % 2 == 0 { 1.0 } else { -1.0 });
        let data = Dataset::new(x, labels).unwrap().to_sparse();
        let points = Points::from(&data);
        let order: Vec<usize> = (0..n).rev().collect();
        let (mut together, mut alone) = (Span::new(points), Span::new(points));
        together.extend(points, &order[..3]);
        together.extend(points, &order[3..]);
        for &i in &order {
            alone.extend(points, &[i]);
        }
        assert!(together.rank() < n && together.rank() > SUBSTITUTION_BLOCK);
        assert_eq!(together.pivots, alone.pivots);
        for k in 0..n {
            let (a, b) = (together.coordinates.row(k), alone.coordinates.row(k));
            assert_eq!(bits(&[a.to_vec()]), bits(&[b.to_vec()]), "row {k}");
        }
    }

    /// Past `PARALLEL_PIVOTS` the rows of a block are substituted on two threads: each row gets the bits
    /// it gets alone on one.
    #[test]
    fn rows_substituted_on_threads_get_the_bits_of_one_thread() {
        let n = PARALLEL_PIVOTS + 3 * SUBSTITUTION_BLOCK + 5;
        let x = ndarray::Array2::from_shape_fn((n, n + 40), |(i, j)| {
            // A few columns a row, shared with rows far before it, and one of its own.
            if j == i || (j * 7 + i * 3) % 61 == 0 {
                ((i * 5 + j) % 9 + 1) as f64 * 0.25
            } else {
                0.0
            }
        });
        let labels = ndarray::Array1::from_shape_fn(n, |i| if i % 3 == 0 { 1.0 } else { -1.0 });
        let data = Dataset::new(x, labels).unwrap().to_sparse();
        let points = Points::from(&data);
        let order: Vec<usize> = (0..n).collect();
        let pool = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
        };
        let threaded = pool(2).install(|| {
            let mut span = Span::new(points);
            span.extend(points, &order[..PARALLEL_PIVOTS + 7]);
            span.extend(points, &order[PARALLEL_PIVOTS + 7..]);
            span
        });
        let alone = pool(1).install(|| {
            let mut span = Span::new(points);
            for &i in &order {
                span.extend(points, &[i]);
            }
            span
        });
        assert!(threaded.rank() > PARALLEL_PIVOTS + SUBSTITUTION_BLOCK);
        assert_eq!(threaded.pivots, alone.pivots);
        for k in 0..n {
            let (a, b) = (threaded.coordinates.row(k), alone.coordinates.row(k));
            assert_eq!(bits(&[a.to_vec()]), bits(&[b.to_vec()]), "row {k}");
        }
    }
}
