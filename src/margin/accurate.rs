//! Compensated ("twice working precision") dot products and sums, with rigorous error bounds.
//!
//! The bracket `[lower, upper]` of [`max_margin`](super::max_margin()) must contain the exact maximum
//! margin of the stored `f64` data. A plain dot product of length `n` can be off by about `n·u·Σ|aᵢbᵢ|`
//! (`u = 2⁻⁵³`), which for a margin 10⁻⁸ of the radius is already a relative error of 10⁻⁶. The
//! algorithm `Dot2` of Ogita, Rump and Oishi (*Accurate sum and dot product*, SIAM J. Sci. Comput. 26,
//! 2005) computes the same sum as if in twice the precision, and its error is bounded by
//! `u·|result| + γₙ²·Σ|aᵢbᵢ|` with `γₙ = n·u/(1 − n·u)` (their Proposition 5.5). Products are split with
//! Dekker's algorithm rather than a fused multiply-add, so the results are the same on every CPU.
//! Dense products run `Dot2` in eight interleaved lanes ([`Accumulator::of_dot`]): the same
//! error-free steps in another order, within the same bound, and about six times faster than one
//! chain, which waits on each addition into its single sum (the hard 10⁴ × 1000 set of
//! `benches/margin_passes`, whose small margin puts its exact solve in this mode, spent 12 % of its
//! solve in them before, 2 % after).
//!
//! The bounds of the sums assume no overflow: the margin layer brings the data into range first by an
//! exact power-of-two scaling ([`super::scale`]). Underflow is covered by an absolute term of a few
//! subnormal units per operation, and [`norm_bounds`] and [`norm`](crate::dataset::norm) scale before they square, so lengths
//! never overflow or underflow on the way.

use super::points::Point;
use crate::dataset::RowView;
use crate::simd::{DOT_LANES, two_prod, two_sum};

/// The unit roundoff of `f64`, `2⁻⁵³`.
pub(crate) const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;

/// The smallest positive subnormal `f64`, `2⁻¹⁰⁷⁴`: the absolute error of one rounding in the subnormal
/// range.
pub(crate) const TINY: f64 = f64::from_bits(1);

/// `γₙ = n·u/(1 − n·u)`, the classical bound on the relative error of an `n`-term recursive sum.
#[inline]
pub(crate) fn gamma(n: usize) -> f64 {
    let nu = n as f64 * UNIT_ROUNDOFF;
    nu / (1.0 - nu)
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
    /// `Σ aᵢbᵢ` over the common prefix, by the vector kernel's eight lanes
    /// ([`simd::dot_compensated`](crate::simd::dot_compensated)): the same rounded products and
    /// error-free additions as [`Accumulator::add_product`] one at a time, in another order, so the
    /// same bound holds. The lanes' corrections take seven additions more than one chain's, counted
    /// as terms (the bound grows with them), so the bound covers them too.
    #[inline]
    pub(crate) fn of_dot(a: &[f64], b: &[f64]) -> Accumulator {
        let n = a.len().min(b.len());
        let dot = crate::simd::dot_compensated(&a[..n], &b[..n]);
        Accumulator {
            sum: dot.sum,
            correction: dot.correction,
            magnitude: dot.magnitude,
            terms: if n == 0 { 0 } else { n + DOT_LANES - 1 },
        }
    }

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

    /// Nothing was added: the value is exactly zero, with no error at all (the bound of
    /// [`Accumulator::error_bound`] keeps an underflow floor even then).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.terms == 0
    }

    /// The compensated result.
    #[inline]
    pub(crate) fn value(&self) -> f64 {
        self.sum + self.correction
    }

    /// A rigorous bound on `|value() − exact|`, with a factor-2 safety margin over the published bound to
    /// cover the rounding of the bound's own evaluation and of `magnitude`. The last term covers
    /// underflow, which the published bound excludes: a product or a split that falls into the subnormal
    /// range loses at most a few units of [`TINY`], and a sum of subnormals is exact.
    #[inline]
    pub(crate) fn error_bound(&self) -> f64 {
        let n = self.terms.max(1) + 1;
        let g = gamma(2 * n);
        2.0 * (UNIT_ROUNDOFF * self.value().abs() + g * g * self.magnitude * (1.0 + g))
            + 16.0 * TINY * n as f64
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
    Accumulator::of_dot(a, b).result()
}

