//! The outcome of a maximum-margin solve.

use ndarray::{Array1, ArrayView1};

use super::certificate::Certificate;

/// The outcome of [`max_margin`](super::max_margin()), shaped like clarabel's solver status: a certified answer, a proof of
/// the opposite, or an honest "not accurate enough".
///
/// ```
/// use ndarray::array;
/// use novikoff::margin::{max_margin, Bias, MarginResult};
/// let data = novikoff::Dataset::new(array![[0.0, 0.0], [2.0, 0.0]], array![-1.0, 1.0])?;
/// match max_margin(&data, Bias::Free)? {
///     MarginResult::Separable { gamma, w, b, .. } => {
///         assert!((gamma - 1.0).abs() < 1e-12);
///         assert!((w[0] - 1.0).abs() < 1e-12 && (b + 1.0).abs() < 1e-12);
///     }
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum MarginResult {
    /// The data are separable, and `γ*` is known to the requested relative accuracy.
    Separable {
        /// The best estimate of `γ*`, inside `bracket`.
        gamma: f64,
        /// `(lower, upper)` with `lower ≤ γ* ≤ upper`. `lower` is the margin `(w, b)` achieves on the data;
        /// `upper` comes from a point of the convex hulls (the dual).
        bracket: (f64, f64),
        /// The separator's normal, of unit length.
        w: Array1<f64>,
        /// The separator's bias (0 through the origin).
        b: f64,
        /// The rows on the margin (within the tolerance) under `(w, b)`: the support vectors, ascending.
        support: Vec<usize>,
    },
    /// No separator exists, and the certificate proves it.
    NotSeparable {
        /// Weights on the rows whose hulls meet; see [`Certificate::verify`].
        certificate: Certificate,
    },
    /// The solver could not reach the requested accuracy. The bracket is still rigorous; `lower` may be
    /// negative when no separator was found and no certificate was tight enough.
    Inaccurate {
        /// The midpoint of the bracket.
        gamma: f64,
        /// `(lower, upper)` with `lower ≤ γ* ≤ upper` (`γ*` read as 0 for non-separable data).
        bracket: (f64, f64),
        /// The best unit normal found.
        w: Array1<f64>,
        /// Its bias.
        b: f64,
        /// Why the target was missed.
        reason: String,
    },
}

impl MarginResult {
    /// True for [`MarginResult::Separable`], and for an inaccurate result whose separator provably
    /// separates (`lower > 0`).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{max_margin, Bias};
    /// let xor = novikoff::Dataset::new(
    ///     array![[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]],
    ///     array![1.0, -1.0, -1.0, 1.0],
    /// )?;
    /// assert!(!max_margin(&xor, Bias::Free)?.is_separable());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn is_separable(&self) -> bool {
        match self {
            MarginResult::Separable { .. } => true,
            MarginResult::Inaccurate { bracket, .. } => bracket.0 > 0.0,
            MarginResult::NotSeparable { .. } => false,
        }
    }

    /// The margin the returned `(w, b)` achieves on the data (the bracket's lower end), if there is a
    /// separator.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{max_margin, Bias};
    /// let data = novikoff::Dataset::new(array![[1.0], [-3.0]], array![1.0, -1.0])?;
    /// let lower = max_margin(&data, Bias::ThroughOrigin)?.gamma_lower().unwrap();
    /// assert!(lower <= 1.0 && lower > 1.0 - 1e-12);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn gamma_lower(&self) -> Option<f64> {
        self.bracket().map(|(lower, _)| lower)
    }

    /// The bracket `(lower, upper)`, if the result has one.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{max_margin, Bias};
    /// let data = novikoff::Dataset::new(array![[1.0], [-3.0]], array![1.0, -1.0])?;
    /// let (lower, upper) = max_margin(&data, Bias::Free)?.bracket().unwrap();
    /// assert!(lower <= 2.0 && 2.0 <= upper);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn bracket(&self) -> Option<(f64, f64)> {
        match self {
            MarginResult::Separable { bracket, .. } | MarginResult::Inaccurate { bracket, .. } => {
                Some(*bracket)
            }
            MarginResult::NotSeparable { .. } => None,
        }
    }

    /// The best estimate of `γ*`, if the result has one.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{max_margin, Bias};
    /// let data = novikoff::Dataset::new(array![[1.0], [-3.0]], array![1.0, -1.0])?;
    /// assert!((max_margin(&data, Bias::Free)?.gamma().unwrap() - 2.0).abs() < 1e-12);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn gamma(&self) -> Option<f64> {
        match self {
            MarginResult::Separable { gamma, .. } | MarginResult::Inaccurate { gamma, .. } => {
                Some(*gamma)
            }
            MarginResult::NotSeparable { .. } => None,
        }
    }

    /// The separator `(w, b)` with unit `w`, when one was found that separates the data.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{max_margin, Bias};
    /// let data = novikoff::Dataset::new(array![[0.0, 3.0], [0.0, -1.0]], array![1.0, -1.0])?;
    /// let result = max_margin(&data, Bias::Free)?;
    /// let (w, b) = result.separator().unwrap();
    /// assert!((w[1] - 1.0).abs() < 1e-12 && (b + 1.0).abs() < 1e-12);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn separator(&self) -> Option<(ArrayView1<'_, f64>, f64)> {
        match self {
            MarginResult::Separable { w, b, .. } => Some((w.view(), *b)),
            MarginResult::Inaccurate { w, b, bracket, .. } if bracket.0 > 0.0 => {
                Some((w.view(), *b))
            }
            _ => None,
        }
    }

    /// The certificate of non-separability, if that is the result.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{max_margin, Bias};
    /// let data = novikoff::Dataset::new(array![[-1.0], [0.0], [1.0]], array![-1.0, 1.0, -1.0])?;
    /// let certificate = max_margin(&data, Bias::Free)?.certificate().cloned().unwrap();
    /// assert!(certificate.verify(&data, 1e-12));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn certificate(&self) -> Option<&Certificate> {
        match self {
            MarginResult::NotSeparable { certificate } => Some(certificate),
            _ => None,
        }
    }
}
