//! Single-pass online learning: predict, then update on a mistake (seed 004, Algorithm 1 "Online").

use std::ops::ControlFlow;

use ndarray::{Array1, ArrayView1};

use super::trace::{NoTrace, TraceSink, UpdateEvent};
use super::weights::{Weights, is_finite, is_mistake};
use super::{Augmentation, BiasRule, Perceptron};
use crate::dataset::RowView;
use crate::error::{Error, Result};
use crate::simd::{self, Learner, Rows, SparseRows};

/// What happened to one example of the stream.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// The prediction made before seeing the label: `sign(w·x + b)` with sign(0) = +1.
    pub prediction: f64,
    /// `w·x + b` before any update.
    pub activation: f64,
    /// True when `y·(w·x + b) ≤ 0`, in which case the weights were updated.
    pub mistake: bool,
}

/// The online perceptron: it consumes one `(x, y)` at a time, predicts, and updates on a mistake. Its
/// mistake count is the quantity the mistake bounds speak of. It shares its update code with
/// [`Perceptron::fit`].
///
/// ```
/// use novikoff::perceptron::PerceptronParams;
/// let mut learner = PerceptronParams::new().check()?.online(2, None)?;
/// for (x, y) in [([-1.0, 2.0], -1.0), ([1.0, 0.0], 1.0), ([1.0, 1.0], 1.0)] {
///     learner.observe(&x, y)?;
/// }
/// assert_eq!(learner.mistakes(), 2);
/// assert_eq!(learner.w().to_vec(), vec![2.0, -1.0]);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct OnlinePerceptron {
    weights: Weights,
    mistakes: u64,
    seen: u64,
}

impl Perceptron {
    /// An online learner for `n_features` features. The [`BiasRule::Novikoff`] rule needs the radius `R`
    /// of the whole stream in advance, because its update `b += η·y·R²` uses it.
    ///
    /// ```
    /// use novikoff::perceptron::{BiasRule, PerceptronParams};
    /// let learner = PerceptronParams::new().bias(BiasRule::Novikoff).check()?;
    /// assert!(learner.online(3, None).is_err());
    /// assert!(learner.online(3, Some(2.0)).is_ok());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn online(&self, n_features: usize, radius: Option<f64>) -> Result<OnlinePerceptron> {
        let p = &self.params;
        if n_features == 0 {
            return Err(Error::NoFeatures);
        }
        let augmentation = match (p.bias, radius) {
            (BiasRule::Novikoff, None) => {
                return Err(Error::parameter(
                    "radius",
                    "the novikoff bias rule needs the radius R of the stream in advance",
                ));
            }
            (rule, Some(r)) if !(r.is_finite() && r >= 0.0) => {
                return Err(Error::parameter(
                    "radius",
                    format!("R = {r} for rule {}", rule.name()),
                ));
            }
            (rule, r) => Augmentation::with_constant(rule.constant(r.unwrap_or(0.0))),
        };
        Ok(OnlinePerceptron {
            weights: Weights::start(p, n_features, augmentation)?,
            mistakes: 0,
            seen: 0,
        })
    }
}

impl OnlinePerceptron {
    /// Predict `x`, compare with `y`, and update on a mistake.
    ///
    /// ```
    /// let mut learner = novikoff::perceptron::PerceptronParams::new().check()?.online(1, None)?;
    /// let outcome = learner.observe(&[2.0], -1.0)?;
    /// assert!(outcome.mistake);
    /// assert_eq!(outcome.prediction, 1.0); // sign(0) = +1
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn observe(&mut self, x: &[f64], y: f64) -> Result<Outcome> {
        self.observe_with_trace(x, y, &mut NoTrace)
    }

