//! Orders chosen by an adversary to force more mistakes than the cyclic pass, through the same update code.
//!
//! The theorem bounds the mistakes of *every* order. An adversary that sees the current weights and picks
//! the next example among the misclassified ones probes how close a dataset can come to its bound. The
//! runs drive [`OnlinePerceptron`](crate::perceptron::OnlinePerceptron), which shares its update with
//! [`Perceptron::fit`], and each run has the proof's inequalities checked as it goes.

use serde::Serialize;

use super::bound::{Facts, RunSetup};
use super::evaluate::evaluate_all;
use super::geometry::{Geometry, Separation, Separator};
use super::invariants::InvariantReport;
use super::kinds::BoundKind;
use super::verify::{invariant_check, run_separation, verify_with};
use crate::dataset::{Dataset, DenseRow};
use crate::error::{Error, Result};
use crate::perceptron::{Order, Perceptron};
use crate::rng;
use crate::simd::Summation;

/// The default update cap of an adversarial run: beyond it the search would take hours on data whose
/// bound is astronomically large.
const DEFAULT_CAP: u64 = 100_000;

/// How the adversary picks the next example among those the current weights misclassify
/// (`y·(w·x + b) ≤ 0`). Ties go to the lowest row index.
///
/// ```
/// use novikoff::bounds::Strategy;
/// assert_eq!(Strategy::MostViolated.name(), "most_violated");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Strategy {
    /// The cyclic pass of [`Perceptron::fit`]: the baseline.
    Cyclic,
    /// The example with the most negative `y·(w·x + b)`.
    MostViolated,
    /// The example with `y·(w·x + b)` closest to zero.
    LeastViolated,
    /// The example with the smallest `y·u·x̂`, for `u` the optimal unit separator of the vectors the run
    /// sees: the update that advances the proof's dot product `u·ŵ` least. The rows the solver certifies
    /// on the margin tie, whatever the last bits of their computed `y·u·x̂`, so the order (and the
    /// mistakes) do not change when another solver's path moves `u` by a rounding error.
    LeastProgress,
    /// A uniformly random misclassified example, from a seeded ChaCha8 stream.
    Random {
        /// The stream's seed.
        seed: u64,
    },
}

impl Strategy {
    /// The snake_case name.
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::Strategy::Random { seed: 3 }.name(), "random");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Cyclic => "cyclic",
            Strategy::MostViolated => "most_violated",
            Strategy::LeastViolated => "least_violated",
            Strategy::LeastProgress => "least_progress",
            Strategy::Random { .. } => "random",
        }
    }
}

/// Settings of [`search`], validated by [`AdversaryParams::check`] into an [`Adversary`].
///
/// | setting | default |
/// |---|---|
/// | random restarts | 8 |
/// | seed | 0 |
/// | update cap per run, the cyclic baseline included | `⌈bound⌉ + 1` when a bound applies (enough to see it broken), at most 10⁵; else 10 000 |
///
/// The 10⁵ stops runs on data whose bound is astronomically large (raw features, `(R/γ)²` of 10¹⁶), which
/// would otherwise run for ever: every adversarial pick reads every row. A run stopped by the cap reports
/// a lower bound on the worst order's mistakes.
///
/// ```
/// use novikoff::bounds::AdversaryParams;
/// let adversary = AdversaryParams::new().restarts(2).seed(7).check()?;
/// assert_eq!((adversary.restarts(), adversary.seed()), (2, 7));
/// assert!(AdversaryParams::new().max_updates(Some(0)).check().is_err());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdversaryParams {
    restarts: usize,
    seed: u64,
    max_updates: Option<u64>,
}

impl Default for AdversaryParams {
    fn default() -> Self {
        Self {
            restarts: 8,
            seed: 0,
            max_updates: None,
        }
    }
}

