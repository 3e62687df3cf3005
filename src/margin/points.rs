//! The points a margin problem is about: the rows `xᵢ` of a dataset, or the augmented rows `(xᵢ, c)`
//! read without forming them.
//!
//! The bounds of the theorem need the maximum margin of `(x, 1)` and `(x, R)` through the origin beside
//! that of `x` ([`Geometry`](crate::bounds::Geometry)). An augmented copy of the matrix
//! ([`Dataset::augment`]) would double the memory of every `verify` and experiment on dense data, so the
//! solver reads the constant coordinate as a virtual last entry of each row instead: the same sums, one
//! term longer, over the dataset's own storage.

use crate::dataset::{Dataset, RowArrays, RowView};
use crate::simd::{SparseAhead, Summation};

/// A dataset's rows, optionally augmented by a constant last coordinate. Cheap to copy.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Points<'a> {
    data: &'a Dataset,
    /// The dataset's rows, resolved once: the descent and the pricing read a point at a time, and
    /// at d = 100 reaching each through the dataset took a fifth of the descent's time.
    rows: RowArrays<'a>,
    /// The dataset's number of columns.
    d: usize,
    /// The constant last coordinate `c` of every point, when augmented.
    constant: Option<f64>,
}

impl<'a> From<&'a Dataset> for Points<'a> {
    fn from(data: &'a Dataset) -> Self {
        Points {
            data,
            rows: data.row_arrays(),
            d: data.n_features(),
            constant: None,
        }
    }
}

impl<'a> Points<'a> {
    /// The points `(xᵢ, c)`.
    pub(crate) fn augmented(data: &'a Dataset, constant: f64) -> Self {
        Points {
            constant: Some(constant),
            ..Points::from(data)
        }
    }

    /// The dataset whose rows these points extend.
    pub(crate) fn data(self) -> &'a Dataset {
        self.data
    }

    /// The constant last coordinate, when augmented.
    pub(crate) fn constant(self) -> Option<f64> {
        self.constant
    }

    pub(crate) fn n_samples(self) -> usize {
        self.data.n_samples()
    }

    /// The points' dimension: the dataset's, plus one when augmented.
    pub(crate) fn n_features(self) -> usize {
        self.d + usize::from(self.constant.is_some())
    }

    pub(crate) fn labels(self) -> &'a [f64] {
        self.data.labels()
    }

    /// `Σ xᵢ` over the points labelled `+1` into `positive` and over the rest into `negative`, each
    /// point added in row order as [`Point::add_to`] adds it (the same bits). Contiguous dense rows are
    /// read as slices: a point's view costs more than a short row's additions (10⁶ rows of 10 values).
    pub(crate) fn add_by_class(self, positive: &mut [f64], negative: &mut [f64]) {
        let labels = self.labels();
        match self.rows {
            RowArrays::Dense { values: flat, d } if d > 0 => {
                for (row, &y) in flat.chunks_exact(d).zip(labels) {
                    let sum = if y < 0.0 {
                        &mut *negative
                    } else {
                        &mut *positive
                    };
                    // `1·x` is `x` exactly, so these are `add_to`'s sums with step 1, element by
                    // element on the SIMD path (a plain loop here ran at two lanes).
                    crate::simd::axpy(1.0, row, &mut sum[..d]);
                    if let Some(c) = self.constant {
                        sum[d] += c;
                    }
                }
            }
            _ => {
                for (i, &y) in labels.iter().enumerate() {
                    let sum = if y < 0.0 {
                        &mut *negative
                    } else {
                        &mut *positive
                    };
                    self.row(i).add_to(1.0, sum);
                }
            }
        }
    }

    /// The largest length of a point: `R`, or `√(R² + c²)` when augmented.
    pub(crate) fn radius(self) -> f64 {
        let radius = self.data.radius();
        match self.constant {
            Some(c) => radius.hypot(c),
            None => radius,
        }
    }

    pub(crate) fn is_sparse(self) -> bool {
        self.data.is_sparse()
    }

    /// Point `i`.
    #[inline]
    pub(crate) fn row(self, i: usize) -> Point<'a> {
        Point {
            row: self.rows.row(i),
            constant: self.constant,
            d: self.d,
        }
    }

    /// Whether a gather from weights over the points' columns may miss the core's caches: sparse data
    /// whose weights (8 bytes a column) are larger than a core's L2 cache, such as hashed features
    /// (2·10⁶ columns, 16 MB, on the 150 000 × 2·10⁶ set of the README).
    pub(crate) fn gathers_miss_cache(self) -> bool {
        self.is_sparse() && SparseAhead::gathers_miss_cache(self.n_features())
    }

    /// Sparse points' rows, to ask the caches for a few rows before they are read (see
    /// [`SparseAhead`]); `None` for dense data ([`Point::dot_ahead`]).
    pub(crate) fn sparse_ahead(self) -> Option<SparseAhead<'a>> {
        self.rows.sparse_ahead()
    }

    /// Dense point `i`'s stored values (its constant aside); none for sparse data. The row a loop
    /// asks for while it computes with another ([`Point::dot_ahead`]).
    #[inline]
    pub(crate) fn dense_values(self, i: usize) -> &'a [f64] {
        match self.rows.row(i) {
            RowView::Dense(x) => x,
            RowView::Sparse { .. } => &[],
        }
    }
}

