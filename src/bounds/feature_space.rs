//! The forms of the theorem in a feature space that is known only through inner products: the same
//! hypotheses and values, read from the radius and the margins a kernel solver measured.
//!
//! The forms never read the separator's coordinates, only its margin, its bracket and its offset, so a
//! separator `u = Σⱼ cⱼφ(xⱼ)` given by its margins serves them as well as a vector. The forms' `x` is then
//! `φ(x)`, `‖x‖² = K(x, x)`, and `(x, c)` is `φ(x)` augmented by `c`, whose kernel is `K + c²`.

use std::sync::Arc;

use ndarray::Array1;

use super::any_u::{AnyU, Setting, best};
use super::any_u_forms::unvalued;
use super::bound::{Bound, Facts, Hypothesis, RunSetup, SeparatorSource};
use super::comparator::Candidate;
use super::evaluate::evaluate_all;
use super::geometry::{Norms, UNIT_NORM_TOL};
use super::hypotheses::common_hypotheses;
use super::kinds::BoundKind;
use super::separation::{Separation, Separator};
use crate::perceptron::Variant;

/// The unit roundoff of `f64`.
const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;

/// A separator measured in a feature space: its certified margin, the bracket's upper end, and its
/// offset `b/‖w‖`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MeasuredSeparator {
    pub(crate) gamma: f64,
    pub(crate) gamma_upper: Option<f64>,
    pub(crate) offset: f64,
}

/// What the forms need of a feature space.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Space {
    /// `R = maxᵢ ‖φ(xᵢ)‖`.
    pub(crate) radius: f64,
    /// `maxᵢ ‖φ(xᵢ)‖²`.
    pub(crate) max_sq_norm: f64,
    /// `minᵢ ‖φ(xᵢ)‖`.
    pub(crate) min_norm: f64,
    /// Both labels occur.
    pub(crate) both_classes: bool,
    /// Through the origin, `φ(x)`.
    pub(crate) origin: Result<MeasuredSeparator, String>,
    /// With a free bias.
    pub(crate) free: Result<MeasuredSeparator, String>,
    /// `(φ(x), c)` through the origin for the run's `c`.
    pub(crate) run_vectors: Result<MeasuredSeparator, String>,
    /// `(φ(x), R)` through the origin.
    pub(crate) radius_vectors: Result<MeasuredSeparator, String>,
}

/// A comparator direction of the feature space with rigorous lower bounds on its unit margins
/// `yᵢ·û·φ̂(xᵢ)` for the run's vectors.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SpaceCandidate {
    pub(crate) origin: String,
    pub(crate) margins: Vec<f64>,
    pub(crate) natural_length: f64,
}

fn separation(measured: &Result<MeasuredSeparator, String>) -> Separation {
    match measured {
        Ok(s) => Separation::Found(Separator {
            u: Array1::zeros(0),
            offset: s.offset,
            gamma: s.gamma,
            gamma_upper: s.gamma_upper,
            support: Vec::new(),
            note: Some("measured in the feature space".into()),
        }),
        Err(reason) => Separation::Missing(reason.clone()),
    }
}

fn facts(space: &Space) -> Facts {
    Facts {
        norms: Norms {
            radius: space.radius,
            max_sq_norm: space.max_sq_norm,
            min_norm: space.min_norm,
            unit_norm: (space.min_norm - 1.0).abs() <= UNIT_NORM_TOL
                && (space.radius - 1.0).abs() <= UNIT_NORM_TOL,
            both_classes: space.both_classes,
        },
        source: SeparatorSource::Optimal,
        origin: separation(&space.origin),
        free: separation(&space.free),
        run_vectors: separation(&space.run_vectors),
        radius_vectors: separation(&space.radius_vectors),
    }
}

fn setup(rule: &str, c: f64, eta: f64) -> RunSetup {
    RunSetup {
        rule: rule.to_string(),
        c,
        zero_start: true,
        variant: Variant::Perceptron,
        eta,
    }
}

/// Every form about the data alone, in the feature space, for the plain perceptron with rule `rule`
/// (constant `c`) from zero.
pub(crate) fn data_bounds(space: &Space, rule: &str, c: f64, eta: f64) -> Vec<Bound> {
    evaluate_all(&facts(space), &setup(rule, c, eta))
}

/// Freund and Schapire's bound on a finished run in the feature space: the best of `candidates` for the
/// presentation counts `presentations` (one per row).
pub(crate) fn freund_schapire(
    space: &Space,
    rule: &str,
    c: f64,
    eta: f64,
    candidates: &[SpaceCandidate],
    presentations: &[f64],
) -> Bound {
    let kind = BoundKind::FreundSchapire;
    let facts = facts(space);
    let hypotheses: Vec<Hypothesis> = common_hypotheses(kind, &setup(rule, c, eta), space.radius);
    if !hypotheses.iter().all(|h| h.holds) {
        return unvalued(kind, hypotheses, &facts, None);
    }
    let max_sq = space.radius.powi(2) + c * c;
    let min_sq = (space.min_norm.powi(2) + c * c).max(f64::MIN_POSITIVE);
    let radius = max_sq.sqrt() * (1.0 + 64.0 * UNIT_ROUNDOFF);
    let setting = Setting {
        radius,
        spread: (max_sq / min_sq) * (1.0 + 64.0 * UNIT_ROUNDOFF),
        weights: presentations,
        search_weights: presentations,
        aggressiveness: 0.0,
    };
    let list: Vec<Candidate> = candidates
        .iter()
        .map(|c| {
            Candidate::without_direction(c.margins.clone(), c.origin.clone(), c.natural_length)
        })
        .collect();
    let mut bound = unvalued(kind, hypotheses, &facts, None);
    // A direction in the feature space has no coordinates to report.
    match best(AnyU::FreundSchapire, &list, &setting, |_| Arc::from([])) {
        Some((value, comparator)) => {
            bound.value = Some(value);
            bound.gamma = comparator.gamma;
            bound.radius = Some(radius);
            bound.comparator = Some(comparator);
        }
        None => {
            bound.applies = false;
            bound.reason = Some("no comparator direction could be evaluated on the data".into());
        }
    }
    bound
}
