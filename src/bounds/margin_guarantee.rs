//! The perceptron with margin's second promise: at convergence its weights have a margin.

use serde::Serialize;

use super::bound::{RunSetup, VALUE_RTOL};
use super::geometry::Geometry;
use super::separation::Separation;
use crate::margin;
use crate::perceptron::{Fit, Variant};

/// The margin the perceptron with margin β guarantees when it converges (Collobert and Bengio 2004):
/// every update adds at least `η·γ'` to `u·ŵ` and at most `η²R'² + 2ηβ` to `‖ŵ‖²`, so after `k ≤
/// (R'² + 2β/η)/γ'²` updates `‖ŵ‖ ≤ η(R'² + 2β/η)/γ'`; at convergence every `y·ŵ·x̂ > β`, hence the
/// margin of `ŵ = (w, v)` on `x̂ = (x, c)` is at least `(β/η)·γ'/(R'² + 2β/η)`.
///
/// The margin checked is that of the augmented weights on the augmented vectors, through the origin;
/// the margin of `(w, b)` on `x` with a free bias is at least as large.
///
/// ```
/// use ndarray::array;
/// use novikoff::{bounds::verify, perceptron::{PerceptronParams, Variant}, Dataset};
/// let x = array![[-1.0, 2.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [-1.0, -2.0], [1.0, -1.0]];
/// let data = Dataset::new(x, array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0])?;
/// let verdict = verify(&data, &PerceptronParams::new().variant(Variant::Margin { beta: 5.0 }))?;
/// let guarantee = verdict.margin_guarantee.unwrap();
/// // γ = 1, R² = 5, β = 5: at least 5/15 = 1/3.
/// assert!((guarantee.promised.unwrap() - 1.0 / 3.0).abs() < 1e-6);
/// assert_eq!(guarantee.holds, Some(true));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MarginGuarantee {
    /// `(β/η)·γ'/(R'² + 2β/η)`, from the certified margin's lower end, when the vectors are separable
    /// and the run started from zero.
    pub promised: Option<f64>,
    /// The margin of the final `(w, v)` on `(x, c)` through the origin, when the run converged.
    pub achieved: Option<f64>,
    /// `achieved ≥ promised` (to [`VALUE_RTOL`]), when both are known.
    pub holds: Option<bool>,
    /// Why there is no check.
    pub reason: Option<String>,
}

/// The guarantee for a run of the perceptron with margin; `None` for the other variants.
pub(crate) fn margin_guarantee(
    geometry: &Geometry<'_>,
    setup: &RunSetup,
    run_vectors: &Separation,
    fit: &Fit,
) -> Option<MarginGuarantee> {
    let Variant::Margin { beta } = setup.variant else {
        return None;
    };
    let c = setup.c;
    let beta = beta / setup.eta;
    let promised = match run_vectors {
        Separation::Found(s) if setup.zero_start => {
            let r_sq = geometry.max_sq_norm + c * c;
            Some(beta * s.gamma / (r_sq + 2.0 * beta))
        }
        _ => None,
    };
    let achieved = fit
        .converged
        .then(|| augmented_margin(geometry, fit))
        .flatten();
    let reason = if !setup.zero_start {
        Some("the run started from non-zero weights".to_string())
    } else if promised.is_none() {
        Some("the vectors (x, c) are not separable through the origin".to_string())
    } else if !fit.converged {
        Some(
            "the run did not converge: the guarantee is about the weights at convergence"
                .to_string(),
        )
    } else if achieved.is_none() {
        Some("the final weights have no margin to measure".to_string())
    } else {
        None
    };
    let holds = match (promised, achieved) {
        (Some(p), Some(a)) => Some(a >= p * (1.0 - VALUE_RTOL)),
        _ => None,
    };
    Some(MarginGuarantee {
        promised,
        achieved,
        holds,
        reason,
    })
}

/// `minᵢ yᵢ(w·xᵢ + b)/‖(w, v)‖`, with the numerators in twice working precision.
fn augmented_margin(geometry: &Geometry<'_>, fit: &Fit) -> Option<f64> {
    let w_norm_sq = fit.w.iter().fold(0.0, |a, v| a + v * v);
    let full = (w_norm_sq + fit.bias_weight * fit.bias_weight).sqrt();
    if !(full > 0.0 && full.is_finite()) {
        return None;
    }
    if w_norm_sq == 0.0 {
        // w = 0: every yᵢ·b has the same size, |b|.
        let labels = geometry.data().labels();
        let b = fit.b;
        return Some(labels.iter().map(|y| y * b).fold(f64::INFINITY, f64::min) / full);
    }
    let m = margin::margin(geometry.data(), fit.w.view(), fit.b).ok()?;
    Some(m * w_norm_sq.sqrt() / full)
}