/// One point: a row of the dataset and, when augmented, the constant after its last column.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Point<'a> {
    row: RowView<'a>,
    constant: Option<f64>,
    /// The dataset's number of columns: the constant's index.
    d: usize,
}

impl<'a> Point<'a> {
    /// The dataset's row.
    pub(crate) fn row(self) -> RowView<'a> {
        self.row
    }

    /// The constant coordinate, when augmented.
    pub(crate) fn constant(self) -> Option<f64> {
        self.constant
    }

    /// The weights of the dataset's columns, and the constant's weight (0 when not augmented).
    #[inline]
    fn split(self, w: &[f64]) -> (&[f64], f64) {
        match self.constant {
            Some(c) => (&w[..self.d], c * w[self.d]),
            None => (w, 0.0),
        }
    }

    /// `w·x` in the given order over the row, plus the constant's product last.
    #[inline]
    pub(crate) fn dot(self, w: &[f64], summation: Summation) -> f64 {
        let (columns, tail) = self.split(w);
        let s = self.row.dot(columns, summation);
        if self.constant.is_some() { s + tail } else { s }
    }

    /// [`Point::dot`] in the fast order, asking for `ahead` as it goes where the row is dense
    /// ([`crate::simd::dot_fast_ahead`]): the same bits.
    #[inline]
    pub(crate) fn dot_ahead(self, w: &[f64], ahead: &[f64]) -> f64 {
        let RowView::Dense(x) = self.row else {
            return self.dot(w, Summation::Fast);
        };
        let (columns, tail) = self.split(w);
        let s = crate::simd::dot_fast_ahead(columns, x, ahead);
        if self.constant.is_some() { s + tail } else { s }
    }

    /// `w ← w + step·x`.
    #[inline]
    pub(crate) fn add_to(self, step: f64, w: &mut [f64]) {
        match self.constant {
            Some(c) => {
                self.row.add_to(step, &mut w[..self.d]);
                w[self.d] += step * c;
            }
            None => self.row.add_to(step, w),
        }
    }

    /// `w ← w + step·x`, then `next·w`: the bits of [`Point::add_to`] and then `next`'s
    /// [`Point::dot`] in the fast order, in one pass over `w` where both rows are dense
    /// ([`crate::simd::axpy_dot_ahead`], asking for `ahead` as it goes). The descent's step and its next
    /// row's score: apart, the score reads `w` once more, and the descent's sweeps over rows held in the
    /// cache wait on those reads.
    #[inline]
    pub(crate) fn add_to_then_dot(
        self,
        step: f64,
        w: &mut [f64],
        next: Point<'_>,
        ahead: &[f64],
    ) -> f64 {
        let (RowView::Dense(x), RowView::Dense(z)) = (self.row, next.row) else {
            self.add_to(step, w);
            return next.dot(w, Summation::Fast);
        };
        let d = self.d;
        let s = crate::simd::axpy_dot_ahead(step, x, &mut w[..d], z, ahead);
        if let Some(c) = self.constant {
            w[d] += step * c;
        }
        match next.constant {
            Some(c) => s + c * w[d],
            None => s,
        }
    }

    /// The number of stored values, the constant included.
    pub(crate) fn nnz(self) -> usize {
        self.row.nnz() + usize::from(self.constant.is_some())
    }

    /// `(column, value)` of every stored entry in column order, the constant last.
    pub(crate) fn entries(self) -> impl Iterator<Item = (usize, f64)> + 'a {
        let d = self.d;
        self.row.entries().chain(self.constant.map(|c| (d, c)))
    }

    /// [`Point::entries`] in the columns `range` (a binary search of a sparse row's indices, a slice
    /// of a dense row).
    pub(crate) fn entries_in(
        self,
        range: std::ops::Range<usize>,
    ) -> impl Iterator<Item = (usize, f64)> + 'a {
        let (first, indices, values) = match self.row {
            RowView::Dense(x) => {
                let (lo, hi) = (range.start.min(x.len()), range.end.min(x.len()));
                (lo, None, &x[lo..hi.max(lo)])
            }
            RowView::Sparse { indices, values } => {
                let lo = indices.partition_point(|&k| (k as usize) < range.start);
                let hi = indices.partition_point(|&k| (k as usize) < range.end);
                let hi = hi.max(lo);
                (0, Some(&indices[lo..hi]), &values[lo..hi])
            }
        };
        let constant = self
            .constant
            .filter(|_| range.contains(&self.d))
            .map(|c| (self.d, c));
        values
            .iter()
            .enumerate()
            .map(move |(k, &v)| (indices.map_or(first + k, |ix| ix[k] as usize), v))
            .chain(constant)
    }

    /// `Σ xⱼ²` over the stored entries, in the fast order: the descent's steps need it only to rounding,
    /// and a left-to-right sum is a chain of dependent additions (8·10⁶ of them over a d = 1000 solve's
    /// first working set).
    pub(crate) fn squared_length(self) -> f64 {
        let values = self.row.values();
        let s = crate::simd::dot(values, values, Summation::Fast);
        match self.constant {
            Some(c) => s + c * c,
            None => s,
        }
    }
}

