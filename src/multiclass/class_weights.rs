//! The `k` weight vectors of the multi-class perceptron while it trains, laid out for the rows they
//! are read with.
//!
//! A dense row reads every weight of every class, so the classes stay one row of `d` each and each
//! score is one contiguous dot product. A sparse row reads only its columns, and with one row of `d`
//! per class each of its entries gathered `k` weights from `k` places, `d` values apart: on 20 classes that
//! was 20 cache misses an entry once the weights outgrow the caches. Sparse data therefore train on
//! the weights stored column by column, the `k` weights of a column side by side, so that an entry
//! gathers them from one or two cache lines and scores every class at once.
//!
//! Both layouts compute the same bits. Each class's score is summed in the order of
//! [`RowView::dot`] (left to right in [`Summation::Sequential`], four lanes by entry position in
//! [`Summation::Fast`]), each product rounded and then added, and an update adds the same rounded
//! products to the same weights.

use ndarray::{Array1, Array2};

use crate::dataset::RowView;
use crate::error::{Error, Result};
use crate::simd::{self, SPARSE_LANES, Summation};

/// `k` weight vectors of `d` values.
#[derive(Debug, Clone)]
pub(super) enum ClassWeights {
    /// Class `r`'s weights at `w[r·d..(r + 1)·d]`.
    ByClass { w: Vec<f64>, d: usize },
    /// Column `j`'s weights of the `k` classes at `w[j·k..(j + 1)·k]`, with `4k` lane sums for the
    /// Fast order.
    ByColumn {
        w: Vec<f64>,
        k: usize,
        lanes: Vec<f64>,
    },
}

impl ClassWeights {
    /// Zero weights, by column when the rows to be read are sparse and by class when they are dense
    /// (a dataset stores every row one way; the column layout reads sparse rows only).
    ///
    /// # Errors
    /// [`Error::Parameter`] when the `k·d` weights cannot be allocated (many classes of hashed sparse
    /// columns, say), rather than an abort.
    pub(super) fn zeros(k: usize, d: usize, sparse: bool) -> Result<ClassWeights> {
        // Huge pages: a sparse row's gathers land anywhere in the `k·d` weights, and with 4 KiB pages
        // each one also missed the TLB. On 10⁶ columns and 20 classes (160 MB) four epochs took 0.57 s instead of
        // 0.73.
        let mut w = k
            .checked_mul(d)
            .and_then(|len| simd::reserve_advised(len).ok())
            .ok_or_else(|| {
                Error::parameter(
                    "classes",
                    format!(
                        "the multi-class perceptron's {k} × {d} weights cannot be allocated in \
                         this machine's memory"
                    ),
                )
            })?;
        w.resize(k * d, 0.0);
        Ok(if sparse {
            ClassWeights::ByColumn {
                w,
                k,
                lanes: vec![0.0; SPARSE_LANES * k],
            }
        } else {
            ClassWeights::ByClass { w, d }
        })
    }

    /// `scores[r] = w_r·x` for every class, in `summation` order.
    #[inline]
    pub(super) fn scores(&mut self, x: RowView<'_>, summation: Summation, scores: &mut [f64]) {
        match (self, x) {
            (ClassWeights::ByColumn { w, k, lanes }, RowView::Sparse { indices, values }) => {
                debug_assert_eq!(scores.len(), *k);
                simd::class_scores(w, indices, values, summation, lanes, scores);
            }
            (ClassWeights::ByClass { w, d }, x) => {
                for (r, score) in scores.iter_mut().enumerate() {
                    *score = x.dot(&w[r * *d..(r + 1) * *d], summation);
                }
            }
            (ClassWeights::ByColumn { .. }, RowView::Dense(_)) => {
                unreachable!("the column layout is made for sparse rows only")
            }
        }
    }

    /// `w_r ← w_r + step·x`.
    #[inline]
    pub(super) fn add(&mut self, x: RowView<'_>, step: f64, r: usize) {
        match (self, x) {
            (ClassWeights::ByColumn { w, k, .. }, RowView::Sparse { indices, values }) => {
                for (&j, &x) in indices.iter().zip(values) {
                    w[j as usize * *k + r] += step * x;
                }
            }
            (ClassWeights::ByClass { w, d }, x) => x.add_to(step, &mut w[r * *d..(r + 1) * *d]),
            (ClassWeights::ByColumn { .. }, RowView::Dense(_)) => {
                unreachable!("the column layout is made for sparse rows only")
            }
        }
    }

