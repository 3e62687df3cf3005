//! One maximum-margin solve as the bounds see it: the margin module's answer with its certificate checked,
//! or the reason there is none.

use super::separation::Separation;
use super::summary::{CertificateSummary, MarginSummary};
use crate::dataset::Dataset;
use crate::margin::{self, Bias, Certificate, MarginResult, Points};

/// Tolerance of a certificate of non-separability, relative to the radius of the data it is checked on:
/// [`Certificate::verify`] is called with `1e-9·R`, as the margin module recommends.
///
/// ```
/// assert_eq!(novikoff::bounds::CERTIFICATE_RTOL, 1e-9);
/// ```
pub const CERTIFICATE_RTOL: f64 = 1e-9;

/// The outcome of one maximum-margin computation.
///
/// ```
/// use novikoff::bounds::MarginSolve;
/// let failed = MarginSolve::Failed { reason: "only one class".into() };
/// assert!(failed.result().is_none());
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum MarginSolve {
    /// The margin module answered.
    Solved {
        /// Its answer.
        result: MarginResult,
        /// For [`MarginResult::NotSeparable`]: whether the certificate verified on the data.
        certificate_verified: Option<bool>,
    },
    /// The margin could not be computed (or is not defined, e.g. with free bias on a single class).
    Failed {
        /// Why, in words.
        reason: String,
    },
}