impl AdversaryParams {
    /// The defaults above.
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::AdversaryParams::new().check()?.restarts(), 8);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of runs of [`Strategy::Random`], each with a seed derived from [`AdversaryParams::seed`].
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::AdversaryParams::new().restarts(0).check()?.restarts(), 0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    #[must_use]
    pub fn restarts(mut self, restarts: usize) -> Self {
        self.restarts = restarts;
        self
    }

    /// The master seed of the random restarts.
    ///
    /// ```
    /// let p = novikoff::bounds::AdversaryParams::new().seed(5);
    /// # let _ = p;
    /// ```
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The update cap of each adversarial run (`None`: the default above).
    ///
    /// ```
    /// let p = novikoff::bounds::AdversaryParams::new().max_updates(Some(100));
    /// assert!(p.check().is_ok());
    /// ```
    #[must_use]
    pub fn max_updates(mut self, cap: Option<u64>) -> Self {
        self.max_updates = cap;
        self
    }

    /// Validate, once, before any run.
    ///
    /// ```
    /// assert!(novikoff::bounds::AdversaryParams::new().check().is_ok());
    /// ```
    pub fn check(self) -> Result<Adversary> {
        if self.max_updates == Some(0) {
            return Err(Error::parameter("max_updates", "must be at least 1"));
        }
        Ok(Adversary { params: self })
    }
}

/// Validated settings of [`search`], made by [`AdversaryParams::check`] (the linfa `ParamGuard` idea,
/// as [`Perceptron`] is for [`PerceptronParams`](crate::perceptron::PerceptronParams)).
///
/// ```
/// let adversary = novikoff::bounds::AdversaryParams::new().max_updates(Some(50)).check()?;
/// assert_eq!(adversary.max_updates(), Some(50));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adversary {
    params: AdversaryParams,
}

impl Adversary {
    /// The number of random restarts.
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::AdversaryParams::new().restarts(3).check()?.restarts(), 3);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn restarts(&self) -> usize {
        self.params.restarts
    }

    /// The master seed of the random restarts.
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::AdversaryParams::new().seed(4).check()?.seed(), 4);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn seed(&self) -> u64 {
        self.params.seed
    }

    /// The update cap of each run, if one was set.
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::AdversaryParams::new().check()?.max_updates(), None);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn max_updates(&self) -> Option<u64> {
        self.params.max_updates
    }
}

/// One run of the search.
///
/// ```
/// # use ndarray::array;
/// # use novikoff::{bounds::{search, AdversaryParams, Geometry}, perceptron::PerceptronParams, Dataset};
/// # let data = Dataset::new(array![[1.0, 0.2], [-1.0, 0.3]], array![1.0, -1.0])?;
/// # let report = search(&Geometry::compute(&data)?, &PerceptronParams::new().check()?, &AdversaryParams::new().check()?)?;
/// let run = &report.runs[0];
/// assert_eq!(run.strategy.name(), "cyclic");
/// assert!(run.converged);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AdversaryRun {
    /// How the examples were chosen.
    pub strategy: Strategy,
    /// The number of updates.
    pub mistakes: u64,
    /// True when no example was left misclassified.
    pub converged: bool,
    /// `mistakes / bound` for the tightest applicable bound.
    pub ratio: Option<f64>,
    /// The proof's inequalities on this run.
    pub invariants: InvariantReport,
}

/// The outcome of [`search`].
///
/// ```
/// # use ndarray::array;
/// # use novikoff::{bounds::{search, AdversaryParams, Geometry}, perceptron::PerceptronParams, Dataset};
/// # let data = Dataset::new(array![[1.0, 0.2], [-1.0, 0.3]], array![1.0, -1.0])?;
/// let report = search(&Geometry::compute(&data)?, &PerceptronParams::new().check()?, &AdversaryParams::new().check()?)?;
/// let best = &report.runs[report.best];
/// assert!(report.runs.iter().all(|r| r.mistakes <= best.mistakes));
/// assert!(report.best_ratio.unwrap() <= 1.0);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AdversaryReport {
    /// The bias rule's name.
    pub rule: String,
    /// The tightest applicable form of the theorem.
    pub bound_kind: Option<BoundKind>,
    /// Its value.
    pub bound: Option<f64>,
    /// The cyclic baseline first, then every adversarial run.
    pub runs: Vec<AdversaryRun>,
    /// The index in `runs` of the run with the most mistakes (the first of them).
    pub best: usize,
    /// Its `mistakes / bound`: the highest ratio reached.
    pub best_ratio: Option<f64>,
}

