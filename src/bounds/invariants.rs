//! The proof's two inequalities, checked on the actual run after every update.
//!
//! See [`InvariantCheck`] for the inequalities and the rounding tolerances.

use ndarray::{Array1, ArrayView1};

pub use super::invariant_report::{
    Inequality, InvariantReport, InvariantStatus, InvariantStep, Violation,
};
use crate::error::{Error, Result};
use crate::margin::{binary_exponent, times_power_of_two};
use crate::perceptron::{TraceSink, UpdateEvent};
use crate::simd::{self, Summation};

/// The unit roundoff of `f64`.
const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;
/// Safety factor on the a-priori rounding bounds.
const SAFETY: f64 = 8.0;

/// A [`TraceSink`] that checks the proof's inequalities after every update.
///
/// Every bias rule is the perceptron without bias on `x̂ = (x, c)` (c = 0 for no bias), with augmented
/// weights `ŵ = (w, v)` and `b = c·v`. Let `u` be a unit vector that separates the `x̂` through the origin
/// with margin `γ = minᵢ yᵢ·u·x̂ᵢ > 0`, and `R̂² = maxᵢ ‖x̂ᵢ‖² = R² + c²`. If the run starts from `ŵ₀ = 0`,
/// then after the k-th update (seed 004, Parts 1 and 2; seed 002, Lemmas 2 and 3; seed 003, eqs. 1 and 5):
///
/// * **dot product grows linearly**: `u·ŵ_k ≥ k·η·γ` (each update adds `η·y·u·x̂ ≥ η·γ`);
/// * **norm grows like √k**: `‖ŵ_k‖² ≤ k·η²·R̂²` (each update adds `η²‖x̂‖² + 2η·y·ŵ·x̂ ≤ η²R̂²`, because
///   the update happens on a mistake, `y·ŵ·x̂ ≤ 0`);
/// * hence `cos(u, ŵ_k) = u·ŵ_k/‖ŵ_k‖ ≥ √k·γ/R̂`, and since a cosine is at most 1, `k ≤ (R̂/γ)²`.
///
/// For `c = R` the second inequality is seed 002's `‖ŵ_k‖² ≤ 2kη²R²`. The perceptron with margin
/// (update when `y·ŵ·x̂ ≤ β`, [`InvariantCheck::with_threshold`]) adds at most `2ηβ` more per update,
/// so its second inequality reads `‖ŵ_k‖² ≤ k·(η²R̂² + 2ηβ)` and its cosine bound
/// `k·η·γ/√(k·(η²R̂² + 2ηβ))`: together, Collobert and Bengio's `k ≤ (R̂² + 2β/η)/γ²`. [`InvariantCheck`] is a
/// [`TraceSink`]: it reads `u·ŵ_k` and `‖ŵ_k‖²` from the event's weights in O(d) per update and never
/// touches the data. A non-zero starting point voids both lemmas, and the check then says it does not apply.
///
/// # Rounding
///
/// The engine computes in floating point, so its iterates differ from the exact ones by rounding. A
/// violation is reported only beyond an a-priori bound on that rounding, in the standard model with unit
/// roundoff ε = 2⁻⁵³ and a safety factor 8 (D = the length of `u`):
///
/// * dot: `τ_dot(k) = 8ε·η·R̂·(k^{3/2} + (D + 3)·k)`: rounding of the accumulated sum of k updates
///   (`‖err‖ ≤ ε·η·R̂·(k^{3/2} + 2k)`), of the dot product, and of `γ` itself;
/// * norm: `τ_norm(k) = 8ε·η²·R̂²·(k² + (D + 3)·k^{3/2})`: the same error through `‖ŵ‖²`, plus mistake tests
///   decided on a rounded activation;
/// * cosine: `τ_dot/(√k·η·R̂) + (√k·γ/R̂)·τ_norm/(2k·η²·R̂²)`, from the two above.
///
/// Relative to the right-hand sides these are about `8ε·(R̂/γ)·(√k + D)` and `8ε·(k + D·√k)`: about 10⁻⁹
/// for the longest run the theorem allows at `R̂/γ = 10³` (k = 10⁶) and small D. A real violation (a bug in the engine or in γ) is
/// larger by many orders of magnitude.
///
/// # Example
///
/// ```
/// use ndarray::array;
/// use novikoff::bounds::InvariantCheck;
/// use novikoff::{perceptron::PerceptronParams, Dataset};
/// // Seed 004: u = (1, 0) separates through the origin with γ = 1, and R² = 5.
/// let x = array![[-1.0, 2.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [-1.0, -2.0], [1.0, -1.0]];
/// let data = Dataset::new(x, array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0])?;
/// let mut check = InvariantCheck::new(array![1.0, 0.0].view(), 0.0, 1.0, 5.0)?.record_steps(true);
/// PerceptronParams::new().check()?.fit_with_trace(&data, &mut check)?;
/// let report = check.report();
/// assert_eq!((report.updates, report.violations), (3, 0));
/// assert_eq!(report.steps[2].dot, 3.0);      // u·w₃ = 3 ≥ 3·γ
/// assert_eq!(report.steps[2].norm_sq, 10.0); // ‖w₃‖² = 10 ≤ 3·R²
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct InvariantCheck {
    u: Array1<f64>,
    bias_constant: f64,
    gamma: f64,
    radius_eff_sq: f64,
    /// The update threshold β of the perceptron with margin (0 for the plain perceptron).
    threshold: f64,
    keep_steps: bool,
    not_applicable: Option<String>,
    updates: u64,
    min_dot_slack: f64,
    min_norm_slack: f64,
    min_cos_slack: f64,
    violations: u64,
    first_violation: Option<Violation>,
    steps: Vec<InvariantStep>,
    /// `ŵ_k / 2^e` (see `record`), reused from update to update.
    scaled: Vec<f64>,
}

