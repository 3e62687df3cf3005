//! `basis`: the worst case of the theorem, xᵢ = eᵢ.

use ndarray::Array1;
use serde::{Deserialize, Serialize};

use super::{Family, Generated};
use crate::error::{Error, Result};

/// Parameters of the `basis` family: the m standard basis vectors `xᵢ = eᵢ` of ℝ^m, every label +1.
///
/// This is the case where the convergence bound is attained. R = 1, and the best separator through the
/// origin is `u = (1, …, 1)/√m` with margin γ = 1/√m, so `(R/γ)² = m`; the perceptron without bias,
/// started at zero, makes exactly one mistake on each example, m in all, in any order. Deterministic: no
/// seed. A single class, by definition.
///
/// ```
/// use novikoff::generate::{BasisParams, Family};
/// let g = BasisParams::new(9).check()?.generate()?;
/// assert_eq!(g.data.x(), ndarray::Array2::<f64>::eye(9));
/// assert_eq!(g.margin, Some(1.0 / 3.0));
/// let (r, gamma) = (g.radius.unwrap(), g.margin.unwrap());
/// assert_eq!(((r / gamma).powi(2)).round(), 9.0);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BasisParams {
    /// The dimension m (≥ 1), which is also the number of examples.
    pub m: usize,
}

impl BasisParams {
    /// The basis of ℝ^m.
    ///
    /// ```
    /// assert_eq!(novikoff::generate::BasisParams::new(4).m, 4);
    /// ```
    pub fn new(m: usize) -> Self {
        Self { m }
    }
}

impl super::private::Sample for BasisParams {
    fn validate(&self) -> Result<()> {
        if self.m == 0 {
            return Err(Error::parameter("m", "must be at least 1"));
        }
        super::check_size(self.m, self.m, 1)
    }

    fn sample(&self) -> Result<Generated> {
        let m = self.m;
        let mut values = super::zeros(m, m)?;
        for i in 0..m {
            values[i * m + i] = 1.0;
        }
        let component = 1.0 / (m as f64).sqrt();
        Ok(Generated {
            data: super::dataset(values, vec![1.0; m], m)?,
            u: Some(Array1::from_elem(m, component)),
            b: Some(0.0),
            margin: Some(component),
            radius: Some(1.0),
            description: format!("basis: m={m} (x_i = e_i, y_i = +1; (R/γ)² = m is attained)"),
        })
    }
}

impl Family for BasisParams {
    const NAME: &'static str = "basis";
}

/// The basis of ℝ^m with every label +1. See [`BasisParams`].
///
/// ```
/// assert_eq!(novikoff::generate::basis(3)?.data.n_samples(), 3);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn basis(m: usize) -> Result<Generated> {
    BasisParams::new(m).check()?.generate()
}
