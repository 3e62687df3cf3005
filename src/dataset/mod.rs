//! [`Dataset`]: examples as the rows of an `Array2<f64>` or of a sparse CSR matrix, labels ±1, validated
//! once at construction. Every algorithm reads a row through [`RowView`], whichever storage holds it.
//!
//! The transforms here are the simplifications the source documents use on the way to the theorem:
//!
//! | transform | source |
//! |---|---|
//! | [`Dataset::augment`] (add a constant coordinate `c`) | Helmbold, Simplification 1 (seed 000); the `(x, R)` vectors of seed 002 |
//! | [`Dataset::negate_negatives`] (`(x, −1) → (−x, +1)`) | Helmbold, Simplification 2 |
//! | [`Dataset::unit_normalize`] (every row to length 1) | Helmbold, Simplification 3; CS 536's normalised data (seed 001) |
//! | [`Dataset::radius`] `R = max ‖xᵢ‖` about the origin | seeds 002 and 004 ("the radius is centred at the origin") |

use std::sync::{Arc, OnceLock};

use ndarray::{Array1, Array2, ArrayView1, ArrayView2};

mod csr;
mod dense;
mod features;
mod multiclass;
mod norms;
mod row;
pub(crate) mod sparse;
mod storage;
mod transform;

pub use csr::SharedCsr;
pub use dense::SharedValues;
use dense::{DenseMatrix, check_finite_values};
pub(crate) use features::{Features, RowArrays};
pub use multiclass::MulticlassDataset;
pub(crate) use norms::{RowNorms, norm};
pub(crate) use row::DenseRow;
pub use row::RowView;
pub use sparse::{CsrMatrix, CsrView, DENSIFY_LIMIT_BYTES, MAX_SPARSE_COLUMNS, SparseIndex};

use crate::error::{Error, Result};
use crate::simd::{LabelSigns, Rows};

/// A labelled dataset: `x` is `n × d`, one example per row, stored densely in standard (row-major)
/// layout ([`Dataset::new`]) or as compressed sparse rows ([`Dataset::from_csr`]), either read in place
/// where another owner holds it ([`Dataset::from_shared`], [`Dataset::from_shared_csr`]); `y` holds `n`
/// labels, each exactly `+1.0` or `-1.0`.
///
/// Every algorithm of the crate takes either storage and reads rows through [`Dataset::row_view`]. A
/// sparse dataset stays sparse through training, prediction, `R`, the margins and the maximum margin,
/// the bounds and the transforms below; the few steps that need the dense matrix (the separability LP,
/// a least-squares separator, shifts and standardisation) densify up to [`DENSIFY_LIMIT_BYTES`]
/// (beyond it: [`Error::TooLargeToDensify`]).
///
/// Construction checks that the lengths match, that there is at least one row and one column, that every
/// value is finite and that every label is ±1. A dataset may hold a single class (Helmbold's
/// negate-the-negatives transform produces one); functions that need both classes say so and check.
///
/// Every matrix the crate builds (the loaders of [`io`](crate::io), the generators, the transforms
/// below, a clone) is written into memory advised for transparent huge pages
/// ([`simd::advise_huge_pages`](crate::simd::advise_huge_pages); `benches/README.md` has what that is
/// worth). `Dataset::new` takes the matrix as it is.
///
/// A dataset is data: what the algorithms derive from it (the row norms and `R`, the largest value, the
/// training kernel's sign bits of the labels) is computed on first use by the module that owns it and
/// kept beside the data, never at construction.
///
/// ```
/// use ndarray::array;
/// use novikoff::Dataset;
/// let data = Dataset::new(array![[3.0, 4.0], [-1.0, 0.0]], array![1.0, -1.0])?;
/// assert_eq!((data.n_samples(), data.n_features()), (2, 2));
/// assert_eq!(data.radius(), 5.0);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug)]
pub struct Dataset {
    features: Features,
    y: Array1<f64>,
    // Quantities derived from the data, each computed on first use by the module that owns it and kept,
    // since the data never change. The dataset only holds them; none is computed at construction.
    // Those of the features alone are shared by the datasets that read the same features with other
    // labels (a multi-class problem's classes), so that the first of them to need one computes it
    // for all.
    /// `maxᵢⱼ |xᵢⱼ|` (for the training loop's overflow check).
    largest_value: Arc<OnceLock<f64>>,
    /// The rows' lengths and `R`, computed by the one function that computes them.
    norms: Arc<OnceLock<RowNorms>>,
    /// `y` as one bit per label, the training kernel's form of the labels (see [`LabelSigns`]).
    signs: OnceLock<LabelSigns>,
}

