//! What the theorem needs of a feature space, measured once per dataset and kernel: `R_K` and four
//! certified margins, as [`Geometry`](crate::bounds::Geometry) measures them for `x`.

use serde::Serialize;

use super::cache::{DEFAULT_CACHE_BYTES, GramCache};
use super::function::{Kernel, KernelSummary};
use super::margin::{KernelMarginParams, KernelMarginResult};
use super::run::radius_from;
use crate::bounds::UNIT_NORM_TOL;
use crate::bounds::feature_space::{MeasuredSeparator, Space};
use crate::dataset::Dataset;
use crate::error::Result;
use crate::margin::Bias;
use crate::simd::Summation;

/// One of the geometry's margin problems: solved, or why not.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum KernelSolve {
    /// The solver's answer.
    Solved(KernelMarginResult),
    /// Why the problem was not solved (one class with a free bias, a zero radius, an error).
    Failed {
        /// In words.
        reason: String,
    },
}

impl KernelSolve {
    fn of(result: Result<KernelMarginResult>) -> Self {
        match result {
            Ok(result) => KernelSolve::Solved(result),
            Err(error) => KernelSolve::Failed {
                reason: error.to_string(),
            },
        }
    }

    /// The result, when solved.
    pub fn result(&self) -> Option<&KernelMarginResult> {
        match self {
            KernelSolve::Solved(result) => Some(result),
            KernelSolve::Failed { .. } => None,
        }
    }

    /// The separator the forms read, or why there is none.
    pub(crate) fn measured(&self, vectors: &str) -> std::result::Result<MeasuredSeparator, String> {
        match self {
            KernelSolve::Failed { reason } => Err(reason.clone()),
            KernelSolve::Solved(result) => match (result.separator(), result.bracket()) {
                (Some(separator), Some((lower, upper))) if lower > 0.0 => Ok(MeasuredSeparator {
                    gamma: lower,
                    gamma_upper: upper.is_finite().then_some(upper.max(lower)),
                    offset: separator.b,
                }),
                _ => Err(match result {
                    KernelMarginResult::NotSeparable { certificate, .. } => format!(
                        "not separable {vectors} in the feature space: a certificate with residual {:e} \
                         proves it",
                        certificate.residual
                    ),
                    other => format!(
                        "separability {vectors} in the feature space not established: bracket {:?}",
                        other.bracket()
                    ),
                }),
            },
        }
    }

    /// A serialisable summary.
    pub fn summary(&self) -> KernelSolveSummary {
        match self {
            KernelSolve::Failed { reason } => KernelSolveSummary {
                status: "failed",
                bracket: None,
                residual: None,
                support: None,
                reason: Some(reason.clone()),
            },
            KernelSolve::Solved(result) => KernelSolveSummary {
                status: result.status(),
                bracket: result.bracket().map(|(l, u)| [l, u]),
                residual: result.certificate().map(|c| c.residual),
                support: Some(result.stats().support),
                reason: match result {
                    KernelMarginResult::Inaccurate { reason, .. } => Some(reason.clone()),
                    _ => None,
                },
            },
        }
    }
}

/// One margin problem in a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelSolveSummary {
    /// `separable`, `not_separable`, `inaccurate` or `failed`.
    pub status: &'static str,
    /// The certified bracket of `γ_K*`.
    pub bracket: Option<[f64; 2]>,
    /// A certificate's residual.
    pub residual: Option<f64>,
    /// Rows with positive dual weight.
    pub support: Option<usize>,
    /// Why it is not separable, not accurate, or not solved.
    pub reason: Option<String>,
}

/// The geometry of a dataset in the feature space of a kernel: `R_K`, the norms, and the maximum margin
/// of `φ(x)` through the origin and with a free bias, of `(φ(x), 1)` and of `(φ(x), R_K)` through the
/// origin. Compute it once and verify every rule and run against it ([`super::verify_with`]).
///
/// ```
/// use ndarray::array;
/// use novikoff::{kernel::{Gamma, KernelGeometry, KernelParams}, Dataset};
/// let xor = Dataset::new(array![[0., 0.], [0., 1.], [1., 0.], [1., 1.]], array![1., -1., -1., 1.])?;
/// let poly = KernelParams::polynomial(2).coef0(1.0).gamma(Gamma::Value(1.0)).check()?;
/// let geometry = KernelGeometry::compute(&xor, &poly)?;
/// assert_eq!(geometry.radius, 3.0); // K(x, x) = (x·x + 1)² ≤ 9
/// assert!(geometry.free_bias.result().unwrap().is_separable());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct KernelGeometry<'a> {
    data: &'a Dataset,
    /// The kernel.
    pub kernel: Kernel,
    /// Number of examples.
    pub n: usize,
    /// `R_K = maxᵢ √K(xᵢ, xᵢ)` (for the linear kernel the dataset's `R`).
    pub radius: f64,
    /// `maxᵢ K(xᵢ, xᵢ)`.
    pub max_sq_norm: f64,
    /// `minᵢ √K(xᵢ, xᵢ)`.
    pub min_norm: f64,
    /// Every `‖φ(xᵢ)‖` is 1 to within [`UNIT_NORM_TOL`] (true of every Gaussian kernel).
    pub unit_norm: bool,
    /// Both labels occur.
    pub both_classes: bool,
    /// `γ_K*` through the origin.
    pub through_origin: KernelSolve,
    /// `γ_K*` with a free bias.
    pub free_bias: KernelSolve,
    /// `γ_K*` of `(φ(x), 1)` (the kernel `K + 1`) through the origin.
    pub augmented_one: KernelSolve,
    /// `γ_K*` of `(φ(x), R_K)` (the kernel `K + R_K²`) through the origin.
    pub augmented_radius: KernelSolve,
    cache_bytes: usize,
}