/// Run the cyclic pass and every adversary ([`Strategy::MostViolated`], [`Strategy::LeastViolated`],
/// [`Strategy::LeastProgress`] and `restarts` × [`Strategy::Random`]) with the rule, η and summation of
/// `perceptron`, and report the highest mistakes/bound ratio. Each adversarial step costs O(n·d) to find
/// the misclassified examples.
///
/// ```
/// use novikoff::bounds::{search, tight_basis, AdversaryParams, Geometry};
/// use novikoff::perceptron::PerceptronParams;
/// // On the basis eᵢ every order makes exactly m = (R/γ)² mistakes.
/// let data = tight_basis(5)?;
/// let report = search(&Geometry::compute(&data)?, &PerceptronParams::new().check()?,
///                     &AdversaryParams::new().restarts(2).check()?)?;
/// assert!(report.runs.iter().all(|r| r.mistakes == 5));
/// assert!((report.best_ratio.unwrap() - 1.0).abs() < 1e-6);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn search(
    geometry: &Geometry<'_>,
    perceptron: &Perceptron,
    adversary: &Adversary,
) -> Result<AdversaryReport> {
    let data = geometry.data();
    let setup = RunSetup::of(perceptron.params(), geometry.radius);
    let facts = Facts::optimal(geometry, setup.c)?;
    let bounds = evaluate_all(&facts, &setup);
    let tightest = bounds
        .iter()
        .filter(|b| b.value.is_some())
        .min_by(|a, b| a.value.partial_cmp(&b.value).expect("finite values"));
    let bound = tightest.and_then(|b| b.value);
    let cap = adversary.max_updates().unwrap_or_else(|| match bound {
        Some(value) => (value.min(DEFAULT_CAP as f64).ceil() as u64 + 1).min(DEFAULT_CAP),
        None => 10_000,
    });
    let run_vectors = run_separation(geometry, &facts, setup.c)?;
    // The baseline under the same update cap; every epoch but the last makes an update, so the epoch cap
    // never binds first.
    let cyclic_params = perceptron
        .params()
        .clone()
        .order(Order::Cyclic)
        .max_updates(Some(cap))
        .max_epochs(usize::try_from(cap).unwrap_or(usize::MAX).saturating_add(1));
    let cyclic = verify_with(geometry, &cyclic_params)?;

    let mut runs = vec![AdversaryRun {
        strategy: Strategy::Cyclic,
        mistakes: cyclic.fit.mistakes,
        converged: cyclic.fit.converged,
        ratio: bound.map(|b| cyclic.fit.mistakes as f64 / b),
        invariants: cyclic.invariants,
    }];
    let mut strategies = vec![Strategy::MostViolated, Strategy::LeastViolated];
    if matches!(run_vectors, Separation::Found(_)) {
        strategies.push(Strategy::LeastProgress);
    }
    strategies.extend((0..adversary.restarts()).map(|r| Strategy::Random {
        seed: rng::derive_seed(adversary.seed(), &format!("adversary-random-{r}")),
    }));
    for strategy in strategies {
        let mut check = invariant_check(geometry, &setup, &run_vectors);
        let (mistakes, converged) = adversarial_run(
            data,
            perceptron,
            strategy,
            &run_vectors,
            setup.c,
            cap,
            &mut check,
        )?;
        runs.push(AdversaryRun {
            strategy,
            mistakes,
            converged,
            ratio: bound.map(|b| mistakes as f64 / b),
            invariants: check.report(),
        });
    }
    let best = runs.iter().enumerate().fold(0, |best, (i, r)| {
        if r.mistakes > runs[best].mistakes {
            i
        } else {
            best
        }
    });
    Ok(AdversaryReport {
        rule: setup.rule,
        bound_kind: tightest.map(|b| b.kind),
        bound,
        best_ratio: runs[best].ratio,
        best,
        runs,
    })
}

