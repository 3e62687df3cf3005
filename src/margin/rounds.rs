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
//! 1. **Working set.** Start from the `4(d + 1)` rows of each class that score lowest under the
//!    difference of the class means (one pass for the means, one for the scores). Sparse data in many
//!    dimensions can have thousands of support rows, which rounds that grow the set from a guess find
//!    slowly; there a few passes of dual coordinate descent choose the first set and its weights
//!    ([`super::descent`]), and the means' pass gives only the centre's length (for the radius).
//!    Dense data in 48 dimensions or more keep the first set and take the descent's weights on it as
//!    the exact solve's start, since a support of about `d` rows costs Wolfe's method about as many
//!    pivots; one more pass fits the set to the descent's separator
//!    (rows outside it near its margin join, which the rounds would otherwise find an exact solve
//!    at a time; rows it leaves unweighted far above the margin leave). Below 256 dimensions, where
//!    the descent (given a smaller budget there) ran out of it on a first set of `4(d + 1)` rows or
//!    more, a few Newton steps on the squared hinge loss over the fitted set, from the descent's
//!    separator, weigh the start instead ([`super::newton`]): the descent's weights are far from
//!    converged there, and are those of the set before the fit. One more pass then adds the rows
//!    that Newton's separator puts below its margin, which the descent's separator missed and a
//!    second round would have found.
//! 2. **Exact solve on the working set.** Wolfe's minimum-norm-point algorithm ([`super::polish`]) on
//!    the working set alone, warm-started from the previous round's support (or, on dense data below
//!    256 dimensions when `d/2` rows or more joined, started afresh from Newton's weights on the
//!    grown set, from the previous round's separator: the rows that joined moved its support far).
//!    On the few hundred or thousand rows of a working set each of its iterations costs
//!    microseconds, and it ends at the exact optimum of the set (an active-set method, not an interior point), which the bracket needs. A
//!    sparse set's start is factored from its rows' coordinates in their span, without a pass through
//!    its points, and the passes that remain share their rows or columns among the threads. Should
//!    it stall from a warm start, it is solved again from a cold start (the descent's weights on nearly
//!    dependent rows can start it on an active set too ill-conditioned to move); should it stall from
//!    a cold start, clarabel's interior point (when the set is low-dimensional) gives it a start, which
//!    is what an interior point does best.
//!
//!    A sparse working set whose exact solve would hold more than a quarter of the data's bytes and
//!    more than 8 MiB (its coordinates in their span and its factorisation are about `|W|²` values;
//!    text-like data have supports of thousands of rows) is solved instead by the descent's sweeps,
//!    run on to the tolerance over its rows ([`super::lean`]) in `O(|W| + d)` memory, and certified
//!    below exactly as the exact solve's answer is. Where those sweeps give up (a set they cannot
//!    separate, or one whose bounds stay apart), the exact solve takes the set over from their
//!    weights.
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
//! rows, zero elsewhere) is evaluated on the whole dataset. Memory is the dataset (the augmented points
//! `(x, c)` of [`MaxMargin::solve_augmented`] read `c` as a virtual last entry, [`super::points`]),
//! `O(n + d)` for the scores and the separator, and the exact solve's factorisation, which shares one
//! budget with the working set's points where they are copies (sparse data: its rows' coordinates in
//! their span, [`super::span`]; dense rows are read in place, and copied only while they are at most
//! an eighth of the data, [`super::store`]; a sparse set that would outweigh the data takes none of it,
//! [`super::lean`]); past it, or past the round and time limits of
//! [`MaxMarginParams`](super::MaxMarginParams), the answer is an honest `Inaccurate` with the last
//! round's rigorous bracket.

use std::time::{Duration, Instant};

use super::Bias;
use super::acceptance::{certificate_point, certificate_threshold};
use super::certificate::Certificate;
use super::certify::INTERIOR_POINT_MAX_DIM;
use super::clarabel_socp::socp_dual;
use super::lean::LeanStatus;
use super::params::MaxMargin;
use super::points::Points;
use super::polish::{PolishSettings, PolishStatus, Polished, Start, polish};
use super::problem::Problem;
use super::result::MarginResult;
use super::round_state::{Bracketed, Candidate, Rounds};
use super::store::Representation;

