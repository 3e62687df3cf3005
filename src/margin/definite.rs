//! Symmetric definite systems of about a hundred unknowns, as Newton's steps ([`super::newton`]) form
//! and solve them: sums of outer products kept as rows join and leave, and Cholesky's factorisation.
//!
//! The matrix is stored by the rows of its upper triangle, one after the other (row `j` holds the
//! entries `j..p`), so that the three loops that cost `O(p²)` or more per call run over contiguous
//! slices, four rows at a time where they can ([`axpy_rows`]), a row the last few ([`add_columns`]):
//! - a point's outer product adds `zⱼ·z[j..p]` to row `j`;
//! - the factor's row `j` is the matrix's row `j` less `U[k][j]·U[k][j..p]` for each row `k` above it
//!   (Cholesky's left-looking order, `A = UᵀU`);
//! - the triangular solves subtract a row at a time, or take one product with it.
//!
//! The factorisation had been a product ([`dot_fast`]) per entry of a lower triangle stored by rows:
//! `p²/2` short products, each paying the reduction of its lanes, about 100 µs at `p = 101` (AMD Zen 4).
//! Every entry here is a plain sequence of rounded products and additions in a fixed order (the rows
//! `k` in increasing order, the points in the order given), so the bits are the same on every machine
//! and every path of [`crate::simd`].

use crate::simd::{AXPY_COLUMNS, AXPY_ROWS, axpy, axpy_columns, axpy_rows, dot_fast};

/// Where row `j` of a packed upper triangle of `p` rows starts: `Σ_{i<j} (p − i)`.
fn start(p: usize, j: usize) -> usize {
    j * (2 * p + 1 - j) / 2
}

/// Rows `j..j + AXPY_ROWS` of a packed upper triangle of `p` rows gain `Σₖ (scale·cₖ[r])·cₖ` for the
/// columns `cₖ` of `columns`, which start at column `j` ([`axpy_rows`]). The rows start at their
/// diagonals, so they are copied into `block` from column `j` on, where the entries below the diagonal
/// are computed and dropped: then every entry the triangle holds gains the columns' products in their
/// order.
fn update_block(
    values: &mut [f64],
    p: usize,
    j: usize,
    columns: &[&[f64]],
    scale: f64,
    block: &mut Vec<f64>,
) {
    let alphas: Vec<[f64; AXPY_ROWS]> = columns
        .iter()
        .map(|c| std::array::from_fn(|r| scale * c[r]))
        .collect();
    let width = p - j;
    block.clear();
    block.resize(AXPY_ROWS * width, 0.0);
    for (r, copy) in block.chunks_exact_mut(width).enumerate() {
        copy[r..].copy_from_slice(&values[start(p, j + r)..start(p, j + r + 1)]);
    }
    let mut rows = block.chunks_exact_mut(width);
    let rows = std::array::from_fn(|_| rows.next().expect("four rows"));
    axpy_rows(&alphas, columns, rows);
    for (r, copy) in block.chunks_exact(width).enumerate() {
        values[start(p, j + r)..start(p, j + r + 1)].copy_from_slice(&copy[r..]);
    }
}

/// `row ← row + Σₖ (scale·cₖ[0])·cₖ` for the columns `cₖ = column(k)`, `k < count`, in order: eight at
/// a time ([`axpy_columns`]), then one at a time, each entry the bits of an [`axpy`] a column.
fn add_columns<'c>(row: &mut [f64], count: usize, column: impl Fn(usize) -> &'c [f64], scale: f64) {
    let mut k = 0;
    while k + AXPY_COLUMNS <= count {
        let alphas = std::array::from_fn(|t| scale * column(k + t)[0]);
        let columns = std::array::from_fn(|t| column(k + t));
        axpy_columns(&alphas, columns, row);
        k += AXPY_COLUMNS;
    }
    for k in k..count {
        axpy(scale * column(k)[0], column(k), row);
    }
}

/// A symmetric `p × p` matrix by the rows of its upper triangle.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct UpperRows {
    p: usize,
    values: Vec<f64>,
}

impl UpperRows {
    /// The zero matrix.
    pub(super) fn zeros(p: usize) -> UpperRows {
        UpperRows {
            p,
            values: vec![0.0; start(p, p)],
        }
    }

