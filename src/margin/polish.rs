//! Polishing: the exact optimum on a support set, by Wolfe's active-set method for the minimum-norm point
//! of a polytope.
//!
//! The dual of the maximum-margin problem is a minimum-norm point problem: with `zᵢ = yᵢxᵢ`, find
//! `v = Σ cᵢzᵢ` of least length, with `c ≥ 0` summing to 1 over all rows (through the origin) or over each
//! class (free bias, where `v = p − q` joins the two hulls). An interior-point solver gets close to the
//! answer; this module finishes it exactly, as P. Wolfe's algorithm does (*Finding the nearest point in a
//! polytope*, Math. Programming 11, 1976):
//!
//! * **minor cycle**: on the current support `S`, solve the equality-constrained problem exactly (the
//!   "affine minimiser": a small least-squares system, solved with an SVD and refined with residuals
//!   computed in twice working precision). If some weight turns negative, step back towards the current
//!   weights until the first one reaches zero, drop it, and repeat;
//! * **major cycle**: with `v` optimal on `S`, a row with `yᵢ·v·xᵢ` below the level of its group's support
//!   violates optimality; add the worst one and go back to the minor cycle.
//!
//! Solving the system on the support is the KKT polish: on `S` every constraint is tight,
//! `w ∝ v = Σ cᵢyᵢxᵢ`, and `c ≥ 0`. When no row violates, the pair `(v/‖v‖, c)` is optimal.

use faer::Mat;

use super::accurate::{dot2, Accumulator, UNIT_ROUNDOFF};
use super::problem::Problem;
use crate::kernel::{dot, Summation};

/// How a polish ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PolishStatus {
    /// No candidate row violates optimality beyond the tolerance.
    Optimal,
    /// The minimum-norm point is zero to working precision: the candidates are not separable.
    Zero,
    /// Rounding prevents further progress (a row was added and dropped again).
    Stalled,
    /// The iteration limit was reached.
    IterationLimit,
}

/// The result of a polish, in the problem's coordinates.
#[derive(Debug, Clone)]
pub(crate) struct Polished {
    /// Rows with positive weight.
    pub rows: Vec<usize>,
    /// Their weights, summing to 1 in each group.
    pub weights: Vec<f64>,
    /// `v = Σ cᵢyᵢpᵢ`.
    pub v: Vec<f64>,
    pub status: PolishStatus,
}

/// Stop when the relative optimality gap is below this.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PolishSettings {
    pub relative_gap: f64,
    pub max_iterations: usize,
}

/// Length below which `v` counts as zero, for points scaled into the unit ball.
const ZERO: f64 = 64.0 * UNIT_ROUNDOFF;

/// `Σ aₖ·yₖ·pₖ` over `rows`, in twice working precision.
fn combine(problem: &Problem, rows: &[usize], weights: &[f64]) -> Vec<f64> {
    let r = problem.dim();
    let mut acc = vec![Accumulator::default(); r];
    for (&i, &a) in rows.iter().zip(weights) {
        let coefficient = a * problem.labels[i];
        for (slot, &x) in acc.iter_mut().zip(problem.row(i)) {
            slot.add_product(coefficient, x);
        }
    }
    acc.iter().map(Accumulator::value).collect()
}

/// Rescale the weights of each group to sum to 1.
fn normalise(problem: &Problem, rows: &[usize], weights: &mut [f64]) {
    let mut totals = vec![0.0; problem.groups()];
    for (&i, &c) in rows.iter().zip(weights.iter()) {
        totals[problem.group(i)] += c;
    }
    for (&i, c) in rows.iter().zip(weights.iter_mut()) {
        let t = totals[problem.group(i)];
        if t > 0.0 {
            *c /= t;
        }
    }
}

/// The affine minimiser on `rows`: weights `a` (summing to 1 per group, any sign) minimising
/// `‖Σ aₖyₖpₖ‖`. Returns `None` if the SVD fails.
fn affine_minimiser(problem: &Problem, rows: &[usize], current: &[f64]) -> Option<Vec<f64>> {
    let r = problem.dim();
    let groups = problem.groups();
    // The base of each group is its heaviest row; the other rows enter as differences from it.
    let mut base = vec![usize::MAX; groups];
    for (k, &i) in rows.iter().enumerate() {
        let g = problem.group(i);
        if base[g] == usize::MAX || current[k] > current[base[g]] {
            base[g] = k;
        }
    }
    let others: Vec<usize> = (0..rows.len()).filter(|k| !base.contains(k)).collect();
    let m = others.len();
    let weights_of = |t: &[f64]| -> Vec<f64> {
        let mut a = vec![0.0; rows.len()];
        let mut base_weight = vec![1.0; groups];
        for (&k, &tk) in others.iter().zip(t) {
            a[k] = tk;
            base_weight[problem.group(rows[k])] -= tk;
        }
        for (g, &k) in base.iter().enumerate() {
            if k != usize::MAX {
                a[k] = base_weight[g];
            }
        }
        a
    };
    if m == 0 {
        return Some(weights_of(&[]));
    }
    let z = |k: usize, j: usize| problem.labels[rows[k]] * problem.row(rows[k])[j];
    let e = Mat::<f64>::from_fn(r, m, |j, c| {
        let k = others[c];
        z(k, j) - z(base[problem.group(rows[k])], j)
    });
    let svd = e.thin_svd().ok()?;
    let (u, s, v) = (svd.U(), svd.S().column_vector(), svd.V());
    let kept = s.nrows();
    let largest = (0..kept).map(|k| s[k]).fold(0.0, f64::max);
    let threshold = largest * r.max(m) as f64 * f64::EPSILON * 4.0;
    // t ← t − E⁺·v(t), starting from t = 0; each step solves the least-squares problem for the
    // correction with the current residual v computed accurately.
    let mut t = vec![0.0; m];
    for _ in 0..3 {
        let a = weights_of(&t);
        let residual = combine(problem, rows, &a);
        let mut coefficients = vec![0.0; kept];
        for (k, slot) in coefficients.iter_mut().enumerate() {
            if s[k] > threshold {
                let mut acc = 0.0;
                for (j, &vj) in residual.iter().enumerate() {
                    acc += u[(j, k)] * vj;
                }
                *slot = acc / s[k];
            }
        }
        let mut changed = 0.0f64;
        for (c, tc) in t.iter_mut().enumerate() {
            let mut step = 0.0;
            for (k, &coef) in coefficients.iter().enumerate() {
                step += v[(c, k)] * coef;
            }
            *tc -= step;
            changed = changed.max(step.abs());
        }
        if changed <= 4.0 * f64::EPSILON {
            break;
        }
    }
    Some(weights_of(&t))
}

