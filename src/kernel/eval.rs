//! Evaluating `K(x, z)`: fast (one fixed order of operations, the same bits on every machine) and as an
//! interval that contains the exact value (for the certified margin).
//!
//! The fast value of the Gaussian kernel uses the crate's own `exp` (fdlibm's algorithm in plain IEEE
//! arithmetic), never the platform's, whose last bit differs between operating systems. Its interval
//! allows [`EXP_ULPS`] units in the last place for that `exp`, four times the error its tests measure
//! against the platform's; every other operation is bounded by the standard model (Higham, *Accuracy
//! and Stability of Numerical Algorithms*, §3.1).

use super::function::{Kernel, Kind};
use super::interval::{Interval, TINY, UNIT_ROUNDOFF, gamma};
use crate::dataset::{Dataset, RowView};
use crate::detmath;
use crate::simd::{self, Summation};

/// The rounding allowance of the Gaussian kernel's `exp`, in units in the last place: generous, since
/// fdlibm's `exp` is within one ulp of the exact value (tested against the platform's on 400 000
/// arguments).
pub const EXP_ULPS: f64 = 4.0;

/// `a·b` for rows of either storage. Dense rows use the crate's dot product in `summation` order; a
/// sparse row is summed over its stored entries (sequentially when both are sparse, by column).
#[inline]
pub(crate) fn dot_rows(a: RowView<'_>, b: RowView<'_>, summation: Summation) -> f64 {
    match (a, b) {
        (RowView::Dense(a), RowView::Dense(b)) => simd::dot(a, b, summation),
        (RowView::Dense(w), sparse) | (sparse, RowView::Dense(w)) => sparse.dot(w, summation),
        (
            RowView::Sparse {
                indices: ia,
                values: va,
            },
            RowView::Sparse {
                indices: ib,
                values: vb,
            },
        ) => {
            let (mut p, mut q, mut sum) = (0, 0, 0.0);
            while p < ia.len() && q < ib.len() {
                match ia[p].cmp(&ib[q]) {
                    std::cmp::Ordering::Less => p += 1,
                    std::cmp::Ordering::Greater => q += 1,
                    std::cmp::Ordering::Equal => {
                        sum += va[p] * vb[q];
                        p += 1;
                        q += 1;
                    }
                }
            }
            sum
        }
    }
}

/// `(Σ aⱼbⱼ, Σ |aⱼbⱼ|, terms)` over the products a dot product of these rows adds: what the a-priori error
/// bound of [`dot_interval`] needs.
fn dot_magnitude(a: RowView<'_>, b: RowView<'_>) -> (f64, usize) {
    let mut magnitude = 0.0;
    let mut terms = 0;
    for_each_pair(a, b, |x, z| {
        magnitude += (x * z).abs();
        terms += 1;
    });
    (magnitude, terms)
}

/// Calls `f(aⱼ, bⱼ)` for every column where either row stores a value (the other's value may be 0).
#[inline]
fn for_each_pair(a: RowView<'_>, b: RowView<'_>, mut f: impl FnMut(f64, f64)) {
    match (a, b) {
        (RowView::Dense(a), RowView::Dense(b)) => {
            for (&x, &z) in a.iter().zip(b) {
                f(x, z);
            }
        }
        _ => {
            let mut left = a.entries().peekable();
            let mut right = b.entries().peekable();
            loop {
                match (left.peek().copied(), right.peek().copied()) {
                    (None, None) => break,
                    (Some((i, x)), Some((j, z))) if i == j => {
                        f(x, z);
                        left.next();
                        right.next();
                    }
                    (Some((i, x)), Some((j, _))) if i < j => {
                        f(x, 0.0);
                        left.next();
                    }
                    (Some((i, x)), None) => {
                        let _ = i;
                        f(x, 0.0);
                        left.next();
                    }
                    (_, Some((_, z))) => {
                        f(0.0, z);
                        right.next();
                    }
                }
            }
        }
    }
}

/// `‖a − b‖²`, summed left to right by column.
#[inline]
pub(crate) fn squared_distance(a: RowView<'_>, b: RowView<'_>) -> f64 {
    let mut sum = 0.0;
    for_each_pair(a, b, |x, z| {
        let d = x - z;
        sum += d * d;
    });
    sum
}

