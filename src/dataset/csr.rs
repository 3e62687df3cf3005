//! The sparse storage: a CSR matrix the dataset owns, or the arrays of one owned elsewhere (a SciPy
//! matrix held by the Python package) that it reads in place without a copy; and the constructors of
//! sparse datasets.

use std::fmt;
use std::sync::Arc;

use ndarray::Array1;
use sprs::{CsMatI, SpIndex};

use super::sparse::{CsrView, check_raw};
use super::{CsrMatrix, Dataset, Features, MAX_SPARSE_COLUMNS, SparseIndex, checked_labels};
use crate::error::{Error, Result};

/// The three arrays of a CSR matrix owned outside the crate, which a [`Dataset`] reads in place
/// ([`Dataset::from_shared_csr`]): the `indptr`, `indices` and `data` of a SciPy matrix held by the
/// Python package.
///
/// The dataset keeps the object (in an `Arc`) for as long as it or any clone lives. The implementor
/// promises that the three slices stay the same, with the same contents, while the object lives: the
/// dataset checks the arrays once, caches what it derives from them (the radius, the largest value)
/// and never copies them. An implementation in safe Rust cannot break that promise; one that hands out
/// foreign memory states, in its own `unsafe` block, why it holds.
///
/// ```
/// use std::sync::Arc;
/// use ndarray::array;
/// use novikoff::{dataset::SharedCsr, Dataset};
///
/// // Row 0 = (0, 3, 4), row 1 = (−1, 0, 0).
/// #[derive(Debug)]
/// struct Frozen { indptr: Vec<usize>, indices: Vec<u32>, values: Vec<f64> }
/// impl SharedCsr for Frozen {
///     fn indptr(&self) -> &[usize] { &self.indptr }
///     fn indices(&self) -> &[u32] { &self.indices }
///     fn values(&self) -> &[f64] { &self.values }
/// }
///
/// let arrays = Arc::new(Frozen { indptr: vec![0, 2, 3], indices: vec![1, 2, 0], values: vec![3.0, 4.0, -1.0] });
/// let data = Dataset::from_shared_csr(arrays.clone(), (2, 3), array![1.0, -1.0])?;
/// assert_eq!(data.radius(), 5.0);
/// // No copy was made: the dataset's stored values are the arrays' memory.
/// assert!(std::ptr::eq(data.csr().unwrap().data().as_ptr(), arrays.values.as_ptr()));
/// # Ok::<(), novikoff::Error>(())
/// ```
pub trait SharedCsr: Send + Sync + fmt::Debug {
    /// Row `i`'s stored entries are `indptr[i]..indptr[i + 1]`; `n + 1` entries from 0.
    fn indptr(&self) -> &[usize];
    /// The column of each stored entry, increasing within a row.
    fn indices(&self) -> &[SparseIndex];
    /// The stored values, row after row.
    fn values(&self) -> &[f64];
}

