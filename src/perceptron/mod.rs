//! The perceptron in every textbook form of the source documents.
//!
//! * **One mechanism.** Every bias rule is the plain perceptron on augmented vectors `(x, c)` with
//!   `b = c·w_{d+1}` (see [`BiasRule`]): `c = 0` is the perceptron through the origin, `c = 1` the classic
//!   `b += η·y`, `c = R` Novikoff's `b += η·y·R²`.
//! * **The mistake test** is `y·(w·x + b) ≤ 0`, so a zero activation counts as a mistake, while
//!   [`Fit::predict`] uses sign(0) = +1 (CS 536, eq. 2).
//! * **Counts.** `mistakes` is the number of updates; `epochs` counts the passes, including the final
//!   pass with no mistake. A run stops after the first clean epoch, or at a cap with
//!   `converged = false` and a [`StopReason`].
//! * **Orders.** Cyclic, shuffled with a seed (reshuffled every epoch), or a fixed permutation; see
//!   [`Order`]. Single-pass online learning is [`OnlinePerceptron`].
//!
//! The seed 004 worked example:
//!
//! ```
//! use ndarray::array;
//! use novikoff::{perceptron::{PerceptronParams, Trace}, Dataset};
//! let x = array![[-1.0, 2.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [-1.0, -2.0], [1.0, -1.0]];
//! let y = array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0];
//! let data = Dataset::new(x, y)?;
//! let mut trace = Trace::default();
//! let fit = PerceptronParams::new().check()?.fit_with_trace(&data, &mut trace)?;
//! let steps: Vec<Vec<f64>> = trace.records.iter().map(|r| r.w.clone()).collect();
//! assert_eq!(steps, vec![vec![1.0, -2.0], vec![2.0, -1.0], vec![3.0, 1.0]]);
//! assert_eq!((fit.mistakes, fit.epochs, fit.converged), (3, 2, true));
//! # Ok::<(), novikoff::Error>(())
//! ```

mod augmentation;
mod averaged;
mod fit;
mod history;
mod online;
mod params;
mod pocket;
mod rule_pass;
mod scores;
mod trace;
mod variant;
mod voted;
mod weights;

use ndarray::{Array1, ArrayView2};
use serde::{Deserialize, Serialize};

pub use augmentation::Augmentation;
pub use averaged::LinearPredictor;
pub use history::{History, Presentations};
pub use online::{OnlinePerceptron, Outcome};
pub(crate) use params::check_permutation;
pub use params::{BiasRule, Order, PerceptronParams};
pub use pocket::Pocket;
pub use scores::TestAccuracy;
pub use trace::{CsvTrace, NoTrace, Trace, TraceRecord, TraceSink, UpdateEvent};
pub use variant::{Predictor, Variant};
pub use voted::Voted;

use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::simd::{self, Summation};

/// Why a run stopped (the argmin `TerminationReason` idea).
///
/// ```
/// use novikoff::perceptron::StopReason;
/// assert_eq!(StopReason::EpochCap.name(), "epoch_cap");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// An epoch passed with no mistake: the weights separate the data.
    Converged,
    /// `max_epochs` passes were made and the last one still had a mistake.
    EpochCap,
    /// `max_updates` updates were made.
    UpdateCap,
    /// The weights overflowed to infinity or NaN.
    NonFinite,
    /// An epoch passed without an update but with mistakes the rule cannot update on
    /// (Passive–Aggressive on a zero example without a bias, whose step is undefined): no later epoch
    /// can change the weights.
    Stalled,
    /// An activation underflowed to zero (every product `wⱼ·xⱼ` too small for an `f64`, data
    /// near 10⁻³⁰⁰): its sign is unknown, so the run stops rather than count mistakes it cannot judge.
    /// Scaling the data up by a power of two avoids it; for the rules `none` and `novikoff` that changes no
    /// decision of the run.
    Underflow,
}

impl StopReason {
    /// The snake_case name used in JSON and CSV output.
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::StopReason::Converged.name(), "converged");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            StopReason::Converged => "converged",
            StopReason::EpochCap => "epoch_cap",
            StopReason::UpdateCap => "update_cap",
            StopReason::NonFinite => "non_finite",
            StopReason::Stalled => "stalled",
            StopReason::Underflow => "underflow",
        }
    }
}