impl InvariantCheck {
    /// A check for a run on the vectors `(x, c)`: `u` separates them through the origin with margin
    /// `gamma > 0`, and `radius_eff_sq = max ‖(x, c)‖²`. `u` has `d` entries when `c = 0` and `d + 1`
    /// (the last for the constant coordinate) otherwise; it is scaled to unit length here.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::bounds::InvariantCheck;
    /// assert!(InvariantCheck::new(array![3.0, 4.0].view(), 0.0, 0.5, 2.0).is_ok());
    /// assert!(InvariantCheck::new(array![0.0, 0.0].view(), 0.0, 0.5, 2.0).is_err());
    /// assert!(InvariantCheck::new(array![1.0, 0.0].view(), 0.0, -0.1, 2.0).is_err());
    /// ```
    pub fn new(
        u: ArrayView1<'_, f64>,
        bias_constant: f64,
        gamma: f64,
        radius_eff_sq: f64,
    ) -> Result<Self> {
        let norm = u.iter().fold(0.0, |acc, v| acc + v * v).sqrt();
        if !(norm.is_finite() && norm > 0.0) {
            return Err(Error::parameter(
                "u",
                "the separator must be a finite non-zero vector",
            ));
        }
        if !(gamma.is_finite() && gamma > 0.0) {
            return Err(Error::parameter(
                "gamma",
                format!("the margin of u must be finite and positive, got {gamma}"),
            ));
        }
        if !(radius_eff_sq.is_finite() && radius_eff_sq > 0.0) {
            return Err(Error::parameter(
                "radius_eff_sq",
                format!("max ‖(x, c)‖² must be finite and positive, got {radius_eff_sq}"),
            ));
        }
        if !bias_constant.is_finite() {
            return Err(Error::parameter("bias_constant", "must be finite"));
        }
        let mut check = Self::not_applicable("");
        check.not_applicable = None;
        check.u = u.mapv(|v| v / norm);
        check.bias_constant = bias_constant;
        check.gamma = gamma;
        check.radius_eff_sq = radius_eff_sq;
        Ok(check)
    }

    /// A sink that records nothing and reports that the lemmas do not apply, and why (data not
    /// separable, a non-zero starting point, ...).
    ///
    /// ```
    /// let check = novikoff::bounds::InvariantCheck::not_applicable("the run starts from w ≠ 0");
    /// assert_eq!(check.report().holds(), None);
    /// ```
    pub fn not_applicable(reason: impl Into<String>) -> Self {
        Self {
            u: Array1::zeros(0),
            bias_constant: 0.0,
            gamma: 0.0,
            radius_eff_sq: 0.0,
            threshold: 0.0,
            keep_steps: false,
            scaled: Vec::new(),
            not_applicable: Some(reason.into()),
            updates: 0,
            min_dot_slack: f64::INFINITY,
            min_norm_slack: f64::INFINITY,
            min_cos_slack: f64::INFINITY,
            violations: 0,
            first_violation: None,
            steps: Vec::new(),
        }
    }

