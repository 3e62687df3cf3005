//! Soft-margin separators through the origin on the augmented vectors `(x, c)`, by dual coordinate
//! descent, and the rigorous margins of a separator: the comparators of the bounds that hold on any data.
//!
//! The non-separable bounds of the perceptron's family (Freund and Schapire 1999, Shalev-Shwartz and
//! Singer 2005, Crammer et al. 2006) hold for **every** comparator vector `u`; each trades the length of
//! `u` against a loss of `u` on the sequence (squared deviations, hinge loss on the mistake rounds, …).
//! Both quantities are monotone in the bound, so the best `u` lies on the regularisation path of the
//! matching soft-margin problem,
//!
//! `min ½‖u‖² + C Σᵢ sᵢ·ℓ(yᵢ u·x̂ᵢ)`, with `ℓ` the hinge `max(0, 1 − m)` or its square,
//!
//! with the weights `sᵢ` counting how often row `i` enters the bound's sum. [`SoftMargin`] solves it
//! with the dual coordinate descent of Hsieh, Chang, Lin, Keerthi and Sundararajan (ICML 2008), the
//! method of LIBLINEAR: one coordinate of the dual at a time in a seeded random order, `O(stored
//! entries)` per pass, no matrix beyond the data. The answer is only a *candidate*: the bounds
//! evaluate whatever `u` it returns exactly, with [`certified_unit_margins`], so a loose solve gives a
//! looser bound, never a wrong one.

use crate::dataset::Dataset;
use crate::rng;
use crate::simd::Summation;

use super::accurate::{Accumulator, UNIT_ROUNDOFF, norm_bounds};

/// The loss of a soft-margin problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SoftLoss {
    /// `max(0, 1 − m)` (L1-loss SVM).
    Hinge,
    /// `max(0, 1 − m)²` (L2-loss SVM).
    SquaredHinge,
}

/// A soft-margin separator `(w, v)` of the vectors `(x, c)` through the origin, with its dual.
#[derive(Debug, Clone)]
pub(crate) struct SoftMargin {
    /// The weights of the features.
    pub(crate) w: Vec<f64>,
    /// The weight of the constant coordinate `c` (0 when `c = 0`).
    pub(crate) v: f64,
    /// The dual variables, one per row.
    pub(crate) dual: Vec<f64>,
    /// Passes made over the rows.
    pub(crate) passes: usize,
}

/// Settings of one soft-margin solve.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SoftSettings {
    pub(crate) loss: SoftLoss,
    /// The regularisation `C > 0`.
    pub(crate) c_reg: f64,
    /// The constant coordinate `c`.
    pub(crate) constant: f64,
    /// Stop when the largest violation of the optimality conditions in a pass falls below this.
    pub(crate) tolerance: f64,
    pub(crate) max_passes: usize,
    pub(crate) seed: u64,
}

