//! A linear predictor `(w, b)`, and the averaged perceptron's lazy average of the weights.

use ndarray::Array1;
use serde::Serialize;

use crate::dataset::{Dataset, RowView};
use crate::error::{Error, Result};
use crate::simd::Summation;

/// A linear classifier `sign(w·x + b)` with sign(0) = +1: the last, averaged or pocket weights of a
/// run. Its dot products use the run's summation order.
///
/// ```
/// use ndarray::array;
/// use novikoff::{perceptron::{PerceptronParams, Variant}, Dataset};
/// let data = Dataset::new(array![[2.0], [-1.0], [1.0]], array![1.0, -1.0, 1.0])?;
/// let fit = PerceptronParams::new().variant(Variant::Averaged).fit(&data)?;
/// assert_eq!(fit.averaged.accuracy(&data)?, 1.0);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinearPredictor {
    /// The weights.
    pub w: Array1<f64>,
    /// The bias.
    pub b: f64,
    /// The summation order of its dot products.
    pub summation: Summation,
}

impl LinearPredictor {
    /// `w·xᵢ + b` for every row of a dataset of either storage.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::LinearPredictor, simd::Summation, Dataset};
    /// let p = LinearPredictor { w: array![1.0, -1.0], b: 0.5, summation: Summation::Sequential };
    /// let data = Dataset::new(array![[2.0, 1.0]], array![1.0])?;
    /// assert_eq!(p.decision_function_dataset(&data)?.to_vec(), vec![1.5]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Shape`] when the data have another number of features.
    pub fn decision_function_dataset(&self, data: &Dataset) -> Result<Array1<f64>> {
        check_features(self.w.len(), data)?;
        let w = self
            .w
            .as_slice()
            .expect("a predictor's weights are contiguous");
        Ok((0..data.n_samples())
            .map(|i| data.row_view(i).dot(w, self.summation) + self.b)
            .collect())
    }

    /// `sign(w·xᵢ + b)` for every row, with sign(0) = +1.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::LinearPredictor, simd::Summation, Dataset};
    /// let p = LinearPredictor { w: array![1.0], b: 0.0, summation: Summation::Fast };
    /// let data = Dataset::new(array![[0.0], [-2.0]], array![1.0, 1.0])?;
    /// assert_eq!(p.predict_dataset(&data)?.to_vec(), vec![1.0, -1.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`LinearPredictor::decision_function_dataset`].
    pub fn predict_dataset(&self, data: &Dataset) -> Result<Array1<f64>> {
        Ok(self.decision_function_dataset(data)?.mapv(sign))
    }

    /// The fraction of `data` it labels correctly.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::LinearPredictor, simd::Summation, Dataset};
    /// let p = LinearPredictor { w: array![1.0], b: 0.0, summation: Summation::Fast };
    /// let data = Dataset::new(array![[1.0], [-2.0]], array![1.0, 1.0])?;
    /// assert_eq!(p.accuracy(&data)?, 0.5);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`LinearPredictor::decision_function_dataset`].
    pub fn accuracy(&self, data: &Dataset) -> Result<f64> {
        Ok(accuracy_of(&self.predict_dataset(data)?, data))
    }
}

/// sign with sign(0) = +1 (CS 536, eq. 2).
#[inline]
pub(crate) fn sign(a: f64) -> f64 {
    if a >= 0.0 { 1.0 } else { -1.0 }
}

/// The fraction of `predicted` that matches the labels of `data`.
pub(crate) fn accuracy_of(predicted: &Array1<f64>, data: &Dataset) -> f64 {
    let correct = predicted
        .iter()
        .zip(data.labels())
        .filter(|(p, y)| p == y)
        .count();
    correct as f64 / data.n_samples() as f64
}

/// `d` features expected, and `data`'s count.
pub(crate) fn check_features(d: usize, data: &Dataset) -> Result<()> {
    if data.n_features() != d {
        return Err(Error::Shape {
            what: "columns against the fitted weights",
            expected: d,
            found: data.n_features(),
        });
    }
    Ok(())
}

/// The averaged perceptron's weights, kept in O(stored entries) per update by the usual lazy trick.
///
/// The average over the run's `T` presentations of the weights **after** each presentation (Freund and
/// Schapire 1999, whose vote credits a presentation to the weights that result from it; Collins 2002
/// averages the same way) is
///
/// `w̄ = (1/T) Σₜ wₜ₊₁ = w_T − (1/T) Σₖ (tₖ − 1)·Δₖ`,
///
/// where update `k` happened at presentation `tₖ` and added `Δₖ = s·y·x`. So the run keeps only the
/// sum `Σₖ (tₖ − 1)·Δₖ`, updated where the weights are (the row's stored entries), and forms `w̄` once
/// at the end. The final clean epoch of a converged run counts like any other: its presentations credit
/// the final weights.
#[derive(Debug, Clone)]
pub(crate) struct Averager {
    weighted_w: Vec<f64>,
    weighted_v: f64,
}

impl Averager {
    pub(crate) fn new(n_features: usize) -> Self {
        Self {
            weighted_w: vec![0.0; n_features],
            weighted_v: 0.0,
        }
    }

    /// The update `w += signed·x`, `v += signed·c` made at the 1-based presentation `trial`.
    #[inline]
    pub(crate) fn update(&mut self, trial: u64, signed: f64, x: RowView<'_>, c: f64) {
        let weight = (trial - 1) as f64 * signed;
        x.add_to(weight, &mut self.weighted_w);
        self.weighted_v += weight * c;
    }

    /// The average after `trials` presentations that ended with weights `(w, v)`; `c` turns `v` into
    /// the bias.
    pub(crate) fn finish(
        self,
        trials: u64,
        w: &[f64],
        v: f64,
        c: f64,
        summation: Summation,
    ) -> LinearPredictor {
        let t = trials.max(1) as f64;
        let w: Array1<f64> = w
            .iter()
            .zip(&self.weighted_w)
            .map(|(&w, &s)| w - s / t)
            .collect();
        let v = v - self.weighted_v / t;
        LinearPredictor {
            w,
            b: c * v,
            summation,
        }
    }
}
