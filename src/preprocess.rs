//! Feature transforms, and what each one does to the theorem's quantities R and γ.
//!
//! The mistake bound `(R/γ)²` is not invariant under the usual preprocessing. Each function here returns
//! the transformed dataset **and** the fitted transform, so the same map can be applied to other data
//! (a test set) with [`Transform::apply`]:
//!
//! | function | map | R | γ | separability |
//! |---|---|---|---|---|
//! | [`standardize`] | `xⱼ ↦ (xⱼ − μⱼ)/σⱼ` | changes | changes | kept **with** bias; through the origin it can be lost or gained |
//! | [`min_max`] | `xⱼ ↦ (xⱼ − minⱼ)/(maxⱼ − minⱼ)` | ≤ √d | changes | kept with bias; through the origin usually lost |
//! | [`scale_to_unit_ball`] | `x ↦ x/R` | 1 | γ/R | kept; `R/γ` and the bound unchanged |
//! | [`add_bias_column`] | `x ↦ (x, c)` | √(R² + c²) | see below | with bias ⇔ through the origin after |
//!
//! R is always `max ‖xᵢ‖` about the origin, as everywhere in the crate.
//!
//! ```
//! use ndarray::array;
//! use novikoff::{preprocess, Dataset};
//! let train = Dataset::new(array![[1.0, 10.0], [3.0, 30.0]], array![1.0, -1.0])?;
//! let (scaled, fitted) = preprocess::standardize(&train)?;
//! assert_eq!(scaled.x(), array![[-1.0, -1.0], [1.0, 1.0]]);
//! let test = Dataset::new(array![[2.0, 20.0]], array![1.0])?;
//! use novikoff::preprocess::Transform;
//! assert_eq!(fitted.apply(&test)?.x(), array![[0.0, 0.0]]);
//! # Ok::<(), novikoff::Error>(())
//! ```

use ndarray::Array1;
use serde::{Deserialize, Serialize};

use crate::dataset::Dataset;
use crate::error::{Error, Result};

/// A fitted transform that can be applied to any dataset with the same number of features.
pub trait Transform {
    /// Apply the fitted map to `data` (labels unchanged).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::preprocess::{scale_to_unit_ball, Transform};
    /// let data = novikoff::Dataset::new(array![[3.0, 4.0], [0.0, 1.0]], array![1.0, -1.0])?;
    /// let (_, fitted) = scale_to_unit_ball(&data)?;
    /// let other = novikoff::Dataset::new(array![[10.0, 0.0]], array![1.0])?;
    /// assert_eq!(fitted.apply(&other)?.x(), array![[2.0, 0.0]]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    fn apply(&self, data: &Dataset) -> Result<Dataset>;
}

fn check_width(expected: usize, data: &Dataset) -> Result<()> {
    if data.n_features() != expected {
        return Err(Error::Shape {
            what: "features against the fitted transform",
            expected,
            found: data.n_features(),
        });
    }
    Ok(())
}

/// Apply `f(j, value)` to every entry, keeping the labels.
///
/// A sparse dataset stays sparse when `f` keeps every zero at zero (a scaling); otherwise (a shift) it is
/// densified, within [`DENSIFY_LIMIT_BYTES`](crate::dataset::DENSIFY_LIMIT_BYTES).
fn map_entries(data: &Dataset, f: impl Fn(usize, f64) -> f64) -> Result<Dataset> {
    if let Some(x) = data.csr() {
        if (0..data.n_features()).all(|j| f(j, 0.0) == 0.0) {
            let mut x = x.to_owned();
            for mut row in x.outer_iterator_mut() {
                for (j, v) in row.iter_mut() {
                    *v = f(j, *v);
                }
            }
            return Dataset::from_csr(x, data.y().to_owned());
        }
        return map_entries(&*data.densified("a preprocessing shift")?, f);
    }
    let (n, d) = data.x().dim();
    let mut values = crate::simd::advised_buffer(n * d);
    for row in data.x().rows() {
        values.extend(row.iter().enumerate().map(|(j, &v)| f(j, v)));
    }
    let x =
        ndarray::Array2::from_shape_vec((n, d), values).expect("n rows of d values were written");
    Dataset::new(x, data.y().to_owned())
}

/// Per-feature means and standard deviations, as fitted by [`standardize`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standardizer {
    /// The mean μⱼ of each feature.
    pub mean: Array1<f64>,
    /// The population standard deviation σⱼ of each feature (1 for a constant feature).
    pub scale: Array1<f64>,
}

impl Transform for Standardizer {
    fn apply(&self, data: &Dataset) -> Result<Dataset> {
        check_width(self.mean.len(), data)?;
        map_entries(data, |j, v| (v - self.mean[j]) / self.scale[j])
    }
}

