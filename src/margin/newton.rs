//! The exact solve's start in about a hundred dimensions: Newton's method on the squared hinge loss over
//! the working set.
//!
//! Wolfe's method finds the support of the maximum margin by pivots, a row joining or leaving the
//! active set each, and from a poor start it takes several pivots for each support row. On the
//! 10⁴ × 100 set of `benches/margin_passes` the descent's heaviest rows (see [`super::descent`]) were a
//! poor start for two reasons: the descent, run for 40 passes' worth, is far from converged on a hard
//! margin whose support fills the space, and its weights are those of the first set before
//! [`fit_to_the_descent`](super::first_set::fit_to_the_descent) adds the rows its separator puts
//! near the margin, which moves the optimum. Only 33 of its 90 heaviest rows were in the first solve's support, and that solve
//! took 77 major iterations, 392 rows joining and 381 leaving: 4.5 of the solve's 7.5 ms. Rounds after
//! the first resume from the last support, which many joining rows move as far: on 10⁵ × 100 the
//! second round's 477 new rows took 326 major iterations (15 ms).
//!
//! The L2-loss SVM, `min ½‖w‖² + (C/2)·Σ max(0, 1 − yᵢ(w·xᵢ + b))²`, has the hard margin's dual with
//! `Σ αᵢ²/(2C)` subtracted, so for a large `C` its weights `αᵢ = C·max(0, 1 − yᵢ(w·xᵢ + b))` are
//! close to the maximum margin's. Its objective is piecewise quadratic, and Newton's method with an
//! exact line search reaches its minimum in a finite number of steps (O. L. Mangasarian, *A finite
//! Newton method for classification*, Optim. Methods Softw. 17, 2002; S. S. Keerthi and D. DeCoste,
//! *A modified finite Newton method for fast solution of large scale linear SVMs*, JMLR 6, 2005). Each
//! step solves a `(d + 1) × (d + 1)` system over the rows below the margin, whose sums change by the
//! rows that cross it, so that in a hundred dimensions a step costs about as much as a few of the
//! descent's passes; from a separator near the answer the rows below the margin settle in about six
//! steps, where the descent's sweeps do not. Run on the set the exact solve is given, from the
//! descent's separator for the first solve (where the descent ran out of its budget: where its support
//! settled, its own weights are as good a start, and the steps only cost) and from the last optimum
//! when many rows join a later one (`round_state`), its heaviest rows are mostly that set's support: 82
//! of 90 on 10⁴ × 100, whose first solve then takes 33 major iterations (118 rows joining) and 1.7 ms;
//! on 10⁵ × 100 the second round takes 70.
//!
//! `C` is set from the starting separator: the squared hinge's weights differ from the hard margin's
//! by about `1/(C·γ²·|S|)` of their sum (`‖w‖² = 1/γ²` spread over about `d + 1` support rows), so
//! `C = PENALTY·‖w‖²/(d + 1)` keeps that near `1/PENALTY` whatever the scale of the margin.
//!
//! Every sum runs in a fixed order (the products with [`crate::simd::dot_fast`], the sums of outer
//! products and the Cholesky factor as [`super::definite`] says), so the start, and with it the solve,
//! has the same bits on every machine. Nothing here needs to be exact: the weights only choose the rows the exact solve starts
//! from, and the bracket is computed from that solve's answer as before.

use super::Bias;
use super::definite::UpperRows;
use super::points::Points;
use crate::simd::Summation;

/// Newton steps at most. From the descent's separator the rows below the margin settled in six steps on
/// the 10⁴ × 100 set of `benches/margin_passes`, and in 4–8 on the others measured; the start only
/// chooses rows, so an unsettled last step is still a good start (12 steps were no better).
const MAX_STEPS: usize = 8;

/// `C` as a multiple of `‖w‖²/(d + 1)` for the starting separator's `w` (see the module docs).
const PENALTY: f64 = 40.0;

/// The most rows below the margin a step may factor, in multiples of `d + 1`: past it the Hessian's
/// cost (`O(d²)` a row) outgrows what a better start saves, and the solve starts as it would without
/// Newton's steps. At 4 the second round of 10⁵ × 100 (478 rows below the margin at the start) went
/// without them.
const MOST_ACTIVE: usize = 10;

