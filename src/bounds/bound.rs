//! Each form of the theorem evaluated on a dataset: its hypotheses checked, and a value only when earned.

use ndarray::{Array1, ArrayView1};
use serde::Serialize;

use super::geometry::{Geometry, Norms, Separation, Separator, UNIT_NORM_TOL, vectors_name};
use super::kinds::{BoundKind, RuleFamily};
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::margin;
use crate::perceptron::PerceptronParams;

/// Relative rounding allowance of [`Bound::holds_for`]: a bound value computed in floating point from a
/// margin is accurate to a few ulps times the dimension, so `mistakes ≤ value·(1 + 1e-9)` is the test. It
/// matters only for tight cases such as the basis `eᵢ`, where `mistakes = (R/γ)²` exactly.
///
/// ```
/// assert_eq!(novikoff::bounds::VALUE_RTOL, 1e-9);
/// ```
pub const VALUE_RTOL: f64 = 1e-9;

/// One hypothesis of a form, checked on the data and the run.
///
/// ```
/// use novikoff::bounds::Hypothesis;
/// let h = Hypothesis { statement: "every ‖xᵢ‖ = 1".into(), holds: false, detail: "‖xᵢ‖ ∈ [1, 2.2]".into() };
/// assert!(!h.holds);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hypothesis {
    /// The hypothesis, as the source states it.
    pub statement: String,
    /// Whether it holds here.
    pub holds: bool,
    /// What was measured.
    pub detail: String,
}

/// Which separator a bound's value was computed with.
///
/// ```
/// use novikoff::bounds::SeparatorSource;
/// assert_eq!(serde_json::to_value(SeparatorSource::Optimal).unwrap(), "optimal");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SeparatorSource {
    /// The maximum-margin separator from the margin module (its achieved margin, the bracket's lower end).
    Optimal,
    /// A separator the user supplied (the bound holds for any separator).
    Supplied,
}

/// One form of the theorem on one dataset and rule: its hypotheses, whether it applies, and its value.
///
/// `value` is present only when every hypothesis holds. It is computed from the margin the separator
/// actually achieves on the data (the lower end of the margin bracket), so it is a rigorous upper bound on
/// the mistakes; `value_bracket` adds the value at the bracket's upper end, so that the bound for the exact
/// optimal margin lies in `[value_bracket[0], value]`.
///
/// ```
/// use ndarray::array;
/// use novikoff::bounds::{bounds, BoundKind, Geometry};
/// use novikoff::{perceptron::PerceptronParams, Dataset};
/// let x = array![[-1.0, 2.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [-1.0, -2.0], [1.0, -1.0]];
/// let data = Dataset::new(x, array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0])?;
/// let all = bounds(&data, &Geometry::compute(&data)?, &PerceptronParams::new())?;
/// let block = all.iter().find(|b| b.kind == BoundKind::BlockNovikoff).unwrap();
/// assert!(block.applies);
/// assert!((block.value.unwrap() - 5.0).abs() < 1e-6); // (R/γ)² = 5/1
/// let helmbold = all.iter().find(|b| b.kind == BoundKind::Helmbold).unwrap();
/// assert!(!helmbold.applies); // the data are not unit-norm
/// assert!(helmbold.value.is_none());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bound {
    /// Which form.
    pub kind: BoundKind,
    /// Its name, after the source.
    pub name: &'static str,
    /// The formula as the source writes it.
    pub formula: &'static str,
    /// What the formula's symbols stand for.
    pub symbols: &'static str,
    /// The source document.
    pub source: &'static str,
    /// The separator the value was computed with.
    pub separator: SeparatorSource,
    /// True when every hypothesis holds.
    pub applies: bool,
    /// The bound on the number of mistakes, when it applies.
    pub value: Option<f64>,
    /// `[value at the upper end of the margin bracket, value at the lower end]`, for the optimal separator.
    pub value_bracket: Option<[f64; 2]>,
    /// The margin used (γ, α, δ, γ̂ or γ' of the formula): the one the separator achieves on the data.
    pub gamma: Option<f64>,
    /// The margin bracket `[lower, upper]` of the optimal separator.
    pub gamma_bracket: Option<[f64; 2]>,
    /// The radius of the formula (`R`, `√β`, `R'`, or 1 for the unit-norm forms).
    pub radius: Option<f64>,
    /// The first hypothesis that fails, with what was measured.
    pub reason: Option<String>,
    /// Remarks: how the proof uses the order or η, or a solver caveat.
    pub note: Option<String>,
    /// Every hypothesis, checked.
    pub hypotheses: Vec<Hypothesis>,
}

