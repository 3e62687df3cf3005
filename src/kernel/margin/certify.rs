//! The certified bracket of `γ_K*`, evaluated with the kernel itself.
//!
//! From any weights `λ ≥ 0` (per group) the solver hands over, two rigorous numbers follow, whatever
//! the solver did:
//!
//! * **lower**: the margin the separator `w = Σⱼ λⱼyⱼφ̂(xⱼ)` (with its best bias when the bias is free)
//!   achieves: `minᵢ yᵢ(fᵢ + b)/‖w‖` with `fᵢ = Σⱼ λⱼyⱼK̂ᵢⱼ` and `‖w‖² = Σᵢ λᵢyᵢfᵢ`;
//! * **upper**: the length of the hull point of the normalised weights (`½‖p − q‖` with a free bias),
//!   which bounds `γ_K*` above by duality.
//!
//! Every kernel value is an interval that contains the exact `K(xᵢ, xⱼ)` of the stored data
//! ([`Kernel::eval_interval`](crate::kernel::Kernel)), and every sum and product is taken in interval
//! arithmetic with outward rounding, so the bracket holds for the exact kernel on the stored `f64` data.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::kernel::eval::OnData;
use crate::kernel::interval::Interval;
use crate::margin::Bias;

/// Rows times support vectors above which the certification runs in parallel.
const PARALLEL_WORK: usize = 1 << 14;

/// What the weights prove.
#[derive(Debug, Clone)]
pub(super) struct Evaluation {
    /// A rigorous lower bound on the margin of the separator of the weights.
    pub(super) lower: f64,
    /// A rigorous upper bound on the length of the hull point (`‖p‖`, or `‖p − q‖` with a free bias).
    pub(super) hull_length: f64,
    /// The separator's offset (0 through the origin).
    pub(super) b: f64,
    /// `fᵢ` for every row.
    pub(super) scores: Vec<Interval>,
    /// `‖w‖²`.
    pub(super) norm_sq: Interval,
    /// A rigorous lower bound on each row's margin `yᵢ(fᵢ + b)/‖w‖`.
    pub(super) margins_lower: Vec<f64>,
}

/// `K̂(xᵢ, xⱼ) = K(xᵢ, xⱼ) + c²` as an interval.
#[inline]
fn augmented(on: &OnData<'_>, c_sq: Interval, i: usize, j: usize) -> Interval {
    on.interval(i, j).add(c_sq)
}

/// The group of a row: its class with a free bias, 0 through the origin.
pub(super) fn group_of(bias: Bias, label: f64) -> usize {
    match bias {
        Bias::Free => usize::from(label < 0.0),
        Bias::ThroughOrigin => 0,
    }
}

/// `num/den` rounded down, for `den > 0`.
#[inline]
fn divide_down(num: Interval, den: Interval) -> f64 {
    if num.lo >= 0.0 {
        (num.lo / den.hi).next_down()
    } else {
        (num.lo / den.lo).next_down()
    }
}

