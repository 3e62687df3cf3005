//! How well a model does on labelled data: accuracy, the confusion counts and its signed margin.

use ndarray::Array1;
use serde::Serialize;

use super::LinearModel;
use crate::dataset::Dataset;
use crate::error::Result;
use crate::margin;

/// The confusion counts of predictions against labels ±1 (+1 is the positive class).
///
/// ```
/// let c = novikoff::model::Confusion::count(&[1.0, 1.0, -1.0, -1.0], &[1.0, -1.0, -1.0, 1.0]);
/// assert_eq!((c.true_positive, c.false_positive, c.true_negative, c.false_negative), (1, 1, 1, 1));
/// assert_eq!(c.correct(), 2);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Confusion {
    /// Predicted +1, labelled +1.
    pub true_positive: usize,
    /// Predicted +1, labelled −1.
    pub false_positive: usize,
    /// Predicted −1, labelled −1.
    pub true_negative: usize,
    /// Predicted −1, labelled +1.
    pub false_negative: usize,
}

impl Confusion {
    /// Count `predicted` against `labels` (both ±1, the same length).
    ///
    /// ```
    /// let c = novikoff::model::Confusion::count(&[1.0], &[1.0]);
    /// assert_eq!(c.true_positive, 1);
    /// ```
    pub fn count(predicted: &[f64], labels: &[f64]) -> Self {
        debug_assert_eq!(predicted.len(), labels.len());
        let mut c = Confusion::default();
        for (&p, &y) in predicted.iter().zip(labels) {
            match (p > 0.0, y > 0.0) {
                (true, true) => c.true_positive += 1,
                (true, false) => c.false_positive += 1,
                (false, false) => c.true_negative += 1,
                (false, true) => c.false_negative += 1,
            }
        }
        c
    }

    /// Predictions that match their label.
    ///
    /// ```
    /// assert_eq!(novikoff::model::Confusion::count(&[1.0, -1.0], &[1.0, 1.0]).correct(), 1);
    /// ```
    pub fn correct(&self) -> usize {
        self.true_positive + self.true_negative
    }

    /// Every prediction.
    ///
    /// ```
    /// assert_eq!(novikoff::model::Confusion::count(&[1.0, -1.0], &[1.0, 1.0]).total(), 2);
    /// ```
    pub fn total(&self) -> usize {
        self.correct() + self.false_positive + self.false_negative
    }
}

/// A model's score on labelled data.
///
/// `margin` is the signed geometric margin of the model's separator on the data,
/// `minᵢ yᵢ(w·xᵢ + b)/‖w‖` (computed by [`margin::margin`], in twice working precision): positive
/// exactly when the model separates the data, negative when a point is on the wrong side. It is `None`
/// for `w = 0`, which defines no hyperplane.
///
/// ```
/// use ndarray::array;
/// use novikoff::{model::LinearModel, simd::Summation, Dataset};
/// let model = LinearModel::new(vec![1.0, 0.0], 0.0, Summation::Fast)?;
/// let data = Dataset::new(array![[2.0, 5.0], [-1.0, 0.0], [0.5, 1.0]], array![1.0, -1.0, -1.0])?;
/// let score = model.score(&data)?;
/// assert_eq!((score.n, score.confusion.false_positive), (3, 1));
/// assert!((score.accuracy - 2.0 / 3.0).abs() < 1e-15);
/// assert_eq!(score.margin, Some(-0.5));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Score {
    /// Rows scored.
    pub n: usize,
    /// The fraction predicted correctly.
    pub accuracy: f64,
    /// The confusion counts.
    pub confusion: Confusion,
    /// The signed margin `minᵢ yᵢ(w·xᵢ + b)/‖w‖`, `None` when `w = 0`.
    pub margin: Option<f64>,
}

impl LinearModel {
    /// Accuracy, confusion counts and the signed margin on `data`; see [`Score`].
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::LinearModel, simd::Summation, Dataset};
    /// let model = LinearModel::new(vec![1.0], 0.0, Summation::Fast)?;
    /// let data = Dataset::new(array![[3.0], [-2.0]], array![1.0, -1.0])?;
    /// let score = model.score(&data)?;
    /// assert_eq!((score.accuracy, score.margin), (1.0, Some(2.0)));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn score(&self, data: &Dataset) -> Result<Score> {
        let decisions = self.decision_function_dataset(data)?;
        let margin = if self.w().iter().all(|&v| v == 0.0) {
            None
        } else {
            Some(margin::margin(
                data,
                ndarray::ArrayView1::from(self.w()),
                self.b(),
            )?)
        };
        Ok(Score::of_decisions(&decisions, data, margin))
    }
}

impl Score {
    /// The score of a binary model's decision values on `data` (the prediction sign(0) = +1), with the
    /// margin its model computed.
    pub(super) fn of_decisions(
        decisions: &Array1<f64>,
        data: &Dataset,
        margin: Option<f64>,
    ) -> Self {
        let predicted = super::sign(decisions.clone());
        let confusion = Confusion::count(
            predicted.as_slice().expect("a fresh array is contiguous"),
            data.labels(),
        );
        debug_assert_eq!(confusion.total(), data.n_samples());
        Score {
            n: data.n_samples(),
            accuracy: confusion.correct() as f64 / data.n_samples() as f64,
            confusion,
            margin,
        }
    }
}