/// An interval around `a·b` computed in `summation` order: the fast value with the a-priori bound
/// `|fl(a·b) − a·b| ≤ γₖ·Σ|aⱼbⱼ|` that holds for any order of summation (Higham, eq. 3.5), `k` the
/// number of terms, plus a subnormal allowance per term.
pub(crate) fn dot_interval(a: RowView<'_>, b: RowView<'_>, summation: Summation) -> Interval {
    let value = dot_rows(a, b, summation);
    let (magnitude, terms) = dot_magnitude(a, b);
    let error = gamma(terms + 2) * magnitude * (1.0 + 4.0 * gamma(terms + 2))
        + 4.0 * TINY * (terms + 2) as f64;
    Interval::around(value, error)
}

/// An interval around `‖a − b‖²`: every term is non-negative, so the left-to-right sum of the rounded
/// differences squared is within `γ_{k+2}` of the exact value, relatively.
pub(crate) fn squared_distance_interval(a: RowView<'_>, b: RowView<'_>) -> Interval {
    let mut value = 0.0;
    let mut terms = 0;
    for_each_pair(a, b, |x, z| {
        let d = x - z;
        value += d * d;
        terms += 1;
    });
    let error = gamma(terms + 3) * value * 1.01 + 4.0 * TINY * (terms + 3) as f64;
    Interval {
        lo: (value - error).next_down().max(0.0),
        hi: (value + error).next_up(),
    }
}

/// `base^k` by binary exponentiation with plain multiplications: the same bits everywhere (the
/// platform's `powi` is an intrinsic whose algorithm Rust does not promise).
#[inline]
pub(crate) fn power(base: f64, k: u32) -> f64 {
    let (mut result, mut square, mut k) = (1.0, base, k);
    while k > 0 {
        if k & 1 == 1 {
            result *= square;
        }
        k >>= 1;
        if k > 0 {
            square *= square;
        }
    }
    result
}

impl Kernel {
    /// `K(x, z)` for two rows, in `summation` order for the inner products. The same bits on every
    /// machine. For a precomputed kernel there are no rows: use [`Kernel::gram`].
    ///
    /// ```
    /// use novikoff::{dataset::RowView, kernel::{Gamma, KernelParams}, simd::Summation};
    /// let rbf = KernelParams::rbf().gamma(Gamma::Value(0.5)).check()?;
    /// let k = rbf.eval(RowView::Dense(&[0.0, 0.0]), RowView::Dense(&[1.0, 1.0]), Summation::Fast);
    /// assert!((k - (-1.0f64).exp()).abs() < 1e-16);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Panics
    /// For a precomputed kernel.
    #[inline]
    pub fn eval(&self, x: RowView<'_>, z: RowView<'_>, summation: Summation) -> f64 {
        match &self.kind {
            Kind::Linear => dot_rows(x, z, summation),
            Kind::Polynomial {
                degree,
                coef0,
                gamma,
            } => power(gamma * dot_rows(x, z, summation) + coef0, *degree),
            Kind::Rbf { gamma } => detmath::exp(-(gamma * squared_distance(x, z))),
            Kind::Precomputed(_) => {
                panic!("Kernel::eval on a precomputed kernel: its values are the Gram matrix's")
            }
        }
    }

    /// An interval that contains the exact `K(x, z)` of the stored rows (for the certified margin).
    pub(crate) fn eval_interval(
        &self,
        x: RowView<'_>,
        z: RowView<'_>,
        summation: Summation,
    ) -> Interval {
        match &self.kind {
            Kind::Linear => dot_interval(x, z, summation),
            Kind::Polynomial {
                degree,
                coef0,
                gamma,
            } => dot_interval(x, z, summation)
                .scale(*gamma)
                .add(Interval::point(*coef0))
                .powi(*degree),
            Kind::Rbf { gamma } => {
                let t = squared_distance_interval(x, z).scale(*gamma);
                let allowance = EXP_ULPS * 2.0 * UNIT_ROUNDOFF;
                let lo = detmath::exp(-t.hi) * (1.0 - allowance) - EXP_ULPS * TINY;
                let hi = detmath::exp(-t.lo) * (1.0 + allowance) + EXP_ULPS * TINY;
                Interval {
                    lo: lo.next_down().max(0.0),
                    hi: hi.next_up().min(1.0),
                }
            }
            Kind::Precomputed(_) => {
                panic!("Kernel::eval_interval on a precomputed kernel")
            }
        }
    }
}

/// A kernel on one dataset: `K(xᵢ, xⱼ)` by index, and `K(x, xⱼ)` for a new row, with the dot products in
/// one summation order. For a precomputed kernel the indices read the user's Gram matrix.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OnData<'a> {
    pub(crate) kernel: &'a Kernel,
    pub(crate) data: &'a Dataset,
    pub(crate) summation: Summation,
}

