//! `xor`: the four quadrants of XOR, which no hyperplane separates.

use serde::{Deserialize, Serialize};

use super::sampling::Sampler;
use super::{Family, Generated, check_non_negative, check_positive, check_size, zeros};
use crate::error::{Error, Result};

/// Parameters of the `xor` family: in the first two coordinates, `|x₁|, |x₂|` uniform in
/// `[gap, scale]` with random signs, and the label `sign(x₁·x₂)` (CS 536's XOR example, seed 001);
/// coordinates 3..d are uniform in `[−scale, scale]`.
///
/// Points come in antipodal pairs `(x, −x)`, which share a label, so the convex hull of each class
/// contains the origin and **no hyperplane separates the data, with or without bias, in any dimension**,
/// not only in expectation. Pairs alternate between the two classes (n ≥ 4 holds a pair of each) and the
/// row order is shuffled.
///
/// ```
/// use novikoff::generate::{Family, XorParams};
/// let g = XorParams::new(8).gap(0.2).seed(3).check()?.generate()?;
/// for i in 0..8 {
///     let x = g.data.row(i);
///     assert!(x[0].abs() >= 0.2 && x[1].abs() >= 0.2);
///     assert_eq!(g.data.labels()[i], (x[0] * x[1]).signum());
/// }
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XorParams {
    /// Number of examples (≥ 4).
    pub n: usize,
    /// Dimension (≥ 2, default 2).
    #[serde(default = "default_d")]
    pub d: usize,
    /// The empty band around each axis: `|x₁|, |x₂| ≥ gap` (default 0.1).
    #[serde(default = "default_gap")]
    pub gap: f64,
    /// The half width of the square (default 1).
    #[serde(default = "default_scale")]
    pub scale: f64,
    /// The seed (default 0).
    #[serde(default = "super::default_seed")]
    pub seed: u64,
}

fn default_d() -> usize {
    2
}
fn default_gap() -> f64 {
    0.1
}
fn default_scale() -> f64 {
    1.0
}

impl XorParams {
    /// `n` points in the plane, gap 0.1, scale 1, seed 0.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::XorParams::new(8).d, 2);
    /// ```
    pub fn new(n: usize) -> Self {
        Self {
            n,
            d: default_d(),
            gap: default_gap(),
            scale: default_scale(),
            seed: 0,
        }
    }

    /// Set the dimension (extra coordinates are uniform noise).
    ///
    /// ```
    /// assert_eq!(novikoff::generate::XorParams::new(8).dim(5).d, 5);
    /// ```
    #[must_use]
    pub fn dim(mut self, d: usize) -> Self {
        self.d = d;
        self
    }

    /// Set the gap around the axes.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::XorParams::new(8).gap(0.3).gap, 0.3);
    /// ```
    #[must_use]
    pub fn gap(mut self, gap: f64) -> Self {
        self.gap = gap;
        self
    }

    /// Set the half width of the square.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::XorParams::new(8).scale(2.0).scale, 2.0);
    /// ```
    #[must_use]
    pub fn scale(mut self, scale: f64) -> Self {
        self.scale = scale;
        self
    }

    /// Set the seed.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::XorParams::new(8).seed(2).seed, 2);
    /// ```
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
}

impl super::private::Sample for XorParams {
    fn validate(&self) -> Result<()> {
        check_size(self.n, self.d, 4)?;
        if self.d < 2 {
            return Err(Error::parameter("d", "xor needs at least 2 dimensions"));
        }
        check_non_negative("gap", self.gap)?;
        check_positive("scale", self.scale)?;
        if self.gap >= self.scale {
            return Err(Error::parameter(
                "gap",
                format!(
                    "must be smaller than scale, got gap {} ≥ scale {}",
                    self.gap, self.scale
                ),
            ));
        }
        Ok(())
    }

    fn sample(&self) -> Result<Generated> {
        let (n, d) = (self.n, self.d);
        let mut sampler = Sampler::new(self.seed);
        let mut values = zeros(n, d)?;
        let mut labels = vec![0.0; n];
        let mut rows = values.chunks_exact_mut(d).zip(labels.iter_mut());
        let mut pair = 0usize;
        while let Some((row, label)) = rows.next() {
            let class = if pair.is_multiple_of(2) { 1.0 } else { -1.0 };
            pair += 1;
            let first = sampler.uniform_in(self.gap, self.scale);
            let second = sampler.uniform_in(self.gap, self.scale);
            let sign = if sampler.coin() { 1.0 } else { -1.0 };
            row[0] = sign * first;
            row[1] = sign * class * second;
            for x in row[2..].iter_mut() {
                *x = sampler.uniform_in(-self.scale, self.scale);
            }
            *label = class;
            if let Some((mirror, mirror_label)) = rows.next() {
                for (m, &x) in mirror.iter_mut().zip(row.iter()) {
                    *m = -x;
                }
                *mirror_label = class;
            }
        }
        let mut data = super::dataset(values, labels, d)?;
        let mut order: Vec<usize> = (0..n).collect();
        sampler.shuffle(&mut order);
        data = data.select(&order);
        Ok(Generated {
            data,
            u: None,
            b: None,
            margin: None,
            radius: None,
            description: format!(
                "xor: n={n} d={d} gap={} scale={} seed={} (antipodal pairs: never linearly separable)",
                self.gap, self.scale, self.seed
            ),
        })
    }
}

impl Family for XorParams {
    const NAME: &'static str = "xor";
}

/// `n` XOR points in the plane. See [`XorParams`].
///
/// ```
/// let g = novikoff::generate::xor(12, 0)?;
/// assert_eq!(g.data.class_counts(), (6, 6));
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn xor(n: usize, seed: u64) -> Result<Generated> {
    XorParams::new(n).seed(seed).check()?.generate()
}