impl Bound {
    /// `Some(mistakes ≤ value·(1 + VALUE_RTOL))` when the bound applies, `None` otherwise.
    ///
    /// ```
    /// # use ndarray::array;
    /// # use novikoff::{bounds::{bounds, Geometry, BoundKind}, perceptron::PerceptronParams, Dataset};
    /// # let data = Dataset::new(array![[1.0, 0.0], [-1.0, 0.0]], array![1.0, -1.0])?;
    /// # let all = bounds(&data, &Geometry::compute(&data)?, &PerceptronParams::new())?;
    /// let block = all.iter().find(|b| b.kind == BoundKind::BlockNovikoff).unwrap();
    /// assert_eq!(block.holds_for(1), Some(true));
    /// assert_eq!(block.holds_for(2), Some(false));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn holds_for(&self, mistakes: u64) -> Option<bool> {
        self.value
            .map(|value| mistakes as f64 <= value * (1.0 + VALUE_RTOL))
    }

    /// `mistakes / value` when the bound applies.
    ///
    /// ```
    /// # use ndarray::array;
    /// # use novikoff::{bounds::{bounds, Geometry, BoundKind}, perceptron::PerceptronParams, Dataset};
    /// # let data = Dataset::new(array![[1.0, 0.0], [-1.0, 0.0]], array![1.0, -1.0])?;
    /// # let all = bounds(&data, &Geometry::compute(&data)?, &PerceptronParams::new())?;
    /// let block = all.iter().find(|b| b.kind == BoundKind::BlockNovikoff).unwrap();
    /// assert!((block.ratio(1).unwrap() - 1.0).abs() < 1e-6);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn ratio(&self, mistakes: u64) -> Option<f64> {
        self.value.map(|value| mistakes as f64 / value)
    }
}

/// What a run contributes to the hypotheses: its augmentation constant and whether it starts from zero.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunSetup {
    pub(crate) rule: String,
    pub(crate) c: f64,
    pub(crate) zero_start: bool,
}

impl RunSetup {
    pub(crate) fn of(params: &PerceptronParams, radius: f64) -> Self {
        let zero_w = params
            .initial_w
            .as_ref()
            .is_none_or(|w| w.iter().all(|&v| v == 0.0));
        Self {
            rule: params.bias.name(),
            c: params.bias.constant(radius),
            zero_start: zero_w && params.initial_b == 0.0,
        }
    }
}

/// Everything the forms read: norms, and the separators of `x` (through the origin and with free bias),
/// of `(x, c)` for the run's `c`, and of `(x, R)`.
#[derive(Debug, Clone)]
pub(crate) struct Facts {
    pub(crate) norms: Norms,
    pub(crate) source: SeparatorSource,
    pub(crate) origin: Separation,
    pub(crate) free: Separation,
    pub(crate) run_vectors: Separation,
    pub(crate) radius_vectors: Separation,
}

impl Facts {
    /// From the optimal separators of a geometry; solves the `(x, c)` problem only for a `c` the geometry
    /// lacks and a form needs.
    pub(crate) fn optimal(data: &Dataset, geometry: &Geometry, c: f64) -> Result<Self> {
        geometry.check_matches(data)?;
        let radius = geometry.radius;
        let run_vectors = if RuleFamily::AnyConstant.matches(c, radius) {
            geometry.augmented(data, c)?.separation(&vectors_name(c))
        } else {
            Separation::Missing(format!("not computed for c = {c}"))
        };
        Ok(Self {
            norms: geometry.norms(),
            source: SeparatorSource::Optimal,
            origin: geometry.through_origin.separation("through the origin"),
            free: geometry.free_separation(),
            run_vectors,
            radius_vectors: geometry.augmented_radius.separation(&vectors_name(radius)),
        })
    }

