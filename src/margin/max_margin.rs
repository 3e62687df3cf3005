//! The maximum margin `γ*`: an interior-point solve (clarabel) on a working set of rows, an exact polish,
//! and a rigorous bracket evaluated on the original data.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettings, DefaultSolver, IPSolver, SolverStatus, SupportedConeT};
use ndarray::{Array1, ArrayView1};

use super::Bias;
use super::accurate::{dot2, dot2_plus, norm_bounds, round_down};
use super::certificate::{Certificate, HullPoint, certificate_threshold};
use super::polish::{PolishSettings, PolishStatus, Polished, polish};
use super::problem::Problem;
use super::scale::Scaled;
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::simd::{Summation, dot};

/// The outcome of [`max_margin`], shaped like clarabel's solver status: a certified answer, a proof of
/// the opposite, or an honest "not accurate enough".
///
/// ```
/// use ndarray::array;
/// use novikoff::margin::{max_margin, Bias, MarginResult};
/// let data = novikoff::Dataset::new(array![[0.0, 0.0], [2.0, 0.0]], array![-1.0, 1.0])?;
/// match max_margin(&data, Bias::Free)? {
///     MarginResult::Separable { gamma, w, b, .. } => {
///         assert!((gamma - 1.0).abs() < 1e-12);
///         assert!((w[0] - 1.0).abs() < 1e-12 && (b + 1.0).abs() < 1e-12);
///     }
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum MarginResult {
    /// The data are separable, and `γ*` is known to the requested relative accuracy.
    Separable {
        /// The best estimate of `γ*`, inside `bracket`.
        gamma: f64,
        /// `(lower, upper)` with `lower ≤ γ* ≤ upper`. `lower` is the margin `(w, b)` achieves on the data;
        /// `upper` comes from a point of the convex hulls (the dual).
        bracket: (f64, f64),
        /// The separator's normal, of unit length.
        w: Array1<f64>,
        /// The separator's bias (0 through the origin).
        b: f64,
        /// The rows on the margin (within the tolerance) under `(w, b)`: the support vectors, ascending.
        support: Vec<usize>,
    },
    /// No separator exists, and the certificate proves it.
    NotSeparable {
        /// Weights on the rows whose hulls meet; see [`Certificate::verify`].
        certificate: Certificate,
    },
    /// The solver could not reach the requested accuracy. The bracket is still rigorous; `lower` may be
    /// negative when no separator was found and no certificate was tight enough.
    Inaccurate {
        /// The midpoint of the bracket.
        gamma: f64,
        /// `(lower, upper)` with `lower ≤ γ* ≤ upper` (`γ*` read as 0 for non-separable data).
        bracket: (f64, f64),
        /// The best unit normal found.
        w: Array1<f64>,
        /// Its bias.
        b: f64,
        /// Why the target was missed.
        reason: String,
    },
}

