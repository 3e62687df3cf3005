//! The maximum margin in rounds: an exact solve on a small working set of rows, one full pass to find
//! the rows that violate it, and a certificate from the last pass.
//!
//! # The method, and why
//!
//! The hard-margin dual is a nearest-point problem between two convex hulls (free bias) or between a
//! hull and the origin (through the origin), and its solution depends only on the support, which for
//! separable data is small: at most `d + 1` rows in general position, and typically far fewer than the
//! rows. The cost that cannot be avoided is reading the data, so the method is built around full passes:
//!
//! 1. **Working set.** Start from the rows of each class that score lowest under the difference of the
//!    class means (one pass for the means, one for the scores).
//! 2. **Exact solve on the working set.** Wolfe's minimum-norm-point algorithm ([`super::polish`]) on
//!    the working set alone, warm-started from the previous round's support. On the few hundred or
//!    thousand rows of a working set each of its iterations costs microseconds, and it ends at the exact
//!    optimum of the set (an active-set method, not an interior point), which the bracket needs. Should
//!    it stall from a cold start, clarabel's interior point (when the set is low-dimensional) gives it a
//!    start, which is what an interior point does best.
//! 3. **One pass.** `w·xᵢ` for every row with the SIMD kernel, in parallel over blocks of rows
//!    ([`super::scan`]). Rows whose margin falls below the working set's are added, worst first.
//! 4. **Certify** from the same pass: the lower end is the separator's margin on every stored row with a
//!    rigorous rounding bound (rows near the minimum evaluated again in twice working precision), the
//!    upper end the length of the working set's hull point, which is a point of the whole data's hulls.
//!
//! The nearest-point methods that work on all rows at once (Gilbert, MDM, Keerthi's combination,
//! Schlesinger–Kozinec) and dual coordinate descent as in LIBLINEAR each need a pass per step and
//! converge linearly, at a rate set by the margin: hundreds to thousands of passes for margins of 10⁻³ of
//! the radius, and even then no exact optimum. Here the passes only find the support; the optimisation
//! happens where the data are small. The bracket is rigorous after every round, whatever the
//! working set holds: a subset's maximum margin is at least the whole set's, and its hull point is a
//! point of the whole set's hulls.
//!
//! A working set that is not separable proves that the data are not: its certificate (weights on its
//! rows, zero elsewhere) is evaluated on the whole dataset. Memory is the dataset, `O(n + d)` for the
//! scores and the separator, and the working set's dense copy (in the columns its rows use), which has a
//! limit; past it, or past the round and time limits of [`MaxMarginParams`](super::MaxMarginParams), the
//! answer is an honest `Inaccurate` with the last round's rigorous bracket.

use std::time::Instant;

use ndarray::Array1;

use super::Bias;
use super::accurate::{TINY, dot2, gamma};
use super::certificate::{Certificate, HullPoint, certificate_threshold};
use super::certify::INTERIOR_POINT_MAX_DIM;
use super::clarabel_socp::socp_dual;
use super::params::MaxMargin;
use super::polish::{PolishSettings, PolishStatus, Polished, polish};
use super::problem::Problem;
use super::result::{MarginResult, SolveStats};
use super::scan::{best_bias_of_scores, certified_lower, scores_into};
use crate::dataset::Dataset;

/// The working set's dense copy may hold at most this many values (256 MiB).
const WORKING_SET_LIMIT_VALUES: usize = 32 << 20;

/// A row's position in the working set, for rows outside it.
const OUTSIDE: usize = usize::MAX;

/// The state of a solve between rounds.
struct Rounds<'a> {
    data: &'a Dataset,
    bias: Bias,
    /// The working set, in order of arrival (a row's position is its index in the subproblem).
    working: Vec<usize>,
    /// Each row's position in `working`, or [`OUTSIDE`].
    position: Vec<usize>,
    /// The fast `w·xᵢ` of the last pass, and the round that made it.
    scores: Vec<f64>,
    scored_round: usize,
    stats: SolveStats,
}

/// One round's answer: the working set's optimal direction (unit, in the data's coordinates) and its
/// dual weights on rows of the data.
struct Candidate {
    round: usize,
    w: Array1<f64>,
    duals: Vec<(usize, f64)>,
    status: PolishStatus,
    iterations: usize,
}

/// A candidate with its bias and rigorous bracket on the whole data.
struct Bracketed {
    w: Array1<f64>,
    b: f64,
    lower: f64,
    upper: f64,
}

