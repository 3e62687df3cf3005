//! A run's predictors: the linear one of its variant, and each scored on held-out data (what a user
//! comparing the variants needs).

use ndarray::Array1;
use serde::Serialize;

use super::{Fit, LinearPredictor, Predictor};
use crate::dataset::Dataset;
use crate::error::Result;

/// The accuracy of every predictor a run kept, on a test dataset.
///
/// ```
/// use ndarray::array;
/// use novikoff::{perceptron::PerceptronParams, Dataset};
/// let train = Dataset::new(array![[2.0, 1.0], [-1.0, -2.0], [1.0, 0.5]], array![1.0, -1.0, 1.0])?;
/// let test = Dataset::new(array![[3.0, 0.0], [-2.0, -1.0]], array![1.0, -1.0])?;
/// let fit = PerceptronParams::new().record_votes(true).fit(&train)?;
/// let scores = fit.test_accuracy(&test)?;
/// assert_eq!((scores.n, scores.last, scores.averaged, scores.voted), (2, 1.0, 1.0, Some(1.0)));
/// assert_eq!(scores.pocket, None); // not a pocket run
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestAccuracy {
    /// The test examples.
    pub n: usize,
    /// The last weights'.
    pub last: f64,
    /// The averaged weights'.
    pub averaged: f64,
    /// The vote's, when the run kept it.
    pub voted: Option<f64>,
    /// The pocket's, when the run kept one.
    pub pocket: Option<f64>,
}

impl Fit {
    /// Score every predictor the run kept on `test`.
    ///
    /// # Errors
    /// [`Error::Shape`](crate::Error::Shape) when `test` has another number of features than the
    /// training data.
    pub fn test_accuracy(&self, test: &Dataset) -> Result<TestAccuracy> {
        let score = |predictor| self.accuracy_with(predictor, test);
        Ok(TestAccuracy {
            n: test.n_samples(),
            last: score(Predictor::Last)?.expect("every run has its last weights"),
            averaged: score(Predictor::Averaged)?.expect("every run keeps the average"),
            voted: score(Predictor::Voted)?,
            pocket: score(Predictor::Pocket)?,
        })
    }

    /// The linear predictor of the run's variant ([`Variant::predictor`](super::Variant::predictor)):
    /// the last weights, the averaged weights, or the pocket's; `None` for the voted perceptron, whose
    /// vote of many weight vectors is not linear. What a saved model or an estimator keeps.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::{PerceptronParams, Variant}, Dataset};
    /// let data = Dataset::new(array![[2.0], [-1.0]], array![1.0, -1.0])?;
    /// let averaged = PerceptronParams::new().variant(Variant::Averaged).fit(&data)?;
    /// assert_eq!(averaged.own_linear().unwrap(), averaged.averaged);
    /// let voted = PerceptronParams::new().variant(Variant::Voted).fit(&data)?;
    /// assert!(voted.own_linear().is_none());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn own_linear(&self) -> Option<LinearPredictor> {
        match self.variant.predictor() {
            Predictor::Last => Some(self.last()),
            Predictor::Averaged => Some(self.averaged.clone()),
            Predictor::Pocket => Some(
                self.pocket
                    .as_ref()
                    .map_or_else(|| self.last(), |pocket| pocket.predictor.clone()),
            ),
            Predictor::Voted => None,
        }
    }

    /// The decision values of the run's own predictor on `data`: `w·x + b` of
    /// [`Fit::own_linear`], or the voted perceptron's vote `Σₖ cₖ sign(wₖ·x + bₖ)`. What one-vs-rest
    /// takes the highest of, so that a class's score is its variant's prediction.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::{PerceptronParams, Variant}, Dataset};
    /// let data = Dataset::new(array![[2.0], [-1.0], [0.5]], array![1.0, -1.0, -1.0])?;
    /// let averaged = PerceptronParams::new().variant(Variant::Averaged).max_epochs(3).fit(&data)?;
    /// assert_eq!(averaged.decision_function_own(&data)?, averaged.averaged.decision_function_dataset(&data)?);
    /// let voted = PerceptronParams::new().variant(Variant::Voted).max_epochs(3).fit(&data)?;
    /// assert_eq!(voted.decision_function_own(&data)?, voted.voted.as_ref().unwrap().vote_dataset(&data)?);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Shape`](crate::Error::Shape) when the data have another number of features.
    pub fn decision_function_own(&self, data: &Dataset) -> Result<Array1<f64>> {
        match (self.own_linear(), &self.voted) {
            (Some(predictor), _) => predictor.decision_function_dataset(data),
            (None, Some(voted)) => voted.vote_dataset(data),
            (None, None) => unreachable!("a voted run keeps its vote"),
        }
    }
}
