//! The proof's inequalities after every update, in the feature space, at O(1) per update.

use super::run::{KernelSink, KernelUpdateEvent};
use crate::bounds::{Inequality, InvariantReport, InvariantStatus, InvariantStep, Violation};
use crate::error::{Error, Result};

/// The unit roundoff.
const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;
/// Safety factor on the a-priori rounding bounds (as [`InvariantCheck`](crate::bounds::InvariantCheck)).
const SAFETY: f64 = 8.0;

/// A [`KernelSink`] that checks the proof's two inequalities (and the cosine) after every update of a
/// kernel run, in the feature space of `K̂ = K + c²`:
///
/// * `u·ŵ_k ≥ k·η·γ`, where `u = Σⱼ cⱼφ̂(xⱼ)` is a unit separator of margin `γ` and
///   `u·ŵ_k = Σₜ η·yₜ·(u·φ̂(xₜ))` is accumulated from the precomputed `u·φ̂(xᵢ) = Σⱼ cⱼK̂(xⱼ, xᵢ)`;
/// * `‖ŵ_k‖² ≤ k·η²·R̂²`, with `‖ŵ_k‖² = η²·αᵀ(YK̂Y)α` as the run maintains it incrementally
///   ([`KernelUpdateEvent::norm_sq`]);
/// * `cos(u, ŵ_k) ≥ √k·γ/R̂`.
///
/// A violation is reported beyond an a-priori rounding allowance, with unit roundoff ε and safety
/// factor 8, `S` the support of `u`:
/// `τ_dot(k) = 8ε·η·R̂·k·(√k + S + 3)` (the k terms of the sum, each evaluated over S kernel values), and
/// `τ_norm(k) = 8ε·η²·R̂²·(k³ + k²)`: the dual run's activations are sums of up to k kernel terms, each
/// rounded, and `‖ŵ‖²` accumulates k of them, so its a-priori error grows like `k³ε`, where the primal
/// check's grows like `k²ε`. Relative to `k·η²·R̂²` it is `8ε·k²`: 10⁻⁷ at 10⁴ updates. A genuine
/// violation is larger by orders of magnitude.
///
/// ```
/// use ndarray::array;
/// use novikoff::{kernel::{max_margin, Gamma, KernelInvariantCheck, KernelParams, KernelPerceptronParams},
///                margin::Bias, Dataset};
/// let xor = Dataset::new(array![[0., 0.], [0., 1.], [1., 0.], [1., 1.]], array![1., -1., -1., 1.])?;
/// let poly = KernelParams::polynomial(2).coef0(1.0).gamma(Gamma::Value(1.0)).check()?;
/// let result = max_margin(&xor, &poly, Bias::ThroughOrigin)?;
/// let (gamma, _) = result.bracket().unwrap();
/// let separator = result.separator().unwrap();
/// let mut check = KernelInvariantCheck::new(separator.scores.clone(), gamma, 9.0, 4)?;
/// KernelPerceptronParams::new(poly).check()?.fit_with(&xor, &mut check)?;
/// assert_eq!(check.report().violations, 0);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct KernelInvariantCheck {
    scores: Vec<f64>,
    gamma: f64,
    radius_eff_sq: f64,
    support: usize,
    keep_steps: bool,
    dot: f64,
    updates: u64,
    min_dot_slack: f64,
    min_norm_slack: f64,
    min_cos_slack: f64,
    violations: u64,
    first_violation: Option<Violation>,
    steps: Vec<InvariantStep>,
    not_applicable: Option<String>,
}

impl KernelInvariantCheck {
    /// A check for a run whose vectors `φ̂(xᵢ)` a unit separator `u` scores `scores[i] = u·φ̂(xᵢ)`, with
    /// margin `gamma > 0`; `radius_eff_sq = maxᵢ K̂(xᵢ, xᵢ)`; `support` is the number of terms of `u`.
    ///
    /// # Errors
    /// [`Error::Parameter`] for a margin or radius that is not finite and positive.
    pub fn new(scores: Vec<f64>, gamma: f64, radius_eff_sq: f64, support: usize) -> Result<Self> {
        if !(gamma.is_finite() && gamma > 0.0) {
            return Err(Error::parameter(
                "gamma",
                format!("the margin of u must be finite and positive, got {gamma}"),
            ));
        }
        if !(radius_eff_sq.is_finite() && radius_eff_sq > 0.0) {
            return Err(Error::parameter(
                "radius_eff_sq",
                format!("must be finite and positive, got {radius_eff_sq}"),
            ));
        }
        Ok(Self {
            scores,
            gamma,
            radius_eff_sq,
            support,
            not_applicable: None,
            ..Self::not_applicable("")
        })
    }