/// Polish from `start` (rows and non-negative weights), allowing rows from `candidates` to join.
pub(crate) fn polish(
    problem: &Problem,
    candidates: &[usize],
    start: &[(usize, f64)],
    settings: PolishSettings,
) -> Polished {
    let groups = problem.groups();
    let mut rows: Vec<usize> = Vec::new();
    let mut weights: Vec<f64> = Vec::new();
    for &(i, c) in start {
        if c > 0.0 && c.is_finite() && !rows.contains(&i) {
            rows.push(i);
            weights.push(c);
        }
    }
    for g in 0..groups {
        if !rows.iter().any(|&i| problem.group(i) == g) {
            if let Some(&i) = candidates.iter().find(|&&i| problem.group(i) == g) {
                rows.push(i);
                weights.push(1.0);
            }
        }
    }
    normalise(problem, &rows, &mut weights);

    let mut last_added: Option<usize> = None;
    let mut status = PolishStatus::IterationLimit;
    let mut v = combine(problem, &rows, &weights);
    for _ in 0..settings.max_iterations {
        // Minor cycle: at most one row leaves per pass, so it ends within |S| passes.
        let mut dropped_last_added = false;
        for _ in 0..=rows.len() {
            let Some(a) = affine_minimiser(problem, &rows, &weights) else {
                break;
            };
            if a.iter().all(|&ak| ak >= 0.0) {
                weights = a;
                break;
            }
            let mut theta = 1.0;
            let mut hit = 0;
            for (k, (&ak, &ck)) in a.iter().zip(&weights).enumerate() {
                if ak < 0.0 {
                    let step = ck / (ck - ak);
                    if step < theta {
                        theta = step;
                        hit = k;
                    }
                }
            }
            for (ck, &ak) in weights.iter_mut().zip(&a) {
                *ck += theta * (ak - *ck);
            }
            weights[hit] = 0.0;
            let mut k = 0;
            while k < rows.len() {
                // A group must keep one row; the line search keeps its total at 1, so some row of it
                // stays positive.
                if weights[k] <= 0.0 {
                    if Some(rows[k]) == last_added {
                        dropped_last_added = true;
                    }
                    rows.swap_remove(k);
                    weights.swap_remove(k);
                } else {
                    k += 1;
                }
            }
            normalise(problem, &rows, &mut weights);
        }
        v = combine(problem, &rows, &weights);
        let length2: f64 = v.iter().map(|x| x * x).sum();
        if length2.sqrt() <= ZERO {
            status = PolishStatus::Zero;
            break;
        }
        if dropped_last_added {
            status = PolishStatus::Stalled;
            break;
        }
        // Major cycle: the worst violator among the candidates. A plain dot product of unit-ball points
        // is off by at most about r·u·‖v‖; when that is not small against the gap we are asked to
        // resolve (tiny margins), the scores are computed in twice working precision instead.
        let length = length2.sqrt();
        let r = problem.dim() as f64;
        let plain_noise = 4.0 * (r + 2.0) * UNIT_ROUNDOFF * length;
        let accurate = plain_noise > 0.01 * settings.relative_gap * length2;
        let noise = if accurate {
            8.0 * UNIT_ROUNDOFF * length2 + 8.0 * (r + 2.0).powi(2) * UNIT_ROUNDOFF.powi(2) * length
        } else {
            plain_noise
        };
        let score = |i: usize| {
            let s = if accurate {
                dot2(&v, problem.row(i)).0
            } else {
                dot(&v, problem.row(i), Summation::Fast)
            };
            problem.labels[i] * s
        };
        let mut level = vec![0.0; groups];
        for (&i, &c) in rows.iter().zip(&weights) {
            level[problem.group(i)] += c * score(i);
        }
        let mut worst = vec![(0.0f64, usize::MAX); groups];
        for &i in candidates {
            let g = problem.group(i);
            let violation = level[g] - score(i);
            if violation > worst[g].0 {
                worst[g] = (violation, i);
            }
        }
        let gap: f64 = worst.iter().map(|w| w.0).sum();
        if gap <= settings.relative_gap * length2 || gap <= noise {
            status = PolishStatus::Optimal;
            break;
        }
        let (_, add) = worst
            .iter()
            .copied()
            .fold((0.0, usize::MAX), |a, b| if b.0 > a.0 { b } else { a });
        if add == usize::MAX || rows.contains(&add) {
            status = PolishStatus::Stalled;
            break;
        }
        rows.push(add);
        weights.push(0.0);
        last_added = Some(add);
    }
    Polished {
        rows,
        weights,
        v,
        status,
    }
}
