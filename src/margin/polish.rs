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
//!   "affine minimiser": a small least-squares system, solved with an updatable QR factorisation (see
//!   [`super::corral`]) and refined with residuals computed in twice working precision). If some weight
//!   turns negative, step back towards the current weights until the first one reaches zero, drop it,
//!   and repeat. A step needs only the first weight to reach zero, so where the refinement is dear
//!   (without `Q`, on an ill-conditioned support) a step takes the unrefined weights when one of them is
//!   negative beyond their error, and only the weights the cycle settles on are refined
//!   ([`Corral::minor_cycle_target`]);
//! * **major cycle**: with `v` optimal on `S`, a row with `yᵢ·v·xᵢ` below the level of its group's support
//!   violates optimality; add the worst one and go back to the minor cycle.
//!
//! Solving the system on the support is the KKT polish: on `S` every constraint is tight,
//! `w ∝ v = Σ cᵢyᵢxᵢ`, and `c ≥ 0`. When no row violates, the pair `(v/‖v‖, c)` is optimal.

use super::accurate::{UNIT_ROUNDOFF, dot2};
use super::corral::{Corral, CorralParts};
use super::problem::Problem;
use super::scan::problem_scores_into;

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
    /// The deadline of [`PolishSettings`] passed.
    TimeLimit,
    /// A row had to join the active set, but its factorisation would pass the memory budget of
    /// [`PolishSettings`].
    MemoryLimit,
    /// The affine minimiser stayed non-finite even after refactoring the support from scratch.
    Breakdown,
}

/// The result of a polish, in the problem's coordinates.
#[derive(Debug, Clone)]
pub(crate) struct Polished {
    /// Rows with positive weight.
    pub rows: Vec<usize>,
    /// Their weights, summing to 1 in each group.
    pub weights: Vec<f64>,
    /// The separator's unit normal, `v` with its rounding errors projected out.
    pub w: Vec<f64>,
    pub status: PolishStatus,
    /// Major iterations used.
    pub iterations: usize,
    /// The active set it ended with, to resume from.
    pub corral: CorralParts,
}

/// Stop when the relative optimality gap is below this.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PolishSettings {
    pub relative_gap: f64,
    pub max_iterations: usize,
    /// Rows added per major iteration ("multiple pricing"); Wolfe's algorithm adds one.
    pub pricing: usize,
    /// No iteration starts after this.
    pub deadline: Option<std::time::Instant>,
    /// The values the active set's factorisation may hold (`R`, and `Q` while it fits); a row that would
    /// take `R` past it does not join, and when no row can, the polish ends with
    /// [`PolishStatus::MemoryLimit`].
    pub factor_values: usize,
}

/// Plain arithmetic is used while its relative error, about `8·(r + 2)·u/‖v‖`, stays below this.
const PLAIN_ENOUGH: f64 = 1e-10;

/// Length below which `v` counts as zero, for points scaled into the unit ball.
const ZERO: f64 = 64.0 * UNIT_ROUNDOFF;

/// Where a polish starts.
pub(crate) enum Start {
    /// Rows with non-negative weights (normalised and reduced to an affinely independent set first).
    Weights(Vec<(usize, f64)>),
    /// The active set a previous polish ended with, on the same points (the problem may have grown).
    Resume(CorralParts),
}

/// Rows priced in every iteration, beyond the active set: the rest of the candidates are priced only
/// when these show no violator (partial pricing, as in the simplex method), since a row far above the
/// level rarely violates after one more iteration, and a full pricing then finds it anyway.
const NEAR_ROWS: usize = 256;

/// Partial pricing runs only on working sets this many times larger than the rows it prices. Below
/// that, pricing every row every iteration costs little more, and each iteration's violators are then
/// the worst of the whole set, not of rows chosen iterations ago: 10⁴ × 100 took 226 major iterations
/// with partial pricing and 164 without. Measured (session 30, AMD Zen 4, seven runs alternating,
/// medians) against the factor 2 used before: 10⁴ × 100, × 128, × 150 and × 200 1.11–1.15 × faster,
/// 5000 × 80 1.07 ×, 3·10⁴ × 120 1.03 ×, 10⁵ × 100 1.02–1.07 ×, the hard 10⁵ × 100 1.04–1.05 × slower,
/// and 10⁴ × 250, × 300, × 500, the noisy 2·10⁴ × 200 and × 300 the same; the working sets of 8000
/// rows of 2·10⁴ × 1000 and the hard 10⁴ × 1000 stay above the threshold. Six times (10⁵ × 100
/// 1.28 × slower) and a larger [`NEAR_ROWS`] (384 or 512: 2·10⁴ × 1000, the hard 10⁴ × 1000 and
/// 3000 × 2500 up to 1.05 × slower) did worse.
const PARTIAL_PRICING_FACTOR: usize = 4;

