//! Which storage holds a dataset's features, and the conversions between the two.

use std::borrow::Cow;

use ndarray::ArrayView2;

use super::{CsrView, DENSIFY_LIMIT_BYTES, Dataset, DenseMatrix, Features, sparse};
use crate::error::{Error, Result};

impl Dataset {
    /// True when the features are stored as compressed sparse rows.
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0, 0.0]], array![1.0])?;
    /// assert!(!data.is_sparse() && data.to_sparse().is_sparse());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn is_sparse(&self) -> bool {
        matches!(self.features, Features::Sparse(_))
    }

    /// The number of stored values: `n·d` for a dense dataset, the non-zeros kept for a sparse one.
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0, 0.0], [0.0, 0.0]], array![1.0, -1.0])?;
    /// assert_eq!((data.nnz(), data.to_sparse().nnz()), (4, 1));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn nnz(&self) -> usize {
        self.features.values().len()
    }

    /// The dense matrix, or `None` for a sparse dataset.
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0, 0.0]], array![1.0])?;
    /// assert!(data.dense().is_some() && data.to_sparse().dense().is_none());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn dense(&self) -> Option<ArrayView2<'_, f64>> {
        match &self.features {
            Features::Dense(x) => Some(x.view()),
            Features::Sparse(_) => None,
        }
    }

    /// The CSR matrix (borrowed, whether the dataset owns its arrays or reads them in place), or `None`
    /// for a dense dataset.
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0, 0.0]], array![1.0])?.to_sparse();
    /// assert_eq!(data.csr().map(|x| x.nnz()), Some(1));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn csr(&self) -> Option<CsrView<'_>> {
        match &self.features {
            Features::Dense(_) => None,
            Features::Sparse(x) => Some(x.view()),
        }
    }

    /// The same examples stored as compressed sparse rows (the non-zero values; a copy, or a clone of
    /// a dataset that is sparse already).
    ///
    /// # Panics
    /// When a dense dataset has more than [`MAX_SPARSE_COLUMNS`](super::MAX_SPARSE_COLUMNS) columns
    /// (2³¹ − 1: one such row alone takes 16 GiB).
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[0.0, 3.0], [4.0, 0.0]], array![1.0, -1.0])?;
    /// assert_eq!(data.to_sparse().radius(), data.radius());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn to_sparse(&self) -> Dataset {
        match &self.features {
            Features::Dense(x) => {
                Dataset::from_valid(Features::csr(sparse::from_dense(x.view())), self.y.clone())
            }
            Features::Sparse(_) => self.clone(),
        }
    }

    /// The same examples stored densely, refused beyond [`DENSIFY_LIMIT_BYTES`]
    /// ([`Error::TooLargeToDensify`]).
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[0.0, 3.0], [4.0, 0.0]], array![1.0, -1.0])?;
    /// assert_eq!(data.to_sparse().to_dense()?, data);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn to_dense(&self) -> Result<Dataset> {
        Ok(self.densified("a dense copy")?.into_owned())
    }

    /// An error unless the dense matrix of this dataset is within [`DENSIFY_LIMIT_BYTES`] (always true for
    /// a dense dataset): for what writes or needs every value, such as a dense file format.
    pub(crate) fn check_dense_size(&self, what: &'static str) -> Result<()> {
        let (n, d) = (self.n_samples(), self.n_features());
        let bytes = (n as u64).saturating_mul(d as u64).saturating_mul(8);
        if self.is_sparse() && bytes > DENSIFY_LIMIT_BYTES {
            return Err(Error::TooLargeToDensify {
                what,
                n,
                d,
                bytes,
                limit: DENSIFY_LIMIT_BYTES,
            });
        }
        Ok(())
    }

    /// [`Dataset::to_dense`], naming the algorithm that needs the dense matrix in the error.
    /// A dense dataset as it is (borrowed), a sparse one as a dense copy.
    pub(crate) fn densified(&self, what: &'static str) -> Result<Cow<'_, Dataset>> {
        match &self.features {
            Features::Dense(_) => Ok(Cow::Borrowed(self)),
            Features::Sparse(x) => Ok(Cow::Owned(Dataset::from_valid(
                Features::Dense(DenseMatrix::Owned(sparse::to_dense(x.view(), what)?)),
                self.y.clone(),
            ))),
        }
    }

    /// Every stored value, row after row (all `n·d` of a dense dataset).
    pub(crate) fn stored_values(&self) -> &[f64] {
        self.features.values()
    }

    /// The same storage with `f` applied to every stored value; `f(0)` must be `0` (unstored values stay
    /// zero). Only the label-derived cache carries over.
    pub(crate) fn map_values(&self, f: impl Fn(f64) -> f64) -> Dataset {
        let mut features = self.features.clone_advised();
        for i in 0..features.n_rows() {
            features
                .row_values_mut(i)
                .iter_mut()
                .for_each(|v| *v = f(*v));
        }
        debug_assert_eq!(f(0.0), 0.0);
        self.with_features(features)
    }
}