impl MarginSolve {
    /// Solve on `data` and verify a certificate if one comes back; errors become [`MarginSolve::Failed`].
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{bounds::MarginSolve, margin::Bias, Dataset};
    /// let data = Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let solve = MarginSolve::compute(&data, Bias::ThroughOrigin);
    /// assert!(solve.result().is_some_and(|r| r.is_separable()));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn compute(data: &Dataset, bias: Bias) -> Self {
        Self::compute_near(data, &margin::MaxMarginParams::new(bias), &[])
    }

    /// A solve with `solver`'s bias and limits, with rows expected near the support (see
    /// [`MaxMargin::solve_near`](crate::margin::MaxMargin)).
    pub(crate) fn compute_near(
        data: &Dataset,
        solver: &margin::MaxMarginParams,
        hint: &[usize],
    ) -> Self {
        Self::compute_points(Points::from(data), solver, hint)
    }

    /// The solve of the augmented points `(xᵢ, c)` through `solver`'s bias, without an augmented copy of
    /// the data ([`MaxMargin::solve_augmented`](crate::margin::MaxMargin::solve_augmented)).
    pub(crate) fn compute_augmented_near(
        data: &Dataset,
        c: f64,
        solver: &margin::MaxMarginParams,
        hint: &[usize],
    ) -> Self {
        Self::compute_points(Points::augmented(data, c), solver, hint)
    }

    fn compute_points(
        points: Points<'_>,
        solver: &margin::MaxMarginParams,
        hint: &[usize],
    ) -> Self {
        let solved = solver
            .clone()
            .check()
            .and_then(|solver| match points.constant() {
                Some(c) => solver.solve_augmented_near(points.data(), c, hint),
                None => solver.solve_near(points.data(), hint),
            });
        match solved {
            Ok(result) => {
                let certificate_verified = match &result {
                    MarginResult::NotSeparable { certificate, .. } => {
                        Some(certificate.verify_points(points, CERTIFICATE_RTOL * points.radius()))
                    }
                    _ => None,
                };
                MarginSolve::Solved {
                    result,
                    certificate_verified,
                }
            }
            Err(error) => MarginSolve::Failed {
                reason: error.to_string(),
            },
        }
    }

    /// The margin module's answer, if there is one.
    ///
    /// ```
    /// let solve = novikoff::bounds::MarginSolve::Failed { reason: "x".into() };
    /// assert!(solve.result().is_none());
    /// ```
    pub fn result(&self) -> Option<&MarginResult> {
        match self {
            MarginSolve::Solved { result, .. } => Some(result),
            MarginSolve::Failed { .. } => None,
        }
    }

    /// The certificate of non-separability, if the answer is one.
    ///
    /// ```
    /// let solve = novikoff::bounds::MarginSolve::Failed { reason: "x".into() };
    /// assert!(solve.certificate().is_none());
    /// ```
    pub fn certificate(&self) -> Option<&Certificate> {
        match self.result() {
            Some(MarginResult::NotSeparable { certificate, .. }) => Some(certificate),
            _ => None,
        }
    }

    /// Whether this problem's vectors are separable: `Some(true)` when a separator with a positive margin
    /// on the data was found, `Some(false)` when a certificate that none exists was found and verified,
    /// and `None` when the solve could not tell (it failed, or ended inaccurate without such a
    /// separator, e.g. at a time or memory limit).
    pub(crate) fn separable(&self) -> Option<bool> {
        match self {
            MarginSolve::Solved {
                result: MarginResult::NotSeparable { .. },
                certificate_verified: Some(true),
            } => Some(false),
            _ if self.separation("").found().is_some() => Some(true),
            _ => None,
        }
    }

    /// What the bounds can use: a separator with the margin it achieves, or the reason there is none.
    /// `vectors` names the vectors in messages, e.g. "through the origin".
    pub(crate) fn separation(&self, vectors: &str) -> Separation {
        let result = match self {
            MarginSolve::Failed { reason } => {
                return Separation::Missing(format!("margin {vectors} not available: {reason}"));
            }
            MarginSolve::Solved { result, .. } => result,
        };
        match result {
            MarginResult::Separable {
                bracket,
                w,
                b,
                support,
                ..
            } => Separation::from_separator(w, *b, *bracket, support, None, vectors),
            // Stopped (at a limit) before its first separator.
            MarginResult::Inaccurate { reason, .. } if result.stopped_before_separator() => {
                Separation::Missing(format!(
                    "separability {vectors} not established: the margin solver stopped before it \
                     found a separator ({reason})"
                ))
            }
            MarginResult::Inaccurate {
                bracket,
                w,
                b,
                reason,
                ..
            } => Separation::from_separator(
                w,
                *b,
                *bracket,
                &[],
                Some(format!(
                    "the margin solver was inaccurate ({reason}); the bound uses the margin its separator \
                     achieves on the data, which is rigorous"
                )),
                vectors,
            ),
            MarginResult::NotSeparable { certificate, .. } => Separation::Missing(format!(
                "a certificate of non-separability was found (residual {:.3e}{})",
                certificate.residual,
                match self {
                    MarginSolve::Solved {
                        certificate_verified: Some(true),
                        ..
                    } => ", verified",
                    MarginSolve::Solved {
                        certificate_verified: Some(false),
                        ..
                    } => ", NOT verified at tolerance 1e-9·R",
                    _ => "",
                }
            )),
            #[allow(unreachable_patterns)]
            _ => Separation::Missing(format!("unrecognised margin outcome {vectors}")),
        }
    }

    /// A serialisable summary.
    pub(crate) fn summary(&self) -> MarginSummary {
        let empty = MarginSummary {
            status: "failed",
            gamma: None,
            bracket: None,
            w: None,
            b: None,
            support: None,
            certificate: None,
            reason: None,
            stats: None,
        };
        let (result, verified) = match self {
            MarginSolve::Failed { reason } => {
                return MarginSummary {
                    reason: Some(reason.clone()),
                    ..empty
                };
            }
            MarginSolve::Solved {
                result,
                certificate_verified,
            } => (result, *certificate_verified),
        };
        let empty = MarginSummary {
            stats: Some(result.stats()),
            ..empty
        };
        match result {
            MarginResult::Separable {
                gamma,
                bracket,
                w,
                b,
                support,
                ..
            } => MarginSummary {
                status: "separable",
                gamma: Some(*gamma),
                bracket: Some([bracket.0, bracket.1]),
                w: Some(w.iter().copied().collect()),
                b: Some(*b),
                support: Some(support.clone()),
                ..empty
            },
            MarginResult::Inaccurate {
                gamma,
                bracket,
                w,
                b,
                reason,
                ..
            } => MarginSummary {
                status: "inaccurate",
                gamma: Some(*gamma),
                bracket: Some([bracket.0, bracket.1]),
                w: Some(w.iter().copied().collect()),
                b: Some(*b),
                reason: Some(reason.clone()),
                ..empty
            },
            MarginResult::NotSeparable { certificate, .. } => MarginSummary {
                status: "not_separable",
                certificate: Some(CertificateSummary {
                    bias: certificate.bias.name(),
                    weights: certificate.weights.to_vec(),
                    residual: certificate.residual,
                    verified,
                }),
                ..empty
            },
            #[allow(unreachable_patterns)]
            _ => MarginSummary {
                reason: Some("unrecognised margin outcome".into()),
                ..empty
            },
        }
    }
}
