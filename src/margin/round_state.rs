//! The state of a solve between rounds: the working set, the last pass's scores, and the rigorous
//! bracket of a round's answer on the whole data.

use ndarray::Array1;

use super::Bias;
use super::accurate::{TINY, dot2, gamma};
use super::certificate::HullPoint;
use super::descent::{PASS_BUDGET, Visit, descend, descend_within};
use super::first_set::{NEWTON_NEAR_MARGIN, fit_to_the_descent, heaviest, join_near};
use super::lean::{Lean, outweighs_the_data};
use super::lowest::{lowest, lowest_per_group};
use super::newton::{
    NEWTON_FIRST_SET, NEWTON_PASS_BUDGET, RESTART_SHARE, Separator, squared_hinge,
};
use super::points::Points;
use super::polish::{PolishStatus, Polished};
use super::result::{MarginResult, SolveStats};
use super::scan::{best_bias_of_scores, certified_lower, level_of_scores, scores_into};
use super::store::{Representation, Store};

/// The most rows of a sparse solve's first working set (chosen by [`descend`]).
const FIRST_SPARSE_SET: usize = 2048;

/// Dense data in this many dimensions or more start the exact solve from the weights [`descend`] gives
/// its first working set, the heaviest [`DENSE_START_TENTHS`] rows for ten dimensions, and fit the set
/// to the descent's separator ([`fit_to_the_descent`]). Wolfe's method finds a support of `|S|` rows
/// by about as many pivots, each `O(|S|·d)`, so from the class means a support of about `d` rows costs
/// `O(d³)`, against `O(d²)` a pass of the descent over the `8(d + 1)` rows of the first set. Sessions
/// 22–30 measured the start alone, which paid from 160 dimensions up (at 64 it did not: 10⁴ × 150
/// 1.06 × slower). With the fit (session 33, AMD Zen 5, five to eleven runs interleaved, medians) it
/// pays from 80: 5000 × 80 1.2 ×, 10⁴ × 100 (`benches/margin_passes`) 1.19–1.22 ×, 10⁴ × 110 1.5 ×,
/// 5000 × 120 1.5 ×, 10⁴ × 150 1.37 × and through the origin 1.07–1.34 × faster; the noisy
/// `generate noisy --n 20000 --d 80` and `--d 100` (`--flip 0.05`, proved inseparable) 1.1–1.2 ×
/// faster, 10⁴ × 90 and the hard 10⁵ × 100 the same, 10⁵ × 100 1.05–1.1 × slower (0.063 → 0.069 s,
/// the descent's passes and the fit's on its 10⁵ rows). At 64 and 70 it did not pay (5·10⁴ × 64
/// 1.14 × slower, 2·10⁴ × 70 the same). Since Newton's steps weigh the start below
/// [`NEWTON_DIMENSIONS`] (session 40) it pays from 48 (session 43, AMD Zen 4, three runs alternating
/// with the base build, medians): 26 shapes of 3000 to 10⁵ rows, the geometric mean of the
/// speed-ups 1.54 on 12 shapes in 64–75 dimensions (5·10⁴ × 64 1.32 ×, 2·10⁴ × 70 1.56–1.70 ×) and
/// 1.18 on 14 in 20–60, where those from 48 up gained 1.14–2.28 × but for 10⁴ × 60 (0.92 ×); noisy sets
/// with 1 % of labels flipped, 10⁴ × 50 and × 70, 0.8 × (0.4 and 0.7 ms more). At 32, 10⁵ × 32 0.9 ×.
const DENSE_DESCENT_DIMENSIONS: usize = 48;

/// Dense data from [`DENSE_DESCENT_DIMENSIONS`] up to this many dimensions take the first exact solve's
/// start from Newton's method on the squared hinge loss over the fitted first set ([`squared_hinge`]),
/// started from the descent's separator, where the descent ran out of its budget before its support
/// settled and the set is large ([`NEWTON_FIRST_SET`]), and restart later solves from it when many
/// rows join ([`RESTART_SHARE`]). Its steps factor a `(d + 1) × (d + 1)` Hessian. Measured (session 40, AMD Zen 5, two runs each alternating with the
/// session's base build, medians of 10–60 solves): 10⁴ × 100 7.9 → 6.0 ms, 5000 × 80 3.8 → 3.3 ms,
/// 10⁴ × 150 12.6 → 11.5 ms, 2·10⁴ × 200 40.5 → 33 ms, 2·10⁴ × 90 (γ* = 0.0056) 13.6 → 10.7 ms,
/// 5·10⁴ × 128 (γ* = 0.0022) 48.7 → 39 ms, 10⁵ × 100 53 → 41 ms, the hard 10⁵ × 100 62 → 42 ms and
/// through the origin 10⁴ × 100 9.2 → 8.7 ms; 10⁴ × 200 and × 250, 3000 × 120, 1000 × 100 and
/// 100 × 100 (whose descents settle), and the noisy 2·10⁴ × 100 and × 150 (proved inseparable) the same.
const NEWTON_DIMENSIONS: usize = 256;

