//! The maximum margin `γ*`: the public entry points, around the rounds of [`super::rounds`], the exact
//! scaling into range and the final check of every answer.

use super::Bias;
use super::certify::{checked, scale_back};
use super::params::{MaxMargin, MaxMarginParams};
use super::points::Points;
use super::result::MarginResult;
use super::scale::Scaled;
use super::store::Representation;
use crate::dataset::Dataset;
use crate::error::Result;
use std::time::Instant;

/// The maximum margin `γ*` of the data with the default settings; see [`MaxMarginParams`] for the
/// tolerances and the [module documentation](super) for what the result guarantees.
///
/// ```
/// use ndarray::array;
/// use novikoff::margin::{max_margin, Bias};
/// // Two points: γ* is half their distance.
/// let data = novikoff::Dataset::new(array![[0.0, 0.0], [3.0, 4.0]], array![-1.0, 1.0])?;
/// let (lower, upper) = max_margin(&data, Bias::Free)?.bracket().unwrap();
/// assert!(lower <= 2.5 && 2.5 <= upper && upper - lower <= 1e-9 * upper);
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// [`Error::SingleClass`](crate::Error::SingleClass) with [`Bias::Free`] when only one class is present (through the origin a single
/// class is fine).
pub fn max_margin(data: &Dataset, bias: Bias) -> Result<MarginResult> {
    MaxMarginParams::new(bias).check()?.solve(data)
}

impl MaxMargin {
    /// The solver with `spent` seconds taken off its time limit; `None` once none is left.
    fn with_time_spent(&self, spent: f64) -> Option<MaxMargin> {
        let mut params = self.params.clone();
        if let Some(limit) = params.time_limit {
            if spent >= limit {
                return None;
            }
            params.time_limit = Some(limit - spent);
        }
        Some(MaxMargin { params })
    }