    /// From a separator `(w, b)` the user supplied.
    pub(crate) fn supplied(data: &Dataset, w: ArrayView1<'_, f64>, b: f64, c: f64) -> Result<Self> {
        if w.len() != data.n_features() {
            return Err(Error::Shape {
                what: "separator weights against features",
                expected: data.n_features(),
                found: w.len(),
            });
        }
        if !b.is_finite() || w.iter().any(|v| !v.is_finite()) {
            return Err(Error::parameter("separator", "holds a non-finite value"));
        }
        let norm = w.iter().fold(0.0, |acc, v| acc + v * v).sqrt();
        if norm == 0.0 {
            return Err(Error::parameter("separator", "w = 0 separates nothing"));
        }
        let norms = Norms::of(data);
        // m = minᵢ yᵢ(w·xᵢ + b); every form's margin is m over the norm of its augmented separator.
        let m = margin::margin(data, w, b)? * norm;
        let make = |weights: Array1<f64>, offset: f64, vectors: &str| -> Separation {
            let length = weights.iter().fold(0.0, |acc, v| acc + v * v).sqrt();
            let gamma = m / length;
            if gamma > 0.0 {
                Separation::Found(Separator {
                    u: weights.mapv(|v| v / length),
                    offset,
                    gamma,
                    gamma_upper: None,
                    note: None,
                })
            } else {
                Separation::Missing(format!(
                    "the supplied separator does not separate the data {vectors}: its margin is {gamma:.6e}"
                ))
            }
        };
        let with_constant = |constant: f64| -> Separation {
            if constant == 0.0 {
                return Separation::Missing("c = 0".into());
            }
            let mut weights = w.to_vec();
            weights.push(b / constant);
            make(Array1::from_vec(weights), 0.0, &vectors_name(constant))
        };
        let origin = if b == 0.0 {
            make(w.to_owned(), 0.0, "through the origin")
        } else {
            Separation::Missing(format!(
                "the supplied separator has b = {b}, but this form needs a separator through the origin"
            ))
        };
        Ok(Self {
            norms,
            source: SeparatorSource::Supplied,
            origin,
            free: make(w.to_owned(), b / norm, "with a free bias"),
            run_vectors: with_constant(c),
            radius_vectors: with_constant(norms.radius),
        })
    }
}

/// Every form of the theorem for a run with `params` on `data`, without running: hypotheses checked and
/// values computed from the optimal separators of `geometry`.
///
/// ```
/// use ndarray::array;
/// use novikoff::bounds::{bounds, BoundKind, Geometry};
/// use novikoff::{perceptron::{BiasRule, PerceptronParams}, Dataset};
/// let data = Dataset::new(array![[3.0], [1.0]], array![1.0, -1.0])?;
/// let geometry = Geometry::compute(&data)?;
/// let all = bounds(&data, &geometry, &PerceptronParams::new().bias(BiasRule::Novikoff))?;
/// let applicable: Vec<BoundKind> = all.iter().filter(|b| b.applies).map(|b| b.kind).collect();
/// assert_eq!(applicable, vec![BoundKind::NovikoffBias, BoundKind::NovikoffBiasTight]);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn bounds(
    data: &Dataset,
    geometry: &Geometry,
    params: &PerceptronParams,
) -> Result<Vec<Bound>> {
    let setup = RunSetup::of(params, geometry.radius);
    let facts = Facts::optimal(data, geometry, setup.c)?;
    Ok(evaluate_all(&facts, &setup))
}

/// Every form of the theorem for a run with `params` on `data`, with the values computed for a separator
/// `(w, b)` you supply instead of the optimal one: the theorem holds for any separator, with its margin.
/// Forms that need a separator through the origin require `b = 0`. `w` need not have unit length.
///
/// ```
/// use ndarray::array;
/// use novikoff::bounds::{bounds_for_separator, BoundKind};
/// use novikoff::{perceptron::PerceptronParams, Dataset};
/// let x = array![[-1.0, 2.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [-1.0, -2.0], [1.0, -1.0]];
/// let data = Dataset::new(x, array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0])?;
/// // w = (2, 0.5) has min yᵢ·w·xᵢ = 1 and ‖w‖² = 4.25, so γ = 1/√4.25 and (R/γ)² = 5·4.25 = 21.25.
/// let all = bounds_for_separator(&data, &PerceptronParams::new(), array![2.0, 0.5].view(), 0.0)?;
/// let block = all.iter().find(|b| b.kind == BoundKind::BlockNovikoff).unwrap();
/// assert!((block.value.unwrap() - 21.25).abs() < 1e-9);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn bounds_for_separator(
    data: &Dataset,
    params: &PerceptronParams,
    w: ArrayView1<'_, f64>,
    b: f64,
) -> Result<Vec<Bound>> {
    let setup = RunSetup::of(params, data.radius());
    let facts = Facts::supplied(data, w, b, setup.c)?;
    Ok(evaluate_all(&facts, &setup))
}