impl<'a> OnData<'a> {
    pub(crate) fn new(kernel: &'a Kernel, data: &'a Dataset, summation: Summation) -> Self {
        Self {
            kernel,
            data,
            summation,
        }
    }

    /// `K(xᵢ, xⱼ)`.
    #[inline]
    pub(crate) fn entry(&self, i: usize, j: usize) -> f64 {
        match &self.kernel.kind {
            Kind::Precomputed(gram) => gram.get(i, j),
            _ => self
                .kernel
                .eval(self.data.row_view(i), self.data.row_view(j), self.summation),
        }
    }

    /// An interval around the exact `K(xᵢ, xⱼ)`.
    #[inline]
    pub(crate) fn interval(&self, i: usize, j: usize) -> Interval {
        match &self.kernel.kind {
            Kind::Precomputed(gram) => Interval::point(gram.get(i, j)),
            _ => self.kernel.eval_interval(
                self.data.row_view(i),
                self.data.row_view(j),
                self.summation,
            ),
        }
    }

    /// `K(xᵢ, xⱼ)` for every `j`, into `out` (length n).
    pub(crate) fn row_into(&self, i: usize, out: &mut [f64]) {
        for (j, value) in out.iter_mut().enumerate() {
            *value = self.entry(i, j);
        }
    }

    /// The diagonal `K(xᵢ, xᵢ)`.
    pub(crate) fn diagonal(&self) -> Vec<f64> {
        (0..self.data.n_samples())
            .map(|i| self.entry(i, i))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{Gamma, KernelParams};

    #[test]
    fn sparse_and_dense_rows_give_the_same_values() {
        let dense_a = [0.0, 2.0, 0.0, -1.5, 0.25];
        let dense_b = [1.0, 0.5, 0.0, 3.0, 0.0];
        let sparse_a = RowView::Sparse {
            indices: &[1, 3, 4],
            values: &[2.0, -1.5, 0.25],
        };
        let sparse_b = RowView::Sparse {
            indices: &[0, 1, 3],
            values: &[1.0, 0.5, 3.0],
        };
        let (a, b) = (RowView::Dense(&dense_a), RowView::Dense(&dense_b));
        let seq = Summation::Sequential;
        assert_eq!(dot_rows(a, b, seq), dot_rows(sparse_a, sparse_b, seq));
        assert_eq!(dot_rows(a, b, seq), dot_rows(sparse_a, b, seq));
        assert_eq!(squared_distance(a, b), squared_distance(sparse_a, sparse_b));
        assert_eq!(squared_distance(a, b), squared_distance(a, sparse_b));
        assert_eq!(squared_distance(a, b), squared_distance(sparse_a, b));
        for kernel in [
            KernelParams::rbf()
                .gamma(Gamma::Value(0.3))
                .check()
                .unwrap(),
            KernelParams::polynomial(3)
                .coef0(1.0)
                .gamma(Gamma::Value(0.5))
                .check()
                .unwrap(),
        ] {
            let value = kernel.eval(a, b, seq);
            assert_eq!(value, kernel.eval(sparse_a, sparse_b, seq));
            let interval = kernel.eval_interval(sparse_a, b, seq);
            assert!(interval.lo <= value && value <= interval.hi, "{interval:?}");
            assert!(
                interval.hi - interval.lo < 1e-13 * value.abs().max(1e-300),
                "{interval:?}"
            );
        }
    }

    #[test]
    fn power_is_exact_for_small_integers() {
        assert_eq!(power(3.0, 0), 1.0);
        assert_eq!(power(3.0, 5), 243.0);
        assert_eq!(power(-2.0, 3), -8.0);
    }

    #[test]
    fn the_gaussian_interval_contains_the_value_in_extended_precision() {
        let rbf = KernelParams::rbf()
            .gamma(Gamma::Value(0.7))
            .check()
            .unwrap();
        let mut state = 7u64;
        for _ in 0..2000 {
            state = crate::rng::splitmix64(state);
            let a = [(state % 1000) as f64 / 97.0, 0.3];
            let b = [((state >> 20) % 1000) as f64 / 89.0, -0.1];
            let (x, z) = (RowView::Dense(&a), RowView::Dense(&b));
            let interval = rbf.eval_interval(x, z, Summation::Fast);
            // The platform's exp of the same argument lies inside too (it is within an ulp of exact).
            let reference = (-(0.7 * squared_distance(x, z))).exp();
            assert!(
                interval.lo <= reference && reference <= interval.hi,
                "{reference} not in {interval:?}"
            );
        }
    }
}