/// How many of the descent's heaviest rows a dense solve starts from, in tenths of `d`. A start beyond
/// the support is slower: each row in it outside the support leaves by a deletion, and beyond `d + 1`
/// rows Carathéodory's reduction runs first. Sessions 17–23 measured `d/2` as the best (on the Intel
/// Xeon, `d` rows took the 2·10⁴ × 1000 set 1.35 s and `d/2` 1.05 s). The descent has since learnt to
/// sweep on until its support settles (see `descent`), and its heaviest rows are then mostly support
/// rows: on the AMD Zen 4 of session 29 (five runs alternating, medians) `0.9·d` rows instead of `d/2`
/// took 2·10⁴ × 1000 from 0.962 to 0.792 s, the hard 10⁴ × 1000 from 1.412 to 1.061 s, 10⁴ × 500
/// from 0.260 to 0.199 s and 10⁴ × 300 from 0.103 to 0.091 s, with 3000 × 2500 unchanged and the noisy
/// 2·10⁴ × 300 proved inseparable 1.07 × slower (0.054 → 0.058 s); `d` rows was as fast as `0.9·d`,
/// `1.2·d` and `1.5·d` slower.
const DENSE_START_TENTHS: usize = 9;

/// The state of a solve between rounds.
pub(super) struct Rounds<'a> {
    pub(super) data: Points<'a>,
    pub(super) bias: Bias,
    /// The working set and its points.
    pub(super) store: Store<'a>,
    /// Sparse data whose exact solve would outweigh the data ([`outweighs_the_data`]): the first-order
    /// solve that stands in for it ([`Lean`]), until it gives up.
    pub(super) lean: Option<Lean>,
    /// The fast `w·xᵢ` of the last pass, and the round that made it.
    scores: Vec<f64>,
    scored_round: usize,
    pub(super) stats: SolveStats,
}

/// One round's answer: the working set's optimal direction (unit, in the data's coordinates) and its
/// dual weights on rows of the data.
pub(super) struct Candidate {
    round: usize,
    pub(super) w: Array1<f64>,
    pub(super) duals: Vec<(usize, f64)>,
    pub(super) status: PolishStatus,
    pub(super) iterations: usize,
}

/// A candidate with its bias and rigorous bracket on the whole data.
pub(super) struct Bracketed {
    pub(super) w: Array1<f64>,
    pub(super) b: f64,
    pub(super) lower: f64,
    pub(super) upper: f64,
}

