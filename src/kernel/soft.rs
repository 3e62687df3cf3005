//! Comparator directions for Freund and Schapire's bound in the feature space: soft-margin solutions.
//!
//! On data that are not separable in the feature space the bound still holds for any unit `u` and
//! `γ > 0`, trading the deviations `max(0, γ − yᵢu·φ̂(xᵢ))` against `γ`. As in the linear case
//! ([`crate::bounds::Comparator`]), good directions lie on the soft-margin path: the dual of the L1-loss
//! support vector machine through the origin, `min ½αᵀQα − Σαᵢ` over `0 ≤ αᵢ ≤ C` with `Qᵢⱼ = yᵢyⱼK̂ᵢⱼ`,
//! solved by dual coordinate descent (Hsieh et al. 2008) with the kernel's rows. A direction that is
//! not optimal only gives a looser bound: its margins are certified before the bound reads them.

use super::cache::GramCache;
use super::margin::unit_margins;
use crate::bounds::feature_space::SpaceCandidate;
use crate::error::Result;
use crate::rng;

/// Soft-margin directions are searched only up to this many examples (each costs O(n²) per pass).
pub(crate) const SOFT_MAX_ROWS: usize = 2000;
/// Passes of coordinate descent per value of `C`.
const PASSES: usize = 30;
/// `C·R̂²` on the grid.
const C_GRID: [f64; 4] = [0.01, 0.1, 1.0, 10.0];

/// The soft-margin candidates of the kernel `K + c²` through the origin.
pub(crate) fn candidates(cache: &mut GramCache<'_>, c: f64) -> Result<Vec<SpaceCandidate>> {
    let n = cache.n();
    if n > SOFT_MAX_ROWS {
        return Ok(Vec::new());
    }
    cache.form_full();
    let on = cache.on();
    let labels = on.data.labels();
    let c_sq = c * c;
    let diag: Vec<f64> = cache.diagonal().iter().map(|k| k + c_sq).collect();
    let radius_sq = diag.iter().fold(0.0_f64, |m, &d| m.max(d));
    if !(radius_sq > 0.0 && radius_sq.is_finite()) {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    for &scaled in &C_GRID {
        let bound = scaled / radius_sq;
        let mut alpha = vec![0.0; n];
        // (Qα)ᵢ, kept up to date.
        let mut q_alpha = vec![0.0; n];
        let mut order: Vec<usize> = (0..n).collect();
        let mut stream = rng::from_seed(0x50F7_u64 ^ scaled.to_bits());
        for _ in 0..PASSES {
            rng::shuffle(&mut stream, &mut order);
            let mut largest_step = 0.0_f64;
            for &i in &order {
                if diag[i] <= 0.0 {
                    continue;
                }
                let gradient = q_alpha[i] - 1.0;
                let next = (alpha[i] - gradient / diag[i]).clamp(0.0, bound);
                let delta = next - alpha[i];
                if delta == 0.0 {
                    continue;
                }
                alpha[i] = next;
                largest_step = largest_step.max(delta.abs() / bound);
                let yi = labels[i];
                let row = cache.row(i);
                for (k, q) in q_alpha.iter_mut().enumerate() {
                    *q += delta * yi * labels[k] * (row[k] + c_sq);
                }
            }
            if largest_step < 1e-4 {
                break;
            }
        }
        if alpha.iter().all(|&a| a == 0.0) {
            continue;
        }
        if let Some((margins, length)) = unit_margins(on, c, &alpha)? {
            found.push(SpaceCandidate {
                origin: format!("soft margin (L1 loss, C = {scaled}/R̂²) in the feature space"),
                margins,
                natural_length: length,
            });
        }
    }
    Ok(found)
}