/// A validated perceptron, ready to fit. Made by [`PerceptronParams::check`].
///
/// ```
/// use ndarray::array;
/// use novikoff::{perceptron::PerceptronParams, Dataset};
/// let data = Dataset::new(array![[2.0, 1.0], [-1.0, -3.0]], array![1.0, -1.0])?;
/// let fit = PerceptronParams::new().check()?.fit(&data)?;
/// assert!(fit.converged);
/// assert_eq!(fit.accuracy(&data)?, 1.0);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Perceptron {
    pub(crate) params: PerceptronParams,
}

impl Perceptron {
    /// The validated parameters.
    ///
    /// ```
    /// let p = novikoff::perceptron::PerceptronParams::new().check()?;
    /// assert_eq!(p.params().bias_rule(), novikoff::perceptron::BiasRule::None);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn params(&self) -> &PerceptronParams {
        &self.params
    }

    /// The learning rate η.
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::PerceptronParams::new().check()?.eta(), 1.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn eta(&self) -> f64 {
        self.params.eta
    }

    /// The visiting order.
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::PerceptronParams::new().check()?.order().name(), "cyclic");
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn order(&self) -> &Order {
        &self.params.order
    }

    /// The epoch cap.
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::PerceptronParams::new().check()?.max_epochs(), 1000);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn max_epochs(&self) -> usize {
        self.params.max_epochs
    }

    /// The update cap, if any.
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::PerceptronParams::new().check()?.max_updates(), None);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn max_updates(&self) -> Option<u64> {
        self.params.max_updates
    }

    /// The summation order.
    ///
    /// ```
    /// use novikoff::simd::Summation;
    /// assert_eq!(novikoff::perceptron::PerceptronParams::new().check()?.summation(), Summation::Fast);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn summation(&self) -> Summation {
        self.params.summation
    }

    /// The member of the perceptron's family.
    ///
    /// ```
    /// use novikoff::perceptron::{PerceptronParams, Variant};
    /// assert_eq!(PerceptronParams::new().check()?.variant(), Variant::Perceptron);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn variant(&self) -> Variant {
        self.params.variant
    }

    /// Train on a fixed dataset, epoch after epoch, until an epoch has no mistake or a cap is reached.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::{PerceptronParams, StopReason}, Dataset};
    /// // XOR (CS 536): not separable, so the run ends at the epoch cap.
    /// let xor = Dataset::new(array![[0., 0.], [0., 1.], [1., 0.], [1., 1.]], array![1., -1., -1., 1.])?;
    /// let fit = PerceptronParams::new().max_epochs(50).check()?.fit(&xor)?;
    /// assert_eq!((fit.converged, fit.stop_reason, fit.epochs), (false, StopReason::EpochCap, 50));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn fit(&self, data: &Dataset) -> Result<Fit> {
        self.run(data, &mut NoTrace)
    }

    /// [`Perceptron::fit`], reporting every update to `sink`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::{PerceptronParams, Trace}, Dataset};
    /// let data = Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let mut trace = Trace::default();
    /// let fit = PerceptronParams::new().check()?.fit_with_trace(&data, &mut trace)?;
    /// assert_eq!(trace.records.len() as u64, fit.mistakes);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn fit_with_trace<S: TraceSink>(&self, data: &Dataset, sink: &mut S) -> Result<Fit> {
        self.run(data, sink)
    }
}

impl PerceptronParams {
    /// Check the parameters and fit in one call.
    ///
    /// ```
    /// use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = novikoff::perceptron::PerceptronParams::new().fit(&data)?;
    /// assert_eq!(fit.mistakes, 1);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn fit(&self, data: &Dataset) -> Result<Fit> {
        self.clone().check()?.fit(data)
    }
}

