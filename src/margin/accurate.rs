//! Compensated ("twice working precision") dot products and sums, with rigorous error bounds.
//!
//! The bracket `[lower, upper]` of [`max_margin`](super::max_margin()) must contain the exact maximum
//! margin of the stored `f64` data. A plain dot product of length `n` can be off by about `n·u·Σ|aᵢbᵢ|`
//! (`u = 2⁻⁵³`), which for a margin 10⁻⁸ of the radius is already a relative error of 10⁻⁶. The
//! algorithm `Dot2` of Ogita, Rump and Oishi (*Accurate sum and dot product*, SIAM J. Sci. Comput. 26,
//! 2005) computes the same sum as if in twice the precision, and its error is bounded by
//! `u·|result| + γₙ²·Σ|aᵢbᵢ|` with `γₙ = n·u/(1 − n·u)` (their Proposition 5.5). Products are split with
//! Dekker's algorithm rather than a fused multiply-add, so the results are the same on every CPU.
//!
//! The bounds assume no underflow or overflow: values between about 10⁻¹⁵⁰ and 10¹⁵⁰ in magnitude.

/// The unit roundoff of `f64`, `2⁻⁵³`.
pub(crate) const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;

/// `γₙ = n·u/(1 − n·u)`, the classical bound on the relative error of an `n`-term recursive sum.
#[inline]
pub(crate) fn gamma(n: usize) -> f64 {
    let nu = n as f64 * UNIT_ROUNDOFF;
    nu / (1.0 - nu)
}

/// `a + b = s + e` exactly (Knuth's TwoSum).
#[inline]
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// Split `a` into two halves of 26 significant bits each (Dekker).
#[inline]
fn split(a: f64) -> (f64, f64) {
    const SPLITTER: f64 = 134_217_729.0; // 2^27 + 1
    let c = SPLITTER * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// `a·b = p + e` exactly (Dekker's TwoProduct, no fused multiply-add).
#[inline]
pub(crate) fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    let e = al * bl - (((p - ah * bh) - al * bh) - ah * bl);
    (p, e)
}

/// A running compensated sum of products: the state of `Dot2`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Accumulator {
    sum: f64,
    correction: f64,
    magnitude: f64,
    terms: usize,
}

impl Accumulator {
    /// Add `a·b`.
    #[inline]
    pub(crate) fn add_product(&mut self, a: f64, b: f64) {
        let (p, ep) = two_prod(a, b);
        let (s, es) = two_sum(self.sum, p);
        self.sum = s;
        self.correction += ep + es;
        self.magnitude += p.abs();
        self.terms += 1;
    }

    /// Add `a` exactly as a term.
    #[inline]
    pub(crate) fn add(&mut self, a: f64) {
        let (s, es) = two_sum(self.sum, a);
        self.sum = s;
        self.correction += es;
        self.magnitude += a.abs();
        self.terms += 1;
    }

    /// The compensated result.
    #[inline]
    pub(crate) fn value(&self) -> f64 {
        self.sum + self.correction
    }

    /// A rigorous bound on `|value() − exact|`, with a factor-2 safety margin over the published bound to
    /// cover the rounding of the bound's own evaluation and of `magnitude`.
    #[inline]
    pub(crate) fn error_bound(&self) -> f64 {
        let n = self.terms.max(1) + 1;
        let g = gamma(2 * n);
        2.0 * (UNIT_ROUNDOFF * self.value().abs() + g * g * self.magnitude * (1.0 + g))
    }

    /// `value()` together with `error_bound()`.
    #[inline]
    pub(crate) fn result(&self) -> (f64, f64) {
        (self.value(), self.error_bound())
    }
}

/// `Σ aᵢbᵢ` in twice working precision, with its error bound.
#[inline]
pub(crate) fn dot2(a: &[f64], b: &[f64]) -> (f64, f64) {
    debug_assert_eq!(a.len(), b.len());
    let mut acc = Accumulator::default();
    for (&x, &y) in a.iter().zip(b) {
        acc.add_product(x, y);
    }
    acc.result()
}

/// `Σ aᵢbᵢ + c` in twice working precision, with its error bound.
#[inline]
pub(crate) fn dot2_plus(a: &[f64], b: &[f64], c: f64) -> (f64, f64) {
    let mut acc = Accumulator::default();
    for (&x, &y) in a.iter().zip(b) {
        acc.add_product(x, y);
    }
    acc.add(c);
    acc.result()
}

/// An interval `[lo, hi]` that contains `‖v‖` for the exact vector `v` with `|vⱼ − values[j]| ≤
/// errors[j]`.
pub(crate) fn norm_bounds(values: &[f64], errors: &[f64]) -> (f64, f64) {
    let mut hi = Accumulator::default();
    let mut lo = Accumulator::default();
    for (&v, &e) in values.iter().zip(errors) {
        let up = v.abs() + e;
        let down = (v.abs() - e).max(0.0);
        hi.add_product(up, up);
        lo.add_product(down, down);
    }
    let n = values.len() + 4;
    let slack = 4.0 * gamma(n);
    let hi = ((hi.value() + hi.error_bound()) * (1.0 + slack)).sqrt() * (1.0 + slack);
    let lo = ((lo.value() - lo.error_bound()).max(0.0) * (1.0 - slack))
        .max(0.0)
        .sqrt()
        * (1.0 - slack);
    (lo.max(0.0), hi)
}

