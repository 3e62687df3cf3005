//! The random variates the generators are built from, drawn from the ChaCha8 stream of
//! [`crate::rng`] with the value-stable arithmetic of [`crate::detmath`]. Nothing here comes from
//! `rand_distr`, whose algorithms may change between releases.

use rand::RngCore;

use crate::detmath::{exp_m1, ln, ln_1p};
use crate::error::{Error, Result};
use crate::rng::{ChaCha8Rng, unit_f64};

/// Give up on a rejection sampler after this many proposals: the samplers below accept with probability
/// well above 1/10, so reaching the cap means a bug or absurd parameters, never bad luck.
const MAX_PROPOSALS: u64 = 10_000_000;

/// A seeded stream of variates: uniforms, standard normals (Marsaglia's polar method), unit vectors.
pub(crate) struct Sampler {
    rng: ChaCha8Rng,
    spare_normal: Option<f64>,
}

impl Sampler {
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            rng: crate::rng::from_seed(seed),
            spare_normal: None,
        }
    }

    /// Uniform in `[0, 1)`.
    pub(crate) fn uniform(&mut self) -> f64 {
        unit_f64(&mut self.rng)
    }

    /// Uniform in `(0, 1]`, safe to take the logarithm of.
    pub(crate) fn uniform_open_zero(&mut self) -> f64 {
        1.0 - unit_f64(&mut self.rng)
    }

    /// Uniform in `[lo, hi)`.
    pub(crate) fn uniform_in(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// A fair coin.
    pub(crate) fn coin(&mut self) -> bool {
        self.rng.next_u64() >> 63 == 1
    }

    /// Shuffle in place (Fisher–Yates on the same stream).
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        crate::rng::shuffle(&mut self.rng, items);
    }

    /// A standard normal by Marsaglia's polar method (needs only `ln` and `sqrt`).
    pub(crate) fn normal(&mut self) -> f64 {
        if let Some(value) = self.spare_normal.take() {
            return value;
        }
        loop {
            let a = 2.0 * self.uniform() - 1.0;
            let b = 2.0 * self.uniform() - 1.0;
            let s = a * a + b * b;
            if s < 1.0 && s > 0.0 {
                let factor = (-2.0 * ln(s) / s).sqrt();
                self.spare_normal = Some(b * factor);
                return a * factor;
            }
        }
    }

    /// Fill `out` with independent standard normals.
    pub(crate) fn normals(&mut self, out: &mut [f64]) {
        for v in out.iter_mut() {
            *v = self.normal();
        }
    }

    /// A uniformly random unit vector of length `d` (normalised Gaussian vector).
    pub(crate) fn unit_vector(&mut self, d: usize) -> Vec<f64> {
        let mut v = vec![0.0; d];
        loop {
            self.normals(&mut v);
            let norm = norm(&v);
            if norm > 0.0 {
                v.iter_mut().for_each(|x| *x /= norm);
                return v;
            }
        }
    }
}

/// The Euclidean norm, summed left to right, scaled as LAPACK's `dnrm2` scales it: the plain sum of
/// squares for ordinary values, and no overflow or underflow for rows of 10²⁰⁰s or 10⁻²⁰⁰s.
pub(crate) fn norm(v: &[f64]) -> f64 {
    crate::dataset::norm(v.iter().copied())
}

/// The dot product, summed left to right (the crate's `Summation::Sequential`).
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0, |acc, (x, y)| acc + x * y)
}

/// The coordinate `s = u·x` of a point `x` uniform in the unit ball of ℝ^d along a fixed unit vector `u`:
/// density ∝ (1 − s²)^k on [−1, 1] with k = (d − 1)/2. In high dimension it concentrates near 0 with
/// standard deviation ≈ 1/√d, so restricting it to a far tail by naive rejection would never finish;
/// [`BallCoordinate::sample_at_least`] samples such a tail directly.
pub(crate) struct BallCoordinate {
    d: usize,
    k: f64,
}

impl BallCoordinate {
    pub(crate) fn new(d: usize) -> Self {
        Self {
            d,
            k: (d as f64 - 1.0) / 2.0,
        }
    }

    /// log of the unnormalised density.
    fn log_density(&self, s: f64) -> f64 {
        if self.k == 0.0 {
            return if s.abs() <= 1.0 {
                0.0
            } else {
                f64::NEG_INFINITY
            };
        }
        self.k * ln((1.0 - s) * (1.0 + s))
    }