/// The result of a run: the last weights, the counts, why it stopped, and every predictor the run
/// produced (the last weights, their average, and when kept the vote and the pocket).
///
/// ```
/// use ndarray::array;
/// use novikoff::{perceptron::{BiasRule, PerceptronParams}, Dataset};
/// let data = Dataset::new(array![[3.0], [1.0]], array![1.0, -1.0])?;
/// let fit = PerceptronParams::new().bias(BiasRule::Classic).fit(&data)?;
/// assert!(fit.converged);
/// assert_eq!(fit.predict(data.x())?.to_vec(), vec![1.0, -1.0]);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// The last weights.
    pub w: Array1<f64>,
    /// The last bias `b = c·w_{d+1}`.
    pub b: f64,
    /// The number of mistakes, presentations with `y·(w·x + b) ≤ 0`. For the plain perceptron (and the
    /// averaged, voted and pocket variants) every mistake is an update and every update a mistake.
    pub mistakes: u64,
    /// The number of updates. The margin perceptron and Passive–Aggressive also update on correct
    /// predictions with a small margin, so for them `updates ≥ mistakes`.
    pub updates: u64,
    /// The number of passes, including the final clean one.
    pub epochs: usize,
    /// True when the last epoch had no mistake.
    pub converged: bool,
    /// Why the run stopped.
    pub stop_reason: StopReason,
    /// Wall-clock seconds spent in the training loop.
    pub train_seconds: f64,
    /// The augmentation constant `c` of the bias rule (0, 1, R or the user's).
    pub bias_constant: f64,
    /// The weight `w_{d+1}` of the constant coordinate, so that `b = c·bias_weight` exactly.
    pub bias_weight: f64,
    /// The summation order used, and used again by [`Fit::decision_function`].
    pub summation: Summation,
    /// The member of the perceptron's family that ran.
    pub variant: Variant,
    /// The average of the weights over the run's presentations (the averaged perceptron's predictor,
    /// kept for every run: it costs O(d) memory and the stored entries of the row at each update).
    pub averaged: LinearPredictor,
    /// The voted perceptron's vote, for [`Variant::Voted`] or when
    /// [`record_votes`](PerceptronParams::record_votes) asked for it.
    pub voted: Option<Voted>,
    /// The pocket, for [`Variant::Pocket`].
    pub pocket: Option<Pocket>,
    /// The run's sequence: presentations, mistakes per row, and Passive–Aggressive's cumulative loss.
    pub history: History,
}

