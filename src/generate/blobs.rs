//! `blobs`: two Gaussian blobs at a chosen distance.

use ndarray::Array1;
use serde::{Deserialize, Serialize};

use super::sampling::Sampler;
use super::{Family, Generated, balanced_labels, check_non_negative, check_size, zeros};
use crate::error::Result;

/// Parameters of the `blobs` family: the positive class is `N(+(distance/2)·u, spread²·I)`, the negative
/// class `N(−(distance/2)·u, spread²·I)`, for a random unit vector `u`; ⌈n/2⌉ positives and ⌊n/2⌋
/// negatives in a random order.
///
/// Whether the sample is separable depends on `distance/spread` and on n: Gaussian tails overlap, so a
/// large sample of close blobs is not. No margin or radius is prescribed. `u` (with `b = 0`) is the
/// Bayes-optimal direction, a natural reference separator.
///
/// ```
/// use novikoff::generate::{BlobsParams, Family};
/// let g = BlobsParams::new(100, 2).distance(10.0).spread(1.0).seed(4).check()?.generate()?;
/// assert_eq!(g.data.class_counts(), (50, 50));
/// assert_eq!((g.margin, g.radius), (None, None));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlobsParams {
    /// Number of examples (≥ 2).
    pub n: usize,
    /// Dimension (≥ 1).
    pub d: usize,
    /// The distance between the two centres (default 4).
    #[serde(default = "default_distance")]
    pub distance: f64,
    /// The standard deviation of every coordinate about its centre (default 1).
    #[serde(default = "default_spread")]
    pub spread: f64,
    /// The seed (default 0).
    #[serde(default = "super::default_seed")]
    pub seed: u64,
}

fn default_distance() -> f64 {
    4.0
}
fn default_spread() -> f64 {
    1.0
}

impl BlobsParams {
    /// `n` points in dimension `d`, centre distance 4, spread 1, seed 0.
    ///
    /// ```
    /// let p = novikoff::generate::BlobsParams::new(10, 2);
    /// assert_eq!((p.distance, p.spread), (4.0, 1.0));
    /// ```
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            distance: default_distance(),
            spread: default_spread(),
            seed: 0,
        }
    }

    /// Set the distance between the centres.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::BlobsParams::new(10, 2).distance(2.0).distance, 2.0);
    /// ```
    #[must_use]
    pub fn distance(mut self, distance: f64) -> Self {
        self.distance = distance;
        self
    }

    /// Set the standard deviation of the blobs.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::BlobsParams::new(10, 2).spread(0.5).spread, 0.5);
    /// ```
    #[must_use]
    pub fn spread(mut self, spread: f64) -> Self {
        self.spread = spread;
        self
    }

    /// Set the seed.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::BlobsParams::new(10, 2).seed(3).seed, 3);
    /// ```
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
}

impl super::private::Sample for BlobsParams {
    fn validate(&self) -> Result<()> {
        check_size(self.n, self.d, 2)?;
        check_non_negative("distance", self.distance)?;
        check_non_negative("spread", self.spread)
    }

    fn sample(&self) -> Result<Generated> {
        let (n, d) = (self.n, self.d);
        let mut sampler = Sampler::new(self.seed);
        let u = sampler.unit_vector(d);
        let labels = balanced_labels(n, &mut sampler);
        let half = self.distance / 2.0;
        let mut values = zeros(n, d)?;
        for (row, &label) in values.chunks_exact_mut(d).zip(&labels) {
            for (x, &uj) in row.iter_mut().zip(&u) {
                *x = label * half * uj + self.spread * sampler.normal();
            }
        }
        Ok(Generated {
            data: super::dataset(values, labels, d)?,
            u: Some(Array1::from_vec(u)),
            b: Some(0.0),
            margin: None,
            radius: None,
            description: format!(
                "blobs: n={n} d={d} distance={} spread={} seed={}",
                self.distance, self.spread, self.seed
            ),
        })
    }
}

impl Family for BlobsParams {
    const NAME: &'static str = "blobs";
}

/// Two Gaussian blobs with centres `distance` apart and unit spread. See [`BlobsParams`].
///
/// ```
/// let g = novikoff::generate::blobs(20, 3, 6.0, 1)?;
/// assert_eq!(g.data.n_features(), 3);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn blobs(n: usize, d: usize, distance: f64, seed: u64) -> Result<Generated> {
    BlobsParams::new(n, d)
        .distance(distance)
        .seed(seed)
        .check()?
        .generate()
}
