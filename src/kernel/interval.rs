//! Closed intervals of `f64` with outward rounding: every kernel value and every sum the certified
//! margin reads is an interval that contains the exact real number.
//!
//! Each operation rounds to nearest and then steps one `f64` outwards (`next_down` for the lower end,
//! `next_up` for the upper), so the result contains the exact result of the operation on any points of
//! the operands: IEEE 754 rounds every `+ − × ÷ √` correctly, within half a unit in the last place of the
//! exact value, and one step covers it.

/// `[lo, hi]` with `lo ≤ hi`, or an empty-of-information `[−∞, ∞]` after an overflow or a NaN.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Interval {
    pub(crate) lo: f64,
    pub(crate) hi: f64,
}

/// The unit roundoff `2⁻⁵³`.
pub(crate) const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;
/// The smallest positive subnormal: the absolute error of one rounding in the subnormal range.
pub(crate) const TINY: f64 = f64::from_bits(1);

impl Interval {
    pub(crate) const ZERO: Interval = Interval { lo: 0.0, hi: 0.0 };
    const EVERYTHING: Interval = Interval {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };

    /// The point `x`.
    #[inline]
    pub(crate) fn point(x: f64) -> Interval {
        Interval { lo: x, hi: x }
    }

    /// `[x − e, x + e]`, rounded outwards.
    #[inline]
    pub(crate) fn around(x: f64, error: f64) -> Interval {
        Interval {
            lo: (x - error).next_down(),
            hi: (x + error).next_up(),
        }
        .sane()
    }

    /// A NaN anywhere (∞ − ∞, 0·∞) turns into "anything".
    #[inline]
    fn sane(self) -> Interval {
        if self.lo.is_nan() || self.hi.is_nan() {
            Interval::EVERYTHING
        } else {
            self
        }
    }

    /// `self + other`.
    #[inline]
    pub(crate) fn add(self, other: Interval) -> Interval {
        Interval {
            lo: (self.lo + other.lo).next_down(),
            hi: (self.hi + other.hi).next_up(),
        }
        .sane()
    }

    /// `self · other`.
    #[inline]
    pub(crate) fn mul(self, other: Interval) -> Interval {
        let products = [
            self.lo * other.lo,
            self.lo * other.hi,
            self.hi * other.lo,
            self.hi * other.hi,
        ];
        if products.iter().any(|p| p.is_nan()) {
            return Interval::EVERYTHING;
        }
        let lo = products.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = products.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Interval {
            lo: lo.next_down(),
            hi: hi.next_up(),
        }
    }

    /// `self · s` for a point `s`.
    #[inline]
    pub(crate) fn scale(self, s: f64) -> Interval {
        self.mul(Interval::point(s))
    }

    /// `self^k` for `k ≥ 1`, by repeated multiplication (an even power of an interval around 0 starts
    /// at 0).
    pub(crate) fn powi(self, k: u32) -> Interval {
        let magnitude = Interval {
            lo: if self.lo <= 0.0 && self.hi >= 0.0 {
                0.0
            } else {
                self.lo.abs().min(self.hi.abs())
            },
            hi: self.lo.abs().max(self.hi.abs()),
        };
        let mut result = Interval::point(1.0);
        for _ in 0..k {
            result = result.mul(magnitude);
        }
        let result = Interval {
            lo: result.lo.max(0.0),
            hi: result.hi,
        };
        if k.is_multiple_of(2) || self.lo >= 0.0 {
            result
        } else if self.hi <= 0.0 {
            Interval {
                lo: -result.hi,
                hi: -result.lo,
            }
        } else {
            // An odd power of an interval around 0: between −|lo|^k and hi^k.
            Interval {
                lo: -result.hi,
                hi: result.hi,
            }
        }
    }

    /// `√self`, the negative part clipped at 0.
    #[inline]
    pub(crate) fn sqrt(self) -> Interval {
        Interval {
            lo: self.lo.max(0.0).sqrt().next_down().max(0.0),
            hi: self.hi.max(0.0).sqrt().next_up(),
        }
        .sane()
    }

    /// The midpoint.
    #[inline]
    pub(crate) fn mid(self) -> f64 {
        if self.lo.is_finite() && self.hi.is_finite() {
            0.5 * self.lo + 0.5 * self.hi
        } else {
            f64::NAN
        }
    }

    /// True when both ends are finite.
    #[inline]
    pub(crate) fn is_finite(self) -> bool {
        self.lo.is_finite() && self.hi.is_finite()
    }
}

/// `γₙ = n·u/(1 − n·u)`, the classical bound on the relative error of `n` roundings (Higham, Lemma 3.1).
#[inline]
pub(crate) fn gamma(n: usize) -> f64 {
    let nu = n as f64 * UNIT_ROUNDOFF;
    nu / (1.0 - nu)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_contain_the_exact_result() {
        let third = Interval::point(1.0).mul(Interval::point(1.0 / 3.0));
        assert!(third.lo < 1.0 / 3.0 && 1.0 / 3.0 < third.hi);
        let sum = Interval::point(0.1).add(Interval::point(0.2));
        // 0.1 + 0.2 (the stored doubles) is exactly 0.3000000000000000166533453693773481063544750213623046875.
        assert!(sum.lo <= 0.30000000000000004 && sum.hi >= 0.3);
        let square = Interval { lo: -2.0, hi: 1.0 }.powi(2);
        assert!(square.lo == 0.0 && square.hi >= 4.0 && square.hi < 4.0 + 1e-14);
        let cube = Interval { lo: -2.0, hi: 1.0 }.powi(3);
        assert!(cube.lo <= -8.0 && cube.hi >= 1.0);
        let negative = Interval { lo: -3.0, hi: -2.0 }.powi(3);
        assert!(negative.lo <= -27.0 && negative.hi >= -8.0 && negative.hi < -7.99);
        assert_eq!(
            Interval::point(f64::INFINITY).add(Interval::point(f64::NEG_INFINITY)),
            Interval::EVERYTHING
        );
        let root = Interval { lo: -1.0, hi: 4.0 }.sqrt();
        assert!(root.lo == 0.0 && root.hi >= 2.0);
    }
}
