//! The exact solve's start from a few passes of dual coordinate descent: a sparse solve's first working
//! set and weights, and a dense solve's weights in many dimensions.
//!
//! On sparse data with many columns (text, hashed features) the support of the maximum margin can hold
//! thousands of rows, and the rounds of [`super::rounds`] find them slowly from a guess: each round adds
//! the rows that violate the working set's optimum, most of which are not support rows, and the working
//! set grows to several times the support before it holds it. Dual coordinate descent as in LIBLINEAR
//! (Hsieh et al., ICML 2008) on the hard-margin dual, `max Σαᵢ − ½‖Σαᵢyᵢxᵢ‖²` over `α ≥ 0`, costs one
//! read of each row per pass and identifies the support within a few tens of passes, long before it
//! converges (it converges linearly: the exact solve brackets the optimum to about 10⁻¹¹, where the
//! descent would need thousands of sweeps, so it runs on to the tolerance only where the exact solve
//! would hold more than the data, [`super::lean`]).
//! The rows it leaves with a positive weight are the first working set, and their weights the exact
//! solve's start. Most rows score far above the margin after a few sweeps and never move again: they are
//! shrunk, as LIBLINEAR does ([`descend`]), so that later sweeps read the few thousand rows near the
//! margin instead of the whole data (on the rcv1-shaped file of the README the descent reads 10 passes'
//! worth of rows where its 40 sweeps read 40, and the solve takes 3.0 s instead of 4.7). The descent is
//! therefore bounded by the rows it reads, not by its sweeps ([`PASS_BUDGET`]): where most rows are
//! shrunk it sweeps on until the support settles, a better start for the exact solve at little cost
//! (the same file: 104 sweeps in 15 passes' worth, a working set of 1252 rows instead of 1481,
//! and the solve 1.7 × faster), and where nothing shrinks it stops where 40 sweeps stopped before.
//!
//! Dense data in a hundred dimensions or more have the opposite trouble: the first working set of
//! [`super::round_state`] holds most of the support, but Wolfe's method on it, started from the class
//! means, finds a support of about `d` rows by thousands of pivots (about 3300 appends and 2400
//! deletions for 950 support rows in 1000 dimensions), each `O(|S|·d)`. The descent on the first set
//! alone names most of the support in passes of `O(d)` a row, and the exact solve starts from its
//! heaviest rows: on 2·10⁴ × 1000 its first round took 24 major iterations instead of 113, the whole
//! solve 1.8 × less time (session 17 ran the descent on every row and kept every weighted row, and
//! lost: its passes cost a whole dataset each, and each spare row a deletion or a Carathéodory step).
//! The descent's separator then fits the first set with one pass over every row: rows it puts near
//! its margin join, and rows it leaves unweighted far above it leave
//! (`first_set::fit_to_the_descent`). Each step on a dense row and the next row's score share one
//! pass over the separator, with the bits of two ([`Sweeps`]).
//!
//! A free bias adds the constraint `Σαᵢyᵢ = 0`, which coordinate steps cannot keep. On dense data the
//! bias is held fixed during a sweep (the constraints are `yᵢ(w·xᵢ + b) ≥ 1`) and moved between sweeps
//! to the bias that balances the two classes' lowest scores under the current `w`, which is where the
//! optimal bias lies for the optimal `w`. That rule has fixed points away from the optimum. On the
//! rcv1-shaped file of the README (a Python copy of these sweeps on the 2500 rows nearest the margin,
//! session 51) it settled with a bias of the wrong sign, 1257 of the 1600 support rows weighted, and a
//! duality gap of 5.4 % that 2000 sweeps did not close; on the test below `|Σαᵢyᵢ|` stays at 0.55 of
//! `Σαᵢ`.
//!
//! On sparse data, whose first working set and start are the descent's own, the bias is therefore the
//! multiplier of that constraint in an augmented Lagrangian (the method of multipliers: Hestenes 1969,
//! Powell 1969). Each step minimises `½‖w‖² − Σαᵢ + λ·s + (ρ/2)·s²`, `s = Σαᵢyᵢ`, in its weight: the
//! step of the constraints with `b = λ + ρ·s` and the curvature `‖xᵢ‖² + ρ`. After each sweep
//! `λ ← λ + ρ·s`. This drives `s` to zero and the bias to the optimum's: on the same rows, 1570 support
//! rows weighted and 60 others after 40 sweeps (against 1238 and 129), and a gap of 8·10⁻¹⁰ after 2000.
//! `ρ` ([`BIAS_PENALTY`] of `R²`) is small because it couples every pair of weights: at `ρ = R²`, with
//! the multiplier moved every 60 sweeps, the gap was still 4.6 % after 1800.
//!
//! On the generated sparse files of `docs/max-margin-history.md` (session 51) the solves took from
//! 1.06 × to 29 × less time, and their working sets shrank. On dense data it changed nothing
//! measurable (`benches/compare_builds.py`: geometric means 0.97 over the `wide` and `narrow` sets and
//! 1.02 over the `high` set, within the noise); there the descent is cut short and only chooses rows,
//! so dense data keep the balancing rule and their bits. Nothing here needs to be exact: the answer
//! only chooses rows and starts the exact solve.