/// Standardise every feature to mean 0 and standard deviation 1: `xⱼ ↦ (xⱼ − μⱼ)/σⱼ`, with the
/// population σ (divide by n, as scikit-learn's `StandardScaler`). A constant feature becomes 0.
///
/// **Effect on the theorem.** This is an invertible affine map, so a separator *with bias* survives
/// (`w' = σ ⊙ w`, `b' = b + w·μ`) but its margin and the radius both change, and `R/γ` can grow or
/// shrink: it helps when raw feature scales differ wildly (the `anisotropic` generator), not otherwise.
/// Because the origin moves to the mean, data **separable through the origin can stop being so** (and the
/// other way round), which matters for the no-bias perceptron:
///
/// ```
/// use ndarray::array;
/// // 1-D: positives at 1, 2, 3, 100 and a negative at −1 are separable through the origin (w = 1) …
/// let data = novikoff::Dataset::new(array![[1.0], [2.0], [3.0], [100.0], [-1.0]],
///                                    array![1.0, 1.0, 1.0, 1.0, -1.0])?;
/// let through_origin = |d: &novikoff::Dataset| {
///     let s: Vec<f64> = (0..d.n_samples()).map(|i| d.labels()[i] * d.row(i)[0]).collect();
///     s.iter().all(|&v| v > 0.0) || s.iter().all(|&v| v < 0.0)
/// };
/// assert!(through_origin(&data));
/// // … but the mean is 21, so after standardising 1, 2, 3 are negative and 100 positive: no w works.
/// let (standard, fitted) = novikoff::preprocess::standardize(&data)?;
/// assert!(!through_origin(&standard));
/// assert_eq!(fitted.mean[0], 21.0);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn standardize(data: &Dataset) -> Result<(Dataset, Standardizer)> {
    // Centring fills every zero: a sparse dataset is standardised densely.
    let data = &*data.densified("standardisation")?;
    let n = data.n_samples() as f64;
    let d = data.n_features();
    let mut mean = Array1::zeros(d);
    for i in 0..data.n_samples() {
        for (m, v) in mean.iter_mut().zip(data.row(i)) {
            *m += v;
        }
    }
    mean.mapv_inplace(|m| m / n);
    let mut variance = Array1::<f64>::zeros(d);
    for i in 0..data.n_samples() {
        for ((s, v), m) in variance.iter_mut().zip(data.row(i)).zip(&mean) {
            *s += (v - m) * (v - m);
        }
    }
    let scale = variance.mapv(|s| {
        let sigma = (s / n).sqrt();
        if sigma > 0.0 { sigma } else { 1.0 }
    });
    let fitted = Standardizer { mean, scale };
    Ok((fitted.apply(data)?, fitted))
}

/// Per-feature minimum and range, as fitted by [`min_max`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MinMax {
    /// The minimum of each feature.
    pub min: Array1<f64>,
    /// `max − min` of each feature (1 for a constant feature).
    pub range: Array1<f64>,
}

impl Transform for MinMax {
    fn apply(&self, data: &Dataset) -> Result<Dataset> {
        check_width(self.min.len(), data)?;
        map_entries(data, |j, v| (v - self.min[j]) / self.range[j])
    }
}

/// Scale every feature into [0, 1]: `xⱼ ↦ (xⱼ − minⱼ)/(maxⱼ − minⱼ)`. A constant feature becomes 0.
///
/// **Effect on the theorem.** Affine and invertible, so separability with bias survives, with a new
/// margin. Every point lands in the unit cube, so R ≤ √d. The whole dataset now lies in the positive
/// orthant, with the origin at a corner of the cube: a hyperplane through the origin must pass by that
/// corner, so **separability through the origin is usually lost** and the no-bias perceptron needs a
/// bias column (see [`add_bias_column`]).
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[-2.0, 5.0], [2.0, 5.0], [0.0, 5.0]], array![1.0, -1.0, 1.0])?;
/// let (scaled, fitted) = novikoff::preprocess::min_max(&data)?;
/// assert_eq!(scaled.x(), array![[0.0, 0.0], [1.0, 0.0], [0.5, 0.0]]);
/// assert_eq!(fitted.range.to_vec(), vec![4.0, 1.0]);
/// assert!(scaled.radius() <= 2f64.sqrt());
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn min_max(data: &Dataset) -> Result<(Dataset, MinMax)> {
    let data = &*data.densified("min-max scaling")?;
    let x = data.x();
    let min = x.fold_axis(ndarray::Axis(0), f64::INFINITY, |&a, &b| a.min(b));
    let max = x.fold_axis(ndarray::Axis(0), f64::NEG_INFINITY, |&a, &b| a.max(b));
    let range = ndarray::Zip::from(&max).and(&min).map_collect(|&hi, &lo| {
        let r = hi - lo;
        if r > 0.0 { r } else { 1.0 }
    });
    let fitted = MinMax { min, range };
    Ok((fitted.apply(data)?, fitted))
}

/// The radius divided out by [`scale_to_unit_ball`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct UnitBall {
    /// The radius R of the fitted data.
    pub radius: f64,
}

impl Transform for UnitBall {
    fn apply(&self, data: &Dataset) -> Result<Dataset> {
        map_entries(data, |_, v| v / self.radius)
    }
}

