//! A run checked against every form of the theorem: [`verify`], [`verify_with`] and the [`Verdict`].

use serde::Serialize;

use super::bound::{Bound, Facts, RunSetup};
use super::evaluate::evaluate_all;
use super::geometry::{Geometry, GeometrySummary, Separation, vectors_name};
use super::invariants::{InvariantCheck, InvariantReport};
use super::kinds::{BoundKind, RuleFamily};
use crate::dataset::Dataset;
use crate::error::Result;
use crate::perceptron::{Fit, PerceptronParams, StopReason};

/// A bound with its check against the run.
///
/// ```
/// # use ndarray::array;
/// # use novikoff::{bounds::verify, perceptron::PerceptronParams, Dataset};
/// # let data = Dataset::new(array![[1.0, 0.0], [-1.0, 0.0]], array![1.0, -1.0])?;
/// let verdict = verify(&data, &PerceptronParams::new())?;
/// let checked = &verdict.bounds[0];
/// assert_eq!(checked.holds, checked.bound.holds_for(verdict.fit.mistakes));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckedBound {
    /// The bound.
    #[serde(flatten)]
    pub bound: Bound,
    /// `mistakes / value`, when the bound applies.
    pub ratio: Option<f64>,
    /// `mistakes ≤ value` (to [`VALUE_RTOL`](super::VALUE_RTOL)), when the bound applies.
    pub holds: Option<bool>,
}

/// What [`verify`] found: the run, every form of the theorem with its hypotheses, the margins, and the
/// proof's inequalities on the run.
///
/// Field names are stable: they are the keys of `novikoff verify --format json` and of experiment files.
///
/// ```
/// use ndarray::array;
/// use novikoff::{bounds::verify, perceptron::PerceptronParams, Dataset};
/// let x = array![[-1.0, 2.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [-1.0, -2.0], [1.0, -1.0]];
/// let data = Dataset::new(x, array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0])?;
/// let verdict = verify(&data, &PerceptronParams::new())?;
/// assert_eq!(verdict.fit.mistakes, 3);
/// assert_eq!(verdict.holds, Some(true));
/// assert!((verdict.bound.unwrap() - 5.0).abs() < 1e-6);    // the tightest applicable bound
/// assert_eq!(verdict.invariants.holds(), Some(true));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// The bias rule's name (`none`, `classic`, `novikoff`, `c=VALUE`).
    pub rule: String,
    /// Its augmentation constant c: the run is the perceptron without bias on `(x, c)`.
    pub bias_constant: f64,
    /// The learning rate η.
    pub eta: f64,
    /// The run: its weights `w` and bias `b`, its mistakes, epochs, whether it converged, why it stopped
    /// and its wall-clock seconds (the invariant check included). Serialised in place, as the keys `w`,
    /// `b`, `mistakes`, `epochs`, `converged`, `stop_reason` and `train_seconds`.
    #[serde(flatten, serialize_with = "serialize_run")]
    pub fit: Fit,
    /// The visiting order's name.
    pub order: &'static str,
    /// `R = max ‖xᵢ‖`.
    pub radius: f64,
    /// `R̂ = max ‖(xᵢ, c)‖`, the radius of the vectors the run sees.
    pub radius_eff: f64,
    /// The margin of the vectors `(x, c)` through the origin that the run sees: the one the separator
    /// found achieves (the bracket's lower end). `None` when they are not separable.
    pub gamma: Option<f64>,
    /// That margin's bracket `[lower, upper]`.
    pub gamma_bracket: Option<[f64; 2]>,
    /// Every form of the theorem, with its hypotheses; those that do not apply say why.
    pub bounds: Vec<CheckedBound>,
    /// The tightest applicable form.
    pub tightest: Option<BoundKind>,
    /// Its value.
    pub bound: Option<f64>,
    /// `mistakes / bound` for the tightest applicable form.
    pub ratio: Option<f64>,
    /// True when every applicable bound holds; `None` when none applies.
    pub holds: Option<bool>,
    /// The proof's two inequalities (and the cosine), checked after every update.
    pub invariants: InvariantReport,
    /// The dataset's geometry. Not serialised: it is the same for every run on the dataset, so reports
    /// write [`Geometry::summary`] once (as `novikoff verify --format json` does).
    #[serde(skip)]
    pub geometry: GeometrySummary,
}

