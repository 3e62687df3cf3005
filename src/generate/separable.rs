//! `separable`: uniform in the ball of radius R, labelled by a random hyperplane, with the slab of half
//! width γ around the hyperplane left empty.

use ndarray::Array1;
use serde::{Deserialize, Serialize};

use super::sampling::{BallCoordinate, Sampler, dot, norm};
use super::{
    Family, Generated, check_finite, check_non_negative, check_positive, check_size, zeros,
};
use crate::detmath::powf;
use crate::error::{Error, Result};

/// Parameters of the `separable` family.
///
/// A random unit vector `u` is drawn first (a normalised Gaussian vector). Each point is then uniform in
/// the ball `‖x‖ ≤ R` restricted to `|u·x + b| ≥ γ`, and labelled `sign(u·x + b)`. So `(u, b)` separates
/// the data with margin `min yᵢ(u·xᵢ + b) ≥ γ` by construction, and every `‖xᵢ‖ ≤ R`.
///
/// **γ is a lower bound**: the maximum margin γ* of the sample is usually larger, because the points do
/// not touch the slab's faces (and another hyperplane may do better than `u`). The theorem's bound
/// `(R/γ)²` computed from the prescribed values is therefore never smaller than the one from γ*.
///
/// **High dimension.** Uniform points in a ball concentrate near `u·x ≈ 0` (standard deviation
/// ≈ R/√d), so rejecting the points inside the slab would almost never accept once γ·√d/R is large. The
/// generator instead samples the coordinate `t = u·x` from its exact marginal restricted to `|t + b| ≥ γ`
/// (a log-concave density, by rejection from a tangent exponential envelope), and the part orthogonal to
/// `u` uniformly in the remaining ball of radius √(R² − t²). The cost is O(d) per point whatever γ.
///
/// **Rounding.** A point is kept only if its activation, summed left to right, clears γ by
/// `4(d + 2)·ε·(R + |b|)` and its squared norm stays below `R²(1 − 4(d + 2)ε)`. These slivers are far
/// below anything measurable, and they make `margin ≥ γ` and `radius ≤ R` hold exactly in floating
/// point, whatever summation order the checker uses.
///
/// **Both classes.** The slab must leave room on both sides: `γ + |b| < R`. If by chance every point
/// falls on one side (possible for a large `|b|`), the last point is redrawn from the other side.
///
/// ```
/// use novikoff::generate::{Family, SeparableParams};
/// let g = SeparableParams::new(100, 3).margin(0.2).radius(2.0).offset(0.5).seed(1).check()?.generate()?;
/// let (u, b) = (g.u.unwrap(), g.b.unwrap());
/// let data = &g.data;
/// let min = (0..100)
///     .map(|i| data.labels()[i] * (data.x().row(i).dot(&u) + b))
///     .fold(f64::INFINITY, f64::min);
/// assert!(min >= 0.2);
/// assert!(data.radius() <= 2.0);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeparableParams {
    /// Number of examples (≥ 2).
    pub n: usize,
    /// Dimension (≥ 1).
    pub d: usize,
    /// The prescribed margin γ ≥ 0 (default 0.1).
    #[serde(default = "default_margin")]
    pub margin: f64,
    /// The radius R > 0 of the ball (default 1).
    #[serde(default = "default_radius")]
    pub radius: f64,
    /// The offset b of the hyperplane `u·x + b = 0` (default 0: through the origin).
    #[serde(default)]
    pub offset: f64,
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

impl SeparableParams {
    /// `n` points in dimension `d`, margin 0.1, radius 1, offset 0, seed 0.
    ///
    /// ```
    /// let p = novikoff::generate::SeparableParams::new(10, 2);
    /// assert_eq!((p.margin, p.radius, p.offset, p.seed), (0.1, 1.0, 0.0, 0));
    /// ```
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            margin: default_margin(),
            radius: default_radius(),
            offset: 0.0,
            seed: 0,
        }
    }

    /// Set the margin γ.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::SeparableParams::new(10, 2).margin(0.3).margin, 0.3);
    /// ```
    #[must_use]
    pub fn margin(mut self, margin: f64) -> Self {
        self.margin = margin;
        self
    }

    /// Set the radius R.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::SeparableParams::new(10, 2).radius(5.0).radius, 5.0);
    /// ```
    #[must_use]
    pub fn radius(mut self, radius: f64) -> Self {
        self.radius = radius;
        self
    }

    /// Set the offset b.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::SeparableParams::new(10, 2).offset(-0.2).offset, -0.2);
    /// ```
    #[must_use]
    pub fn offset(mut self, offset: f64) -> Self {
        self.offset = offset;
        self
    }

    /// Set the seed.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::SeparableParams::new(10, 2).seed(8).seed, 8);
    /// ```
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    pub(super) fn describe(&self) -> String {
        format!(
            "n={} d={} margin={} radius={} offset={} seed={}",
            self.n, self.d, self.margin, self.radius, self.offset, self.seed
        )
    }

    /// The points, labels and `u`, for this family and those built on it.
    pub(super) fn draw(&self) -> Result<(Vec<f64>, Vec<f64>, Vec<f64>)> {
        let (n, d) = (self.n, self.d);
        let (gamma, radius, offset) = (self.margin, self.radius, self.offset);
        let mut sampler = Sampler::new(self.seed);
        let u = sampler.unit_vector(d);
        let coordinate = BallCoordinate::new(d);
        let slab = Slab {
            below: (-offset - gamma) / radius,
            above: (gamma - offset) / radius,
        };
        let rounding = 4.0 * (d as f64 + 2.0) * f64::EPSILON;
        let placer = Placer {
            u: &u,
            radius,
            offset,
            min_activation: gamma + rounding * (radius + offset.abs()),
            max_norm_squared: radius * radius * (1.0 - rounding),
            max_norm: radius * (1.0 - rounding).sqrt(),
        };
        let mut values = zeros(n, d)?;
        let mut labels = vec![0.0; n];
        let mut scratch = vec![0.0; d];
        for (row, label) in values.chunks_exact_mut(d).zip(labels.iter_mut()) {
            *label = placer.place(row, &mut scratch, &mut sampler, |s| {
                coordinate.sample_outside(slab.below, slab.above, s)
            })?;
        }
        let positives = labels.iter().filter(|&&l| l > 0.0).count();
        if positives == 0 || positives == n {
            let last = &mut values[(n - 1) * d..];
            labels[n - 1] = if positives == 0 {
                placer.place(last, &mut scratch, &mut sampler, |s| {
                    coordinate.sample_at_least(slab.above, s)
                })?
            } else {
                placer.place(last, &mut scratch, &mut sampler, |s| {
                    coordinate.sample_at_most(slab.below, s)
                })?
            };
        }
        Ok((values, labels, u))
    }
}

