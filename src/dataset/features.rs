//! The two storages of a dataset's features, and what every algorithm reads them through.

use ndarray::Array2;
use sprs::CsMat;

use super::RowView;

/// A dataset's feature matrix: dense and row-major (the design's `Array2<f64>`, read by the SIMD
/// kernels), or compressed sparse rows (CSR) for data that is mostly zeros.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Features {
    Dense(Array2<f64>),
    Sparse(CsMat<f64>),
}

impl Features {
    pub(crate) fn n_rows(&self) -> usize {
        match self {
            Features::Dense(x) => x.nrows(),
            Features::Sparse(x) => x.rows(),
        }
    }

    pub(crate) fn n_cols(&self) -> usize {
        match self {
            Features::Dense(x) => x.ncols(),
            Features::Sparse(x) => x.cols(),
        }
    }

    /// Row `i`.
    #[inline]
    pub(crate) fn row(&self, i: usize) -> RowView<'_> {
        match self {
            Features::Dense(x) => {
                let d = x.ncols();
                let flat = x.as_slice().expect("a dense dataset is row-major");
                RowView::Dense(&flat[i * d..(i + 1) * d])
            }
            Features::Sparse(x) => {
                let range = x.indptr().outer_inds_sz(i);
                RowView::Sparse {
                    indices: &x.indices()[range.clone()],
                    values: &x.data()[range],
                }
            }
        }
    }

    /// Every stored value, row after row.
    pub(crate) fn values(&self) -> &[f64] {
        match self {
            Features::Dense(x) => x.as_slice().expect("a dense dataset is row-major"),
            Features::Sparse(x) => x.data(),
        }
    }

    /// Row `i`'s stored values, to change them in place.
    pub(crate) fn row_values_mut(&mut self, i: usize) -> &mut [f64] {
        match self {
            Features::Dense(x) => {
                let d = x.ncols();
                let flat = x.as_slice_mut().expect("a dense dataset is row-major");
                &mut flat[i * d..(i + 1) * d]
            }
            Features::Sparse(x) => {
                let range = x.indptr().outer_inds_sz(i);
                &mut x.data_mut()[range]
            }
        }
    }

    /// Multiply row `i` by `factor(i)`.
    pub(crate) fn scale_rows(&mut self, factor: impl Fn(usize) -> f64) {
        for i in 0..self.n_rows() {
            let f = factor(i);
            if f != 1.0 {
                self.row_values_mut(i).iter_mut().for_each(|v| *v *= f);
            }
        }
    }

    /// A copy; a dense matrix is written into a buffer advised for huge pages, like every matrix the
    /// crate builds.
    pub(crate) fn clone_advised(&self) -> Features {
        match self {
            Features::Dense(x) => {
                let mut values = crate::simd::advised_buffer(x.len());
                values.extend(x.iter().copied());
                Features::Dense(
                    Array2::from_shape_vec(x.dim(), values)
                        .expect("as many values as the matrix it copies"),
                )
            }
            Features::Sparse(x) => Features::Sparse(x.clone()),
        }
    }
}
