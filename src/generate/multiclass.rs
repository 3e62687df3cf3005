//! `multiclass`: `k` classes in the ball of radius R with a prescribed multi-class margin.

use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

use super::sampling::{Sampler, dot, norm};
use super::{check_positive, zeros};
use crate::dataset::{Dataset, MulticlassDataset};
use crate::detmath::powf;
use crate::error::{Error, Result};

/// Parameters of the `multiclass` family: a random `W = (w₁, …, w_k)` of unit Frobenius norm (Gaussian
/// rows, centred so that `Σ w_r = 0`), and points uniform in the ball of radius `radius`, each labelled
/// `argmax_r w_r·x` and kept only when its multi-class margin `w_y·x − max_{r≠y} w_r·x` is at least
/// `margin`. So `W` separates the data with multi-class margin ≥ `margin` through the origin: Kesler's
/// lifted vectors have margin ≥ `margin` and radius ≤ `√2·radius`, and the multi-class perceptron makes
/// at most `2·radius²/margin²` mistakes. Classes are named `0`, …, `k − 1`; a class may be rare when its
/// region of the ball is small.
///
/// ```
/// use novikoff::generate::MulticlassParams;
/// let g = MulticlassParams::new(200, 3, 4).margin(0.05).radius(1.0).seed(7).generate()?;
/// assert_eq!((g.data.n_samples(), g.data.n_classes()), (200, 4));
/// let x = g.data.features();
/// for i in 0..200 {
///     let scores: Vec<f64> = (0..4).map(|r| g.w.row(r).dot(&ndarray::aview1(x.row(i)))).collect();
///     let y = g.data.labels()[i];
///     assert!((0..4).filter(|&r| r != y).all(|r| scores[y] - scores[r] >= 0.05));
/// }
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MulticlassParams {
    /// Number of examples (≥ k).
    pub n: usize,
    /// Dimension (≥ 1).
    pub d: usize,
    /// Number of classes (≥ 2).
    pub k: usize,
    /// The prescribed multi-class margin (default 0.05).
    #[serde(default = "default_margin")]
    pub margin: f64,
    /// The radius (default 1).
    #[serde(default = "default_radius")]
    pub radius: f64,
    /// The seed (default 0).
    #[serde(default = "super::default_seed")]
    pub seed: u64,
}

fn default_margin() -> f64 {
    0.05
}
fn default_radius() -> f64 {
    1.0
}

/// A generated multi-class dataset and its separator.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct GeneratedClasses {
    /// The examples and their classes.
    pub data: MulticlassDataset,
    /// The separator `W` (`k × d`, Frobenius norm 1).
    pub w: Array2<f64>,
    /// The prescribed multi-class margin.
    pub margin: f64,
    /// The prescribed radius.
    pub radius: f64,
    /// One line saying what was generated.
    pub description: String,
}

/// Draws per example before the generator gives up on a margin too large for the ball.
const ATTEMPTS_PER_EXAMPLE: usize = 10_000;

impl MulticlassParams {
    /// `n` points in dimension `d` with `k` classes, margin 0.05, radius 1, seed 0.
    pub fn new(n: usize, d: usize, k: usize) -> Self {
        Self {
            n,
            d,
            k,
            margin: default_margin(),
            radius: default_radius(),
            seed: 0,
        }
    }

    /// Set the margin (> 0).
    #[must_use]
    pub fn margin(mut self, margin: f64) -> Self {
        self.margin = margin;
        self
    }

    /// Set the radius (> 0).
    #[must_use]
    pub fn radius(mut self, radius: f64) -> Self {
        self.radius = radius;
        self
    }

