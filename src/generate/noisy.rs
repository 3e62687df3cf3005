//! `noisy`: the `separable` family with a fraction of the labels flipped.

use ndarray::Array1;
use serde::{Deserialize, Serialize};

use super::sampling::Sampler;
use super::{Family, Generated, SeparableParams, check_finite};
use crate::error::{Error, Result};

/// Parameters of the `noisy` family: a [`SeparableParams`] dataset (same points for the same seed), then
/// exactly `round(flip·n)` labels, chosen uniformly at random, flipped.
///
/// A flipped point lies at distance ≥ γ on the wrong side of `u`'s hyperplane, so `(u, b)` no longer
/// separates the data and [`Generated::margin`] is `None`. The data is then usually not linearly
/// separable at all (check with the margin module), and the perceptron does not converge on it: this is
/// the family for the theorem's hypothesis failing. The flipped rows are drawn from a stream derived from
/// the seed (`rng::derive_seed(seed, "noisy/flip")`), and redrawn in the rare case that a class would
/// vanish.
///
/// ```
/// use novikoff::generate::{Family, NoisyParams, SeparableParams};
/// let noisy = NoisyParams::new(40, 2).flip(0.25).seed(3).check()?.generate()?;
/// let clean = SeparableParams::new(40, 2).seed(3).check()?.generate()?;
/// assert_eq!(noisy.data.x(), clean.data.x());
/// let flipped = (0..40).filter(|&i| noisy.data.labels()[i] != clean.data.labels()[i]).count();
/// assert_eq!(flipped, 10);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoisyParams {
    /// Number of examples (≥ 2).
    pub n: usize,
    /// Dimension (≥ 1).
    pub d: usize,
    /// The margin γ of the clean data (default 0.1).
    #[serde(default = "default_margin")]
    pub margin: f64,
    /// The radius R (default 1).
    #[serde(default = "default_radius")]
    pub radius: f64,
    /// The offset b (default 0).
    #[serde(default)]
    pub offset: f64,
    /// The fraction of labels flipped, in [0, 0.5) (default 0.1).
    #[serde(default = "default_flip")]
    pub flip: f64,
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
fn default_flip() -> f64 {
    0.1
}

impl NoisyParams {
    /// `n` points in dimension `d`, margin 0.1, radius 1, offset 0, 10% flipped, seed 0.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::NoisyParams::new(10, 2).flip, 0.1);
    /// ```
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            margin: default_margin(),
            radius: default_radius(),
            offset: 0.0,
            flip: default_flip(),
            seed: 0,
        }
    }

    /// Set the margin γ of the clean data.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::NoisyParams::new(10, 2).margin(0.2).margin, 0.2);
    /// ```
    #[must_use]
    pub fn margin(mut self, margin: f64) -> Self {
        self.margin = margin;
        self
    }

    /// Set the radius R.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::NoisyParams::new(10, 2).radius(3.0).radius, 3.0);
    /// ```
    #[must_use]
    pub fn radius(mut self, radius: f64) -> Self {
        self.radius = radius;
        self
    }

    /// Set the offset b.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::NoisyParams::new(10, 2).offset(0.1).offset, 0.1);
    /// ```
    #[must_use]
    pub fn offset(mut self, offset: f64) -> Self {
        self.offset = offset;
        self
    }

    /// Set the fraction of flipped labels.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::NoisyParams::new(10, 2).flip(0.3).flip, 0.3);
    /// ```
    #[must_use]
    pub fn flip(mut self, flip: f64) -> Self {
        self.flip = flip;
        self
    }

    /// Set the seed.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::NoisyParams::new(10, 2).seed(5).seed, 5);
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

    fn flips(&self) -> usize {
        (self.flip * self.n as f64).round() as usize
    }
}

impl super::private::Sample for NoisyParams {
    fn validate(&self) -> Result<()> {
        super::private::Sample::validate(&self.base())?;
        check_finite("flip", self.flip)?;
        if !(0.0..0.5).contains(&self.flip) {
            return Err(Error::parameter(
                "flip",
                format!(
                    "the fraction of flipped labels must be in [0, 0.5), got {}",
                    self.flip
                ),
            ));
        }
        Ok(())
    }

    fn sample(&self) -> Result<Generated> {
        let (values, mut labels, u) = self.base().draw()?;
        let flips = self.flips();
        let mut sampler = Sampler::new(crate::rng::derive_seed(self.seed, "noisy/flip"));
        let mut rows: Vec<usize> = (0..self.n).collect();
        let mut attempts = 0;
        loop {
            sampler.shuffle(&mut rows);
            let chosen = &rows[..flips];
            let flipped_positives = chosen.iter().filter(|&&i| labels[i] > 0.0).count();
            let positives = labels.iter().filter(|&&l| l > 0.0).count();
            let after = positives - flipped_positives + (flips - flipped_positives);
            if after > 0 && after < self.n {
                for &i in chosen {
                    labels[i] = -labels[i];
                }
                break;
            }
            attempts += 1;
            if attempts == 10_000 {
                return Err(Error::parameter(
                    "flip",
                    "every choice of flipped labels removes a class; use more points",
                ));
            }
        }
        let base = self.base().describe();
        Ok(Generated {
            data: super::dataset(values, labels, self.d)?,
            u: Some(Array1::from_vec(u)),
            b: Some(self.offset),
            margin: None,
            radius: Some(self.radius),
            description: format!(
                "noisy: {base} flip={} ({flips} labels flipped; the clean points have margin ≥ {} about u)",
                self.flip, self.margin
            ),
        })
    }
}

impl Family for NoisyParams {
    const NAME: &'static str = "noisy";
}

/// `separable(n, d, margin, radius, seed)` with a fraction `flip` of the labels flipped. See
/// [`NoisyParams`].
///
/// ```
/// let g = novikoff::generate::noisy(30, 2, 0.1, 1.0, 0.2, 7)?;
/// assert!(g.description.contains("6 labels flipped"));
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn noisy(
    n: usize,
    d: usize,
    margin: f64,
    radius: f64,
    flip: f64,
    seed: u64,
) -> Result<Generated> {
    NoisyParams::new(n, d)
        .margin(margin)
        .radius(radius)
        .flip(flip)
        .seed(seed)
        .check()?
        .generate()
}
