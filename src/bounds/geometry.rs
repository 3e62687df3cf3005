//! The geometry every bound needs, computed once per dataset and shared by every rule and run.

use std::sync::OnceLock;

use super::comparator::{Candidates, ComparatorCache};
use super::margin_solve::MarginSolve;
pub(crate) use super::separation::{Separation, Separator};
pub use super::summary::{CertificateSummary, GeometrySummary, MarginSummary, MarginsSummary};
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::margin::{Bias, MarginResult, MaxMarginParams, SolveStats};

/// Relative tolerance of the unit-norm hypothesis: every `|‖xᵢ‖ − 1| ≤ 1e-9`. Values computed under it are
/// inflated by the measured excess (`max(1, R²)` in place of 1), so that they stay rigorous.
///
/// ```
/// assert_eq!(novikoff::bounds::UNIT_NORM_TOL, 1e-9);
/// ```
pub const UNIT_NORM_TOL: f64 = 1e-9;

/// The geometry of a dataset that the forms of the theorem need: the radius, the norms, and four maximum
/// margins (of `x` through the origin and with free bias, of `(x, 1)` and of `(x, R)` through the origin).
///
/// Compute it once per dataset and pass it to [`verify_with`](super::verify_with) for every rule and run,
/// so that an experiment solves the four margin problems once, not once per run. The augmented problems
/// read the constant as a virtual last entry of each row
/// ([`MaxMargin::solve_augmented`](crate::margin::MaxMargin::solve_augmented)), so the geometry never
/// holds a second copy of the data.
///
/// ```
/// use ndarray::array;
/// use novikoff::{bounds::Geometry, Dataset};
/// let x = array![[-1.0, 2.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [-1.0, -2.0], [1.0, -1.0]];
/// let data = Dataset::new(x, array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0])?;
/// let geometry = Geometry::compute(&data)?;
/// assert_eq!(geometry.radius.powi(2).round(), 5.0);
/// let gamma = geometry.through_origin.result().and_then(|r| r.gamma_lower()).unwrap();
/// assert!((gamma - 1.0).abs() < 1e-6);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct Geometry<'a> {
    /// The dataset measured: a geometry cannot be used with another one.
    data: &'a Dataset,
    /// Number of examples.
    pub n: usize,
    /// Number of features.
    pub d: usize,
    /// `R = max ‖xᵢ‖` about the origin, exactly as [`Dataset::radius`] computes it (the constant of the
    /// `b += η·y·R²` rule).
    pub radius: f64,
    /// `max ‖xᵢ‖²`, accumulated left to right.
    pub max_sq_norm: f64,
    /// `min ‖xᵢ‖`.
    pub min_norm: f64,
    /// Every `‖xᵢ‖` is 1 to within [`UNIT_NORM_TOL`].
    pub unit_norm: bool,
    /// Both labels occur.
    pub both_classes: bool,
    /// The maximum margin of `x` through the origin.
    pub through_origin: MarginSolve,
    /// The maximum margin of `x` with a free bias (not defined for a single class).
    pub free_bias: MarginSolve,
    /// The maximum margin of `(x, 1)` through the origin.
    pub augmented_one: MarginSolve,
    /// The maximum margin of `(x, R)` through the origin.
    pub augmented_radius: MarginSolve,
    /// The comparator candidates of the bounds that hold for any `u`, per bias constant, computed on
    /// first use.
    comparators: ComparatorCache,
    /// The summary, made on first use: every verdict and report carries it, and its separators have d
    /// entries each, so the copies share one.
    summary: OnceLock<GeometrySummary>,
    /// The solver's limits, for the problems solved on demand ([`Geometry::augmented`]).
    solver: MaxMarginParams,
}

/// Every measured quantity; the dataset is left out (its own `Debug` would print every value).
impl std::fmt::Debug for Geometry<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Geometry")
            .field("n", &self.n)
            .field("d", &self.d)
            .field("radius", &self.radius)
            .field("max_sq_norm", &self.max_sq_norm)
            .field("min_norm", &self.min_norm)
            .field("unit_norm", &self.unit_norm)
            .field("both_classes", &self.both_classes)
            .field("through_origin", &self.through_origin)
            .field("free_bias", &self.free_bias)
            .field("augmented_one", &self.augmented_one)
            .field("augmented_radius", &self.augmented_radius)
            .finish_non_exhaustive()
    }
}