use super::Bias;
use super::points::Points;
use crate::rng;
use crate::simd::{Aligned, prefetch_row};

/// The rows the descent may read, in passes over the rows it visits: what `PASS_BUDGET` sweeps cost
/// without shrinking. Once most rows are shrunk a sweep costs a fraction of a pass, so the descent may
/// sweep far more often where it converges (and its support estimate improves), and no more than before
/// where nothing shrinks (data that cannot be separated, whose weights grow without end).
pub(super) const PASS_BUDGET: usize = 40;
/// The most sweeps, whatever the budget.
const MAX_SWEEPS: usize = 1000;
/// The share of rows entering or leaving the support below which it counts as found.
const SETTLED: f64 = 0.01;
/// `ρ`, the penalty on `(Σαᵢyᵢ)²` of the augmented Lagrangian that keeps a free bias on sparse data, as
/// a share of `R²` (see the module docs): it adds to every row's curvature and couples every pair of
/// weights, so it is kept small, and the multiplier's update `ρ·s` still moves the bias at the scale of
/// the weights' sums.
const BIAS_PENALTY: f64 = 1e-3;

/// `ρ` of the augmented Lagrangian for `bias` on `data`: [`BIAS_PENALTY`] of `R²` for a free bias on
/// sparse data, otherwise 0 (no multiplier: dense data keep the balancing rule, and through the origin
/// there is no constraint). The first-order solve of [`super::lean`] takes the same.
pub(super) fn bias_penalty(data: Points<'_>, bias: Bias) -> f64 {
    let rho = match bias {
        Bias::Free if data.is_sparse() => BIAS_PENALTY * data.radius().powi(2),
        _ => 0.0,
    };
    if rho.is_finite() { rho } else { 0.0 }
}

/// What the descent leaves: each row's weight and its last score `yᵢ(w·xᵢ + b)` (seen during the last
/// sweep that visited it, so slightly stale).
pub(super) struct Descent {
    pub(super) alpha: Vec<f64>,
    pub(super) margins: Vec<f64>,
    /// The last separator `(w, b)`, in the scale of the constraints `yᵢ(w·xᵢ + b) ≥ 1`: a row it puts
    /// near or below 1 is one the descent would weigh, had it visited it.
    pub(super) w: Vec<f64>,
    pub(super) b: f64,
    /// The rows read, in whole passes over the rows visited (rounded up).
    pub(super) passes: usize,
    /// Whether the support settled (fewer than [`SETTLED`] of its rows entering or leaving in a sweep),
    /// rather than the budget or the cap ending the sweeps.
    pub(super) settled: bool,
    /// The sweeps made, the last one over every row (the tests' view of the budget at work).
    #[cfg(test)]
    sweeps: usize,
}