impl SoftMargin {
    /// Solve with row weights `weights` (`None`: every row once), warm-started from `start`'s dual.
    pub(crate) fn solve(
        data: &Dataset,
        weights: Option<&[f64]>,
        settings: SoftSettings,
        start: Option<&SoftMargin>,
    ) -> SoftMargin {
        let (n, d) = (data.n_samples(), data.n_features());
        let labels = data.labels();
        let c = settings.constant;
        let weight = |i: usize| weights.map_or(1.0, |s| s[i]);
        // The dual's box and diagonal: hinge αᵢ ∈ [0, C·sᵢ]; squared hinge αᵢ ≥ 0 with Dᵢᵢ = 1/(2C·sᵢ).
        let upper = |i: usize| match settings.loss {
            SoftLoss::Hinge => settings.c_reg * weight(i),
            SoftLoss::SquaredHinge => f64::INFINITY,
        };
        let diagonal = |i: usize| match settings.loss {
            SoftLoss::Hinge => 0.0,
            SoftLoss::SquaredHinge => 0.5 / (settings.c_reg * weight(i)),
        };
        let mut solution = SoftMargin {
            w: vec![0.0; d],
            v: 0.0,
            dual: vec![0.0; n],
            passes: 0,
        };
        // The rows that enter the problem, and their Q̄ᵢᵢ = ‖x̂ᵢ‖² + Dᵢᵢ.
        let mut active: Vec<usize> = (0..n)
            .filter(|&i| weight(i) > 0.0 && weight(i).is_finite())
            .collect();
        let q: Vec<f64> = (0..n)
            .map(|i| {
                let sq = data
                    .row_view(i)
                    .values()
                    .iter()
                    .fold(c * c, |acc, v| acc + v * v);
                if weight(i) > 0.0 {
                    sq + diagonal(i)
                } else {
                    0.0
                }
            })
            .collect();
        active.retain(|&i| q[i] > 0.0 && q[i].is_finite());
        if let Some(start) = start {
            for &i in &active {
                solution.dual[i] = start.dual[i].clamp(0.0, upper(i));
            }
            (solution.w, solution.v) = weights_of_dual(data, &solution.dual, c);
        }
        let mut stream = rng::from_seed(settings.seed);
        let rows = data.row_arrays();
        for _ in 0..settings.max_passes {
            rng::shuffle(&mut stream, &mut active);
            solution.passes += 1;
            let (mut most, mut least) = (f64::NEG_INFINITY, f64::INFINITY);
            for &i in &active {
                let x = rows.row(i);
                let y = labels[i];
                let alpha = solution.dual[i];
                let margin = y * (x.dot(&solution.w, Summation::Fast) + solution.v * c);
                let gradient = margin - 1.0 + diagonal(i) * alpha;
                let bound = upper(i);
                let projected = if alpha <= 0.0 {
                    gradient.min(0.0)
                } else if alpha >= bound {
                    gradient.max(0.0)
                } else {
                    gradient
                };
                most = most.max(projected);
                least = least.min(projected);
                if projected != 0.0 {
                    let next = (alpha - gradient / q[i]).clamp(0.0, bound);
                    let change = (next - alpha) * y;
                    if change != 0.0 && change.is_finite() {
                        solution.dual[i] = next;
                        x.add_to(change, &mut solution.w);
                        solution.v += change * c;
                    }
                }
            }
            if active.is_empty() || most - least <= settings.tolerance {
                break;
            }
        }
        solution
    }
}

/// The separator `(w, v) = Σᵢ αᵢ·yᵢ·(xᵢ, c)` of a dual, summed in row order: a function of the dual alone,
/// so that a direction can be kept as its n dual values and rebuilt, bit for bit, when it is needed.
pub(crate) fn weights_of_dual(data: &Dataset, dual: &[f64], c: f64) -> (Vec<f64>, f64) {
    let labels = data.labels();
    let mut w = vec![0.0; data.n_features()];
    let mut v = 0.0;
    for (i, &alpha) in dual.iter().enumerate() {
        if alpha > 0.0 {
            data.row_view(i).add_to(alpha * labels[i], &mut w);
            v += alpha * labels[i] * c;
        }
    }
    (w, v)
}

/// Rigorous lower bounds on the margins `yᵢ·û·x̂ᵢ` of the unit vector `û = (w, v)/‖(w, v)‖` on the
/// vectors `x̂ᵢ = (xᵢ, c)`, one per row: each numerator in twice working precision with its error bound,
/// divided by an upper (or, for a negative numerator, lower) bound on the length, rounded outwards.
/// `None` when `(w, v)` is zero or not finite.
pub(crate) fn certified_unit_margins(
    data: &Dataset,
    w: &[f64],
    v: f64,
    c: f64,
) -> Option<Vec<f64>> {
    let mut entries = w.to_vec();
    entries.push(v);
    let (norm_lo, norm_hi) = norm_bounds(&entries, &vec![0.0; entries.len()]);
    if !(norm_lo > 0.0 && norm_hi.is_finite()) {
        return None;
    }
    let labels = data.labels();
    Some(
        (0..data.n_samples())
            .map(|i| {
                let mut acc = Accumulator::default();
                for (j, x) in data.row_view(i).entries() {
                    acc.add_product(w[j], x);
                }
                acc.add_product(v, c);
                let (value, error) = acc.result();
                let lower = labels[i] * value - error;
                let quotient = if lower >= 0.0 {
                    lower / norm_hi
                } else {
                    lower / norm_lo
                };
                // One more rounding, of the division, outwards.
                quotient - 2.0 * UNIT_ROUNDOFF * quotient.abs() - f64::from_bits(1)
            })
            .collect(),
    )
}
