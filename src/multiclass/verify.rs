//! The multi-class perceptron checked against its bound on Kesler's lifted vectors.
//!
//! The run is the binary perceptron through the origin on the vectors `z = Φ(xᵢ, yᵢ) − Φ(xᵢ, r)`, each
//! update on the one whose class scores highest. So the binary theorem holds in the lifted space: with
//! `R_Φ = max ‖z‖` and `γ_Φ` the margin of the unit `Ŵ` (Frobenius norm 1) that separates the `z`, the
//! run makes at most `(R_Φ/γ_Φ)²` mistakes. `γ_Φ = maxᵂ minᵢ min_{r≠yᵢ} (w_{yᵢ} − w_r)·x̂ᵢ` is the
//! multi-class margin, and `R_Φ² = 2·maxᵢ ‖x̂ᵢ‖²`: Collins' `(R/δ)²` (2002, Theorem 1) and Crammer and
//! Singer's `2R²/γ²` (2003). The maximum `γ_Φ*` is certified like the binary `γ*`, by
//! [`max_margin`](crate::margin::max_margin) through the origin on the lifted CSR dataset, without
//! forming a dense matrix.

use ndarray::ArrayView1;
use serde::Serialize;

use super::confusion::ConfusionMatrix;
use super::perceptron::{MulticlassFit, MulticlassPerceptronParams};
use crate::bounds::{ExceededBy, Failure, InvariantCheck, InvariantReport, VALUE_RTOL};
use crate::dataset::MulticlassDataset;
use crate::error::{Error, Result};
use crate::margin::{Bias, MarginResult, MaxMarginParams};
use crate::perceptron::StopReason;

/// The unit roundoff.
const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;

/// One form of the multi-class bound, evaluated and checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MulticlassBound {
    /// `kesler` or `collins`.
    pub id: &'static str,
    /// The form's name.
    pub name: &'static str,
    /// The formula.
    pub formula: &'static str,
    /// The source.
    pub source: &'static str,
    /// True when its hypotheses hold (the lifted vectors are separable, the run starts at zero).
    pub applies: bool,
    /// The bound, rigorous (from the certified lower end of the margin and the radius rounded up).
    pub value: Option<f64>,
    /// The radius of the formula.
    pub radius: f64,
    /// The margin of the formula.
    pub gamma: Option<f64>,
    /// Why it does not apply.
    pub reason: Option<String>,
    /// `mistakes / value`.
    pub ratio: Option<f64>,
    /// `mistakes ≤ value`.
    pub holds: Option<bool>,
}

/// The lifted space of a multi-class dataset for one bias constant: Kesler's vectors, their radius and
/// their certified maximum margin. Compute it once per dataset and rule.
#[derive(Debug, Clone)]
pub struct LiftedGeometry {
    /// The bias constant `c` of the vectors `(x, c)` in each block.
    pub bias_constant: f64,
    /// `R_Φ = max ‖z‖` over the lifted vectors.
    pub radius: f64,
    /// `√2·max ‖(x, c)‖`, Collins' `R`, from the examples.
    pub collins_radius: f64,
    /// The maximum multi-class margin `γ_Φ*`: the binary maximum margin of the lifted vectors
    /// through the origin.
    pub margin: MarginResult,
    /// Rows of the lifted dataset (`n(k − 1)`), columns (`k·d'`) and stored values.
    pub shape: (usize, usize, usize),
}

impl LiftedGeometry {
    /// Lift and solve.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, multiclass::LiftedGeometry};
    /// let data = MulticlassDataset::new(
    ///     array![[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]], vec!["a".into(), "b".into(), "c".into()], vec![0, 1, 2])?;
    /// let lifted = LiftedGeometry::compute(&data, 0.0)?;
    /// assert!(lifted.margin.is_separable());
    /// assert!((lifted.radius - 2f64.sqrt() * 2f64.sqrt()).abs() < 1e-12); // √2·‖(−1, −1)‖
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn compute(data: &MulticlassDataset, c: f64) -> Result<LiftedGeometry> {
        Self::compute_with(data, c, &MaxMarginParams::new(Bias::ThroughOrigin))
    }

