//! Radius, margins and the exact maximum margin, with a certified bracket or a proof that no separator
//! exists.
//!
//! Every bound of the convergence theorem is a statement about two numbers of the data:
//!
//! * the **radius** `R = maxᵢ ‖xᵢ‖`, about the origin ([`radius`]);
//! * the **margin** of a separator `(w, b)`, `minᵢ yᵢ(w·xᵢ + b)/‖w‖`, negative when a point is on the wrong
//!   side ([`margin`], per example [`margins`]), and the **maximum margin** `γ*` over all separators
//!   ([`max_margin()`]), with a free bias or through the origin ([`Bias`]).
//!
//! CS 536 (seed 001, eq. 6) writes the margin as `min |w·x + b|/‖w‖`, the distance of the nearest point
//! to the plane whichever side it lies on. That is a different quantity (it is never negative, and it is
//! the margin only when `(w, b)` separates the data), available as [`unsigned_margin`].
//!
//! # The maximum margin and its certificate
//!
//! [`max_margin()`] returns a [`MarginResult`]:
//!
//! * [`MarginResult::Separable`]: a unit `w`, a bias `b` and a bracket `(lower, upper)` with
//!   `lower ≤ γ* ≤ upper`. `lower` is the margin the returned `(w, b)` achieves, evaluated on the data in
//!   twice working precision with a rounding-error bound; `upper` is the length of a point of a convex
//!   hull (the dual), evaluated the same way. Both are rigorous for the stored `f64` data.
//! * [`MarginResult::NotSeparable`]: a [`Certificate`], weights on the rows that anyone can check with
//!   [`Certificate::verify`]: the convex hulls of the two classes meet (free bias), or the origin lies in
//!   the convex hull of the `yᵢxᵢ` (through the origin, Gordan's alternative).
//! * [`MarginResult::Inaccurate`]: the solver could not reach the requested accuracy; the bracket it
//!   reports is still rigorous.
//!
//! The dual relations behind the bracket are, for free bias,
//! `γ* = ½ min ‖p − q‖` over `p ∈ conv{xᵢ : yᵢ = +1}` and `q ∈ conv{xⱼ : yⱼ = −1}`, and through the origin
//! `γ* = min ‖v‖` over `v ∈ conv{yᵢxᵢ}`. The data are separable exactly when these minima are positive.
//!
//! ```
//! use ndarray::array;
//! use novikoff::margin::{self, Bias, MarginResult};
//! use novikoff::Dataset;
//!
//! // Seed 004's worked example: R² = 5 and γ* = 1.
//! let x = array![[-1.0, 2.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [-1.0, -2.0], [1.0, -1.0]];
//! let data = Dataset::new(x, array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0])?;
//! assert!((margin::radius(&data).powi(2) - 5.0).abs() < 1e-12);
//! let result = margin::max_margin(&data, Bias::ThroughOrigin)?;
//! let (lower, upper) = result.bracket().unwrap();
//! assert!(lower <= 1.0 && 1.0 <= upper && upper - lower < 1e-9);
//! # Ok::<(), novikoff::Error>(())
//! ```

mod acceptance;
mod accurate;
mod certificate;
mod certify;
mod clarabel_socp;
mod column_set;
mod corral;
mod definite;
mod descent;
mod first_set;
mod lean;
mod lowest;
mod lp;
mod max_margin;
mod newton;
mod packed;
mod params;
mod points;
mod polish;
mod problem;
mod result;
mod round_state;
mod rounds;
mod scale;
mod scan;
mod shared_columns;
mod soft;
mod span;
mod store;
#[doc(hidden)]
pub mod svd;
mod working_set;

pub(crate) use acceptance::without_dust;
pub use certificate::Certificate;
pub use lp::{Separability, separable_lp};
pub use max_margin::max_margin;
pub use params::{DEFAULT_WORKING_SET_MEMORY, MaxMargin, MaxMarginParams};
pub(crate) use points::Points;
#[cfg(test)]
pub(crate) use points::narrow_and_wide;
pub use result::{MarginResult, SolveStats};
pub(crate) use soft::{
    SoftLoss, SoftMargin, SoftSettings, certified_unit_margins, weights_of_dual,
};

use ndarray::{Array1, ArrayView1};
use serde::{Deserialize, Serialize};

use crate::dataset::Dataset;
use crate::error::{Error, Result};
pub(crate) use accurate::{binary_exponent, times_power_of_two};
use accurate::{dot2, row_dot2_plus};

/// One full pass of the maximum-margin solver: `w·xᵢ` for every row, as each round of
/// [`max_margin()`] computes it (parallel over blocks of rows, in [`Summation::Fast`](crate::simd::Summation::Fast) order). Public for the
/// benches, which measure a solve in passes of the same process; not part of the API.
#[doc(hidden)]
pub fn full_pass(data: &Dataset, w: &[f64], scores: &mut Vec<f64>) {
    scan::scores_into(points::Points::from(data), w, scores);
}

/// Whether a separator may have a bias `b`.
///
/// ```
/// use novikoff::margin::Bias;
/// assert_eq!(Bias::Free.name(), "free");
/// assert_eq!(serde_json::to_string(&Bias::ThroughOrigin).unwrap(), "\"through_origin\"");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bias {
    /// Any hyperplane `w·x + b = 0`.
    Free,
    /// Hyperplanes through the origin, `w·x = 0` (the setting of Block–Novikoff and Haykin).
    ThroughOrigin,
}

impl Bias {
    /// `free` or `through_origin`, as in JSON output.
    ///
    /// ```
    /// assert_eq!(novikoff::margin::Bias::ThroughOrigin.name(), "through_origin");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Bias::Free => "free",
            Bias::ThroughOrigin => "through_origin",
        }
    }
}

