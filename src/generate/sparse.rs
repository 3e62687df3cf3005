//! `sparse`: mostly-zero rows (bag-of-words-like) with a prescribed margin and radius, stored as CSR.

use ndarray::Array1;
use serde::{Deserialize, Serialize};

use super::sampling::Sampler;
use super::{Family, Generated, check_positive};
use crate::dataset::{CsrMatrix, Dataset, MAX_SPARSE_COLUMNS, SparseIndex};
use crate::error::{Error, Result};

/// Parameters of the `sparse` family: `n` rows of dimension `d` (up to 10⁷ and beyond), each storing
/// exactly `nnz` values, stored as compressed sparse rows; the dense matrix is never formed.
///
/// A set `S` of `support` columns is drawn, and the separator is `u = Σ_{j∈S} σⱼ eⱼ/√|S|` with random
/// signs σⱼ. Each row stores one *signal* column `j₀ ∈ S`, whose value `σⱼ₀·√|S|·y·m` gives
/// `y·u·x = m` for a margin `m` uniform in `[γ, 2γ)`, and `nnz − 1` *noise* columns drawn outside `S`
/// (so they do not move `u·x`), with values uniform in the ball that the radius leaves:
/// `‖x‖ ≤ R` for every row. Labels are balanced. So `u` separates the data through the origin with
/// margin `≥ γ`, by construction and in floating point (the margins are checked as they are drawn).
///
/// The noise columns make the perceptron's work real: its updates add noise weights that later rows
/// must overcome, as the rare words of a text collection do.
///
/// ```
/// use novikoff::generate::{Family, SparseParams};
/// let g = SparseParams::new(1000, 1_000_000).nnz(20).margin(0.05).radius(1.0).seed(3).check()?.generate()?;
/// let data = &g.data;
/// assert!(data.is_sparse());
/// assert_eq!((data.n_samples(), data.n_features(), data.nnz()), (1000, 1_000_000, 20_000));
/// assert!(data.radius() <= 1.0);
/// let u = g.u.unwrap();
/// let m = novikoff::margin::margin(data, u.view(), 0.0)?;
/// assert!(m >= 0.05);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SparseParams {
    /// Number of examples (≥ 2).
    pub n: usize,
    /// Number of features.
    pub d: usize,
    /// Stored values per row (≥ 1): one signal column and `nnz − 1` noise columns.
    #[serde(default = "default_nnz")]
    pub nnz: usize,
    /// The size of the separator's support `S` (≥ 1); the margin must satisfy `2γ·√|S| < R`.
    #[serde(default = "default_support")]
    pub support: usize,
    /// The prescribed margin γ > 0 (of `u`, through the origin).
    #[serde(default = "default_margin")]
    pub margin: f64,
    /// The radius R > 0: every `‖xᵢ‖ ≤ R`.
    #[serde(default = "default_radius")]
    pub radius: f64,
    /// The seed of the ChaCha8 stream.
    #[serde(default = "super::default_seed")]
    pub seed: u64,
}

fn default_nnz() -> usize {
    50
}
fn default_support() -> usize {
    16
}
fn default_margin() -> f64 {
    0.01
}
fn default_radius() -> f64 {
    1.0
}

impl SparseParams {
    /// `n` rows of dimension `d` with the defaults: 50 values a row, |S| = 16, γ = 0.01, R = 1, seed 0.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::SparseParams::new(10, 100).nnz, 50);
    /// ```
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            nnz: default_nnz(),
            support: default_support(),
            margin: default_margin(),
            radius: default_radius(),
            seed: 0,
        }
    }

    /// Set the stored values per row.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::SparseParams::new(10, 100).nnz(5).nnz, 5);
    /// ```
    #[must_use]
    pub fn nnz(mut self, nnz: usize) -> Self {
        self.nnz = nnz;
        self
    }

    /// Set the size of the separator's support.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::SparseParams::new(10, 100).support(4).support, 4);
    /// ```
    #[must_use]
    pub fn support(mut self, support: usize) -> Self {
        self.support = support;
        self
    }

    /// Set the margin γ.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::SparseParams::new(10, 100).margin(0.2).margin, 0.2);
    /// ```
    #[must_use]
    pub fn margin(mut self, margin: f64) -> Self {
        self.margin = margin;
        self
    }

    /// Set the radius R.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::SparseParams::new(10, 100).radius(3.0).radius, 3.0);
    /// ```
    #[must_use]
    pub fn radius(mut self, radius: f64) -> Self {
        self.radius = radius;
        self
    }

    /// Set the seed.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::SparseParams::new(10, 100).seed(8).seed, 8);
    /// ```
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// A uniformly drawn column of `0..d` not yet taken (`taken` is small and sorted).
    fn fresh_column(&self, taken: &[usize], sampler: &mut Sampler) -> usize {
        loop {
            // Exact for d up to 2⁵³: the product of a uniform in [0, 1) and d, rounded down.
            let j = ((sampler.uniform() * self.d as f64) as usize).min(self.d - 1);
            if taken.binary_search(&j).is_err() {
                return j;
            }
        }
    }
}