    /// [`LiftedGeometry::compute`] with the maximum-margin solver's limits taken from `solver` (its
    /// tolerance, rounds, time limit and working-set memory; the lifted problem is solved through the
    /// origin whatever the bias of `solver`): what `margin --multiclass kesler --working-set-mb`,
    /// `verify --multiclass kesler --working-set-mb` and an experiment's `[measure] working_set_mb`
    /// set. Kesler's vectors of many classes may have many support vectors, whose exact solve needs
    /// more than the default budget of 128 MiB.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, multiclass::LiftedGeometry};
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// let data = MulticlassDataset::new(
    ///     array![[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]], vec!["a".into(), "b".into(), "c".into()], vec![0, 1, 2])?;
    /// let limits = MaxMarginParams::new(Bias::Free).working_set_memory(1 << 30);
    /// assert!(LiftedGeometry::compute_with(&data, 0.0, &limits)?.margin.is_separable());
    /// assert!(LiftedGeometry::compute_with(&data, 0.0, &limits.working_set_memory(0)).is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// The errors of [`MaxMarginParams::check`] for limits that are not valid, and those of
    /// [`LiftedGeometry::compute`].
    pub fn compute_with(
        data: &MulticlassDataset,
        c: f64,
        solver: &MaxMarginParams,
    ) -> Result<LiftedGeometry> {
        let solver = solver.clone().with_bias(Bias::ThroughOrigin).check()?;
        let lifted = data.kesler(c)?;
        let radius = lifted.radius();
        let base = data.features().radius();
        let collins_radius = (2.0 * (base * base + c * c)).sqrt();
        let margin = solver.solve(&lifted)?;
        Ok(LiftedGeometry {
            bias_constant: c,
            radius,
            collins_radius,
            margin,
            shape: (lifted.n_samples(), lifted.n_features(), lifted.nnz()),
        })
    }

    /// The lifted geometry of the vectors a run with `params` sees: `c` from its bias rule and the
    /// data's radius, the margin solved under `solver`'s limits ([`LiftedGeometry::compute_with`]).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, multiclass::{LiftedGeometry, MulticlassPerceptronParams}};
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// use novikoff::perceptron::BiasRule;
    /// let data = MulticlassDataset::new(
    ///     array![[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]], vec!["a".into(), "b".into(), "c".into()], vec![0, 1, 2])?;
    /// let params = MulticlassPerceptronParams::new().bias(BiasRule::Classic);
    /// let lifted = LiftedGeometry::for_run(&data, &params, &MaxMarginParams::new(Bias::Free))?;
    /// assert_eq!(lifted.bias_constant, 1.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`LiftedGeometry::compute_with`].
    pub fn for_run(
        data: &MulticlassDataset,
        params: &MulticlassPerceptronParams,
        solver: &MaxMarginParams,
    ) -> Result<LiftedGeometry> {
        let c = params.bias.constant(data.features().radius());
        Self::compute_with(data, c, solver)
    }

    /// The certified separator in the lifted space, as `(unit Ŵ flattened, γ lower, γ upper)`.
    pub fn separator(&self) -> Option<(ArrayView1<'_, f64>, f64, f64)> {
        let (w, _) = self.margin.separator()?;
        let (lower, upper) = self.margin.bracket()?;
        (lower > 0.0).then_some((w, lower, upper))
    }
}

/// The multi-class perceptron's run against its bounds, with the proof's inequalities checked after
/// every update in the lifted space.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MulticlassVerdict {
    /// The bias rule.
    pub rule: String,
    /// Its constant `c`.
    pub bias_constant: f64,
    /// η.
    pub eta: f64,
    /// Number of classes.
    pub classes: usize,
    /// Mistakes.
    pub mistakes: u64,
    /// Passes.
    pub epochs: usize,
    /// Converged.
    pub converged: bool,
    /// Why it stopped.
    pub stop_reason: StopReason,
    /// Seconds in training.
    pub train_seconds: f64,
    /// `R_Φ` of the lifted vectors.
    pub radius_lifted: f64,
    /// The certified lower end of `γ_Φ*`, when the lifted vectors are separable.
    pub gamma: Option<f64>,
    /// Its bracket.
    pub gamma_bracket: Option<[f64; 2]>,
    /// `separable`, `not_separable` or `inaccurate`.
    pub margin_status: &'static str,
    /// The forms.
    pub bounds: Vec<MulticlassBound>,
    /// The tightest applicable value.
    pub bound: Option<f64>,
    /// `mistakes / bound`.
    pub ratio: Option<f64>,
    /// Every applicable bound holds.
    pub holds: Option<bool>,
    /// The proof's inequalities in the lifted space.
    pub invariants: InvariantReport,
    /// Training accuracy.
    pub train_accuracy: f64,
    /// The confusion matrix on the training data.
    pub confusion: ConfusionMatrix,
    /// The run (not serialised).
    #[serde(skip)]
    pub fit: MulticlassFit,
}

impl MulticlassVerdict {
    /// Every failed check: a bound exceeded, or an inequality of the proof violated in the lifted space.
    pub fn failures(&self) -> Vec<Failure> {
        let mut failures: Vec<Failure> = self
            .bounds
            .iter()
            .filter(|b| b.holds == Some(false))
            .map(|b| Failure::BoundExceeded {
                rule: format!("{} (multi-class)", self.rule),
                by: ExceededBy::Optimal,
                bound: b.name.to_string(),
                formula: b.formula.to_string(),
                value: b.value,
                mistakes: self.mistakes,
                measure: None,
                observed: None,
            })
            .collect();
        if let Some(violation) = self.invariants.first_violation {
            failures.push(Failure::InvariantViolated {
                rule: format!("{} (multi-class)", self.rule),
                order: None,
                violation,
                violations: self.invariants.violations,
            });
        }
        failures
    }
}