/// The radius `R = maxᵢ ‖xᵢ‖`, measured about the origin (never the centroid). The same as
/// [`Dataset::radius`].
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[3.0, 4.0], [1.0, 0.0]], array![1.0, -1.0])?;
/// assert_eq!(novikoff::margin::radius(&data), 5.0);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn radius(data: &Dataset) -> f64 {
    data.radius()
}

/// Check a separator's shape and values.
fn check_separator(data: &Dataset, w: ArrayView1<'_, f64>, b: f64) -> Result<()> {
    if w.len() != data.n_features() {
        return Err(Error::Shape {
            what: "weights against features",
            expected: data.n_features(),
            found: w.len(),
        });
    }
    if let Some((j, v)) = w.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(Error::parameter(
            "w",
            format!("component {j} is {v}, not a finite number"),
        ));
    }
    if !b.is_finite() {
        return Err(Error::parameter("b", format!("{b} is not a finite number")));
    }
    // Compared entry by entry: a tiny w has a sum of squares that underflows to 0, and a margin.
    if w.iter().all(|&v| v == 0.0) {
        return Err(Error::parameter(
            "w",
            "the zero vector defines no hyperplane, so it has no margin",
        ));
    }
    Ok(())
}

/// The signed margin of every example, `yᵢ(w·xᵢ + b)/‖w‖`, negative for a misclassified point.
///
/// The dot products are computed in twice working precision, so each value is correct to a few units in
/// the last place even when `w·xᵢ` cancels heavily. Data and weights of any magnitude are handled by an
/// exact power-of-two scaling (the margin scales with the data and not at all with `w`), so values of
/// 10²⁰⁰ or 10⁻²⁰⁰ give the same margins as values of 1, times the scale.
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[2.0, 0.0], [-1.0, 0.0]], array![1.0, 1.0])?;
/// let m = novikoff::margin::margins(&data, array![2.0, 0.0].view(), 0.0)?;
/// assert_eq!(m.to_vec(), vec![2.0, -1.0]);
/// let huge = novikoff::Dataset::new(array![[2e300, 0.0], [-1e300, 0.0]], array![1.0, 1.0])?;
/// let m = novikoff::margin::margins(&huge, array![1e200, 0.0].view(), 0.0)?;
/// assert!((m[0] / 2e300 - 1.0).abs() < 1e-15 && (m[1] / -1e300 - 1.0).abs() < 1e-15);
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// [`Error::Shape`] when `w` has the wrong length, [`Error::Parameter`] when `w` is zero or a value is
/// not finite, [`Error::Range`] when the data, `w` or `b` span a range no power-of-two scaling brings
/// into range.
pub fn margins(data: &Dataset, w: ArrayView1<'_, f64>, b: f64) -> Result<Array1<f64>> {
    check_separator(data, w, b)?;
    let scaled = scale::Scaled::new(data)?;
    let w = w.to_vec();
    let w_shift = scale::shift_into_range(w.iter().copied(), "weight")?;
    let w: Vec<f64> = w
        .iter()
        .map(|&v| accurate::times_power_of_two(v, w_shift))
        .collect();
    let b = scaled.forward_bias(b)?;
    let b_scaled = accurate::times_power_of_two(b, w_shift);
    if !b_scaled.is_finite() || accurate::times_power_of_two(b_scaled, -w_shift) != b {
        return Err(Error::Range {
            reason: format!("the bias {b} is out of proportion to the weights"),
        });
    }
    let norm = dot2(&w, &w).0.sqrt();
    let data = scaled.data();
    Ok((0..data.n_samples())
        .map(|i| {
            let (s, _) = row_dot2_plus(&w, data.row_view(i), b_scaled);
            scaled.back(data.labels()[i] * s / norm)
        })
        .collect())
}

/// The geometric margin of the separator `(w, b)` on the data: `minᵢ yᵢ(w·xᵢ + b)/‖w‖`. It is negative
/// when some point lies on the wrong side, and zero when a point lies on the plane.
///
/// ```
/// use ndarray::array;
/// // Seed 004: the final weights (3, 1) of the worked example have margin 1/√10 (row 0 is closest).
/// let x = array![[-1.0, 2.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [-1.0, -2.0], [1.0, -1.0]];
/// let data = novikoff::Dataset::new(x, array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0])?;
/// let gamma = novikoff::margin::margin(&data, array![3.0, 1.0].view(), 0.0)?;
/// assert!((gamma - 1.0 / 10f64.sqrt()).abs() < 1e-15);
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// As [`margins`].
pub fn margin(data: &Dataset, w: ArrayView1<'_, f64>, b: f64) -> Result<f64> {
    Ok(margins(data, w, b)?.fold(f64::INFINITY, |m, &v| m.min(v)))
}

/// The **unsigned** margin of CS 536 (seed 001, eq. 6): `minᵢ |w·xᵢ + b|/‖w‖`, the distance from the
/// plane to the nearest point on either side.
///
/// This is a different quantity from [`margin`]: it ignores the labels, so it is never negative and it
/// can be large for a plane that misclassifies everything. It equals [`margin`] exactly when `(w, b)`
/// separates the data.
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[2.0], [-1.0]], array![1.0, 1.0])?;
/// // The point at -1 is misclassified: the signed margin is -1, the unsigned one +1.
/// assert_eq!(novikoff::margin::margin(&data, array![1.0].view(), 0.0)?, -1.0);
/// assert_eq!(novikoff::margin::unsigned_margin(&data, array![1.0].view(), 0.0)?, 1.0);
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// As [`margins`].
pub fn unsigned_margin(data: &Dataset, w: ArrayView1<'_, f64>, b: f64) -> Result<f64> {
    Ok(margins(data, w, b)?.fold(f64::INFINITY, |m, &v| m.min(v.abs())))
}
