//! The maximum margin in the feature space, `γ_K*`, with a certified bracket or a certificate.
//!
//! The problem is solved in its dual, nearest-point form ([`smo`]), which reads the Gram matrix only,
//! and the answer is then certified directly with the kernel ([`certify`]): a lower bound from the
//! separator the weights define and an upper bound from their hull point, both evaluated in interval
//! arithmetic around the exact kernel values. A bias rule `c` is the problem of the augmented kernel
//! `K̂ = K + c²` through the origin ([`KernelMarginParams::augment`]).

mod certify;
mod result;
mod smo;

use std::time::Instant;

pub use result::{DualSeparator, KernelCertificate, KernelMarginResult, KernelSolveStats};

use super::cache::{DEFAULT_CACHE_BYTES, GramCache};
use super::eval::OnData;
use super::function::Kernel;
use super::run::radius_from;
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::margin::Bias;
use crate::simd::Summation;
use certify::{evaluate, group_of};

/// Unvalidated parameters of the kernel maximum margin.
///
/// | parameter | default | meaning |
/// |---|---|---|
/// | `bias` | (required) | [`Bias::Free`] or [`Bias::ThroughOrigin`] |
/// | `augment` | 0 | the constant `c` of the kernel `K + c²` (a bias rule's vectors `(φ(x), c)`) |
/// | `tolerance` | `1e-6` | the largest relative bracket width reported as `Separable` |
/// | `certificate_tolerance` | `1e-6` | the largest certificate residual, relative to `R̂_K` and to the mean length in the feature space of the rows it mixes |
/// | `max_iterations` | `200·n + 10⁶` | pair updates of the solver |
/// | `time_limit` | none | seconds |
/// | `cache_bytes` | [`DEFAULT_CACHE_BYTES`] | the Gram cache's budget |
///
/// The solver aims at a bracket a thousand times narrower than `tolerance` (and at most `10⁻⁹`).
///
/// A point of the hulls is known only through its squared length `λᵀQλ`, a sum of kernel values each
/// known to a few units in the last place, so its length is known to about `√ε·R̂_K ≈ 1.5·10⁻⁸·R̂_K`
/// (ε = 2⁻⁵³): the coordinates the linear solver sums do not exist here. That is why the certificate
/// tolerance is `10⁻⁶`, not the linear solver's `10⁻⁹`, and why a margin below about `10⁻⁷·R̂_K` is
/// reported `Inaccurate` with its rigorous bracket rather than `Separable`.
///
/// ```
/// use ndarray::array;
/// use novikoff::{kernel::{Gamma, KernelMarginParams, KernelParams}, margin::Bias, Dataset};
/// let data = Dataset::new(array![[0.0], [1.0], [2.0]], array![1.0, -1.0, 1.0])?;
/// let rbf = KernelParams::rbf().gamma(Gamma::Value(1.0)).check()?;
/// let result = KernelMarginParams::new(Bias::Free).check()?.solve(&data, &rbf)?;
/// let (lower, upper) = result.bracket().unwrap();
/// assert!(0.0 < lower && upper - lower <= 1e-6 * upper);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct KernelMarginParams {
    bias: Bias,
    augment: f64,
    tolerance: f64,
    certificate_tolerance: f64,
    max_iterations: Option<u64>,
    time_limit: Option<f64>,
    cache_bytes: usize,
}

impl KernelMarginParams {
    /// The defaults above.
    pub fn new(bias: Bias) -> Self {
        Self {
            bias,
            augment: 0.0,
            tolerance: 1e-6,
            certificate_tolerance: 1e-6,
            max_iterations: None,
            time_limit: None,
            cache_bytes: DEFAULT_CACHE_BYTES,
        }
    }

    /// Solve for the kernel `K + c²` (the vectors `(φ(x), c)`).
    #[must_use]
    pub fn augment(mut self, c: f64) -> Self {
        self.augment = c;
        self
    }

    /// Set the relative bracket tolerance (in `(0, 1)`).
    #[must_use]
    pub fn tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Set the certificate tolerance (relative to `R̂_K`, in `(0, 1)`).
    #[must_use]
    pub fn certificate_tolerance(mut self, tolerance: f64) -> Self {
        self.certificate_tolerance = tolerance;
        self
    }

    /// Cap the solver's pair updates.
    #[must_use]
    pub fn max_iterations(mut self, cap: u64) -> Self {
        self.max_iterations = Some(cap);
        self
    }

    /// Stop the solver after this many seconds.
    #[must_use]
    pub fn time_limit(mut self, seconds: f64) -> Self {
        self.time_limit = Some(seconds);
        self
    }