impl MaxMargin {
    /// Solve `data` (already scaled into the safe range) in rounds; see the module documentation.
    pub(super) fn solve_in_rounds(&self, data: &Dataset) -> MarginResult {
        let started = Instant::now();
        let mut rounds = Rounds::start(data, self.params.bias);
        let settings = PolishSettings {
            relative_gap: (self.params.tolerance * 0.1).min(1e-12),
            max_iterations: self.params.max_polish_iterations,
            pricing: 8,
        };
        let mut last: Option<Candidate> = None;
        loop {
            let limit = if rounds.stats.rounds >= self.params.max_rounds {
                Some(format!(
                    "rows outside the working set still violate its optimum after {} rounds",
                    self.params.max_rounds
                ))
            } else {
                self.params
                    .time_limit
                    .filter(|&limit| {
                        rounds.stats.rounds > 0 && started.elapsed().as_secs_f64() > limit
                    })
                    .map(|limit| format!("the time limit of {limit} s was reached"))
            };
            if let Some(reason) = limit {
                return rounds.inaccurate(last, reason);
            }
            rounds.stats.rounds += 1;
            rounds.stats.working_set = rounds.working.len();
            let Some(problem) = Problem::of_rows(
                data,
                &rounds.working,
                self.params.bias,
                WORKING_SET_LIMIT_VALUES,
            ) else {
                let reason = format!(
                    "the working set grew to {} rows, beyond the {} values its dense copy may hold",
                    rounds.working.len(),
                    WORKING_SET_LIMIT_VALUES
                );
                return rounds.inaccurate(last, reason);
            };
            let start: Vec<(usize, f64)> = last
                .as_ref()
                .map(|found| {
                    found
                        .duals
                        .iter()
                        .map(|&(i, c)| (rounds.position[i], c))
                        .collect()
                })
                .unwrap_or_default();
            let polished = solve_working_set(&problem, &start, settings);
            if polished.status == PolishStatus::Zero {
                return self.not_separable(&mut rounds, &polished, last);
            }
            let candidate = rounds.candidate(&problem, &polished);
            let violators = rounds.violators(&candidate);
            if violators.is_empty() {
                return self.finish(&mut rounds, candidate);
            }
            let batch = rounds.working.len().max(64);
            for i in violators.into_iter().take(batch) {
                rounds.position[i] = rounds.working.len();
                rounds.working.push(i);
            }
            last = Some(candidate);
        }
    }

    /// The answer when no row violates the working set's optimum.
    fn finish(&self, rounds: &mut Rounds<'_>, found: Candidate) -> MarginResult {
        let (status, iterations) = (found.status, found.iterations);
        let Bracketed { w, b, lower, upper } = rounds.bracket(found);
        let gamma = 0.5 * (lower.max(0.0) + upper);
        if lower > 0.0 && upper - lower <= self.params.tolerance * upper {
            let support = rounds.support(b, upper, self.params.tolerance);
            return MarginResult::Separable {
                gamma,
                bracket: (lower, upper),
                w,
                b,
                support,
                stats: rounds.stats,
            };
        }
        let reason = if lower > 0.0 {
            format!(
                "relative bracket width {:.3e} exceeds the tolerance {:.1e} (polish: {status:?} after \
                 {iterations} iterations)",
                (upper - lower) / upper,
                self.params.tolerance,
            )
        } else {
            format!(
                "no separator found and no certificate either (polish: {status:?} after {iterations} \
                 iterations)"
            )
        };
        MarginResult::Inaccurate {
            gamma,
            bracket: (lower, upper),
            w,
            b,
            reason,
            stats: rounds.stats,
        }
    }

    /// The answer when the working set is not separable: its certificate, checked on every row.
    fn not_separable(
        &self,
        rounds: &mut Rounds<'_>,
        polished: &Polished,
        last: Option<Candidate>,
    ) -> MarginResult {
        let data = rounds.data;
        let mut raw = vec![0.0; data.n_samples()];
        for (&k, &c) in polished.rows.iter().zip(&polished.weights) {
            raw[rounds.working[k]] = c;
        }
        let threshold = certificate_threshold(data, self.params.certificate_tolerance);
        let hull = HullPoint::evaluate(data, self.params.bias, &raw);
        if let Some(hull) = hull.as_ref()
            && (hull.gap_upper <= threshold || hull.gap_upper == 0.0)
        {
            return MarginResult::NotSeparable {
                certificate: Certificate {
                    bias: self.params.bias,
                    weights: hull.weights.clone(),
                    residual: hull.gap_upper,
                },
                stats: rounds.stats,
            };
        }
        let residual = hull.map_or(f64::INFINITY, |h| h.gap_upper);
        let reason = format!(
            "no separator found and the best certificate has residual {residual:.3e} = {:.3e}·R, \
             above the tolerance {:.1e}·R (polish: {:?} after {} iterations)",
            residual / data.radius(),
            self.params.certificate_tolerance,
            polished.status,
            polished.iterations
        );
        let upper = match self.params.bias {
            Bias::Free => 0.5 * residual,
            Bias::ThroughOrigin => residual,
        };
        let mut result = rounds.inaccurate(last, reason);
        if let MarginResult::Inaccurate { bracket, gamma, .. } = &mut result
            && upper < bracket.1
        {
            bracket.1 = upper.max(bracket.0);
            *gamma = 0.5 * (bracket.0.max(0.0) + bracket.1);
        }
        result
    }
}

