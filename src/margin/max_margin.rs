//! The maximum margin `γ*`: an interior-point solve (clarabel) on a working set of rows, an exact polish,
//! and a rigorous bracket evaluated on the original data.

use super::Bias;
use super::accurate::dot2;
use super::certificate::{Certificate, HullPoint, certificate_threshold};
use super::certify::{INTERIOR_POINT_MAX_DIM, best_bias, certified_margin, checked, scale_back};
use super::clarabel_socp::socp_dual;
use super::params::{MaxMargin, MaxMarginParams};
use super::polish::{PolishSettings, PolishStatus, Polished, polish};
use super::problem::Problem;
use super::result::MarginResult;
use super::scale::Scaled;
use super::working_set::{initial_working_set, support_rows, violators_of, warm_start};
use crate::dataset::Dataset;
use crate::error::Result;
use crate::simd::{Summation, dot};

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
    /// [`Error::SingleClass`](crate::Error::SingleClass) with a free bias and one class; [`Error::Range`](crate::Error::Range) for values no power-of-two
    /// scaling brings into range (10³⁰⁰ and 10⁻³⁰⁰ in one matrix); [`Error::Solver`](crate::Error::Solver) if an answer fails
    /// its own check (a bug, reported rather than returned).
    ///
    /// A sparse dataset is never made dense: the solver works on subsets of its rows restricted to the
    /// columns they use, checked against every row after each round (the `row_subsets` module: the
    /// bracket is rigorous for the whole dataset at every round).
    pub fn solve(&self, data: &Dataset) -> Result<MarginResult> {
        let bias = self.params.bias;
        if bias == Bias::Free {
            data.require_both_classes()?;
        }
        let scaled = Scaled::new(data)?;
        let working = scaled.data();
        let result = if working.is_sparse() {
            self.solve_by_row_subsets(working)?
        } else {
            let problem = Problem::new(working, bias);
            let polished = self.solve_problem(&problem);
            self.assemble(working, &problem, &polished)
        };
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
