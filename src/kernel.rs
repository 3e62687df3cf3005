//! The hot loop: dot products and `axpy` with a documented, fixed summation order.
//!
//! # Summation orders
//!
//! Floating-point addition is not associative, so "the dot product" is only defined once its order is.
//! novikoff offers two, chosen with [`Summation`]:
//!
//! * [`Summation::Sequential`]: `s = 0; for i in 0..n { s = s + a[i]*b[i] }`, the plain left-to-right
//!   loop. It reproduces numpy's `for` loops, sklearn's Cython perceptron and the textbooks bit for bit.
//! * [`Summation::Fast`] (the default): [`LANES`] = 8 independent accumulators. Element `i` of the first
//!   `8·⌊n/8⌋` elements is added to accumulator `i mod 8`, in increasing `i`. The accumulators are then
//!   combined by the fixed tree `((a0+a4) + (a2+a6)) + ((a1+a5) + (a3+a7))`, and the `n mod 8` tail
//!   elements are summed left to right into a separate scalar that is added last.
//!
//! Each product `a[i]*b[i]` is rounded before it is added: fused multiply-add is never used, because FMA
//! is not available on every CPU and it changes the rounding. With these rules the result is a function of
//! the inputs alone, identical in every bit on every CPU and every code path.

/// Number of independent accumulators of [`Summation::Fast`].
pub const LANES: usize = 8;

/// Which summation order a dot product uses. See the [module documentation](self) for the exact orders.
///
/// ```
/// use novikoff::kernel::{dot, Summation};
/// let a = [1.0, 2.0, 3.0];
/// let b = [4.0, 5.0, 6.0];
/// assert_eq!(dot(&a, &b, Summation::Sequential), 32.0);
/// assert_eq!(dot(&a, &b, Summation::Fast), 32.0);
/// ```
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Summation {
    /// Left to right, one accumulator: bit-identical to the textbook loop.
    Sequential,
    /// Eight accumulators and a fixed reduction tree: fast and identical on every CPU.
    #[default]
    Fast,
}

impl Summation {
    /// The lower-case name used by the CLI and in result files.
    ///
    /// ```
    /// assert_eq!(novikoff::kernel::Summation::Fast.name(), "fast");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Summation::Sequential => "sequential",
            Summation::Fast => "fast",
        }
    }
}

/// `a · b` in the given summation order. The slices must have the same length.
///
/// ```
/// use novikoff::kernel::{dot, Summation};
/// assert_eq!(dot(&[1.0, -1.0], &[2.0, 3.0], Summation::Fast), -1.0);
/// ```
#[inline]
pub fn dot(a: &[f64], b: &[f64], summation: Summation) -> f64 {
    match summation {
        Summation::Sequential => dot_sequential(a, b),
        Summation::Fast => dot_fast(a, b),
    }
}

/// The left-to-right dot product.
///
/// ```
/// assert_eq!(novikoff::kernel::dot_sequential(&[0.1, 0.2], &[1.0, 1.0]), 0.1 + 0.2);
/// ```
#[inline]
pub fn dot_sequential(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    let mut sum = 0.0;
    for (x, y) in a.iter().zip(b) {
        sum += x * y;
    }
    sum
}

/// The fixed-order eight-accumulator dot product ([`Summation::Fast`]).
///
/// ```
/// let a: Vec<f64> = (0..19).map(f64::from).collect();
/// assert_eq!(novikoff::kernel::dot_fast(&a, &a), (0..19).map(|i| (i * i) as f64).sum::<f64>());
/// ```
#[inline]
pub fn dot_fast(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; LANES];
    let chunks = n / LANES;
    let (a_main, a_tail) = a.split_at(chunks * LANES);
    let (b_main, b_tail) = b.split_at(chunks * LANES);
    for (ca, cb) in a_main.chunks_exact(LANES).zip(b_main.chunks_exact(LANES)) {
        for lane in 0..LANES {
            acc[lane] += ca[lane] * cb[lane];
        }
    }
    let mut tail = 0.0;
    for (x, y) in a_tail.iter().zip(b_tail) {
        tail += x * y;
    }
    reduce_lanes(acc) + tail
}

/// The fixed reduction tree of [`Summation::Fast`].
#[inline(always)]
pub(crate) fn reduce_lanes(acc: [f64; LANES]) -> f64 {
    ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]))
}

/// `y ← y + alpha·x`, element by element (each `alpha·x[i]` rounded, then added; no FMA).
///
/// ```
/// let mut y = [1.0, 1.0];
/// novikoff::kernel::axpy(-2.0, &[1.0, 0.5], &mut y);
/// assert_eq!(y, [-1.0, 0.0]);
/// ```
#[inline]
pub fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    debug_assert_eq!(x.len(), y.len());
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_matches_its_documented_order() {
        // A reference written from the documentation, not from the implementation.
        let a: Vec<f64> = (0..37)
            .map(|i| ((i * 7919) % 113) as f64 * 0.37 - 11.0)
            .collect();
        let b: Vec<f64> = (0..37)
            .map(|i| ((i * 104729) % 97) as f64 * 0.13 - 3.0)
            .collect();
        let mut acc = [0.0; 8];
        for i in 0..32 {
            acc[i % 8] += a[i] * b[i];
        }
        let mut tail = 0.0;
        for i in 32..37 {
            tail += a[i] * b[i];
        }
        let expected = ((acc[0] + acc[4]) + (acc[2] + acc[6]))
            + ((acc[1] + acc[5]) + (acc[3] + acc[7]))
            + tail;
        assert_eq!(dot_fast(&a, &b).to_bits(), expected.to_bits());
    }

    #[test]
    fn empty_dot_is_zero() {
        assert_eq!(dot_fast(&[], &[]), 0.0);
        assert_eq!(dot_sequential(&[], &[]), 0.0);
    }
}