/// Polish from `start`, allowing rows from `candidates` to join.
pub(crate) fn polish(
    problem: &Problem,
    candidates: &[usize],
    start: Start,
    settings: PolishSettings,
) -> Polished {
    let groups = problem.groups();
    let mut corral = match start {
        Start::Weights(mut start) => {
            start.retain(|&(_, c)| c > 0.0 && c.is_finite());
            for g in 0..groups {
                if !start.iter().any(|&(i, _)| problem.group(i) == g)
                    && let Some(&i) = candidates.iter().find(|&&i| problem.group(i) == g)
                {
                    start.push((i, 1.0));
                }
            }
            // Checked before the factorisation is built, not after: a start as large as the working
            // set would otherwise pass the budget in `reset`, where no row is added.
            let mut members: Vec<usize> = start.iter().map(|&(i, _)| i).collect();
            members.sort_unstable();
            members.dedup();
            let columns = members.len().saturating_sub(groups).min(problem.dim());
            if Corral::implicit_values_for(columns) > settings.factor_values {
                return Polished {
                    rows: Vec::new(),
                    weights: Vec::new(),
                    w: vec![0.0; problem.dim()],
                    status: PolishStatus::MemoryLimit,
                    iterations: 0,
                    corral: Corral::new(problem).into_parts(),
                };
            }
            let mut corral = Corral::new(problem);
            corral.limit_values(settings.factor_values);
            corral.reset(&start);
            corral
        }
        Start::Resume(parts) => {
            let mut corral = Corral::resume(problem, parts);
            corral.limit_values(settings.factor_values);
            corral
        }
    };
    // Plain arithmetic from the first minor cycle on (see `plain_exhausted`): a start from weights (a
    // descent's, or clarabel's) can drop hundreds of rows one at a time, each step several times
    // dearer in twice working precision (400 of them were 4.7 s of the first round on the
    // 150 000 × 2·10⁶ set of the README, with the same answer).
    corral.set_accurate(false);
    let mut accurate_mode = false;

    let mut status = PolishStatus::IterationLimit;
    let mut v = corral.point();
    let mut w: Vec<f64> = Vec::new();
    let mut iterations = 0;
    let mut pricing = settings.pricing.max(1);
    let mut added: Vec<usize> = Vec::new();
    // Rows are priced in plain arithmetic until no row violates beyond its rounding error; only then,
    // when the gap asked for is finer than that, in twice working precision (the end game): the
    // support is found cheaply, and the exact scores are paid for in the last few iterations only.
    let mut endgame = false;
    // Points and normals are kept in plain arithmetic until it has done what it can (no violator beyond
    // its rounding error, or a stall), even where the margin is so small that the answer needs twice
    // working precision: finding the support takes most of the iterations, and each costs several times
    // more in twice working precision. Only then, if it is needed, the corral switches and continues.
    let mut plain_exhausted = false;
    // The rows priced in every iteration (see `NEAR_ROWS`); empty until the first full pricing.
    let mut near: Vec<usize> = Vec::new();
    let mut full_pricing = true;
    let mut violations: Vec<(f64, usize)> = Vec::new();
    let mut buffer: Vec<f64> = Vec::new();
    let mut scores: Vec<f64> = Vec::new();
    // A member's plain score this iteration, by row (read for members only).
    let mut member_score: Vec<f64> = Vec::new();
    for _ in 0..settings.max_iterations {
        if settings
            .deadline
            .is_some_and(|deadline| std::time::Instant::now() >= deadline)
        {
            status = PolishStatus::TimeLimit;
            break;
        }
        iterations += 1;
        if settle(&mut corral) == MinorCycle::Breakdown {
            status = PolishStatus::Breakdown;
            v = corral.point();
            break;
        }
        v = corral.point();
        let length2: f64 = v.iter().map(|x| x * x).sum();
        // Plain arithmetic loses about r·u/‖v‖ of relative accuracy (points lie in the unit ball); switch to
        // twice working precision when that could matter against the gap we are asked to resolve.
        let precise =
            (problem.dim() as f64 + 2.0) * 8.0 * UNIT_ROUNDOFF > PLAIN_ENOUGH * length2.sqrt();
        let wanted = precise && plain_exhausted;
        // Where plain arithmetic ends, whether twice working precision takes over (else the polish ends).
        let switch_to_precise = precise && !plain_exhausted;
        if wanted != accurate_mode {
            accurate_mode = wanted;
            corral.set_accurate(wanted);
            if settle(&mut corral) == MinorCycle::Breakdown {
                status = PolishStatus::Breakdown;
                v = corral.point();
                break;
            }
            v = corral.point();
        }
        let length2: f64 = v.iter().map(|x| x * x).sum();
        if length2.sqrt() <= ZERO {
            status = PolishStatus::Zero;
            break;
        }
        if !added.is_empty() {
            let stayed = added.iter().filter(|&&i| corral.is_member(i)).count();
            if stayed == 0 {
                if pricing > 1 {
                    // A whole batch left again: add fewer rows at a time, down to Wolfe's one.
                    pricing /= 2;
                } else if switch_to_precise {
                    // Plain arithmetic's rounding may be what undoes the step: go on in twice working
                    // precision.
                    plain_exhausted = true;
                    full_pricing = true;
                    added.clear();
                    continue;
                } else {
                    // Rounding prevents progress: the row Wolfe's rule adds leaves again at once.
                    status = PolishStatus::Stalled;
                    break;
                }
            } else if stayed == added.len() {
                pricing = (pricing * 2).min(corral.pricing_cap(settings.pricing));
            }
        }
        // Major cycle: the worst violators among the candidates, scored against the unit normal of the
        // corral (see `Corral::normal`). A plain dot product of unit-ball points is off by at most about
        // r·u; when that is not small against the gap we are asked to resolve (tiny margins), the rows
        // that might violate are re-scored in twice working precision.
        let normal = corral.normal(&v);
        let r = problem.dim() as f64;
        // A point read in place is computed into `buffer`; a copied one is read where it is, and a
        // packed one over its stored coordinates (the rest are zero).
        let exact_score = |i: usize, buffer: &mut Vec<f64>| {
            let point = problem.stored(i, buffer);
            problem.labels[i] * dot2(&normal[..point.len()], point).0
        };
        // The members' plain scores serve the level and then their own pricing (outside the end game,
        // whose level takes exact scores); the other rows' are computed where they are priced.
        let mut level = vec![0.0; groups];
        if endgame {
            for &i in corral.rows() {
                level[problem.group(i)] += corral.weight(i) * exact_score(i, &mut buffer);
            }
        } else {
            problem_scores_into(problem, corral.rows(), &normal, &mut scores);
            member_score.resize(problem.n(), 0.0);
            for (&i, &dot) in corral.rows().iter().zip(&scores) {
                member_score[i] = problem.labels[i] * dot;
                level[problem.group(i)] += corral.weight(i) * member_score[i];
            }
        }
        let scale: f64 = level.iter().sum::<f64>().max(f64::MIN_POSITIVE);
        let plain_noise = 4.0 * (r + 2.0) * UNIT_ROUNDOFF;
        let needs_exact = plain_noise > settings.relative_gap * scale;
        let noise = if endgame {
            8.0 * UNIT_ROUNDOFF * scale + 8.0 * (r + 2.0).powi(2) * UNIT_ROUNDOFF.powi(2)
        } else {
            plain_noise
        };
        let done = |worst: &[f64]| {
            let gap: f64 = worst.iter().sum();
            gap <= settings.relative_gap * scale || gap <= noise
        };
        let mut worst = vec![0.0f64; groups];
        let mut violating: Vec<(f64, usize)> = Vec::new();
        let price = |rows: &[usize],
                     worst: &mut Vec<f64>,
                     violating: &mut Vec<(f64, usize)>,
                     all: Option<&mut Vec<(f64, usize)>>,
                     buffer: &mut Vec<f64>,
                     scores: &mut Vec<f64>| {
            worst.iter_mut().for_each(|x| *x = 0.0);
            violating.clear();
            let mut all = all;
            let known = |i: usize| !endgame && corral.is_member(i);
            let unknown: Vec<usize> = rows.iter().copied().filter(|&i| !known(i)).collect();
            problem_scores_into(problem, &unknown, &normal, scores);
            let mut computed = scores.iter();
            for &i in rows {
                let g = problem.group(i);
                let score = if known(i) {
                    member_score[i]
                } else {
                    let dot = computed.next().copied().unwrap_or(f64::NAN);
                    problem.labels[i] * dot
                };
                let mut violation = level[g] - score;
                if endgame && violation > -plain_noise {
                    violation = level[g] - exact_score(i, buffer);
                }
                if let Some(all) = all.as_deref_mut() {
                    all.push((violation, i));
                }
                if violation > 0.0 {
                    worst[g] = worst[g].max(violation);
                    if !corral.is_member(i) {
                        violating.push((violation, i));
                    }
                }
            }
        };
        if !full_pricing {
            price(
                &near,
                &mut worst,
                &mut violating,
                None,
                &mut buffer,
                &mut scores,
            );
            if done(&worst) {
                full_pricing = true;
            }
        }
        if full_pricing {
            violations.clear();
            let keep =
                candidates.len() > PARTIAL_PRICING_FACTOR * (NEAR_ROWS + corral.rows().len());
            price(
                candidates,
                &mut worst,
                &mut violating,
                keep.then_some(&mut violations),
                &mut buffer,
                &mut scores,
            );
            // The rows closest to violating, for the partial pricings that follow.
            near.clear();
            if keep {
                let count = NEAR_ROWS + corral.rows().len();
                violations.select_nth_unstable_by(count, |a, b| b.0.total_cmp(&a.0));
                near.extend(violations[..count].iter().map(|&(_, i)| i));
                full_pricing = false;
            }
        }
        w = normal;
        if done(&worst) {
            if switch_to_precise {
                plain_exhausted = true;
                full_pricing = true;
                added.clear();
                continue;
            }
            if needs_exact && !endgame {
                endgame = true;
                full_pricing = true;
                added.clear();
                continue;
            }
            status = PolishStatus::Optimal;
            break;
        }
        violating.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        // A violator that depends on the corral's columns violates only within rounding, and each
        // refusal costs a full Gram–Schmidt pass: near a non-separable data's zero point most violators
        // are such, so the batch stops after as many refusals as it may add rows.
        let rows: Vec<usize> = violating.iter().map(|&(_, i)| i).collect();
        let batch = corral.add_batch(&rows, pricing, settings.factor_values);
        added = batch.rows;
        if added.is_empty() && batch.over_budget {
            status = PolishStatus::MemoryLimit;
            break;
        }
        if added.is_empty() {
            if switch_to_precise {
                plain_exhausted = true;
                full_pricing = true;
                continue;
            }
            status = PolishStatus::Stalled;
            break;
        }
    }
    let rows: Vec<usize> = corral.rows().to_vec();
    let weights = rows.iter().map(|&i| corral.weight(i)).collect();
    if w.is_empty() {
        w = corral.normal(&v);
    }
    Polished {
        rows,
        weights,
        w,
        status,
        iterations,
        corral: corral.into_parts(),
    }
}

