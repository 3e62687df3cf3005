//! Separability by linear programming: is there `(w, b)` with `yᵢ(w·xᵢ + b) ≥ 1` for every row?
//!
//! A feasibility LP is cheaper than the maximum-margin solve, and it answers only the yes/no question, with
//! evidence either way: a separator whose margin is certified positive, or a [`Certificate`] built from
//! clarabel's Farkas (infeasibility) certificate `z ≥ 0`, `Σ zᵢyᵢxᵢ = 0` (and `Σ zᵢyᵢ = 0` with a free
//! bias), polished exactly on its support. Batch experiments use it as a first check.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettings, DefaultSolver, IPSolver, SolverStatus, SupportedConeT};
use ndarray::Array1;

use super::certificate::{Certificate, HullPoint};
use super::max_margin::{best_bias, certified_margin, MarginRows};
use super::polish::{polish, PolishSettings, PolishStatus};
use super::problem::Problem;
use super::Bias;
use crate::dataset::Dataset;
use crate::error::Result;

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
    /// [`max_margin`](super::max_margin).
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

/// Decide separability with one feasibility LP.
///
/// ```
/// use ndarray::array;
/// use novikoff::margin::{separable_lp, Bias, Separability};
/// // Separable with a bias, but no line through the origin separates 1 from 2.
/// let data = novikoff::Dataset::new(array![[1.0], [2.0]], array![-1.0, 1.0])?;
/// assert!(separable_lp(&data, Bias::Free)?.is_separable());
/// match separable_lp(&data, Bias::ThroughOrigin)? {
///     Separability::NotSeparable { certificate } => assert!(certificate.verify(&data, 1e-12)),
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// [`crate::Error::SingleClass`] with [`Bias::Free`] and one class.
pub fn separable_lp(data: &Dataset, bias: Bias) -> Result<Separability> {
    if bias == Bias::Free {
        data.require_both_classes()?;
    }
    let problem = Problem::new(data, bias);
    let n = problem.n();
    let all: Vec<usize> = (0..n).collect();
    let rows = MarginRows::new(&problem, &all, false);
    let nvar = rows.columns;
    let a: CscMatrix<f64> = rows.into_matrix(n);
    let p = CscMatrix::zeros((nvar, nvar));
    let q = vec![0.0; nvar];
    let bvec = vec![-1.0; n];
    let cones = [SupportedConeT::NonnegativeConeT(n)];
    let settings = DefaultSettings {
        verbose: false,
        ..DefaultSettings::default()
    };
    let mut solver = match DefaultSolver::new(&p, &q, &a, &bvec, &cones, settings) {
        Ok(solver) => solver,
        Err(e) => {
            return Ok(Separability::Unknown {
                reason: format!("clarabel refused the problem: {e:?}"),
            })
        }
    };
    solver.solve();
    let status = solver.solution.status;
    match status {
        SolverStatus::Solved | SolverStatus::AlmostSolved => {
            let w_problem = &solver.solution.x[..problem.dim()];
            let mut w = problem.direction_to_data(w_problem);
            let norm = w.dot(&w).sqrt();
            if norm > 0.0 && norm.is_finite() {
                w.mapv_inplace(|x| x / norm);
                let b = match bias {
                    Bias::Free => best_bias(data, w.view()),
                    Bias::ThroughOrigin => 0.0,
                };
                let margin = certified_margin(data, w.view(), b);
                if margin > 0.0 {
                    return Ok(Separability::Separable { w, b, margin });
                }
            }
            Ok(Separability::Unknown {
                reason: format!("the LP reported {status:?} but its separator is not certified"),
            })
        }
        SolverStatus::PrimalInfeasible | SolverStatus::AlmostPrimalInfeasible => {
            let start: Vec<(usize, f64)> = solver.solution.z[..n]
                .iter()
                .enumerate()
                .filter(|(_, z)| **z > 0.0 && z.is_finite())
                .map(|(i, &z)| (i, z))
                .collect();
            let support: Vec<usize> = start.iter().map(|&(i, _)| i).collect();
            let settings = PolishSettings {
                relative_gap: 1e-12,
                max_iterations: 10 * (support.len() + 10),
                pricing: 1,
            };
            let polished = polish(&problem, &support, &start, settings);
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
            match HullPoint::evaluate(data, bias, &raw) {
                Some(hull) if hull.gap_upper <= 1e-9 * radius || hull.gap_upper == 0.0 => {
                    Ok(Separability::NotSeparable {
                        certificate: Certificate {
                            bias,
                            weights: hull.weights,
                            residual: hull.gap_upper,
                        },
                    })
                }
                Some(hull) => Ok(Separability::Unknown {
                    reason: format!(
                        "the LP is infeasible but its certificate has residual {:.3e}·R",
                        hull.gap_upper / radius
                    ),
                }),
                None => Ok(Separability::Unknown {
                    reason: "the LP's infeasibility certificate misses a class".into(),
                }),
            }
        }
        other => Ok(Separability::Unknown {
            reason: format!("clarabel stopped with status {other:?}"),
        }),
    }
}