impl<'a> Rounds<'a> {
    /// The first working set. Dense data: the rows of each class that score lowest under the difference
    /// of the class means (through the origin, the rows least aligned with the mean of the `yᵢxᵢ`); the
    /// same pass gives the centre of the dense working set's coordinates (the mean of the rows); from
    /// [`DENSE_DESCENT_DIMENSIONS`] up, the weights [`descend`] gives that set start the solve, and the
    /// set is fitted to the descent's separator ([`fit_to_the_descent`]); below [`NEWTON_DIMENSIONS`],
    /// where Newton's steps weigh the start instead, the rows their separator puts below its margin
    /// join too ([`join_near`]). Sparse
    /// data: the `hint` (a related problem's support) when there is one and the working set is held in
    /// its span, otherwise the rows that a few passes of coordinate descent leave with a positive
    /// weight ([`descend`]), with those weights as the first solve's start (read in place, only the
    /// heaviest [`DENSE_START_TENTHS`] rows for ten dimensions, as for dense data: all of them stalled
    /// Wolfe's method on rows of three values in 400 columns). The working set holds its points as
    /// `representation` says.
    pub(super) fn start(
        data: Points<'a>,
        bias: Bias,
        hint: &[usize],
        working_set_memory: usize,
        representation: Representation,
    ) -> Rounds<'a> {
        let (n, d) = (data.n_samples(), data.n_features());
        let labels = data.labels();
        let (positives, negatives) = data.data().class_counts();
        // The class sums become the direction and the centre where they lie, and the direction goes
        // once it has scored the rows: with a million columns each of these vectors is 11 MB, and the
        // descent that follows is the solve's peak on sparse data.
        let (mut direction, mut centre) = (vec![0.0; d], vec![0.0; d]);
        data.add_by_class(&mut direction, &mut centre);
        let (p, q) = (positives.max(1) as f64, negatives.max(1) as f64);
        for (positive, negative) in direction.iter_mut().zip(centre.iter_mut()) {
            let (sum_positive, sum_negative) = (*positive, *negative);
            *positive = match bias {
                Bias::ThroughOrigin => (sum_positive - sum_negative) / n as f64,
                Bias::Free => sum_positive / p - sum_negative / q,
            };
            *negative = (sum_positive + sum_negative) / n as f64;
        }
        let centre_length = crate::dataset::norm(centre.iter().copied());
        // A working set in its span is not centred (`span`): its centre goes now, not at the end.
        if representation == Representation::Span {
            centre = Vec::new();
        }
        let from_the_hint = representation == Representation::Span && !hint.is_empty();
        // The sparse descent scores the rows itself; the means' scores would live through its peak.
        let descends = !from_the_hint && data.is_sparse();
        let mut scores = Vec::new();
        if !descends {
            scores_into(data, &direction, &mut scores);
        }
        drop(direction);
        let groups: &[f64] = match bias {
            Bias::Free => &[1.0, -1.0],
            Bias::ThroughOrigin => &[0.0],
        };
        let mut start_weights = Vec::new();
        let mut descent_bias = 0.0;
        let mut passes = if descends { 1 } else { 2 }; // The class sums', and the scores'.
        let first = if from_the_hint {
            // A related problem's support: most of this one's, found already.
            let mut first: Vec<usize> = hint.iter().copied().filter(|&i| i < n).collect();
            first.sort_unstable();
            first.dedup();
            let mut chosen = vec![false; n];
            for &i in &first {
                chosen[i] = true;
            }
            first.extend(lowest_per_group(labels, groups, 8, |i| {
                (!chosen[i]).then(|| labels[i] * scores[i])
            }));
            first
        } else if descends {
            // Sparse data in many dimensions can have thousands of support rows: a few passes of dual
            // coordinate descent find most of them (see `descent`), and their weights start the solve.
            let found = descend(data, bias, Visit::Every);
            passes += found.passes;
            descent_bias = found.b;
            let supported = (0..n)
                .filter(|&i| found.alpha[i] > 0.0)
                .map(|i| (found.margins[i], i));
            let mut first = lowest(supported, FIRST_SPARSE_SET);
            first.extend(lowest_per_group(labels, groups, 8, |i| {
                (found.alpha[i] == 0.0).then(|| found.margins[i])
            }));
            start_weights = if representation == Representation::Span {
                first
                    .iter()
                    .enumerate()
                    .filter(|&(_, &i)| found.alpha[i] > 0.0)
                    .map(|(k, &i)| (k, found.alpha[i]))
                    .collect()
            } else {
                heaviest(&first, &found.alpha, (DENSE_START_TENTHS * d).div_ceil(10))
            };
            first
        } else {
            // Enough rows that the first set often holds the support of random data (at most d + 1 rows
            // in general position), so that the rounds that follow only repair it. Not capped: the rows
            // are read in place (`Store`), so a large first set costs no memory, and where the support
            // is a thousand rows in a thousand dimensions, one round on most of the data beats several
            // that find the support a batch at a time (the hard 10⁴ × 1000 of `benches/margin_passes`).
            let per_group = (4 * (d + 1)).max(32);
            let mut first =
                lowest_per_group(labels, groups, per_group, |i| Some(labels[i] * scores[i]));
            if d >= DENSE_DESCENT_DIMENSIONS {
                // Supports of hundreds of rows in hundreds of dimensions: the descent on the first set
                // finds most of them for a few passes' cost, where the exact solve would find them by
                // as many pivots (see `descent`).
                // The shorter budget only where Newton's steps may follow; where they cannot, the
                // descent's own weights start Wolfe's method, and the longer descent starts it nearer.
                let newton_may_follow =
                    d < NEWTON_DIMENSIONS && first.len() >= NEWTON_FIRST_SET * (d + 1);
                let budget = if newton_may_follow {
                    NEWTON_PASS_BUDGET
                } else {
                    PASS_BUDGET
                };
                let found = descend_within(data, bias, first.clone(), budget);
                passes += (found.passes * first.len()).div_ceil(n.max(1));
                // The class means' scores have chosen `first`: their buffer takes the descent's.
                passes += fit_to_the_descent(data, &found, &mut first, d, &mut scores);
                let start = (DENSE_START_TENTHS * d).div_ceil(10);
                // Newton's method on the fitted set, from the descent's separator, where the Hessian
                // is small enough and the descent ran out of its budget before its support settled
                // (see `newton`); the descent's own weights where it settled (they start Wolfe's
                // method near its answer: 1000 × 100 took 1.1 ms from them and 2.7 ms after Newton's
                // steps), or where the steps cannot be taken.
                // Checked again on the fitted set, which the fit may have shrunk.
                let newton = (newton_may_follow
                    && !found.settled
                    && first.len() >= NEWTON_FIRST_SET * (d + 1))
                    .then(|| {
                        let separator = (&found.w[..], found.b);
                        squared_hinge(data, bias, &first, separator, Separator::Descent)
                    })
                    .flatten();
                if let Some(newton) = &newton {
                    passes += newton.reads.div_ceil(n.max(1));
                    // Rows its separator puts below the margin join (see `NEWTON_NEAR_MARGIN`).
                    let (w, b) = &newton.separator;
                    passes += join_near(
                        data,
                        (w, *b),
                        &mut first,
                        d,
                        NEWTON_NEAR_MARGIN,
                        &mut scores,
                    );
                }
                let weights = newton
                    .as_ref()
                    .map_or(&found.alpha, |newton| &newton.weights);
                start_weights = heaviest(&first, weights, start);
            }
            first
        };
        // Every translated row is within R + ‖centre‖ of the origin (a little more for rounding).
        let radius = match bias {
            Bias::Free => (data.radius() + centre_length) * (1.0 + 1e-12),
            Bias::ThroughOrigin => data.radius(),
        };
        let mut store = Store::new(
            data,
            bias,
            centre,
            radius,
            working_set_memory,
            representation,
        );
        store.extend(&first);
        let lean = (representation == Representation::Span
            && outweighs_the_data(data, first.len()))
        .then(|| Lean::new(data, bias, &first, &start_weights, descent_bias));
        store.start_from(start_weights);
        Rounds {
            data,
            bias,
            store,
            lean,
            scores,
            scored_round: 0,
            stats: SolveStats {
                passes,
                rounds: 0,
                working_set: 0,
            },
        }
    }

    /// The working set's optimum as a candidate, with one pass to score every row under it.
    /// `w` is the solve's direction in the data's coordinates.
    pub(super) fn candidate(&mut self, w: Array1<f64>, polished: &Polished) -> Candidate {
        let rows = self.store.rows();
        let duals = polished
            .rows
            .iter()
            .zip(&polished.weights)
            .map(|(&k, &c)| (rows[k], c))
            .collect();
        self.candidate_of(w, duals, polished.status, polished.iterations)
    }

    /// The answer of [`Lean`] on the working set as a candidate, with one pass to score every row.
    pub(super) fn lean_candidate(&mut self) -> Option<Candidate> {
        let lean = self.lean.as_mut()?;
        let w = Array1::from(lean.take_direction());
        let duals = lean.duals(self.store.rows());
        let sweeps = lean.sweeps;
        Some(self.candidate_of(w, duals, PolishStatus::Optimal, sweeps))
    }

    /// A candidate of the direction `w` (normalised here) and the dual weights `duals` on rows of the
    /// data, with one pass to score every row. A first-order answer carries the status `Optimal` (the
    /// working set's optimum to the tolerance) and its sweeps as iterations: the status only words the
    /// reasons of answers that fall short, and those come from exact solves.
    fn candidate_of(
        &mut self,
        mut w: Array1<f64>,
        duals: Vec<(usize, f64)>,
        status: PolishStatus,
        iterations: usize,
    ) -> Candidate {
        let slice = w.as_slice().unwrap_or(&[]);
        let (norm2, _) = dot2(slice, slice);
        if norm2 > 0.0 && norm2.is_finite() {
            let norm = norm2.sqrt();
            w.mapv_inplace(|v| v / norm);
        }
        let candidate = Candidate {
            round: self.stats.rounds,
            w,
            duals,
            status,
            iterations,
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
    /// own, worst first, at most `limit` of them.
    pub(super) fn violators(&self, candidate: &Candidate, limit: usize) -> Vec<usize> {
        debug_assert_eq!(self.scored_round, candidate.round);
        let data = self.data;
        let labels = data.labels();
        let scores = &self.scores;
        let (b_working, level) = self.working_level();
        // A fast value is off by at most about k·u·R (`scan`): rows within that of the level, or within
        // 10⁻¹² of it relatively, are not violators.
        let terms = if data.is_sparse() {
            (0..data.n_samples())
                .map(|i| data.row(i).nnz())
                .max()
                .unwrap_or(0)
        } else {
            data.n_features()
        };
        let noise = 2.0 * gamma(terms + 2) * data.radius() + 8.0 * TINY;
        let threshold = level - noise.max(1e-12 * level.abs());
        let found = (0..data.n_samples())
            .filter(|&i| !self.store.contains(i))
            .map(|i| (labels[i] * (scores[i] + b_working), i))
            .filter(|&(m, _)| m < threshold);
        lowest(found, limit)
    }

    /// The working set's own bias under the last pass's scores, and its lowest margin there, from the
    /// same fast values.
    fn working_level(&self) -> (f64, f64) {
        let labels = self.data.labels();
        let working = self.store.rows();
        let inside_labels: Vec<f64> = working.iter().map(|&i| labels[i]).collect();
        let inside_scores: Vec<f64> = working.iter().map(|&i| self.scores[i]).collect();
        level_of_scores(self.bias, &inside_labels, &inside_scores)
    }

    /// Add `violators` to the working set, and start the next exact solve afresh from Newton's method
    /// ([`squared_hinge`] on the grown set, from the candidate's separator) when `d / RESTART_SHARE`
    /// rows or more join a dense set in [`DENSE_DESCENT_DIMENSIONS`] to [`NEWTON_DIMENSIONS`]
    /// dimensions; otherwise it resumes from where the last one ended.
    pub(super) fn grow(&mut self, candidate: &Candidate, violators: &[usize]) {
        debug_assert_eq!(self.scored_round, candidate.round);
        let d = self.data.n_features();
        let restart = !self.data.is_sparse()
            && (DENSE_DESCENT_DIMENSIONS..NEWTON_DIMENSIONS).contains(&d)
            && violators.len() * RESTART_SHARE >= d;
        // The separator in the scale of the constraints `yᵢ(w·xᵢ + b) ≥ 1` on the working set before
        // the violators join it: its support rows at 1, the violators below.
        if !restart {
            self.store.extend(violators);
            return;
        }
        let (b, level) = self.working_level();
        self.store.extend(violators);
        if !(level > 0.0 && level.is_finite()) {
            return;
        }
        let w: Vec<f64> = candidate.w.iter().map(|v| v / level).collect();
        let rows = self.store.rows();
        let separator = (&w[..], b / level);
        if let Some(newton) =
            squared_hinge(self.data, self.bias, rows, separator, Separator::Optimum)
        {
            let start = heaviest(rows, &newton.weights, (DENSE_START_TENTHS * d).div_ceil(10));
            self.store.start_from(start);
            self.stats.passes += newton.reads.div_ceil(self.data.n_samples().max(1));
        }
    }

    /// The candidate's bias and its rigorous bracket on the whole data: the lower end from a pass (the
    /// last one, when it scored this candidate), the upper end from its dual weights.
    pub(super) fn bracket(&mut self, candidate: Candidate) -> Bracketed {
        let (b, lower, upper) = self.bracket_of(&candidate);
        Bracketed {
            w: candidate.w,
            b,
            lower,
            upper,
        }
    }

    /// [`Rounds::bracket`] without the direction: `(b, lower, upper)`.
    pub(super) fn bracket_of(&mut self, candidate: &Candidate) -> (f64, f64, f64) {
        if self.scored_round != candidate.round {
            self.score(candidate);
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
        let upper =
            HullPoint::margin_upper_of(data, self.bias, &candidate.duals).unwrap_or(f64::INFINITY);
        (b, lower, upper)
    }

    /// The rows whose margin under the final `(w, b)` lies within the tolerance of the optimum, by the
    /// last pass's fast values and their error bound.
    pub(super) fn support(&self, b: f64, upper: f64, tolerance: f64) -> Vec<usize> {
        let data = self.data;
        let slack = 2.0 * gamma(data.n_features().min(1 << 20) + 2) * data.radius();
        let limit = upper + tolerance * upper + slack;
        (0..data.n_samples())
            .filter(|&i| data.labels()[i] * (self.scores[i] + b) <= limit)
            .collect()
    }

    /// `Inaccurate` with the last round's bracket, or with no information at all.
    pub(super) fn inaccurate(&mut self, last: Option<Candidate>, reason: String) -> MarginResult {
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