    /// The weights of class `r` at `x`'s stored columns are finite.
    pub(super) fn finite_at(&self, x: RowView<'_>, r: usize) -> bool {
        x.entries().all(|(j, _)| self.get(r, j).is_finite())
    }

    /// Weight `j` of class `r`.
    #[inline]
    fn get(&self, r: usize, j: usize) -> f64 {
        match self {
            ClassWeights::ByClass { w, d } => w[r * d + j],
            ClassWeights::ByColumn { w, k, .. } => w[j * k + r],
        }
    }

    /// The number of features `d`.
    fn columns(&self) -> usize {
        match self {
            ClassWeights::ByClass { d, .. } => *d,
            ClassWeights::ByColumn { w, k, .. } => w.len() / k,
        }
    }

    /// Set these weights and the constant coordinate's weights `v` (for the constant `c`) of a run
    /// that starts from `initial_w` and `initial_b`, after checking them against `k = v.len()`
    /// classes and the weights' `d` features.
    pub(super) fn start_from(
        &mut self,
        initial_w: &Array2<f64>,
        initial_b: &Array1<f64>,
        c: f64,
        v: &mut [f64],
    ) -> Result<()> {
        let (k, d) = (v.len(), self.columns());
        for (what, expected, found) in [
            (
                "initial weights' rows against the classes",
                k,
                initial_w.nrows(),
            ),
            (
                "initial weights' columns against the features",
                d,
                initial_w.ncols(),
            ),
            ("initial biases against the classes", k, initial_b.len()),
        ] {
            if found != expected {
                return Err(Error::Shape {
                    what,
                    expected,
                    found,
                });
            }
        }
        if let Some((r, j)) = initial_w
            .indexed_iter()
            .find(|(_, value)| !value.is_finite())
            .map(|(at, _)| at)
        {
            return Err(Error::parameter(
                "initial_w",
                format!("weight {j} of class {r} is not finite"),
            ));
        }
        if let Some(r) = initial_b.iter().position(|b| !b.is_finite()) {
            return Err(Error::parameter(
                "initial_b",
                format!("the bias of class {r} is not finite"),
            ));
        }
        if c == 0.0 && initial_b.iter().any(|&b| b != 0.0) {
            return Err(Error::parameter(
                "initial_b",
                "a non-zero initial bias needs a bias rule (classic, novikoff or c=VALUE with c ≠ 0)",
            ));
        }
        for (r, row) in initial_w.rows().into_iter().enumerate() {
            self.set_class(r, &row.to_vec());
            v[r] = if c == 0.0 { 0.0 } else { initial_b[r] / c };
        }
        Ok(())
    }

    /// Set class `r`'s weights to `values` (of length `d`).
    pub(super) fn set_class(&mut self, r: usize, values: &[f64]) {
        match self {
            ClassWeights::ByClass { w, d } => w[r * *d..(r + 1) * *d].copy_from_slice(values),
            ClassWeights::ByColumn { w, k, .. } => {
                for (j, &value) in values.iter().enumerate() {
                    w[j * *k + r] = value;
                }
            }
        }
    }

    /// Class `r`'s weights into `out` (of length `d`).
    pub(super) fn copy_class(&self, r: usize, out: &mut [f64]) {
        match self {
            ClassWeights::ByClass { w, d } => out.copy_from_slice(&w[r * d..(r + 1) * d]),
            ClassWeights::ByColumn { .. } => {
                for (j, out) in out.iter_mut().enumerate() {
                    *out = self.get(r, j);
                }
            }
        }
    }