    /// An unrestricted draw: the first coordinate of a uniform point on the sphere S^{d+1} ⊂ ℝ^{d+2},
    /// whose marginal is exactly the ball coordinate in dimension d.
    pub(crate) fn sample(&self, sampler: &mut Sampler) -> f64 {
        loop {
            let first = sampler.normal();
            let mut sum = first * first;
            for _ in 1..self.d + 2 {
                let g = sampler.normal();
                sum += g * g;
            }
            if sum > 0.0 {
                return first / sum.sqrt();
            }
        }
    }

    /// A draw restricted to `s ≥ lo` (−1 < lo < 1).
    pub(crate) fn sample_at_least(&self, lo: f64, sampler: &mut Sampler) -> Result<f64> {
        if lo <= 0.0 {
            // The piece holds the mode, hence at least half the mass: plain rejection.
            return self.reject(sampler, |s| s >= lo);
        }
        let tail = Tail::new(lo, self.k);
        for _ in 0..MAX_PROPOSALS {
            let s = tail.propose(sampler);
            if tail.accept(s, self.log_density(s), sampler) {
                return Ok(s);
            }
        }
        Err(sampler_stuck())
    }

    /// A draw restricted to `s ≤ hi` (mirror image of [`Self::sample_at_least`]).
    pub(crate) fn sample_at_most(&self, hi: f64, sampler: &mut Sampler) -> Result<f64> {
        self.sample_at_least(-hi, sampler).map(|s| -s)
    }

    /// A draw restricted to `s ≤ hi or s ≥ lo` with `hi < lo`: the ball minus a slab.
    pub(crate) fn sample_outside(&self, hi: f64, lo: f64, sampler: &mut Sampler) -> Result<f64> {
        if lo <= 0.0 || hi >= 0.0 {
            // One side holds the mode: rejection accepts at least half the proposals.
            return self.reject(sampler, |s| s <= hi || s >= lo);
        }
        // Both sides are tails: a mixture of the two exponential envelopes, weighted by their masses.
        let upper = Tail::new(lo, self.k);
        let lower = Tail::new(-hi, self.k);
        let p_upper = 1.0 / (1.0 + crate::detmath::exp(lower.log_mass - upper.log_mass));
        for _ in 0..MAX_PROPOSALS {
            let (tail, sign) = if sampler.uniform() < p_upper {
                (&upper, 1.0)
            } else {
                (&lower, -1.0)
            };
            let s = tail.propose(sampler);
            if tail.accept(s, self.log_density(s), sampler) {
                return Ok(sign * s);
            }
        }
        Err(sampler_stuck())
    }

    fn reject(&self, sampler: &mut Sampler, keep: impl Fn(f64) -> bool) -> Result<f64> {
        for _ in 0..MAX_PROPOSALS {
            let s = self.sample(sampler);
            if keep(s) {
                return Ok(s);
            }
        }
        Err(sampler_stuck())
    }
}

fn sampler_stuck() -> Error {
    Error::Solver("the sampler of the ball coordinate made no progress; please report this".into())
}

/// An exponential envelope of the log-concave density (1 − s²)^k on the tail [a, 1], a > 0: the tangent
/// of the log-density at a point p lies above it everywhere, so `exp(tangent)` is a valid envelope. p is
/// chosen so that the envelope's rate is the optimal one for the Gaussian tail that (1 − s²)^k resembles
/// (Robert 1995), and never left of a.
struct Tail {
    a: f64,
    span: f64,
    rate: f64,
    /// log of the envelope at `a`.
    log_top: f64,
    /// log of the envelope's integral over [a, 1].
    log_mass: f64,
    uniform: bool,
}

impl Tail {
    fn new(a: f64, k: f64) -> Self {
        let span = 1.0 - a;
        if k == 0.0 {
            // d = 1: the density is flat.
            return Self {
                a,
                span,
                rate: 0.0,
                log_top: 0.0,
                log_mass: ln(span),
                uniform: true,
            };
        }
        let sigma = 1.0 / (2.0 * k).sqrt();
        let a_std = a / sigma;
        let mut rate = (a_std + (a_std * a_std + 4.0).sqrt()) / 2.0 / sigma;
        let mut p = ((k * k + rate * rate).sqrt() - k) / rate;
        if p < a {
            p = a;
            rate = 2.0 * k * a / ((1.0 - a) * (1.0 + a));
        }
        let log_at_p = k * ln((1.0 - p) * (1.0 + p));
        let log_top = log_at_p - rate * (a - p);
        let log_mass = log_top + ln(-exp_m1(-rate * span)) - ln(rate);
        Self {
            a,
            span,
            rate,
            log_top,
            log_mass,
            uniform: false,
        }
    }

