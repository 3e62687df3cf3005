//! Certification: a candidate separator's margin evaluated on the stored data with a rounding bound, the best bias of a direction, and the answer scaled back to the data's units.

use ndarray::ArrayView1;

use super::accurate::{dot2, norm_bounds, round_down, row_dot2, row_dot2_plus};

use super::points::Points;
use super::result::MarginResult;
use super::scale::Scaled;
use crate::dataset::Dataset;
use crate::error::{Error, Result};

/// An answer for the working data of `scaled` as an answer for the original data: lengths scaled back,
/// lower bounds rounded down and upper bounds up.
pub(super) fn scale_back(scaled: &Scaled<'_>, result: MarginResult) -> MarginResult {
    if scaled.shift() == 0 {
        return result;
    }
    // The certified margin of (w, b) moves by at most |Δb| ≤ 2⁻¹⁰⁷⁴ when b rounds on the way back: one
    // step down covers it.
    let lower_of = |lower: f64, exact_b: bool| {
        let lower = scaled.back_lower(lower);
        if exact_b { lower } else { lower.next_down() }
    };
    match result {
        MarginResult::Separable {
            gamma,
            bracket,
            w,
            b,
            support,
            stats,
        } => {
            let (b, exact_b) = scaled.back_bias(b);
            MarginResult::Separable {
                gamma: scaled.back(gamma),
                bracket: (lower_of(bracket.0, exact_b), scaled.back_upper(bracket.1)),
                w,
                b,
                support,
                stats,
            }
        }
        MarginResult::Inaccurate {
            gamma,
            bracket,
            w,
            b,
            reason,
            stats,
        } => {
            let (b, exact_b) = scaled.back_bias(b);
            MarginResult::Inaccurate {
                gamma: scaled.back(gamma),
                bracket: (lower_of(bracket.0, exact_b), scaled.back_upper(bracket.1)),
                w,
                b,
                reason,
                stats,
            }
        }
        MarginResult::NotSeparable {
            mut certificate,
            stats,
        } => {
            certificate.residual = scaled.back_upper(certificate.residual);
            MarginResult::NotSeparable { certificate, stats }
        }
    }
}

/// Check an answer against its own preconditions before anyone sees it: a bracket is ordered and has no
/// NaN, a certified bracket is finite, and a certificate verifies on the original data within
/// `tolerance`. A certified answer that is false is the one outcome this crate must never produce, so a
/// failed check is an error, never a weaker answer dressed up as a stronger one.
pub(super) fn checked(
    data: Points<'_>,
    result: MarginResult,
    tolerance: f64,
) -> Result<MarginResult> {
    let broken = |what: String| Err(Error::Solver(format!("refusing a result that {what}")));
    match result {
        MarginResult::Separable { bracket, .. } | MarginResult::Inaccurate { bracket, .. }
            if bracket.0.is_nan() || bracket.1.is_nan() || bracket.0 > bracket.1 =>
        {
            broken(format!(
                "fails its own check: the bracket [{}, {}] is not an interval",
                bracket.0, bracket.1
            ))
        }
        MarginResult::Separable {
            gamma,
            bracket,
            w,
            b,
            stats,
            ..
        } if !(bracket.0 > 0.0 && bracket.1.is_finite() && b.is_finite()) => {
            // Scaling back overflowed (a margin near f64::MAX) or left the normal numbers (a margin
            // below f64::MIN_POSITIVE, whose lower end rounds down to 0): the bracket is still rigorous.
            let reason = if bracket.1.is_finite() && b.is_finite() {
                format!(
                    "the margin, about {gamma:e}, is below the smallest normal f64 ({:e}): \
                     scaled back to the data, its certified lower end rounds down to 0",
                    f64::MIN_POSITIVE
                )
            } else {
                "the bracket or the bias is beyond the range of f64".to_string()
            };
            Ok(MarginResult::Inaccurate {
                gamma,
                bracket,
                w,
                b,
                reason,
                stats,
            })
        }
        MarginResult::NotSeparable { certificate, .. }
            if !certificate.verify_points(data, tolerance) =>
        {
            broken(format!(
                "claims non-separability with a certificate (residual {:e}) that does not verify \
                 within {tolerance:e}",
                certificate.residual
            ))
        }
        other => Ok(other),
    }
}

/// Above this many (reduced) dimensions the interior-point solve is skipped: its dense factorisations
/// grow much faster than the polish's passes over the data.
pub(super) const INTERIOR_POINT_MAX_DIM: usize = 200;

/// The bias that maximises the margin of the direction `w`: halfway between the classes' projections.
pub(crate) fn best_bias(data: &Dataset, w: ArrayView1<'_, f64>) -> f64 {
    let w = w.to_vec();
    let mut lowest_positive = f64::INFINITY;
    let mut highest_negative = f64::NEG_INFINITY;
    for (i, &y) in data.labels().iter().enumerate() {
        let (s, _) = row_dot2(&w, data.row_view(i));
        if y > 0.0 {
            lowest_positive = lowest_positive.min(s);
        } else {
            highest_negative = highest_negative.max(s);
        }
    }
    if lowest_positive.is_finite() && highest_negative.is_finite() {
        // `+ 0.0` turns a negative zero into zero.
        -0.5 * (lowest_positive + highest_negative) + 0.0
    } else {
        0.0
    }
}

/// A rigorous lower bound on the exact margin `minᵢ yᵢ(w·xᵢ + b)/‖w‖` of the stored data.
pub(crate) fn certified_margin(data: &Dataset, w: ArrayView1<'_, f64>, b: f64) -> f64 {
    let w = w.to_vec();
    let (norm2, e) = dot2(&w, &w);
    let (norm_lo, norm_hi) = norm_bounds(
        &[norm2.sqrt()],
        &[e / (2.0 * norm2.sqrt().max(f64::MIN_POSITIVE))],
    );
    if norm_lo <= 0.0 {
        return f64::NEG_INFINITY;
    }
    let mut lower = f64::INFINITY;
    for (i, &y) in data.labels().iter().enumerate() {
        let (s, err) = row_dot2_plus(&w, data.row_view(i), b);
        let numerator = round_down(y * s - err);
        let m = if numerator >= 0.0 {
            numerator / norm_hi
        } else {
            numerator / norm_lo
        };
        lower = lower.min(round_down(m));
    }
    lower
}
