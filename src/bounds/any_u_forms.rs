//! The forms that hold for any comparator `u` as [`Bound`]s: their hypotheses, and their value for the
//! best comparator the search finds on the finished run.

use super::any_u::{AnyU, Setting, aggressiveness, best, row_weights};
use super::bound::{Bound, Facts, Hypothesis, RunSetup};
use super::geometry::{Geometry, UNIT_NORM_TOL};
use super::hypotheses::common_hypotheses;
use super::kinds::BoundKind;
use crate::perceptron::Fit;

/// The unit roundoff of `f64`.
const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;

/// A form of this file as the search knows it.
fn form(kind: BoundKind) -> Option<AnyU> {
    Some(match kind {
        BoundKind::FreundSchapire => AnyU::FreundSchapire,
        BoundKind::ShalevShwartzSinger => AnyU::ShalevShwartzSinger,
        BoundKind::PassiveAggressiveUnitNorm => AnyU::UnitNorm,
        BoundKind::PassiveAggressiveI => AnyU::PaI,
        BoundKind::PassiveAggressiveII => AnyU::PaII,
        _ => return None,
    })
}

/// An empty bound of `kind` with its hypotheses.
pub(super) fn unvalued(
    kind: BoundKind,
    hypotheses: Vec<Hypothesis>,
    facts: &Facts,
    reason: Option<String>,
) -> Bound {
    let applies = hypotheses.iter().all(|h| h.holds);
    let reason = reason.or_else(|| {
        hypotheses
            .iter()
            .find(|h| !h.holds)
            .map(|h| format!("{} — no: {}", h.statement, h.detail))
    });
    Bound {
        kind,
        name: kind.name(),
        formula: kind.formula(),
        symbols: kind.symbols(),
        source: kind.source(),
        separator: facts.source,
        measure: kind.measure(),
        applies,
        value: None,
        value_bracket: None,
        gamma: None,
        gamma_bracket: None,
        radius: None,
        reason,
        note: Some(note(kind).into()),
        hypotheses,
        comparator: None,
    }
}

/// The form before a run: its hypotheses, and no value, since it is a statement about the run.
pub(crate) fn without_run(kind: BoundKind, hypotheses: Vec<Hypothesis>, facts: &Facts) -> Bound {
    let mut bound = unvalued(
        kind,
        hypotheses,
        facts,
        Some("its value depends on the run's sequence: verify computes it after the run".into()),
    );
    bound.applies = false;
    bound
}

/// How the form reads the run.
fn note(kind: BoundKind) -> &'static str {
    match kind {
        BoundKind::FreundSchapire => {
            "the sequence is every presentation up to the last update, so over several epochs every visit \
             counts again and D² grows with the epochs; u and γ are searched (the maximum-margin direction \
             and soft-margin directions), and the value is rigorous for the u and γ reported"
        }
        BoundKind::ShalevShwartzSinger => {
            "L sums the hinge loss of u over the mistake rounds only (a row counts once per mistake on it); \
             u is chosen without looking at the run, to minimise the form with L over the examples, each \
             once (minimised with L over the mistake rounds it would reach the tautology M ≤ M at u = 0), \
             and the value is rigorous for the u reported"
        }
        _ => {
            "ℓ* sums over every presentation up to the last update; u is searched, and the value is \
             rigorous for the u reported"
        }
    }
}

/// The form on a finished run.
pub(crate) fn with_run(
    kind: BoundKind,
    facts: &Facts,
    setup: &RunSetup,
    fit: &Fit,
    geometry: &Geometry<'_>,
) -> Bound {
    let norms = &facts.norms;
    let c = setup.c;
    let mut hypotheses = common_hypotheses(kind, setup, norms.radius);
    // ‖x'‖² = ‖x‖² + c² of the run's vectors.
    let (min_sq, max_sq) = (norms.min_norm.powi(2) + c * c, norms.radius.powi(2) + c * c);
    if kind == BoundKind::PassiveAggressiveUnitNorm {
        let unit = [min_sq, max_sq]
            .iter()
            .all(|sq| (sq.sqrt() - 1.0).abs() <= UNIT_NORM_TOL);
        hypotheses.push(Hypothesis {
            statement: format!("every ‖x'ᵢ‖ = ‖(xᵢ, c)‖ = 1 (to within {UNIT_NORM_TOL:e})"),
            holds: unit,
            detail: format!("‖x'ᵢ‖ ∈ [{}, {}]", min_sq.sqrt(), max_sq.sqrt()),
        });
    }
    let Some(form) = form(kind) else {
        return unvalued(kind, hypotheses, facts, Some("not a form of any u".into()));
    };
    if !hypotheses.iter().all(|h| h.holds) {
        return unvalued(kind, hypotheses, facts, None);
    }
    // R' rounded up (R itself is accurate to a few units in the last place), and the spread R'²/r'².
    let radius = max_sq.sqrt() * (1.0 + 64.0 * UNIT_ROUNDOFF);
    let spread = (max_sq / min_sq) * (1.0 + 64.0 * UNIT_ROUNDOFF);
    let n = geometry.n;
    let weights = row_weights(form, fit, n);
    // Shalev-Shwartz–Singer's u is chosen without looking at the run (every example once); the others
    // search with the weights they are evaluated with.
    let search_weights = match form {
        AnyU::ShalevShwartzSinger => vec![1.0; n],
        _ => weights.clone(),
    };
    let setting = Setting {
        radius,
        spread,
        weights: &weights,
        search_weights: &search_weights,
        aggressiveness: aggressiveness(setup.variant),
    };
    let separation = facts.run_separation(c);
    let candidates = geometry.comparators(c, separation.found());
    let found = candidates.get().and_then(|candidates| {
        best(form, &candidates.list, &setting, |chosen| {
            chosen.direction(geometry.data())
        })
    });
    let mut bound = unvalued(kind, hypotheses, facts, None);
    match found {
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