impl MarginResult {
    /// True for [`MarginResult::Separable`], and for an inaccurate result whose separator provably
    /// separates (`lower > 0`).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{max_margin, Bias};
    /// let xor = novikoff::Dataset::new(
    ///     array![[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]],
    ///     array![1.0, -1.0, -1.0, 1.0],
    /// )?;
    /// assert!(!max_margin(&xor, Bias::Free)?.is_separable());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn is_separable(&self) -> bool {
        match self {
            MarginResult::Separable { .. } => true,
            MarginResult::Inaccurate { bracket, .. } => bracket.0 > 0.0,
            MarginResult::NotSeparable { .. } => false,
        }
    }

    /// The margin the returned `(w, b)` achieves on the data (the bracket's lower end), if there is a
    /// separator.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{max_margin, Bias};
    /// let data = novikoff::Dataset::new(array![[1.0], [-3.0]], array![1.0, -1.0])?;
    /// let lower = max_margin(&data, Bias::ThroughOrigin)?.gamma_lower().unwrap();
    /// assert!(lower <= 1.0 && lower > 1.0 - 1e-12);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn gamma_lower(&self) -> Option<f64> {
        self.bracket().map(|(lower, _)| lower)
    }

    /// The bracket `(lower, upper)`, if the result has one.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{max_margin, Bias};
    /// let data = novikoff::Dataset::new(array![[1.0], [-3.0]], array![1.0, -1.0])?;
    /// let (lower, upper) = max_margin(&data, Bias::Free)?.bracket().unwrap();
    /// assert!(lower <= 2.0 && 2.0 <= upper);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn bracket(&self) -> Option<(f64, f64)> {
        match self {
            MarginResult::Separable { bracket, .. } | MarginResult::Inaccurate { bracket, .. } => {
                Some(*bracket)
            }
            MarginResult::NotSeparable { .. } => None,
        }
    }

    /// The best estimate of `γ*`, if the result has one.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{max_margin, Bias};
    /// let data = novikoff::Dataset::new(array![[1.0], [-3.0]], array![1.0, -1.0])?;
    /// assert!((max_margin(&data, Bias::Free)?.gamma().unwrap() - 2.0).abs() < 1e-12);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn gamma(&self) -> Option<f64> {
        match self {
            MarginResult::Separable { gamma, .. } | MarginResult::Inaccurate { gamma, .. } => {
                Some(*gamma)
            }
            MarginResult::NotSeparable { .. } => None,
        }
    }

    /// The separator `(w, b)` with unit `w`, when one was found that separates the data.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{max_margin, Bias};
    /// let data = novikoff::Dataset::new(array![[0.0, 3.0], [0.0, -1.0]], array![1.0, -1.0])?;
    /// let result = max_margin(&data, Bias::Free)?;
    /// let (w, b) = result.separator().unwrap();
    /// assert!((w[1] - 1.0).abs() < 1e-12 && (b + 1.0).abs() < 1e-12);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn separator(&self) -> Option<(ArrayView1<'_, f64>, f64)> {
        match self {
            MarginResult::Separable { w, b, .. } => Some((w.view(), *b)),
            MarginResult::Inaccurate { w, b, bracket, .. } if bracket.0 > 0.0 => {
                Some((w.view(), *b))
            }
            _ => None,
        }
    }

    /// The certificate of non-separability, if that is the result.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{max_margin, Bias};
    /// let data = novikoff::Dataset::new(array![[-1.0], [0.0], [1.0]], array![-1.0, 1.0, -1.0])?;
    /// let certificate = max_margin(&data, Bias::Free)?.certificate().cloned().unwrap();
    /// assert!(certificate.verify(&data, 1e-12));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn certificate(&self) -> Option<&Certificate> {
        match self {
            MarginResult::NotSeparable { certificate } => Some(certificate),
            _ => None,
        }
    }
}

/// Unvalidated parameters of [`max_margin`].
///
/// The solver always drives the bracket as tight as `f64` allows: on well-conditioned data the relative
/// width is typically 10⁻¹³ to 10⁻¹¹; on data whose margin is 10⁻⁸ of the radius, about 10⁻⁷. The
/// tolerance only decides whether the result is reported as [`MarginResult::Separable`] or as
/// [`MarginResult::Inaccurate`].
///
/// | parameter | default | meaning |
/// |---|---|---|
/// | `bias` | (required) | [`Bias::Free`] or [`Bias::ThroughOrigin`] |
/// | `tolerance` | `1e-6` | the largest relative bracket width `(upper − lower)/upper` reported as [`MarginResult::Separable`] |
/// | `certificate_tolerance` | `1e-9` | the largest accepted certificate residual, relative to `R` |
/// | `max_rounds` | `40` | working-set rounds before polishing on all rows |
/// | `max_polish_iterations` | `10 000` | active-set iterations of the exact polish |
///
/// ```
/// use ndarray::array;
/// use novikoff::margin::{Bias, MaxMarginParams};
/// let data = novikoff::Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
/// let solver = MaxMarginParams::new(Bias::Free).tolerance(1e-6).check()?;
/// assert!(solver.solve(&data)?.is_separable());
/// assert!(MaxMarginParams::new(Bias::Free).tolerance(0.0).check().is_err());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MaxMarginParams {
    bias: Bias,
    tolerance: f64,
    certificate_tolerance: f64,
    max_rounds: usize,
    max_polish_iterations: usize,
}

impl MaxMarginParams {
    /// Defaults for the given bias.
    ///
    /// ```
    /// let params = novikoff::margin::MaxMarginParams::new(novikoff::margin::Bias::Free);
    /// assert_eq!(params.tolerance_value(), 1e-6);
    /// ```
    pub fn new(bias: Bias) -> Self {
        Self {
            bias,
            tolerance: 1e-6,
            certificate_tolerance: 1e-9,
            max_rounds: 40,
            max_polish_iterations: 10_000,
        }
    }