/// Train the multi-class perceptron and check it against its bounds (one lifted margin problem).
///
/// ```
/// use ndarray::array;
/// use novikoff::{dataset::MulticlassDataset, multiclass::{verify, MulticlassPerceptronParams}};
/// let data = MulticlassDataset::new(
///     array![[2.0, 0.1], [0.1, 2.0], [-2.0, -2.0], [1.5, -0.2], [-0.3, 1.0]],
///     vec!["0".into(), "1".into(), "2".into()],
///     vec![0, 1, 2, 0, 1],
/// )?;
/// let verdict = verify(&data, &MulticlassPerceptronParams::new())?;
/// assert_eq!(verdict.holds, Some(true));
/// assert!(verdict.mistakes as f64 <= verdict.bound.unwrap());
/// assert_eq!(verdict.invariants.violations, 0);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn verify(
    data: &MulticlassDataset,
    params: &MulticlassPerceptronParams,
) -> Result<MulticlassVerdict> {
    let lifted = LiftedGeometry::for_run(data, params, &MaxMarginParams::new(Bias::ThroughOrigin))?;
    verify_with(data, &lifted, params)
}

/// [`verify`] with the lifted geometry computed once.
pub fn verify_with(
    data: &MulticlassDataset,
    lifted: &LiftedGeometry,
    params: &MulticlassPerceptronParams,
) -> Result<MulticlassVerdict> {
    if params.initial.is_some() {
        return Err(Error::parameter(
            "initial",
            "the multi-class theorem's proof starts from W = 0: verify a run from zero weights",
        ));
    }
    let perceptron = params.clone().check()?;
    let c = lifted.bias_constant;
    let separator = lifted.separator();
    let mut check = match separator {
        Some((u, gamma, _)) => InvariantCheck::new(u, 0.0, gamma, lifted.radius * lifted.radius)?,
        None => InvariantCheck::not_applicable(
            "Kesler's lifted vectors are not certified separable through the origin",
        ),
    };
    let fit = perceptron.fit_with_trace(data, &mut check)?;
    let confusion = fit.confusion(data)?;
    let mistakes = fit.mistakes as f64;
    let up = 1.0 + 64.0 * UNIT_ROUNDOFF;
    let reason = match &lifted.margin {
        MarginResult::NotSeparable { certificate, .. } => format!(
            "Kesler's vectors are not separable through the origin: a certificate with residual {:e} \
             proves it, so no W classifies every example with a margin",
            certificate.residual
        ),
        other => format!(
            "the lifted margin is not certified positive: bracket {:?}",
            other.bracket()
        ),
    };
    let form = |id, name, formula, source, radius: f64| {
        let value = separator.map(|(_, gamma, _)| ((radius * up) / gamma).powi(2) * up);
        MulticlassBound {
            id,
            name,
            formula,
            source,
            applies: value.is_some(),
            value,
            radius,
            gamma: separator.map(|s| s.1),
            reason: value.is_none().then(|| reason.clone()),
            ratio: value.map(|v| mistakes / v),
            holds: value.map(|v| mistakes <= v * (1.0 + VALUE_RTOL)),
        }
    };
    let bounds = vec![
        form(
            "kesler",
            "Kesler's lifted vectors",
            "(R_Φ/γ_Φ)²",
            "Block–Novikoff on z = Φ(x, y) − Φ(x, r) (Duda and Hart 1973, §5.12)",
            lifted.radius,
        ),
        form(
            "collins",
            "Collins / Crammer–Singer",
            "(R/δ)² = 2R̂²/γ²",
            "Collins 2002, Theorem 1; Crammer and Singer 2003",
            lifted.collins_radius,
        ),
    ];
    let bound = bounds
        .iter()
        .filter_map(|b| b.value)
        .min_by(|a, b| a.total_cmp(b));
    let applicable: Vec<bool> = bounds.iter().filter_map(|b| b.holds).collect();
    Ok(MulticlassVerdict {
        rule: params.bias.name(),
        bias_constant: c,
        eta: params.eta,
        classes: data.n_classes(),
        mistakes: fit.mistakes,
        epochs: fit.epochs,
        converged: fit.converged,
        stop_reason: fit.stop_reason,
        train_seconds: fit.train_seconds,
        radius_lifted: lifted.radius,
        gamma: separator.map(|s| s.1),
        gamma_bracket: separator.map(|s| [s.1, s.2]),
        margin_status: match &lifted.margin {
            MarginResult::Separable { .. } => "separable",
            MarginResult::NotSeparable { .. } => "not_separable",
            _ => "inaccurate",
        },
        bounds,
        bound,
        ratio: bound.map(|b| mistakes / b),
        holds: (!applicable.is_empty()).then(|| applicable.iter().all(|&h| h)),
        invariants: check.report(),
        train_accuracy: confusion.accuracy(),
        confusion,
        fit,
    })
}
