//! The outcome of a maximum-margin solve.

use ndarray::{Array1, ArrayView1};
use serde::{Deserialize, Serialize};

use super::certificate::Certificate;

/// Where a maximum-margin solve spent its effort: the full passes over the data and the working set
/// they built.
///
/// A pass reads every stored value once; the solver's cost is dominated by them when the working set is
/// small beside the data, so `passes` times the time of one pass is close to the whole solve.
///
/// ```
/// use ndarray::array;
/// use novikoff::margin::{max_margin, Bias};
/// let data = novikoff::Dataset::new(array![[0.0, 0.0], [2.0, 0.0]], array![-1.0, 1.0])?;
/// let stats = max_margin(&data, Bias::Free)?.stats();
/// assert!(stats.passes >= 3 && stats.rounds >= 1 && stats.working_set == 2);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SolveStats {
    /// Full passes over the data: two to choose the first working set, one per round, and the passes of
    /// the dual coordinate descent that starts sparse solves and dense ones in many dimensions, counted
    /// in rows read (40 full sweeps over a first working set of 40 % of the rows count 16; the descent
    /// reads at most 40 passes' worth of the rows it visits, and fewer where it settles).
    pub passes: usize,
    /// Rounds: exact solves on the working set, each followed by one pass.
    pub rounds: usize,
    /// Rows in the working set of the last round.
    pub working_set: usize,
}

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
        /// The solver's effort.
        stats: SolveStats,
    },
    /// No separator exists, and the certificate proves it.
    NotSeparable {
        /// Weights on the rows whose hulls meet; see [`Certificate::verify`].
        certificate: Certificate,
        /// The solver's effort.
        stats: SolveStats,
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
        /// The solver's effort.
        stats: SolveStats,
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

    /// Whether the solve stopped (at a limit) before it found its first separator: an
    /// [`MarginResult::Inaccurate`] with a zero `w` and no bound on γ* beyond `[−∞, ∞]`, so there is no
    /// estimate to show.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{max_margin, Bias, MarginResult, SolveStats};
    /// let data = novikoff::Dataset::new(array![[1.0, 0.0], [-1.0, 0.5]], array![1.0, -1.0])?;
    /// assert!(!max_margin(&data, Bias::Free)?.stopped_before_separator());
    /// let stopped = MarginResult::Inaccurate {
    ///     gamma: 0.0,
    ///     bracket: (f64::NEG_INFINITY, f64::INFINITY),
    ///     w: ndarray::Array1::zeros(2),
    ///     b: 0.0,
    ///     reason: "the time limit was reached".into(),
    ///     stats: SolveStats::default(),
    /// };
    /// assert!(stopped.stopped_before_separator());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn stopped_before_separator(&self) -> bool {
        matches!(self, MarginResult::Inaccurate { w, .. } if w.iter().all(|&v| v == 0.0))
    }

    /// What the result proves: `Some(true)` when the data are separable ([`MarginResult::is_separable`]),
    /// `Some(false)` with a certificate that they are not, and `None` for an inaccurate result whose
    /// separator does not separate: the solve stopped (at a limit) before it could tell, which is not
    /// evidence either way.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{max_margin, Bias, MaxMarginParams};
    /// let data = novikoff::Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// assert_eq!(max_margin(&data, Bias::Free)?.separability(), Some(true));
    /// let xor = novikoff::Dataset::new(
    ///     array![[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]],
    ///     array![1.0, -1.0, -1.0, 1.0],
    /// )?;
    /// assert_eq!(max_margin(&xor, Bias::Free)?.separability(), Some(false));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn separability(&self) -> Option<bool> {
        match self {
            MarginResult::NotSeparable { .. } => Some(false),
            result if result.is_separable() => Some(true),
            _ => None,
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

    /// The solver's effort: passes over the data, rounds and the working set's size.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{max_margin, Bias};
    /// let xor = novikoff::Dataset::new(
    ///     array![[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]],
    ///     array![1.0, -1.0, -1.0, 1.0],
    /// )?;
    /// assert_eq!(max_margin(&xor, Bias::Free)?.stats().working_set, 4);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn stats(&self) -> SolveStats {
        match self {
            MarginResult::Separable { stats, .. }
            | MarginResult::NotSeparable { stats, .. }
            | MarginResult::Inaccurate { stats, .. } => *stats,
        }
    }

    /// The solve's counts, for a second attempt to add the first one's to.
    pub(super) fn stats_mut(&mut self) -> &mut SolveStats {
        match self {
            MarginResult::Separable { stats, .. }
            | MarginResult::NotSeparable { stats, .. }
            | MarginResult::Inaccurate { stats, .. } => stats,
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
            MarginResult::NotSeparable { certificate, .. } => Some(certificate),
            _ => None,
        }
    }
}