/// A descent's separator starts the steps unless it puts more than one row in this many on the wrong
/// side. A descent cut short leaves a few rows of separable data there: on `generate separable` sets
/// of 10⁴ × 80 (seeds 1 and 4) 1 row of 690 and 13 of 648 after 20 passes' worth (see
/// `round_state`), where the data that `generate noisy` flips 0.2 % to 5 % of the labels of leave a
/// third. Refusing the first kind had sent those solves to the descent's own start: 10⁴ × 80 took
/// 7.3–8.5 ms instead of 4.2–5.2 (session 43).
const WRONG_SIDE_SHARE: usize = 32;

/// The descent's budget, in passes' worth of reads of the first set, where Newton's steps may follow it
/// (`round_state` below 256 dimensions, on a first set of [`NEWTON_FIRST_SET`] times `d + 1` rows or
/// more), instead of [`PASS_BUDGET`](super::descent::PASS_BUDGET):
/// Newton's steps reach the squared hinge's minimum from a rougher separator, and a descent cut short
/// leaves more of them to take where it had settled before (its own weights, which start Wolfe's
/// method where it settles, are a poorer start than Newton's on a hard margin whose support fills the
/// space). Session 43 (AMD Zen 4, two sets of 21 and 23 separable and noisy shapes from 3000 × 120 to
/// 10⁵ × 100, three runs alternating with the base build, medians): the geometric mean of the
/// speed-ups 1.17 and 1.11 at 25 (from 0.93 × on 5·10⁴ × 128 to 1.84 × on a 2·10⁴ × 200 set), 1.12
/// and 1.14 at 20; at 25 the `benches/margin_passes` 10⁴ × 100 1.13 × faster, 10⁵ × 100 and the hard
/// 10⁵ × 100 the same. Session 41 had found 20 and 30 mixed: a descent cut short puts a few rows on
/// the wrong side, and the steps had refused to start from it (see [`WRONG_SIDE_SHARE`]).
pub(super) const NEWTON_PASS_BUDGET: usize = 25;

/// A later exact solve restarts from Newton's method when at least `d / RESTART_SHARE` rows joined the
/// working set; with fewer, resuming from the last solve's active set costs less than Newton's steps
/// and a new active set. On 10⁵ × 100 the rounds after the first had resumed from a support that the
/// 477 and 114 rows joining moved far: 326 and 185 major iterations (15 and 8 ms), against 70 and 59
/// from Newton's start. On a 1000 × 100 set (γ* = 0.017) whose augmented problems grow by 30 rows,
/// the restarts that `d/4` allowed took its `Geometry` from 12.0 to 14.0 ms; `d/2` keeps 12.0 and
/// the gains above (session 40, AMD Zen 5, two runs each).
pub(super) const RESTART_SHARE: usize = 2;

/// The first solve takes Newton's start only from a first set of at least this many times `d + 1` rows:
/// on a smaller one Wolfe's method has few rows to price beyond the support, and from the descent's
/// start it finds the support in a few dozen pivots (a first set of 259 rows of a 1000 × 100 set
/// took 81 rows joining from the descent's start and 50 from Newton's, which cost more than the 31
/// it saved).
pub(super) const NEWTON_FIRST_SET: usize = 4;

/// The bias's curvature, beside the weights' 1, so that the Hessian is definite when no row is active.
const BIAS_CURVATURE: f64 = 1e-9;

/// Where the separator that starts Newton's method comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Separator {
    /// The descent's, on part of the rows: refused when it puts more than one row in
    /// [`WRONG_SIDE_SHARE`] on the wrong side, since the rows may then not be separable, and a start
    /// nearer an optimum that does not exist saves nothing (on `generate noisy --n 20000 --d 100
    /// --flip 0.05`, proved inseparable, the steps took its solve from 4.0 ms to 5.8; its descent
    /// puts about a third of the first set on the wrong side).
    Descent,
    /// The exact optimum of the working set before rows joined it, which those rows violate.
    Optimum,
}

/// What Newton's method leaves: the separator `(w, b)` it ended at, a weight for each row of the data
/// (zero outside the rows it was given), and the rows it read.
pub(super) struct SquaredHinge {
    pub(super) separator: (Vec<f64>, f64),
    pub(super) weights: Vec<f64>,
    pub(super) reads: usize,
}