    fn propose(&self, sampler: &mut Sampler) -> f64 {
        let u = sampler.uniform();
        if self.uniform {
            return self.a + u * self.span;
        }
        // Inverse CDF of the exponential truncated to [0, span].
        let e = -ln_1p(u * exp_m1(-self.rate * self.span)) / self.rate;
        (self.a + e).min(1.0)
    }

    fn accept(&self, s: f64, log_density: f64, sampler: &mut Sampler) -> bool {
        if self.uniform {
            return true;
        }
        let log_envelope = self.log_top - self.rate * (s - self.a);
        ln(sampler.uniform_open_zero()) <= log_density - log_envelope
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean_and_var(values: &[f64]) -> (f64, f64) {
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        (mean, var)
    }

    #[test]
    fn normals_have_mean_zero_and_variance_one() {
        let mut s = Sampler::new(5);
        let v: Vec<f64> = (0..200_000).map(|_| s.normal()).collect();
        let (mean, var) = mean_and_var(&v);
        assert!(mean.abs() < 0.01, "{mean}");
        assert!((var - 1.0).abs() < 0.01, "{var}");
    }

    #[test]
    fn the_ball_coordinate_has_the_right_variance() {
        // Var(u·x) for x uniform in the unit d-ball is 1/(d + 2).
        for d in [1usize, 2, 5, 50] {
            let coordinate = BallCoordinate::new(d);
            let mut s = Sampler::new(d as u64);
            let v: Vec<f64> = (0..40_000).map(|_| coordinate.sample(&mut s)).collect();
            let (mean, var) = mean_and_var(&v);
            let expected = 1.0 / (d as f64 + 2.0);
            assert!(mean.abs() < 0.01, "d={d}: {mean}");
            assert!(
                (var / expected - 1.0).abs() < 0.03,
                "d={d}: {var} vs {expected}"
            );
        }
    }

    /// The tail sampler against plain rejection on the same tail, where plain rejection is affordable.
    #[test]
    fn the_tail_sampler_matches_rejection() {
        for (d, lo) in [(1usize, 0.3), (2, 0.5), (10, 0.4), (40, 0.2), (3, 0.9)] {
            let coordinate = BallCoordinate::new(d);
            let mut s = Sampler::new(11);
            let tail: Vec<f64> = (0..20_000)
                .map(|_| coordinate.sample_at_least(lo, &mut s).unwrap())
                .collect();
            let naive: Vec<f64> = std::iter::from_fn(|| Some(coordinate.sample(&mut s)))
                .filter(|&v| v >= lo)
                .take(20_000)
                .collect();
            assert!(tail.iter().all(|&v| (lo..=1.0).contains(&v)));
            let (m1, v1) = mean_and_var(&tail);
            let (m2, v2) = mean_and_var(&naive);
            let sd = v2.sqrt();
            assert!(
                (m1 - m2).abs() < 0.05 * sd + 1e-3,
                "d={d} lo={lo}: means {m1} vs {m2}"
            );
            assert!(
                (v1 / v2 - 1.0).abs() < 0.1,
                "d={d} lo={lo}: variances {v1} vs {v2}"
            );
        }
    }

    #[test]
    fn far_tails_in_high_dimension_are_reached_quickly() {
        // lo = 0.5 in d = 10⁴ is 50 standard deviations out: naive rejection would never succeed.
        let coordinate = BallCoordinate::new(10_000);
        let mut s = Sampler::new(3);
        for _ in 0..200 {
            let v = coordinate.sample_outside(-0.5, 0.6, &mut s).unwrap();
            assert!(v <= -0.5 || v >= 0.6);
        }
    }

    #[test]
    fn both_tails_are_chosen_in_proportion_to_their_mass() {
        // Symmetric tails: each side about half the time.
        let coordinate = BallCoordinate::new(30);
        let mut s = Sampler::new(9);
        let upper = (0..20_000)
            .filter(|_| coordinate.sample_outside(-0.3, 0.3, &mut s).unwrap() > 0.0)
            .count();
        assert!((9_500..10_500).contains(&upper), "{upper}");
    }
}