    /// A check that records nothing and reports why the lemmas do not apply.
    pub fn not_applicable(reason: impl Into<String>) -> Self {
        Self {
            scores: Vec::new(),
            gamma: 0.0,
            radius_eff_sq: 0.0,
            support: 0,
            keep_steps: false,
            dot: 0.0,
            updates: 0,
            min_dot_slack: f64::INFINITY,
            min_norm_slack: f64::INFINITY,
            min_cos_slack: f64::INFINITY,
            violations: 0,
            first_violation: None,
            steps: Vec::new(),
            not_applicable: Some(reason.into()),
        }
    }

    /// Also keep every update's quantities.
    #[must_use]
    pub fn record_steps(mut self, keep: bool) -> Self {
        self.keep_steps = keep;
        self
    }

    /// The report so far.
    pub fn report(&self) -> InvariantReport {
        if let Some(reason) = &self.not_applicable {
            return InvariantReport::not_applicable(reason.clone());
        }
        let finite = |v: f64| (self.updates > 0).then_some(v);
        InvariantReport {
            status: InvariantStatus::Checked,
            reason: None,
            bias_constant: None,
            gamma: Some(self.gamma),
            radius_eff: Some(self.radius_eff_sq.sqrt()),
            updates: self.updates,
            min_dot_slack: finite(self.min_dot_slack),
            min_norm_slack: finite(self.min_norm_slack),
            min_cos_slack: finite(self.min_cos_slack),
            violations: self.violations,
            first_violation: self.first_violation,
            steps: self.steps.clone(),
        }
    }

    fn violate(&mut self, violation: Violation) {
        self.violations += 1;
        if self.first_violation.is_none() {
            self.first_violation = Some(violation);
        }
    }
}

impl KernelSink for KernelInvariantCheck {
    // `!(a >= b)` on purpose: a NaN side is a violation, never a pass.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    fn record(&mut self, event: &KernelUpdateEvent) -> Result<()> {
        if self.not_applicable.is_some() {
            return Ok(());
        }
        if event.row >= self.scores.len() || event.update != self.updates + 1 {
            self.not_applicable = Some(format!(
                "the check was built for {} rows and must see the run from its first update; it saw \
                 update {} on row {}",
                self.scores.len(),
                event.update,
                event.row
            ));
            return Ok(());
        }
        let eta = event.step;
        self.dot += eta * event.label * self.scores[event.row];
        let k = event.update as f64;
        let norm_sq = event.norm_sq;
        let radius_eff = self.radius_eff_sq.sqrt();
        let dot_bound = k * eta * self.gamma;
        let norm_sq_bound = k * eta * eta * self.radius_eff_sq;
        let tol_dot =
            SAFETY * UNIT_ROUNDOFF * eta * radius_eff * k * (k.sqrt() + self.support as f64 + 3.0);
        let tol_norm =
            SAFETY * UNIT_ROUNDOFF * eta * eta * self.radius_eff_sq * (k * k * k + k * k);
        let norm = norm_sq.max(0.0).sqrt();
        let cos = if norm > 0.0 { self.dot / norm } else { 0.0 };
        let cos_bound = k.sqrt() * self.gamma / radius_eff;
        let tol_cos =
            tol_dot / (k.sqrt() * eta * radius_eff) + cos_bound * tol_norm / (2.0 * norm_sq_bound);
        self.updates = event.update;
        self.min_dot_slack = self.min_dot_slack.min(self.dot / dot_bound - 1.0);
        self.min_norm_slack = self.min_norm_slack.min(1.0 - norm_sq / norm_sq_bound);
        self.min_cos_slack = self.min_cos_slack.min(cos - cos_bound);
        let update = event.update;
        if !(self.dot >= dot_bound - tol_dot) {
            self.violate(Violation {
                update,
                inequality: Inequality::Dot,
                lhs: self.dot,
                rhs: dot_bound,
                tolerance: tol_dot,
            });
        }
        if !(norm_sq <= norm_sq_bound + tol_norm) {
            self.violate(Violation {
                update,
                inequality: Inequality::Norm,
                lhs: norm_sq,
                rhs: norm_sq_bound,
                tolerance: tol_norm,
            });
        }
        if !(cos >= cos_bound - tol_cos) {
            self.violate(Violation {
                update,
                inequality: Inequality::Cos,
                lhs: cos,
                rhs: cos_bound,
                tolerance: tol_cos,
            });
        }
        if self.keep_steps {
            self.steps.push(InvariantStep {
                update,
                dot: self.dot,
                dot_bound,
                norm_sq,
                norm_sq_bound,
                cos,
                cos_bound,
            });
        }
        Ok(())
    }
}
