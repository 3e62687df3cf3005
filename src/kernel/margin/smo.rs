//! The nearest-point problem in the feature space, solved by sequential minimal optimisation.
//!
//! Through the origin, `γ_K* = min ‖Σᵢ λᵢyᵢφ̂(xᵢ)‖` over the simplex `λ ≥ 0, Σλᵢ = 1` (Gordan's
//! alternative); with a free bias, `γ_K* = ½·min ‖p − q‖` over `p, q` in the classes' convex hulls, i.e.
//! the same form with one simplex per class. Both are `min ½λᵀQλ` with `Qᵢⱼ = yᵢyⱼK̂ᵢⱼ`, and read the
//! kernel only. The solver moves weight between two rows of one group at a time (Platt's SMO, in the
//! nearest-point form of Keerthi et al. 2000), choosing the pair by the second-order rule of Fan, Chen and
//! Lin (2005, LIBSVM's WSS 2); each step reads two Gram rows and costs O(n). The gradient `G = Qλ` is
//! recomputed from the weights before the solver stops, so that rounding accumulated over many steps
//! cannot stop it early. The answer is not trusted: [`super::certify`] bounds `γ_K*` from the weights.

use std::time::Instant;

use crate::error::{Error, Result};
use crate::kernel::GramCache;

/// A pair whose curvature `‖yᵢφ̂ᵢ − yⱼφ̂ⱼ‖²` is below this (relative to the diagonal) is stepped as if it
/// were this: LIBSVM's `TAU`, which keeps the step finite on duplicated points.
const TAU: f64 = 1e-12;
/// Recomputations of the gradient from scratch before the solver gives up on a tighter answer.
const MAX_REFRESHES: usize = 6;

/// The weights of a solve and how it ended.
#[derive(Debug, Clone)]
pub(super) struct Solution {
    pub(super) lambda: Vec<f64>,
    pub(super) iterations: u64,
    /// Why the solver stopped before its tolerance, if it did.
    pub(super) stopped: Option<String>,
}

/// The problem: the Gram rows, the labels, the group of each row (its class with a free bias, 0 through
/// the origin) and the augmentation `c²`.
pub(super) struct Problem<'c, 'a> {
    pub(super) cache: &'c mut GramCache<'a>,
    pub(super) labels: &'a [f64],
    pub(super) group: Vec<usize>,
    pub(super) groups: usize,
    pub(super) c_sq: f64,
}

/// The solver's limits.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Stop when every group's violation `max_{λⱼ>0} Gⱼ − min Gᵢ` is at most this times `λᵀQλ`.
    pub(super) relative: f64,
    /// Stop when `λᵀQλ` falls below this (a certificate of non-separability is at hand).
    pub(super) absolute_value: f64,
    pub(super) max_iterations: u64,
    pub(super) time_limit: Option<f64>,
}

impl Problem<'_, '_> {
    /// `G = Qλ` from scratch, from the rows of the support.
    fn gradient(&mut self, lambda: &[f64]) -> Vec<f64> {
        let n = lambda.len();
        let mut g = vec![0.0; n];
        for (j, &lambda_j) in lambda.iter().enumerate() {
            if lambda_j == 0.0 {
                continue;
            }
            let yj = self.labels[j];
            let c_sq = self.c_sq;
            let labels = self.labels;
            let row = self.cache.row(j);
            for k in 0..n {
                g[k] += lambda_j * labels[k] * yj * (row[k] + c_sq);
            }
        }
        g
    }