    /// The largest accepted relative bracket width, in `(0, 1)`.
    ///
    /// ```
    /// let p = novikoff::margin::MaxMarginParams::new(novikoff::margin::Bias::Free).tolerance(1e-6);
    /// assert_eq!(p.tolerance_value(), 1e-6);
    /// ```
    #[must_use]
    pub fn tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// The largest accepted certificate residual relative to the radius, in `(0, 1)`.
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// assert!(MaxMarginParams::new(Bias::Free).certificate_tolerance(2.0).check().is_err());
    /// ```
    #[must_use]
    pub fn certificate_tolerance(mut self, tolerance: f64) -> Self {
        self.certificate_tolerance = tolerance;
        self
    }

    /// Working-set rounds (interior-point solves) before the polish runs on every row.
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// assert!(MaxMarginParams::new(Bias::Free).max_rounds(0).check().is_err());
    /// ```
    #[must_use]
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds;
        self
    }

    /// Iterations of the exact active-set polish.
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// assert!(MaxMarginParams::new(Bias::Free).max_polish_iterations(10).check().is_ok());
    /// ```
    #[must_use]
    pub fn max_polish_iterations(mut self, iterations: usize) -> Self {
        self.max_polish_iterations = iterations;
        self
    }

    /// The bias.
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// assert_eq!(MaxMarginParams::new(Bias::ThroughOrigin).bias(), Bias::ThroughOrigin);
    /// ```
    pub fn bias(&self) -> Bias {
        self.bias
    }

    /// The relative bracket tolerance.
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// assert_eq!(MaxMarginParams::new(Bias::Free).tolerance_value(), 1e-6);
    /// ```
    pub fn tolerance_value(&self) -> f64 {
        self.tolerance
    }

    /// Validate the parameters.
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// let err = MaxMarginParams::new(Bias::Free).tolerance(f64::NAN).check().unwrap_err();
    /// assert!(err.to_string().contains("tolerance"));
    /// ```
    ///
    /// # Errors
    /// [`Error::Parameter`] for a tolerance outside `(0, 1)` or a zero iteration limit.
    pub fn check(self) -> Result<MaxMargin> {
        let in_unit = |t: f64| t > 0.0 && t < 1.0;
        if !in_unit(self.tolerance) {
            return Err(Error::parameter(
                "tolerance",
                format!("{} is not in (0, 1)", self.tolerance),
            ));
        }
        if !in_unit(self.certificate_tolerance) {
            return Err(Error::parameter(
                "certificate_tolerance",
                format!("{} is not in (0, 1)", self.certificate_tolerance),
            ));
        }
        if self.max_rounds == 0 {
            return Err(Error::parameter("max_rounds", "must be at least 1"));
        }
        if self.max_polish_iterations == 0 {
            return Err(Error::parameter(
                "max_polish_iterations",
                "must be at least 1",
            ));
        }
        Ok(MaxMargin { params: self })
    }
}

/// A validated maximum-margin solver; see [`MaxMarginParams`].
///
/// ```
/// use ndarray::array;
/// use novikoff::margin::{Bias, MaxMarginParams};
/// let solver = MaxMarginParams::new(Bias::ThroughOrigin).check()?;
/// let data = novikoff::Dataset::new(array![[1.0, 1.0], [2.0, -1.0]], array![1.0, 1.0])?;
/// let result = solver.solve(&data)?;
/// assert!(result.is_separable());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MaxMargin {
    params: MaxMarginParams,
}

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
/// [`Error::SingleClass`] with [`Bias::Free`] when only one class is present (through the origin a single
/// class is fine).
pub fn max_margin(data: &Dataset, bias: Bias) -> Result<MarginResult> {
    MaxMarginParams::new(bias).check()?.solve(data)
}