impl<'a> KernelGeometry<'a> {
    /// Measure `data` under `kernel` with the default Gram cache.
    pub fn compute(data: &'a Dataset, kernel: &Kernel) -> Result<KernelGeometry<'a>> {
        Self::compute_with(data, kernel, DEFAULT_CACHE_BYTES)
    }

    /// Measure with a Gram cache of `cache_bytes` (shared by the four problems).
    pub fn compute_with(
        data: &'a Dataset,
        kernel: &Kernel,
        cache_bytes: usize,
    ) -> Result<KernelGeometry<'a>> {
        kernel.check_data(data)?;
        let mut cache = GramCache::new(kernel, data, Summation::Fast, cache_bytes)?;
        let diagonal = cache.diagonal().to_vec();
        let radius = radius_from(kernel, data, &diagonal);
        let max_sq_norm = diagonal.iter().fold(0.0_f64, |m, &k| m.max(k));
        let min_norm = diagonal
            .iter()
            .fold(f64::INFINITY, |m, &k| m.min(k))
            .max(0.0)
            .sqrt();
        let (positives, negatives) = data.class_counts();
        let both_classes = positives > 0 && negatives > 0;
        let mut solve = |bias: Bias, c: f64| {
            KernelSolve::of(
                KernelMarginParams::new(bias)
                    .augment(c)
                    .cache_bytes(cache_bytes)
                    .check()
                    .and_then(|solver| solver.solve_with(data, &mut cache)),
            )
        };
        let through_origin = solve(Bias::ThroughOrigin, 0.0);
        let free_bias = if both_classes {
            solve(Bias::Free, 0.0)
        } else {
            KernelSolve::Failed {
                reason: "only one class is present, so the margin with a free bias is unbounded"
                    .into(),
            }
        };
        let augmented_one = solve(Bias::ThroughOrigin, 1.0);
        let augmented_radius = if radius > 0.0 {
            solve(Bias::ThroughOrigin, radius)
        } else {
            KernelSolve::Failed {
                reason: "R_K = 0: every example is the zero vector of the feature space".into(),
            }
        };
        Ok(KernelGeometry {
            data,
            kernel: kernel.clone(),
            n: data.n_samples(),
            radius,
            max_sq_norm,
            min_norm,
            unit_norm: diagonal
                .iter()
                .all(|&k| (k.sqrt() - 1.0).abs() <= UNIT_NORM_TOL),
            both_classes,
            through_origin,
            free_bias,
            augmented_one,
            augmented_radius,
            cache_bytes,
        })
    }

    /// The dataset measured.
    pub fn data(&self) -> &'a Dataset {
        self.data
    }

    /// `γ_K*` of `(φ(x), c)` through the origin: from the geometry for `c ∈ {0, 1, R_K}`, solved now
    /// otherwise.
    pub fn augmented(&self, c: f64) -> std::borrow::Cow<'_, KernelSolve> {
        use std::borrow::Cow;
        if c == 0.0 {
            Cow::Borrowed(&self.through_origin)
        } else if c == 1.0 {
            Cow::Borrowed(&self.augmented_one)
        } else if c == self.radius {
            Cow::Borrowed(&self.augmented_radius)
        } else {
            Cow::Owned(KernelSolve::of(
                KernelMarginParams::new(Bias::ThroughOrigin)
                    .augment(c)
                    .cache_bytes(self.cache_bytes)
                    .check()
                    .and_then(|solver| solver.solve(self.data, &self.kernel)),
            ))
        }
    }

    /// The feature space as the forms of the theorem read it, for a run with constant `c`.
    pub(crate) fn space(&self, c: f64, run_vectors: &KernelSolve) -> Space {
        Space {
            radius: self.radius,
            max_sq_norm: self.max_sq_norm,
            min_norm: self.min_norm,
            both_classes: self.both_classes,
            origin: self.through_origin.measured("through the origin"),
            free: self.free_bias.measured("with a free bias"),
            run_vectors: run_vectors.measured(&format!("of (φ(x), {c}) through the origin")),
            radius_vectors: self
                .augmented_radius
                .measured(&format!("of (φ(x), {}) through the origin", self.radius)),
        }
    }

    /// A serialisable summary.
    pub fn summary(&self) -> KernelGeometrySummary {
        KernelGeometrySummary {
            kernel: KernelSummary::of(&self.kernel),
            n: self.n,
            radius: self.radius,
            min_norm: self.min_norm,
            unit_norm: self.unit_norm,
            both_classes: self.both_classes,
            through_origin: self.through_origin.summary(),
            free_bias: self.free_bias.summary(),
            augmented_one: self.augmented_one.summary(),
            augmented_radius: self.augmented_radius.summary(),
        }
    }
}

/// The geometry in a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelGeometrySummary {
    /// The kernel.
    pub kernel: KernelSummary,
    /// Number of examples.
    pub n: usize,
    /// `R_K`.
    pub radius: f64,
    /// `minᵢ ‖φ(xᵢ)‖`.
    pub min_norm: f64,
    /// Every `‖φ(xᵢ)‖ = 1`.
    pub unit_norm: bool,
    /// Both labels occur.
    pub both_classes: bool,
    /// `γ_K*` through the origin.
    pub through_origin: KernelSolveSummary,
    /// `γ_K*` with a free bias.
    pub free_bias: KernelSolveSummary,
    /// `γ_K*` of `(φ(x), 1)`.
    pub augmented_one: KernelSolveSummary,
    /// `γ_K*` of `(φ(x), R_K)`.
    pub augmented_radius: KernelSolveSummary,
}
