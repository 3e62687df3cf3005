//! Each form of the theorem evaluated on a dataset: its hypotheses checked, and a value only when earned.

use ndarray::{Array1, ArrayView1};
use serde::Serialize;

use super::comparator::Comparator;
use super::geometry::{Geometry, Norms, Separation, Separator, vectors_name};
use super::kinds::{BoundKind, Measure, RuleFamily};
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::margin;
use crate::perceptron::{Augmentation, PerceptronParams, Variant};

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
/// let all = bounds(&Geometry::compute(&data)?, &PerceptronParams::new())?;
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
    /// The quantity of the run the value bounds (every form also bounds the mistakes).
    pub measure: Measure,
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
    /// For the forms that hold for any comparator `u`: the one found, with its margin quantities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparator: Option<Comparator>,
}

impl Bound {
    /// `Some(mistakes ≤ value·(1 + VALUE_RTOL))` when the bound applies, `None` otherwise.
    ///
    /// ```
    /// # use ndarray::array;
    /// # use novikoff::{bounds::{bounds, Geometry, BoundKind}, perceptron::PerceptronParams, Dataset};
    /// # let data = Dataset::new(array![[1.0, 0.0], [-1.0, 0.0]], array![1.0, -1.0])?;
    /// # let all = bounds(&Geometry::compute(&data)?, &PerceptronParams::new())?;
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
    /// # let all = bounds(&Geometry::compute(&data)?, &PerceptronParams::new())?;
    /// let block = all.iter().find(|b| b.kind == BoundKind::BlockNovikoff).unwrap();
    /// assert!((block.ratio(1).unwrap() - 1.0).abs() < 1e-6);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn ratio(&self, mistakes: u64) -> Option<f64> {
        self.value.map(|value| mistakes as f64 / value)
    }
}

/// What a run contributes to the hypotheses: its augmentation constant, whether it starts from zero, its
/// variant and its learning rate.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunSetup {
    pub(crate) rule: String,
    pub(crate) c: f64,
    pub(crate) zero_start: bool,
    pub(crate) variant: Variant,
    pub(crate) eta: f64,
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
            variant: params.variant_kind(),
            eta: params.eta,
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
    /// The separation of the vectors `(x, c)` a run with constant `c` sees.
    pub(crate) fn run_separation(&self, c: f64) -> &Separation {
        if c == 0.0 {
            &self.origin
        } else if c == self.norms.radius {
            &self.radius_vectors
        } else {
            &self.run_vectors
        }
    }

    /// From the optimal separators of a geometry; solves the `(x, c)` problem only for a `c` the geometry
    /// lacks and a form needs.
    pub(crate) fn optimal(geometry: &Geometry<'_>, c: f64) -> Result<Self> {
        let radius = geometry.radius;
        let run_vectors = if RuleFamily::AnyConstant.matches(c, radius) {
            geometry.augmented(c)?.separation(&vectors_name(c))
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
                    support: Vec::new(),
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
            weights.push(Augmentation::with_constant(constant).weight_of_bias(b));
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