/// How a solve stopped by its memory budget can be certified.
const RAISE_BUDGET: &str = "a larger budget (MaxMarginParams::working_set_memory; `--working-set-mb` \
     of `margin` and `verify`, `working_set_mb` in an experiment's [measure]) may certify it";

impl MaxMargin {
    /// Solve `data` (already scaled into the safe range) in rounds, the working set holding its points as
    /// `representation` says; see the module documentation.
    pub(super) fn solve_in_rounds(
        &self,
        data: Points<'_>,
        hint: &[usize],
        representation: Representation,
    ) -> MarginResult {
        let started = Instant::now();
        let deadline = self
            .params
            .time_limit
            .map(|seconds| started + Duration::from_secs_f64(seconds));
        let mut rounds = Rounds::start(
            data,
            self.params.bias,
            hint,
            self.params.working_set_memory,
            representation,
        );
        let settings = PolishSettings {
            relative_gap: (self.params.tolerance * 0.1).min(1e-12),
            max_iterations: self.params.max_polish_iterations,
            pricing: 8,
            deadline,
            factor_values: usize::MAX,
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
            rounds.stats.working_set = rounds.store.rows().len();
            match self.lean_round(&mut rounds, deadline, &mut last) {
                LeanRound::Done(result) => return *result,
                LeanRound::Grew => continue,
                LeanRound::Exact => {}
            }
            let budget = rounds.store.budget_values();
            let Some((problem, start)) = rounds.store.prepare() else {
                let reason = format!(
                    "the working set grew to {} rows, beyond the {budget} values ({} bytes) its \
                     points may hold; {RAISE_BUDGET}",
                    rounds.store.rows().len(),
                    self.params.working_set_memory
                );
                return rounds.inaccurate(last, reason);
            };
            // One budget holds the working set's points and the exact solve's factorisation together.
            let settings = PolishSettings {
                factor_values: budget.saturating_sub(problem.copied_values()),
                ..settings
            };
            let polished = solve_working_set(problem, start, settings);
            if polished.status == PolishStatus::Zero {
                return self.not_separable(&mut rounds, polished, last);
            }
            if polished.status == PolishStatus::MemoryLimit {
                let active = if polished.iterations == 0 {
                    "its starting rows alone".to_string()
                } else {
                    format!("{} active rows", polished.rows.len())
                };
                let reason = format!(
                    "the exact solve on {} rows needed more than the {} bytes of its memory budget \
                     for the working set's points and their factorisation ({active}); \
                     {RAISE_BUDGET}",
                    rounds.store.rows().len(),
                    self.params.working_set_memory,
                );
                return rounds.inaccurate(last, reason);
            }
            if polished.status == PolishStatus::TimeLimit {
                let reason = format!(
                    "the time limit of {} s was reached during an exact solve on {} rows",
                    self.params.time_limit.unwrap_or(0.0),
                    rounds.store.rows().len()
                );
                return rounds.inaccurate(last, reason);
            }
            // This round's answer supersedes the last one's, whose separator (`d` values) goes before
            // this one's is formed rather than after.
            drop(last.take());
            let direction = rounds.store.direction(&polished);
            let candidate = rounds.candidate(direction, &polished);
            rounds.store.keep(polished.corral);
            let batch = rounds.store.rows().len().max(64);
            let violators = rounds.violators(&candidate, batch);
            if violators.is_empty() {
                return self.finish(&mut rounds, candidate);
            }
            rounds.grow(&candidate, &violators);
            last = Some(candidate);
        }
    }