impl MaxMargin {
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
    /// [`MarginResult::Separable`]), and a certificate must pass [`Certificate::verify`] on `data`.
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
    /// [`Error::SingleClass`] with a free bias and one class; [`Error::Range`] for values no power-of-two
    /// scaling brings into range (10³⁰⁰ and 10⁻³⁰⁰ in one matrix); [`Error::Solver`] if an answer fails
    /// its own check (a bug, reported rather than returned).
    pub fn solve(&self, data: &Dataset) -> Result<MarginResult> {
        let bias = self.params.bias;
        if bias == Bias::Free {
            data.require_both_classes()?;
        }
        let scaled = Scaled::new(data)?;
        let working = scaled.data();
        let problem = Problem::new(working, bias);
        let polished = self.solve_problem(&problem);
        let result = self.assemble(working, &problem, &polished);
        let tolerance = self.params.certificate_tolerance * working.radius();
        checked(
            data,
            scale_back(&scaled, result),
            scaled.back_upper(tolerance),
        )
    }

    fn polish_settings(&self, dim: usize) -> PolishSettings {
        PolishSettings {
            relative_gap: (self.params.tolerance * 0.1).min(1e-12),
            max_iterations: self.params.max_polish_iterations,
            // Adding rows in batches saves passes over the data when the support is large.
            pricing: (dim / 32).clamp(8, 32),
        }
    }

    /// Working-set rounds: interior-point solve on the working set, exact polish on it, then add the rows
    /// that violate the working set's optimum. When no row violates, the working set's optimum is the
    /// optimum; when the working set alone is not separable, neither are the data.
    fn solve_problem(&self, problem: &Problem) -> Polished {
        let n = problem.n();
        let mut working = initial_working_set(problem);
        let mut in_working = vec![false; n];
        for &i in &working {
            in_working[i] = true;
        }
        let settings = self.polish_settings(problem.dim());
        let all: Vec<usize> = (0..n).collect();
        // The exact polish may finish on all rows from the working set's optimum: each of its iterations
        // costs one pass over the data, far less than another interior-point solve.
        let finishing = PolishSettings {
            max_iterations: settings.max_iterations.min(4 * (problem.dim() + 1) + 50),
            ..settings
        };
        if problem.dim() > INTERIOR_POINT_MAX_DIM {
            // In many dimensions the dense interior-point solve costs far more than the polish needs to
            // find the support on its own, starting from the best row of each class under the
            // least-squares direction.
            let w = warm_start(problem);
            let mut best: Vec<Option<(f64, usize)>> = vec![None; problem.groups()];
            for i in 0..n {
                let score = problem.labels[i] * dot(&w, problem.row(i), Summation::Fast);
                let g = problem.group(i);
                if best[g].is_none_or(|(lowest, _)| score < lowest) {
                    best[g] = Some((score, i));
                }
            }
            // A group left without a start (no finite score) gets its first row from the polish itself.
            let start: Vec<(usize, f64)> = best.iter().flatten().map(|&(_, i)| (i, 1.0)).collect();
            let polished = polish(problem, &all, &start, settings);
            return polished;
        }
        let mut last: Option<Polished> = None;
        for _ in 0..self.params.max_rounds {
            let start = match socp_dual(problem, &working) {
                Some(alpha) => working.iter().copied().zip(alpha).collect::<Vec<_>>(),
                None => last
                    .as_ref()
                    .map(|p| {
                        p.rows
                            .iter()
                            .copied()
                            .zip(p.weights.iter().copied())
                            .collect()
                    })
                    .unwrap_or_default(),
            };
            let polished = polish(problem, &working, &start, settings);
            if polished.status == PolishStatus::Zero || working.len() == n {
                return polished;
            }
            let violators = violators_of(problem, &polished, &in_working, settings.relative_gap);
            if violators.is_empty() {
                return polished;
            }
            // Finish with the exact polish on all rows (each of its iterations is one pass over the
            // data), within a budget; if that is not enough, grow the working set and solve again.
            let start: Vec<(usize, f64)> = polished
                .rows
                .iter()
                .copied()
                .zip(polished.weights.iter().copied())
                .collect();
            let finished = polish(problem, &all, &start, finishing);
            if matches!(finished.status, PolishStatus::Optimal | PolishStatus::Zero) {
                return finished;
            }
            // Double the working set: the finished support and the worst violators of its point.
            let violators = violators_of(problem, &finished, &in_working, settings.relative_gap);
            let batch = working.len().max(16);
            for &i in finished.rows.iter().chain(violators.iter().take(batch)) {
                if !in_working[i] {
                    in_working[i] = true;
                    working.push(i);
                }
            }
            last = Some(finished);
        }
        // Out of rounds: polish on every row from the last support, with the full iteration budget.
        let start: Vec<(usize, f64)> = last
            .map(|p| p.rows.into_iter().zip(p.weights).collect())
            .unwrap_or_default();
        polish(problem, &all, &start, settings)
    }