/// Equal data and labels (whether a cached value was computed yet does not matter).
impl PartialEq for Dataset {
    fn eq(&self, other: &Self) -> bool {
        self.features == other.features && self.y == other.y
    }
}

/// A clone's matrix is written into a buffer advised for huge pages, like every matrix the crate
/// builds.
impl Clone for Dataset {
    fn clone(&self) -> Self {
        Dataset {
            features: self.features.clone_advised(),
            y: self.y.clone(),
            largest_value: self.largest_value.clone(),
            norms: self.norms.clone(),
            signs: self.signs.clone(),
        }
    }
}

impl Dataset {
    /// Validate and wrap a feature matrix and its labels. The matrix is converted to row-major layout if
    /// it is not already, so that every row is a contiguous slice for the training loop.
    ///
    /// ```
    /// use ndarray::array;
    /// let err = novikoff::Dataset::new(array![[1.0], [2.0]], array![1.0, 0.0]).unwrap_err();
    /// assert_eq!(err.to_string(), "row 1: label 0 is not +1 or -1");
    /// ```
    pub fn new(x: Array2<f64>, y: Array1<f64>) -> Result<Self> {
        Self::checked(x, y, true)
    }

    /// [`Dataset::new`] for a reader that has already seen every feature value to be finite while it
    /// decoded them, so that loading does not pass over the whole matrix a second time.
    pub(crate) fn with_finite_features(x: Array2<f64>, y: Array1<f64>) -> Result<Self> {
        debug_assert!(x.iter().all(|v| v.is_finite()));
        Self::checked(x, y, false)
    }

    fn checked(x: Array2<f64>, y: Array1<f64>, check_finite: bool) -> Result<Self> {
        let y = checked_labels(x.dim(), y)?;
        let x = if x.is_standard_layout() {
            x
        } else {
            x.as_standard_layout().into_owned()
        };
        if check_finite {
            let values = x.as_slice().expect("standard layout");
            check_finite_values(values, x.ncols())?;
        }
        Ok(Self::from_valid(Features::Dense(DenseMatrix::Owned(x)), y))
    }

    /// Wrap features and labels already known to be valid.
    fn from_valid(features: Features, y: Array1<f64>) -> Self {
        debug_assert_eq!(features.n_rows(), y.len());
        Self {
            features,
            y,
            largest_value: Arc::default(),
            norms: Arc::default(),
            signs: OnceLock::new(),
        }
    }

    /// Like [`Dataset::new`], and also require both classes to be present.
    ///
    /// ```
    /// use ndarray::array;
    /// let err = novikoff::Dataset::with_both_classes(array![[1.0]], array![1.0]).unwrap_err();
    /// assert!(matches!(err, novikoff::Error::SingleClass { .. }));
    /// ```
    pub fn with_both_classes(x: Array2<f64>, y: Array1<f64>) -> Result<Self> {
        let data = Self::new(x, y)?;
        data.require_both_classes()?;
        Ok(data)
    }