    /// Entry `(j, k)` (or `(k, j)`).
    #[cfg(test)]
    pub(super) fn get(&self, j: usize, k: usize) -> f64 {
        let (j, k) = (j.min(k), j.max(k));
        self.values[start(self.p, j) + k - j]
    }

    /// `self ← self + sign·Σₐ zₐzₐᵀ` for the points `zₐ`, `p` values each one after the other in
    /// `points`: each entry gains the points' products in their order, as one [`axpy`] a point would.
    pub(super) fn add_outer(&mut self, points: &[f64], sign: f64) {
        let p = self.p;
        let count = points.len() / p;
        let point = |a: usize| &points[a * p..(a + 1) * p];
        let mut columns = Vec::with_capacity(count);
        let mut block = Vec::new();
        let mut j = 0;
        while j + AXPY_ROWS <= p && count > 0 {
            columns.clear();
            columns.extend((0..count).map(|a| &point(a)[j..]));
            update_block(&mut self.values, p, j, &columns, sign, &mut block);
            j += AXPY_ROWS;
        }
        for j in j..p {
            let row = &mut self.values[start(p, j)..start(p, j + 1)];
            add_columns(row, count, |a| &point(a)[j..], sign);
        }
    }

    /// Row `j` of the factor, once the rows above `from` have been subtracted from it: the rows
    /// `from..j` are subtracted (eight at a time), then the row is divided by the root of its pivot.
    /// `None` when the pivot is not positive and finite.
    fn finish_row(&mut self, j: usize, from: usize) -> Option<()> {
        let p = self.p;
        let (above, rest) = self.values.split_at_mut(start(p, j));
        let row = &mut rest[..p - j];
        // `U[k][j..p]`, the part of row `k` from column `j`.
        let from_column_j = |k: usize| &above[start(p, k) + j - k..start(p, k + 1)];
        add_columns(row, j - from, |k| from_column_j(from + k), -1.0);
        let pivot = row[0];
        if !(pivot > 0.0 && pivot.is_finite()) {
            return None;
        }
        let root = pivot.sqrt();
        row[0] = root;
        row[1..].iter_mut().for_each(|v| *v /= root);
        Some(())
    }

    /// `self ← factor·other + diagonal` (the diagonal's `p` values added to its entries).
    pub(super) fn assign_scaled(&mut self, other: &UpperRows, factor: f64, diagonal: &[f64]) {
        for (value, &o) in self.values.iter_mut().zip(&other.values) {
            *value = factor * o;
        }
        for (j, &v) in diagonal.iter().enumerate() {
            self.values[start(self.p, j)] += v;
        }
    }

