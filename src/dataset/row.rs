//! One example's features, whichever storage holds them: the abstraction every algorithm reads rows
//! through, so that no algorithm needs a second, sparse copy.

use super::SparseIndex;
use crate::simd::{self, Summation};

/// The features of one example: a dense row, or the stored entries of a sparse (CSR) row as column
/// indices in increasing order with their values. Entries not stored are zero.
///
/// A sparse row is summed over its stored entries ([`simd::sparse_dot`]). In [`Summation::Sequential`]
/// order the sum runs left to right in index order: that is the dense sequential sum with its zero terms
/// left out, and adding `±0` to a sum that started at `+0` changes nothing, so on the same data a sparse
/// run and a dense sequential run compute the same activations and make the same updates; their weights
/// agree up to the sign of zero (a dense update adds `η·y·0 = ±0` to every weight, a sparse one leaves
/// unstored weights alone). [`Summation::Fast`] on a sparse row is its own fixed order (four lanes by
/// entry position), the same bits on every CPU, but not the dense Fast order's bits.
///
/// ```
/// use novikoff::dataset::RowView;
/// use novikoff::simd::Summation;
/// let dense = RowView::Dense(&[0.0, 2.0, 0.0, -1.0]);
/// let sparse = RowView::Sparse { indices: &[1, 3], values: &[2.0, -1.0] };
/// let w = [5.0, 1.0, 7.0, 3.0];
/// assert_eq!(dense.dot(&w, Summation::Sequential), -1.0);
/// assert_eq!(sparse.dot(&w, Summation::Sequential), -1.0);
/// assert_eq!(sparse.nnz(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RowView<'a> {
    /// Every value, in column order.
    Dense(&'a [f64]),
    /// The stored entries of a sparse row: `indices` strictly increasing, `values` beside them.
    Sparse {
        /// Column indices, strictly increasing.
        indices: &'a [SparseIndex],
        /// The values at those columns.
        values: &'a [f64],
    },
}

/// The shortest dense row that [`RowView::add_to`] hands to the kernel's axpy.
const SHORT_DENSE_ROW: usize = 16;

impl<'a> RowView<'a> {
    /// `w·x` in the given summation order, over the stored entries of a sparse row.
    ///
    /// ```
    /// use novikoff::{dataset::RowView, simd::Summation};
    /// let x = RowView::Sparse { indices: &[0, 2], values: &[1.0, 3.0] };
    /// assert_eq!(x.dot(&[2.0, 9.0, 1.0], Summation::Fast), 5.0);
    /// ```
    #[inline]
    pub fn dot(&self, w: &[f64], summation: Summation) -> f64 {
        match *self {
            RowView::Dense(x) => simd::dot(w, x, summation),
            RowView::Sparse { indices, values } => simd::sparse_dot(w, indices, values, summation),
        }
    }

    /// `w ← w + step·x`, each product rounded and then added, over the stored entries of a sparse row.
    ///
    /// ```
    /// use novikoff::dataset::RowView;
    /// let mut w = [1.0, 1.0, 1.0];
    /// RowView::Sparse { indices: &[1], values: &[4.0] }.add_to(0.5, &mut w);
    /// assert_eq!(w, [1.0, 3.0, 1.0]);
    /// ```
    #[inline]
    pub fn add_to(&self, step: f64, w: &mut [f64]) {
        match *self {
            // The kernel's axpy rounds each product and then adds, as this loop would, so the bits
            // are the same; compiled for the crate's baseline, the loop runs two values a register.
            // A short row (the textbook sets' two or three features) keeps the inlined loop rather
            // than a call through the kernel's dispatch.
            RowView::Dense(x) if x.len() >= SHORT_DENSE_ROW => {
                let common = x.len().min(w.len());
                simd::axpy(step, &x[..common], &mut w[..common]);
            }
            RowView::Dense(x) => {
                for (w, &x) in w.iter_mut().zip(x) {
                    *w += step * x;
                }
            }
            RowView::Sparse { indices, values } => {
                for (&j, &x) in indices.iter().zip(values) {
                    w[j as usize] += step * x;
                }
            }
        }
    }

