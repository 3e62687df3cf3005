//! A sparse working set's optimum by dual coordinate descent, in memory linear in the set: the exact
//! solve's stand-in where its factorisation would outweigh the data.
//!
//! The exact solve of [`super::rounds`] holds a sparse working set as its rows' coordinates in their
//! span and factors its active set: about `|W|²` values. On text-like data the support holds thousands
//! of rows, and those values can weigh more than the data: on the rcv1-shaped file of the README
//! (18.3 MB stored, 1662 working rows) the exact solve peaked at 49.7 MB, where reading the file takes
//! 24.8 MB. Where the exact solve would hold more than a quarter of the data's bytes and more than
//! 8 MiB ([`outweighs_the_data`]), this module solves the working set instead, by the sweeps
//! of [`super::descent`] (Hsieh et al., ICML 2008, on the hard-margin dual; a free bias as the
//! multiplier of `Σαᵢyᵢ = 0` in an augmented Lagrangian) run on to the tolerance over the working
//! set's rows alone, each step over-relaxed ([`RELAXATION`]). It holds a weight and a squared length a
//! row and one vector of `d` values: `O(|W| + d)`.
//!
//! It converges linearly, so every [`CHECK_SWEEPS`] sweeps it measures how far it is: the hull point
//! of its weights (each class's weights normalised: `½‖p − q‖` with a free bias, `‖Σαᵢyᵢxᵢ‖/Σαᵢ`
//! through the origin) is an upper bound on the working set's maximum margin, and that direction's
//! margin on the working set's rows a lower bound. It stops when they agree to half the tolerance,
//! and the rounds then certify its answer as they certify the exact solve's, on every row of the data:
//! the lower end from a pass with a rounding bound, the upper end from its weights' hull point. Nothing
//! about the answer's rigour depends on this module; only its speed and memory do. The price is the
//! bracket's width: the exact solve ends at the working set's optimum, about 10⁻¹¹ wide, where this
//! stops at the tolerance asked for, and each tenfold narrowing costs more sweeps.
//!
//! It gives up where the exact solve does better: when the working set looks inseparable (its lower
//! bound still not positive after [`HOPELESS_SWEEPS`] sweeps, where only the exact solve can give a
//! certificate), or when [`MAX_SWEEPS`] sweeps leave the bounds apart (ill-conditioned sets, whose
//! linear rate is slow). The rounds then solve the set exactly from its weights.

use std::time::Instant;

use super::Bias;
use super::certificate::group;
use super::descent::bias_penalty;
use super::points::Points;
use super::scan::{best_bias_of_scores, level_of_scores};
use crate::rng;
use crate::simd::Summation;

/// The sweeps between two measurements of the bounds. A measurement reads the working set twice (the
/// hull point, then the rows' scores under it), so it costs about two sweeps.
const CHECK_SWEEPS: usize = 16;
/// The most sweeps of one round's solve.
pub(super) const MAX_SWEEPS: usize = 4000;
/// The sweeps after which a working set whose lower bound is not yet positive is left to the exact
/// solve, which proves inseparability where this cannot.
pub(super) const HOPELESS_SWEEPS: usize = 256;
/// The share of the tolerance that the working set's bounds must reach: the certified bracket on the
/// whole data adds its rounding bounds to theirs.
const TARGET_SHARE: f64 = 0.5;

/// Each step goes this far past the minimum along its weight (successive over-relaxation, as
/// Mangasarian and Musicant (IEEE TNN 1999) use on the SVM's dual; it converges for factors in (0, 2)).
/// Measured on five generated sparse files of `docs/max-margin-history.md` at the default tolerance
/// (session 52, one run each): 1.5 read 1.2–1.4 × fewer rows than plain steps (rcv1-shaped: 65
/// passes' worth instead of 85), and 1.8 about as many as 1.5.
const RELAXATION: f64 = 1.5;

/// A sparse working set whose exact solve would hold more than this share of the data's stored bytes,
/// and more than [`LEAN_FLOOR`], is solved by [`Lean`] instead: the exact solve holds about `|W|²`
/// values (its rows' coordinates in their span and its factorisation), the first-order solve
/// `O(|W| + d)`, and #14 asks that a solve's peak stay under 1.5 × the data.
const LEAN_SHARE: f64 = 0.25;