impl<'a> Geometry<'a> {
    /// Measure `data`: O(n·d) for the norms and four maximum-margin problems.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{bounds::Geometry, Dataset};
    /// let xor = Dataset::new(array![[0., 0.], [0., 1.], [1., 0.], [1., 1.]], array![1., -1., -1., 1.])?;
    /// let geometry = Geometry::compute(&xor)?;
    /// assert!(geometry.free_bias.certificate().is_some());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn compute(data: &'a Dataset) -> Result<Geometry<'a>> {
        Self::compute_with(data, &MaxMarginParams::new(Bias::Free))
    }

    /// [`Geometry::compute`] with the maximum-margin solver's limits taken from `solver` (its
    /// tolerance, rounds, time limit and working-set memory; each problem keeps its own bias, so the
    /// bias of `solver` is not used): what `verify --working-set-mb` and an experiment's
    /// `[measure] working_set_mb` set.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{bounds::Geometry, margin::{Bias, MaxMarginParams}, Dataset};
    /// let data = Dataset::new(array![[2.0, 0.0], [-1.0, 1.0]], array![1.0, -1.0])?;
    /// let limits = MaxMarginParams::new(Bias::Free).working_set_memory(1 << 30);
    /// let geometry = Geometry::compute_with(&data, &limits)?;
    /// assert!(geometry.free_bias.result().is_some_and(|r| r.is_separable()));
    /// assert!(Geometry::compute_with(&data, &limits.clone().working_set_memory(0)).is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// The errors of [`MaxMarginParams::check`] for limits that are not valid.
    pub fn compute_with(data: &'a Dataset, solver: &MaxMarginParams) -> Result<Geometry<'a>> {
        solver.clone().check()?;
        let problem = |bias: Bias| solver.clone().with_bias(bias);
        let Norms {
            radius,
            max_sq_norm,
            min_norm,
            unit_norm,
            both_classes,
        } = Norms::of(data);
        let free_bias = if both_classes {
            MarginSolve::compute_near(data, &problem(Bias::Free), &[])
        } else {
            MarginSolve::Failed {
                reason: "only one class is present, so the margin with a free bias is unbounded"
                    .into(),
            }
        };
        // The augmented problems' supports are close to the free bias's: their first working set.
        let hint: Vec<usize> = match free_bias.result() {
            Some(MarginResult::Separable { support, .. }) => support.clone(),
            _ => Vec::new(),
        };
        let through = problem(Bias::ThroughOrigin);
        let augmented_radius = if radius > 0.0 {
            MarginSolve::compute_augmented_near(data, radius, &through, &hint)
        } else {
            MarginSolve::Failed {
                reason: "R = 0: every example is the zero vector".into(),
            }
        };
        Ok(Geometry {
            data,
            n: data.n_samples(),
            d: data.n_features(),
            radius,
            max_sq_norm,
            min_norm,
            unit_norm,
            both_classes,
            through_origin: MarginSolve::compute_near(data, &through, &[]),
            free_bias,
            augmented_one: MarginSolve::compute_augmented_near(data, 1.0, &through, &hint),
            augmented_radius,
            comparators: ComparatorCache::default(),
            summary: OnceLock::new(),
            solver: through,
        })
    }

    /// The norms part of the geometry.
    pub(crate) fn norms(&self) -> Norms {
        Norms {
            radius: self.radius,
            max_sq_norm: self.max_sq_norm,
            min_norm: self.min_norm,
            unit_norm: self.unit_norm,
            both_classes: self.both_classes,
        }
    }

    /// The dataset this geometry measures.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{bounds::Geometry, Dataset};
    /// let data = Dataset::new(array![[2.0], [1.0]], array![1.0, -1.0])?;
    /// assert_eq!(Geometry::compute(&data)?.data().n_samples(), 2);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn data(&self) -> &'a Dataset {
        self.data
    }

    /// The effort of the four maximum-margin solves together: their passes over the data and rounds
    /// summed, and the largest working set.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{bounds::Geometry, Dataset};
    /// let data = Dataset::new(array![[2.0], [1.0]], array![1.0, -1.0])?;
    /// let stats = Geometry::compute(&data)?.solve_stats();
    /// // Two passes choose each problem's first working set; each round adds one.
    /// assert!(stats.passes >= 4 * 2 && stats.working_set == 2);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn solve_stats(&self) -> SolveStats {
        let mut total = SolveStats::default();
        for solve in [
            &self.through_origin,
            &self.free_bias,
            &self.augmented_one,
            &self.augmented_radius,
        ] {
            if let Some(stats) = solve.result().map(MarginResult::stats) {
                total.passes += stats.passes;
                total.rounds += stats.rounds;
                total.working_set = total.working_set.max(stats.working_set);
            }
        }
        total
    }

    /// The maximum margin of `(x, c)` through the origin (`c = 0` means `x` itself): from the geometry for
    /// c ∈ {0, 1, R}, solved now for any other c.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{bounds::Geometry, Dataset};
    /// let data = Dataset::new(array![[2.0], [1.0]], array![1.0, -1.0])?;
    /// let geometry = Geometry::compute(&data)?;
    /// let solve = geometry.augmented(0.5)?;
    /// assert!(solve.result().is_some_and(|r| r.is_separable()));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn augmented(&self, c: f64) -> Result<std::borrow::Cow<'_, MarginSolve>> {
        use std::borrow::Cow;
        if !c.is_finite() {
            return Err(Error::parameter("c", format!("{c} is not finite")));
        }
        Ok(if c == 0.0 {
            Cow::Borrowed(&self.through_origin)
        } else if c == 1.0 {
            Cow::Borrowed(&self.augmented_one)
        } else if c == self.radius {
            Cow::Borrowed(&self.augmented_radius)
        } else {
            Cow::Owned(MarginSolve::compute_augmented_near(
                self.data,
                c,
                &self.solver,
                &[],
            ))
        })
    }

    /// The comparator candidates for the vectors `(x, c)`, computed on first use and shared by every
    /// run on this dataset.
    pub(crate) fn comparators(
        &self,
        c: f64,
        separator: Option<&Separator>,
    ) -> std::sync::Arc<std::sync::OnceLock<Candidates>> {
        self.comparators.get(self.data, c, separator)
    }

    /// The separator of the free-bias problem, or why there is none.
    pub(crate) fn free_separation(&self) -> Separation {
        self.free_bias.separation("with a free bias")
    }

    /// A serialisable summary.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{bounds::Geometry, Dataset};
    /// let data = Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let summary = Geometry::compute(&data)?.summary();
    /// assert_eq!(summary.margins.through_origin.status, "separable");
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn summary(&self) -> GeometrySummary {
        self.summary.get_or_init(|| self.summarise()).clone()
    }

    fn summarise(&self) -> GeometrySummary {
        GeometrySummary {
            n: self.n,
            d: self.d,
            radius: self.radius,
            min_norm: self.min_norm,
            unit_norm: self.unit_norm,
            both_classes: self.both_classes,
            separable_through_origin: self.through_origin.separable(),
            // (x, 1) is separable through the origin exactly when x is separable with a bias, also when
            // a single class makes the free-bias margin unbounded. Either solve's separator proves it,
            // so one that ended inaccurate without a separator does not hide the other's; likewise
            // either's verified certificate proves the opposite.
            separable: match (self.augmented_one.separable(), self.free_bias.separable()) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), _) | (_, Some(false)) => Some(false),
                (None, None) => None,
            },
            margins: MarginsSummary {
                through_origin: self.through_origin.summary(),
                free_bias: self.free_bias.summary(),
                augmented_one: self.augmented_one.summary(),
                augmented_radius: self.augmented_radius.summary(),
            },
        }
    }
}

/// The O(n·d) part of the geometry: norms and classes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Norms {
    pub(crate) radius: f64,
    pub(crate) max_sq_norm: f64,
    pub(crate) min_norm: f64,
    pub(crate) unit_norm: bool,
    pub(crate) both_classes: bool,
}

impl Norms {
    /// The dataset's own row lengths (computed once, by the dataset) and its classes.
    pub(crate) fn of(data: &Dataset) -> Norms {
        let lengths = data.row_norms();
        let (positives, negatives) = data.class_counts();
        Norms {
            radius: lengths.radius,
            max_sq_norm: lengths.max_sq_norm,
            min_norm: lengths.min_norm,
            unit_norm: lengths.unit_length(UNIT_NORM_TOL),
            both_classes: positives > 0 && negatives > 0,
        }
    }
}

/// A name for the vectors `(x, c)` in messages.
pub(crate) fn vectors_name(c: f64) -> String {
    if c == 0.0 {
        "through the origin".into()
    } else {
        format!("of (x, {c}) through the origin")
    }
}