/// The sign of the activation of a point with the given `u`-coordinate is the label.
struct Slab {
    /// Negative side: s ≤ below.
    below: f64,
    /// Positive side: s ≥ above.
    above: f64,
}

struct Placer<'a> {
    u: &'a [f64],
    radius: f64,
    offset: f64,
    min_activation: f64,
    max_norm_squared: f64,
    /// `R·√(1 − rounding)`, for radii whose square is not a normal number.
    max_norm: f64,
}

impl Placer<'_> {
    /// `‖row‖ ≤ R` with the rounding allowance. Squared while `R²` is a normal number (the historical
    /// test, kept so that seeds give the same data); otherwise with the scaled norm, where `R²` would be
    /// `∞` (and pass every row) or subnormal.
    fn fits(&self, row: &[f64]) -> bool {
        if self.max_norm_squared.is_normal() {
            row.iter().fold(0.0, |acc, v| acc + v * v) <= self.max_norm_squared
        } else {
            norm(row) <= self.max_norm
        }
    }

    /// Write one point into `row` and return its label. `draw_s` draws the coordinate along `u` (in units
    /// of R); the orthogonal part is uniform in the (d − 1)-ball of radius √(1 − s²).
    fn place(
        &self,
        row: &mut [f64],
        scratch: &mut [f64],
        sampler: &mut Sampler,
        draw_s: impl Fn(&mut Sampler) -> Result<f64>,
    ) -> Result<f64> {
        let d = row.len();
        for _ in 0..1_000_000 {
            let s = draw_s(sampler)?;
            let across = if d == 1 {
                0.0
            } else {
                ((1.0 - s) * (1.0 + s)).sqrt()
                    * powf(sampler.uniform_open_zero(), 1.0 / (d as f64 - 1.0))
            };
            if d > 1 {
                sampler.normals(scratch);
                let along = dot(scratch, self.u);
                for (v, &uj) in scratch.iter_mut().zip(self.u) {
                    *v -= along * uj;
                }
                let length = norm(scratch);
                if length == 0.0 {
                    continue;
                }
                for v in scratch.iter_mut() {
                    *v /= length;
                }
            }
            for (j, x) in row.iter_mut().enumerate() {
                let orthogonal = if d == 1 { 0.0 } else { across * scratch[j] };
                *x = self.radius * (s * self.u[j] + orthogonal);
            }
            let activation = dot(self.u, row) + self.offset;
            if activation.abs() >= self.min_activation && self.fits(row) {
                return Ok(if activation > 0.0 { 1.0 } else { -1.0 });
            }
        }
        Err(Error::Solver(
            "separable: could not place a point outside the slab; please report this".into(),
        ))
    }
}

impl super::private::Sample for SeparableParams {
    fn validate(&self) -> Result<()> {
        check_size(self.n, self.d, 2)?;
        check_non_negative("margin", self.margin)?;
        check_positive("radius", self.radius)?;
        check_finite("offset", self.offset)?;
        if self.margin + self.offset.abs() >= self.radius {
            return Err(Error::parameter(
                "margin",
                format!(
                    "the slab |u·x + b| < γ leaves no room for one of the classes inside the ball: \
                     need margin + |offset| < radius, got {} + {} ≥ {}",
                    self.margin,
                    self.offset.abs(),
                    self.radius
                ),
            ));
        }
        Ok(())
    }

    fn sample(&self) -> Result<Generated> {
        let (values, labels, u) = self.draw()?;
        Ok(Generated {
            data: super::dataset(values, labels, self.d)?,
            u: Some(Array1::from_vec(u)),
            b: Some(self.offset),
            margin: Some(self.margin),
            radius: Some(self.radius),
            description: format!("separable: {}", self.describe()),
        })
    }
}

impl Family for SeparableParams {
    const NAME: &'static str = "separable";
}

/// `n` points in dimension `d` with margin ≥ `margin` and radius ≤ `radius`, through the origin
/// (offset 0). See [`SeparableParams`].
///
/// ```
/// let g = novikoff::generate::separable(50, 4, 0.1, 1.0, 42)?;
/// assert_eq!((g.data.n_samples(), g.data.n_features()), (50, 4));
/// assert_eq!(g, novikoff::generate::separable(50, 4, 0.1, 1.0, 42)?); // same seed, same bits
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn separable(n: usize, d: usize, margin: f64, radius: f64, seed: u64) -> Result<Generated> {
    SeparableParams::new(n, d)
        .margin(margin)
        .radius(radius)
        .seed(seed)
        .check()?
        .generate()
}
