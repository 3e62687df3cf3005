//! `concentric`: a ball inside a shell (rings in the plane).

use serde::{Deserialize, Serialize};

use super::sampling::Sampler;
use super::{Family, Generated, check_non_negative, check_positive, check_size, zeros};
use crate::error::{Error, Result};

/// Parameters of the `concentric` family: the positive class at distance `inner ± width` from the origin,
/// the negative class at `outer ± width` (uniform in that band, in a uniformly random direction).
///
/// Points come in antipodal pairs `(x, −x)` within each class, so both convex hulls contain the origin
/// and **no hyperplane separates the classes**, in any dimension. (A feature map such as `‖x‖²` would.)
/// ⌈n/2⌉ positives (in pairs, the last one possibly alone) and ⌊n/2⌋ negatives, rows shuffled.
///
/// ```
/// use novikoff::generate::{ConcentricParams, Family};
/// let g = ConcentricParams::new(20, 3).inner(1.0).outer(3.0).width(0.5).seed(1).check()?.generate()?;
/// for i in 0..20 {
///     let r = g.data.row(i).iter().map(|v| v * v).sum::<f64>().sqrt();
///     let centre = if g.data.labels()[i] > 0.0 { 1.0 } else { 3.0 };
///     assert!((r - centre).abs() <= 0.5 + 1e-12);
/// }
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConcentricParams {
    /// Number of examples (≥ 4).
    pub n: usize,
    /// Dimension (≥ 1, default 2).
    #[serde(default = "default_d")]
    pub d: usize,
    /// The radius of the positive class (default 1).
    #[serde(default = "default_inner")]
    pub inner: f64,
    /// The radius of the negative class (default 2).
    #[serde(default = "default_outer")]
    pub outer: f64,
    /// The half thickness of each band (default 0.1).
    #[serde(default = "default_width")]
    pub width: f64,
    /// The seed (default 0).
    #[serde(default = "super::default_seed")]
    pub seed: u64,
}

fn default_d() -> usize {
    2
}
fn default_inner() -> f64 {
    1.0
}
fn default_outer() -> f64 {
    2.0
}
fn default_width() -> f64 {
    0.1
}

impl ConcentricParams {
    /// `n` points in dimension `d`, radii 1 and 2, width 0.1, seed 0.
    ///
    /// ```
    /// let p = novikoff::generate::ConcentricParams::new(10, 2);
    /// assert_eq!((p.inner, p.outer, p.width), (1.0, 2.0, 0.1));
    /// ```
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            inner: default_inner(),
            outer: default_outer(),
            width: default_width(),
            seed: 0,
        }
    }

    /// Set the radius of the positive class.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::ConcentricParams::new(10, 2).inner(0.5).inner, 0.5);
    /// ```
    #[must_use]
    pub fn inner(mut self, inner: f64) -> Self {
        self.inner = inner;
        self
    }

    /// Set the radius of the negative class.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::ConcentricParams::new(10, 2).outer(4.0).outer, 4.0);
    /// ```
    #[must_use]
    pub fn outer(mut self, outer: f64) -> Self {
        self.outer = outer;
        self
    }

    /// Set the half thickness of the bands.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::ConcentricParams::new(10, 2).width(0.0).width, 0.0);
    /// ```
    #[must_use]
    pub fn width(mut self, width: f64) -> Self {
        self.width = width;
        self
    }

    /// Set the seed.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::ConcentricParams::new(10, 2).seed(6).seed, 6);
    /// ```
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
}

impl super::private::Sample for ConcentricParams {
    fn validate(&self) -> Result<()> {
        check_size(self.n, self.d, 4)?;
        check_non_negative("width", self.width)?;
        check_non_negative("inner", self.inner)?;
        check_positive("outer", self.outer)?;
        if self.inner < self.width {
            return Err(Error::parameter(
                "width",
                format!(
                    "the inner band would cross the origin: need width ≤ inner, got {} > {}",
                    self.width, self.inner
                ),
            ));
        }
        if self.inner + self.width >= self.outer - self.width {
            return Err(Error::parameter(
                "outer",
                format!(
                    "the bands overlap: need inner + width < outer − width, got {} + {} ≥ {} − {}",
                    self.inner, self.width, self.outer, self.width
                ),
            ));
        }
        Ok(())
    }

    fn sample(&self) -> Result<Generated> {
        let (n, d) = (self.n, self.d);
        let mut sampler = Sampler::new(self.seed);
        let mut values = zeros(n, d)?;
        let positives = n.div_ceil(2);
        let labels: Vec<f64> = (0..n)
            .map(|i| if i < positives { 1.0 } else { -1.0 })
            .collect();
        let mut i = 0;
        while i < n {
            let centre = if labels[i] > 0.0 {
                self.inner
            } else {
                self.outer
            };
            let r = sampler.uniform_in(centre - self.width, centre + self.width);
            let direction = sampler.unit_vector(d);
            for (x, v) in values[i * d..(i + 1) * d].iter_mut().zip(&direction) {
                *x = r * v;
            }
            // The mirror image, if the next row is of the same class.
            if i + 1 < n && labels[i + 1] == labels[i] {
                for j in 0..d {
                    values[(i + 1) * d + j] = -values[i * d + j];
                }
                i += 2;
            } else {
                i += 1;
            }
        }
        let data = super::dataset(values, labels, d)?;
        let mut order: Vec<usize> = (0..n).collect();
        sampler.shuffle(&mut order);
        Ok(Generated {
            data: data.select(&order),
            u: None,
            b: None,
            margin: None,
            radius: None,
            description: format!(
                "concentric: n={n} d={d} inner={} outer={} width={} seed={} (never linearly separable)",
                self.inner, self.outer, self.width, self.seed
            ),
        })
    }
}

impl Family for ConcentricParams {
    const NAME: &'static str = "concentric";
}

/// `n` points on two concentric rings in the plane (radii 1 and 2). See [`ConcentricParams`].
///
/// ```
/// let g = novikoff::generate::concentric(10, 2, 5)?;
/// assert_eq!(g.data.class_counts(), (5, 5));
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn concentric(n: usize, d: usize, seed: u64) -> Result<Generated> {
    ConcentricParams::new(n, d).seed(seed).check()?.generate()
}
