//! `anisotropic`: separable data with features on very different scales.

use ndarray::Array1;
use serde::{Deserialize, Serialize};

use super::sampling::{dot, norm};
use super::{Family, Generated, SeparableParams, check_finite};
use crate::detmath::powf;
use crate::error::{Error, Result};

/// Parameters of the `anisotropic` family: a [`SeparableParams`] dataset (same points for the same seed)
/// with feature j multiplied by `ratio^{j/(d−1)}`, a geometric range of factors from 1 to `ratio`.
///
/// Scaling by the diagonal matrix S keeps the data separable, by `w = S⁻¹u` and the same offset, but
/// changes both quantities of the theorem: R grows by up to `ratio`, and the margin of the mapped
/// separator shrinks to `γ/‖S⁻¹u‖`. The returned `u`, `b`, `margin` and `radius` are that unit
/// separator `S⁻¹u/‖S⁻¹u‖`, the offset `b/‖S⁻¹u‖`, its margin `γ/‖S⁻¹u‖` (lowered by a rounding
/// allowance of `8(d + 2)·ε·(R + |b|)/‖S⁻¹u‖`) and the bound `R·ratio`. The description states how much
/// `R/γ` grew. This is the raw-feature-scale effect that standardising (see `preprocess`) removes.
///
/// ```
/// use novikoff::generate::{AnisotropicParams, Family};
/// let g = AnisotropicParams::new(100, 4).ratio(1000.0).seed(2).check()?.generate()?;
/// let (u, b, gamma) = (g.u.unwrap(), g.b.unwrap(), g.margin.unwrap());
/// let min = (0..100)
///     .map(|i| g.data.labels()[i] * (g.data.x().row(i).dot(&u) + b))
///     .fold(f64::INFINITY, f64::min);
/// assert!(min >= gamma);
/// assert!(g.data.radius() <= g.radius.unwrap());
/// assert!(g.radius.unwrap() / gamma > 1.0 / 0.1); // R/γ was 10 before scaling
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnisotropicParams {
    /// Number of examples (≥ 2).
    pub n: usize,
    /// Dimension (≥ 1).
    pub d: usize,
    /// The margin γ before scaling (default 0.1).
    #[serde(default = "default_margin")]
    pub margin: f64,
    /// The radius R before scaling (default 1).
    #[serde(default = "default_radius")]
    pub radius: f64,
    /// The offset b (default 0).
    #[serde(default)]
    pub offset: f64,
    /// The largest scale factor (≥ 1, default 100); the smallest is 1.
    #[serde(default = "default_ratio")]
    pub ratio: f64,
    /// The seed (default 0).
    #[serde(default = "super::default_seed")]
    pub seed: u64,
}

fn default_margin() -> f64 {
    0.1
}
fn default_radius() -> f64 {
    1.0
}
fn default_ratio() -> f64 {
    100.0
}

