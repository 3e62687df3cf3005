//! A Gram matrix the user supplies, validated entry by entry.

use ndarray::{Array2, ArrayView2};

use crate::error::{Error, Result};

/// The relative tolerance of the symmetry check: `|Kᵢⱼ − Kⱼᵢ| ≤ 10⁻¹⁰·max(|Kᵢⱼ|, |Kⱼᵢ|, √(KᵢᵢKⱼⱼ))`.
/// Within it the matrix is made exactly symmetric by averaging the two entries.
///
/// ```
/// assert_eq!(novikoff::kernel::SYMMETRY_RTOL, 1e-10);
/// ```
pub const SYMMETRY_RTOL: f64 = 1e-10;

/// A user-supplied Gram matrix `Kᵢⱼ = φ(xᵢ)·φ(xⱼ)` (scikit-learn's `kernel="precomputed"`), checked
/// before any use:
///
/// * square, and not empty;
/// * every entry finite;
/// * every diagonal entry `Kᵢᵢ = ‖φ(xᵢ)‖² ≥ 0`;
/// * symmetric to within [`SYMMETRY_RTOL`] (and then averaged to exact symmetry);
/// * Cauchy–Schwarz `|Kᵢⱼ| ≤ √(KᵢᵢKⱼⱼ)` (to the same tolerance), which every inner product satisfies.
///
/// Each refusal names the entry that fails (0-based). Positive semi-definiteness as a whole is not
/// checked here (it costs O(n³)); a quadratic form `αᵀKα` that a solver finds negative is reported as an
/// error then.
///
/// ```
/// use ndarray::array;
/// use novikoff::kernel::GramMatrix;
/// assert!(GramMatrix::new(array![[2.0, 1.0], [1.0, 2.0]]).is_ok());
/// let err = GramMatrix::new(array![[1.0, 0.5], [0.4, 1.0]]).unwrap_err();
/// assert!(err.to_string().contains("entry (0, 1)"), "{err}");
/// let err = GramMatrix::new(array![[1.0, 0.0], [0.0, -1.0]]).unwrap_err();
/// assert!(err.to_string().contains("entry (1, 1)"), "{err}");
/// assert!(GramMatrix::new(array![[1.0, 0.0, 0.0]]).is_err()); // not square
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct GramMatrix {
    values: Array2<f64>,
}

impl GramMatrix {
    /// Validate a matrix as a Gram matrix (see the type's documentation).
    ///
    /// # Errors
    /// [`Error::Parameter`] named `gram`, naming the failing entry.
    pub fn new(values: Array2<f64>) -> Result<Self> {
        let (rows, cols) = values.dim();
        let refuse = |reason: String| Err(Error::parameter("gram", reason));
        if rows != cols {
            return refuse(format!(
                "a Gram matrix is square: this one is {rows} × {cols}"
            ));
        }
        if rows == 0 {
            return refuse("the Gram matrix is empty".into());
        }
        for ((i, j), &v) in values.indexed_iter() {
            if !v.is_finite() {
                return refuse(format!("entry ({i}, {j}) is {v}, not a finite number"));
            }
        }
        for i in 0..rows {
            let v = values[[i, i]];
            if v < 0.0 {
                return refuse(format!(
                    "entry ({i}, {i}) on the diagonal is {v} < 0, but Kᵢᵢ = ‖φ(xᵢ)‖² is never negative"
                ));
            }
        }
        let mut values = values.as_standard_layout().into_owned();
        for i in 0..rows {
            for j in i + 1..rows {
                let (a, b) = (values[[i, j]], values[[j, i]]);
                let scale = a
                    .abs()
                    .max(b.abs())
                    .max((values[[i, i]] * values[[j, j]]).sqrt());
                if (a - b).abs() > SYMMETRY_RTOL * scale {
                    return refuse(format!(
                        "entry ({i}, {j}) is {a} but entry ({j}, {i}) is {b}: a Gram matrix is symmetric \
                         (to within a relative {SYMMETRY_RTOL:e})"
                    ));
                }
                let mean = 0.5 * a + 0.5 * b;
                values[[i, j]] = mean;
                values[[j, i]] = mean;
                let bound = (values[[i, i]] * values[[j, j]]).sqrt();
                if mean.abs() > bound * (1.0 + SYMMETRY_RTOL) + f64::MIN_POSITIVE {
                    return refuse(format!(
                        "entry ({i}, {j}) is {mean}, beyond √(K({i},{i})·K({j},{j})) = {bound}: no inner \
                         product has |φ(xᵢ)·φ(xⱼ)| > ‖φ(xᵢ)‖‖φ(xⱼ)‖ (Cauchy–Schwarz)"
                    ));
                }
            }
        }
        Ok(Self { values })
    }

    /// The number of examples `n` (the matrix is `n × n`).
    ///
    /// ```
    /// use ndarray::array;
    /// assert_eq!(novikoff::kernel::GramMatrix::new(array![[1.0]])?.n(), 1);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn n(&self) -> usize {
        self.values.nrows()
    }

    /// The matrix (exactly symmetric).
    ///
    /// ```
    /// use ndarray::array;
    /// let gram = novikoff::kernel::GramMatrix::new(array![[1.0, 0.3], [0.3, 1.0]])?;
    /// assert_eq!(gram.values()[[1, 0]], 0.3);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn values(&self) -> ArrayView2<'_, f64> {
        self.values.view()
    }

    #[inline]
    pub(crate) fn get(&self, i: usize, j: usize) -> f64 {
        self.values[[i, j]]
    }
}