/// The rows a descent visits.
#[derive(Debug)]
pub(super) enum Visit {
    /// Every row, in order: the list is made once, as the first sweep's, not kept beside it (on a
    /// sparse solve, whose peak is the descent, that would be a value a row).
    Every,
    /// These rows, in this order (a dense solve's first working set).
    Rows(Vec<usize>),
}

impl From<Vec<usize>> for Visit {
    fn from(rows: Vec<usize>) -> Visit {
        Visit::Rows(rows)
    }
}

impl Visit {
    fn len(&self, n: usize) -> usize {
        match self {
            Visit::Every => n,
            Visit::Rows(rows) => rows.len(),
        }
    }

    /// Make `active` the rows visited, in their order.
    fn fill(&self, n: usize, active: &mut Vec<usize>) {
        match self {
            Visit::Every => {
                active.clear();
                active.extend(0..n);
            }
            Visit::Rows(rows) => active.clone_from(rows),
        }
    }
}

/// Run the descent on the rows `visit` of `data` (every row, or a dense solve's first working set); the
/// other rows keep weight and score zero.
///
/// Rows are shrunk as in LIBLINEAR (Hsieh et al. 2008, "shrinking"): a row at weight zero whose gradient
/// `yᵢ(w·xᵢ + b) − 1` exceeds the largest projected gradient of the previous sweep does not move in this
/// one, and is left out of the sweeps that follow. When the sweeps over the rows left settle, or when
/// [`PASS_BUDGET`] passes' worth of reads or [`MAX_SWEEPS`] would allow no more than one more sweep,
/// one more sweep visits every row, and the descent ends. On the rcv1-shaped file of the README about
/// 1700 of its 20 242 rows remain after a dozen sweeps.
pub(super) fn descend(data: Points<'_>, bias: Bias, visit: impl Into<Visit>) -> Descent {
    descend_within(data, bias, visit, PASS_BUDGET)
}

/// [`descend`] with a budget of `passes` passes' worth of reads instead of [`PASS_BUDGET`].
pub(super) fn descend_within(
    data: Points<'_>,
    bias: Bias,
    visit: impl Into<Visit>,
    passes: usize,
) -> Descent {
    run(data, bias, visit.into(), Sweeps { passes, ..SWEEPS })
}

/// How the sweeps run: [`descend`]'s way, or with one of its economies turned off (the tests').
#[derive(Debug, Clone, Copy)]
struct Sweeps {
    /// Leave out the rows far above the margin (LIBLINEAR's shrinking).
    shrink: bool,
    /// Score the next row in the same pass over `w` as each step (the same bits,
    /// [`Point::add_to_then_dot`](super::points::Point::add_to_then_dot)). On 2·10⁴ × 1000 the sweeps
    /// over the last 1400–2000 rows, held in the cache, read 38 GB/s instead of 31, and the hard
    /// 10⁴ × 1000's descent took 106 ms instead of 113 (AMD Zen 5, session 36); the early sweeps wait on
    /// memory either way.
    fuse: bool,
    /// The rows it may read, in passes over the rows it visits.
    passes: usize,
}

const SWEEPS: Sweeps = Sweeps {
    shrink: true,
    fuse: true,
    passes: PASS_BUDGET,
};