    /// Set the seed.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Validate.
    ///
    /// ```
    /// use novikoff::generate::MulticlassParams;
    /// assert!(MulticlassParams::new(10, 2, 1).check().is_err());
    /// assert!(MulticlassParams::new(10, 2, 3).margin(2.0).check().is_err()); // margin ≥ √2·radius
    /// ```
    pub fn check(&self) -> Result<()> {
        if self.k < 2 {
            return Err(Error::parameter(
                "k",
                format!("multi-class data need at least two classes, got {}", self.k),
            ));
        }
        if self.n < self.k {
            return Err(Error::parameter(
                "n",
                format!("must be at least k = {}, got {}", self.k, self.n),
            ));
        }
        if self.d == 0 {
            return Err(Error::parameter("d", "must be at least 1"));
        }
        check_positive("margin", self.margin)?;
        check_positive("radius", self.radius)?;
        // (w_y − w_r)·x ≤ ‖w_y − w_r‖·R ≤ √2·‖W‖_F·R.
        if self.margin >= 2f64.sqrt() * self.radius {
            return Err(Error::parameter(
                "margin",
                format!(
                    "no unit W has a multi-class margin {} ≥ √2·radius = {} in the ball",
                    self.margin,
                    2f64.sqrt() * self.radius
                ),
            ));
        }
        Ok(())
    }

    /// Validate and generate.
    ///
    /// # Errors
    /// [`Error::Parameter`] when the parameters are refused, or when the margin leaves too little of
    /// the ball to draw the examples from.
    pub fn generate(&self) -> Result<GeneratedClasses> {
        self.check()?;
        let (n, d, k) = (self.n, self.d, self.k);
        let mut sampler = Sampler::new(self.seed);
        let mut w = vec![0.0; k * d];
        sampler.normals(&mut w);
        for j in 0..d {
            let mean = (0..k).map(|r| w[r * d + j]).sum::<f64>() / k as f64;
            for r in 0..k {
                w[r * d + j] -= mean;
            }
        }
        let length = norm(&w);
        if length == 0.0 {
            return Err(Error::parameter(
                "d",
                "the centred class vectors vanish (k = 1 per dimension): raise d",
            ));
        }
        w.iter_mut().for_each(|v| *v /= length);
        let mut values = zeros(n, d)?;
        let mut classes = Vec::with_capacity(n);
        let mut scores = vec![0.0; k];
        // A rounding allowance on the margin test, so that the prescribed margin holds for the exact
        // products of the stored values.
        let allowance = 1e-12 * self.radius;
        let mut attempts = 0usize;
        while classes.len() < n {
            attempts += 1;
            if attempts > ATTEMPTS_PER_EXAMPLE * n {
                return Err(Error::parameter(
                    "margin",
                    format!(
                        "after {attempts} draws only {} of {n} points have a multi-class margin ≥ {}: \
                         lower the margin or the number of classes",
                        classes.len(),
                        self.margin
                    ),
                ));
            }
            let direction = sampler.unit_vector(d);
            // Uniform in the ball: radius·U^{1/d}, shrunk by an ulp so that ‖x‖ ≤ radius holds.
            let r =
                self.radius * powf(sampler.uniform(), 1.0 / d as f64) * (1.0 - 4.0 * f64::EPSILON);
            let x: Vec<f64> = direction.iter().map(|v| v * r).collect();
            for (s, row) in scores.iter_mut().zip(w.chunks(d)) {
                *s = dot(row, &x);
            }
            let y = (0..k).fold(0, |best, c| if scores[c] > scores[best] { c } else { best });
            let margin = (0..k)
                .filter(|&c| c != y)
                .map(|c| scores[y] - scores[c])
                .fold(f64::INFINITY, f64::min);
            if margin < self.margin + allowance {
                continue;
            }
            let row = classes.len();
            values[row * d..(row + 1) * d].copy_from_slice(&x);
            classes.push(y);
        }
        let x = Array2::from_shape_vec((n, d), values).expect("n·d values");
        let features = Dataset::new(x, Array1::ones(n))?;
        let names = (0..k).map(|c| c.to_string()).collect();
        Ok(GeneratedClasses {
            data: MulticlassDataset::from_features(features, names, classes)?,
            w: Array2::from_shape_vec((k, d), w).expect("k·d weights"),
            margin: self.margin,
            radius: self.radius,
            description: format!(
                "multiclass: n={n} d={d} k={k} margin={} radius={} seed={}",
                self.margin, self.radius, self.seed
            ),
        })
    }
}