    /// Turn the polished dual point into a result with a bracket evaluated on the original data.
    fn assemble(&self, data: &Dataset, problem: &Problem, polished: &Polished) -> MarginResult {
        let bias = self.params.bias;
        let n = data.n_samples();
        let mut raw = vec![0.0; n];
        for (&i, &c) in polished.rows.iter().zip(&polished.weights) {
            raw[i] = c;
        }
        let radius = data.radius();
        let hull = HullPoint::evaluate(data, bias, &raw);

        // The separator: the direction of v, mapped back to the data's coordinates.
        let mut w = problem.direction_to_data(&polished.w);
        let (norm2, _) = dot2(w.as_slice().unwrap_or(&[]), w.as_slice().unwrap_or(&[]));
        let have_direction = norm2 > 0.0 && norm2.is_finite();
        if have_direction {
            w.mapv_inplace(|x| x / norm2.sqrt());
        }
        let b = if have_direction && bias == Bias::Free {
            best_bias(data, w.view())
        } else {
            0.0
        };
        let lower = if have_direction {
            certified_margin(data, w.view(), b)
        } else {
            f64::NEG_INFINITY
        };

        let Some(hull) = hull else {
            return MarginResult::Inaccurate {
                gamma: if lower.is_finite() {
                    lower.max(0.0)
                } else {
                    0.0
                },
                bracket: (lower, f64::INFINITY),
                w,
                b,
                reason: "the solver returned no dual point".into(),
            };
        };
        let upper = hull.margin_upper(bias);
        if lower > 0.0 {
            let gamma = 0.5 * (lower + upper);
            if upper - lower <= self.params.tolerance * upper {
                let support = support_rows(data, w.view(), b, lower, upper, self.params.tolerance);
                return MarginResult::Separable {
                    gamma,
                    bracket: (lower, upper),
                    w,
                    b,
                    support,
                };
            }
            return MarginResult::Inaccurate {
                gamma,
                bracket: (lower, upper),
                w,
                b,
                reason: format!(
                    "relative bracket width {:.3e} exceeds the tolerance {:.1e} (polish: {:?} after {} \
                     iterations)",
                    (upper - lower) / upper,
                    self.params.tolerance,
                    polished.status,
                    polished.iterations
                ),
            };
        }
        if hull.gap_upper <= certificate_threshold(data, self.params.certificate_tolerance)
            || hull.gap_upper == 0.0
        {
            return MarginResult::NotSeparable {
                certificate: Certificate {
                    bias,
                    weights: hull.weights,
                    residual: hull.gap_upper,
                },
            };
        }
        MarginResult::Inaccurate {
            gamma: 0.5 * (lower.max(0.0) + upper),
            bracket: (lower, upper),
            w,
            b,
            reason: format!(
                "no separator found and the best certificate has residual {:.3e} = {:.3e}·R, above the \
                 tolerance {:.1e}·R (polish: {:?} after {} iterations)",
                hull.gap_upper,
                hull.gap_upper / radius,
                self.params.certificate_tolerance,
                polished.status,
                polished.iterations
            ),
        }
    }
}