    /// The `k × d` matrix, row `r` class `r`'s weights.
    pub(super) fn into_array(self, k: usize, d: usize) -> Array2<f64> {
        match self {
            ClassWeights::ByClass { w, .. } => {
                Array2::from_shape_vec((k, d), w).expect("k·d weights")
            }
            ClassWeights::ByColumn { w, .. } => {
                // Eight columns at a time, so that the reads run through the weights once rather
                // than once a class.
                let mut out = Array2::zeros((k, d));
                for (block, columns) in w.chunks(8 * k).enumerate() {
                    for (r, mut row) in out.rows_mut().into_iter().enumerate() {
                        for (c, column) in columns.chunks_exact(k).enumerate() {
                            row[block * 8 + c] = column[r];
                        }
                    }
                }
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ClassWeights;
    use crate::dataset::RowView;
    use crate::rng;
    use crate::simd::{SparseIndex, Summation};

    /// Random sparse rows of 0 to 13 entries (every remainder of the four lanes), values of mixed
    /// scales so that the summation order shows in the bits.
    fn rows(d: usize, seed: u64) -> Vec<(Vec<SparseIndex>, Vec<f64>)> {
        let mut stream = rng::from_seed(seed);
        (0..300)
            .map(|_| {
                let nnz = rng::below(&mut stream, 14).min(d);
                let mut columns: Vec<usize> = (0..d).collect();
                rng::shuffle(&mut stream, &mut columns);
                let mut columns: Vec<SparseIndex> = columns[..nnz]
                    .iter()
                    .map(|&j| SparseIndex::try_from(j).unwrap())
                    .collect();
                columns.sort_unstable();
                let values = columns
                    .iter()
                    .map(|_| {
                        let scale = 10f64.powi(rng::below(&mut stream, 7) as i32 - 3);
                        (rng::unit_f64(&mut stream) - 0.5) * scale
                    })
                    .collect();
                (columns, values)
            })
            .collect()
    }

    #[test]
    fn the_column_layout_scores_and_updates_as_the_class_layout_does() {
        let d = 23;
        let mut updates = 0;
        for k in [2, 3, 5, 20] {
            for summation in [Summation::Sequential, Summation::Fast] {
                let mut by_class = ClassWeights::zeros(k, d, false).unwrap();
                let mut by_column = ClassWeights::zeros(k, d, true).unwrap();
                let (mut a, mut b) = (vec![0.0; k], vec![0.0; k]);
                for (row, (indices, values)) in rows(d, k as u64).iter().enumerate() {
                    let x = RowView::Sparse { indices, values };
                    by_class.scores(x, summation, &mut a);
                    by_column.scores(x, summation, &mut b);
                    let bits = |s: &[f64]| s.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&a), bits(&b), "k = {k}, {summation:?}, row {row}");
                    // The same update rule as the fit's, so that the weights grow to mixed values.
                    let (y, rival) = (row % k, (row / k + 1 + row % k) % k);
                    if y != rival && a[y] <= a[rival] {
                        for this in [&mut by_class, &mut by_column] {
                            this.add(x, 0.7, y);
                            this.add(x, -0.7, rival);
                        }
                        updates += 1;
                    }
                    assert_eq!(by_class.finite_at(x, y), by_column.finite_at(x, y));
                }
                let (mut one, mut other) = (vec![0.0; d], vec![0.0; d]);
                for r in 0..k {
                    by_class.copy_class(r, &mut one);
                    by_column.copy_class(r, &mut other);
                    assert_eq!(one, other);
                }
                let (one, other) = (by_class.into_array(k, d), by_column.into_array(k, d));
                assert_eq!(one.mapv(f64::to_bits), other.mapv(f64::to_bits));
                assert!(one.iter().any(|&w| w != 0.0));
            }
        }
        assert!(updates > 100, "the weights were updated: {updates}");
    }

    #[test]
    fn weights_beyond_memory_are_an_error_not_an_abort() {
        for sparse in [true, false] {
            // k·d overflows; then 2⁶² values, whose 2⁶⁵ bytes no allocation may hold.
            for (k, d) in [(usize::MAX / 2, 3), (1 << 31, 1 << 31)] {
                let error = ClassWeights::zeros(k, d, sparse).unwrap_err().to_string();
                assert!(error.contains("cannot be allocated"), "{error}");
            }
        }
    }

    #[test]
    fn dense_rows_read_the_class_layout() {
        let mut weights = ClassWeights::zeros(2, 3, false).unwrap();
        let x = RowView::Dense(&[1.0, 2.0, 3.0]);
        weights.add(x, 2.0, 1);
        let mut scores = [0.0; 2];
        weights.scores(x, Summation::Fast, &mut scores);
        assert_eq!(scores, [0.0, 28.0]);
        assert!(weights.finite_at(x, 1));
        weights.add(x, f64::MAX, 0);
        weights.add(x, f64::MAX, 0);
        assert!(!weights.finite_at(x, 0));
    }
}
