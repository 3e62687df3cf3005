//! A run checked against every form of the theorem: [`verify`], [`verify_with`] and the [`Verdict`].

use serde::Serialize;

use super::any_u_forms::with_run;
use super::bound::{Bound, Facts, RunSetup};
use super::evaluate::evaluate_all;
use super::geometry::{Geometry, GeometrySummary, Separation, vectors_name};
use super::invariants::{InvariantCheck, InvariantReport};
use super::kinds::{BoundKind, RuleFamily};
use super::margin_guarantee::{MarginGuarantee, margin_guarantee};
use crate::dataset::Dataset;
use crate::error::Result;
use crate::perceptron::{Fit, PerceptronParams, StopReason, Variant};

/// A bound with its check against the run: the quantity the form bounds ([`Bound::measure`]) against
/// its value.
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
    /// The run's value of the quantity the form bounds: its mistakes, updates or `Σℓₜ²`.
    pub observed: Option<f64>,
    /// `observed / value`, when the bound applies.
    pub ratio: Option<f64>,
    /// `observed ≤ value` (to [`VALUE_RTOL`](super::VALUE_RTOL)), when the bound applies.
    pub holds: Option<bool>,
}

impl CheckedBound {
    /// `bound` checked against `fit`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::bounds::{bounds, CheckedBound, Geometry};
    /// use novikoff::{perceptron::PerceptronParams, Dataset};
    /// let data = Dataset::new(array![[1.0, 0.0], [-1.0, 0.0]], array![1.0, -1.0])?;
    /// let params = PerceptronParams::new();
    /// let fit = params.fit(&data)?;
    /// let all = bounds(&Geometry::compute(&data)?, &params)?;
    /// let checked = CheckedBound::of(all[0].clone(), &fit);
    /// assert_eq!((checked.observed, checked.holds), (Some(1.0), Some(true)));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn of(bound: Bound, fit: &Fit) -> Self {
        let observed = bound.measure.of(fit);
        let (ratio, holds) = match (bound.value, observed) {
            (Some(value), Some(observed)) => (
                Some(observed / value),
                Some(observed <= value * (1.0 + super::VALUE_RTOL)),
            ),
            _ => (None, None),
        };
        CheckedBound {
            bound,
            observed,
            ratio,
            holds,
        }
    }
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
    /// The tightest applicable form about the data alone (what the theorem promises before the run),
    /// or, where none applies, the tightest form for any `u`.
    pub tightest: Option<BoundKind>,
    /// Its value.
    pub bound: Option<f64>,
    /// `mistakes / bound` for the tightest applicable form.
    pub ratio: Option<f64>,
    /// True when every applicable bound holds; `None` when none applies.
    pub holds: Option<bool>,
    /// The proof's two inequalities (and the cosine), checked after every update.
    pub invariants: InvariantReport,
    /// For the perceptron with margin, the margin it guarantees at convergence, checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margin_guarantee: Option<MarginGuarantee>,
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
/// // XOR is not separable: the run stops at its cap, and only the forms for any data apply.
/// let xor = Dataset::new(array![[0., 0.], [0., 1.], [1., 0.], [1., 1.]], array![1., -1., -1., 1.])?;
/// let verdict = verify(&xor, &PerceptronParams::new().max_epochs(20))?;
/// assert!(!verdict.fit.converged);
/// assert!(verdict.bounds.iter().filter(|b| b.bound.applies).all(|b| b.bound.kind.needs_run()));
/// assert_eq!(verdict.tightest.map(|k| k.needs_run()), Some(true));
/// assert_eq!(verdict.holds, Some(true));
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
    if setup.variant.is_passive_aggressive() {
        return InvariantCheck::not_applicable(
            "Passive–Aggressive is analysed through Crammer et al.'s Lemma 1 (a bound on the cumulative \
             loss), not through these two inequalities",
        );
    }
    let threshold = match setup.variant {
        Variant::Margin { beta } => beta,
        _ => 0.0,
    };
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
                .map(|check| check.with_threshold(threshold))
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
    let mut all = evaluate_all(facts, setup);
    all.extend(
        BoundKind::ALL
            .iter()
            .filter(|kind| kind.needs_run())
            .map(|&kind| with_run(kind, facts, setup, fit, geometry)),
    );
    let bounds: Vec<CheckedBound> = all
        .into_iter()
        .map(|bound| CheckedBound::of(bound, fit))
        .collect();
    // Every form bounds the mistakes (directly, or through updates ≥ mistakes or Σℓₜ² ≥ mistakes). The
    // headline is the tightest form about the data alone, what the theorem promises before the run; the
    // forms for any u, which read the run's sequence, take its place where none applies.
    let tightest_of = |about_the_run: bool| {
        bounds
            .iter()
            .filter(|b| b.bound.value.is_some() && b.bound.kind.needs_run() == about_the_run)
            .min_by(|a, b| {
                a.bound
                    .value
                    .partial_cmp(&b.bound.value)
                    .expect("finite values")
            })
    };
    let tightest = tightest_of(false).or_else(|| tightest_of(true));
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
        ratio: tightest.and_then(|b| b.bound.ratio(fit.mistakes)),
        holds: (!applicable.is_empty()).then(|| applicable.iter().all(|&h| h)),
        invariants,
        margin_guarantee: margin_guarantee(geometry, setup, run_vectors, fit),
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
        variant: String,
        w: &'a [f64],
        b: f64,
        mistakes: u64,
        updates: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        squared_loss: Option<f64>,
        epochs: usize,
        converged: bool,
        stop_reason: StopReason,
        train_seconds: f64,
    }
    // A fit's weights are contiguous: written from where they are, not from a copy.
    let w = fit
        .w
        .as_slice()
        .map_or_else(|| fit.w.to_vec().into(), std::borrow::Cow::Borrowed);
    Run {
        variant: fit.variant.name(),
        w: &w,
        b: fit.b,
        mistakes: fit.mistakes,
        updates: fit.updates,
        squared_loss: fit.history.squared_loss,
        epochs: fit.epochs,
        converged: fit.converged,
        stop_reason: fit.stop_reason,
        train_seconds: fit.train_seconds,
    }
    .serialize(serializer)
}