impl super::private::Sample for SparseParams {
    fn validate(&self) -> Result<()> {
        if self.n < 2 {
            return Err(Error::parameter(
                "n",
                format!(
                    "must be at least 2 so that both classes occur, got {}",
                    self.n
                ),
            ));
        }
        if self.nnz == 0 {
            return Err(Error::parameter("nnz", "must be at least 1"));
        }
        if self.support == 0 {
            return Err(Error::parameter("support", "must be at least 1"));
        }
        // The noise columns are drawn outside S, and by rejection: keep them a small share of the rest.
        let needed = self
            .support
            .saturating_add(self.nnz.saturating_sub(1).saturating_mul(2));
        if self.d < needed {
            return Err(Error::parameter(
                "d",
                format!(
                    "must be at least support + 2·(nnz − 1) = {needed} for the noise columns to be drawn \
                     outside the support, got {}",
                    self.d
                ),
            ));
        }
        if self.d > MAX_SPARSE_COLUMNS {
            return Err(Error::parameter(
                "d",
                format!(
                    "must be at most {MAX_SPARSE_COLUMNS} (the sparse storage's 32-bit column indices), \
                     got {}",
                    self.d
                ),
            ));
        }
        if self
            .n
            .checked_mul(self.nnz)
            .and_then(|v| v.checked_mul(16))
            .is_none()
        {
            return Err(Error::parameter(
                "n",
                format!(
                    "n·nnz = {}·{} values do not fit in memory",
                    self.n, self.nnz
                ),
            ));
        }
        check_positive("margin", self.margin)?;
        check_positive("radius", self.radius)?;
        // Both are finite and positive (checked above), so `>=` is the negation of `<`.
        if 2.0 * self.margin * (self.support as f64).sqrt() >= self.radius {
            return Err(Error::parameter(
                "margin",
                format!(
                    "the signal value √|S|·m, with m up to 2γ, must fit in the ball: need 2·margin·√support \
                     < radius, got 2·{}·√{} ≥ {}",
                    self.margin, self.support, self.radius
                ),
            ));
        }
        Ok(())
    }

    fn sample(&self) -> Result<Generated> {
        let mut sampler = Sampler::new(self.seed);
        // The support S and the signs of u on it.
        let mut support: Vec<usize> = Vec::with_capacity(self.support);
        while support.len() < self.support {
            let j = self.fresh_column(&support, &mut sampler);
            let at = support.binary_search(&j).unwrap_err();
            support.insert(at, j);
        }
        let signs: Vec<f64> = (0..self.support)
            .map(|_| if sampler.coin() { 1.0 } else { -1.0 })
            .collect();
        let root = (self.support as f64).sqrt();
        let labels = super::balanced_labels(self.n, &mut sampler);
        // A sliver below R² absorbs the rounding of the squared norm (as the `separable` family does).
        let r_sq = self.radius * self.radius * (1.0 - 4.0 * (self.nnz as f64 + 2.0) * f64::EPSILON);

        let total = self.n * self.nnz;
        let mut indptr = Vec::with_capacity(self.n + 1);
        let mut indices = Vec::with_capacity(total);
        let mut values = Vec::with_capacity(total);
        indptr.push(0);
        let mut taken: Vec<usize> = Vec::with_capacity(self.support + self.nnz);
        let mut row: Vec<(usize, f64)> = Vec::with_capacity(self.nnz);
        let mut noise = vec![0.0; self.nnz - 1];
        for &y in &labels {
            let k = ((sampler.uniform() * self.support as f64) as usize).min(self.support - 1);
            let (j0, sign) = (support[k], signs[k]);
            // The margin m ∈ (γ, 2γ), clear of γ by far more than rounding, then the signal value with
            // y·u·x = m.
            let m = self.margin * (1.0 + 1e-12 + sampler.uniform());
            let signal = sign * root * y * m;
            // u·x is (σ/√|S|)·signal, rounded: within a few units of rounding of m, so above γ.
            let achieved = y * (sign / root * signal);
            if achieved < self.margin {
                return Err(Error::Solver(format!(
                    "the sparse generator's margin {achieved} rounded below γ = {}",
                    self.margin
                )));
            }
            // Noise: a random direction, scaled to a radius uniform in what the ball leaves.
            let room = (r_sq - signal * signal).max(0.0).sqrt();
            sampler.normals(&mut noise);
            let length = noise.iter().map(|v| v * v).sum::<f64>().sqrt();
            let scale = if length > 0.0 {
                room * sampler.uniform() / length
            } else {
                0.0
            };
            taken.clear();
            taken.extend_from_slice(&support);
            row.clear();
            row.push((j0, signal));
            for &v in &noise {
                let j = self.fresh_column(&taken, &mut sampler);
                let at = taken.binary_search(&j).unwrap_err();
                taken.insert(at, j);
                row.push((j, v * scale));
            }
            row.sort_unstable_by_key(|&(j, _)| j);
            for &(j, v) in &row {
                // Below d ≤ MAX_SPARSE_COLUMNS (checked by `validate`).
                indices.push(j as SparseIndex);
                values.push(v);
            }
            indptr.push(values.len());
        }
        let x = CsrMatrix::new((self.n, self.d), indptr, indices, values);
        let data = Dataset::from_csr(x, Array1::from_vec(labels))?;
        let mut u = Array1::zeros(self.d);
        for (&j, &s) in support.iter().zip(&signs) {
            u[j] = s / root;
        }
        Ok(Generated {
            data,
            u: Some(u),
            b: Some(0.0),
            margin: Some(self.margin),
            radius: Some(self.radius),
            description: format!(
                "sparse: n={} d={} nnz={} support={} margin={} radius={} seed={}",
                self.n, self.d, self.nnz, self.support, self.margin, self.radius, self.seed
            ),
        })
    }
}

impl Family for SparseParams {
    const NAME: &'static str = "sparse";
}