/// The bytes below which the exact solve is kept whatever the data's size (a working set of up to
/// 1024 rows): twice the process's own memory (4.3 MiB for `novikoff --version`), which alone puts
/// data of less than 9 MB over 1.5 × their size. Its bracket is the tighter (about 10⁻¹¹, where the
/// first-order solve stops at the tolerance).
const LEAN_FLOOR: f64 = 8.0 * 1024.0 * 1024.0;

/// Whether a sparse working set of `rows` rows goes to [`Lean`]: its exact solve would hold more than
/// [`LEAN_SHARE`] of the data's stored bytes (a value and a 4-byte column index each) and more than
/// [`LEAN_FLOOR`], and the two vectors of `d` values that the rounds hold with it (its separator, and
/// the last round's direction while the next round runs) would hold less. In millions of columns
/// they do not (the 150 000 × 2·10⁶ set of the README, 37 MB stored: 16 MB each), and the sweeps'
/// reads of a separator far larger than the cache made the solve 2.5 × slower (3.3 → 8.1 s) for a
/// peak of 85 MB instead of 127, still 2.3 × the data (session 52).
pub(super) fn outweighs_the_data(data: Points<'_>, rows: usize) -> bool {
    let exact = (rows as f64).powi(2) * 8.0;
    let stored = data.data().nnz() as f64 * 12.0;
    let own = 2.0 * 8.0 * data.n_features() as f64;
    let share = LEAN_SHARE * stored;
    exact > share.max(LEAN_FLOOR) && own <= share
}

/// How a solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LeanStatus {
    /// The working set's bounds agree to the target.
    Solved,
    /// Left to the exact solve (see the module docs).
    GaveUp,
    /// The deadline passed.
    TimeLimit,
}

/// The descent's state on the working set, kept from one round to the next: rows that join start at
/// weight zero, the others where the last round left them.
pub(super) struct Lean {
    /// A weight for each working row, by its position in the working set.
    alpha: Vec<f64>,
    /// `‖xᵢ‖²` of each working row, by position.
    squared: Vec<f64>,
    /// `Σαᵢyᵢxᵢ`, the separator in the scale of the constraints `yᵢ(w·xᵢ + b) ≥ 1`, during the sweeps;
    /// the hull point's direction after a measurement ([`Lean::measure`]), which the answer takes. One
    /// vector of `d` values: with millions of columns it outweighs everything else the solve holds
    /// (`tests/margin_memory.rs`).
    w: Vec<f64>,
    /// The augmented Lagrangian's penalty, multiplier and `Σαᵢyᵢ` (free bias on sparse data).
    rho: f64,
    lambda: f64,
    s: f64,
    /// Whether the multiplier still waits for its first value (a start without weights).
    balance_first: bool,
    stream: rng::ChaCha8Rng,
    /// Sweeps over all rounds, and the rows they read.
    pub(super) sweeps: usize,
    pub(super) reads: usize,
}

impl Lean {
    /// The state on the working set `rows`, from the weights `start` (by position) and the bias `b` of
    /// the descent that chose them (ignored without weights).
    pub(super) fn new(
        data: Points<'_>,
        bias: Bias,
        rows: &[usize],
        start: &[(usize, f64)],
        b: f64,
    ) -> Lean {
        let rho = bias_penalty(data, bias);
        let mut lean = Lean {
            alpha: Vec::new(),
            squared: Vec::new(),
            w: vec![0.0; data.n_features()],
            rho,
            lambda: 0.0,
            s: 0.0,
            balance_first: true,
            stream: rng::from_seed(0x6c65_616e),
            sweeps: 0,
            reads: 0,
        };
        lean.extend(data, rows);
        for &(k, c) in start {
            if k < lean.alpha.len() && c > 0.0 && c.is_finite() {
                lean.alpha[k] = c;
            }
        }
        lean.resync(data, rows);
        if bias == Bias::Free && lean.alpha.iter().any(|&a| a > 0.0) && b.is_finite() {
            lean.lambda = b - rho * lean.s;
            lean.balance_first = false;
        }
        lean
    }

    /// Rows that joined the working set (the positions after the last ones known), at weight zero.
    pub(super) fn extend(&mut self, data: Points<'_>, rows: &[usize]) {
        for &i in &rows[self.alpha.len()..] {
            self.alpha.push(0.0);
            self.squared.push(data.row(i).squared_length());
        }
    }

    /// The weights by position, for the exact solve's start.
    pub(super) fn weights(&self) -> Vec<(usize, f64)> {
        self.alpha
            .iter()
            .enumerate()
            .filter(|&(_, &a)| a > 0.0)
            .map(|(k, &a)| (k, a))
            .collect()
    }