/// The squared hinge's weights `C·max(0, 1 − yᵢ(w·xᵢ + b))` on `rows`, after at most [`MAX_STEPS`]
/// Newton steps from the separator `(w, b)` (in the scale of the constraints `yᵢ(w·xᵢ + b) ≥ 1`);
/// `None` when the steps cannot be taken (more than [`MOST_ACTIVE`] rows below the margin, a Hessian
/// not numerically definite, a value not finite, a descent's separator on the wrong side of a row),
/// and the solve should start as it would without them.
pub(super) fn squared_hinge(
    data: Points<'_>,
    bias: Bias,
    rows: &[usize],
    (w, b): (&[f64], f64),
    from: Separator,
) -> Option<SquaredHinge> {
    let frame = Frame::of(data, bias, rows)?;
    let start = frame.coordinates_of(w, b);
    let length2: f64 = start[..frame.d].iter().map(|v| v * v).sum();
    let penalty = PENALTY * length2 / (frame.d + 1) as f64;
    if !(penalty > 0.0 && penalty.is_finite()) {
        return None;
    }
    let mut margins = vec![0.0; rows.len()];
    frame.margins(rows, &start, &mut margins);
    if from == Separator::Descent {
        let wrong = margins.iter().filter(|&&m| m < 0.0).count();
        if margins.iter().any(|m| m.is_nan()) || wrong * WRONG_SIDE_SHARE > margins.len() {
            return None;
        }
    }
    let minimised = minimise(&frame, rows, start, margins, penalty)?;
    let mut weights = vec![0.0; data.n_samples()];
    for (&i, &margin) in rows.iter().zip(&minimised.margins) {
        weights[i] = (penalty * (1.0 - margin)).max(0.0);
    }
    Some(SquaredHinge {
        separator: frame.separator_of(&minimised.beta),
        weights,
        reads: minimised.reads,
    })
}

/// Where the steps ended: `β`, the rows' margins there, and the rows read.
struct Minimised {
    beta: Vec<f64>,
    margins: Vec<f64>,
    reads: usize,
}

/// Newton's steps on `½‖w̃‖² + (ε/2)·b̃² + (C/2)·Σ max(0, 1 − zₖ·β)²` from `beta` (whose margins are
/// `margins`), each to the minimiser of the quadratic that agrees with it while the rows below the
/// margin stay there, shortened by the exact line search; they end when a step leaves those rows as
/// they were (the next would aim at the same point) or after [`MAX_STEPS`].
fn minimise(
    frame: &Frame<'_>,
    rows: &[usize],
    mut beta: Vec<f64>,
    mut margins: Vec<f64>,
    penalty: f64,
) -> Option<Minimised> {
    let p = frame.unknowns();
    let most_active = MOST_ACTIVE * (frame.d + 1);
    let mut sums = ActiveSums::new(p);
    let mut active: Vec<usize> = Vec::new();
    let mut hessian = UpperRows::zeros(p);
    let diagonal: Vec<f64> = (0..p).map(|j| curvature(frame, j)).collect();
    let mut slopes = vec![0.0; rows.len()];
    let mut reads = rows.len();
    for _ in 0..MAX_STEPS {
        let below: Vec<usize> = (0..rows.len()).filter(|&k| margins[k] < 1.0).collect();
        if below.len() > most_active {
            return None;
        }
        let moved = changes(&active, &below);
        sums.update(frame, rows, &moved);
        reads += moved.len();
        active = below;
        hessian.assign_scaled(&sums.gram, penalty, &diagonal);
        let gradient = sums.sum.iter().map(|v| penalty * v).collect();
        let target = hessian.solve_definite(gradient)?;
        let step: Vec<f64> = target.iter().zip(&beta).map(|(t, b)| t - b).collect();
        frame.margins(rows, &step, &mut slopes);
        let t = line_search(frame, &beta, &step, &margins, &slopes, penalty);
        for (b, s) in beta.iter_mut().zip(&step) {
            *b += t * s;
        }
        if !beta.iter().all(|v| v.is_finite()) {
            return None;
        }
        // The margins are linear in β: moved along the step, not read again.
        for (margin, slope) in margins.iter_mut().zip(&slopes) {
            *margin += t * slope;
        }
        reads += rows.len();
        if (0..rows.len())
            .filter(|&k| margins[k] < 1.0)
            .eq(active.iter().copied())
        {
            break;
        }
    }
    Some(Minimised {
        beta,
        margins,
        reads,
    })
}

/// The objective's curvature in unknown `j`: 1 for a weight, [`BIAS_CURVATURE`] for the bias.
fn curvature(frame: &Frame<'_>, j: usize) -> f64 {
    if j < frame.d { 1.0 } else { BIAS_CURVATURE }
}