    /// Solve `A·x = g` by Cholesky's factorisation `A = UᵀU`, written over `self`; `None` when a pivot
    /// is not positive and finite (the matrix is not numerically definite) or `x` is not finite.
    pub(super) fn solve_definite(&mut self, mut g: Vec<f64>) -> Option<Vec<f64>> {
        let p = self.p;
        let mut block = Vec::new();
        let mut j = 0;
        // Four rows at a time: the rows above the block are subtracted from all four together, then
        // the block's rows from one another, in order.
        while j + AXPY_ROWS <= p {
            let (above, rest) = self.values.split_at_mut(start(p, j));
            let columns: Vec<&[f64]> = (0..j)
                .map(|k| &above[start(p, k) + j - k..start(p, k + 1)])
                .collect();
            update_block(rest, p - j, 0, &columns, -1.0, &mut block);
            for r in 0..AXPY_ROWS {
                self.finish_row(j + r, j)?;
            }
            j += AXPY_ROWS;
        }
        for j in j..p {
            self.finish_row(j, 0)?;
        }
        let row = |j: usize| &self.values[start(p, j)..start(p, j + 1)];
        // Uᵀ·y = g, a row of U subtracted at a time, then U·x = y, a product with each row.
        for j in 0..p {
            let u = row(j);
            g[j] /= u[0];
            let (solved, rest) = g.split_at_mut(j + 1);
            axpy(-solved[j], &u[1..], rest);
        }
        for j in (0..p).rev() {
            let u = row(j);
            g[j] = (g[j] - dot_fast(&u[1..], &g[j + 1..])) / u[0];
        }
        g.iter().all(|v| v.is_finite()).then_some(g)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A deterministic spread of values in [−1, 1] (the tests of `newton` use it too).
    pub(in crate::margin) fn spread(k: usize) -> f64 {
        ((k * 7919 + 13) % 2003) as f64 / 1001.5 - 1.0
    }

    #[test]
    fn outer_products_are_summed_into_the_upper_rows() {
        for (p, count) in [(1, 3), (5, 8), (13, 21)] {
            let points: Vec<f64> = (0..p * count).map(spread).collect();
            let mut sums = UpperRows::zeros(p);
            sums.add_outer(&points, 1.0);
            sums.add_outer(&points[..p], -1.0);
            for j in 0..p {
                for k in 0..p {
                    let expected: f64 = (1..count)
                        .map(|a| points[a * p + j] * points[a * p + k])
                        .sum();
                    assert!((sums.get(j, k) - expected).abs() <= 1e-13, "{p} {j} {k}");
                    assert_eq!(sums.get(j, k).to_bits(), sums.get(k, j).to_bits());
                }
            }
        }
    }

    /// Eight points at a time and one at a time give the same bits.
    #[test]
    fn the_points_are_added_in_order_whatever_their_grouping() {
        let p = 11;
        let points: Vec<f64> = (0..p * 19).map(spread).collect();
        let mut together = UpperRows::zeros(p);
        together.add_outer(&points, 1.0);
        let mut one_by_one = UpperRows::zeros(p);
        for point in points.chunks(p) {
            one_by_one.add_outer(point, 1.0);
        }
        assert_eq!(together, one_by_one);
    }

    /// The factor has the bits of the plain left-looking order, each row less the rows above it one at
    /// a time, whatever the blocks of four and eight it is computed in.
    #[test]
    fn the_factor_has_the_bits_of_one_row_at_a_time() {
        for p in [1, 3, 4, 5, 8, 9, 12, 13, 17, 40, 43] {
            let a: Vec<f64> = (0..p * (p + 3)).map(spread).collect();
            let mut gram = UpperRows::zeros(p);
            gram.add_outer(&a, 1.0);
            let mut h = UpperRows::zeros(p);
            h.assign_scaled(&gram, 1.0, &vec![0.5; p]);
            let mut reference = h.clone();
            let values = &mut reference.values;
            for j in 0..p {
                for k in 0..j {
                    let u = values[start(p, k) + j - k];
                    for col in j..p {
                        let above = values[start(p, k) + col - k];
                        values[start(p, j) + col - j] += -u * above;
                    }
                }
                let root = values[start(p, j)].sqrt();
                values[start(p, j)] = root;
                for col in j + 1..p {
                    values[start(p, j) + col - j] /= root;
                }
            }
            h.solve_definite(vec![1.0; p]).unwrap();
            let bits = |m: &UpperRows| m.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&h), bits(&reference), "p = {p}");
        }
    }

    #[test]
    fn a_definite_system_is_solved_and_an_indefinite_one_refused() {
        for p in [1, 2, 7, 9, 40] {
            // H = AᵀA + I.
            let a: Vec<f64> = (0..p * p).map(spread).collect();
            let mut h = UpperRows::zeros(p);
            h.add_outer(&a, 1.0);
            let mut copy = UpperRows::zeros(p);
            copy.assign_scaled(&h, 1.0, &vec![1.0; p]);
            let full = copy.clone();
            let g: Vec<f64> = (0..p).map(|j| spread(j + 5000)).collect();
            let x = copy.solve_definite(g.clone()).unwrap();
            for (j, &gj) in g.iter().enumerate() {
                let hx: f64 = (0..p).map(|k| full.get(j, k) * x[k]).sum();
                assert!(
                    (hx - gj).abs() <= 1e-11,
                    "p = {p}, row {j}: {hx} against {gj}"
                );
            }
        }
        let indefinite = |values: Vec<f64>| {
            let p = if values.len() == 1 { 1 } else { 2 };
            UpperRows { p, values }.solve_definite(vec![1.0; p])
        };
        assert!(indefinite(vec![1.0, 2.0, 1.0]).is_none());
        assert!(indefinite(vec![0.0]).is_none());
        assert!(indefinite(vec![f64::INFINITY]).is_none());
        assert!(indefinite(vec![4.0, 2.0, 2.0]).is_some());
    }
}