    /// Set the Gram cache's budget in bytes.
    #[must_use]
    pub fn cache_bytes(mut self, bytes: usize) -> Self {
        self.cache_bytes = bytes;
        self
    }

    /// Validate.
    ///
    /// ```
    /// use novikoff::{kernel::KernelMarginParams, margin::Bias};
    /// assert!(KernelMarginParams::new(Bias::Free).tolerance(0.0).check().is_err());
    /// assert!(KernelMarginParams::new(Bias::Free).augment(f64::NAN).check().is_err());
    /// ```
    pub fn check(self) -> Result<KernelMaxMargin> {
        let in_unit = |name: &'static str, v: f64| {
            if v.is_finite() && v > 0.0 && v < 1.0 {
                Ok(())
            } else {
                Err(Error::parameter(
                    name,
                    format!("must lie strictly between 0 and 1, got {v}"),
                ))
            }
        };
        in_unit("tolerance", self.tolerance)?;
        in_unit("certificate_tolerance", self.certificate_tolerance)?;
        if !self.augment.is_finite() {
            return Err(Error::parameter(
                "augment",
                format!("the constant c = {} is not finite", self.augment),
            ));
        }
        if let Some(t) = self.time_limit
            && !(t.is_finite() && t > 0.0)
        {
            return Err(Error::parameter(
                "time_limit",
                format!("must be positive, got {t}"),
            ));
        }
        if self.max_iterations == Some(0) {
            return Err(Error::parameter("max_iterations", "must be at least 1"));
        }
        Ok(KernelMaxMargin { params: self })
    }
}

/// A validated kernel maximum-margin solver. Made by [`KernelMarginParams::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct KernelMaxMargin {
    params: KernelMarginParams,
}

/// The maximum margin `γ_K*` of `data` in the feature space of `kernel`, with the default settings.
///
/// ```
/// use ndarray::array;
/// use novikoff::{kernel::{max_margin, Gamma, KernelParams}, margin::Bias, Dataset};
/// // XOR is separable under (x·z + 1)²: through the origin of that feature space, even.
/// let xor = Dataset::new(array![[0., 0.], [0., 1.], [1., 0.], [1., 1.]], array![1., -1., -1., 1.])?;
/// let poly = KernelParams::polynomial(2).coef0(1.0).gamma(Gamma::Value(1.0)).check()?;
/// let result = max_margin(&xor, &poly, Bias::ThroughOrigin)?;
/// assert!(result.is_separable());
/// let linear = max_margin(&xor, &novikoff::kernel::Kernel::linear(), Bias::Free)?;
/// assert!(linear.certificate().is_some());
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// [`Error::SingleClass`] with a free bias and one class; [`Error::Parameter`] for a Gram matrix that is
/// found not positive semi-definite.
pub fn max_margin(data: &Dataset, kernel: &Kernel, bias: Bias) -> Result<KernelMarginResult> {
    KernelMarginParams::new(bias).check()?.solve(data, kernel)
}

impl KernelMaxMargin {
    /// The validated parameters' bias.
    pub fn bias(&self) -> Bias {
        self.params.bias
    }

    /// Solve on `data` with `kernel`.
    pub fn solve(&self, data: &Dataset, kernel: &Kernel) -> Result<KernelMarginResult> {
        let mut cache = GramCache::new(kernel, data, Summation::Fast, self.params.cache_bytes)?;
        self.solve_with(data, &mut cache)
    }

