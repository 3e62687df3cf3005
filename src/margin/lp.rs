//! Separability by linear programming: is there `(w, b)` with `yᵢ(w·xᵢ + b) ≥ 1` for every row?
//!
//! A feasibility LP is cheaper than the maximum-margin solve, and it answers only the yes/no question, with
//! evidence either way: a separator whose margin is certified positive, or a [`Certificate`] built from
//! clarabel's Farkas (infeasibility) certificate `z ≥ 0`, `Σ zᵢyᵢxᵢ = 0` (and `Σ zᵢyᵢ = 0` with a free
//! bias), polished exactly on its support. The LP is solved on a growing working set of rows, so its cost
//! follows the number of rows that matter rather than `N`. Batch experiments use it as a first check.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettings, DefaultSolver, IPSolver, SolverStatus, SupportedConeT};
use ndarray::Array1;

use super::Bias;
use super::acceptance::{certificate_point, certificate_threshold};
use super::certificate::Certificate;
use super::certify::{best_bias, certified_margin};
use super::clarabel_socp::MarginRows;
use super::points::Points;
use super::polish::{PolishSettings, PolishStatus, Start, polish};
use super::problem::Problem;
use super::scale::Scaled;
use super::working_set::initial_working_set;
use crate::dataset::Dataset;
use crate::error::Result;
use crate::simd::{Summation, dot};

/// The answer of [`separable_lp`].
///
/// ```
/// use ndarray::array;
/// use novikoff::margin::{separable_lp, Bias, Separability};
/// let data = novikoff::Dataset::new(array![[1.0, 0.0], [-1.0, 0.5]], array![1.0, -1.0])?;
/// assert!(matches!(separable_lp(&data, Bias::Free)?, Separability::Separable { .. }));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Separability {
    /// A separator, with its margin certified positive (a rigorous lower bound; not the maximum margin).
    Separable {
        /// Unit normal.
        w: Array1<f64>,
        /// Bias (0 through the origin).
        b: f64,
        /// A rigorous lower bound on the margin of `(w, b)` on the data, positive.
        margin: f64,
    },
    /// No separator exists; the certificate has a residual at most `1e-9·R`.
    NotSeparable {
        /// The proof.
        certificate: Certificate,
    },
    /// Neither could be established (for instance a margin too small for the LP's tolerances); use
    /// [`max_margin`](super::max_margin()).
    Unknown {
        /// What happened.
        reason: String,
    },
}

impl Separability {
    /// True for [`Separability::Separable`].
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{separable_lp, Bias};
    /// let xor = novikoff::Dataset::new(
    ///     array![[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]],
    ///     array![1.0, -1.0, -1.0, 1.0],
    /// )?;
    /// assert!(!separable_lp(&xor, Bias::Free)?.is_separable());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn is_separable(&self) -> bool {
        matches!(self, Separability::Separable { .. })
    }
}

/// Decide separability with a feasibility LP, solved by constraint generation: on a working set of rows
/// first, adding the rows its solution violates until it separates every row or the working set alone is
/// infeasible.
///
/// ```
/// use ndarray::array;
/// use novikoff::margin::{separable_lp, Bias, Separability};
/// // Separable with a bias, but no line through the origin separates 1 from 2.
/// let data = novikoff::Dataset::new(array![[1.0], [2.0]], array![-1.0, 1.0])?;
/// assert!(separable_lp(&data, Bias::Free)?.is_separable());
/// match separable_lp(&data, Bias::ThroughOrigin)? {
///     Separability::NotSeparable { certificate, .. } => assert!(certificate.verify(&data, 1e-12)),
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// Like [`max_margin`](super::max_margin()), it works on the data exactly scaled by a power of two when
/// their values lie outside about `2^±300`, and checks its answer before returning it: a certificate must
/// verify on `data`, and a margin must be positive.
///
/// # Errors
/// [`crate::Error::SingleClass`] with [`Bias::Free`] and one class; [`crate::Error::Range`] for values no
/// power-of-two scaling brings into range; [`crate::Error::Solver`] if an answer fails its own check.
pub fn separable_lp(data: &Dataset, bias: Bias) -> Result<Separability> {
    let data = &*data.densified("the separability LP")?;
    if bias == Bias::Free {
        data.require_both_classes()?;
    }
    let scaled = Scaled::new(data)?;
    let working = scaled.data();
    let answer = separable_in_range(working, bias)?;
    let answer = match answer {
        Separability::Separable { w, b, margin } => {
            let (b, exact_b) = scaled.back_bias(b);
            let margin = scaled.back_lower(margin);
            // When b rounded on the way back, the margin moves by at most 2⁻¹⁰⁷⁴: one step down.
            let margin = if exact_b { margin } else { margin.next_down() };
            if margin > 0.0 && b.is_finite() {
                Separability::Separable { w, b, margin }
            } else {
                Separability::Unknown {
                    reason: "the separator's margin is beyond the range of f64 on these data"
                        .into(),
                }
            }
        }
        Separability::NotSeparable { mut certificate } => {
            certificate.residual = scaled.back_upper(certificate.residual);
            let tolerance = scaled.back_upper(1e-9 * working.radius());
            if !certificate.verify(data, tolerance) {
                return Err(crate::Error::Solver(format!(
                    "refusing a certificate of non-separability (residual {:e}) that does not verify \
                     within {tolerance:e}",
                    certificate.residual
                )));
            }
            Separability::NotSeparable { certificate }
        }
        other => other,
    };
    Ok(answer)
}