    /// The stored values (every value of a dense row).
    ///
    /// ```
    /// let x = novikoff::dataset::RowView::Sparse { indices: &[4], values: &[2.0] };
    /// assert_eq!(x.values(), &[2.0]);
    /// ```
    pub fn values(self) -> &'a [f64] {
        match self {
            RowView::Dense(x) => x,
            RowView::Sparse { values, .. } => values,
        }
    }

    /// The number of stored values (`d` for a dense row).
    ///
    /// ```
    /// assert_eq!(novikoff::dataset::RowView::Dense(&[0.0, 1.0]).nnz(), 2);
    /// ```
    pub fn nnz(self) -> usize {
        self.values().len()
    }

    /// `(column, value)` of every stored entry, in column order.
    ///
    /// ```
    /// let x = novikoff::dataset::RowView::Sparse { indices: &[1, 5], values: &[2.0, 3.0] };
    /// assert_eq!(x.entries().collect::<Vec<_>>(), vec![(1, 2.0), (5, 3.0)]);
    /// ```
    pub fn entries(self) -> impl Iterator<Item = (usize, f64)> + 'a {
        let (indices, values): (Option<&[SparseIndex]>, &[f64]) = match self {
            RowView::Dense(x) => (None, x),
            RowView::Sparse { indices, values } => (Some(indices), values),
        };
        values
            .iter()
            .enumerate()
            .map(move |(k, &v)| (indices.map_or(k, |ix| ix[k] as usize), v))
    }
}

/// A dense copy of one row at a time, for the code that needs a row as a slice (a trace event, a
/// writer of dense formats): O(d) once, then O(nnz) per sparse row, since only the entries the last
/// row stored are cleared.
#[derive(Debug, Clone, Default)]
pub(crate) struct DenseRow {
    values: Vec<f64>,
    stored: Vec<SparseIndex>,
}

impl DenseRow {
    /// The row as a dense slice of length `d`: the row itself when it is dense.
    pub(crate) fn of<'a>(&'a mut self, row: RowView<'a>, d: usize) -> &'a [f64] {
        match row {
            RowView::Dense(x) => x,
            RowView::Sparse { indices, values } => {
                if self.values.len() != d {
                    self.values = vec![0.0; d];
                } else {
                    for &j in &self.stored {
                        self.values[j as usize] = 0.0;
                    }
                }
                self.stored.clear();
                self.stored.extend_from_slice(indices);
                for (&j, &v) in indices.iter().zip(values) {
                    self.values[j as usize] = v;
                }
                &self.values
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dense_row_adds_each_product_rounded_then_added_at_every_length() {
        // Lengths on both sides of the kernel's threshold and of its registers' widths; a fused
        // multiply-add would differ from the rounded product in many of these sums.
        let mut stream = crate::rng::from_seed(17);
        let mut value = |scale: f64| scale * (2.0 * crate::rng::unit_f64(&mut stream) - 1.0);
        for length in [1, 7, 15, 16, 17, 31, 33, 100, 1001] {
            let x: Vec<f64> = (0..length).map(|_| value(3.0)).collect();
            let start: Vec<f64> = (0..length).map(|_| value(3.0)).collect();
            let step = value(2.0);
            let mut by_row = start.clone();
            RowView::Dense(&x).add_to(step, &mut by_row);
            let mut rounded = start.clone();
            for (w, &x) in rounded.iter_mut().zip(&x) {
                let product = step * x;
                *w += product;
            }
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&by_row), bits(&rounded), "length {length}");
            if length >= 100 {
                let fused: Vec<f64> = start
                    .iter()
                    .zip(&x)
                    .map(|(&w, &x)| step.mul_add(x, w))
                    .collect();
                assert_ne!(
                    bits(&fused),
                    bits(&rounded),
                    "the test must tell the two apart"
                );
            }
        }
        // A longer `w` keeps its tail.
        let mut w = vec![1.0; 40];
        RowView::Dense(&[2.0; 32]).add_to(0.5, &mut w);
        assert!(w[..32].iter().all(|&v| v == 2.0) && w[32..].iter().all(|&v| v == 1.0));
    }
}