/// The most rows an update of [`ActiveSums`] copies at a time.
const CHUNK: usize = 64;

/// `Σ zzᵀ` and `Σ z` over the rows below the margin, kept as rows join and leave: between steps a few
/// rows change, where forming the sums afresh reads every one of them.
struct ActiveSums {
    gram: UpperRows,
    sum: Vec<f64>,
}

impl ActiveSums {
    fn new(p: usize) -> ActiveSums {
        ActiveSums {
            gram: UpperRows::zeros(p),
            sum: vec![0.0; p],
        }
    }

    /// Add the rows at positions `moved` of `rows` (`+1`) and take away those that left (`−1`): the rows
    /// that leave, then those that join, copied a chunk at a time.
    fn update(&mut self, frame: &Frame<'_>, rows: &[usize], moved: &[(usize, f64)]) {
        let p = self.sum.len();
        let mut points = vec![0.0; p * CHUNK.min(moved.len())];
        for sign in [-1.0, 1.0] {
            let same: Vec<usize> = moved
                .iter()
                .filter(|&&(_, s)| s == sign)
                .map(|&(k, _)| k)
                .collect();
            for chunk in same.chunks(CHUNK) {
                let points = &mut points[..p * chunk.len()];
                for (point, &k) in points.chunks_exact_mut(p).zip(chunk) {
                    frame.point(rows[k], point);
                    for (total, v) in self.sum.iter_mut().zip(point.iter()) {
                        *total += sign * v;
                    }
                }
                self.gram.add_outer(points, sign);
            }
        }
    }
}

/// The positions that leave (`−1`) and join (`+1`) between two ascending lists, in that order.
fn changes(before: &[usize], after: &[usize]) -> Vec<(usize, f64)> {
    let leaving = before.iter().filter(|k| after.binary_search(k).is_err());
    let joining = after.iter().filter(|k| before.binary_search(k).is_err());
    leaving
        .map(|&k| (k, -1.0))
        .chain(joining.map(|&k| (k, 1.0)))
        .collect()
}

/// The coordinates of the steps: the rows translated to their mean (free bias) and scaled into the unit
/// ball, with the bias as the last unknown; `β = (w̃, b̃)` there is `w = w̃/s`, `b = b̃ − w̃·μ/s` in the
/// data's.
struct Frame<'a> {
    data: Points<'a>,
    labels: &'a [f64],
    /// The points' dimension.
    d: usize,
    free: bool,
    /// The rows' mean (zero through the origin).
    centre: Vec<f64>,
    scale: f64,
}

