//! The simplifications the source documents use on the way to the theorem, on either storage: a sparse
//! dataset stays sparse.

use std::sync::{Arc, OnceLock};

use ndarray::{Array1, Array2, Axis};

use super::{Dataset, DenseMatrix, Features, norm, sparse};
use crate::error::{Error, Result};

impl Dataset {
    /// Append a constant coordinate `c` to every row: `x ↦ (x, c)`.
    ///
    /// With `c = 1` this is Helmbold's "add-a-dimension" trick (Simplification 1, seed 000), which turns
    /// `w·x + b` into `(w, b)·(x, 1)`. With `c = R` it gives the vectors `x̂ = (x, R)` of seed 002's proof.
    /// The crate's bias rules are the plain perceptron on these vectors; see
    /// [`BiasRule`](crate::perceptron::BiasRule). This is a copy of the matrix: training
    /// ([`Augmentation`](crate::perceptron::Augmentation)) and the maximum margin of the augmented points
    /// ([`MaxMargin::solve_augmented`](crate::margin::MaxMargin::solve_augmented)) read the constant
    /// without one.
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[3.0, 4.0]], array![1.0])?;
    /// assert_eq!(data.augment(1.0).x(), array![[3.0, 4.0, 1.0]]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn augment(&self, c: f64) -> Dataset {
        let x = match &self.features {
            Features::Dense(x) => {
                let (n, d) = x.dim();
                let mut values = crate::simd::advised_buffer(n * (d + 1));
                for row in x.view().rows() {
                    values.extend(row.iter().copied());
                    values.push(c);
                }
                Features::Dense(DenseMatrix::Owned(
                    Array2::from_shape_vec((n, d + 1), values)
                        .expect("n·(d + 1) values were written for an n × (d + 1) matrix"),
                ))
            }
            // c = 0 stores nothing: an unstored entry is that zero.
            Features::Sparse(x) => Features::csr(sparse::append_column(x.view(), c)),
        };
        self.with_features(x)
    }

    /// Replace each negative example `(x, −1)` by `(−x, +1)` (Helmbold, Simplification 2, seed 000).
    ///
    /// A separator through the origin of the old data separates the new data with every label +1 and the
    /// same margins, and the no-bias perceptron makes the same updates on both.
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0, 2.0], [3.0, -1.0]], array![1.0, -1.0])?;
    /// let flipped = data.negate_negatives();
    /// assert_eq!(flipped.x(), array![[1.0, 2.0], [-3.0, 1.0]]);
    /// assert_eq!(flipped.y().to_vec(), vec![1.0, 1.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn negate_negatives(&self) -> Dataset {
        let mut features = self.features.clone_advised();
        features.scale_rows(|i| if self.y[i] < 0.0 { -1.0 } else { 1.0 });
        Dataset::from_valid(features, Array1::ones(self.y.len()))
    }

    /// Scale every row to unit Euclidean length (Helmbold, Simplification 3; the normalised data of
    /// CS 536, seed 001). Scaling a row by a positive number does not change the sign of `w·x`, so a
    /// separator through the origin still separates; it does change the margin. A zero row is an error.
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[3.0, 4.0], [0.0, -2.0]], array![1.0, -1.0])?;
    /// let unit = data.unit_normalize()?;
    /// assert_eq!(unit.x(), array![[0.6, 0.8], [0.0, -1.0]]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn unit_normalize(&self) -> Result<Dataset> {
        let mut features = self.features.clone_advised();
        for row in 0..self.n_samples() {
            let values = features.row_values_mut(row);
            // A scaled norm: a row of tiny values is not a zero row, nor a row of huge ones all zeros.
            let mut length = norm(values.iter().copied());
            if length == 0.0 {
                return Err(Error::ZeroRow { row });
            }
            if length.is_infinite() {
                // Longer than f64::MAX: shrink it by 2⁻⁶⁰⁰ first (values this far below its largest would
                // be 0 after the division anyway).
                values.iter_mut().for_each(|v| *v *= 2f64.powi(-600));
                length = norm(values.iter().copied());
            }
            values.iter_mut().for_each(|v| *v /= length);
        }
        Ok(self.with_features(features))
    }

    /// True when every row has unit length to within `tol` (relative).
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[0.6, 0.8]], array![1.0])?;
    /// assert!(data.is_unit_norm(1e-12));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn is_unit_norm(&self, tol: f64) -> bool {
        self.row_norms().unit_length(tol)
    }

    /// A new dataset holding the rows at `indices`, in that order.
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0], [2.0], [3.0]], array![1.0, -1.0, 1.0])?;
    /// assert_eq!(data.select(&[2, 0]).x(), array![[3.0], [1.0]]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn select(&self, indices: &[usize]) -> Dataset {
        let features = match &self.features {
            Features::Dense(x) => {
                Features::Dense(DenseMatrix::Owned(x.view().select(Axis(0), indices)))
            }
            Features::Sparse(x) => Features::csr(sparse::select_rows(x.view(), indices)),
        };
        Dataset::from_valid(features, self.y.select(Axis(0), indices))
    }

    /// The same features with other labels (checked by the caller), read from the same memory when the
    /// features are shared ([`Features::into_shared`]) and copied otherwise; what is derived from the
    /// features alone (the row norms, the largest value) is shared with this dataset, computed once for
    /// both.
    pub(crate) fn relabelled(&self, y: Array1<f64>) -> Dataset {
        debug_assert_eq!(y.len(), self.n_samples());
        Dataset {
            features: self.features.clone_advised(),
            y,
            largest_value: Arc::clone(&self.largest_value),
            norms: Arc::clone(&self.norms),
            signs: OnceLock::new(),
        }
    }

    /// A dataset of new features with these labels: the label-derived cache carries over, the others are
    /// computed again when asked for.
    pub(super) fn with_features(&self, features: Features) -> Dataset {
        Dataset {
            features,
            y: self.y.clone(),
            largest_value: Arc::default(),
            norms: Arc::default(),
            signs: self.signs.clone(),
        }
    }
}