    /// [`OnlinePerceptron::observe`], reporting an update to `sink`.
    ///
    /// ```
    /// use novikoff::perceptron::{PerceptronParams, Trace};
    /// let mut learner = PerceptronParams::new().check()?.online(1, None)?;
    /// let mut trace = Trace::default();
    /// learner.observe_with_trace(&[2.0], 1.0, &mut trace)?;
    /// assert_eq!(trace.records[0].w, vec![2.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn observe_with_trace<S: TraceSink>(
        &mut self,
        x: &[f64],
        y: f64,
        sink: &mut S,
    ) -> Result<Outcome> {
        let row = self.seen as usize;
        if x.len() != self.weights.w.len() {
            return Err(Error::Shape {
                what: "example length against features",
                expected: self.weights.w.len(),
                found: x.len(),
            });
        }
        if let Some((column, &value)) = x.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(Error::NonFinite { row, column, value });
        }
        if y != 1.0 && y != -1.0 {
            return Err(Error::Label { row, value: y });
        }
        let activation = self.weights.activation(x);
        let (prediction, mistake) = self.judge(row, y, activation)?;
        if mistake {
            // The update itself is the kernel's training pass over this one row, the code `fit` runs, so
            // that online and batch learning cannot drift apart. The pass recomputes the activation with
            // the same bits and therefore makes exactly this one update.
            let labels = [y];
            let rows = Rows::contiguous(x, &labels, x.len())?;
            let (c, eta) = (self.weights.c(), self.weights.eta);
            let update = self.mistakes + 1;
            let mut recorded = None;
            let mut finite = true;
            self.weights.train(&rows, &mut |made| {
                finite = is_finite(made);
                recorded = Some(sink.record(&UpdateEvent {
                    update,
                    epoch: 1,
                    row,
                    label: y,
                    activation: made.activation,
                    x,
                    w: made.w,
                    b: made.b,
                    bias_constant: c,
                    bias_weight: made.v,
                    eta,
                    step: eta,
                }));
                ControlFlow::Continue(())
            })?;
            // The pass recomputes the activation this call just computed, in the same summation order,
            // so it sees the same mistake and updates: a disagreement would be a bug, not bad input.
            let recorded = recorded.unwrap_or_else(|| {
                panic!(
                    "the training pass made no update at example {row}, where the activation \
                     {activation} is a mistake"
                )
            });
            self.mistakes = update;
            recorded?;
            if !finite {
                return Err(self.overflowed());
            }
        }
        Ok(Outcome {
            prediction,
            activation,
            mistake,
        })
    }

    /// [`OnlinePerceptron::observe`] for a row of either storage. A sparse row (column indices strictly
    /// increasing and below the learner's dimension) is summed and updated over its stored entries, as
    /// the batch pass over sparse rows does, so feeding a sparse dataset's rows in order makes its first
    /// cyclic epoch's updates bit for bit.
    ///
    /// ```
    /// use novikoff::{dataset::RowView, perceptron::PerceptronParams};
    /// let mut learner = PerceptronParams::new().check()?.online(1_000_000, None)?;
    /// let outcome = learner.observe_row(RowView::Sparse { indices: &[7, 999_999], values: &[1.0, -2.0] }, 1.0)?;
    /// assert!(outcome.mistake); // w = 0: the activation is 0, a mistake
    /// assert_eq!(learner.w()[999_999], -2.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn observe_row(&mut self, x: RowView<'_>, y: f64) -> Result<Outcome> {
        let (indices, values) = match x {
            RowView::Dense(x) => return self.observe(x, y),
            RowView::Sparse { indices, values } => (indices, values),
        };
        let row = self.seen as usize;
        let d = self.weights.w.len();
        if indices.len() != values.len() {
            return Err(Error::Shape {
                what: "sparse values against their indices",
                expected: indices.len(),
                found: values.len(),
            });
        }
        for (k, (&j, &value)) in indices.iter().zip(values).enumerate() {
            let j = j as usize;
            if j >= d || (k > 0 && j <= indices[k - 1] as usize) {
                return Err(Error::parameter(
                    "x",
                    format!(
                        "example {row}: stored entry {k} has column {j}; columns must increase and stay below {d}"
                    ),
                ));
            }
            if !value.is_finite() {
                return Err(Error::NonFinite {
                    row,
                    column: j,
                    value,
                });
            }
        }
        if y != 1.0 && y != -1.0 {
            return Err(Error::Label { row, value: y });
        }
        let summation = self.weights.summation;
        let activation =
            simd::sparse_dot(&self.weights.w, indices, values, summation) + self.weights.bias();
        let (prediction, mistake) = self.judge(row, y, activation)?;
        if mistake {
            // The batch pass over sparse rows, on this one row: it recomputes the same activation.
            let labels = [y];
            let rows = SparseRows {
                indptr: &[0, indices.len()],
                indices,
                values,
                labels: &labels,
                index: None,
            };
            let mut learner = Learner {
                w: &mut self.weights.w,
                v: self.weights.v,
                c: self.weights.augmentation.constant(),
                eta: self.weights.eta,
            };
            let mut finite = true;
            let mut updated = false;
            simd::train_sparse(&mut learner, &rows, summation, &mut |made| {
                updated = true;
                finite =
                    made.b.is_finite() && indices.iter().all(|&j| made.w[j as usize].is_finite());
                ControlFlow::Continue(())
            });
            self.weights.v = learner.v;
            assert!(
                updated,
                "the sparse pass made no update at example {row}, where {activation} is a mistake"
            );
            self.mistakes += 1;
            if !finite {
                return Err(self.overflowed());
            }
        }
        Ok(Outcome {
            prediction,
            activation,
            mistake,
        })
    }

    /// The error of an update whose weights overflowed.
    fn overflowed(&self) -> Error {
        Error::Solver(format!(
            "the weights overflowed to a non-finite value at update {}",
            self.mistakes
        ))
    }

    /// The prediction (sign(0) = +1) and whether it is a mistake, for an example whose activation was
    /// just computed; the example then counts as seen. An overflowed activation has no sign: counting it
    /// as correct (NaN fails `y·a ≤ 0`) or as a mistake would both be guesses, so it is refused and the
    /// example is left unseen.
    fn judge(&mut self, row: usize, y: f64, activation: f64) -> Result<(f64, bool)> {
        if !activation.is_finite() {
            return Err(Error::Range {
                reason: format!(
                    "the activation w·x + b at example {row} is {activation}: it overflows, so its sign is unknown"
                ),
            });
        }
        self.seen += 1;
        let prediction = if activation >= 0.0 { 1.0 } else { -1.0 };
        Ok((prediction, is_mistake(y, activation)))
    }

    /// [`OnlinePerceptron::observe`] for an ndarray row view.
    ///
    /// ```
    /// use ndarray::array;
    /// let mut learner = novikoff::perceptron::PerceptronParams::new().check()?.online(2, None)?;
    /// let x = array![[1.0, 2.0]];
    /// learner.observe_view(x.row(0), 1.0)?;
    /// assert_eq!(learner.mistakes(), 1);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn observe_view(&mut self, x: ArrayView1<'_, f64>, y: f64) -> Result<Outcome> {
        match x.as_slice() {
            Some(slice) => self.observe(slice, y),
            None => self.observe(&x.to_vec(), y),
        }
    }

    /// The number of updates so far.
    ///
    /// ```
    /// let learner = novikoff::perceptron::PerceptronParams::new().check()?.online(2, None)?;
    /// assert_eq!(learner.mistakes(), 0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn mistakes(&self) -> u64 {
        self.mistakes
    }

    /// The number of examples seen so far.
    ///
    /// ```
    /// let learner = novikoff::perceptron::PerceptronParams::new().check()?.online(2, None)?;
    /// assert_eq!(learner.seen(), 0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// The current weights.
    ///
    /// ```
    /// let learner = novikoff::perceptron::PerceptronParams::new().check()?.online(2, None)?;
    /// assert_eq!(learner.w().to_vec(), vec![0.0, 0.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn w(&self) -> Array1<f64> {
        Array1::from_vec(self.weights.w.clone())
    }

    /// The current bias.
    ///
    /// ```
    /// let learner = novikoff::perceptron::PerceptronParams::new().check()?.online(2, None)?;
    /// assert_eq!(learner.b(), 0.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn b(&self) -> f64 {
        self.weights.bias()
    }
}