/// One adversarial run: `(mistakes, converged)`.
fn adversarial_run(
    data: &Dataset,
    perceptron: &Perceptron,
    strategy: Strategy,
    run_vectors: &Separation,
    c: f64,
    cap: u64,
    sink: &mut super::InvariantCheck,
) -> Result<(u64, bool)> {
    let (n, d) = (data.n_samples(), data.n_features());
    // Sparse rows have one order, the sequential one, and the online learner's dense sequential sum of a
    // spread-out sparse row has its bits, so on sparse data the learner runs in that order.
    let sequential;
    let perceptron = if data.is_sparse() && perceptron.summation() != Summation::Sequential {
        sequential = perceptron
            .params()
            .clone()
            .summation(Summation::Sequential)
            .check()?;
        &sequential
    } else {
        perceptron
    };
    let summation = perceptron.summation();
    let labels = data.labels();
    let mut learner = perceptron.online(d, Some(data.radius()))?;
    let mut dense_row = DenseRow::default();
    let progress: Vec<f64> = match (strategy, run_vectors) {
        (Strategy::LeastProgress, Separation::Found(s)) => progress_of(data, s, c, summation),
        _ => Vec::new(),
    };
    let mut stream = match strategy {
        Strategy::Random { seed } => Some(rng::from_seed(seed)),
        _ => None,
    };
    let mut candidates: Vec<(f64, usize)> = Vec::with_capacity(n);
    while learner.mistakes() < cap {
        let w = learner.w();
        let w = w.as_slice().expect("weights are contiguous");
        let b = learner.b();
        // The activation exactly as the learner computes it, so that the pick is a mistake there too.
        candidates.clear();
        candidates.extend((0..n).filter_map(|i| {
            let margin = labels[i] * (data.row_view(i).dot(w, summation) + b);
            (margin <= 0.0).then_some((margin, i))
        }));
        if candidates.is_empty() {
            return Ok((learner.mistakes(), true));
        }
        match strategy {
            Strategy::MostViolated => {
                candidates.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            }
            Strategy::LeastViolated => {
                candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)))
            }
            Strategy::LeastProgress => candidates
                .sort_by(|a, b| progress[a.1].total_cmp(&progress[b.1]).then(a.1.cmp(&b.1))),
            Strategy::Random { .. } => {
                rng::shuffle(stream.as_mut().expect("seeded stream"), &mut candidates)
            }
            Strategy::Cyclic => {}
        }
        let mut updated = false;
        for &(_, i) in &candidates {
            if learner
                .observe_with_trace(dense_row.of(data.row_view(i), d), labels[i], sink)?
                .mistake
            {
                updated = true;
                break;
            }
        }
        if !updated {
            // Every candidate turned out correct for the learner itself: nothing is misclassified.
            return Ok((learner.mistakes(), true));
        }
    }
    Ok((learner.mistakes(), false))
}