impl<'a> Rounds<'a> {
    /// The first working set: the rows of each class that score lowest under the difference of the class
    /// means (through the origin, the rows least aligned with the mean of the `yᵢxᵢ`).
    fn start(data: &'a Dataset, bias: Bias) -> Rounds<'a> {
        let (n, d) = (data.n_samples(), data.n_features());
        let labels = data.labels();
        let mut direction = vec![0.0; d];
        let (positives, negatives) = data.class_counts();
        for (i, &y) in labels.iter().enumerate() {
            let weight = match bias {
                Bias::ThroughOrigin => y / n as f64,
                Bias::Free if y > 0.0 => 1.0 / positives as f64,
                Bias::Free => -1.0 / negatives as f64,
            };
            data.row_view(i).add_to(weight, &mut direction);
        }
        let mut scores = Vec::new();
        scores_into(data, &direction, &mut scores);
        // Enough rows that the first set often holds the support of random data (at most d + 1 rows in general
        // position), so that the rounds that follow only repair it.
        // A sparse working set is copied dense in the columns its rows use, which grow with every row:
        // it starts small.
        let per_group = if data.is_sparse() {
            32
        } else {
            (4 * (d + 1)).clamp(32, 1024)
        };
        let mut working = Vec::new();
        let groups: &[f64] = match bias {
            Bias::Free => &[1.0, -1.0],
            Bias::ThroughOrigin => &[0.0],
        };
        for &class in groups {
            let rows: Vec<(f64, usize)> = (0..n)
                .filter(|&i| class == 0.0 || labels[i] == class)
                .map(|i| (labels[i] * scores[i], i))
                .collect();
            working.extend(lowest(rows, per_group));
        }
        let mut position = vec![OUTSIDE; n];
        for (k, &i) in working.iter().enumerate() {
            position[i] = k;
        }
        Rounds {
            data,
            bias,
            working,
            position,
            scores,
            scored_round: 0,
            stats: SolveStats {
                passes: 2,
                rounds: 0,
                working_set: 0,
            },
        }
    }

    /// The working set's optimum as a candidate, with one pass to score every row under it.
    fn candidate(&mut self, problem: &Problem, polished: &Polished) -> Candidate {
        let data = self.data;
        let mut w = problem.direction_to_data(&polished.w, data.n_features());
        let slice = w.as_slice().unwrap_or(&[]);
        let (norm2, _) = dot2(slice, slice);
        if norm2 > 0.0 && norm2.is_finite() {
            let norm = norm2.sqrt();
            w.mapv_inplace(|v| v / norm);
        }
        let candidate = Candidate {
            round: self.stats.rounds,
            w,
            duals: polished
                .rows
                .iter()
                .zip(&polished.weights)
                .map(|(&k, &c)| (self.working[k], c))
                .collect(),
            status: polished.status,
            iterations: polished.iterations,
        };
        self.score(&candidate);
        candidate
    }

    /// One pass: the fast `w·xᵢ` of every row under the candidate's direction.
    fn score(&mut self, candidate: &Candidate) {
        let w = candidate
            .w
            .as_slice()
            .expect("a fresh vector is contiguous");
        scores_into(self.data, w, &mut self.scores);
        self.scored_round = candidate.round;
        self.stats.passes += 1;
    }

    /// The rows outside the working set whose margin under the candidate falls below the working set's
    /// own, worst first.
    fn violators(&self, candidate: &Candidate) -> Vec<usize> {
        debug_assert_eq!(self.scored_round, candidate.round);
        let data = self.data;
        let labels = data.labels();
        let scores = &self.scores;
        // The working set's own bias and level, from the same fast values.
        let b_working = match self.bias {
            Bias::Free => {
                let inside_labels: Vec<f64> = self.working.iter().map(|&i| labels[i]).collect();
                let inside_scores: Vec<f64> = self.working.iter().map(|&i| scores[i]).collect();
                best_bias_of_scores(&inside_labels, &inside_scores)
            }
            Bias::ThroughOrigin => 0.0,
        };
        let level = self
            .working
            .iter()
            .map(|&i| labels[i] * (scores[i] + b_working))
            .fold(f64::INFINITY, f64::min);
        // A fast value is off by at most about k·u·R (`scan`): rows within that of the level, or within
        // 10⁻¹² of it relatively, are not violators.
        let terms = if data.is_sparse() {
            (0..data.n_samples())
                .map(|i| data.row_view(i).nnz())
                .max()
                .unwrap_or(0)
        } else {
            data.n_features()
        };
        let noise = 2.0 * gamma(terms + 2) * data.radius() + 8.0 * TINY;
        let threshold = level - noise.max(1e-12 * level.abs());
        let found: Vec<(f64, usize)> = (0..data.n_samples())
            .filter(|&i| self.position[i] == OUTSIDE)
            .map(|i| (labels[i] * (scores[i] + b_working), i))
            .filter(|&(m, _)| m < threshold)
            .collect();
        let batch = self.working.len().max(64);
        lowest(found, batch)
    }

    /// The candidate's bias and its rigorous bracket on the whole data: the lower end from a pass (the
    /// last one, when it scored this candidate), the upper end from its dual weights.
    fn bracket(&mut self, candidate: Candidate) -> Bracketed {
        if self.scored_round != candidate.round {
            self.score(&candidate);
        }
        let data = self.data;
        let w = candidate
            .w
            .as_slice()
            .expect("a fresh vector is contiguous");
        let b = match self.bias {
            Bias::Free => best_bias_of_scores(data.labels(), &self.scores),
            Bias::ThroughOrigin => 0.0,
        };
        let (lower, _) = certified_lower(data, w, b, &self.scores);
        let mut raw = vec![0.0; data.n_samples()];
        for &(i, c) in &candidate.duals {
            raw[i] = c;
        }
        let upper = HullPoint::evaluate(data, self.bias, &raw)
            .map_or(f64::INFINITY, |hull| hull.margin_upper(self.bias));
        Bracketed {
            w: candidate.w,
            b,
            lower,
            upper,
        }
    }

    /// The rows whose margin under the final `(w, b)` lies within the tolerance of the optimum, by the
    /// last pass's fast values and their error bound.
    fn support(&self, b: f64, upper: f64, tolerance: f64) -> Vec<usize> {
        let data = self.data;
        let slack = 2.0 * gamma(data.n_features().min(1 << 20) + 2) * data.radius();
        let limit = upper + tolerance * upper + slack;
        (0..data.n_samples())
            .filter(|&i| data.labels()[i] * (self.scores[i] + b) <= limit)
            .collect()
    }

    /// `Inaccurate` with the last round's bracket, or with no information at all.
    fn inaccurate(&mut self, last: Option<Candidate>, reason: String) -> MarginResult {
        match last {
            Some(candidate) => {
                let Bracketed { w, b, lower, upper } = self.bracket(candidate);
                MarginResult::Inaccurate {
                    gamma: 0.5 * (lower.max(0.0) + upper),
                    bracket: (lower, upper),
                    w,
                    b,
                    reason,
                    stats: self.stats,
                }
            }
            None => MarginResult::Inaccurate {
                gamma: 0.0,
                bracket: (f64::NEG_INFINITY, f64::INFINITY),
                w: Array1::zeros(self.data.n_features()),
                b: 0.0,
                reason,
                stats: self.stats,
            },
        }
    }
}

/// The rows of the `count` smallest scores, smallest first (ties by row).
fn lowest(mut scored: Vec<(f64, usize)>, count: usize) -> Vec<usize> {
    let order = |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    let take = count.min(scored.len());
    if take > 0 && take < scored.len() {
        scored.select_nth_unstable_by(take - 1, order);
    }
    scored.truncate(take);
    scored.sort_by(order);
    scored.into_iter().map(|(_, i)| i).collect()
}

/// The exact optimum of the working set: Wolfe's polish from the warm start; from a cold start that
/// stalls, again from clarabel's interior-point answer when the set is low-dimensional.
fn solve_working_set(
    problem: &Problem,
    start: &[(usize, f64)],
    settings: PolishSettings,
) -> Polished {
    let all: Vec<usize> = (0..problem.n()).collect();
    let settings = PolishSettings {
        pricing: (problem.dim() / 32).clamp(8, 32),
        ..settings
    };
    let polished = polish(problem, &all, start, settings);
    if matches!(polished.status, PolishStatus::Optimal | PolishStatus::Zero)
        || problem.dim() > INTERIOR_POINT_MAX_DIM
    {
        return polished;
    }
    match socp_dual(problem, &all) {
        Some(alpha) => {
            let start: Vec<(usize, f64)> = all.iter().copied().zip(alpha).collect();
            let again = polish(problem, &all, &start, settings);
            if matches!(again.status, PolishStatus::Optimal | PolishStatus::Zero) {
                again
            } else {
                polished
            }
        }
        None => polished,
    }
}