    /// The weights on rows of the data.
    pub(super) fn duals(&self, rows: &[usize]) -> Vec<(usize, f64)> {
        self.weights()
            .into_iter()
            .map(|(k, a)| (rows[k], a))
            .collect()
    }

    /// The hull point's direction of the last measurement (not normalised), taken: the next solve
    /// forms its separator afresh.
    pub(super) fn take_direction(&mut self) -> Vec<f64> {
        std::mem::take(&mut self.w)
    }

    /// `w` and `s` from the weights afresh: thousands of steps' rounding would otherwise drift into
    /// them, and a measurement leaves the direction in `w`'s place.
    fn resync(&mut self, data: Points<'_>, rows: &[usize]) {
        let labels = data.labels();
        self.w.clear();
        self.w.resize(data.n_features(), 0.0);
        self.s = 0.0;
        for (k, &i) in rows.iter().enumerate() {
            if self.alpha[k] > 0.0 {
                data.row(i).add_to(self.alpha[k] * labels[i], &mut self.w);
                self.s += self.alpha[k] * labels[i];
            }
        }
    }

    /// Sweep over the working set `rows` until its bounds agree to `TARGET_SHARE · tolerance`, or
    /// until it gives up or `deadline` passes.
    pub(super) fn solve(
        &mut self,
        data: Points<'_>,
        bias: Bias,
        rows: &[usize],
        tolerance: f64,
        deadline: Option<Instant>,
    ) -> LeanStatus {
        // The first measurement reads only the weights, and the separator is summed after it.
        self.extend(data, rows);
        let labels = data.labels();
        let target = TARGET_SHARE * tolerance;
        let mut active: Vec<usize> = (0..rows.len()).collect();
        let mut bound = f64::INFINITY;
        let mut sweeps = 0;
        loop {
            if sweeps % CHECK_SWEEPS == 0 {
                let (lower, upper) = self.measure(data, bias, rows);
                if lower > 0.0 && upper - lower <= target * upper {
                    return LeanStatus::Solved;
                }
                // Weights that overflowed (every step is finite, their sums need not be); before the
                // first sweep a start without weights has no hull point yet.
                if sweeps >= MAX_SWEEPS
                    || (sweeps > 0 && !upper.is_finite())
                    || (sweeps >= HOPELESS_SWEEPS
                        && lower.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater))
                {
                    return LeanStatus::GaveUp;
                }
                if deadline.is_some_and(|deadline| Instant::now() > deadline) {
                    return LeanStatus::TimeLimit;
                }
                self.resync(data, rows);
                active = (0..rows.len()).collect();
                bound = f64::INFINITY;
            }
            sweeps += 1;
            self.sweeps += 1;
            rng::shuffle(&mut self.stream, &mut active);
            self.reads += active.len();
            // Through the origin `ρ` and `λ` stay 0.
            let mut b = self.lambda + self.rho * self.s;
            let mut largest = f64::NEG_INFINITY;
            let mut kept = 0;
            for j in 0..active.len() {
                let k = active[j];
                let i = rows[k];
                let (row, y) = (data.row(i), labels[i]);
                let gradient = y * (row.dot(&self.w, Summation::Fast) + b) - 1.0;
                if self.alpha[k] == 0.0 && gradient > bound {
                    continue;
                }
                active[kept] = k;
                kept += 1;
                largest = largest.max(if self.alpha[k] == 0.0 {
                    gradient.min(0.0)
                } else {
                    gradient
                });
                if self.squared[k] > 0.0 {
                    let old = self.alpha[k];
                    let new = (old - RELAXATION * gradient / (self.squared[k] + self.rho)).max(0.0);
                    if new.is_finite() && new != old {
                        self.alpha[k] = new;
                        let step = (new - old) * y;
                        row.add_to(step, &mut self.w);
                        if self.rho > 0.0 {
                            self.s += step;
                            b = self.lambda + self.rho * self.s;
                        }
                    }
                }
            }
            active.truncate(kept);
            bound = if largest > 0.0 {
                largest
            } else {
                f64::INFINITY
            };
            if bias == Bias::Free && self.rho > 0.0 {
                if self.balance_first {
                    self.balance_first = false;
                    let (row_labels, scores) = scored(data, rows, &self.w);
                    let balanced = best_bias_of_scores(&row_labels, &scores);
                    if balanced.is_finite() {
                        self.lambda = balanced - self.rho * self.s;
                    }
                } else {
                    self.lambda += self.rho * self.s;
                }
            }
        }
    }

    /// The working set's bounds on its maximum margin under the current weights, `(lower, upper)`:
    /// the hull point's length and its direction's margin on the working rows, in plain arithmetic
    /// (the rounds certify the answer on the data). Leaves the direction in `w`'s place.
    fn measure(&mut self, data: Points<'_>, bias: Bias, rows: &[usize]) -> (f64, f64) {
        let labels = data.labels();
        let groups = match bias {
            Bias::Free => 2,
            Bias::ThroughOrigin => 1,
        };
        let mut totals = [0.0; 2];
        for (k, &i) in rows.iter().enumerate() {
            totals[group(bias, labels[i])] += self.alpha[k];
        }
        if totals[..groups]
            .iter()
            .any(|&t| !(t > 0.0 && t.is_finite()))
        {
            return (f64::NEG_INFINITY, f64::INFINITY);
        }
        let direction = &mut self.w;
        direction.clear();
        direction.resize(data.n_features(), 0.0);
        for (k, &i) in rows.iter().enumerate() {
            if self.alpha[k] > 0.0 {
                let y = labels[i];
                data.row(i)
                    .add_to(y * self.alpha[k] / totals[group(bias, y)], direction);
            }
        }
        let direction = &self.w;
        let length = direction.iter().map(|v| v * v).sum::<f64>().sqrt();
        let upper = match bias {
            Bias::Free => 0.5 * length,
            Bias::ThroughOrigin => length,
        };
        if !(length > 0.0 && length.is_finite()) {
            return (f64::NEG_INFINITY, upper);
        }
        let (row_labels, scores) = scored(data, rows, direction);
        let (_, lowest) = level_of_scores(bias, &row_labels, &scores);
        (lowest / length, upper)
    }
}