    /// Solve with a Gram cache already built for `data` (shared between problems on the same data).
    pub fn solve_with<'a>(
        &self,
        data: &'a Dataset,
        cache: &mut GramCache<'a>,
    ) -> Result<KernelMarginResult> {
        let p = &self.params;
        let started = Instant::now();
        if p.bias == Bias::Free {
            data.require_both_classes()?;
        }
        let labels = data.labels();
        let on = cache.on();
        let c = p.augment;
        let radius_sq = {
            let r = radius_from(on.kernel, data, cache.diagonal());
            r * r + c * c
        };
        let threshold = p.certificate_tolerance * radius_sq.sqrt();
        let misses_before = cache.stats().misses;
        let full_gram = cache.form_full();
        let groups = if p.bias == Bias::Free { 2 } else { 1 };
        let n = data.n_samples();
        let mut problem = smo::Problem {
            cache,
            labels,
            group: labels.iter().map(|&y| group_of(p.bias, y)).collect(),
            groups,
            c_sq: c * c,
        };
        let solution = problem.solve(smo::Limits {
            relative: (p.tolerance * 1e-3).min(1e-9),
            absolute_value: 0.25 * threshold * threshold,
            max_iterations: p.max_iterations.unwrap_or(200 * n as u64 + 1_000_000),
            time_limit: p.time_limit,
        })?;
        let rows_computed = problem.cache.stats().misses - misses_before;
        let certify_started = Instant::now();
        let evaluation = evaluate(on, p.bias, c, &solution.lambda)?;
        let support: Vec<usize> = (0..n).filter(|&j| solution.lambda[j] > 0.0).collect();
        let stats = KernelSolveStats {
            iterations: solution.iterations,
            support: support.len(),
            rows_computed,
            full_gram,
            seconds: started.elapsed().as_secs_f64(),
            certify_seconds: certify_started.elapsed().as_secs_f64(),
        };
        let upper = match p.bias {
            Bias::Free => (0.5 * evaluation.hull_length).next_up(),
            Bias::ThroughOrigin => evaluation.hull_length,
        };
        if let Some(weights) =
            origin_certificate(data, cache.diagonal(), p.bias, c, &solution.lambda)
        {
            return Ok(KernelMarginResult::NotSeparable {
                certificate: KernelCertificate {
                    bias: p.bias,
                    augment: c,
                    weights: weights.into(),
                    residual: 0.0,
                },
                stats,
            });
        }
        // As for the linear solver's certificates (`HullPoint::certifies`): a point far below `R` but
        // not below the rows it mixes (rows of 10⁻¹⁵⁰ among rows of 10¹⁵⁰) proves only their size.
        let mixed_length =
            mixed_length_lower(cache.diagonal(), labels, p.bias, c, &solution.lambda);
        if evaluation.hull_length <= threshold
            && evaluation.hull_length <= p.certificate_tolerance * mixed_length
            && evaluation.lower <= 0.0
        {
            let mut weights = solution.lambda.clone();
            let mut totals = [0.0; 2];
            for (w, &y) in weights.iter().zip(labels) {
                totals[group_of(p.bias, y)] += *w;
            }
            for (w, &y) in weights.iter_mut().zip(labels) {
                *w /= totals[group_of(p.bias, y)];
            }
            return Ok(KernelMarginResult::NotSeparable {
                certificate: KernelCertificate {
                    bias: p.bias,
                    augment: c,
                    weights: weights.into(),
                    residual: evaluation.hull_length,
                },
                stats,
            });
        }
        let lower = evaluation.lower;
        let norm = evaluation.norm_sq.mid().max(f64::MIN_POSITIVE).sqrt();
        let separator = DualSeparator {
            coef: solution
                .lambda
                .iter()
                .zip(labels)
                .map(|(l, y)| l * y / norm)
                .collect(),
            b: evaluation.b / norm,
            scores: evaluation.scores.iter().map(|s| s.mid() / norm).collect(),
            margins_lower: evaluation.margins_lower,
        };
        let gamma = if lower > 0.0 {
            0.5 * (lower + upper)
        } else {
            0.5 * (lower.max(0.0) + upper)
        };
        let accurate = lower > 0.0 && upper - lower <= p.tolerance * upper && upper.is_finite();
        if accurate {
            return Ok(KernelMarginResult::Separable {
                gamma,
                bracket: (lower, upper.max(lower)),
                separator,
                support,
                stats,
            });
        }
        let reason = solution.stopped.unwrap_or_else(|| {
            format!(
                "the certified bracket [{lower:e}, {upper:e}] is wider than the tolerance {}",
                p.tolerance
            )
        });
        Ok(KernelMarginResult::Inaccurate {
            gamma,
            bracket: (lower.min(upper), upper),
            separator,
            reason,
            stats,
        })
    }
}