/// Train with `params` on `data` and check the run against every form of the theorem, with the proof's
/// inequalities checked after every update. Computes the [`Geometry`] (four margin problems); to check
/// several runs on one dataset, compute it once and call [`verify_with`].
///
/// ```
/// use ndarray::array;
/// use novikoff::{bounds::verify, perceptron::PerceptronParams, Dataset};
/// // XOR is not separable: no bound applies, and the run stops at its cap.
/// let xor = Dataset::new(array![[0., 0.], [0., 1.], [1., 0.], [1., 1.]], array![1., -1., -1., 1.])?;
/// let verdict = verify(&xor, &PerceptronParams::new().max_epochs(20))?;
/// assert_eq!(verdict.holds, None);
/// assert!(!verdict.fit.converged);
/// assert!(verdict.bounds.iter().all(|b| !b.bound.applies));
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn verify(data: &Dataset, params: &PerceptronParams) -> Result<Verdict> {
    let geometry = Geometry::compute(data)?;
    verify_with(&geometry, params)
}

/// [`verify`] with a [`Geometry`] computed once for its dataset and reused across rules and runs.
///
/// ```
/// use ndarray::array;
/// use novikoff::bounds::{verify_with, Geometry};
/// use novikoff::{perceptron::{BiasRule, PerceptronParams}, Dataset};
/// let data = Dataset::new(array![[2.0, 1.0], [1.0, 3.0], [-1.0, -1.0]], array![1.0, 1.0, -1.0])?;
/// let geometry = Geometry::compute(&data)?;
/// for rule in [BiasRule::None, BiasRule::Classic, BiasRule::Novikoff] {
///     let verdict = verify_with(&geometry, &PerceptronParams::new().bias(rule))?;
///     assert_eq!(verdict.holds, Some(true));
///     assert_eq!(verdict.invariants.violations, 0);
/// }
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn verify_with(geometry: &Geometry<'_>, params: &PerceptronParams) -> Result<Verdict> {
    verify_with_options(geometry, params, &VerifyOptions::default())
}

/// What [`verify_with_options`] checks beyond the bounds.
///
/// | option | default |
/// |---|---|
/// | `invariants`: check the proof's inequalities after every update | on |
/// | `record_steps`: keep every update's quantities in [`InvariantReport::steps`] | off |
///
/// ```
/// let options = novikoff::bounds::VerifyOptions { record_steps: true, ..Default::default() };
/// assert!(options.invariants);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifyOptions {
    /// Check the proof's inequalities after every update (O(d) per update).
    pub invariants: bool,
    /// Keep every update's quantities (O(updates) memory).
    pub record_steps: bool,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        Self {
            invariants: true,
            record_steps: false,
        }
    }
}

/// [`verify_with`] with options: switch the invariant check off, or keep every update's quantities.
///
/// ```
/// use ndarray::array;
/// use novikoff::bounds::{verify_with_options, Geometry, VerifyOptions};
/// use novikoff::{perceptron::PerceptronParams, Dataset};
/// let data = Dataset::new(array![[1.0, 2.0], [-2.0, -1.0]], array![1.0, -1.0])?;
/// let geometry = Geometry::compute(&data)?;
/// let options = VerifyOptions { record_steps: true, ..Default::default() };
/// let verdict = verify_with_options(&geometry, &PerceptronParams::new(), &options)?;
/// assert_eq!(verdict.invariants.steps.len() as u64, verdict.fit.mistakes);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn verify_with_options(
    geometry: &Geometry<'_>,
    params: &PerceptronParams,
    options: &VerifyOptions,
) -> Result<Verdict> {
    let data = geometry.data();
    let perceptron = params.clone().check()?;
    let setup = RunSetup::of(params, geometry.radius);
    let facts = Facts::optimal(geometry, setup.c)?;
    let run_vectors = run_separation(geometry, &facts, setup.c)?;
    let (fit, invariants) = if options.invariants {
        let mut check =
            invariant_check(geometry, &setup, &run_vectors).record_steps(options.record_steps);
        let fit = perceptron.fit_with_trace(data, &mut check)?;
        (fit, check.report())
    } else {
        let fit = perceptron.fit(data)?;
        (fit, InvariantReport::off())
    };
    Ok(assemble(
        geometry,
        &facts,
        &setup,
        params,
        &run_vectors,
        &fit,
        invariants,
    ))
}