    /// The relative bracket tolerance.
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// assert_eq!(MaxMarginParams::new(Bias::Free).check()?.tolerance(), 1e-6);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn tolerance(&self) -> f64 {
        self.params.tolerance
    }

    /// The validated parameters.
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// let solver = MaxMarginParams::new(Bias::Free).check()?;
    /// assert_eq!(solver.params().bias(), Bias::Free);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn params(&self) -> &MaxMarginParams {
        &self.params
    }

    /// Solve for the maximum margin of `data`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// let data = novikoff::Dataset::new(array![[1.0], [2.0]], array![1.0, 1.0])?;
    /// let err = MaxMarginParams::new(Bias::Free).check()?.solve(&data).unwrap_err();
    /// assert!(matches!(err, novikoff::Error::SingleClass { .. }));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// Data whose values lie outside about `2^±300` are solved exactly scaled by a power of two, and the
    /// answer is scaled back (the bracket's ends rounded outwards), so values of 10²⁰⁰ or 10⁻²⁰⁰ get the
    /// same answer as values of 1, times the scale. Before it is returned, every answer is checked
    /// against its own preconditions: a bracket must have `lower ≤ upper` (and finite ends for
    /// [`MarginResult::Separable`]), and a certificate must pass [`Certificate::verify`](super::Certificate::verify) on `data`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// let solver = MaxMarginParams::new(Bias::Free).check()?;
    /// let (lower, upper) = solver.solve(&novikoff::Dataset::new(array![[1.0], [-3.0]], array![1.0, -1.0])?)?
    ///     .bracket().unwrap();
    /// let huge = novikoff::Dataset::new(array![[1e300], [-3e300]], array![1.0, -1.0])?;
    /// let (huge_lower, huge_upper) = solver.solve(&huge)?.bracket().unwrap();
    /// assert!(huge_lower <= 2e300 && 2e300 <= huge_upper);
    /// assert!((huge_lower / lower - 1e300).abs() < 1e288 && (huge_upper / upper - 1e300).abs() < 1e288);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::SingleClass`](crate::Error::SingleClass) with a free bias and one class; [`Error::Range`](crate::Error::Range) for values no power-of-two
    /// scaling brings into range (10³⁰⁰ and 10⁻³⁰⁰ in one matrix); [`Error::Solver`](crate::Error::Solver) if an answer fails
    /// its own check (a bug, reported rather than returned).
    ///
    /// The data are never copied whole, and a sparse dataset is never made dense: the solver works on a
    /// working set of rows (in the columns they use) and reads the data in full passes, one per round
    /// (the `rounds` module; the bracket is rigorous for the whole dataset at every round).
    ///
    /// The passes, the pricing and the largest projections run on rayon's threads. Called from outside
    /// rayon's pools, the solve moves onto a thread of the global pool and the caller waits for it; from
    /// inside a pool ([`rayon::ThreadPool::install`]) it runs where it is called, on that pool. The answer
    /// has the same bits on any number of threads.
    pub fn solve(&self, data: &Dataset) -> Result<MarginResult> {
        self.solve_near(data, &[])
    }

    /// [`MaxMargin::solve`], with rows expected near the support (a related problem's support, as for
    /// the augmented problems of [`Geometry`](crate::bounds::Geometry)): on sparse data they are the
    /// first working set instead of the rows that coordinate descent would choose. The answer is
    /// certified the same way whatever the hint holds.
    pub(crate) fn solve_near(&self, data: &Dataset, hint: &[usize]) -> Result<MarginResult> {
        self.solve_points(Points::from(data), hint)
    }

    /// The maximum margin of the augmented points `(xᵢ, c)`, the problem behind the bounds of a bias
    /// rule with augmentation constant `c` ([`Geometry`](crate::bounds::Geometry)): the answer of
    /// [`MaxMargin::solve`] on [`Dataset::augment`]`(c)`, its `w` of length `d + 1` and its certificate
    /// about the augmented rows, but without the augmented copy of the matrix: the solver reads `c` as a
    /// virtual last entry of each row, so the memory stays that of the dataset.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// let data = novikoff::Dataset::new(array![[3.0], [1.0]], array![1.0, -1.0])?;
    /// let solver = MaxMarginParams::new(Bias::ThroughOrigin).check()?;
    /// let virtual_column = solver.solve_augmented(&data, 1.0)?;
    /// let copied = solver.solve(&data.augment(1.0))?;
    /// let ((lower, upper), (copy_lower, copy_upper)) =
    ///     (virtual_column.bracket().unwrap(), copied.bracket().unwrap());
    /// assert!(lower <= copy_upper && copy_lower <= upper);
    /// assert_eq!(virtual_column.separator().unwrap().0.len(), 2);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`MaxMargin::solve`]; [`Error::Parameter`](crate::Error::Parameter) for a `c` that is not
    /// finite.
    pub fn solve_augmented(&self, data: &Dataset, c: f64) -> Result<MarginResult> {
        self.solve_augmented_near(data, c, &[])
    }

    /// [`MaxMargin::solve_augmented`] with rows expected near the support, as [`MaxMargin::solve_near`].
    pub(crate) fn solve_augmented_near(
        &self,
        data: &Dataset,
        c: f64,
        hint: &[usize],
    ) -> Result<MarginResult> {
        if !c.is_finite() {
            return Err(crate::Error::parameter("c", format!("{c} is not finite")));
        }
        self.solve_points(Points::augmented(data, c), hint)
    }

    fn solve_points(&self, points: Points<'_>, hint: &[usize]) -> Result<MarginResult> {
        if rayon::current_thread_index().is_none() {
            // On a thread of rayon's pool, the solve's parallel steps (the scans, the pricing, the
            // projections) start at once: from outside it each one waits for a sleeping thread to
            // wake, and the caller for it (about 0.2 ms a step on the 2-core virtual machine of
            // session 34, against steps of about a millisecond on 10⁴–10⁵ rows).
            return rayon::scope(|_| self.solve_points(points, hint));
        }
        let bias = self.params.bias;
        if bias == Bias::Free {
            points.data().require_both_classes()?;
        }
        // The pass that measures the rows also finds the largest value, which the scaling needs.
        points.radius();
        let scaled = Scaled::points(points)?;
        let working = scaled.working_points();
        let started = Instant::now();
        let representation = Representation::first_choice(working);
        let mut result = self.solve_in_rounds(working, hint, representation);
        if let MarginResult::Inaccurate { .. } = result
            && let Some(again) = representation.retry(working)
            && let Some(solver) = self.with_time_spent(started.elapsed().as_secs_f64())
        {
            let retried = solver.solve_in_rounds(working, hint, again);
            result = narrower(result, retried);
        }
        let tolerance = self.params.certificate_tolerance * working.radius();
        checked(
            points,
            scale_back(&scaled, result),
            scaled.back_upper(tolerance),
        )
    }
}

/// Of a first attempt that ended `Inaccurate` and the attempt that followed it, the second unless the
/// first has the narrower bracket (both are rigorous), with the passes and rounds of both: every pass
/// was read, and `stats` says where the time went.
fn narrower(first: MarginResult, second: MarginResult) -> MarginResult {
    let relative_width = |result: &MarginResult| {
        result
            .bracket()
            .map_or(0.0, |(lower, upper)| (upper - lower) / upper.abs())
    };
    let (spent, mut kept) = match second {
        MarginResult::Inaccurate { .. } if relative_width(&first) < relative_width(&second) => {
            (second.stats(), first)
        }
        _ => (first.stats(), second),
    };
    let stats = kept.stats_mut();
    stats.passes += spent.passes;
    stats.rounds += spent.rounds;
    kept
}
