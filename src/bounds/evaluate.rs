//! Each form of the theorem evaluated for a run: its hypotheses checked one by one, then its value.

use super::bound::*;
use super::geometry::*;
use super::hypotheses::common_hypotheses;
use super::kinds::BoundKind;
use crate::dataset::Dataset;
use crate::error::Result;
use crate::perceptron::{PerceptronParams, Variant};
use ndarray::ArrayView1;

/// The hypotheses and value of one form.
pub(crate) fn evaluate(kind: BoundKind, facts: &Facts, setup: &RunSetup) -> Bound {
    let norms = &facts.norms;
    let (radius, max_sq) = (norms.radius, norms.max_sq_norm);
    let c = setup.c;
    let mut hypotheses = common_hypotheses(kind, setup, radius);
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
            BoundKind::MarginPerceptron => {
                let separation = facts.run_separation(c);
                hypotheses.push(separable(separation, &vectors_name(c)));
                let r_sq = max_sq + c * c;
                let beta = match setup.variant {
                    Variant::Margin { beta } => beta,
                    _ => 0.0,
                };
                // Each update adds at most η²R'² + 2ηβ to ‖ŵ‖², and at least ηγ' to u·ŵ.
                let numerator = r_sq + 2.0 * beta / setup.eta;
                (
                    separation,
                    r_sq.sqrt(),
                    Box::new(move |g| numerator / (g * g)),
                )
            }
            BoundKind::PassiveAggressiveSeparable => {
                let separation = facts.run_separation(c);
                hypotheses.push(separable(separation, &vectors_name(c)));
                // u = û/γ' has y·u·x' ≥ 1 for every example, and ‖u‖²R'² = (R'/γ')².
                let r_sq = max_sq + c * c;
                (separation, r_sq.sqrt(), Box::new(move |g| r_sq / (g * g)))
            }
            BoundKind::FreundSchapire
            | BoundKind::ShalevShwartzSinger
            | BoundKind::PassiveAggressiveUnitNorm
            | BoundKind::PassiveAggressiveI
            | BoundKind::PassiveAggressiveII => {
                return super::any_u_forms::without_run(kind, hypotheses, facts);
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
        measure: kind.measure(),
        comparator: None,
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
/// Every form of the theorem for a run with `params` on `data`, without running: hypotheses checked and
/// values computed from the optimal separators of `geometry`.
///
/// ```
/// use ndarray::array;
/// use novikoff::bounds::{bounds, BoundKind, Geometry};
/// use novikoff::{perceptron::{BiasRule, PerceptronParams}, Dataset};
/// let data = Dataset::new(array![[3.0], [1.0]], array![1.0, -1.0])?;
/// let geometry = Geometry::compute(&data)?;
/// let all = bounds(&geometry, &PerceptronParams::new().bias(BiasRule::Novikoff))?;
/// let applicable: Vec<BoundKind> = all.iter().filter(|b| b.applies).map(|b| b.kind).collect();
/// assert_eq!(applicable, vec![BoundKind::NovikoffBias, BoundKind::NovikoffBiasTight]);
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// The forms that hold for any comparator `u` ([`BoundKind::needs_run`]) depend on the run's sequence
/// and are evaluated by [`verify()`](super::verify()); here they are left out.
pub fn bounds(geometry: &Geometry<'_>, params: &PerceptronParams) -> Result<Vec<Bound>> {
    let setup = RunSetup::of(params, geometry.radius);
    let facts = Facts::optimal(geometry, setup.c)?;
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

/// Every form that can be evaluated without the run.
pub(crate) fn evaluate_all(facts: &Facts, setup: &RunSetup) -> Vec<Bound> {
    BoundKind::ALL
        .iter()
        .filter(|kind| !kind.needs_run())
        .map(|&kind| evaluate(kind, facts, setup))
        .collect()
}