impl Dataset {
    /// Validate and wrap a sparse feature matrix (CSR; a CSC matrix is converted) and its labels. The
    /// checks are those of [`Dataset::new`]: at least one row and one column, finite stored values,
    /// labels ±1, and at most [`MAX_SPARSE_COLUMNS`] columns. Rows with no stored entry are the zero
    /// vector.
    ///
    /// Any `sprs` index type is taken (`CsMat<f64>`, sprs's default with `usize` indices, or
    /// [`CsrMatrix`]); the dataset stores 32-bit column indices (see [`SparseIndex`]), converting others
    /// as it checks them.
    ///
    /// ```
    /// use ndarray::array;
    /// use sprs::CsMat;
    /// // Row 0 = (0, 2, 0), row 1 = (−1, 0, 0).
    /// let x = CsMat::new((2, 3), vec![0, 1, 2], vec![1, 0], vec![2.0, -1.0]);
    /// let data = novikoff::Dataset::from_csr(x, array![1.0, -1.0])?;
    /// assert!(data.is_sparse());
    /// assert_eq!((data.n_samples(), data.n_features(), data.nnz()), (2, 3, 2));
    /// assert_eq!(data.radius(), 2.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn from_csr<I: SpIndex + 'static>(
        x: CsMatI<f64, I, usize>,
        y: Array1<f64>,
    ) -> Result<Self> {
        let x = if x.is_csr() { x } else { x.to_csr() };
        let (n, d) = (x.rows(), x.cols());
        if d > MAX_SPARSE_COLUMNS {
            return Err(Error::TooManyColumns {
                what: "the sparse matrix",
                d: d as u64,
                limit: MAX_SPARSE_COLUMNS as u64,
            });
        }
        let y = checked_labels((n, d), y)?;
        // One flat pass that vectorises; the rows are searched only to name the first bad value.
        if !x.data().iter().fold(true, |ok, v| ok & v.is_finite()) {
            for (row, values) in x.outer_iterator().enumerate() {
                if let Some((column, &value)) = values.iter().find(|(_, v)| !v.is_finite()) {
                    return Err(Error::NonFinite { row, column, value });
                }
            }
        }
        // The structure was checked when `x` was made, and every index is below d ≤ MAX_SPARSE_COLUMNS,
        // so a matrix of the storage's index type is kept as it is (a second check costs a pass).
        let mut x = Some(x);
        let kept = (&mut x as &mut dyn std::any::Any)
            .downcast_mut::<Option<CsrMatrix>>()
            .and_then(Option::take);
        let x = kept.unwrap_or_else(|| {
            let (indptr, indices, data) = x.take().expect("not taken").into_raw_storage();
            let indices = indices.into_iter().map(|j| j.index() as SparseIndex);
            CsrMatrix::new((n, d), indptr, indices.collect(), data)
        });
        Ok(Self::from_valid(Features::csr(x), y))
    }

    /// [`Dataset::from_csr`] for a reader that has checked the matrix as it built it.
    pub(crate) fn with_checked_csr(x: CsrMatrix, y: Array1<f64>) -> Result<Self> {
        debug_assert!(x.is_csr() && x.data().iter().all(|v| v.is_finite()));
        let y = checked_labels((x.rows(), x.cols()), y)?;
        Ok(Self::from_valid(Features::csr(x), y))
    }

    /// Validate and wrap the arrays of an `n × d` CSR matrix owned outside the crate, read in place
    /// without a copy (see [`SharedCsr`]). The checks are those of [`Dataset::from_csr`] and of a CSR
    /// file: `indptr` has `n + 1` entries from 0 to the number of stored values and never decreases,
    /// the indices increase within each row and stay below `d`, every stored value is finite, and the
    /// labels are ±1.
    ///
    /// This is how the Python package hands a SciPy CSR matrix to the crate.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use ndarray::array;
    /// use novikoff::{dataset::SharedCsr, Dataset, Error};
    /// #[derive(Debug)]
    /// struct Arrays(Vec<usize>, Vec<u32>, Vec<f64>);
    /// impl SharedCsr for Arrays {
    ///     fn indptr(&self) -> &[usize] { &self.0 }
    ///     fn indices(&self) -> &[u32] { &self.1 }
    ///     fn values(&self) -> &[f64] { &self.2 }
    /// }
    /// let ok = Arrays(vec![0, 1], vec![2], vec![5.0]);
    /// let data = Dataset::from_shared_csr(Arc::new(ok), (1, 3), array![1.0])?;
    /// assert_eq!(data.to_dense()?.x(), array![[0.0, 0.0, 5.0]]);
    /// // Column 3 of a matrix with three columns.
    /// let bad = Arrays(vec![0, 1], vec![3], vec![5.0]);
    /// let err = Dataset::from_shared_csr(Arc::new(bad), (1, 3), array![1.0]).unwrap_err();
    /// assert!(matches!(err, Error::MalformedCsr { row: Some(0), .. }), "{err}");
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::MalformedCsr`] for arrays that are not a CSR matrix of this shape (naming the row and
    /// the stored entry), [`Error::NonFinite`] for a stored value that is not finite, and the label
    /// and shape errors of [`Dataset::new`].
    pub fn from_shared_csr(
        arrays: Arc<dyn SharedCsr>,
        shape: (usize, usize),
        y: Array1<f64>,
    ) -> Result<Self> {
        let y = checked_labels(shape, y)?;
        let (indptr, indices, values) = (arrays.indptr(), arrays.indices(), arrays.values());
        if let Err(problem) = check_raw(shape, indptr, indices, values) {
            // A value that is not finite is the error every constructor gives for one.
            return Err(match (problem.row, problem.non_finite) {
                (Some(row), Some((column, value))) => Error::NonFinite { row, column, value },
                (row, _) => Error::MalformedCsr {
                    row,
                    message: problem.message,
                },
            });
        }
        Ok(Self::from_valid(
            Features::Sparse(SparseMatrix::Shared {
                arrays,
                rows: shape.0,
                cols: shape.1,
            }),
            y,
        ))
    }
}

/// A CSR matrix: owned, or shared with its owner outside the crate. Changing a shared matrix (which
/// only the transforms do, on their own copy) copies it first.
#[derive(Clone)]
pub(crate) enum SparseMatrix {
    Owned(CsrMatrix),
    Shared {
        arrays: Arc<dyn SharedCsr>,
        rows: usize,
        cols: usize,
    },
}

impl SparseMatrix {
    pub(crate) fn rows(&self) -> usize {
        match self {
            SparseMatrix::Owned(x) => x.rows(),
            SparseMatrix::Shared { rows, .. } => *rows,
        }
    }

    pub(crate) fn cols(&self) -> usize {
        match self {
            SparseMatrix::Owned(x) => x.cols(),
            SparseMatrix::Shared { cols, .. } => *cols,
        }
    }

    /// The `n + 1` row pointers from 0, the column indices and the stored values.
    #[inline]
    pub(crate) fn arrays(&self) -> (&[usize], &[SparseIndex], &[f64]) {
        match self {
            SparseMatrix::Owned(x) => (x.indptr().into_raw_storage(), x.indices(), x.data()),
            SparseMatrix::Shared { arrays, .. } => {
                (arrays.indptr(), arrays.indices(), arrays.values())
            }
        }
    }

    /// The matrix as a `sprs` view.
    pub(crate) fn view(&self) -> CsrView<'_> {
        match self {
            SparseMatrix::Owned(x) => x.view(),
            // SAFETY: the arrays passed `check_raw` when the dataset was made (`from_shared_csr`),
            // which checks everything `sprs` requires of a CSR structure (and more), and `SharedCsr`
            // promises that they do not change while the object lives.
            SparseMatrix::Shared { arrays, rows, cols } => unsafe {
                CsrView::new_unchecked(
                    sprs::CompressedStorage::CSR,
                    (*rows, *cols),
                    arrays.indptr(),
                    arrays.indices(),
                    arrays.values(),
                )
            },
        }
    }

    /// The owned matrix to change in place; a shared one is first copied.
    pub(crate) fn make_mut(&mut self) -> &mut CsrMatrix {
        if let SparseMatrix::Shared { .. } = self {
            *self = SparseMatrix::Owned(self.view().to_owned());
        }
        match self {
            SparseMatrix::Owned(x) => x,
            SparseMatrix::Shared { .. } => unreachable!("made owned above"),
        }
    }
}

impl PartialEq for SparseMatrix {
    fn eq(&self, other: &Self) -> bool {
        self.view() == other.view()
    }
}

impl fmt::Debug for SparseMatrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SparseMatrix::Owned(x) => f.debug_tuple("Owned").field(x).finish(),
            SparseMatrix::Shared { arrays, rows, cols } => f
                .debug_struct("Shared")
                .field("rows", rows)
                .field("cols", cols)
                .field("arrays", arrays)
                .finish(),
        }
    }
}