pub(crate) fn evaluate_all(facts: &Facts, setup: &RunSetup) -> Vec<Bound> {
    BoundKind::ALL
        .iter()
        .map(|&kind| evaluate(kind, facts, setup))
        .collect()
}

/// The hypotheses and value of one form.
pub(crate) fn evaluate(kind: BoundKind, facts: &Facts, setup: &RunSetup) -> Bound {
    let norms = &facts.norms;
    let (radius, max_sq) = (norms.radius, norms.max_sq_norm);
    let c = setup.c;
    let family = kind.rule_family();
    let mut hypotheses = vec![
        Hypothesis {
            statement: format!("the run's rule is {}", family.describe()),
            holds: family.matches(c, radius),
            detail: format!("the run uses {} (c = {c})", setup.rule),
        },
        Hypothesis {
            statement: "the run starts from w = 0, b = 0".into(),
            holds: setup.zero_start,
            detail: if setup.zero_start {
                "it does".into()
            } else {
                "initial weights were given: both lemmas start their induction at ŵ₀ = 0".into()
            },
        },
        Hypothesis {
            statement: "η > 0; the bound does not depend on η".into(),
            holds: true,
            detail: eta_detail(kind).into(),
        },
    ];
    let unit_norm = || Hypothesis {
        statement: format!("every ‖xᵢ‖ = 1 (to within {UNIT_NORM_TOL:e})"),
        holds: norms.unit_norm,
        detail: format!("‖xᵢ‖ ∈ [{}, {}]", norms.min_norm, radius),
    };
    let separable = |separation: &Separation, vectors: &str| match separation {
        Separation::Found(s) => Hypothesis {
            statement: format!("the data are separable {vectors}"),
            holds: true,
            detail: format!(
                "a separator achieves margin {}{}",
                s.gamma,
                s.gamma_upper
                    .map(|u| format!(" (the maximum is at most {u})"))
                    .unwrap_or_default()
            ),
        },
        Separation::Missing(reason) => Hypothesis {
            statement: format!("the data are separable {vectors}"),
            holds: false,
            detail: reason.clone(),
        },
    };

    // The separation the form reads, and its value as a function of the margin.
    let unit = max_sq.max(1.0);
    let (separation, formula_radius, value_of): (&Separation, f64, Box<dyn Fn(f64) -> f64>) =
        match kind {
            BoundKind::BlockNovikoff | BoundKind::Haykin => {
                hypotheses.push(separable(&facts.origin, "through the origin"));
                (&facts.origin, radius, Box::new(move |g| max_sq / (g * g)))
            }
            BoundKind::Helmbold => {
                hypotheses.push(unit_norm());
                hypotheses.push(separable(&facts.origin, "through the origin"));
                (
                    &facts.origin,
                    unit.sqrt(),
                    Box::new(move |g| unit / (g * g)),
                )
            }
            BoundKind::Cs536 => {
                hypotheses.push(unit_norm());
                hypotheses.push(separable(&facts.free, "with a free bias"));
                let offset = facts.free.found().map_or(0.0, |s| s.offset);
                hypotheses.push(Hypothesis {
                    statement: "the separator cuts the unit ball: b² ≤ ‖w‖²".into(),
                    holds: facts.free.found().is_some() && offset.abs() <= radius.max(1.0),
                    detail: format!("|b|/‖w‖ = {}", offset.abs()),
                });
                // (1 + b²)(1 + max‖x‖²)/γ² from eqs. 13, 18 and 19, which is 4/γ² on the unit sphere.
                let inflation = offset.powi(2).max(1.0);
                (
                    &facts.free,
                    unit.sqrt(),
                    Box::new(move |g| 4.0 * unit * inflation / (g * g)),
                )
            }
            BoundKind::NovikoffBias => {
                hypotheses.push(Hypothesis {
                    statement: "the set is non-trivial: both labels occur".into(),
                    holds: norms.both_classes,
                    detail: if norms.both_classes {
                        "they do".into()
                    } else {
                        "a single label occurs".into()
                    },
                });
                hypotheses.push(separable(&facts.free, "with a free bias"));
                let offset = facts.free.found().map_or(0.0, |s| s.offset);
                hypotheses.push(Hypothesis {
                    statement: "|b_opt| ≤ R (Lemma 1: ‖ŵ_opt‖² ≤ 2)".into(),
                    holds: facts.free.found().is_some() && offset.abs() <= radius,
                    detail: format!("|b|/‖w‖ = {}, R = {radius}", offset.abs()),
                });
                // ‖ŵ_opt‖² ≤ 2 and ‖x̂‖² ≤ max‖x‖² + R², i.e. (2R/γ)².
                (
                    &facts.free,
                    radius,
                    Box::new(move |g| 2.0 * (max_sq + radius * radius) / (g * g)),
                )
            }
            BoundKind::NovikoffBiasTight => {
                hypotheses.push(separable(&facts.radius_vectors, &vectors_name(radius)));
                (
                    &facts.radius_vectors,
                    radius,
                    Box::new(move |g| (max_sq + radius * radius) / (g * g)),
                )
            }
            BoundKind::Augmented => {
                hypotheses.push(separable(&facts.run_vectors, &vectors_name(c)));
                let r_sq = max_sq + c * c;
                (
                    &facts.run_vectors,
                    r_sq.sqrt(),
                    Box::new(move |g| r_sq / (g * g)),
                )
            }
        };

    let applies = hypotheses.iter().all(|h| h.holds);
    let reason = hypotheses
        .iter()
        .find(|h| !h.holds)
        .map(|h| format!("{} — no: {}", h.statement, h.detail));
    let found = separation.found();
    let mut notes: Vec<String> = kind_note(kind, c, radius).into_iter().collect();
    if let Some(note) = found.and_then(|s| s.note.clone()) {
        notes.push(note);
    }
    let earned = |v: f64| (applies && v.is_finite()).then_some(v);
    Bound {
        kind,
        name: kind.name(),
        formula: kind.formula(),
        symbols: kind.symbols(),
        source: kind.source(),
        separator: facts.source,
        applies,
        value: found.and_then(|s| earned(value_of(s.gamma))),
        value_bracket: found.and_then(|s| {
            let upper = s.gamma_upper?;
            Some([earned(value_of(upper))?, earned(value_of(s.gamma))?])
        }),
        gamma: found.map(|s| s.gamma),
        gamma_bracket: found.and_then(|s| Some([s.gamma, s.gamma_upper?])),
        radius: Some(formula_radius),
        reason,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        hypotheses,
    }
}

