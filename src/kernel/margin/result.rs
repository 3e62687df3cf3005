//! The outcome of a kernel maximum-margin solve, shaped like [`MarginResult`](crate::margin::MarginResult).

use ndarray::Array1;
use serde::Serialize;

use crate::margin::Bias;

/// A separator in the feature space, `f(x) = Σⱼ coefⱼ·K̂(xⱼ, x) + b`, scaled so that `‖Σⱼ coefⱼφ̂(xⱼ)‖ = 1`
/// (to rounding): the dual form of a unit normal `u` and its offset.
///
/// ```
/// use ndarray::array;
/// use novikoff::{kernel::{max_margin, Kernel}, margin::Bias, Dataset};
/// let data = Dataset::new(array![[0.0, 0.0], [3.0, 4.0]], array![-1.0, 1.0])?;
/// let result = max_margin(&data, &Kernel::linear(), Bias::Free)?;
/// let separator = result.separator().unwrap();
/// // u = (0.6, 0.8) = (3, 4)/5 from the two points: coefficients ±1/5.
/// assert!((separator.coef[1] - 0.2).abs() < 1e-12 && (separator.coef[0] + 0.2).abs() < 1e-12);
/// assert!((separator.b + 2.5).abs() < 1e-12);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DualSeparator {
    /// One coefficient per training row (zero off the support).
    pub coef: Array1<f64>,
    /// The offset (0 through the origin).
    pub b: f64,
    /// `u·φ̂(xᵢ) = Σⱼ coefⱼK̂(xⱼ, xᵢ)` for every row (the midpoints of their certified intervals).
    pub scores: Vec<f64>,
    /// A rigorous lower bound on each row's margin `yᵢ(u·φ̂(xᵢ) + b)/‖u‖`.
    pub margins_lower: Vec<f64>,
}

/// A proof, in the feature space, that no separator exists: weights on the rows whose combination is
/// (within `residual`) the origin (through the origin, Gordan's alternative) or a common point of the
/// two classes' hulls (free bias). `residual` is a rigorous upper bound on `‖Σᵢ λᵢyᵢφ̂(xᵢ)‖`, computed
/// from the Gram matrix alone; [`KernelCertificate::verify`] recomputes it.
///
/// ```
/// use ndarray::array;
/// use novikoff::{kernel::{max_margin, Gamma, KernelParams}, margin::Bias, Dataset};
/// // The same point with both labels: no kernel separates it.
/// let data = Dataset::new(array![[1.0, 2.0], [1.0, 2.0], [0.0, 0.0]], array![1.0, -1.0, 1.0])?;
/// let rbf = KernelParams::rbf().gamma(Gamma::Value(1.0)).check()?;
/// let result = max_margin(&data, &rbf, Bias::Free)?;
/// let certificate = result.certificate().unwrap();
/// assert!(certificate.verify(&data, &rbf, 1e-6)?);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelCertificate {
    /// Which separators it excludes.
    pub bias: Bias,
    /// The augmentation constant `c` of the kernel `K + c²` it speaks of.
    pub augment: f64,
    /// One non-negative weight per row; each group (one class with a free bias, all rows through the
    /// origin) sums to 1.
    pub weights: Array1<f64>,
    /// An upper bound on the combination's length in the feature space.
    pub residual: f64,
}

/// Where a kernel solve spent its effort.
///
/// ```
/// assert_eq!(novikoff::kernel::KernelSolveStats::default().iterations, 0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct KernelSolveStats {
    /// Pair updates of the sequential minimal optimisation.
    pub iterations: u64,
    /// Rows with positive weight at the end.
    pub support: usize,
    /// Gram rows computed (cache misses).
    pub rows_computed: u64,
    /// True when the whole Gram matrix was held in memory.
    pub full_gram: bool,
    /// Seconds in the solver.
    pub seconds: f64,
    /// Seconds of those in the rigorous certification.
    pub certify_seconds: f64,
}