impl KernelCertificate {
    /// Check the certificate on `data` with `kernel`: one weight per row, each finite and non-negative,
    /// each group summing to 1 (within 10⁻⁹), and the residual, recomputed rigorously, exactly zero or
    /// at most both `tolerance·R̂_K`, with `R̂_K² = R_K² + c²`, and `tolerance` times the mean length in
    /// the feature space of the rows it mixes, as the solver accepts it. The second condition refuses
    /// a mix of rows far shorter than the rest, which is short whatever their directions.
    ///
    /// # Errors
    /// [`Error::Parameter`] for a Gram matrix found not positive semi-definite.
    pub fn verify(&self, data: &Dataset, kernel: &Kernel, tolerance: f64) -> Result<bool> {
        let labels = data.labels();
        if self.weights.len() != data.n_samples()
            || !self.weights.iter().all(|w| w.is_finite() && *w >= 0.0)
            || !(tolerance.is_finite() && tolerance >= 0.0)
        {
            return Ok(false);
        }
        let mut totals = [0.0; 2];
        for (w, &y) in self.weights.iter().zip(labels) {
            totals[group_of(self.bias, y)] += w;
        }
        let groups = if self.bias == Bias::Free { 2 } else { 1 };
        if totals[..groups].iter().any(|t| (t - 1.0).abs() > 1e-9) {
            return Ok(false);
        }
        kernel.check_data(data)?;
        let on = OnData::new(kernel, data, Summation::Fast);
        let diagonal = on.diagonal();
        let radius = radius_from(kernel, data, &diagonal);
        let scale = (radius * radius + self.augment * self.augment).sqrt();
        let weights = self.weights.as_slice().expect("contiguous weights");
        let residual = certify::hull_length(on, self.bias, self.augment, weights)?;
        let mixed_length = mixed_length_lower(&diagonal, labels, self.bias, self.augment, weights);
        Ok(residual == 0.0
            || (residual <= tolerance * scale && residual <= tolerance * mixed_length))
    }
}

/// Rigorous lower bounds on the unit margins `yᵢ·w·φ̂(xᵢ)/‖w‖` of `w = Σⱼ λⱼyⱼφ̂(xⱼ)` on the kernel
/// `K + c²`, and `‖w‖`; `None` when `w` is zero.
pub(crate) fn unit_margins(
    on: OnData<'_>,
    c: f64,
    lambda: &[f64],
) -> Result<Option<(Vec<f64>, f64)>> {
    let evaluation = evaluate(on, Bias::ThroughOrigin, c, lambda)?;
    let length = evaluation.norm_sq.mid().max(0.0).sqrt();
    Ok((evaluation.norm_sq.lo > 0.0 && length.is_finite())
        .then_some((evaluation.margins_lower, length)))
}

/// A lower bound on the mean length in the feature space of the rows that `lambda` weighs,
/// `Σᵢ λᵢ·√(K(xᵢ, xᵢ) + c²)` with each group's weights divided by its total. The diagonal is the
/// kernel's plain evaluation, within `p·(d + 4)·u` of exact for a kernel of degree `p` (RBF's is 1
/// exactly); the factor `1 − 10⁻⁶` covers that and the sums' rounding for any `p·d` below 10⁹.
fn mixed_length_lower(diagonal: &[f64], labels: &[f64], bias: Bias, c: f64, lambda: &[f64]) -> f64 {
    let mut sums = [0.0; 2];
    let mut totals = [0.0; 2];
    for ((&l, &k), &y) in lambda.iter().zip(diagonal).zip(labels) {
        if l > 0.0 {
            let g = group_of(bias, y);
            sums[g] += l * (k.max(0.0) + c * c).sqrt();
            totals[g] += l;
        }
    }
    let lower: f64 = sums
        .iter()
        .zip(&totals)
        .filter(|&(_, &total)| total > 0.0)
        .map(|(&sum, &total)| sum / total)
        .sum();
    lower * (1.0 - 1e-6)
}

/// The weights of `lambda` without their dust ([`crate::margin::without_dust`]), normalised per
/// group, when they fall only on rows that the kernel maps to the origin of its feature space: rows
/// that are exactly zero, with `K(0, 0) = 0` (computed exactly, from zeros) and no augmentation. Their
/// point is then exactly the origin, although its computed length keeps an underflow floor that no
/// relative threshold accepts; the exact solve may leave weights of 10⁻¹⁵ on other rows beside them.
fn origin_certificate(
    data: &Dataset,
    diagonal: &[f64],
    bias: Bias,
    c: f64,
    lambda: &[f64],
) -> Option<Vec<f64>> {
    if c != 0.0 {
        return None;
    }
    let labels = data.labels();
    let mut kept = crate::margin::without_dust(lambda, labels, bias);
    let groups = if bias == Bias::Free { 2 } else { 1 };
    let mut totals = [0.0; 2];
    for (i, &k) in kept.iter().enumerate().filter(|&(_, &k)| k > 0.0) {
        if diagonal[i] != 0.0 || data.row_view(i).entries().any(|(_, x)| x != 0.0) {
            return None;
        }
        totals[group_of(bias, labels[i])] += k;
    }
    if totals[..groups].iter().any(|&t| t <= 0.0) {
        return None;
    }
    for (k, &y) in kept.iter_mut().zip(labels) {
        *k /= totals[group_of(bias, y)];
    }
    Some(kept)
}
