//! A kernel run checked against every form of the theorem in the feature space.

use serde::Serialize;

use super::cache::GramCache;
use super::fit::KernelFit;
use super::function::KernelSummary;
use super::geometry::{KernelGeometry, KernelGeometrySummary};
use super::invariants::KernelInvariantCheck;
use super::learner::KernelPerceptronParams;
use super::soft;
use crate::bounds::feature_space::{SpaceCandidate, data_bounds, freund_schapire};
use crate::bounds::{BoundKind, CheckedBound, ExceededBy, Failure, InvariantReport, VALUE_RTOL};
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::perceptron::StopReason;
use crate::simd::Summation;

/// What [`verify_with`] checks beyond the bounds.
///
/// ```
/// assert!(novikoff::kernel::KernelVerifyOptions::default().invariants);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelVerifyOptions {
    /// Check the proof's inequalities after every update (O(1) per update).
    pub invariants: bool,
    /// Keep every update's quantities.
    pub record_steps: bool,
}

impl Default for KernelVerifyOptions {
    fn default() -> Self {
        Self {
            invariants: true,
            record_steps: false,
        }
    }
}

/// A kernel run and every form of the theorem in the feature space, checked: the analogue of
/// [`Verdict`](crate::bounds::Verdict), with `R = R_K` and the margins `γ_K*` of the kernel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelVerdict {
    /// The bias rule's name.
    pub rule: String,
    /// Its constant `c`: the run is the perceptron without bias on `K̂ = K + c²`.
    pub bias_constant: f64,
    /// η.
    pub eta: f64,
    /// The kernel.
    pub kernel: KernelSummary,
    /// The mistakes (= updates).
    pub mistakes: u64,
    /// The passes, including the final clean one.
    pub epochs: usize,
    /// True when the last epoch had no mistake.
    pub converged: bool,
    /// Why the run stopped.
    pub stop_reason: StopReason,
    /// Seconds in the training loop.
    pub train_seconds: f64,
    /// The number of support vectors (rows with αᵢ > 0).
    pub support_vectors: usize,
    /// The bias `b` of the run.
    pub b: f64,
    /// `‖ŵ‖²` at the end.
    pub norm_sq: f64,
    /// The run itself (not serialised: the keys above carry it).
    #[serde(skip)]
    pub fit: KernelFit,
    /// The visiting order's name.
    pub order: &'static str,
    /// `R_K`.
    pub radius: f64,
    /// `R̂_K = √(R_K² + c²)`, the radius of the vectors the run sees.
    pub radius_eff: f64,
    /// The certified margin of the run's vectors `(φ(x), c)` through the origin (the bracket's lower end).
    pub gamma: Option<f64>,
    /// Its bracket.
    pub gamma_bracket: Option<[f64; 2]>,
    /// Whether the run's vectors are separable: `Some(true)` with a certified margin, `Some(false)`
    /// when the solver proved that none exists, `None` when it could not tell (an inaccurate solve).
    pub separable: Option<bool>,
    /// Every form, with its hypotheses, checked against the run.
    pub bounds: Vec<CheckedBound>,
    /// The tightest applicable form about the data alone (or, where none applies, for any `u`).
    pub tightest: Option<BoundKind>,
    /// Its value.
    pub bound: Option<f64>,
    /// `mistakes / bound`.
    pub ratio: Option<f64>,
    /// True when every applicable bound holds; `None` when none applies.
    pub holds: Option<bool>,
    /// The proof's inequalities in the feature space, checked after every update.
    pub invariants: InvariantReport,
    /// The geometry (the same for every run on the dataset; not serialised with the verdict).
    #[serde(skip)]
    pub geometry: KernelGeometrySummary,
}

impl KernelVerdict {
    /// Every failed check of the run: a bound exceeded, an inequality of the proof violated, or weights
    /// that overflowed while a form promised convergence.
    pub fn failures(&self) -> Vec<Failure> {
        let mut failures: Vec<Failure> = self
            .bounds
            .iter()
            .filter(|b| b.holds == Some(false))
            .map(|b| Failure::BoundExceeded {
                rule: self.rule.clone(),
                by: ExceededBy::Optimal,
                bound: b.bound.name.to_string(),
                formula: b.bound.formula.to_string(),
                value: b.bound.value,
                mistakes: self.mistakes,
                measure: None,
                observed: None,
            })
            .collect();
        if let Some(violation) = self.invariants.first_violation {
            failures.push(Failure::InvariantViolated {
                rule: self.rule.clone(),
                order: None,
                violation,
                violations: self.invariants.violations,
            });
        }
        if self.stop_reason == StopReason::NonFinite
            && let (Some(kind), Some(value)) = (self.tightest, self.bound)
            && !kind.needs_run()
        {
            failures.push(Failure::Overflow {
                rule: self.rule.clone(),
                update: self.mistakes,
                bound: kind.name().to_string(),
                value,
            });
        }
        failures
    }
}

/// Train the kernel perceptron and check it against every form of the theorem in the feature space
/// (four kernel margin problems; for several runs, compute the [`KernelGeometry`] once and call
/// [`verify_with`]).
///
/// ```
/// use ndarray::array;
/// use novikoff::{kernel::{verify, Gamma, KernelParams, KernelPerceptronParams}, Dataset};
/// let data = Dataset::new(array![[0.0], [1.0], [2.0], [3.0]], array![1.0, -1.0, 1.0, -1.0])?;
/// let rbf = KernelParams::rbf().gamma(Gamma::Value(2.0)).check()?;
/// let verdict = verify(&data, &KernelPerceptronParams::new(rbf))?;
/// assert_eq!(verdict.holds, Some(true));
/// assert_eq!(verdict.invariants.violations, 0);
/// assert_eq!(verdict.radius, 1.0); // every Gaussian φ(x) has unit length
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn verify(data: &Dataset, params: &KernelPerceptronParams) -> Result<KernelVerdict> {
    let geometry = KernelGeometry::compute_with(data, &params.kernel, params.cache_bytes)?;
    verify_with(&geometry, params, &KernelVerifyOptions::default())
}