/// Divide every example by the radius `R = max ‖xᵢ‖`, so that the data lies in the unit ball.
///
/// **Effect on the theorem.** A uniform scaling: every separator keeps separating (the bias scales to
/// b/R), R becomes 1 and every margin becomes γ/R, so **`R/γ` and the bound `(R/γ)²` do not change**, nor
/// do the perceptron's mistakes (without bias, or with the Novikoff bias `b += ηyR²`). This is the
/// normalisation under which CS 536 states `T ≤ 4/γ²` and Helmbold `1/δ²`. An all-zero dataset is
/// refused.
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[3.0, 4.0], [-1.0, 0.0]], array![1.0, -1.0])?;
/// let (unit, fitted) = novikoff::preprocess::scale_to_unit_ball(&data)?;
/// assert_eq!(fitted.radius, 5.0);
/// assert_eq!(unit.radius(), 1.0);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn scale_to_unit_ball(data: &Dataset) -> Result<(Dataset, UnitBall)> {
    let radius = data.radius();
    if radius == 0.0 {
        return Err(Error::parameter(
            "data",
            "every example is the zero vector, so the radius is 0 and cannot be divided out",
        ));
    }
    let fitted = UnitBall { radius };
    Ok((fitted.apply(data)?, fitted))
}

/// The constant appended by [`add_bias_column`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BiasColumn {
    /// The constant c.
    pub value: f64,
}

impl Transform for BiasColumn {
    fn apply(&self, data: &Dataset) -> Result<Dataset> {
        Ok(data.augment(self.value))
    }
}

/// Append a constant feature c: `x ↦ (x, c)` (Helmbold's add-a-dimension, seed 000; c = R gives seed
/// 002's `(x, R)`).
///
/// **Effect on the theorem.** A separator `(w, b)` of the original data, ‖w‖ = 1, margin γ, becomes the
/// separator `(w, b/c)` *through the origin* of the new data, whose unit-length margin is
/// `γ/√(1 + b²/c²)`, while the radius becomes `√(R² + c²)`. The no-bias bound on the augmented data is
/// therefore `(R² + c²)(1 + b²/c²)/γ²`; with c = R and |b| ≤ R this is at most `(2R/γ)²`, Novikoff's form
/// (seed 002). A small c makes the effective margin tiny, a large c the radius huge. c must be finite
/// and non-zero.
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[3.0, 4.0]], array![1.0])?;
/// let (augmented, _) = novikoff::preprocess::add_bias_column(&data, 5.0)?;
/// assert_eq!(augmented.x(), array![[3.0, 4.0, 5.0]]);
/// assert_eq!(augmented.radius(), 50f64.sqrt()); // √(R² + c²)
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn add_bias_column(data: &Dataset, value: f64) -> Result<(Dataset, BiasColumn)> {
    if !value.is_finite() || value == 0.0 {
        return Err(Error::parameter(
            "value",
            format!("the bias constant must be finite and non-zero, got {value}"),
        ));
    }
    let fitted = BiasColumn { value };
    Ok((fitted.apply(data)?, fitted))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn standardised_columns_have_mean_zero_and_unit_variance() {
        let data = Dataset::new(
            array![[1.0, 7.0, 2.0], [2.0, 7.0, -4.0], [6.0, 7.0, 9.0]],
            array![1.0, -1.0, 1.0],
        )
        .unwrap();
        let (s, fitted) = standardize(&data).unwrap();
        for j in [0, 2] {
            let column = s.x().column(j).to_owned();
            let mean = column.sum() / 3.0;
            let var = column.mapv(|v| (v - mean).powi(2)).sum() / 3.0;
            assert!(mean.abs() < 1e-15 && (var - 1.0).abs() < 1e-12);
        }
        assert_eq!(s.x().column(1).to_vec(), vec![0.0; 3]);
        assert_eq!(fitted.scale[1], 1.0);
    }

    #[test]
    fn a_transform_refuses_the_wrong_width() {
        let data = Dataset::new(array![[1.0, 2.0], [3.0, 4.0]], array![1.0, -1.0]).unwrap();
        let (_, fitted) = min_max(&data).unwrap();
        let other = Dataset::new(array![[1.0]], array![1.0]).unwrap();
        assert!(matches!(fitted.apply(&other), Err(Error::Shape { .. })));
        let zero = Dataset::new(array![[0.0]], array![1.0]).unwrap();
        assert!(scale_to_unit_ball(&zero).is_err());
        assert!(add_bias_column(&data, 0.0).is_err());
    }

    #[test]
    fn fitted_transforms_round_trip_through_json() {
        let data = Dataset::new(array![[1.0, 2.0], [3.0, 5.0]], array![1.0, -1.0]).unwrap();
        let (_, fitted) = standardize(&data).unwrap();
        let text = serde_json::to_string(&fitted).unwrap();
        let back: Standardizer = serde_json::from_str(&text).unwrap();
        assert_eq!(back, fitted);
    }
}