/// Evaluate the weights `lambda` (non-negative; each group's sum need not be 1).
pub(super) fn evaluate(on: OnData<'_>, bias: Bias, c: f64, lambda: &[f64]) -> Result<Evaluation> {
    let labels = on.data.labels();
    let n = labels.len();
    let c_sq = Interval::point(c).mul(Interval::point(c));
    let support: Vec<usize> = (0..n).filter(|&j| lambda[j] > 0.0).collect();
    let groups = if bias == Bias::Free { 2 } else { 1 };
    // Each group's total, to normalise the hull point's weights exactly as intervals.
    let mut totals = vec![Interval::ZERO; groups];
    for &j in &support {
        let g = group_of(bias, labels[j]);
        totals[g] = totals[g].add(Interval::point(lambda[j]));
    }
    if totals.iter().any(|t| t.hi <= 0.0) {
        return Err(Error::Solver(
            "every group of the nearest-point problem needs positive weight".into(),
        ));
    }
    let normalised: Vec<Interval> = support
        .iter()
        .map(|&j| {
            let t = totals[group_of(bias, labels[j])];
            let w = Interval {
                lo: (lambda[j] / t.hi).next_down(),
                hi: (lambda[j] / t.lo).next_up(),
            };
            w.scale(labels[j])
        })
        .collect();
    let in_support = {
        let mut marks = vec![usize::MAX; n];
        for (k, &j) in support.iter().enumerate() {
            marks[j] = k;
        }
        marks
    };
    // One row: fᵢ with the raw coefficients λⱼyⱼ, and, for a support row, hᵢ = Σⱼ λ̄ⱼyⱼK̂ᵢⱼ with the
    // normalised ones.
    let row = |i: usize| -> (Interval, Interval) {
        let mut f = Interval::ZERO;
        let mut h = Interval::ZERO;
        let on_support = in_support[i] != usize::MAX;
        for (k, &j) in support.iter().enumerate() {
            let kij = augmented(&on, c_sq, i, j);
            f = f.add(kij.scale(lambda[j] * labels[j]));
            if on_support {
                h = h.add(kij.mul(normalised[k]));
            }
        }
        (f, h)
    };
    let rows: Vec<(Interval, Interval)> = if n * support.len() >= PARALLEL_WORK {
        (0..n).into_par_iter().map(row).collect()
    } else {
        (0..n).map(row).collect()
    };
    let mut norm_sq = Interval::ZERO;
    let mut hull_sq = Interval::ZERO;
    for (k, &j) in support.iter().enumerate() {
        norm_sq = norm_sq.add(rows[j].0.scale(lambda[j] * labels[j]));
        hull_sq = hull_sq.add(rows[j].1.mul(normalised[k]));
    }
    if hull_sq.hi < 0.0 || norm_sq.hi < 0.0 {
        let what = if on.kernel.gram().is_some() {
            "the Gram matrix is not positive semi-definite"
        } else {
            "the kernel is not positive semi-definite on these data"
        };
        return Err(Error::parameter(
            "gram",
            format!(
                "{what}: the weights of rows {:?}… give αᵀKα ∈ [{}, {}] < 0, which no inner product can",
                &support[..support.len().min(6)],
                hull_sq.lo.min(norm_sq.lo),
                hull_sq.hi.min(norm_sq.hi)
            ),
        ));
    }
    let scores: Vec<Interval> = rows.iter().map(|r| r.0).collect();
    let b = match bias {
        Bias::ThroughOrigin => 0.0,
        Bias::Free => {
            let (mut lowest_positive, mut highest_negative) = (f64::INFINITY, f64::NEG_INFINITY);
            for (s, &y) in scores.iter().zip(labels) {
                if y > 0.0 {
                    lowest_positive = lowest_positive.min(s.mid());
                } else {
                    highest_negative = highest_negative.max(s.mid());
                }
            }
            let b = -0.5 * (lowest_positive + highest_negative);
            if b.is_finite() { b + 0.0 } else { 0.0 }
        }
    };
    let norm = norm_sq.sqrt();
    let margins_lower: Vec<f64> = if norm.lo > 0.0 && norm.is_finite() {
        scores
            .iter()
            .zip(labels)
            .map(|(f, &y)| divide_down(f.add(Interval::point(b)).scale(y), norm))
            .collect()
    } else {
        vec![f64::NEG_INFINITY; n]
    };
    let lower = margins_lower.iter().copied().fold(f64::INFINITY, f64::min);
    Ok(Evaluation {
        lower: if lower.is_nan() {
            f64::NEG_INFINITY
        } else {
            lower
        },
        hull_length: hull_sq.sqrt().hi,
        b,
        scores,
        norm_sq,
        margins_lower,
    })
}

/// A rigorous upper bound on the length of the hull point of `weights` (normalised per group), or
/// `None` when a group has no weight.
pub(super) fn hull_length(on: OnData<'_>, bias: Bias, c: f64, weights: &[f64]) -> Result<f64> {
    evaluate(on, bias, c, weights).map(|e| e.hull_length)
}