/// The labels of the working rows `rows` and their scores `v·xᵢ`.
fn scored(data: Points<'_>, rows: &[usize], v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let labels = data.labels();
    let scores = rows
        .iter()
        .map(|&i| data.row(i).dot(v, Summation::Fast))
        .collect();
    (rows.iter().map(|&i| labels[i]).collect(), scores)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Dataset;
    use crate::generate::Family;
    use crate::margin::MarginResult;

    /// Sparse rows of `nnz` values in `d` columns, separable with a margin of at least 0.01: the support
    /// holds hundreds of rows.
    fn text_like(n: usize, d: usize, nnz: usize, seed: u64) -> crate::Result<Dataset> {
        let params = crate::generate::SparseParams::new(n, d).nnz(nnz);
        Ok(params.margin(0.01).seed(seed).check()?.generate()?.data)
    }

    fn bracket(result: &MarginResult) -> (f64, f64) {
        result.bracket().expect("a bracket")
    }

    #[test]
    fn the_working_sets_bounds_hold_the_maximum_margin_and_meet_the_target() -> crate::Result<()> {
        let data = text_like(2000, 20_000, 10, 3)?;
        let points = Points::from(&data);
        let rows: Vec<usize> = (0..data.n_samples()).collect();
        for bias in [Bias::Free, Bias::ThroughOrigin] {
            // Solved exactly (its working set is too small for this module): an independent answer.
            let exact = crate::margin::max_margin(&data, bias)?;
            let MarginResult::Separable { stats, .. } = &exact else {
                panic!("separable by construction: {exact:?}");
            };
            assert!(!outweighs_the_data(points, stats.working_set));
            let (low, high) = bracket(&exact);
            let mut lean = Lean::new(points, bias, &rows, &[], 0.0);
            let status = lean.solve(points, bias, &rows, 1e-8, None);
            assert_eq!(status, LeanStatus::Solved, "{bias:?}");
            let (lower, upper) = lean.measure(points, bias, &rows);
            assert!(
                lower <= high * (1.0 + 1e-12) && low <= upper * (1.0 + 1e-12),
                "{bias:?}: [{lower}, {upper}] against [{low}, {high}]"
            );
            assert!(
                upper - lower <= TARGET_SHARE * 1e-8 * upper,
                "{lower} {upper}"
            );
            assert!(lean.sweeps < MAX_SWEEPS);
        }
        Ok(())
    }

    #[test]
    fn only_a_working_set_whose_exact_solve_outweighs_the_data_and_not_its_columns_goes_here()
    -> crate::Result<()> {
        // 20 000 rows of 5 values (1.2 MB stored) in 2000 columns, and in 2·10⁶.
        let narrow = text_like(20_000, 2000, 5, 1)?;
        let wide = text_like(20_000, 2_000_000, 5, 1)?;
        let (narrow, wide) = (Points::from(&narrow), Points::from(&wide));
        // 1024 rows: 8 MiB, the floor; a quarter of the data is 0.3 MB.
        assert!(!outweighs_the_data(narrow, 1024));
        assert!(outweighs_the_data(narrow, 1025));
        // Two vectors of 2·10⁶ values would hold 32 MB.
        assert!(!outweighs_the_data(wide, 1025));
        assert!(!outweighs_the_data(wide, 100_000));
        Ok(())
    }

    /// Sparse rows of 5 values in 1100 columns (beyond those read in place), and ten of them again with
    /// the other label: no separator exists.
    fn with_contradictions(n: usize) -> crate::Result<Dataset> {
        let dense = text_like(n, 1100, 5, 5)?.to_dense()?;
        let x = ndarray::concatenate(
            ndarray::Axis(0),
            &[dense.x().view(), dense.x().slice(ndarray::s![..10, ..])],
        )
        .expect("the same columns");
        let y: Vec<f64> = (dense.labels().iter())
            .copied()
            .chain(dense.labels()[..10].iter().map(|y| -y))
            .collect();
        Ok(Dataset::new(x, y.into())?.to_sparse())
    }

    #[test]
    fn a_working_set_that_cannot_be_separated_is_left_to_the_exact_solve() -> crate::Result<()> {
        let data = with_contradictions(1000)?;
        assert!(data.is_sparse());
        let points = Points::from(&data);
        let rows: Vec<usize> = (0..data.n_samples()).collect();
        let mut lean = Lean::new(points, Bias::Free, &rows, &[], 0.0);
        assert_eq!(
            lean.solve(points, Bias::Free, &rows, 1e-6, None),
            LeanStatus::GaveUp
        );
        assert!(lean.sweeps >= HOPELESS_SWEEPS && lean.sweeps < MAX_SWEEPS);
        // The exact solve proves it.
        let result = crate::margin::max_margin(&data, Bias::Free)?;
        let MarginResult::NotSeparable { certificate, .. } = result else {
            panic!("inseparable by construction: {result:?}");
        };
        assert!(certificate.verify(&data, 1e-9));
        Ok(())
    }

    #[test]
    fn the_rounds_certify_its_answer_on_every_row() -> crate::Result<()> {
        // About 1300 working rows, whose exact solve would hold 14 MB against 1.5 MB of data.
        let data = text_like(20_000, 2000, 5, 6)?;
        let points = Points::from(&data);
        for bias in [Bias::Free, Bias::ThroughOrigin] {
            let result = crate::margin::max_margin(&data, bias)?;
            let (lower, upper) = bracket(&result);
            let MarginResult::Separable { stats, w, b, .. } = &result else {
                panic!("separable by construction: {result:?}");
            };
            assert!(
                outweighs_the_data(points, stats.working_set),
                "the rounds solved {} rows exactly",
                stats.working_set
            );
            assert!(lower > 0.0 && upper - lower <= 1e-6 * upper, "{result:?}");
            // Its separator's margin on the data, measured apart from the solve.
            let achieved = crate::margin::margin(&data, w.view(), *b)?;
            assert!(
                (achieved - lower).abs() <= 1e-12 * upper,
                "{achieved} {lower}"
            );
            // Stopped by the clock in its first round, it still brackets the optimum, from its weights.
            let limited = crate::margin::MaxMarginParams::new(bias)
                .time_limit(1e-9)
                .check()?
                .solve(&data)?;
            let MarginResult::Inaccurate {
                bracket: (low, high),
                reason,
                ..
            } = &limited
            else {
                panic!("stopped by the clock: {limited:?}");
            };
            assert!(reason.contains("first-order solve"), "{reason}");
            assert!(
                low.is_finite() && high.is_finite() && *low <= upper && lower <= *high,
                "{bias:?}: [{low}, {high}] against [{lower}, {upper}]"
            );
            // Asked for more, it gives more.
            let tight = crate::margin::MaxMarginParams::new(bias)
                .tolerance(1e-9)
                .check()?
                .solve(&data)?;
            let (low, high) = bracket(&tight);
            assert!(high - low <= 1e-9 * high, "{tight:?}");
            assert!(
                lower <= high && low <= upper,
                "{bias:?}: [{lower}, {upper}] [{low}, {high}]"
            );
        }
        Ok(())
    }
}