/// [`separable_lp`] on data already in range.
fn separable_in_range(data: &Dataset, bias: Bias) -> Result<Separability> {
    let problem = Problem::new(data, bias);
    let n = problem.n();
    // Constraint generation: solve on a working set; a separator of all rows ends it, an infeasible
    // working set proves the data infeasible, and otherwise the worst violated rows join.
    let mut working = initial_working_set(&problem);
    let mut in_working = vec![false; n];
    for &i in &working {
        in_working[i] = true;
    }
    loop {
        match solve_lp(&problem, &working) {
            LpOutcome::Feasible(x) => {
                let r = problem.dim();
                let b_problem = if bias == Bias::Free { x[r] } else { 0.0 };
                let mut buffer = Vec::new();
                let mut violated: Vec<(f64, usize)> = (0..n)
                    .filter(|&i| !in_working[i])
                    .filter_map(|i| {
                        let point = problem.point(i, &mut buffer);
                        let s =
                            problem.labels[i] * (dot(&x[..r], point, Summation::Fast) + b_problem);
                        (s < 1.0).then_some((s, i))
                    })
                    .collect();
                if violated.is_empty() || working.len() == n {
                    return Ok(certify_separator(data, &problem, &x[..r], bias));
                }
                violated.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let batch = working.len().max(16);
                for &(_, i) in violated.iter().take(batch) {
                    in_working[i] = true;
                    working.push(i);
                }
            }
            LpOutcome::Infeasible(z) => {
                return Ok(certificate_from_farkas(data, &problem, &working, &z, bias));
            }
            LpOutcome::Failed(reason) => return Ok(Separability::Unknown { reason }),
        }
    }
}

enum LpOutcome {
    Feasible(Vec<f64>),
    Infeasible(Vec<f64>),
    Failed(String),
}

/// The LP `yᵢ(w·pᵢ + b) ≥ 1` over `rows`, with a zero objective.
fn solve_lp(problem: &Problem, rows: &[usize]) -> LpOutcome {
    let m = rows.len();
    let constraints = MarginRows::new(problem, rows, false);
    let nvar = constraints.columns;
    let a: CscMatrix<f64> = constraints.into_matrix(m);
    let p = CscMatrix::zeros((nvar, nvar));
    let q = vec![0.0; nvar];
    let bvec = vec![-1.0; m];
    let cones = [SupportedConeT::NonnegativeConeT(m)];
    let settings = DefaultSettings {
        verbose: false,
        ..DefaultSettings::default()
    };
    let mut solver = match DefaultSolver::new(&p, &q, &a, &bvec, &cones, settings) {
        Ok(solver) => solver,
        Err(e) => return LpOutcome::Failed(format!("clarabel refused the problem: {e:?}")),
    };
    solver.solve();
    match solver.solution.status {
        SolverStatus::Solved | SolverStatus::AlmostSolved => {
            LpOutcome::Feasible(solver.solution.x.clone())
        }
        SolverStatus::PrimalInfeasible | SolverStatus::AlmostPrimalInfeasible => {
            LpOutcome::Infeasible(solver.solution.z[..m].to_vec())
        }
        other => LpOutcome::Failed(format!("clarabel stopped with status {other:?}")),
    }
}

/// Map the LP's `w` back, choose the best bias on the data and certify the margin.
fn certify_separator(
    data: &Dataset,
    problem: &Problem,
    w_problem: &[f64],
    bias: Bias,
) -> Separability {
    let mut w = problem.direction_to_data(w_problem, data.n_features());
    let norm = w.dot(&w).sqrt();
    if norm > 0.0 && norm.is_finite() {
        w.mapv_inplace(|x| x / norm);
        let b = match bias {
            Bias::Free => best_bias(data, w.view()),
            Bias::ThroughOrigin => 0.0,
        };
        let margin = certified_margin(data, w.view(), b);
        if margin > 0.0 {
            return Separability::Separable { w, b, margin };
        }
    }
    Separability::Unknown {
        reason: "the LP is feasible but its separator's margin is not certified positive".into(),
    }
}

/// Turn clarabel's Farkas vector on the working set into a certificate, polished on its support.
fn certificate_from_farkas(
    data: &Dataset,
    problem: &Problem,
    rows: &[usize],
    z: &[f64],
    bias: Bias,
) -> Separability {
    let n = problem.n();
    let start: Vec<(usize, f64)> = rows
        .iter()
        .zip(z)
        .filter(|(_, z)| **z > 0.0 && z.is_finite())
        .map(|(&i, &z)| (i, z))
        .collect();
    let support: Vec<usize> = start.iter().map(|&(i, _)| i).collect();
    let settings = PolishSettings {
        relative_gap: 1e-12,
        max_iterations: 10 * (support.len() + 10),
        pricing: 1,
        deadline: None,
        factor_values: usize::MAX,
    };
    let polished = polish(problem, &support, Start::Weights(start.clone()), settings);
    let mut raw = vec![0.0; n];
    let (rows, weights) = if polished.status == PolishStatus::Zero {
        (polished.rows, polished.weights)
    } else {
        start.into_iter().unzip()
    };
    for (i, c) in rows.into_iter().zip(weights) {
        raw[i] = c;
    }
    let radius = data.radius();
    let threshold = certificate_threshold(Points::from(data), 1e-9);
    match certificate_point(Points::from(data), bias, &raw, threshold, 1e-9) {
        Ok(hull) => Separability::NotSeparable {
            certificate: Certificate {
                bias,
                weights: hull.weights,
                residual: hull.gap_upper,
            },
        },
        Err(Some(hull)) => Separability::Unknown {
            reason: format!(
                "the LP is infeasible but its certificate has residual {:.3e}·R, against a mean \
                 length of the rows it mixes of {:.3e}·R",
                hull.gap_upper / radius,
                hull.mixed_length / radius
            ),
        },
        Err(None) => Separability::Unknown {
            reason: "the LP's infeasibility certificate misses a class".into(),
        },
    }
}