    /// A round solved by [`Lean`](super::lean::Lean), where the rounds use it: its answer, the working
    /// set grown by the rows that violate its optimum, or the exact solve from its weights when it gave
    /// up or its certified bracket is wider than the tolerance.
    fn lean_round(
        &self,
        rounds: &mut Rounds<'_>,
        deadline: Option<Instant>,
        last: &mut Option<Candidate>,
    ) -> LeanRound {
        let (data, bias) = (rounds.data, self.params.bias);
        let Some(lean) = rounds.lean.as_mut() else {
            return LeanRound::Exact;
        };
        let reads = lean.reads;
        let status = lean.solve(
            data,
            bias,
            rounds.store.rows(),
            self.params.tolerance,
            deadline,
        );
        rounds.stats.passes += (lean.reads - reads).div_ceil(data.n_samples().max(1));
        match status {
            LeanStatus::Solved => {}
            LeanStatus::GaveUp => {
                rounds.store.start_from(lean.weights());
                rounds.lean = None;
                return LeanRound::Exact;
            }
            LeanStatus::TimeLimit => {
                let reason = format!(
                    "the time limit of {} s was reached during a first-order solve on {} rows",
                    self.params.time_limit.unwrap_or(0.0),
                    rounds.store.rows().len()
                );
                // In the first round there is no last answer, but the sweeps' weights bracket the
                // optimum as well as any: a pass over the data rather than no bracket at all.
                let candidate = last.take().or_else(|| rounds.lean_candidate());
                return LeanRound::Done(Box::new(rounds.inaccurate(candidate, reason)));
            }
        }
        drop(last.take());
        let Some(candidate) = rounds.lean_candidate() else {
            return LeanRound::Exact;
        };
        let batch = rounds.store.rows().len().max(64);
        let violators = rounds.violators(&candidate, batch);
        if violators.is_empty() {
            // The first-order solve's state goes before the certificate's sums are formed; its
            // weights stay, should the exact solve take over.
            let weights = rounds.lean.take().map(|lean| lean.weights());
            let (b, lower, upper) = rounds.bracket_of(&candidate);
            if self.certifies(lower, upper) {
                let w = candidate.w;
                let bracketed = Bracketed { w, b, lower, upper };
                return LeanRound::Done(Box::new(self.separable(rounds, bracketed)));
            }
            // Wider than the tolerance only by rounding that the working set's bounds did not see:
            // the exact solve, from these weights, settles it.
            rounds.store.start_from(weights.unwrap_or_default());
            *last = Some(candidate);
            return LeanRound::Exact;
        }
        rounds.grow(&candidate, &violators);
        *last = Some(candidate);
        LeanRound::Grew
    }

    /// Whether a bracket certifies the maximum margin to the tolerance.
    fn certifies(&self, lower: f64, upper: f64) -> bool {
        lower > 0.0 && upper - lower <= self.params.tolerance * upper
    }

    /// The certified answer of a bracket that certifies the maximum margin.
    fn separable(&self, rounds: &Rounds<'_>, bracketed: Bracketed) -> MarginResult {
        let Bracketed { w, b, lower, upper } = bracketed;
        MarginResult::Separable {
            gamma: 0.5 * (lower.max(0.0) + upper),
            bracket: (lower, upper),
            w,
            b,
            support: rounds.support(b, upper, self.params.tolerance),
            stats: rounds.stats,
        }
    }