/// An answer for the working data of `scaled` as an answer for the original data: lengths scaled back,
/// lower bounds rounded down and upper bounds up.
fn scale_back(scaled: &Scaled<'_>, result: MarginResult) -> MarginResult {
    if scaled.shift() == 0 {
        return result;
    }
    // The certified margin of (w, b) moves by at most |Δb| ≤ 2⁻¹⁰⁷⁴ when b rounds on the way back: one
    // step down covers it.
    let lower_of = |lower: f64, exact_b: bool| {
        let lower = scaled.back_lower(lower);
        if exact_b { lower } else { lower.next_down() }
    };
    match result {
        MarginResult::Separable {
            gamma,
            bracket,
            w,
            b,
            support,
        } => {
            let (b, exact_b) = scaled.back_bias(b);
            MarginResult::Separable {
                gamma: scaled.back(gamma),
                bracket: (lower_of(bracket.0, exact_b), scaled.back_upper(bracket.1)),
                w,
                b,
                support,
            }
        }
        MarginResult::Inaccurate {
            gamma,
            bracket,
            w,
            b,
            reason,
        } => {
            let (b, exact_b) = scaled.back_bias(b);
            MarginResult::Inaccurate {
                gamma: scaled.back(gamma),
                bracket: (lower_of(bracket.0, exact_b), scaled.back_upper(bracket.1)),
                w,
                b,
                reason,
            }
        }
        MarginResult::NotSeparable { mut certificate } => {
            certificate.residual = scaled.back_upper(certificate.residual);
            MarginResult::NotSeparable { certificate }
        }
    }
}

/// Check an answer against its own preconditions before anyone sees it: a bracket is ordered and has no
/// NaN, a certified bracket is finite, and a certificate verifies on the original data within
/// `tolerance`. A certified answer that is false is the one outcome this crate must never produce, so a
/// failed check is an error, never a weaker answer dressed up as a stronger one.
fn checked(data: &Dataset, result: MarginResult, tolerance: f64) -> Result<MarginResult> {
    let broken = |what: String| Err(Error::Solver(format!("refusing a result that {what}")));
    match result {
        MarginResult::Separable { bracket, .. } | MarginResult::Inaccurate { bracket, .. }
            if bracket.0.is_nan() || bracket.1.is_nan() || bracket.0 > bracket.1 =>
        {
            broken(format!(
                "fails its own check: the bracket [{}, {}] is not an interval",
                bracket.0, bracket.1
            ))
        }
        MarginResult::Separable {
            gamma,
            bracket,
            w,
            b,
            ..
        } if !(bracket.0 > 0.0 && bracket.1.is_finite() && b.is_finite()) => {
            // Scaling back overflowed (a margin near f64::MAX): the bracket is still rigorous.
            Ok(MarginResult::Inaccurate {
                gamma,
                bracket,
                w,
                b,
                reason: "the bracket or the bias is beyond the range of f64".into(),
            })
        }
        MarginResult::NotSeparable { certificate } if !certificate.verify(data, tolerance) => {
            broken(format!(
                "claims non-separability with a certificate (residual {:e}) that does not verify within                  {tolerance:e}",
                certificate.residual
            ))
        }
        other => Ok(other),
    }
}

/// Above this many (reduced) dimensions the interior-point solve is skipped: its dense factorisations
/// grow much faster than the polish's passes over the data.
const INTERIOR_POINT_MAX_DIM: usize = 200;

/// The bias that maximises the margin of the direction `w`: halfway between the classes' projections.
pub(crate) fn best_bias(data: &Dataset, w: ArrayView1<'_, f64>) -> f64 {
    let w = w.to_vec();
    let mut lowest_positive = f64::INFINITY;
    let mut highest_negative = f64::NEG_INFINITY;
    for (i, &y) in data.labels().iter().enumerate() {
        let (s, _) = dot2(&w, data.row(i));
        if y > 0.0 {
            lowest_positive = lowest_positive.min(s);
        } else {
            highest_negative = highest_negative.max(s);
        }
    }
    if lowest_positive.is_finite() && highest_negative.is_finite() {
        // `+ 0.0` turns a negative zero into zero.
        -0.5 * (lowest_positive + highest_negative) + 0.0
    } else {
        0.0
    }
}

/// A rigorous lower bound on the exact margin `minᵢ yᵢ(w·xᵢ + b)/‖w‖` of the stored data.
pub(crate) fn certified_margin(data: &Dataset, w: ArrayView1<'_, f64>, b: f64) -> f64 {
    let w = w.to_vec();
    let (norm2, e) = dot2(&w, &w);
    let (norm_lo, norm_hi) = norm_bounds(
        &[norm2.sqrt()],
        &[e / (2.0 * norm2.sqrt().max(f64::MIN_POSITIVE))],
    );
    if norm_lo <= 0.0 {
        return f64::NEG_INFINITY;
    }
    let mut lower = f64::INFINITY;
    for (i, &y) in data.labels().iter().enumerate() {
        let (s, err) = dot2_plus(&w, data.row(i), b);
        let numerator = round_down(y * s - err);
        let m = if numerator >= 0.0 {
            numerator / norm_hi
        } else {
            numerator / norm_lo
        };
        lower = lower.min(round_down(m));
    }
    lower
}

