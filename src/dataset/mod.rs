//! [`Dataset`]: examples as the rows of an `Array2<f64>`, labels ±1, validated once at construction.
//!
//! The transforms here are the simplifications the source documents use on the way to the theorem:
//!
//! | transform | source |
//! |---|---|
//! | [`Dataset::augment`] (add a constant coordinate `c`) | Helmbold, Simplification 1 (seed 000); the `(x, R)` vectors of seed 002 |
//! | [`Dataset::negate_negatives`] (`(x, −1) → (−x, +1)`) | Helmbold, Simplification 2 |
//! | [`Dataset::unit_normalize`] (every row to length 1) | Helmbold, Simplification 3; CS 536's normalised data (seed 001) |
//! | [`Dataset::radius`] `R = max ‖xᵢ‖` about the origin | seeds 002 and 004 ("the radius is centred at the origin") |

use std::sync::OnceLock;

use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis};

mod norms;

pub(crate) use norms::{RowNorms, norm};

use crate::error::{Error, Result};
use crate::simd::{LabelSigns, Rows};

/// A labelled dataset: `x` is `n × d`, one example per row, in standard (row-major) layout; `y` holds
/// `n` labels, each exactly `+1.0` or `-1.0`.
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
    x: Array2<f64>,
    y: Array1<f64>,
    // Quantities derived from the data, each computed on first use by the module that owns it and kept,
    // since the data never change. The dataset only holds them; none is computed at construction.
    /// `maxᵢⱼ |xᵢⱼ|` (for the training loop's overflow check).
    largest_value: OnceLock<f64>,
    /// The rows' lengths and `R`, computed by the one function that computes them.
    norms: OnceLock<RowNorms>,
    /// `y` as one bit per label, the training kernel's form of the labels (see [`LabelSigns`]).
    signs: OnceLock<LabelSigns>,
}

/// Equal data and labels (whether a cached value was computed yet does not matter).
impl PartialEq for Dataset {
    fn eq(&self, other: &Self) -> bool {
        self.x == other.x && self.y == other.y
    }
}