/// The separation of the vectors `(x, c)` the run sees.
pub(crate) fn run_separation(geometry: &Geometry<'_>, facts: &Facts, c: f64) -> Result<Separation> {
    Ok(if c == 0.0 {
        facts.origin.clone()
    } else if c == geometry.radius {
        facts.radius_vectors.clone()
    } else if RuleFamily::AnyConstant.matches(c, geometry.radius) {
        // Facts::optimal already solved (or looked up) the (x, c) problem for this c.
        facts.run_vectors.clone()
    } else {
        geometry.augmented(c)?.separation(&vectors_name(c))
    })
}

/// The invariant check for a run with this setup, or a sink that says why it does not apply.
pub(crate) fn invariant_check(
    geometry: &Geometry<'_>,
    setup: &RunSetup,
    run_vectors: &Separation,
) -> InvariantCheck {
    if !setup.zero_start {
        return InvariantCheck::not_applicable(
            "the run starts from non-zero weights, and both lemmas start their induction at ŵ₀ = 0",
        );
    }
    match run_vectors {
        Separation::Missing(reason) => InvariantCheck::not_applicable(format!(
            "the vectors the run sees, {}, have no separator through the origin: {reason}",
            if setup.c == 0.0 {
                "x".to_string()
            } else {
                format!("(x, {})", setup.c)
            }
        )),
        Separation::Found(s) => {
            let radius_eff_sq = geometry.max_sq_norm + setup.c * setup.c;
            InvariantCheck::new(s.u.view(), setup.c, s.gamma, radius_eff_sq)
                .unwrap_or_else(|e| InvariantCheck::not_applicable(e.to_string()))
        }
    }
}

/// Put the verdict together from a finished run.
pub(crate) fn assemble(
    geometry: &Geometry<'_>,
    facts: &Facts,
    setup: &RunSetup,
    params: &PerceptronParams,
    run_vectors: &Separation,
    fit: &Fit,
    invariants: InvariantReport,
) -> Verdict {
    let bounds: Vec<CheckedBound> = evaluate_all(facts, setup)
        .into_iter()
        .map(|bound| CheckedBound {
            ratio: bound.ratio(fit.mistakes),
            holds: bound.holds_for(fit.mistakes),
            bound,
        })
        .collect();
    let tightest = bounds
        .iter()
        .filter(|b| b.bound.value.is_some())
        .min_by(|a, b| {
            a.bound
                .value
                .partial_cmp(&b.bound.value)
                .expect("finite values")
        });
    let applicable: Vec<bool> = bounds.iter().filter_map(|b| b.holds).collect();
    let found = run_vectors.found();
    Verdict {
        rule: setup.rule.clone(),
        bias_constant: setup.c,
        eta: params.eta,
        order: params.order.name(),
        radius: geometry.radius,
        radius_eff: (geometry.max_sq_norm + setup.c * setup.c).sqrt(),
        gamma: found.map(|s| s.gamma),
        gamma_bracket: found.and_then(|s| Some([s.gamma, s.gamma_upper?])),
        tightest: tightest.map(|b| b.bound.kind),
        bound: tightest.and_then(|b| b.bound.value),
        ratio: tightest.and_then(|b| b.ratio),
        holds: (!applicable.is_empty()).then(|| applicable.iter().all(|&h| h)),
        invariants,
        geometry: geometry.summary(),
        fit: fit.clone(),
        bounds,
    }
}

/// The run's part of a verdict's JSON, with the keys the verdict had before it held its [`Fit`].
fn serialize_run<S: serde::Serializer>(
    fit: &Fit,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Run<'a> {
        w: &'a [f64],
        b: f64,
        mistakes: u64,
        epochs: usize,
        converged: bool,
        stop_reason: StopReason,
        train_seconds: f64,
    }
    let w = fit.w.to_vec();
    Run {
        w: &w,
        b: fit.b,
        mistakes: fit.mistakes,
        epochs: fit.epochs,
        converged: fit.converged,
        stop_reason: fit.stop_reason,
        train_seconds: fit.train_seconds,
    }
    .serialize(serializer)
}
