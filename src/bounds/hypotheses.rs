//! The hypotheses every form of the theorem states about the run: its bias rule, its start, its variant
//! and its step.

use super::bound::{Hypothesis, RunSetup};
use super::kinds::BoundKind;

/// The hypotheses every form states: the bias rule, the start at zero, the variant, and the step.
pub(crate) fn common_hypotheses(kind: BoundKind, setup: &RunSetup, radius: f64) -> Vec<Hypothesis> {
    let c = setup.c;
    let family = kind.rule_family();
    vec![
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
            statement: format!("the run is {}", kind.variants()),
            holds: kind.speaks_of(setup.variant),
            detail: format!("the run is {}", setup.variant.name()),
        },
        Hypothesis {
            statement: eta_statement(kind).into(),
            holds: true,
            detail: eta_detail(kind).into(),
        },
    ]
}

/// What each form assumes about the step.
fn eta_statement(kind: BoundKind) -> &'static str {
    match kind {
        BoundKind::MarginPerceptron => "η > 0; the bound scales β by 1/η",
        BoundKind::PassiveAggressiveSeparable
        | BoundKind::PassiveAggressiveUnitNorm
        | BoundKind::PassiveAggressiveI
        | BoundKind::PassiveAggressiveII => "the step is Passive–Aggressive's τ (η = 1)",
        _ => "η > 0; the bound does not depend on η",
    }
}

/// What each proof needs about η.
fn eta_detail(kind: BoundKind) -> &'static str {
    match kind {
        BoundKind::MarginPerceptron => {
            "the run with η and β is η times the run with η = 1 and β/η (the test y·w·x ≤ β scales with w), \
             so the bound with η = 1 applies with β/η"
        }
        BoundKind::PassiveAggressiveSeparable
        | BoundKind::PassiveAggressiveUnitNorm
        | BoundKind::PassiveAggressiveI
        | BoundKind::PassiveAggressiveII => {
            "Passive–Aggressive has no learning rate: each step τ is the paper's closed form"
        }
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