/// A vector of [`Accumulator`]s without their error bookkeeping, stored as two arrays (sums and
/// corrections) so that the per-component loop vectorises: the compensated `Σₖ cₖ·xₖ` of whole rows,
/// with the same operations in the same order, hence the same bits, as one `Accumulator` per component.
#[derive(Debug, Clone)]
pub(crate) struct CompensatedVector {
    sums: Vec<f64>,
    corrections: Vec<f64>,
}

impl CompensatedVector {
    /// `len` zeros.
    pub(crate) fn zeros(len: usize) -> Self {
        Self {
            sums: vec![0.0; len],
            corrections: vec![0.0; len],
        }
    }

    /// Add each `x[j]` as a term (as [`Accumulator::add`]).
    pub(crate) fn add(&mut self, x: &[f64]) {
        for ((s, c), &a) in self.sums.iter_mut().zip(&mut self.corrections).zip(x) {
            let (sum, e) = two_sum(*s, a);
            *s = sum;
            *c += e;
        }
    }

    /// Add `coefficient·x[j]` to component `j` (as [`Accumulator::add_product`]).
    pub(crate) fn add_scaled(&mut self, coefficient: f64, x: &[f64]) {
        for ((s, c), &a) in self.sums.iter_mut().zip(&mut self.corrections).zip(x) {
            let (p, ep) = two_prod(coefficient, a);
            let (sum, es) = two_sum(*s, p);
            *s = sum;
            *c += ep + es;
        }
    }

    /// The compensated values (as [`Accumulator::value`]).
    pub(crate) fn values(&self) -> Vec<f64> {
        self.sums
            .iter()
            .zip(&self.corrections)
            .map(|(s, c)| s + c)
            .collect()
    }
}

/// Round a lower bound further down by a few ulps, to cover the rounding of the last operation.
#[inline]
pub(crate) fn round_down(x: f64) -> f64 {
    x - 4.0 * UNIT_ROUNDOFF * x.abs() - f64::MIN_POSITIVE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_prod_is_exact() {
        let a = 1.0 + f64::EPSILON;
        let b = 1.0 - f64::EPSILON;
        let (p, e) = two_prod(a, b);
        // (1+ε)(1−ε) = 1 − ε², which rounds to 1 with error −ε².
        assert_eq!(p, 1.0);
        assert_eq!(e, -f64::EPSILON * f64::EPSILON);
    }

    #[test]
    fn dot2_survives_cancellation() {
        // 1e16 + 1 − 1e16 is 0 in plain arithmetic and 1 in exact arithmetic.
        let a = [1e16, 1.0, -1e16];
        let b = [1.0, 1.0, 1.0];
        let plain: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert_eq!(plain, 0.0);
        let (value, bound) = dot2(&a, &b);
        assert_eq!(value, 1.0);
        assert!(bound < 1e-10, "{bound}");
    }

    #[test]
    fn compensated_vector_matches_one_accumulator_per_component() {
        let rows = [[1e16, 0.1, -3.0], [1.0, 0.2, 1e-17], [-1e16, 0.3, 3.0]];
        let coefficients = [1.0, 3.0, 1.0];
        let mut vector = CompensatedVector::zeros(3);
        vector.add(&[0.5, -0.0, 1e-30]);
        let mut scalars = [Accumulator::default(); 3];
        for (a, &x) in scalars.iter_mut().zip(&[0.5, -0.0, 1e-30]) {
            a.add(x);
        }
        for (row, &c) in rows.iter().zip(&coefficients) {
            vector.add_scaled(c, row);
            for (a, &x) in scalars.iter_mut().zip(row) {
                a.add_product(c, x);
            }
        }
        let expected: Vec<u64> = scalars.iter().map(|a| a.value().to_bits()).collect();
        let found: Vec<u64> = vector.values().iter().map(|v| v.to_bits()).collect();
        assert_eq!(found, expected);
        // 1e16 + 3 − 1e16 + 0.5 is 3.5 only with compensation.
        assert_eq!(vector.values()[0], 3.5);
    }

    #[test]
    fn norm_bounds_contain_the_norm() {
        let (lo, hi) = norm_bounds(&[3.0, 4.0], &[0.0, 0.0]);
        assert!(lo <= 5.0 && 5.0 <= hi && hi - lo < 1e-13, "{lo} {hi}");
        let (lo, hi) = norm_bounds(&[3.0, 4.0], &[0.5, 0.5]);
        assert!(
            (4.30..4.302).contains(&lo) && (5.700..5.71).contains(&hi),
            "{lo} {hi}"
        );
    }
}