    /// Solve from the starting point of one row per group.
    pub(super) fn solve(&mut self, limits: Limits) -> Result<Solution> {
        let started = Instant::now();
        let n = self.labels.len();
        let diag: Vec<f64> = self
            .cache
            .diagonal()
            .iter()
            .map(|k| k + self.c_sq)
            .collect();
        if diag.iter().any(|d| !d.is_finite()) {
            return Err(Error::Solver(
                "a diagonal entry of the Gram matrix is not finite (an overflow in the kernel)"
                    .into(),
            ));
        }
        let mut lambda = vec![0.0; n];
        for g in 0..self.groups {
            // The shortest point of the group starts it.
            let start = (0..n)
                .filter(|&i| self.group[i] == g)
                .min_by(|&a, &b| diag[a].total_cmp(&diag[b]))
                .ok_or_else(|| Error::Solver(format!("group {g} has no row")))?;
            lambda[start] = 1.0;
        }
        let mut g = self.gradient(&lambda);
        let mut iterations = 0u64;
        let mut refreshes = 0;
        let mut fresh = true;
        let scale = diag
            .iter()
            .fold(0.0_f64, |m, &d| m.max(d))
            .max(f64::MIN_POSITIVE);
        loop {
            let value: f64 = lambda.iter().zip(&g).map(|(l, gi)| l * gi).sum();
            let Some((j, violation)) = self.most_violating(&lambda, &g) else {
                break;
            };
            // A tiny value is a certificate at hand only if no row scores far below it: on a matrix that
            // is not positive semi-definite the value keeps falling below zero.
            let lowest = g.iter().copied().fold(f64::INFINITY, f64::min);
            let certified = value <= limits.absolute_value
                && lowest >= -2.0 * (scale * limits.absolute_value).sqrt();
            let converged = violation <= limits.relative * value.max(0.0)
                || certified
                || violation <= 4.0 * f64::EPSILON * scale;
            if converged {
                // Confirmed on a gradient free of the steps' accumulated rounding, or given up on.
                if fresh || refreshes >= MAX_REFRESHES {
                    break;
                }
                refreshes += 1;
                g = self.gradient(&lambda);
                fresh = true;
                continue;
            }
            if iterations >= limits.max_iterations {
                return Ok(Solution {
                    lambda,
                    iterations,
                    stopped: Some(format!(
                        "the solver reached its cap of {} pair updates",
                        limits.max_iterations
                    )),
                });
            }
            if iterations.is_multiple_of(1024)
                && let Some(limit) = limits.time_limit
                && started.elapsed().as_secs_f64() > limit
            {
                return Ok(Solution {
                    lambda,
                    iterations,
                    stopped: Some(format!("the solver reached its time limit of {limit} s")),
                });
            }
            iterations += 1;
            self.step(j, &mut lambda, &mut g, &diag);
            fresh = false;
        }
        Ok(Solution {
            lambda,
            iterations,
            stopped: None,
        })
    }

    /// The row whose weight should shrink (`λⱼ > 0` and `Gⱼ` largest) in the group whose violation
    /// `max_{λ>0} G − min G` is largest, with that violation.
    fn most_violating(&self, lambda: &[f64], g: &[f64]) -> Option<(usize, f64)> {
        let mut best: Option<(usize, f64)> = None;
        for group in 0..self.groups {
            let mut up: Option<usize> = None;
            let mut low = f64::INFINITY;
            for k in 0..lambda.len() {
                if self.group[k] != group {
                    continue;
                }
                low = low.min(g[k]);
                if lambda[k] > 0.0 && up.is_none_or(|u| g[k] > g[u]) {
                    up = Some(k);
                }
            }
            if let Some(u) = up {
                let violation = g[u] - low;
                if best.is_none_or(|(_, v)| violation > v) {
                    best = Some((u, violation));
                }
            }
        }
        best
    }

    /// Move weight from `j` to the row `i` of its group that the second-order rule picks.
    fn step(&mut self, j: usize, lambda: &mut [f64], g: &mut [f64], diag: &[f64]) {
        let n = lambda.len();
        let yj = self.labels[j];
        let group = self.group[j];
        let gj = g[j];
        let (i, curvature) = {
            let labels = self.labels;
            let c_sq = self.c_sq;
            let row_j = self.cache.row(j);
            let mut best: Option<(usize, f64, f64)> = None;
            for k in 0..n {
                if self.group[k] != group || g[k] >= gj {
                    continue;
                }
                let q_jk = labels[k] * yj * (row_j[k] + c_sq);
                let mut a = diag[k] + diag[j] - 2.0 * q_jk;
                if a <= TAU * diag[j].max(diag[k]) {
                    a = TAU * diag[j].max(diag[k]).max(f64::MIN_POSITIVE);
                }
                let d = gj - g[k];
                let gain = d * d / a;
                if best.is_none_or(|(_, bg, _)| gain > bg) {
                    best = Some((k, gain, a));
                }
            }
            match best {
                Some((k, _, a)) => (k, a),
                None => return,
            }
        };
        let t = ((gj - g[i]) / curvature).min(lambda[j]);
        if t <= 0.0 {
            return;
        }
        lambda[i] += t;
        if t == lambda[j] {
            lambda[j] = 0.0;
        } else {
            lambda[j] -= t;
        }
        let yi = self.labels[i];
        let c_sq = self.c_sq;
        let labels = self.labels;
        let (row_i, row_j) = self.cache.two_rows(i, j);
        for k in 0..n {
            g[k] += t * labels[k] * (yi * (row_i[k] + c_sq) - yj * (row_j[k] + c_sq));
        }
    }
}
