//! The two storages of a dataset's features, and what every algorithm reads them through.

use std::sync::Arc;

use ndarray::Array2;

use super::csr::SparseMatrix;
use super::dense::DenseMatrix;
use super::{CsrMatrix, RowView, SharedCsr, SharedValues, SparseIndex};
use crate::simd::SparseAhead;

/// A dataset's feature matrix: dense and row-major (the design's `Array2<f64>`, read by the SIMD
/// kernels; owned, or shared with an owner outside the crate), or compressed sparse rows (CSR) for data
/// that is mostly zeros (likewise owned or shared).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Features {
    Dense(DenseMatrix),
    Sparse(SparseMatrix),
}

impl Features {
    pub(crate) fn n_rows(&self) -> usize {
        match self {
            Features::Dense(x) => x.dim().0,
            Features::Sparse(x) => x.rows(),
        }
    }

    pub(crate) fn n_cols(&self) -> usize {
        match self {
            Features::Dense(x) => x.dim().1,
            Features::Sparse(x) => x.cols(),
        }
    }

    /// Row `i`.
    #[inline]
    pub(crate) fn row(&self, i: usize) -> RowView<'_> {
        self.row_arrays().row(i)
    }

    /// The arrays that hold the rows, resolved once for many reads.
    #[inline]
    pub(crate) fn row_arrays(&self) -> RowArrays<'_> {
        match self {
            Features::Dense(x) => RowArrays::Dense {
                values: x.as_slice(),
                d: x.dim().1,
            },
            Features::Sparse(x) => {
                let (indptr, indices, values) = x.arrays();
                RowArrays::Sparse {
                    indptr,
                    indices,
                    values,
                }
            }
        }
    }

    /// Every stored value, row after row.
    pub(crate) fn values(&self) -> &[f64] {
        match self {
            Features::Dense(x) => x.as_slice(),
            Features::Sparse(x) => x.arrays().2,
        }
    }

    /// Row `i`'s stored values, to change them in place.
    pub(crate) fn row_values_mut(&mut self, i: usize) -> &mut [f64] {
        match self {
            Features::Dense(x) => {
                let x = x.make_mut();
                let d = x.ncols();
                let flat = x.as_slice_mut().expect("a dense dataset is row-major");
                &mut flat[i * d..(i + 1) * d]
            }
            Features::Sparse(x) => {
                let x = x.make_mut();
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

    /// A copy; an owned dense matrix is written into a buffer advised for huge pages, like every matrix
    /// the crate builds. Shared values are shared again (not copied); changing them copies them.
    pub(crate) fn clone_advised(&self) -> Features {
        match self {
            Features::Dense(x) if x.is_shared() => Features::Dense(x.clone()),
            Features::Dense(x) => Features::Dense(DenseMatrix::Owned(x.advised_copy())),
            Features::Sparse(x) => Features::Sparse(x.clone()),
        }
    }

    /// The same features behind an `Arc`, so that every dataset made from them reads one copy: an owned
    /// matrix is moved (not copied) into a shared one, and a shared one stays as it is. The datasets of
    /// a multi-class problem's classes share their features this way.
    pub(crate) fn into_shared(self) -> Features {
        match self {
            Features::Dense(DenseMatrix::Owned(x)) => {
                let (rows, cols) = x.dim();
                Features::Dense(DenseMatrix::shared(Arc::new(OwnedValues(x)), rows, cols))
            }
            Features::Sparse(SparseMatrix::Owned(x)) => {
                let (rows, cols) = x.shape();
                Features::Sparse(SparseMatrix::Shared {
                    arrays: Arc::new(OwnedCsr(x)),
                    rows,
                    cols,
                })
            }
            shared => shared,
        }
    }

    /// An owned CSR matrix, kept as the sparse storage.
    pub(crate) fn csr(x: super::CsrMatrix) -> Features {
        Features::Sparse(SparseMatrix::Owned(x))
    }
}

/// A row-major matrix the crate owned, now shared ([`Features::into_shared`]). Nothing can change it
/// behind the `Arc`, as [`SharedValues`] requires.
#[derive(Debug)]
struct OwnedValues(Array2<f64>);

impl SharedValues for OwnedValues {
    fn values(&self) -> &[f64] {
        self.0.as_slice().expect("a dense dataset is row-major")
    }
}

/// A CSR matrix the crate owned and checked, now shared ([`Features::into_shared`]).
#[derive(Debug)]
struct OwnedCsr(CsrMatrix);

impl SharedCsr for OwnedCsr {
    fn indptr(&self) -> &[usize] {
        self.0.indptr().into_raw_storage()
    }

    fn indices(&self) -> &[SparseIndex] {
        self.0.indices()
    }

    fn values(&self) -> &[f64] {
        self.0.data()
    }
}

/// A feature matrix's arrays, resolved once: a row is then a slice of them. Reaching a row through
/// [`Features::row`] matches the storage twice and checks an `ndarray` matrix's layout on every call,
/// which costs as much as the products of a short row; the solver's loops that visit rows one at a
/// time (the descent, the pricing) read them through this instead.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RowArrays<'a> {
    /// Row-major values, `d` a row.
    Dense { values: &'a [f64], d: usize },
    /// Compressed sparse rows.
    Sparse {
        indptr: &'a [usize],
        indices: &'a [SparseIndex],
        values: &'a [f64],
    },
}

impl<'a> RowArrays<'a> {
    /// Sparse rows, to ask the caches for ahead of reading them (`simd::sparse_ahead`); `None` for
    /// dense ones.
    pub(crate) fn sparse_ahead(self) -> Option<SparseAhead<'a>> {
        match self {
            RowArrays::Sparse {
                indptr,
                indices,
                values,
            } => Some(SparseAhead::new(indptr, indices, values)),
            RowArrays::Dense { .. } => None,
        }
    }

    /// Row `i`.
    #[inline]
    pub(crate) fn row(self, i: usize) -> RowView<'a> {
        match self {
            RowArrays::Dense { values, d } => RowView::Dense(&values[i * d..(i + 1) * d]),
            RowArrays::Sparse {
                indptr,
                indices,
                values,
            } => {
                let range = indptr[i]..indptr[i + 1];
                RowView::Sparse {
                    indices: &indices[range.clone()],
                    values: &values[range],
                }
            }
        }
    }
}