/// A clone's matrix is written into a buffer advised for huge pages, like every matrix the crate
/// builds.
impl Clone for Dataset {
    fn clone(&self) -> Self {
        Dataset {
            x: advised_copy(&self.x),
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
        let (n, d) = x.dim();
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
        if check_finite {
            for (row, values) in x.outer_iter().enumerate() {
                if let Some((column, &value)) =
                    values.iter().enumerate().find(|(_, v)| !v.is_finite())
                {
                    return Err(Error::NonFinite { row, column, value });
                }
            }
        }
        // Branch-free first, so that the common all-valid case vectorises; then locate the culprit.
        if y.fold(false, |bad, &v| bad | ((v != 1.0) & (v != -1.0)))
            && let Some((row, &value)) = y.iter().enumerate().find(|&(_, &v)| v != 1.0 && v != -1.0)
        {
            return Err(Error::Label { row, value });
        }
        let x = if x.is_standard_layout() {
            x
        } else {
            x.as_standard_layout().into_owned()
        };
        // Labels sliced with a step (or reversed) in place are owned but not contiguous.
        let y = if y.is_standard_layout() {
            y
        } else {
            y.as_standard_layout().into_owned()
        };
        Ok(Self::from_valid(x, y))
    }

    /// Wrap a standard-layout matrix and labels already known to be valid.
    fn from_valid(x: Array2<f64>, y: Array1<f64>) -> Self {
        debug_assert!(x.is_standard_layout() && x.nrows() == y.len());
        Self {
            x,
            y,
            largest_value: OnceLock::new(),
            norms: OnceLock::new(),
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
    pub fn x(&self) -> ArrayView2<'_, f64> {
        self.x.view()
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
    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        let d = self.x.ncols();
        &self.as_flat_slice()[i * d..(i + 1) * d]
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
        self.x
            .as_slice()
            .expect("Dataset keeps its matrix in standard layout")
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
        self.x.nrows()
    }

    /// Number of features `d`.
    ///
    /// ```
    /// # use ndarray::array;
    /// assert_eq!(novikoff::Dataset::new(array![[1.0, 0.0]], array![1.0])?.n_features(), 2);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn n_features(&self) -> usize {
        self.x.ncols()
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

    /// The rows' lengths, computed once per dataset (one pass over the data on the first call).
    pub(crate) fn row_norms(&self) -> RowNorms {
        *self.norms.get_or_init(|| RowNorms::of(self.x.view()))
    }

    /// The largest magnitude of a feature value, `maxᵢⱼ |xᵢⱼ|`, computed once per dataset (a pass over the
    /// data on the first call). Training uses it to bound every activation of a pass without mistakes.
    pub(crate) fn largest_value(&self) -> f64 {
        *self
            .largest_value
            .get_or_init(|| self.x.iter().fold(0.0_f64, |m, v| m.max(v.abs())))
    }

    /// Append a constant coordinate `c` to every row: `x ↦ (x, c)`.
    ///
    /// With `c = 1` this is Helmbold's "add-a-dimension" trick (Simplification 1, seed 000), which turns
    /// `w·x + b` into `(w, b)·(x, 1)`. With `c = R` it gives the vectors `x̂ = (x, R)` of seed 002's proof.
    /// The crate's bias rules are the plain perceptron on these vectors; see
    /// [`BiasRule`](crate::perceptron::BiasRule).
    ///
    /// ```
    /// # use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[3.0, 4.0]], array![1.0])?;
    /// assert_eq!(data.augment(1.0).x(), array![[3.0, 4.0, 1.0]]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn augment(&self, c: f64) -> Dataset {
        let (n, d) = self.x.dim();
        let mut values = crate::simd::advised_buffer(n * (d + 1));
        for row in self.x.rows() {
            values.extend(row.iter().copied());
            values.push(c);
        }
        let x = Array2::from_shape_vec((n, d + 1), values)
            .expect("n·(d + 1) values were written for an n × (d + 1) matrix");
        self.with_matrix(x)
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
        let mut x = advised_copy(&self.x);
        for (mut row, &label) in x.outer_iter_mut().zip(self.y.iter()) {
            if label < 0.0 {
                row.mapv_inplace(|v| -v);
            }
        }
        Dataset::from_valid(x, Array1::ones(self.y.len()))
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
        let mut x = advised_copy(&self.x);
        for (row, mut values) in x.outer_iter_mut().enumerate() {
            // A scaled norm: a row of tiny values is not a zero row, nor a row of huge ones all zeros.
            let mut length = norm(values.iter().copied());
            if length == 0.0 {
                return Err(Error::ZeroRow { row });
            }
            if length.is_infinite() {
                // Longer than f64::MAX: shrink it by 2⁻⁶⁰⁰ first (values this far below its largest would
                // be 0 after the division anyway).
                values.mapv_inplace(|v| v * 2f64.powi(-600));
                length = norm(values.iter().copied());
            }
            values.mapv_inplace(|v| v / length);
        }
        Ok(self.with_matrix(x))
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
        Dataset::from_valid(
            self.x.select(Axis(0), indices),
            self.y.select(Axis(0), indices),
        )
    }

    /// A dataset of a new matrix with these labels: the label-derived cache carries over, the others are
    /// computed again when asked for.
    fn with_matrix(&self, x: Array2<f64>) -> Dataset {
        debug_assert!(x.is_standard_layout() && x.nrows() == self.y.len());
        Dataset {
            x,
            y: self.y.clone(),
            largest_value: OnceLock::new(),
            norms: OnceLock::new(),
            signs: self.signs.clone(),
        }
    }

    /// Take the matrix and the labels back.
    ///
    /// ```
    /// # use ndarray::array;
    /// let (x, y) = novikoff::Dataset::new(array![[1.0]], array![1.0])?.into_parts();
    /// assert_eq!((x[[0, 0]], y[0]), (1.0, 1.0));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn into_parts(self) -> (Array2<f64>, Array1<f64>) {
        (self.x, self.y)
    }
}

/// A copy of a standard-layout matrix in a buffer advised for huge pages before it is written (see
/// [`crate::simd::advise_huge_pages`]): the matrices made from a dataset are read like the dataset.
fn advised_copy(x: &Array2<f64>) -> Array2<f64> {
    let mut values = crate::simd::advised_buffer(x.len());
    values.extend(x.iter().copied());
    Array2::from_shape_vec(x.dim(), values).expect("as many values as the matrix it copies")
}