/// How a minor cycle ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MinorCycle {
    /// The weights are the affine minimiser of the corral, all non-negative.
    Settled,
    /// The affine minimiser came out non-finite: the factorisation no longer describes the members.
    Breakdown,
}

/// A minor cycle; if the factorisation has broken down, refactor the support from its current weights
/// (Carathéodory's reduction removes a dependent member) and try once more.
fn settle(corral: &mut Corral<'_>) -> MinorCycle {
    if minor_cycle(corral) == MinorCycle::Settled {
        return MinorCycle::Settled;
    }
    let current: Vec<(usize, f64)> = corral
        .rows()
        .iter()
        .map(|&i| (i, corral.weight(i)))
        .collect();
    corral.reset(&current);
    minor_cycle(corral)
}

/// Wolfe's minor cycle: move to the affine minimiser of the corral, or as far towards it as the weights
/// stay non-negative, dropping the rows whose weight reaches zero. Every pass that does not finish
/// removes a row.
fn minor_cycle(corral: &mut Corral<'_>) -> MinorCycle {
    for _ in 0..=corral.rows().len() {
        let target = corral.minor_cycle_target();
        if target.iter().any(|&(_, a)| !a.is_finite()) {
            return MinorCycle::Breakdown;
        }
        if target.iter().all(|&(_, a)| a >= 0.0) {
            for &(i, a) in &target {
                corral.set_weight(i, a);
            }
            return MinorCycle::Settled;
        }
        // Rows still at weight zero whose target is negative leave at once: that does not move v.
        let idle: Vec<usize> = target
            .iter()
            .filter(|&&(i, a)| a < 0.0 && corral.weight(i) == 0.0)
            .map(|&(i, _)| i)
            .collect();
        if !idle.is_empty() {
            for i in idle {
                corral.remove(i);
            }
            continue;
        }
        // The first weight to reach zero on the segment from the current weights to the target. Every
        // negative target here has a positive current weight, so its ratio lies in (0, 1]; it rounds to
        // exactly 1 when the target is negative by less than a rounding error of the weight, and that
        // row must still leave (a strict `< 1` test once let no row qualify).
        let Some((theta, hit)) = target
            .iter()
            .filter(|&&(_, a)| a < 0.0)
            .map(|&(i, a)| {
                let c = corral.weight(i);
                ((c / (c - a)).min(1.0), i)
            })
            .min_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)))
        else {
            // Unreachable: the targets are finite and not all non-negative, so one is negative.
            return MinorCycle::Breakdown;
        };
        let mut leaving = vec![hit];
        for &(i, a) in &target {
            let c = corral.weight(i);
            let moved = c + theta * (a - c);
            if moved <= 0.0 && i != hit {
                leaving.push(i);
            }
            corral.set_weight(i, moved.max(0.0));
        }
        for i in leaving {
            corral.remove(i);
        }
        corral.normalise();
    }
    MinorCycle::Settled
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::margin::Bias;

    /// 40 scattered points in 12 coordinates, alternating labels.
    fn problem() -> Problem<'static> {
        let mut problem = Problem::growing(Bias::Free, 12);
        for (i, row) in crate::margin::problem::scattered_rows(40, 12)
            .into_iter()
            .enumerate()
        {
            problem.push(row, if i % 2 == 0 { 1.0 } else { -1.0 });
        }
        problem
    }

    fn settings(factor_values: usize) -> PolishSettings {
        PolishSettings {
            relative_gap: 1e-12,
            max_iterations: 1000,
            pricing: 4,
            deadline: None,
            factor_values,
        }
    }

    #[test]
    fn a_start_whose_factorisation_passes_the_budget_is_refused_before_it_is_built() {
        let problem = problem();
        let all: Vec<usize> = (0..40).collect();
        // Every row, with a duplicate: at most 12 affinely independent columns.
        let mut start: Vec<(usize, f64)> = all.iter().map(|&i| (i, 1.0)).collect();
        start.push((3, 1.0));
        // `R` alone is the least a factorisation of 12 columns holds.
        let needed = Corral::implicit_values_for(12);
        let refused = polish(
            &problem,
            &all,
            Start::Weights(start.clone()),
            settings(needed - 1),
        );
        assert_eq!(refused.status, PolishStatus::MemoryLimit);
        assert_eq!(
            refused.iterations, 0,
            "no iteration, so no factorisation, ran"
        );
        assert!(refused.rows.is_empty());
        assert_eq!(refused.w, vec![0.0; 12]);
        // The budget that holds `R` lets the same start through (without `Q`), and so does the one
        // that holds `Q` too, to the same end (these points are not separable: the hull meets 0).
        let without_q = polish(
            &problem,
            &all,
            Start::Weights(start.clone()),
            settings(needed),
        );
        let with_q = Corral::values_for(&problem, 12);
        let solved = polish(&problem, &all, Start::Weights(start), settings(with_q));
        for polished in [&without_q, &solved] {
            assert_eq!(polished.status, PolishStatus::Zero);
            assert!(polished.iterations > 0);
        }
    }
}
