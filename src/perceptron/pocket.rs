//! Gallant's pocket algorithm with ratchet (1990): keep the weights with the fewest training errors seen.

use ndarray::Array1;
use serde::Serialize;

use super::averaged::LinearPredictor;
use crate::dataset::{Dataset, RowView};
use crate::simd::Summation;

/// The pocket weights of a run: the weights with the fewest training errors among those that Gallant's
/// ratchet examined.
///
/// The perceptron runs as usual. Gallant's pseudo-code keeps a counter `run_π` of consecutive correct
/// predictions of the weights in use and `run_W` of the pocket; whenever a correct prediction makes
/// `run_π > run_W`, the weights in use replace the pocket if they make strictly more correct predictions
/// on the whole training set (the ratchet), and then `run_W := run_π`. Since the weights in use do not
/// change during their run, the outcome of a run of length `r` is decided at its first step past
/// `run_W`: if `r > run_W` and the weights are strictly better, they enter the pocket with
/// `run_W + 1` (later steps of the same run compare equal weights and change nothing). The crate
/// examines a run when it ends (at the next update, or at the end of training), with exactly that
/// outcome, so each weight vector costs at most one pass over the data. The first pocket is the
/// starting weights with run 0. Gallant draws examples at random; here they come in the run's order.
/// The pocket algorithm has no rate bound; the crate reports the best training error and the epoch it
/// was found in.
///
/// ```
/// use ndarray::array;
/// use novikoff::{perceptron::{BiasRule, Order, PerceptronParams, Variant}, Dataset};
/// // XOR is not separable: the perceptron cycles, and the pocket keeps weights with two errors of four.
/// let xor = Dataset::new(array![[0., 0.], [0., 1.], [1., 0.], [1., 1.]], array![1., -1., -1., 1.])?;
/// let params = PerceptronParams::new().variant(Variant::Pocket).bias(BiasRule::Classic);
/// let fit = params.order(Order::Shuffle { seed: 0 }).max_epochs(50).fit(&xor)?;
/// let pocket = fit.pocket.unwrap();
/// assert_eq!(pocket.training_errors, 2);
/// assert_eq!(pocket.predictor.accuracy(&xor)?, 1.0 - pocket.training_errors as f64 / 4.0);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pocket {
    /// The pocket weights.
    #[serde(flatten)]
    pub predictor: LinearPredictor,
    /// Their training errors (`y·(w·x + b) ≤ 0`, the mistake test).
    pub training_errors: u64,
    /// The epoch in which they were put in the pocket (0: the starting weights).
    pub epoch: usize,
    /// Gallant's `run_W`: the run of correct predictions at which they entered the pocket.
    pub run: u64,
    /// How many weight vectors the ratchet examined (each at most a pass over the data: the count stops
    /// once it cannot beat the pocket, and a pocket without errors is never examined against).
    pub examined: u64,
}

/// Tracks the pocket during a run: a copy of the weights in use (updated like them, so with the same
/// bits) and the pocket.
#[derive(Debug)]
pub(crate) struct PocketTracker {
    current_w: Vec<f64>,
    current_v: f64,
    c: f64,
    summation: Summation,
    /// The presentation of the update that made the current weights (0 for the start).
    made_at: u64,
    best: Pocket,
    best_v: f64,
}

impl PocketTracker {
    /// The start of a run from `(w, v)`: the starting weights go in the pocket.
    pub(crate) fn new(data: &Dataset, w: &[f64], v: f64, c: f64, summation: Summation) -> Self {
        let errors = training_errors(data, w, v, c, summation, u64::MAX);
        Self {
            current_w: w.to_vec(),
            current_v: v,
            c,
            summation,
            made_at: 0,
            best: Pocket {
                predictor: LinearPredictor {
                    w: Array1::from_vec(w.to_vec()),
                    b: c * v,
                    summation,
                },
                training_errors: errors,
                epoch: 0,
                run: 0,
                examined: 1,
            },
            best_v: v,
        }
    }

    /// The update `w += signed·x`, `v += signed·c` at the 1-based presentation `trial`: the run of the
    /// weights it replaces ends here.
    pub(crate) fn update(&mut self, data: &Dataset, trial: u64, signed: f64, x: RowView<'_>) {
        self.consider(data, trial - self.made_at - 1);
        x.add_to(signed, &mut self.current_w);
        self.current_v += signed * self.c;
        self.made_at = trial;
    }

    /// The end of training after `trials` presentations.
    pub(crate) fn finish(mut self, data: &Dataset, trials: u64) -> Pocket {
        self.consider(data, trials - self.made_at);
        debug_assert_eq!(self.best.predictor.b, self.c * self.best_v);
        self.best
    }

    /// The ratchet: the current weights, correct `run` times in a row, replace the pocket if that run
    /// is longer than the pocket's and they make strictly fewer training errors; they enter it at the
    /// first step of their run past the pocket's.
    fn consider(&mut self, data: &Dataset, run: u64) {
        // Nothing beats a pocket without errors: the ratchet needs strictly fewer.
        if run <= self.best.run || self.best.training_errors == 0 {
            return;
        }
        self.best.examined += 1;
        let errors = training_errors(
            data,
            &self.current_w,
            self.current_v,
            self.c,
            self.summation,
            self.best.training_errors,
        );
        if errors < self.best.training_errors {
            self.best.predictor = LinearPredictor {
                w: Array1::from_vec(self.current_w.clone()),
                b: self.c * self.current_v,
                summation: self.summation,
            };
            self.best_v = self.current_v;
            self.best.training_errors = errors;
            self.best.run += 1;
            // The presentation at which the run passed the pocket's, and its epoch.
            let entered = self.made_at + self.best.run;
            self.best.epoch = ((entered - 1) / data.n_samples() as u64 + 1) as usize;
        }
    }
}

/// The rows where `y·(w·x + c·v) ≤ 0`, with the activations the training pass computes, counted up to
/// `enough` (a count that reaches it cannot win the ratchet, so the pass stops there).
fn training_errors(
    data: &Dataset,
    w: &[f64],
    v: f64,
    c: f64,
    summation: Summation,
    enough: u64,
) -> u64 {
    let b = c * v;
    let mut errors = 0;
    for (i, &y) in data.labels().iter().enumerate() {
        if y * (data.row_view(i).dot(w, summation) + b) <= 0.0 {
            errors += 1;
            if errors >= enough {
                break;
            }
        }
    }
    errors
}