/// [`verify`] with a geometry computed once for its dataset and kernel.
///
/// # Errors
/// [`Error::Parameter`] when `params` has another kernel than the geometry.
pub fn verify_with(
    geometry: &KernelGeometry<'_>,
    params: &KernelPerceptronParams,
    options: &KernelVerifyOptions,
) -> Result<KernelVerdict> {
    let data = geometry.data();
    if params.kernel != geometry.kernel {
        return Err(Error::parameter(
            "kernel",
            format!(
                "the geometry was measured with {}, the run asks for {}",
                geometry.kernel.describe(),
                params.kernel.describe()
            ),
        ));
    }
    let perceptron = params.clone().check()?;
    let rule = params.bias.name();
    let c = params.bias.constant(geometry.radius);
    let run_solve = geometry.augmented(c);
    let space = geometry.space(c, &run_solve);
    let radius_eff_sq = geometry.max_sq_norm.max(geometry.radius * geometry.radius) + c * c;
    let separator = run_solve
        .result()
        .and_then(|r| r.separator().zip(r.bracket()).map(|(s, b)| (s, b, r)));
    let mut check = match (&separator, options.invariants) {
        (_, false) => None,
        (Some((separator, (gamma, _), result)), true) => Some(
            KernelInvariantCheck::new(
                separator.scores.clone(),
                *gamma,
                radius_eff_sq,
                result.stats().support,
            )?
            .record_steps(options.record_steps),
        ),
        (None, true) => Some(KernelInvariantCheck::not_applicable(format!(
            "the vectors the run sees, (φ(x), {c}), have no certified separator through the origin: {}",
            space
                .run_vectors
                .as_ref()
                .err()
                .cloned()
                .unwrap_or_default()
        ))),
    };
    let fit = match check.as_mut() {
        Some(check) => perceptron.fit_with(data, check)?,
        None => perceptron.fit(data)?,
    };
    let invariants = match &check {
        Some(check) => {
            let mut report = check.report();
            if report.holds().is_some() {
                report.bias_constant = Some(c);
            }
            report
        }
        None => InvariantReport::off(),
    };
    let mut bounds = data_bounds(&space, &rule, c, params.eta);
    let mut candidates: Vec<SpaceCandidate> = Vec::new();
    if let Some((separator, (gamma, _), _)) = &separator {
        candidates.push(SpaceCandidate {
            origin: "the maximum-margin direction of the feature space".into(),
            margins: separator.margins_lower.clone(),
            natural_length: 1.0 / gamma,
        });
    } else {
        let mut cache = GramCache::new(&params.kernel, data, Summation::Fast, params.cache_bytes)?;
        candidates.extend(soft::candidates(&mut cache, c)?);
    }
    let presentations: Vec<f64> = fit
        .presentations
        .counts(data.n_samples())
        .into_iter()
        .map(|k| k as f64)
        .collect();
    bounds.push(freund_schapire(
        &space,
        &rule,
        c,
        params.eta,
        &candidates,
        &presentations,
    ));
    let mistakes = fit.mistakes as f64;
    let bounds: Vec<CheckedBound> = bounds
        .into_iter()
        .map(|bound| {
            let (ratio, holds) = match bound.value {
                Some(value) => (
                    Some(mistakes / value),
                    Some(mistakes <= value * (1.0 + VALUE_RTOL)),
                ),
                None => (None, None),
            };
            CheckedBound {
                bound,
                observed: Some(mistakes),
                ratio,
                holds,
            }
        })
        .collect();
    let tightest_of = |about_the_run: bool| {
        bounds
            .iter()
            .filter(|b| b.bound.value.is_some() && b.bound.kind.needs_run() == about_the_run)
            .min_by(|a, b| a.bound.value.partial_cmp(&b.bound.value).expect("finite"))
    };
    let tightest = tightest_of(false).or_else(|| tightest_of(true));
    let applicable: Vec<bool> = bounds.iter().filter_map(|b| b.holds).collect();
    let run_bracket = run_solve.result().and_then(|r| r.bracket());
    Ok(KernelVerdict {
        rule,
        bias_constant: c,
        eta: params.eta,
        kernel: KernelSummary::of(&params.kernel),
        mistakes: fit.mistakes,
        epochs: fit.epochs,
        converged: fit.converged,
        stop_reason: fit.stop_reason,
        train_seconds: fit.train_seconds,
        support_vectors: fit.support.len(),
        b: fit.b,
        norm_sq: fit.norm_sq,
        order: params.order.name(),
        radius: geometry.radius,
        radius_eff: radius_eff_sq.sqrt(),
        gamma: space.run_vectors.as_ref().ok().map(|s| s.gamma),
        separable: match run_solve.result() {
            _ if space.run_vectors.is_ok() => Some(true),
            Some(super::margin::KernelMarginResult::NotSeparable { .. }) => Some(false),
            _ => None,
        },
        gamma_bracket: space
            .run_vectors
            .as_ref()
            .ok()
            .and(run_bracket)
            .map(|(l, u)| [l, u]),
        tightest: tightest.map(|b| b.bound.kind),
        bound: tightest.and_then(|b| b.bound.value),
        ratio: tightest.and_then(|b| b.ratio),
        holds: (!applicable.is_empty()).then(|| applicable.iter().all(|&h| h)),
        invariants,
        geometry: geometry.summary(),
        fit,
        bounds,
    })
}