/// [`descend`], its sweeps run as `how` says.
fn run(data: Points<'_>, bias: Bias, visit: Visit, how: Sweeps) -> Descent {
    let Sweeps {
        shrink,
        fuse,
        passes,
    } = how;
    let n = data.n_samples();
    let labels = data.labels();
    // Each row's squared length, measured in the first sweep, which visits every row: a pass of its
    // own read every row from memory once more (about one sweep's time on the dense first sets).
    let mut squared = vec![0.0; n];
    let mut alpha = vec![0.0; n];
    // Aligned: every step stores the whole of `w`, and a store across two cache lines costs two.
    let mut w = Aligned::zeros(data.n_features());
    let mut margins = vec![0.0; n];
    // The free bias as the multiplier of `Σαᵢyᵢ = 0` (see the module docs): `b = λ + ρ·s` in every
    // step, `s = Σαᵢyᵢ` kept as the weights move, and `λ ← λ + ρ·s` after each sweep.
    let rho = bias_penalty(data, bias);
    let (mut lambda, mut s) = (0.0, 0.0);
    let mut b = 0.0;
    // A fixed seed: the solve is a function of the data.
    let mut stream = rng::from_seed(0x6d61_7267_696e);
    let visited = visit.len(n);
    let mut active = Vec::new();
    visit.fill(n, &mut active);
    // The largest projected gradient of the last sweep (LIBLINEAR's `PGmax_old`).
    let mut bound = f64::INFINITY;
    let mut reads = 0usize;
    let mut sweeps = 0;
    let mut last_sweep = false;
    // Whether the last sweep that decided found the support settled, rather than the budget or the
    // cap ending the sweeps.
    let mut settled = false;
    let budget = passes.saturating_mul(visited);
    let sparse = data.sparse_ahead();
    let gathers_miss = data.gathers_miss_cache();
    while sweeps < MAX_SWEEPS {
        sweeps += 1;
        rng::shuffle(&mut stream, &mut active);
        reads += active.len();
        let mut changed = 0usize;
        let mut support = 0usize;
        let mut largest = f64::NEG_INFINITY;
        let mut kept = 0;
        // The score of the row at `k`, when the step before it formed it.
        let mut scored: Option<f64> = None;
        for k in 0..active.len() {
            if let Some(sparse) = sparse {
                // Rows before `k` may have been shrunk away, never those after it.
                sparse.after(&active, k, gathers_miss.then_some(&w[..]));
            }
            let i = active[k];
            let row = data.row(i);
            let y = labels[i];
            // The dense row after the next, asked for inside this step's kernels, a few lines at a
            // time; when the step runs none (a row scored by the step before, and not moved), at once.
            // The hardware prefetchers follow a row once its stream has started, not to the next
            // row's start. Asking for the whole next row in one burst before each step (session 34)
            // took the descent of the 2·10⁴ × 1000 set of `benches/margin_passes` from 110–114 ms to
            // 94–100; spread over the step's kernels, two rows ahead, its whole solve took 0.200 s
            // instead of 0.209 and the hard 10⁴ × 1000's 0.259 s instead of 0.283 (session 38, AMD
            // Zen 5, three runs alternating, medians; a standalone copy of the sweep read rows of 1000
            // values from memory 1.2 × faster). A long row goes to the second-level cache, out of
            // the first's way (see `crate::simd::prefetch_row`: session 45, Zen 4, 1.17–1.19 × on
            // those two sets). Rows before `k` may have been shrunk away, never those after it.
            let ahead = active
                .get(k + 2)
                .map_or(&[][..], |&after| data.dense_values(after));
            let mut asked = false;
            let score = scored.take().unwrap_or_else(|| {
                asked = true;
                row.dot_ahead(&w, ahead)
            });
            let margin = y * (score + b);
            if sweeps == 1 {
                squared[i] = row.squared_length();
            }
            margins[i] = margin;
            let gradient = margin - 1.0;
            if shrink && alpha[i] == 0.0 && gradient > bound {
                if !asked {
                    prefetch_row(ahead);
                }
                continue;
            }
            active[kept] = i;
            kept += 1;
            largest = largest.max(if alpha[i] == 0.0 {
                gradient.min(0.0)
            } else {
                gradient
            });
            if squared[i] > 0.0 {
                let old = alpha[i];
                let new = (old - gradient / (squared[i] + rho)).max(0.0);
                if new.is_finite() && new != old {
                    alpha[i] = new;
                    let step = (new - old) * y;
                    if rho > 0.0 {
                        s += step;
                        b = lambda + rho * s;
                    }
                    // The next row is scored in the same pass over `w` (the bits of a pass of its own):
                    // rows before `k` may have been shrunk away, never those after it.
                    match active.get(k + 1) {
                        Some(&next) if fuse => {
                            scored = Some(row.add_to_then_dot(step, &mut w, data.row(next), ahead));
                            asked = true;
                        }
                        _ => row.add_to(step, &mut w),
                    }
                    changed += usize::from((old == 0.0) != (new == 0.0));
                }
            }
            if !asked {
                prefetch_row(ahead);
            }
            support += usize::from(alpha[i] > 0.0);
        }
        let shrunk = kept < visited;
        active.truncate(kept);
        if bias == Bias::Free {
            let (mut lowest_positive, mut highest_negative) = (f64::INFINITY, f64::NEG_INFINITY);
            // Over the rows left only: the rows shrunk were above the margin by more than the bound
            // when they left, so the lowest scores of each class are (almost always) among those left,
            // and the bias only steers the descent.
            for &i in &active {
                // The score w·xᵢ the margin was computed from.
                let score = labels[i] * margins[i] - b;
                if labels[i] > 0.0 {
                    lowest_positive = lowest_positive.min(score);
                } else {
                    highest_negative = highest_negative.max(score);
                }
            }
            let balanced = -0.5 * (lowest_positive + highest_negative);
            if rho > 0.0 && sweeps > 1 {
                lambda += rho * s;
                let next = lambda + rho * s;
                if next.is_finite() {
                    b = next;
                }
            } else if balanced.is_finite() {
                // Dense data's rule, and the multiplier's first value on sparse data.
                lambda = balanced - rho * s;
                b = balanced;
            }
        }
        if !w.iter().all(|v| v.is_finite()) {
            break;
        }
        if last_sweep {
            break;
        }
        bound = if largest > 0.0 {
            largest
        } else {
            f64::INFINITY
        };
        settled = sweeps >= 3 && (changed as f64) <= SETTLED * support.max(1) as f64;
        if !shrunk {
            // This sweep read every row, so it can be the last.
            if settled || reads.saturating_add(visited) > budget {
                break;
            }
        } else if settled || sweeps + 1 == MAX_SWEEPS || reads.saturating_add(2 * visited) > budget
        {
            // With rows shrunk, one more sweep, over every row, ends the descent when the rows left
            // have settled or when the cap or the budget would allow no other before it: the rows
            // shrunk get fresh scores, and any that fell back below the margin its weight.
            // Unshrinking whenever the rows left settle (as LIBLINEAR does when they converge)
            // alternated full sweeps with short ones where the descent converges slowly, and read more
            // rows than no shrinking at all.
            visit.fill(n, &mut active);
            bound = f64::INFINITY;
            last_sweep = true;
        }
    }
    Descent {
        alpha,
        margins,
        w: w.into_vec(),
        b,
        passes: reads.div_ceil(visited.max(1)),
        settled,
        #[cfg(test)]
        sweeps,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Dataset;
    use ndarray::{Array1, Array2};

    /// `near` rows of each class between 1 and 1.4 from the separator `x₀ = 0`, spread along the other
    /// columns, and `far` rows of each class beyond 10.
    fn near_and_far(near: usize, far: usize) -> Dataset {
        let d = 6;
        let n = 2 * (near + far);
        let mut x = Array2::zeros((n, d));
        let mut y = Array1::zeros(n);
        for i in 0..n {
            let class = if i % 2 == 0 { 1.0 } else { -1.0 };
            let k = i / 2;
            let distance = if k < near {
                1.0 + (k % 5) as f64 / 10.0
            } else {
                10.0 + k as f64
            };
            x[[i, 0]] = class * distance;
            for j in 1..d {
                // Spread deterministically over [−1, 1].
                x[[i, j]] = (((k * 7 + j * 3) % 11) as f64 / 5.0) - 1.0;
            }
            y[i] = class;
        }
        Dataset::new(x, y).unwrap()
    }

    const NO_SHRINKING: Sweeps = Sweeps {
        shrink: false,
        ..SWEEPS
    };

    #[test]
    fn rows_far_from_the_margin_are_shrunk_and_the_weighted_rows_stay() {
        let data = near_and_far(30, 300);
        let n = data.n_samples();
        let weighted =
            |found: &Descent| -> Vec<usize> { (0..n).filter(|&i| found.alpha[i] > 0.0).collect() };
        for storage in [data.clone(), data.to_sparse()] {
            let points = Points::from(&storage);
            let shrunk = run(points, Bias::Free, Visit::Every, SWEEPS);
            let plain = run(points, Bias::Free, Visit::Every, NO_SHRINKING);
            if !storage.is_sparse() {
                // The balancing bias's fixed point, reached either way. On sparse data the multiplier
                // still moves when the support settles, and the two paths stop a sweep apart.
                assert_eq!(weighted(&shrunk), weighted(&plain));
            }
            for found in [&shrunk, &plain] {
                assert!(!weighted(found).is_empty());
                assert!(weighted(found).iter().all(|&i| i < 60), "only near rows");
            }
            assert!(shrunk.passes < plain.passes);
            // Every row, listed once by the descent, is every row listed by the caller.
            let listed = run(
                points,
                Bias::Free,
                (0..n).collect::<Vec<_>>().into(),
                SWEEPS,
            );
            assert_eq!(listed.alpha, shrunk.alpha);
            assert_eq!(listed.w, shrunk.w);
        }
    }

    #[test]
    fn the_descent_is_bounded_by_the_rows_it_reads_not_by_its_sweeps() {
        // Small margins in few dimensions: the descent converges slowly, while most rows shrink.
        let slow = crate::generate::separable(3000, 20, 0.001, 1.0, 1)
            .unwrap()
            .data;
        let points = Points::from(&slow);
        let shrunk = run(points, Bias::Free, Visit::Every, SWEEPS);
        let plain = run(points, Bias::Free, Visit::Every, NO_SHRINKING);
        // Without shrinking every sweep is a pass, and the budget stops it where 40 sweeps did.
        assert_eq!((plain.sweeps, plain.passes), (PASS_BUDGET, PASS_BUDGET));
        // With it, the same reads allow more sweeps, which end when the support settles.
        assert!(shrunk.sweeps > PASS_BUDGET, "{} sweeps", shrunk.sweeps);
        assert!(shrunk.passes < PASS_BUDGET, "{} passes", shrunk.passes);
        // Still slower to converge: the budget ends it, never more than its reads.
        let slower = crate::generate::separable(3000, 100, 0.0001, 1.0, 4)
            .unwrap()
            .data;
        let found = run(Points::from(&slower), Bias::Free, Visit::Every, SWEEPS);
        assert!(found.sweeps > PASS_BUDGET, "{} sweeps", found.sweeps);
        assert!(found.passes <= PASS_BUDGET, "{} passes", found.passes);
        // A smaller budget ends it sooner, within its own reads.
        let cut = descend_within(Points::from(&slower), Bias::Free, Visit::Every, 10);
        assert!(
            cut.passes <= 10 && cut.sweeps < found.sweeps,
            "{} passes",
            cut.passes
        );
        // Data that cannot be separated: the weights grow without end, within the same budget.
        let noisy = crate::generate::noisy(3000, 20, 0.05, 1.0, 0.1, 5)
            .unwrap()
            .data;
        let found = run(Points::from(&noisy), Bias::Free, Visit::Every, SWEEPS);
        assert!(found.passes <= PASS_BUDGET, "{} passes", found.passes);
    }

    #[test]
    fn steps_fused_with_the_next_score_give_the_bits_of_steps_apart() {
        // Short rows and long ones, plain and augmented points, with and without shrinking.
        for (d, margin) in [(3, 0.05), (12, 0.01), (100, 0.02)] {
            let data = crate::generate::separable(800, d, margin, 1.0, 7)
                .unwrap()
                .data;
            for points in [Points::from(&data), Points::augmented(&data, 1.0)] {
                for (bias, shrink) in [(Bias::Free, true), (Bias::ThroughOrigin, false)] {
                    let fused = run(points, bias, Visit::Every, Sweeps { shrink, ..SWEEPS });
                    let apart = run(
                        points,
                        bias,
                        Visit::Every,
                        Sweeps {
                            shrink,
                            fuse: false,
                            ..SWEEPS
                        },
                    );
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&fused.alpha), bits(&apart.alpha), "d={d}");
                    assert_eq!(bits(&fused.margins), bits(&apart.margins), "d={d}");
                    assert_eq!(bits(&fused.w), bits(&apart.w), "d={d}");
                    assert_eq!(fused.b.to_bits(), apart.b.to_bits(), "d={d}");
                    assert_eq!(
                        (fused.passes, fused.sweeps),
                        (apart.passes, apart.sweeps),
                        "d={d}"
                    );
                    assert!(fused.alpha.iter().any(|&a| a > 0.0));
                }
            }
        }
    }

    #[test]
    fn a_free_bias_on_sparse_data_keeps_the_classes_weights_equal_and_finds_the_support()
    -> crate::Result<()> {
        // The optimum's weights satisfy `Σαᵢyᵢ = 0`. The bias that balanced the classes' lowest scores
        // after each sweep (dense data's rule) left the classes' weights at 3.4 : 1 here and 164 of the
        // 744 support rows unweighted; the multiplier weighs 740 of them (session 51).
        use crate::generate::Family;
        let params = crate::generate::SparseParams::new(3000, 20_000).nnz(10);
        let data = params.margin(0.01).seed(2).check()?.generate()?.data;
        let found = descend(Points::from(&data), Bias::Free, Visit::Every);
        let labels = data.labels();
        let total: f64 = found.alpha.iter().sum();
        let signed: f64 = found.alpha.iter().zip(labels).map(|(a, y)| a * y).sum();
        assert!(total > 0.0);
        assert!(signed.abs() <= 1e-3 * total, "{signed} of {total}");
        let crate::margin::MarginResult::Separable { support, .. } =
            crate::margin::max_margin(&data, Bias::Free)?
        else {
            panic!("separable by construction");
        };
        let weighted = support.iter().filter(|&&i| found.alpha[i] > 0.0).count();
        assert!(
            weighted * 20 >= support.len() * 19,
            "{weighted} of {} support rows weighted",
            support.len()
        );
        Ok(())
    }

    #[test]
    fn a_sweep_that_asks_for_rows_ahead_gives_the_same_bits() {
        // Rows spread over 2¹⁸ columns and more (their weights asked for ahead too) descend as the same
        // rows on 64 columns, shrinking and all.
        let (narrow, wide) = crate::margin::points::narrow_and_wide(3000);
        for bias in [Bias::Free, Bias::ThroughOrigin] {
            let on_narrow = descend(Points::from(&narrow), bias, Visit::Every);
            let on_wide = descend(Points::from(&wide), bias, Visit::Every);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&on_narrow.alpha), bits(&on_wide.alpha));
            assert_eq!(bits(&on_narrow.margins), bits(&on_wide.margins));
            assert_eq!(
                (on_narrow.passes, on_narrow.sweeps),
                (on_wide.passes, on_wide.sweeps)
            );
            assert!(on_narrow.sweeps > 3 && on_narrow.alpha.iter().any(|&a| a > 0.0));
        }
    }
}