impl Fit {
    /// `w·xᵢ + b` for every row of `x`.
    ///
    /// ```
    /// use ndarray::array;
    /// # let data = novikoff::Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = novikoff::perceptron::PerceptronParams::new().fit(&data)?;
    /// assert_eq!(fit.decision_function(array![[2.0], [0.0]].view())?.to_vec(), vec![2.0, 0.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn decision_function(&self, x: ArrayView2<'_, f64>) -> Result<Array1<f64>> {
        if x.ncols() != self.w.len() {
            return Err(Error::Shape {
                what: "columns against the fitted weights",
                expected: self.w.len(),
                found: x.ncols(),
            });
        }
        let w = self.w.as_slice().expect("fitted weights are contiguous");
        Ok(x.outer_iter()
            .map(|row| match row.as_slice() {
                Some(r) => simd::dot(w, r, self.summation) + self.b,
                None => simd::dot(w, &row.to_vec(), self.summation) + self.b,
            })
            .collect())
    }

    /// `sign(w·xᵢ + b)` with sign(0) = +1 (CS 536, eq. 2).
    ///
    /// ```
    /// use ndarray::array;
    /// # let data = novikoff::Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = novikoff::perceptron::PerceptronParams::new().fit(&data)?;
    /// assert_eq!(fit.predict(array![[0.0], [-3.0]].view())?.to_vec(), vec![1.0, -1.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array1<f64>> {
        Ok(self
            .decision_function(x)?
            .mapv(|a| if a >= 0.0 { 1.0 } else { -1.0 }))
    }

    /// The fraction of `data` that [`Fit::predict`] labels correctly.
    ///
    /// ```
    /// use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = novikoff::perceptron::PerceptronParams::new().fit(&data)?;
    /// assert_eq!(fit.accuracy(&data)?, 1.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn accuracy(&self, data: &Dataset) -> Result<f64> {
        Ok(averaged::accuracy_of(&self.predict_dataset(data)?, data))
    }

    /// `w·xᵢ + b` for every row of a dataset of either storage, with the last weights.
    ///
    /// ```
    /// use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[1.0, 0.0], [0.0, -1.0]], array![1.0, -1.0])?;
    /// let fit = novikoff::perceptron::PerceptronParams::new().fit(&data)?;
    /// let sparse = data.to_sparse();
    /// assert_eq!(fit.decision_function_dataset(&sparse)?, fit.decision_function(data.x())?);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn decision_function_dataset(&self, data: &Dataset) -> Result<Array1<f64>> {
        self.last().decision_function_dataset(data)
    }

    /// `sign(w·xᵢ + b)` for every row of a dataset of either storage, with sign(0) = +1.
    ///
    /// ```
    /// use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[2.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = novikoff::perceptron::PerceptronParams::new().fit(&data)?;
    /// assert_eq!(fit.predict_dataset(&data.to_sparse())?.to_vec(), vec![1.0, -1.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn predict_dataset(&self, data: &Dataset) -> Result<Array1<f64>> {
        self.last().predict_dataset(data)
    }

    /// The last weights as a predictor.
    ///
    /// ```
    /// use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[2.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = novikoff::perceptron::PerceptronParams::new().fit(&data)?;
    /// assert_eq!(fit.last().w, fit.w);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn last(&self) -> LinearPredictor {
        LinearPredictor {
            w: self.w.clone(),
            b: self.b,
            summation: self.summation,
        }
    }

    /// The labels `predictor` gives the rows of `data` (sign(0) = +1), or `None` when the run did not
    /// keep that predictor (the vote unless asked for, the pocket unless the variant is
    /// [`Variant::Pocket`]).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::{PerceptronParams, Predictor}, Dataset};
    /// let data = Dataset::new(array![[2.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = PerceptronParams::new().record_votes(true).fit(&data)?;
    /// for predictor in [Predictor::Last, Predictor::Averaged, Predictor::Voted] {
    ///     assert_eq!(fit.predict_with(predictor, &data)?.unwrap().to_vec(), vec![1.0, -1.0]);
    /// }
    /// assert!(fit.predict_with(Predictor::Pocket, &data)?.is_none());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Shape`] when the data have another number of features.
    pub fn predict_with(
        &self,
        predictor: Predictor,
        data: &Dataset,
    ) -> Result<Option<Array1<f64>>> {
        match predictor {
            Predictor::Last => self.predict_dataset(data).map(Some),
            Predictor::Averaged => self.averaged.predict_dataset(data).map(Some),
            Predictor::Voted => self
                .voted
                .as_ref()
                .map(|voted| voted.predict_dataset(data))
                .transpose(),
            Predictor::Pocket => self
                .pocket
                .as_ref()
                .map(|pocket| pocket.predictor.predict_dataset(data))
                .transpose(),
        }
    }

    /// The fraction of `data` that `predictor` labels correctly, or `None` when the run did not keep it.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::{PerceptronParams, Predictor, Variant}, Dataset};
    /// let data = Dataset::new(array![[2.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = PerceptronParams::new().variant(Variant::Pocket).fit(&data)?;
    /// assert_eq!(fit.accuracy_with(Predictor::Pocket, &data)?, Some(1.0));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Fit::predict_with`].
    pub fn accuracy_with(&self, predictor: Predictor, data: &Dataset) -> Result<Option<f64>> {
        Ok(self
            .predict_with(predictor, data)?
            .map(|predicted| averaged::accuracy_of(&predicted, data)))
    }

    /// The predictor of the run's variant ([`Variant::predictor`]) as labels for `data`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::{PerceptronParams, Variant}, Dataset};
    /// let data = Dataset::new(array![[2.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = PerceptronParams::new().variant(Variant::Averaged).fit(&data)?;
    /// assert_eq!(fit.predict_own(&data)?.to_vec(), vec![1.0, -1.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Fit::predict_with`].
    pub fn predict_own(&self, data: &Dataset) -> Result<Array1<f64>> {
        Ok(self
            .predict_with(self.variant.predictor(), data)?
            .expect("a run keeps its own variant's predictor"))
    }

    /// The weights of the equivalent no-bias perceptron on `(x, c)`: `(w, w_{d+1})` with `b = c·w_{d+1}`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::perceptron::{BiasRule, PerceptronParams};
    /// let data = novikoff::Dataset::new(array![[3.0], [1.0]], array![1.0, -1.0])?;
    /// let fit = PerceptronParams::new().bias(BiasRule::Classic).fit(&data)?;
    /// assert_eq!(fit.augmented_weights()[1], fit.b);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn augmented_weights(&self) -> Array1<f64> {
        self.w
            .iter()
            .copied()
            .chain(std::iter::once(self.bias_weight))
            .collect()
    }
}