impl<'a> Frame<'a> {
    fn of(data: Points<'a>, bias: Bias, rows: &[usize]) -> Option<Frame<'a>> {
        if rows.is_empty() || data.is_sparse() {
            return None;
        }
        let d = data.n_features();
        let free = bias == Bias::Free;
        let mut frame = Frame {
            data,
            labels: data.labels(),
            d,
            free,
            centre: vec![0.0; d],
            scale: 1.0,
        };
        let mut point = vec![0.0; d];
        if free {
            for &i in rows {
                frame.raw(i, &mut point);
                frame
                    .centre
                    .iter_mut()
                    .zip(&point)
                    .for_each(|(c, x)| *c += x);
            }
            let count = rows.len() as f64;
            frame.centre.iter_mut().for_each(|c| *c /= count);
        }
        let mut largest: f64 = 0.0;
        for &i in rows {
            frame.raw(i, &mut point);
            let length2: f64 = point
                .iter()
                .zip(&frame.centre)
                .map(|(x, c)| (x - c) * (x - c))
                .sum();
            largest = largest.max(length2);
        }
        frame.scale = largest.sqrt();
        (frame.scale > 0.0 && frame.scale.is_finite()).then_some(frame)
    }

    /// The unknowns: the weights, and the bias when it is free.
    fn unknowns(&self) -> usize {
        self.d + usize::from(self.free)
    }

    /// Point `i` as stored, its constant coordinate last when augmented.
    fn raw(&self, i: usize, out: &mut [f64]) {
        let stored = self.data.dense_values(i);
        out[..stored.len()].copy_from_slice(stored);
        if let Some(c) = self.data.constant() {
            out[stored.len()] = c;
        }
    }

    /// `zᵢ = yᵢ·((xᵢ − μ)/s, 1)`, or `yᵢ·xᵢ/s` through the origin.
    fn point(&self, i: usize, out: &mut [f64]) {
        let d = self.d;
        self.raw(i, &mut out[..d]);
        let y = self.labels[i];
        for (v, c) in out[..d].iter_mut().zip(&self.centre) {
            *v = y * ((*v - c) / self.scale);
        }
        if self.free {
            out[d] = y;
        }
    }

    /// `β` for the data's `(w, b)`.
    fn coordinates_of(&self, w: &[f64], b: f64) -> Vec<f64> {
        let mut beta: Vec<f64> = w.iter().map(|v| v * self.scale).collect();
        if self.free {
            let offset: f64 = w.iter().zip(&self.centre).map(|(v, c)| v * c).sum();
            beta.push(b + offset);
        }
        beta
    }

    /// The data's `(w, b)` for `β`.
    fn separator_of(&self, beta: &[f64]) -> (Vec<f64>, f64) {
        let w: Vec<f64> = beta[..self.d].iter().map(|v| v / self.scale).collect();
        let b = if self.free {
            beta[self.d] - w.iter().zip(&self.centre).map(|(v, c)| v * c).sum::<f64>()
        } else {
            0.0
        };
        (w, b)
    }

    /// `zₖ·β = yₖ(w·xₖ + b)` for each of `rows`, the rows read where they are.
    fn margins(&self, rows: &[usize], beta: &[f64], out: &mut [f64]) {
        let (w, b) = self.separator_of(beta);
        for (out, &i) in out.iter_mut().zip(rows) {
            *out = self.labels[i] * (self.data.row(i).dot(&w, Summation::Fast) + b);
        }
    }
}

/// The step length in `[0, 1]` that minimises the objective along `step`: its derivative is piecewise
/// linear and non-decreasing, so bisection finds its root. The end of the bracket past the root is
/// taken, so that a row whose crossing of the margin is the root counts as crossed in the next step.
fn line_search(
    frame: &Frame<'_>,
    beta: &[f64],
    step: &[f64],
    margins: &[f64],
    slopes: &[f64],
    penalty: f64,
) -> f64 {
    let (mut start, mut rate) = (0.0, 0.0);
    for j in 0..beta.len() {
        start += curvature(frame, j) * beta[j] * step[j];
        rate += curvature(frame, j) * step[j] * step[j];
    }
    // Only the rows below the margin somewhere on the segment contribute.
    let moving: Vec<(f64, f64)> = margins
        .iter()
        .zip(slopes)
        .filter(|&(&m, &s)| m < 1.0 || m + s < 1.0)
        .map(|(&m, &s)| (m, s))
        .collect();
    let derivative = |t: f64| {
        let loss: f64 = moving
            .iter()
            .map(|&(m, s)| {
                let margin = m + t * s;
                if margin < 1.0 {
                    (1.0 - margin) * s
                } else {
                    0.0
                }
            })
            .sum();
        start + t * rate - penalty * loss
    };
    if derivative(1.0) <= 0.0 {
        return 1.0;
    }
    let (mut low, mut high) = (0.0, 1.0);
    for _ in 0..40 {
        let middle = 0.5 * (low + high);
        if derivative(middle) > 0.0 {
            high = middle;
        } else {
            low = middle;
        }
    }
    high
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Dataset;
    use crate::margin::definite::tests::spread;
    use crate::margin::descent::descend;
    use crate::margin::{MarginResult, max_margin};
    use ndarray::{Array1, Array2};

    #[test]
    fn changes_list_the_rows_that_leave_then_those_that_join() {
        assert_eq!(
            changes(&[1, 3, 5], &[3, 4, 5, 7]),
            vec![(1, -1.0), (4, 1.0), (7, 1.0)]
        );
        assert!(changes(&[2, 4], &[2, 4]).is_empty());
    }

    /// The sums kept by updates are the sums over the rows below the margin formed afresh, to rounding.
    #[test]
    fn sums_kept_as_rows_join_and_leave_are_the_sums_formed_afresh() {
        let data = crate::generate::separable(300, 9, 0.05, 1.0, 4)
            .unwrap()
            .data;
        let points = Points::from(&data);
        let rows: Vec<usize> = (0..300).collect();
        let frame = Frame::of(points, Bias::Free, &rows).unwrap();
        let p = frame.unknowns();
        let mut sums = ActiveSums::new(p);
        let mut active: Vec<usize> = Vec::new();
        // Large changes, then small ones (fewer than p/2 rows), then large again.
        let sets: Vec<Vec<usize>> = vec![
            (0..300).step_by(2).collect(),
            (0..300)
                .step_by(2)
                .filter(|&k| k != 8)
                .chain([9, 11])
                .collect(),
            (0..300).step_by(3).collect(),
        ];
        for mut set in sets {
            set.sort_unstable();
            set.dedup();
            sums.update(&frame, &rows, &changes(&active, &set));
            active = set;
            let mut point = vec![0.0; p];
            let mut gram = vec![0.0; p * p];
            let mut sum = vec![0.0; p];
            for &k in &active {
                frame.point(rows[k], &mut point);
                for j in 0..p {
                    sum[j] += point[j];
                    for l in 0..=j {
                        gram[j * p + l] += point[j] * point[l];
                    }
                }
            }
            for j in 0..p {
                assert!((sums.sum[j] - sum[j]).abs() <= 1e-11 * active.len() as f64);
                for l in 0..=j {
                    let (kept, afresh) = (sums.gram.get(j, l), gram[j * p + l]);
                    assert!(
                        (kept - afresh).abs() <= 1e-11 * active.len() as f64,
                        "{kept} {afresh}"
                    );
                }
            }
        }
    }

    /// From the descent's separator the steps settle at the squared hinge's minimum: its gradient
    /// `Λβ − C·Σ (1 − zₖ·β)₊·zₖ` vanishes, against the size of its terms.
    #[test]
    fn the_steps_reach_the_minimum_of_the_squared_hinge() {
        for bias in [Bias::Free, Bias::ThroughOrigin] {
            let data = crate::generate::separable(400, 12, 0.05, 1.0, 7)
                .unwrap()
                .data;
            let points = Points::from(&data);
            let rows: Vec<usize> = (0..400).collect();
            let found = descend(points, bias, rows.clone());
            let frame = Frame::of(points, bias, &rows).unwrap();
            let start = frame.coordinates_of(&found.w, found.b);
            let mut margins = vec![0.0; rows.len()];
            frame.margins(&rows, &start, &mut margins);
            let penalty = 10.0;
            let end = minimise(&frame, &rows, start, margins, penalty).unwrap();
            let p = frame.unknowns();
            let mut gradient: Vec<f64> =
                (0..p).map(|j| curvature(&frame, j) * end.beta[j]).collect();
            let mut scale: f64 = gradient.iter().map(|v| v.abs()).sum();
            let mut point = vec![0.0; p];
            for (k, &margin) in end.margins.iter().enumerate() {
                if margin < 1.0 {
                    frame.point(rows[k], &mut point);
                    for j in 0..p {
                        gradient[j] -= penalty * (1.0 - margin) * point[j];
                        scale += (penalty * (1.0 - margin) * point[j]).abs();
                    }
                }
            }
            let largest = gradient.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            assert!(
                largest <= 1e-9 * scale,
                "{bias:?}: gradient {largest} against {scale}"
            );
        }
    }

    /// On a separable set the heaviest of the squared hinge's weights, from the descent's separator, are
    /// mostly the maximum margin's support rows, far more of them than the descent's heaviest.
    #[test]
    fn the_heaviest_weights_are_the_support() {
        let data = crate::generate::separable(2000, 20, 0.05, 1.0, 3)
            .unwrap()
            .data;
        let MarginResult::Separable { support, .. } = max_margin(&data, Bias::Free).unwrap() else {
            panic!("separable by construction");
        };
        let points = Points::from(&data);
        let rows: Vec<usize> = (0..2000).collect();
        let found = descend(points, Bias::Free, rows.clone());
        let hinge = squared_hinge(
            points,
            Bias::Free,
            &rows,
            (&found.w, found.b),
            Separator::Descent,
        )
        .unwrap();
        let mut order = rows.clone();
        order.sort_by(|&i, &j| hinge.weights[j].total_cmp(&hinge.weights[i]));
        let heaviest = &order[..support.len()];
        let found_in_support = heaviest.iter().filter(|i| support.contains(i)).count();
        let mut by_descent = rows.clone();
        by_descent.sort_by(|&i, &j| found.alpha[j].total_cmp(&found.alpha[i]));
        let descent_in_support = by_descent[..support.len()]
            .iter()
            .filter(|i| support.contains(i))
            .count();
        // 16 of the 20 support rows, where the descent's own heaviest rows hold 10.
        assert!(
            4 * found_in_support >= 3 * support.len() && found_in_support >= descent_in_support + 4,
            "{found_in_support} of the {} support rows ({descent_in_support} by the descent)",
            support.len()
        );
        assert!(hinge.reads >= 3 * rows.len());
    }

    /// The separator the steps end at is the one the weights were computed from: a row weighs where
    /// the separator puts it below the margin, and nothing where above.
    #[test]
    fn the_weights_are_those_of_the_separator_the_steps_end_at() {
        for bias in [Bias::Free, Bias::ThroughOrigin] {
            let data = crate::generate::separable(500, 15, 0.05, 1.0, 9)
                .unwrap()
                .data;
            let points = Points::from(&data);
            let rows: Vec<usize> = (0..250).collect();
            let found = descend(points, bias, rows.clone());
            let from = (&found.w[..], found.b);
            let hinge = squared_hinge(points, bias, &rows, from, Separator::Descent).unwrap();
            let (w, b) = &hinge.separator;
            let (mut below, mut above) = (0, 0);
            for i in 0..500 {
                let score = data.row_view(i).dot(w, Summation::Sequential);
                let margin = data.labels()[i] * (score + b);
                if i >= 250 {
                    assert_eq!(hinge.weights[i], 0.0, "row {i} was not given");
                } else if margin < 1.0 - 1e-9 {
                    assert!(hinge.weights[i] > 0.0, "{bias:?}: row {i} at {margin}");
                    below += 1;
                } else if margin > 1.0 + 1e-9 {
                    assert_eq!(hinge.weights[i], 0.0, "{bias:?}: row {i} at {margin}");
                    above += 1;
                }
            }
            assert!(
                below >= 5 && above >= 100,
                "{bias:?}: {below} below, {above} above"
            );
        }
    }

    /// A descent's separator that puts many rows on the wrong side is refused (the rows may not be
    /// separable), one that puts a few there is not; nor is the optimum of part of the rows, which the
    /// rest may violate.
    #[test]
    fn a_descent_separator_with_many_rows_on_the_wrong_side_is_refused() {
        let x = Array2::from_shape_fn((40, 3), |(i, j)| {
            let side = if i % 2 == 0 { 1.0 } else { -1.0 };
            if j == 0 {
                side * (1.0 + (i % 5) as f64)
            } else {
                spread(3 * i + j)
            }
        });
        let y = Array1::from_shape_fn(40, |i| if i % 2 == 0 { 1.0 } else { -1.0 });
        let data = Dataset::new(x, y).unwrap();
        let points = Points::from(&data);
        let rows: Vec<usize> = (0..40).collect();
        // Every row on its side with margin at least 1, then a tilt that puts many on the wrong side.
        let right = [1.0, 0.0, 0.0];
        let tilted = [1.0, 30.0, 0.0];
        let starts = |w: &[f64], b: f64, from: Separator| {
            squared_hinge(points, Bias::Free, &rows, (w, b), from).is_some()
        };
        let margin = |w: &[f64], b: f64, i: usize| {
            data.labels()[i] * (data.row_view(i).dot(w, Summation::Sequential) + b)
        };
        let wrong = |w: &[f64], b: f64| (0..40).filter(|&i| margin(w, b, i) < 0.0).count();
        assert_eq!(wrong(&right, 0.0), 0);
        assert!(starts(&right, 0.0, Separator::Descent) && starts(&right, 0.0, Separator::Optimum));
        assert!(wrong(&tilted, 0.0) * WRONG_SIDE_SHARE > 40);
        assert!(!starts(&tilted, 0.0, Separator::Descent));
        assert!(starts(&tilted, 0.0, Separator::Optimum));
        // A bias between the two lowest margins of the negative class puts one row of the 40 on the
        // wrong side, within the share.
        let slight = [1.0, 0.01, 0.0];
        let mut negative: Vec<f64> = (0..40)
            .filter(|&i| data.labels()[i] < 0.0)
            .map(|i| margin(&slight, 0.0, i))
            .collect();
        negative.sort_by(f64::total_cmp);
        let b = 0.5 * (negative[0] + negative[1]);
        assert_eq!(wrong(&slight, b), 1);
        assert!(starts(&slight, b, Separator::Descent));
    }
}