/// `Σ aᵢbᵢ + c` in twice working precision, with its error bound.
#[inline]
pub(crate) fn dot2_plus(a: &[f64], b: &[f64], c: f64) -> (f64, f64) {
    let mut acc = Accumulator::of_dot(a, b);
    acc.add(c);
    acc.result()
}

/// `w·x` for a row of either storage, in twice working precision, with its error bound: [`dot2`] over
/// the stored entries (the unstored zeros add nothing).
#[inline]
pub(crate) fn row_dot2(w: &[f64], x: RowView<'_>) -> (f64, f64) {
    match x {
        RowView::Dense(x) => dot2(w, x),
        sparse => {
            let mut acc = Accumulator::default();
            for (j, v) in sparse.entries() {
                acc.add_product(w[j], v);
            }
            acc.result()
        }
    }
}

/// `w·x + c` for a row of either storage, as [`dot2_plus`].
#[inline]
pub(crate) fn row_dot2_plus(w: &[f64], x: RowView<'_>, c: f64) -> (f64, f64) {
    match x {
        RowView::Dense(x) => dot2_plus(w, x, c),
        sparse => entries_dot2_plus(w, sparse.entries(), c),
    }
}

/// `w·x + c` for a point (a row, or a row with its constant coordinate), as [`dot2_plus`].
#[inline]
pub(crate) fn point_dot2_plus(w: &[f64], x: Point<'_>, c: f64) -> (f64, f64) {
    match (x.row(), x.constant()) {
        (row, None) => row_dot2_plus(w, row, c),
        // A dense row's values by the lanes, then its constant, whose weight follows the row's.
        (RowView::Dense(values), Some(constant)) => {
            let d = values.len();
            let mut acc = Accumulator::of_dot(&w[..d], values);
            acc.add_product(w[d], constant);
            acc.add(c);
            acc.result()
        }
        (_, Some(_)) => entries_dot2_plus(w, x.entries(), c),
    }
}

/// `Σ w[j]·v + c` over `(j, v)` entries, as [`dot2_plus`].
#[inline]
fn entries_dot2_plus(w: &[f64], entries: impl Iterator<Item = (usize, f64)>, c: f64) -> (f64, f64) {
    let mut acc = Accumulator::default();
    for (j, v) in entries {
        acc.add_product(w[j], v);
    }
    acc.add(c);
    acc.result()
}

/// An interval `[lo, hi]` that contains `‖v‖` for the exact vector `v` with `|vⱼ − values[j]| ≤
/// errors[j]`.
///
/// The entries are first scaled by the power of two that brings the largest `|vⱼ| + eⱼ` into `[1, 2)`, so
/// that the squares neither overflow (values above about 10¹⁵⁴) nor underflow (below about 10⁻¹⁵⁴, where
/// a naive sum of squares is 0 and would certify a zero length). A non-finite entry gives `(0, ∞)`.
pub(crate) fn norm_bounds(values: &[f64], errors: &[f64]) -> (f64, f64) {
    norm_bounds_of(values.len(), |sink| {
        for (&v, &e) in values.iter().zip(errors) {
            sink(v, e);
        }
    })
}

/// [`norm_bounds`] of `count` entries that `entries` feeds to its sink as `(value, error)`, twice and
/// in the same order (once for the scale, once for the sums), for a vector too long to hold.
pub(crate) fn norm_bounds_of(
    count: usize,
    mut entries: impl FnMut(&mut dyn FnMut(f64, f64)),
) -> (f64, f64) {
    let (mut largest, mut finite) = (0.0_f64, true);
    entries(&mut |v, e| {
        let up = v.abs() + e;
        finite &= up.is_finite();
        largest = largest.max(up);
    });
    if !finite {
        return (0.0, f64::INFINITY);
    }
    if largest == 0.0 {
        return (0.0, 0.0);
    }
    let shift = -binary_exponent(largest);
    let mut hi = Accumulator::default();
    let mut lo = Accumulator::default();
    entries(&mut |v, e| {
        // Scaling down may round an entry into the subnormal range (by at most TINY), which the absolute
        // slack below covers; scaling up is exact.
        let v = times_power_of_two(v.abs(), shift);
        let e = times_power_of_two(e, shift);
        let up = v + e;
        let down = (v - e).max(0.0);
        hi.add_product(up, up);
        lo.add_product(down, down);
    });
    let n = count + 4;
    let slack = 4.0 * gamma(n);
    // In the scaled coordinates the largest entry is at least 1, so this absolute term is negligible.
    let absolute = n as f64 * f64::MIN_POSITIVE;
    let hi = ((hi.value() + hi.error_bound() + absolute) * (1.0 + slack)).sqrt() * (1.0 + slack);
    let lo = ((lo.value() - lo.error_bound() - absolute).max(0.0) * (1.0 - slack))
        .max(0.0)
        .sqrt()
        * (1.0 - slack);
    (unscale_down(lo.max(0.0), -shift), unscale_up(hi, -shift))
}