/// The rows whose margin lies within the tolerance of the optimum.
fn support_rows(
    data: &Dataset,
    w: ArrayView1<'_, f64>,
    b: f64,
    lower: f64,
    upper: f64,
    tolerance: f64,
) -> Vec<usize> {
    let w = w.to_vec();
    let limit = lower + (upper - lower) + tolerance * upper;
    (0..data.n_samples())
        .filter(|&i| {
            let (s, _) = dot2_plus(&w, data.row(i), b);
            data.labels()[i] * s <= limit
        })
        .collect()
}

/// The rows outside the working set that violate the polished optimum, worst first.
fn violators_of(
    problem: &Problem,
    polished: &Polished,
    in_working: &[bool],
    relative_gap: f64,
) -> Vec<usize> {
    let v = &polished.v;
    let length2: f64 = v.iter().map(|x| x * x).sum();
    let mut level = vec![0.0; problem.groups()];
    for (&i, &c) in polished.rows.iter().zip(&polished.weights) {
        level[problem.group(i)] += c * problem.labels[i] * dot2(v, problem.row(i)).0;
    }
    let threshold = relative_gap * length2;
    let mut found: Vec<(f64, usize)> = (0..problem.n())
        .filter(|&i| !in_working[i])
        .filter_map(|i| {
            let mut s = dot(v, problem.row(i), Summation::Fast);
            let g = problem.group(i);
            let mut violation = level[g] - problem.labels[i] * s;
            // Settle borderline cases in twice working precision.
            if violation > 0.0 && violation <= 1e3 * threshold.max(f64::MIN_POSITIVE) {
                s = dot2(v, problem.row(i)).0;
                violation = level[g] - problem.labels[i] * s;
            }
            (violation > threshold).then_some((violation, i))
        })
        .collect();
    found.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    found.into_iter().map(|(_, i)| i).collect()
}

/// The starting working set: in each group, the rows with the smallest margin under a least-squares
/// warm start.
pub(crate) fn initial_working_set(problem: &Problem) -> Vec<usize> {
    let n = problem.n();
    let r = problem.dim();
    // Enough rows that the working set usually holds the support; capped because the interior-point
    // solve grows faster than linearly with the working set.
    let per_group = (4 * (r + 1)).clamp(20, 600);
    if n <= per_group * problem.groups() {
        return (0..n).collect();
    }
    let w = warm_start(problem);
    let scores: Vec<f64> = (0..n)
        .map(|i| problem.labels[i] * dot(&w, problem.row(i), Summation::Fast))
        .collect();
    let mut chosen = Vec::new();
    for g in 0..problem.groups() {
        let mut rows: Vec<usize> = (0..n).filter(|&i| problem.group(i) == g).collect();
        rows.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]).then(a.cmp(&b)));
        chosen.extend(rows.into_iter().take(per_group));
    }
    chosen.sort_unstable();
    chosen
}

/// `w = P⁺y` on the problem's points (centred for a free bias, so no intercept is needed), falling back
/// to the difference of the class means when the least-squares solve is unusable.
fn warm_start(problem: &Problem) -> Vec<f64> {
    let n = problem.n();
    let r = problem.dim();
    let mut mean_difference = vec![0.0; r];
    for i in 0..n {
        for (m, &x) in mean_difference.iter_mut().zip(problem.row(i)) {
            *m += problem.labels[i] * x;
        }
    }
    if n < r || (n as f64) * (r as f64).powi(2) > 4e8 {
        return mean_difference;
    }
    let a = faer::Mat::<f64>::from_fn(n, r, |i, j| problem.row(i)[j]);
    let mut rhs = faer::Mat::<f64>::from_fn(n, 1, |i, _| problem.labels[i]);
    use faer::linalg::solvers::SolveLstsq;
    a.qr().solve_lstsq_in_place(rhs.as_mut());
    let w: Vec<f64> = (0..r).map(|j| rhs[(j, 0)]).collect();
    if w.iter().all(|x| x.is_finite()) {
        w
    } else {
        mean_difference
    }
}

