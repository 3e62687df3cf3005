//! When a hull point counts as a certificate that no separator exists: the thresholds it is measured
//! against, the second try without the exact solve's rounding dust, and the third with every feature
//! brought to one scale.

use ndarray::{Array1, Array2};

use super::Bias;
use super::accurate::{binary_exponent, times_power_of_two};
use super::certificate::{HullPoint, counts, group};
use super::points::Points;
use crate::dataset::Dataset;

#[inline]
/// The largest residual that [`max_margin`](super::max_margin()) and
/// [`separable_lp`](super::separable_lp) accept as a certificate of non-separability:
/// `tolerance · min(R, s)`, with `s` the smallest scale `maxᵢ |xᵢⱼ|` of a feature that is not zero.
///
/// A hull point of length `ε` proves only `γ* ≤ ε`. Against the radius alone, data whose features live on
/// very different scales (say `(x, 1)` with `|x| ≈ 10⁻³⁰⁰`) have separators of margin far below
/// `tolerance·R` along their smallest feature, and a certificate at that level would be false. Measuring
/// the residual against the smallest feature scale as well turns such cases into an honest
/// `Inaccurate`, at no cost to well-scaled data.
pub(crate) fn certificate_threshold(data: Points<'_>, tolerance: f64) -> f64 {
    let smallest_scale = column_scales(data)
        .into_iter()
        .filter(|&scale| scale > 0.0)
        .fold(f64::INFINITY, f64::min);
    tolerance * data.radius().min(smallest_scale)
}

/// Each feature's scale, `maxᵢ |xᵢⱼ|` (the augmented points' constant included).
fn column_scales(data: Points<'_>) -> Vec<f64> {
    let mut scales = vec![0.0f64; data.n_features()];
    for i in 0..data.n_samples() {
        for (j, v) in data.row(i).entries() {
            scales[j] = scales[j].max(v.abs());
        }
    }
    scales
}

/// Weights below this fraction of their group's largest are rounding dust when a certificate is
/// refused with them: an exact optimum leaves such rows out.
const DUST: f64 = 1e-9;

/// The hull point of the weights `raw` (one a row) if it proves that no separator exists
/// ([`HullPoint::certifies`]); failing that, the point of `raw` without its dust (weights below
/// [`DUST`] of their group's largest), if that one does; failing both, the point of `raw` when the
/// smallest feature's scale set `threshold` and the weights certify with the features normalised
/// ([`certifies_with_features_normalised`]). Rounding in the exact solve can leave
/// weights of 10⁻¹⁵ on rows of length `R` beside the zero rows that alone make data inseparable
/// through the origin, and those few make a point whose length is all theirs. `Err` holds the point of
/// `raw` itself, for the reason it was refused (`None` when a group has no weight).
pub(crate) fn certificate_point(
    data: Points<'_>,
    bias: Bias,
    raw: &[f64],
    threshold: f64,
    tolerance: f64,
) -> Result<HullPoint, Option<HullPoint>> {
    let hull = HullPoint::evaluate(data, bias, raw);
    if let Some(hull) = hull.as_ref().filter(|h| h.certifies(threshold, tolerance)) {
        return Ok(hull.clone());
    }
    let pruned = without_dust(raw, data.labels(), bias);
    if pruned.iter().zip(raw).any(|(p, r)| p != r)
        && let Some(clean) = HullPoint::evaluate(data, bias, &pruned)
        && clean.certifies(threshold, tolerance)
    {
        return Ok(clean);
    }
    if let Some(hull) = hull.as_ref()
        && threshold < tolerance * data.radius()
        && certifies_with_features_normalised(data, bias, raw, tolerance)
    {
        return Ok(hull.clone());
    }
    Err(hull)
}

/// The most values the rows of a certificate may take when they are copied with their features
/// normalised.
const NORMALISED_VALUES: usize = 1 << 22;

/// Whether the weights `raw` certify that no separator exists once every feature is brought to the
/// same scale: each column multiplied by the power of two that puts its largest value in `[½, 1)`.
///
/// A separator of the normalised rows, its `w` scaled back by the same powers of two, separates the
/// rows themselves, so separability is the same question in either; the rounding of a hull point's
/// length is not.
/// On features of scales 10⁻³ to 10³ it is about `u` times the largest feature, while a certificate
/// must be below `tolerance` times the smallest ([`certificate_threshold`]) when that is all it is
/// measured against, which data in which the two are 10⁸ apart cannot reach. Normalised, every
/// feature's scale is at least ½, so the threshold is `tolerance/2`, and the length bound, evaluated
/// on the copy as on any data, is measured against it and against the normalised rows' mean length
/// ([`HullPoint::certifies`]). The copy is exact: a power of two rounds nothing unless a value leaves
/// the normal range, and then this gives no certificate. Only the weighted rows are copied, dense, and
/// only while they are at most [`NORMALISED_VALUES`] values.
fn certifies_with_features_normalised(
    data: Points<'_>,
    bias: Bias,
    raw: &[f64],
    tolerance: f64,
) -> bool {
    let rows: Vec<usize> = (0..raw.len()).filter(|&i| counts(raw[i])).collect();
    let d = data.n_features();
    if rows.is_empty() || rows.len().saturating_mul(d) > NORMALISED_VALUES {
        return false;
    }
    let factors: Vec<f64> = column_scales(data)
        .into_iter()
        .map(|scale| {
            if scale > 0.0 {
                times_power_of_two(1.0, -binary_exponent(scale) - 1)
            } else {
                1.0
            }
        })
        .collect();
    let mut x = Array2::zeros((rows.len(), d));
    for (k, &i) in rows.iter().enumerate() {
        for (j, v) in data.row(i).entries() {
            let scaled = v * factors[j];
            if !(scaled == 0.0 || scaled.is_normal()) || scaled / factors[j] != v {
                return false;
            }
            x[[k, j]] = scaled;
        }
    }
    let labels: Array1<f64> = rows.iter().map(|&i| data.labels()[i]).collect();
    let Ok(normalised) = Dataset::new(x, labels) else {
        return false;
    };
    let weights: Vec<f64> = rows.iter().map(|&i| raw[i]).collect();
    HullPoint::evaluate(Points::from(&normalised), bias, &weights)
        .is_some_and(|point| point.certifies(0.5 * tolerance, tolerance))
}

/// `weights` (one a row, with its label in `labels`) without their dust: zero where a weight is not
/// positive and finite or is below [`DUST`] of its group's largest. The kernel solver's certificates
/// use it too.
pub(crate) fn without_dust(weights: &[f64], labels: &[f64], bias: Bias) -> Vec<f64> {
    let mut largest = [0.0f64; 2];
    for (&c, &y) in weights.iter().zip(labels) {
        if counts(c) {
            let g = group(bias, y);
            largest[g] = largest[g].max(c);
        }
    }
    weights
        .iter()
        .zip(labels)
        .map(|(&c, &y)| {
            if counts(c) && c >= DUST * largest[group(bias, y)] {
                c
            } else {
                0.0
            }
        })
        .collect()
}