    /// The answer when no row violates the working set's optimum.
    fn finish(&self, rounds: &mut Rounds<'_>, found: Candidate) -> MarginResult {
        let (status, iterations) = (found.status, found.iterations);
        let duals = found.duals.clone();
        let bracketed = rounds.bracket(found);
        if self.certifies(bracketed.lower, bracketed.upper) {
            return self.separable(rounds, bracketed);
        }
        let Bracketed { w, b, lower, upper } = bracketed;
        let gamma = 0.5 * (lower.max(0.0) + upper);
        let reason = if lower > 0.0 {
            format!(
                "relative bracket width {:.3e} exceeds the tolerance {:.1e} (polish: {status:?} after \
                 {iterations} iterations)",
                (upper - lower) / upper,
                self.params.tolerance,
            )
        } else {
            // The exact solve ended at a hull point too long to count as zero in its own coordinates,
            // where plain arithmetic cannot tell (duplicates, ties, points on a lattice): measured on
            // the data, with their own thresholds, it may still prove that no separator exists.
            let mut raw = vec![0.0; rounds.data.n_samples()];
            for (i, c) in duals {
                raw[i] = c;
            }
            match self.certificate(rounds, &raw) {
                Ok(certificate) => {
                    return MarginResult::NotSeparable {
                        certificate,
                        stats: rounds.stats,
                    };
                }
                Err(refused) => format!(
                    "no separator found and {refused} (polish: {status:?} after {iterations} \
                     iterations)"
                ),
            }
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
        polished: Polished,
        last: Option<Candidate>,
    ) -> MarginResult {
        let mut raw = vec![0.0; rounds.data.n_samples()];
        for (&k, &c) in polished.rows.iter().zip(&polished.weights) {
            raw[rounds.store.rows()[k]] = c;
        }
        let refused = match self.certificate(rounds, &raw) {
            Ok(certificate) => {
                return MarginResult::NotSeparable {
                    certificate,
                    stats: rounds.stats,
                };
            }
            Err(refused) => refused,
        };
        let reason = format!(
            "no separator found and {refused} (polish: {:?} after {} iterations)",
            polished.status, polished.iterations
        );
        let upper = match self.params.bias {
            Bias::Free => 0.5 * refused.residual,
            Bias::ThroughOrigin => refused.residual,
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

    /// The certificate of the hull point of the weights `raw` (one a row), or why it is refused
    /// ([`super::certificate::HullPoint::certifies`]).
    fn certificate(&self, rounds: &Rounds<'_>, raw: &[f64]) -> Result<Certificate, Refused> {
        let data = rounds.data;
        let bias = self.params.bias;
        let tolerance = self.params.certificate_tolerance;
        let threshold = certificate_threshold(data, tolerance);
        match certificate_point(data, bias, raw, threshold, tolerance) {
            Ok(hull) => Ok(Certificate {
                bias,
                weights: hull.weights,
                residual: hull.gap_upper,
            }),
            Err(hull) => {
                let (residual, mixed_length) =
                    hull.map_or((f64::INFINITY, 0.0), |h| (h.gap_upper, h.mixed_length));
                Err(Refused {
                    residual,
                    threshold,
                    mixed_length,
                    tolerance,
                    radius: data.radius(),
                })
            }
        }
    }
}

/// What a round of [`Lean`](super::lean::Lean) leaves the rounds to do.
enum LeanRound {
    /// Return this answer.
    Done(Box<MarginResult>),
    /// Solve the grown working set in the next round.
    Grew,
    /// Solve this round's working set exactly.
    Exact,
}

/// A hull point refused as a certificate, with what it was measured against (in the working data's
/// units, which are the user's scaled by a power of two: its `Display` gives them in units of `R`).
struct Refused {
    residual: f64,
    threshold: f64,
    mixed_length: f64,
    tolerance: f64,
    radius: f64,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let r = self.radius;
        write!(
            f,
            "the best certificate is refused: its residual, {:.3e}·R, must be at most {:.3e}·R (the \
             tolerance {:.1e} times the smaller of R and the smallest scale max|xᵢⱼ| of a non-zero \
             feature) and at most the tolerance times the mean length of the rows it mixes, {:.3e}·R",
            self.residual / r,
            self.threshold / r,
            self.tolerance,
            self.mixed_length / r
        )
    }
}

/// The exact optimum of the working set: Wolfe's polish from the warm start; should that fail (stall,
/// break down or reach its iteration limit), again from clarabel's interior-point answer when the set is
/// low-dimensional.
fn solve_working_set(problem: &Problem, start: Start, settings: PolishSettings) -> Polished {
    let all: Vec<usize> = (0..problem.n()).collect();
    let settings = PolishSettings {
        pricing: (problem.dim() / 32).clamp(8, 32),
        ..settings
    };
    let warm = !matches!(&start, Start::Weights(weights) if weights.is_empty());
    let polished = polish(problem, &all, start, settings);
    // A warm start on nearly dependent rows (the descent's weights on rows of two or three values)
    // can leave an active set so ill-conditioned that rounding stops Wolfe's method in a few
    // iterations; from a cold start it builds its own, one row at a time.
    let polished = if warm
        && matches!(
            polished.status,
            PolishStatus::Stalled | PolishStatus::Breakdown
        ) {
        let cold = polish(problem, &all, Start::Weights(Vec::new()), settings);
        if matches!(cold.status, PolishStatus::Optimal | PolishStatus::Zero) {
            cold
        } else {
            polished
        }
    } else {
        polished
    };
    if matches!(
        polished.status,
        PolishStatus::Optimal
            | PolishStatus::Zero
            | PolishStatus::TimeLimit
            | PolishStatus::MemoryLimit
    ) || problem.dim() > INTERIOR_POINT_MAX_DIM
    {
        return polished;
    }
    match socp_dual(problem, &all) {
        Some(alpha) => {
            let start: Vec<(usize, f64)> = all.iter().copied().zip(alpha).collect();
            let again = polish(problem, &all, Start::Weights(start), settings);
            if matches!(again.status, PolishStatus::Optimal | PolishStatus::Zero) {
                again
            } else {
                polished
            }
        }
        None => polished,
    }
}