impl AnisotropicParams {
    /// `n` points in dimension `d`, margin 0.1, radius 1, offset 0, ratio 100, seed 0.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::AnisotropicParams::new(10, 3).ratio, 100.0);
    /// ```
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            margin: default_margin(),
            radius: default_radius(),
            offset: 0.0,
            ratio: default_ratio(),
            seed: 0,
        }
    }

    /// Set the margin before scaling.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::AnisotropicParams::new(10, 3).margin(0.2).margin, 0.2);
    /// ```
    #[must_use]
    pub fn margin(mut self, margin: f64) -> Self {
        self.margin = margin;
        self
    }

    /// Set the radius before scaling.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::AnisotropicParams::new(10, 3).radius(2.0).radius, 2.0);
    /// ```
    #[must_use]
    pub fn radius(mut self, radius: f64) -> Self {
        self.radius = radius;
        self
    }

    /// Set the offset.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::AnisotropicParams::new(10, 3).offset(0.1).offset, 0.1);
    /// ```
    #[must_use]
    pub fn offset(mut self, offset: f64) -> Self {
        self.offset = offset;
        self
    }

    /// Set the largest scale factor.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::AnisotropicParams::new(10, 3).ratio(10.0).ratio, 10.0);
    /// ```
    #[must_use]
    pub fn ratio(mut self, ratio: f64) -> Self {
        self.ratio = ratio;
        self
    }

    /// Set the seed.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::AnisotropicParams::new(10, 3).seed(1).seed, 1);
    /// ```
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    fn base(&self) -> SeparableParams {
        SeparableParams::new(self.n, self.d)
            .margin(self.margin)
            .radius(self.radius)
            .offset(self.offset)
            .seed(self.seed)
    }

    /// The factors `ratio^{j/(d−1)}`, j = 0..d.
    fn scales(&self) -> Vec<f64> {
        let d = self.d;
        (0..d)
            .map(|j| {
                if j == 0 {
                    1.0
                } else if j == d - 1 {
                    self.ratio
                } else {
                    powf(self.ratio, j as f64 / (d as f64 - 1.0))
                }
            })
            .collect()
    }
}

impl super::private::Sample for AnisotropicParams {
    fn validate(&self) -> Result<()> {
        super::private::Sample::validate(&self.base())?;
        check_finite("ratio", self.ratio)?;
        if self.ratio < 1.0 {
            return Err(Error::parameter(
                "ratio",
                format!("must be ≥ 1, got {}", self.ratio),
            ));
        }
        Ok(())
    }

    fn sample(&self) -> Result<Generated> {
        let d = self.d;
        let (mut values, labels, u) = self.base().draw()?;
        let scales = self.scales();
        for row in values.chunks_exact_mut(d) {
            for (x, s) in row.iter_mut().zip(&scales) {
                *x *= s;
            }
        }
        let w: Vec<f64> = u.iter().zip(&scales).map(|(uj, s)| uj / s).collect();
        let length = norm(&w);
        let mapped: Vec<f64> = w.iter().map(|v| v / length).collect();
        let b = self.offset / length;
        let allowance = 8.0 * (d as f64 + 2.0) * f64::EPSILON * (self.radius + self.offset.abs());
        let margin = (self.margin - allowance).max(0.0) / length;
        let max_scale = scales.iter().copied().fold(1.0, f64::max);
        let radius = self.radius * max_scale;
        // The allowances cover rounding in any summation order; verify them in ours.
        for (row, &y) in values.chunks_exact(d).zip(&labels) {
            let activation = y * (dot(&mapped, row) + b);
            if activation < margin || norm(row) > radius {
                return Err(Error::Solver(format!(
                    "anisotropic: a rounding allowance was too small (activation {activation}, \
                     margin {margin}); please report this"
                )));
            }
        }
        Ok(Generated {
            data: super::dataset(values, labels, d)?,
            u: Some(Array1::from_vec(mapped)),
            b: Some(b),
            margin: Some(margin),
            radius: Some(radius),
            description: format!(
                "anisotropic: {} ratio={} (R/γ bound {} before scaling, {} after)",
                self.base().describe(),
                self.ratio,
                self.radius / self.margin,
                radius / margin
            ),
        })
    }
}

impl Family for AnisotropicParams {
    const NAME: &'static str = "anisotropic";
}

/// `separable(n, d, margin, 1.0, seed)` with features scaled from 1 to `ratio`. See
/// [`AnisotropicParams`].
///
/// ```
/// let g = novikoff::generate::anisotropic(30, 3, 0.1, 50.0, 0)?;
/// assert_eq!(g.radius, Some(50.0));
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn anisotropic(n: usize, d: usize, margin: f64, ratio: f64, seed: u64) -> Result<Generated> {
    AnisotropicParams::new(n, d)
        .margin(margin)
        .ratio(ratio)
        .seed(seed)
        .check()?
        .generate()
}
