//! Exact power-of-two scaling of a dataset into the range where the margin's arithmetic is rigorous.
//!
//! The bracket and the certificates are evaluated with compensated sums ([`super::accurate`]) whose error
//! bounds hold as long as no product or sum overflows, and Dekker's splitting overflows above about
//! 10³⁰⁰. Multiplying every value by `2^k` is exact (unless a value lands in the subnormal range), and the
//! geometry is homogeneous: the radius, the margin of every `(w, b)` (with `b` scaled too), the maximum
//! margin and a certificate's residual all scale by exactly `2^k`, while unit normals and certificate
//! weights do not change. So the margin layer solves on `2^k·X` and scales the answers back, rounding
//! lower bounds down and upper bounds up where the scaled-back value is subnormal.
//!
//! This lives here, in one place, because every rigorous statement of the crate (the bracket, the
//! certificate, the margin of a given separator) is made by this module's callers; the training loop
//! needs no scaling (it reports an overflow as a `non_finite` stop, and an activation that underflows to
//! zero as an `underflow` stop).
//!
//! Data whose largest value lies in `[2⁻³⁰⁰, 2³⁰⁰]` are used as they are (no copy); other data are scaled
//! so that the largest value lies in `[1, 2)`. When that scaling would round a non-zero value into the
//! subnormal range (10³⁰⁰ and 10⁻³⁰⁰ in one matrix), the data are refused with [`Error::Range`].

use std::borrow::Cow;

use super::accurate::{binary_exponent, times_power_of_two, unscale_down, unscale_up};
use super::points::Points;
use crate::dataset::Dataset;
use crate::error::{Error, Result};

/// Largest values with binary exponents in `-SAFE..=SAFE` are used unscaled.
const SAFE: i32 = 300;

/// A dataset in the safe range, with the exponent `k` of the scaling `2^k` that brought it there, and the
/// points' constant coordinate (when augmented) scaled with it.
#[derive(Debug)]
pub(crate) struct Scaled<'a> {
    data: Cow<'a, Dataset>,
    constant: Option<f64>,
    shift: i32,
}