/// The outcome of [`max_margin`](super::max_margin): a certified bracket, a proof of the opposite, or
/// an honest "not accurate enough".
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum KernelMarginResult {
    /// Separable in the feature space, `γ_K*` known to the requested relative accuracy.
    Separable {
        /// The best estimate of `γ_K*`, inside the bracket.
        gamma: f64,
        /// `(lower, upper)` with `lower ≤ γ_K* ≤ upper`, both rigorous for the stored data and the
        /// kernel's exact values: `lower` the margin the separator achieves, `upper` the length of a
        /// point of the hulls.
        bracket: (f64, f64),
        /// The separator.
        separator: DualSeparator,
        /// Rows with positive dual weight, ascending.
        support: Vec<usize>,
        /// The solver's effort.
        stats: KernelSolveStats,
    },
    /// Not separable in the feature space; the certificate proves it.
    NotSeparable {
        /// The certificate.
        certificate: KernelCertificate,
        /// The solver's effort.
        stats: KernelSolveStats,
    },
    /// The solver stopped short of the requested accuracy; the bracket is still rigorous (its lower end
    /// may be negative).
    Inaccurate {
        /// The midpoint of the bracket.
        gamma: f64,
        /// `(lower, upper)`, rigorous.
        bracket: (f64, f64),
        /// The best separator found.
        separator: DualSeparator,
        /// Why.
        reason: String,
        /// The solver's effort.
        stats: KernelSolveStats,
    },
}

impl KernelMarginResult {
    /// True when a separator is proved (`Separable`, or `Inaccurate` with `lower > 0`).
    pub fn is_separable(&self) -> bool {
        match self {
            KernelMarginResult::Separable { .. } => true,
            KernelMarginResult::Inaccurate { bracket, .. } => bracket.0 > 0.0,
            KernelMarginResult::NotSeparable { .. } => false,
        }
    }

    /// What the result proves, as [`MarginResult::separability`](crate::margin::MarginResult::separability):
    /// `Some(true)` separable, `Some(false)` with a certificate, `None` when an inaccurate solve could
    /// not tell.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::{Gamma, KernelMarginParams, KernelParams}, margin::Bias, Dataset};
    /// // XOR in one dimension: no line, but an RBF kernel separates it.
    /// let data = Dataset::new(array![[0.0], [1.0], [2.0]], array![1.0, -1.0, 1.0])?;
    /// let rbf = KernelParams::rbf().gamma(Gamma::Value(1.0)).check()?;
    /// let result = KernelMarginParams::new(Bias::Free).check()?.solve(&data, &rbf)?;
    /// assert_eq!(result.separability(), Some(true));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn separability(&self) -> Option<bool> {
        match self {
            KernelMarginResult::NotSeparable { .. } => Some(false),
            result if result.is_separable() => Some(true),
            _ => None,
        }
    }

    /// The bracket, if any.
    pub fn bracket(&self) -> Option<(f64, f64)> {
        match self {
            KernelMarginResult::Separable { bracket, .. }
            | KernelMarginResult::Inaccurate { bracket, .. } => Some(*bracket),
            KernelMarginResult::NotSeparable { .. } => None,
        }
    }

    /// The best estimate of `γ_K*`, if any.
    pub fn gamma(&self) -> Option<f64> {
        match self {
            KernelMarginResult::Separable { gamma, .. }
            | KernelMarginResult::Inaccurate { gamma, .. } => Some(*gamma),
            KernelMarginResult::NotSeparable { .. } => None,
        }
    }

    /// The separator, when one is proved to separate.
    pub fn separator(&self) -> Option<&DualSeparator> {
        match self {
            KernelMarginResult::Separable { separator, .. } => Some(separator),
            KernelMarginResult::Inaccurate {
                separator, bracket, ..
            } if bracket.0 > 0.0 => Some(separator),
            _ => None,
        }
    }

    /// The certificate of non-separability, if that is the result.
    pub fn certificate(&self) -> Option<&KernelCertificate> {
        match self {
            KernelMarginResult::NotSeparable { certificate, .. } => Some(certificate),
            _ => None,
        }
    }

    /// `separable`, `not_separable` or `inaccurate`.
    pub fn status(&self) -> &'static str {
        match self {
            KernelMarginResult::Separable { .. } => "separable",
            KernelMarginResult::NotSeparable { .. } => "not_separable",
            KernelMarginResult::Inaccurate { .. } => "inaccurate",
        }
    }

    /// The solver's effort.
    pub fn stats(&self) -> KernelSolveStats {
        match self {
            KernelMarginResult::Separable { stats, .. }
            | KernelMarginResult::NotSeparable { stats, .. }
            | KernelMarginResult::Inaccurate { stats, .. } => *stats,
        }
    }
}