/// What each proof needs about η.
fn eta_detail(kind: BoundKind) -> &'static str {
    match kind {
        BoundKind::NovikoffBias | BoundKind::NovikoffBiasTight => {
            "seed 002 carries η through Lemmas 2 and 3: k·η·γ ≤ u·ŵ_k ≤ ‖ŵ_k‖ ≤ √k·η·R̂, and η cancels"
        }
        _ => {
            "the source takes η = 1; from a zero start every update of the run with η is η times the update \
             of the run with η = 1 (the bias update b += η·y·c² scales too), so in exact arithmetic the \
             mistakes are the same for every η > 0, and the lemmas with η give the same bound"
        }
    }
}

/// A remark on how a form's proof relates to the run.
fn kind_note(kind: BoundKind, c: f64, radius: f64) -> Option<String> {
    match kind {
        BoundKind::Haykin => Some(
            "stated for a cyclic pass over the data; the proof uses only the sequence of mistakes, so it \
             holds for every order; numerically the same as Block–Novikoff (β = R², α = γ)"
                .into(),
        ),
        BoundKind::NovikoffBiasTight => Some(
            "the run is the perceptron without bias on x̂ = (x, R), so Lemmas 2 and 3 with u the optimal \
             unit separator of the x̂ give k ≤ max‖x̂‖²/γ̂² ≤ 2R²/γ̂²; since γ̂ ≥ γ/√(1 + (b_opt/R)²) ≥ γ/√2, \
             this is never above (2R/γ)², and it needs no hypothesis on |b_opt|"
                .into(),
        ),
        BoundKind::Augmented if c != 0.0 && c != radius && c != 1.0 => Some(format!(
            "Simplification 1 with the constant c = {c} in place of 1"
        )),
        BoundKind::Augmented if c == radius && radius > 0.0 => Some(
            "for c = R this is the bound listed as \"Novikoff with bias, tight\"".into(),
        ),
        BoundKind::Helmbold | BoundKind::Cs536 => Some(
            "on data within the unit-norm tolerance, max(1, R²) replaces 1 so that the value stays rigorous"
                .into(),
        ),
        _ => None,
    }
}