    /// Check that both classes occur.
    ///
    /// ```
    /// use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0], [2.0]], array![1.0, 1.0])?;
    /// assert!(data.require_both_classes().is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn require_both_classes(&self) -> Result<()> {
        let (positives, negatives) = self.class_counts();
        if positives == 0 || negatives == 0 {
            return Err(Error::SingleClass {
                label: if positives == 0 { -1.0 } else { 1.0 },
                context: String::new(),
            });
        }
        Ok(())
    }

    /// The feature matrix, `n × d`, row-major.
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0, 2.0]], array![1.0])?;
    /// assert_eq!(data.x()[[0, 1]], 2.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Panics
    /// For a sparse dataset; [`Dataset::dense`] returns `None` there instead.
    pub fn x(&self) -> ArrayView2<'_, f64> {
        self.dense()
            .expect("Dataset::x on a sparse dataset: use dense(), csr() or row_view()")
    }

    /// The labels, each ±1.
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0], [2.0]], array![1.0, -1.0])?;
    /// assert_eq!(data.y().to_vec(), vec![1.0, -1.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn y(&self) -> ArrayView1<'_, f64> {
        self.y.view()
    }

    /// Row `i` as a contiguous slice (the dataset is always row-major).
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0, 2.0], [3.0, 4.0]], array![1.0, -1.0])?;
    /// assert_eq!(data.row(1), &[3.0, 4.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Panics
    /// For a sparse dataset, whose rows are not slices: use [`Dataset::row_view`], which every storage
    /// has.
    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        match self.features.row(i) {
            RowView::Dense(x) => x,
            RowView::Sparse { .. } => panic!("Dataset::row on a sparse dataset: use row_view"),
        }
    }

    /// Row `i`, whichever storage holds it: the way every algorithm reads a row.
    ///
    /// ```
    /// # use ndarray::array;
    /// use novikoff::dataset::RowView;
    /// let data = novikoff::Dataset::new(array![[1.0, 2.0], [3.0, 4.0]], array![1.0, -1.0])?;
    /// assert_eq!(data.row_view(1), RowView::Dense(&[3.0, 4.0]));
    /// let sparse = data.to_sparse();
    /// assert_eq!(sparse.row_view(1), RowView::Sparse { indices: &[0, 1], values: &[3.0, 4.0] });
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    #[inline]
    pub fn row_view(&self, i: usize) -> RowView<'_> {
        self.features.row(i)
    }

    /// The arrays that hold the rows, resolved once for loops that read many ([`RowArrays`]).
    #[inline]
    pub(crate) fn row_arrays(&self) -> RowArrays<'_> {
        self.features.row_arrays()
    }

    /// The whole matrix as one row-major slice of length `n·d`.
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0, 2.0], [3.0, 4.0]], array![1.0, -1.0])?;
    /// assert_eq!(data.as_flat_slice(), &[1.0, 2.0, 3.0, 4.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    #[inline]
    #[doc(hidden)]
    pub fn as_flat_slice(&self) -> &[f64] {
        match &self.features {
            Features::Dense(x) => x.as_slice(),
            Features::Sparse(_) => panic!("as_flat_slice on a sparse dataset"),
        }
    }

    /// The labels as a slice.
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0]], array![-1.0])?;
    /// assert_eq!(data.labels(), &[-1.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    #[inline]
    pub fn labels(&self) -> &[f64] {
        self.y.as_slice().expect("labels are contiguous")
    }

    /// The rows and labels as a block for the [`simd`](crate::simd) loops, in order, with the labels'
    /// sign bits, which the SIMD scans read instead of the 8-byte labels where they can (nothing is
    /// copied; see [`simd::scan`](crate::simd::scan)).
    ///
    /// ```
    /// # use ndarray::array;
    /// use novikoff::simd::{scan, Summation};
    /// let data = novikoff::Dataset::new(array![[1.0], [-2.0], [3.0]], array![1.0, -1.0, -1.0])?;
    /// let first = scan(&[1.0], 0.0, &data.rows(), Summation::Fast)?.unwrap();
    /// assert_eq!((first.offset, first.activation), (2, 3.0));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    #[doc(hidden)]
    pub fn rows(&self) -> Rows<'_> {
        Rows::contiguous(self.as_flat_slice(), self.labels(), self.n_features())
            .expect("a dataset's matrix has one row per label and at least one column")
            .with_signs(
                self.signs
                    .get_or_init(|| LabelSigns::of_unit_labels(self.labels())),
            )
    }

    /// Number of examples `n`.
    ///
    /// ```
    /// # use ndarray::array;
    /// assert_eq!(novikoff::Dataset::new(array![[1.0], [2.0]], array![1.0, -1.0])?.n_samples(), 2);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn n_samples(&self) -> usize {
        self.features.n_rows()
    }

    /// Number of features `d`.
    ///
    /// ```
    /// # use ndarray::array;
    /// assert_eq!(novikoff::Dataset::new(array![[1.0, 0.0]], array![1.0])?.n_features(), 2);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn n_features(&self) -> usize {
        self.features.n_cols()
    }

    /// `(positives, negatives)`.
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0], [2.0], [3.0]], array![1.0, -1.0, 1.0])?;
    /// assert_eq!(data.class_counts(), (2, 1));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn class_counts(&self) -> (usize, usize) {
        let positives = self.y.iter().filter(|&&v| v > 0.0).count();
        (positives, self.y.len() - positives)
    }

    /// The radius `R = maxᵢ ‖xᵢ‖₂`, measured about the origin and never about the centroid (seed 004's
    /// "common misunderstanding"). Each norm is accumulated left to right, and scaled as LAPACK's `dnrm2`
    /// scales it (Blue's algorithm): for values between about 10⁻¹⁵⁴ and 10¹⁴⁶ the result has the bits of
    /// the plain `√(Σ xⱼ²)`, and beyond them the squares neither overflow nor underflow, so `R` is `∞` only
    /// when a row's length exceeds `f64::MAX` and `0` only for all-zero rows.
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[10.0, 0.0], [11.0, 0.0]], array![1.0, -1.0])?;
    /// assert_eq!(data.radius(), 11.0); // not 0.5, the radius about the centroid
    /// let huge = novikoff::Dataset::new(array![[3e200, 4e200]], array![1.0])?;
    /// assert!((huge.radius() / 5e200 - 1.0).abs() < 1e-15); // the naive sum of squares is ∞
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn radius(&self) -> f64 {
        self.row_norms().radius
    }

    /// `R` if something has computed it already (no pass over the data).
    pub(crate) fn known_radius(&self) -> Option<f64> {
        self.norms.get().map(|norms| norms.radius)
    }

    /// The rows' lengths, computed once per dataset (one pass over the data on the first call).
    pub(crate) fn row_norms(&self) -> RowNorms {
        *self.norms.get_or_init(|| {
            // The same pass gives the largest value.
            let (norms, largest) = RowNorms::of_features(&self.features);
            let _ = self.largest_value.set(largest);
            norms
        })
    }

    /// The largest magnitude of a feature value, `maxᵢⱼ |xᵢⱼ|`, computed once per dataset (a pass over the
    /// data on the first call). Training uses it to bound every activation of a pass without mistakes.
    pub(crate) fn largest_value(&self) -> f64 {
        *self.largest_value.get_or_init(|| {
            self.features
                .values()
                .iter()
                .fold(0.0_f64, |m, v| m.max(v.abs()))
        })
    }

    /// Take the labels back, whatever the storage (to reuse their buffer, for instance).
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0], [2.0]], array![1.0, -1.0])?;
    /// assert_eq!(data.to_sparse().into_labels().to_vec(), vec![1.0, -1.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn into_labels(self) -> Array1<f64> {
        self.y
    }

    /// Take the matrix and the labels back.
    ///
    /// ```
    /// # use ndarray::array;
    /// let (x, y) = novikoff::Dataset::new(array![[1.0]], array![1.0])?.into_parts();
    /// assert_eq!((x[[0, 0]], y[0]), (1.0, 1.0));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Panics
    /// For a sparse dataset; see [`Dataset::to_dense`].
    pub fn into_parts(self) -> (Array2<f64>, Array1<f64>) {
        match self.features {
            Features::Dense(x) => (x.into_owned(), self.y),
            Features::Sparse(_) => panic!("into_parts on a sparse dataset: use to_dense first"),
        }
    }
}

/// The labels of an `n × d` matrix, checked: one per row, at least one row and one column, each ±1; in
/// standard layout (labels sliced with a step in place are owned but not contiguous).
fn checked_labels((n, d): (usize, usize), y: Array1<f64>) -> Result<Array1<f64>> {
    if y.len() != n {
        return Err(Error::Shape {
            what: "labels against rows",
            expected: n,
            found: y.len(),
        });
    }
    if n == 0 {
        return Err(Error::Empty);
    }
    if d == 0 {
        return Err(Error::NoFeatures);
    }
    // Branch-free first, so that the common all-valid case vectorises; then locate the culprit.
    if y.fold(false, |bad, &v| bad | ((v != 1.0) & (v != -1.0)))
        && let Some((row, &value)) = y.iter().enumerate().find(|&(_, &v)| v != 1.0 && v != -1.0)
    {
        return Err(Error::Label { row, value });
    }
    Ok(if y.is_standard_layout() {
        y
    } else {
        y.as_standard_layout().into_owned()
    })
}