    /// Check the run of the perceptron with margin β ≥ 0, which updates whenever `y·ŵ·x̂ ≤ β`: each update
    /// may add `2ηβ` to `‖ŵ‖²`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::bounds::InvariantCheck;
    /// use novikoff::{perceptron::{PerceptronParams, Variant}, Dataset};
    /// let x = array![[-1.0, 2.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [-1.0, -2.0], [1.0, -1.0]];
    /// let data = Dataset::new(x, array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0])?;
    /// let mut check = InvariantCheck::new(array![1.0, 0.0].view(), 0.0, 1.0, 5.0)?.with_threshold(2.0);
    /// PerceptronParams::new().variant(Variant::Margin { beta: 2.0 }).check()?.fit_with_trace(&data, &mut check)?;
    /// assert_eq!(check.report().violations, 0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    #[must_use]
    pub fn with_threshold(mut self, beta: f64) -> Self {
        self.threshold = beta.max(0.0);
        self
    }

    /// Also keep every update's quantities (memory O(updates); for display and tests).
    ///
    /// ```
    /// # use ndarray::array;
    /// let check = novikoff::bounds::InvariantCheck::new(array![1.0].view(), 0.0, 1.0, 1.0)?.record_steps(true);
    /// assert!(check.report().steps.is_empty());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    #[must_use]
    pub fn record_steps(mut self, keep: bool) -> Self {
        self.keep_steps = keep;
        self
    }