/// The SOCP `max t  s.t.  yᵢ(w·pᵢ + b) ≥ t (i ∈ working),  ‖w‖ ≤ 1` with clarabel. Returns the dual
/// weights of the margin constraints (they sum to 1, and to ½ per class with a free bias), or `None` when
/// clarabel fails outright. The weights need only be roughly right: the polish makes them exact.
fn socp_dual(problem: &Problem, working: &[usize]) -> Option<Vec<f64>> {
    let r = problem.dim();
    let m = working.len();
    // Variables: w (r), then b (free bias only), then t.
    let mut triplets = MarginRows::new(problem, working, true);
    let nvar = triplets.columns;
    let t_col = nvar - 1;
    // ‖w‖ ≤ 1 as the cone (1, w): row m is the constant 1, rows m+1.. are w.
    for j in 0..r {
        triplets.push(m + 1 + j, j, -1.0);
    }
    let a = triplets.into_matrix(m + 1 + r);
    let p = CscMatrix::zeros((nvar, nvar));
    let mut q = vec![0.0; nvar];
    q[t_col] = -1.0;
    let mut bvec = vec![0.0; m + 1 + r];
    bvec[m] = 1.0;
    let cones = [
        SupportedConeT::NonnegativeConeT(m),
        SupportedConeT::SecondOrderConeT(r + 1),
    ];
    let settings = DefaultSettings {
        verbose: false,
        tol_gap_abs: 1e-11,
        tol_gap_rel: 1e-11,
        tol_feas: 1e-11,
        max_iter: 200,
        ..DefaultSettings::default()
    };
    let mut solver = DefaultSolver::new(&p, &q, &a, &bvec, &cones, settings).ok()?;
    solver.solve();
    match solver.solution.status {
        SolverStatus::Solved
        | SolverStatus::AlmostSolved
        | SolverStatus::MaxIterations
        | SolverStatus::InsufficientProgress
        | SolverStatus::MaxTime => {}
        _ => return None,
    }
    let alpha: Vec<f64> = solver.solution.z[..m].iter().map(|&z| z.max(0.0)).collect();
    if alpha.iter().all(|a| a.is_finite()) && alpha.iter().any(|&a| a > 0.0) {
        // Keep the rows that carry weight; the rest start at zero and may re-enter in the polish.
        let largest = alpha.iter().copied().fold(0.0, f64::max);
        Some(
            alpha
                .into_iter()
                .map(|a| if a > 1e-7 * largest { a } else { 0.0 })
                .collect(),
        )
    } else {
        None
    }
}

/// The margin constraints `yᵢ(w·pᵢ + b) [− t] ≥ …` of the rows, in clarabel's form `A·x + s = b`,
/// `s ≥ 0`, as triplets: row `k` is `−yᵢ·(pᵢ, 1) [, +1]` over the variables `(w, b, t)`.
pub(crate) struct MarginRows {
    rows: Vec<usize>,
    cols: Vec<usize>,
    values: Vec<f64>,
    /// Number of variables: `r`, plus `b` with a free bias, plus `t` when asked.
    pub columns: usize,
}

impl MarginRows {
    pub(crate) fn new(problem: &Problem, working: &[usize], with_t: bool) -> Self {
        let r = problem.dim();
        let free = problem.bias == Bias::Free;
        let columns = r + usize::from(free) + usize::from(with_t);
        let mut this = MarginRows {
            rows: Vec::new(),
            cols: Vec::new(),
            values: Vec::new(),
            columns,
        };
        for (k, &i) in working.iter().enumerate() {
            let y = problem.labels[i];
            for (j, &x) in problem.row(i).iter().enumerate() {
                if x != 0.0 {
                    this.push(k, j, -y * x);
                }
            }
            if free {
                this.push(k, r, -y);
            }
            if with_t {
                this.push(k, columns - 1, 1.0);
            }
        }
        this
    }

    pub(crate) fn push(&mut self, row: usize, col: usize, value: f64) {
        self.rows.push(row);
        self.cols.push(col);
        self.values.push(value);
    }

    pub(crate) fn into_matrix(self, total_rows: usize) -> CscMatrix<f64> {
        CscMatrix::new_from_triplets(total_rows, self.columns, self.rows, self.cols, self.values)
    }
}