/// The same sparse rows twice: on 64 columns, and spread over `64 × 4099` columns (past
/// `simd::sparse_ahead::GATHERS_MISS_COLUMNS`, so their gathers are asked for ahead), each stored entry
/// of a row in the same place of its row with the same value. Rows store 0 to 44 entries (some past
/// `simd::sparse_ahead::SHORT_ROW`), and the labels are those of a separator through the origin. Sums
/// over the rows against weights spread alike have the same bits on both.
#[cfg(test)]
pub(crate) fn narrow_and_wide(n: usize) -> (Dataset, Dataset) {
    const NARROW: usize = 64;
    const SPREAD: usize = 4099;
    let (mut indptr, mut indices, mut wide_indices, mut values) = (vec![0], vec![], vec![], vec![]);
    let mut labels = Vec::with_capacity(n);
    for i in 0..n {
        let mut score = 0.0;
        for j in (0..NARROW).filter(|&j| (i * 7 + j * 13) % 64 < (i % 45) * 64 / 45) {
            let value = ((i * 31 + j * 17) % 23) as f64 / 11.0 - 1.0 + 1e-17 * j as f64;
            indices.push(j as crate::simd::SparseIndex);
            wide_indices.push((j * SPREAD) as crate::simd::SparseIndex);
            values.push(value);
            score += value * ((j % 5) as f64 - 2.0);
        }
        indptr.push(values.len());
        labels.push(if score < 0.0 { -1.0 } else { 1.0 });
    }
    let labels = ndarray::Array1::from(labels);
    let narrow =
        crate::dataset::CsrMatrix::new((n, NARROW), indptr.clone(), indices, values.clone());
    let wide = crate::dataset::CsrMatrix::new((n, NARROW * SPREAD), indptr, wide_indices, values);
    (
        Dataset::from_csr(narrow, labels.clone()).expect("valid rows"),
        Dataset::from_csr(wide, labels).expect("valid rows"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    /// The class sums of contiguous dense rows have the bits of adding each point, for either storage
    /// and with the constant.
    #[test]
    fn class_sums_are_the_points_added_one_by_one() {
        let x = ndarray::Array2::from_shape_fn((37, 5), |(i, j)| {
            ((i * 31 + j * 17) % 23) as f64 * 0.1 - 1.1 + 1e-17 * i as f64
        });
        let labels = ndarray::Array1::from_shape_fn(37, |i| if i % 3 == 1 { -1.0 } else { 1.0 });
        let dense = Dataset::new(x, labels).unwrap();
        let sparse = dense.to_sparse();
        for data in [&dense, &sparse] {
            for points in [Points::from(data), Points::augmented(data, 0.3)] {
                let d = points.n_features();
                let (mut positive, mut negative) = (vec![0.0; d], vec![0.0; d]);
                points.add_by_class(&mut positive, &mut negative);
                let (mut one_positive, mut one_negative) = (vec![0.0; d], vec![0.0; d]);
                for (i, &y) in points.labels().iter().enumerate() {
                    let sum = if y < 0.0 {
                        &mut one_negative
                    } else {
                        &mut one_positive
                    };
                    points.row(i).add_to(1.0, sum);
                }
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&positive), bits(&one_positive));
                assert_eq!(bits(&negative), bits(&one_negative));
                assert!(negative.iter().any(|&v| v != 0.0));
            }
        }
    }

    /// The entries in a range of columns are the entries of the whole row that fall in it, for either
    /// storage, with the constant as the last column.
    #[test]
    fn entries_in_a_range_are_the_row_s_entries_there() {
        let data = Dataset::new(
            array![[3.0, 0.0, 1.5, 0.0], [0.0, -4.0, 0.0, 2.0]],
            array![1.0, -1.0],
        )
        .unwrap();
        let sparse = data.to_sparse();
        for points in [
            Points::from(&data),
            Points::from(&sparse),
            Points::augmented(&data, 2.0),
            Points::augmented(&sparse, 2.0),
        ] {
            for i in 0..2 {
                let row = points.row(i);
                for start in 0..=6 {
                    for end in start..=6 {
                        let expected: Vec<_> = row
                            .entries()
                            .filter(|(j, _)| (start..end).contains(j))
                            .collect();
                        assert_eq!(row.entries_in(start..end).collect::<Vec<_>>(), expected);
                    }
                }
            }
        }
    }

    #[test]
    fn a_step_fused_with_the_next_score_is_the_step_then_the_score_bit_for_bit() {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        // Short rows (inline on every path) and long ones; dense and sparse; plain and augmented.
        for d in [1, 3, 8, 9, 15, 16, 33, 100] {
            let x = ndarray::Array2::from_shape_fn((2, d), |(i, j)| {
                ((i * 37 + j * 11) % 19) as f64 * 0.17 - 1.3 + 1e-16 * (j + 1) as f64
            });
            let data = Dataset::new(x, ndarray::array![1.0, -1.0]).unwrap();
            let sparse = data.to_sparse();
            for storage in [&data, &sparse] {
                for points in [Points::from(storage), Points::augmented(storage, 0.7)] {
                    let start: Vec<f64> = (0..points.n_features())
                        .map(|j| ((j * 13) % 7) as f64 * 0.31 - 0.9)
                        .collect();
                    for step in [0.37, -1.9, 0.0, -0.0] {
                        let (this, next) = (points.row(0), points.row(1));
                        let mut apart = start.clone();
                        this.add_to(step, &mut apart);
                        let expected = next.dot(&apart, Summation::Fast);
                        let mut fused = start.clone();
                        let got = this.add_to_then_dot(step, &mut fused, next, &[]);
                        assert_eq!(got.to_bits(), expected.to_bits(), "d={d} step={step}");
                        assert_eq!(bits(&fused), bits(&apart), "d={d} step={step}");
                    }
                }
            }
        }
    }

    #[test]
    fn an_augmented_point_is_the_augmented_row() {
        let data = Dataset::new(array![[3.0, 0.0], [0.0, -4.0]], array![1.0, -1.0]).unwrap();
        let copy = data.augment(2.0);
        let points = Points::augmented(&data, 2.0);
        assert_eq!(points.n_features(), copy.n_features());
        assert_eq!(points.radius(), copy.radius());
        let w = [0.5, -1.0, 3.0];
        for i in 0..2 {
            let (point, row) = (points.row(i), copy.row_view(i));
            assert_eq!(
                point.dot(&w, Summation::Sequential),
                row.dot(&w, Summation::Sequential)
            );
            assert_eq!(
                point.entries().collect::<Vec<_>>(),
                row.entries().collect::<Vec<_>>()
            );
            let (mut a, mut b) = ([1.0; 3], [1.0; 3]);
            point.add_to(0.25, &mut a);
            row.add_to(0.25, &mut b);
            assert_eq!(a, b);
            assert_eq!(
                point.squared_length(),
                row.values().iter().map(|v| v * v).sum::<f64>()
            );
        }
    }
}