impl<'a> Scaled<'a> {
    /// Bring `data` into the safe range, or refuse it.
    pub(crate) fn new(data: &'a Dataset) -> Result<Scaled<'a>> {
        Self::points(Points::from(data))
    }

    /// Bring the points (a constant coordinate included) into the safe range, or refuse them.
    pub(crate) fn points(points: Points<'a>) -> Result<Scaled<'a>> {
        let data = points.data();
        let constant = points.constant();
        // The dataset caches its largest value: data already in range cost no pass here.
        let largest = data.largest_value().max(constant.map_or(0.0, f64::abs));
        if largest == 0.0 || (-SAFE..=SAFE).contains(&binary_exponent(largest)) {
            return Ok(Scaled {
                data: Cow::Borrowed(data),
                constant,
                shift: 0,
            });
        }
        let values = data.stored_values().iter().chain(&constant).copied();
        let shift = shift_into_range(values, "feature")?;
        let data = if shift == 0 {
            Cow::Borrowed(data)
        } else {
            Cow::Owned(data.map_values(|v| times_power_of_two(v, shift)))
        };
        Ok(Scaled {
            data,
            constant: constant.map(|c| times_power_of_two(c, shift)),
            shift,
        })
    }

    /// The data the solvers work on.
    pub(crate) fn data(&self) -> &Dataset {
        &self.data
    }

    /// The points the solvers work on: the working data, with the scaled constant when augmented.
    pub(crate) fn working_points(&self) -> Points<'_> {
        match self.constant {
            Some(c) => Points::augmented(&self.data, c),
            None => Points::from(&*self.data),
        }
    }

    /// The exponent `k`: the working data are the original data times `2^k`.
    pub(crate) fn shift(&self) -> i32 {
        self.shift
    }

    /// A length of the working data as a length of the original data, to nearest.
    pub(crate) fn back(&self, x: f64) -> f64 {
        times_power_of_two(x, -self.shift)
    }

    /// A lower bound (of any sign) on a length of the working data, as a lower bound for the original.
    pub(crate) fn back_lower(&self, x: f64) -> f64 {
        if x >= 0.0 {
            unscale_down(x, -self.shift)
        } else {
            -unscale_up(-x, -self.shift)
        }
    }

    /// An upper bound (of any sign) on a length of the working data, as an upper bound for the original.
    pub(crate) fn back_upper(&self, x: f64) -> f64 {
        if x >= 0.0 {
            unscale_up(x, -self.shift)
        } else {
            -unscale_down(-x, -self.shift)
        }
    }

    /// A bias of the working data as a bias of the original, and whether the conversion was exact (it
    /// is not when the result is subnormal; the bias then moves by at most `2⁻¹⁰⁷⁴`).
    pub(crate) fn back_bias(&self, b: f64) -> (f64, bool) {
        let back = self.back(b);
        (back, times_power_of_two(back, self.shift) == b)
    }

    /// A bias of the original data in the working data's scale, if it fits.
    pub(crate) fn forward_bias(&self, b: f64) -> Result<f64> {
        let scaled = times_power_of_two(b, self.shift);
        if scaled.is_finite() && times_power_of_two(scaled, -self.shift) == b {
            Ok(scaled)
        } else {
            Err(Error::Range {
                reason: format!(
                    "the bias {b} cannot be scaled by 2^{} with the data without rounding",
                    self.shift
                ),
            })
        }
    }
}

/// The exponent `k` that brings the largest of `values` into `[1, 2)`, or 0 when it is already in the
/// safe range (or every value is 0). An error when `2^k` would round a non-zero value.
pub(crate) fn shift_into_range(values: impl IntoIterator<Item = f64>, what: &str) -> Result<i32> {
    let (mut largest, mut smallest) = (0.0_f64, f64::INFINITY);
    for v in values {
        let a = v.abs();
        largest = largest.max(a);
        if a > 0.0 {
            smallest = smallest.min(a);
        }
    }
    if largest == 0.0 {
        return Ok(0);
    }
    if !largest.is_finite() {
        return Err(Error::Range {
            reason: format!("a {what} value is {largest}, not finite"),
        });
    }
    let top = binary_exponent(largest);
    if (-SAFE..=SAFE).contains(&top) {
        return Ok(0);
    }
    let shift = -top;
    // Scaling up is exact; scaling down is exact while the smallest value stays normal.
    if shift < 0 && times_power_of_two(smallest, shift) < f64::MIN_POSITIVE {
        return Err(Error::Range {
            reason: format!(
                "the {what} values span {largest:e} to {smallest:e}: squares of the largest overflow, \
                 and scaling by 2^{shift} to prevent it would round the smallest (at most about 2^1000 \
                 between them is supported)"
            ),
        });
    }
    Ok(shift)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn ordinary_data_are_borrowed() {
        let data = Dataset::new(array![[1e-60, 3.0], [1e80, 0.0]], array![1.0, -1.0]).unwrap();
        let scaled = Scaled::new(&data).unwrap();
        assert_eq!(scaled.shift(), 0);
        assert!(matches!(scaled.data, Cow::Borrowed(_)));
    }

    #[test]
    fn extreme_data_are_scaled_exactly_or_refused() {
        let data = Dataset::new(array![[3e300, 1e-5], [-1e299, 0.0]], array![1.0, -1.0]).unwrap();
        let scaled = Scaled::new(&data).unwrap();
        let largest = scaled
            .data()
            .x()
            .iter()
            .fold(0.0_f64, |m, v| m.max(v.abs()));
        assert!((1.0..2.0).contains(&largest));
        assert_eq!(scaled.back(scaled.data().x()[[1, 0]]), -1e299);
        assert_eq!(scaled.back(scaled.data().x()[[0, 1]]), 1e-5);
        let tiny = Dataset::new(array![[3e-300], [-1e-310]], array![1.0, -1.0]).unwrap();
        assert!(Scaled::new(&tiny).unwrap().shift() > 900);
        let wide = Dataset::new(array![[1e300, 1e-300]], array![1.0]).unwrap();
        assert!(matches!(Scaled::new(&wide), Err(Error::Range { .. })));
    }
}
