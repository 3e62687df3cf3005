//! What the invariant check reports: each inequality, each update's quantities, the first violation.

use serde::{Deserialize, Serialize};

/// One of the proof's inequalities.
///
/// ```
/// use novikoff::bounds::Inequality;
/// assert_eq!(Inequality::Dot.statement(), "u·ŵ_k ≥ k·η·γ");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Inequality {
    /// `u·ŵ_k ≥ k·η·γ`.
    Dot,
    /// `‖ŵ_k‖² ≤ k·η²·R̂²`.
    Norm,
    /// `cos(u, ŵ_k) ≥ √k·γ/R̂`.
    Cos,
}

impl Inequality {
    /// The inequality in symbols.
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::Inequality::Cos.statement(), "cos(u, ŵ_k) ≥ √k·γ/R̂");
    /// ```
    pub fn statement(self) -> &'static str {
        match self {
            Inequality::Dot => "u·ŵ_k ≥ k·η·γ",
            Inequality::Norm => "‖ŵ_k‖² ≤ k·η²·R̂²",
            Inequality::Cos => "cos(u, ŵ_k) ≥ √k·γ/R̂",
        }
    }
}

/// The three quantities at one update, with their bounds.
///
/// ```
/// use novikoff::bounds::InvariantStep;
/// let step = InvariantStep { update: 1, dot: 1.0, dot_bound: 1.0, norm_sq: 5.0, norm_sq_bound: 5.0,
///                            cos: 0.45, cos_bound: 0.44 };
/// assert!(step.dot >= step.dot_bound);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct InvariantStep {
    /// The update number k.
    pub update: u64,
    /// `u·ŵ_k`.
    pub dot: f64,
    /// `k·η·γ`.
    pub dot_bound: f64,
    /// `‖ŵ_k‖²`.
    pub norm_sq: f64,
    /// `k·η²·R̂²`.
    pub norm_sq_bound: f64,
    /// `cos(u, ŵ_k)` (0 when `ŵ_k = 0`).
    pub cos: f64,
    /// `√k·γ/R̂`.
    pub cos_bound: f64,
}

/// The first update at which an inequality failed beyond the rounding tolerance.
///
/// ```
/// use novikoff::bounds::{Inequality, Violation};
/// let v = Violation { update: 4, inequality: Inequality::Norm, lhs: 21.0, rhs: 20.0, tolerance: 1e-12 };
/// assert!(v.lhs > v.rhs + v.tolerance);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    /// The update number k.
    pub update: u64,
    /// Which inequality.
    pub inequality: Inequality,
    /// Its left-hand side (`u·ŵ_k`, `‖ŵ_k‖²` or the cosine).
    pub lhs: f64,
    /// Its right-hand side (`k·η·γ`, `k·η²·R̂²` or `√k·γ/R̂`).
    pub rhs: f64,
    /// The rounding tolerance that was exceeded.
    pub tolerance: f64,
}

/// Whether the invariants were checked.
///
/// ```
/// use novikoff::bounds::InvariantStatus;
/// assert_ne!(InvariantStatus::Checked, InvariantStatus::NotApplicable);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum InvariantStatus {
    /// Every update was checked.
    Checked,
    /// The lemmas do not apply to this run (see the reason).
    NotApplicable,
    /// The check was switched off.
    Off,
}

/// The outcome of an [`InvariantCheck`](super::InvariantCheck) over a run.
///
/// Slacks are scale-free and non-negative when the inequality holds:
/// `dot_slack = u·ŵ_k/(k·η·γ) − 1`, `norm_slack = 1 − ‖ŵ_k‖²/(k·η²·R̂²)` and
/// `cos_slack = cos(u, ŵ_k) − √k·γ/R̂`. The report keeps the minimum of each over the run.
///
/// ```
/// use novikoff::bounds::{InvariantReport, InvariantStatus};
/// let report = InvariantReport::not_applicable("the data are not separable");
/// assert_eq!(report.status, InvariantStatus::NotApplicable);
/// assert_eq!(report.holds(), None);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvariantReport {
    /// Checked, or not applicable.
    pub status: InvariantStatus,
    /// Why the check does not apply, when it does not.
    pub reason: Option<String>,
    /// The augmentation constant `c` of the vectors `(x, c)` the check was built for.
    pub bias_constant: Option<f64>,
    /// The margin γ of `u` on the vectors `(x, c)`.
    pub gamma: Option<f64>,
    /// `R̂ = max ‖(x, c)‖`.
    pub radius_eff: Option<f64>,
    /// The number of updates checked.
    pub updates: u64,
    /// The minimum of `u·ŵ_k/(k·η·γ) − 1` over the run.
    pub min_dot_slack: Option<f64>,
    /// The minimum of `1 − ‖ŵ_k‖²/(k·η²·R̂²)` over the run.
    pub min_norm_slack: Option<f64>,
    /// The minimum of `cos(u, ŵ_k) − √k·γ/R̂` over the run.
    pub min_cos_slack: Option<f64>,
    /// How many (update, inequality) pairs failed beyond the rounding tolerance. There must be none.
    pub violations: u64,
    /// The first of them.
    pub first_violation: Option<Violation>,
    /// Every update's quantities, when [`InvariantCheck::record_steps`](super::InvariantCheck::record_steps) asked for them.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub steps: Vec<InvariantStep>,
}

impl InvariantReport {
    /// A report saying that the lemmas do not apply, and why.
    ///
    /// ```
    /// let r = novikoff::bounds::InvariantReport::not_applicable("non-zero start");
    /// assert_eq!(r.reason.as_deref(), Some("non-zero start"));
    /// ```
    pub fn not_applicable(reason: impl Into<String>) -> Self {
        Self {
            status: InvariantStatus::NotApplicable,
            reason: Some(reason.into()),
            bias_constant: None,
            gamma: None,
            radius_eff: None,
            updates: 0,
            min_dot_slack: None,
            min_norm_slack: None,
            min_cos_slack: None,
            violations: 0,
            first_violation: None,
            steps: Vec::new(),
        }
    }

    /// `Some(true)` when checked with no violation, `Some(false)` when a violation was found, `None` when
    /// the check did not apply or was switched off.
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::InvariantReport::not_applicable("x").holds(), None);
    /// ```
    pub fn holds(&self) -> Option<bool> {
        match self.status {
            InvariantStatus::Checked => Some(self.violations == 0),
            InvariantStatus::NotApplicable | InvariantStatus::Off => None,
        }
    }

    /// A report saying that the check was switched off.
    ///
    /// ```
    /// use novikoff::bounds::{InvariantReport, InvariantStatus};
    /// assert_eq!(InvariantReport::off().status, InvariantStatus::Off);
    /// ```
    pub fn off() -> Self {
        Self {
            status: InvariantStatus::Off,
            reason: Some("the invariant check was switched off".into()),
            ..Self::not_applicable("")
        }
    }
}