/// `e` with `2^e ≤ x < 2^{e+1}`, exactly, for a positive finite `x` (subnormals included).
pub(crate) fn binary_exponent(x: f64) -> i32 {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        let mantissa = bits & ((1 << 52) - 1);
        -1011 - mantissa.leading_zeros() as i32
    } else {
        biased - 1023
    }
}

/// `x·2^p`, exact unless the result overflows or is subnormal; `|p| ≤ 2000` (the factors are normal
/// powers of two, and while the product moves towards the result it stays normal whenever the result is).
pub(crate) fn times_power_of_two(x: f64, p: i32) -> f64 {
    let mut x = x;
    let mut p = p;
    while p != 0 {
        let step = p.clamp(-1000, 1000);
        x *= f64::from_bits(((1023 + step) as u64) << 52);
        p -= step;
    }
    x
}

/// `x·2^p` rounded so that it is at most the exact product, for a non-negative lower bound `x`: where
/// the product is subnormal (and may have rounded up) the result is 0, and an overflow gives `f64::MAX`.
pub(crate) fn unscale_down(x: f64, p: i32) -> f64 {
    let y = times_power_of_two(x, p);
    if y < f64::MIN_POSITIVE {
        0.0
    } else {
        y.min(f64::MAX)
    }
}

/// `x·2^p` rounded so that it is at least the exact product, for a non-negative upper bound `x`: a
/// product below the normal range is replaced by the smallest normal number.
pub(crate) fn unscale_up(x: f64, p: i32) -> f64 {
    let y = times_power_of_two(x, p);
    if x > 0.0 && y < f64::MIN_POSITIVE {
        f64::MIN_POSITIVE
    } else {
        y
    }
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

    /// Add `coefficient·x[j]` to component `j` (as [`Accumulator::add_product`]); `x` may be shorter
    /// than the vector, its missing entries zero.
    pub(crate) fn add_scaled(&mut self, coefficient: f64, x: &[f64]) {
        let n = x.len();
        crate::simd::axpy_compensated(
            coefficient,
            x,
            &mut self.sums[..n],
            &mut self.corrections[..n],
        );
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

    /// `Σ xᵢ` correctly rounded: Shewchuk's exact partials (as Python's `math.fsum`), for values whose
    /// sums stay in range.
    fn exact_sum(values: impl IntoIterator<Item = f64>) -> f64 {
        let mut partials: Vec<f64> = Vec::new();
        for mut x in values {
            let mut kept = 0;
            for k in 0..partials.len() {
                let (s, e) = two_sum(x, partials[k]);
                if e != 0.0 {
                    partials[kept] = e;
                    kept += 1;
                }
                x = s;
            }
            partials.truncate(kept);
            partials.push(x);
        }
        // The partials are non-overlapping and increasing: summed from the largest they round once,
        // but for a half-way case, which these tests' values do not meet.
        partials.iter().rev().fold(0.0, |acc, &p| acc + p)
    }

    /// The eight-lane `Dot2` against the exact products' correctly rounded sum, with terms spread over
    /// up to 10³² and the last one cancelling the rest, at every length around the lanes: the value is
    /// within its own bound, and the bound is as tight as Dot2's.
    #[test]
    fn dot2_in_lanes_is_within_its_bound_of_the_exact_sum() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for n in [1, 2, 7, 8, 9, 15, 16, 17, 31, 100, 1001] {
            for spread in [0.0, 8.0, 16.0, 32.0] {
                let a: Vec<f64> = (0..n)
                    .map(|_| next() * 10f64.powf(spread * next()))
                    .collect();
                let mut b: Vec<f64> = (0..n).map(|_| next()).collect();
                // The last product cancels most of the rest.
                let plain: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
                if n > 1 && a[n - 1] != 0.0 {
                    b[n - 1] -= plain / a[n - 1];
                }
                let exact = exact_sum(a.iter().zip(&b).flat_map(|(&x, &y)| {
                    let (p, e) = two_prod(x, y);
                    [p, e]
                }));
                let (value, bound) = dot2(&a, &b);
                assert!(
                    (value - exact).abs() <= bound,
                    "n={n} spread={spread}: {value} against {exact}, bound {bound}"
                );
                // And the bound is Dot2's, not a loose one: a rounding of the value and a term of
                // order `n²·u²` of the products' magnitude.
                let magnitude: f64 = a.iter().zip(&b).map(|(x, y)| (x * y).abs()).sum();
                let allowed = 4.0 * UNIT_ROUNDOFF * value.abs()
                    + 64.0 * (n as f64 + 8.0).powi(2) * UNIT_ROUNDOFF.powi(2) * magnitude
                    + 1e-300;
                assert!(bound <= allowed, "n={n} spread={spread}: bound {bound}");
                // One chain of `add_product` sums the same terms in another order: within both bounds.
                let mut chain = Accumulator::default();
                for (&x, &y) in a.iter().zip(&b) {
                    chain.add_product(x, y);
                }
                assert!((chain.value() - exact).abs() <= chain.error_bound());
            }
        }
    }

    /// A dense row with its constant coordinate (the `(x, 1)` and `(x, R)` problems) takes its values
    /// through the lanes and its constant after them: within its bound of the exact `w·(x, k) + c`, as
    /// the augmented copy of the dataset, read as a plain row, is.
    #[test]
    fn an_augmented_dense_point_is_within_its_bound_of_the_exact_sum() {
        use crate::dataset::Dataset;
        use ndarray::Array2;
        let d = 37;
        let x = Array2::from_shape_fn((3, d), |(i, j)| {
            (((i * 31 + j * 7919) % 101) as f64 - 50.0) * 10f64.powi((j % 9) as i32 - 4)
        });
        let data = Dataset::new(x, ndarray::array![1.0, -1.0, 1.0]).unwrap();
        let constant = 1e6;
        let points = super::super::points::Points::augmented(&data, constant);
        let copy = data.augment(constant);
        let w: Vec<f64> = (0..=d).map(|j| 1.0 / (j as f64 + 1.5)).collect();
        for i in 0..3 {
            let point = points.row(i);
            let c = -point.dot(&w, crate::simd::Summation::Sequential);
            let (value, bound) = point_dot2_plus(&w, point, c);
            let exact = exact_sum(
                point
                    .entries()
                    .flat_map(|(j, v)| {
                        let (p, e) = two_prod(w[j], v);
                        [p, e]
                    })
                    .chain([c]),
            );
            assert!(
                (value - exact).abs() <= bound,
                "{i}: {value} {exact} {bound}"
            );
            assert!(bound < 1e-12, "{i}: {bound}");
            // The augmented copy, read as a plain row, has its constant in the lanes: another
            // order, the same exact sum.
            let (copied, copied_bound) = row_dot2_plus(&w, copy.row_view(i), c);
            assert!(
                (copied - exact).abs() <= copied_bound,
                "{i}: {copied} {exact}"
            );
        }
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

    #[test]
    fn norm_bounds_neither_overflow_nor_underflow() {
        for scale in [1e-300, 1e-160, 1e160, 1e300] {
            let (lo, hi) = norm_bounds(&[3.0 * scale, 4.0 * scale], &[0.0, 0.0]);
            let want = 5.0 * scale;
            assert!(
                lo <= want && want <= hi && hi - lo < 1e-12 * want,
                "{scale}: {lo} {hi}"
            );
        }
        // A subnormal length is bounded above by a positive number, never by 0.
        let tiny = f64::from_bits(3);
        let (lo, hi) = norm_bounds(&[tiny], &[0.0]);
        assert!(lo <= tiny && hi >= tiny, "{lo} {hi}");
        assert_eq!(norm_bounds(&[f64::NAN], &[0.0]), (0.0, f64::INFINITY));
    }

    #[test]
    fn powers_of_two_cover_the_whole_range() {
        assert_eq!(binary_exponent(1.0), 0);
        assert_eq!(binary_exponent(f64::MAX), 1023);
        assert_eq!(binary_exponent(f64::MIN_POSITIVE), -1022);
        assert_eq!(binary_exponent(TINY), -1074);
        assert_eq!(times_power_of_two(TINY, 2097), 2f64.powi(1023));
        assert_eq!(times_power_of_two(3.0, -1), 1.5);
        assert_eq!(unscale_up(1.0, -1074), f64::MIN_POSITIVE);
        assert_eq!(unscale_up(1.5, -1074), f64::MIN_POSITIVE);
        assert_eq!(unscale_down(1.5, -1074), 0.0);
    }
}