/// `y·u·x̂` for every example: how far an update on it advances `u·ŵ`.
///
/// The support rows' values are all `γ*` in exact arithmetic, and computed they differ in their last bits,
/// which any change of the solver's path can reorder. They all take the smallest of them, so that their
/// ties go to the lowest row index, as exact ties do: the order then depends on which rows are on the
/// margin, which the solver certifies, and not on the rounding of `u`.
fn progress_of(data: &Dataset, separator: &Separator, c: f64, summation: Summation) -> Vec<f64> {
    let d = data.n_features();
    let labels = data.labels();
    let u = separator.u.as_slice().expect("u is contiguous");
    let mut progress: Vec<f64> = (0..data.n_samples())
        .map(|i| {
            let mut p = data.row_view(i).dot(&u[..d], summation);
            if c != 0.0 {
                p += u[d] * c;
            }
            labels[i] * p
        })
        .collect();
    let level = separator
        .support
        .iter()
        .map(|&i| progress[i])
        .min_by(f64::total_cmp);
    if let Some(level) = level {
        for &i in &separator.support {
            progress[i] = level;
        }
    }
    progress
}

/// The tight case of the theorem: `xᵢ = eᵢ` in ℝ^m with every `yᵢ = +1`. Here `R = 1`, the optimal unit
/// separator is `(1, …, 1)/√m` with `γ = 1/√m`, and the perceptron without bias makes exactly
/// `m = (R/γ)²` mistakes in every order: each `eᵢ` is misclassified once (its activation is 0 until it is
/// added) and never again.
///
/// ```
/// use novikoff::{bounds::tight_basis, perceptron::PerceptronParams};
/// let data = tight_basis(4)?;
/// assert_eq!(PerceptronParams::new().fit(&data)?.mistakes, 4);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn tight_basis(m: usize) -> Result<Dataset> {
    if m == 0 {
        return Err(Error::parameter("m", "the basis needs at least one vector"));
    }
    Dataset::new(ndarray::Array2::eye(m), ndarray::Array1::ones(m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::margin::{Bias, MarginResult, max_margin};
    use ndarray::array;

    /// The rows in the least-progress adversary's order of preference.
    fn preference(progress: &[f64]) -> Vec<usize> {
        let mut rows: Vec<usize> = (0..progress.len()).collect();
        rows.sort_by(|&a, &b| progress[a].total_cmp(&progress[b]).then(a.cmp(&b)));
        rows
    }

    #[test]
    fn support_rows_keep_their_order_when_u_moves_in_its_last_bits() {
        // Six rows on the line x₀ = 1 are the support of u = (1, 0) through the origin; (3, 0) is not.
        let data = Dataset::new(
            array![
                [1.0, 3.0],
                [1.0, -1.0],
                [1.0, 2.0],
                [3.0, 0.0],
                [1.0, -2.0],
                [1.0, 1.0],
                [1.0, -3.0]
            ],
            array![1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        )
        .unwrap();
        let MarginResult::Separable {
            w,
            bracket,
            support,
            ..
        } = max_margin(&data, Bias::ThroughOrigin).unwrap()
        else {
            panic!("the rows are separable through the origin");
        };
        assert_eq!(support, vec![0, 1, 2, 4, 5, 6]);
        // Two separators a few units in the last place of u on either side of the solver's.
        let tilted = |delta: f64| {
            let mut u = w.clone();
            u[1] += delta;
            Separation::from_separator(&u, 0.0, bracket, &support, None, "")
        };
        let (up, down) = (tilted(4e-16), tilted(-4e-16));
        let (Separation::Found(up), Separation::Found(down)) = (&up, &down) else {
            panic!("both tilted separators separate");
        };
        let orders = |support: &[usize]| {
            let order = |s: &Separator| {
                let s = Separator {
                    support: support.to_vec(),
                    ..s.clone()
                };
                preference(&progress_of(&data, &s, 0.0, Summation::Sequential))
            };
            (order(up), order(down))
        };
        // The premise: without the support, the tilts alone reorder the rows on the margin.
        let (unsnapped_up, unsnapped_down) = orders(&[]);
        assert_ne!(unsnapped_up, unsnapped_down);
        let (snapped_up, snapped_down) = orders(&support);
        assert_eq!(snapped_up, snapped_down);
        assert_eq!(snapped_up, vec![0, 1, 2, 4, 5, 6, 3]);
    }
}