    /// The report so far.
    ///
    /// ```
    /// # use ndarray::array;
    /// let check = novikoff::bounds::InvariantCheck::new(array![1.0].view(), 0.0, 1.0, 1.0)?;
    /// assert_eq!(check.report().updates, 0);
    /// assert_eq!(check.report().holds(), Some(true));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn report(&self) -> InvariantReport {
        if let Some(reason) = &self.not_applicable {
            return InvariantReport::not_applicable(reason.clone());
        }
        let finite = |v: f64| (self.updates > 0).then_some(v);
        InvariantReport {
            status: InvariantStatus::Checked,
            reason: None,
            bias_constant: Some(self.bias_constant),
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

impl TraceSink for InvariantCheck {
    fn record(&mut self, event: &UpdateEvent<'_>) -> Result<()> {
        if self.not_applicable.is_some() {
            return Ok(());
        }
        let augmented = event.bias_constant != 0.0;
        let dim = event.w.len() + usize::from(augmented);
        if event.bias_constant != self.bias_constant || dim != self.u.len() {
            // Built for other vectors: checking would compare unrelated numbers.
            self.not_applicable = Some(format!(
                "the check was built for (x, c) with c = {} and {} coordinates, the run has c = {} and {}",
                self.bias_constant,
                self.u.len(),
                event.bias_constant,
                dim
            ));
            return Ok(());
        }
        if event.update != self.updates + 1 {
            self.not_applicable = Some(format!(
                "the check saw update {} after update {}: it must observe the run from its first update",
                event.update, self.updates
            ));
            return Ok(());
        }
        if event.update == 1 && !starts_from_zero(event) {
            self.not_applicable = Some(
                "the run did not start from w = 0, b = 0 (ŵ₁ ≠ η·y·x̂₁), so the lemmas do not apply"
                    .into(),
            );
            return Ok(());
        }
        let u = self.u.as_slice().expect("u is contiguous");
        let d = event.w.len();
        // The inequalities are homogeneous in η and in the length scale of the data, so they are checked
        // on η/2^e ∈ [1, 2) and R̂/2^f ∈ [1, 2) (2^e ≤ η, 2^f ≤ R̂), with ŵ/2^(e+f) and γ/2^f. Scaling by
        // a power of two is exact, so every value and rounding bound below is the unscaled one times a
        // power of two, and ‖ŵ‖² ≈ k·η²·R̂² can neither overflow for huge η or data (R̂ near 10¹⁵⁴, where
        // k·R̂² overflows) nor underflow for tiny ones.
        let radius_shift = -binary_exponent(self.radius_eff_sq.sqrt());
        let shift = -binary_exponent(event.eta) + radius_shift;
        self.scaled.clear();
        self.scaled
            .extend(event.w.iter().map(|&w| times_power_of_two(w, shift)));
        // The constant coordinate's weight v, from b = c·v.
        let v = if augmented {
            times_power_of_two(event.bias_weight, shift)
        } else {
            0.0
        };
        let mut dot = simd::dot(&u[..d], &self.scaled, Summation::Fast);
        let mut norm_sq = simd::dot(&self.scaled, &self.scaled, Summation::Fast);
        if augmented {
            dot += u[d] * v;
            norm_sq += v * v;
        }

        let k = event.update as f64;
        let eta = times_power_of_two(event.eta, shift - radius_shift);
        let radius_eff = times_power_of_two(self.radius_eff_sq.sqrt(), radius_shift);
        let radius_eff_sq = radius_eff * radius_eff;
        let gamma = times_power_of_two(self.gamma, radius_shift);
        let dim = self.u.len() as f64;
        // β scales like an activation: by the shift of ŵ and of the data.
        let beta = times_power_of_two(self.threshold, shift + radius_shift);
        // The plain perceptron's expressions are kept as they were (β = 0), so that its reports keep
        // their bits.
        let plain = beta == 0.0;
        let per_update = eta * eta * radius_eff_sq + 2.0 * eta * beta;
        let tol_dot = SAFETY * UNIT_ROUNDOFF * eta * radius_eff * (k * k.sqrt() + (dim + 3.0) * k);
        let tol_norm = if plain {
            SAFETY
                * UNIT_ROUNDOFF
                * eta
                * eta
                * radius_eff_sq
                * (k * k + (dim + 3.0) * k * k.sqrt())
        } else {
            SAFETY * UNIT_ROUNDOFF * per_update * (k * k + (dim + 3.0) * k * k.sqrt())
        };

        let dot_bound = k * eta * gamma;
        let norm_sq_bound = if plain {
            k * eta * eta * radius_eff_sq
        } else {
            k * per_update
        };
        let norm = norm_sq.sqrt();
        let cos = if norm > 0.0 { dot / norm } else { 0.0 };
        let (cos_bound, dot_scale) = if plain {
            (k.sqrt() * gamma / radius_eff, k.sqrt() * eta * radius_eff)
        } else {
            (k * eta * gamma / norm_sq_bound.sqrt(), norm_sq_bound.sqrt())
        };
        let tol_cos = tol_dot / dot_scale + cos_bound * tol_norm / (2.0 * norm_sq_bound);

        self.updates = event.update;
        self.min_dot_slack = self.min_dot_slack.min(dot / dot_bound - 1.0);
        self.min_norm_slack = self.min_norm_slack.min(1.0 - norm_sq / norm_sq_bound);
        self.min_cos_slack = self.min_cos_slack.min(cos - cos_bound);

        let update = event.update;
        // Reports carry the unscaled values (which may be ±∞ where only the scaled ones fit in f64).
        let unscale = |x: f64| times_power_of_two(x, -shift);
        let unscale_sq = |x: f64| unscale(unscale(x));
        // Each test is true only for a number that satisfies it, so that a NaN counts as a violation.
        let dot_holds = dot >= dot_bound - tol_dot;
        let norm_holds = norm_sq <= norm_sq_bound + tol_norm;
        let cos_holds = cos >= cos_bound - tol_cos;
        if !dot_holds {
            self.violate(Violation {
                update,
                inequality: Inequality::Dot,
                lhs: unscale(dot),
                rhs: unscale(dot_bound),
                tolerance: unscale(tol_dot),
            });
        }
        if !norm_holds {
            self.violate(Violation {
                update,
                inequality: Inequality::Norm,
                lhs: unscale_sq(norm_sq),
                rhs: unscale_sq(norm_sq_bound),
                tolerance: unscale_sq(tol_norm),
            });
        }
        if !cos_holds {
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
                dot: unscale(dot),
                dot_bound: unscale(dot_bound),
                norm_sq: unscale_sq(norm_sq),
                norm_sq_bound: unscale_sq(norm_sq_bound),
                cos,
                cos_bound,
            });
        }
        Ok(())
    }
}

/// True when the weights after the first update are `η·y·x̂` (to rounding), as they are from a zero start.
fn starts_from_zero(event: &UpdateEvent<'_>) -> bool {
    let step = event.step * event.label;
    let close = |got: f64, want: f64| (got - want).abs() <= 4.0 * UNIT_ROUNDOFF * want.abs();
    let c = event.bias_constant;
    event
        .w
        .iter()
        .zip(event.x)
        .all(|(&w, &x)| close(w, step * x))
        && close(event.b, c * (step * c))
}
