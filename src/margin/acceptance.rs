//! When a hull point counts as a certificate that no separator exists: the thresholds it is measured
//! against, and the second try without the exact solve's rounding dust.

use super::Bias;
use super::certificate::{HullPoint, counts, group};
use super::points::Points;

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
    let mut column_scales = vec![0.0f64; data.n_features()];
    for i in 0..data.n_samples() {
        for (j, v) in data.row(i).entries() {
            column_scales[j] = column_scales[j].max(v.abs());
        }
    }
    let smallest_scale = column_scales
        .into_iter()
        .filter(|&scale| scale > 0.0)
        .fold(f64::INFINITY, f64::min);
    tolerance * data.radius().min(smallest_scale)
}

/// Weights below this fraction of their group's largest are rounding dust when a certificate is
/// refused with them: an exact optimum leaves such rows out.
const DUST: f64 = 1e-9;

/// The hull point of the weights `raw` (one a row) if it proves that no separator exists
/// ([`HullPoint::certifies`]); failing that, the point of `raw` without its dust (weights below
/// [`DUST`] of their group's largest), if that one does. Rounding in the exact solve can leave
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
    Err(hull)
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
