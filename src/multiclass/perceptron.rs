//! The multi-class perceptron (Kesler's construction; Duda and Hart 1973, Collins 2002, Crammer and
//! Singer 2003): one weight vector per class, and on a mistake the true class moves towards the
//! example and the wrongly predicted class away from it.

use std::time::Instant;

use ndarray::{Array1, Array2};

use super::class_weights::ClassWeights;
use super::confusion::ConfusionMatrix;
use super::scores::{ClassScorer, class_scores, confusion_on, predicted_classes};
use crate::dataset::{Dataset, MulticlassDataset, RowView};
use crate::error::{Error, Result};
use crate::perceptron::{BiasRule, NoTrace, Order, StopReason, TraceSink, UpdateEvent};
use crate::rng;
use crate::simd::{self, Summation};

/// Parameters of the multi-class perceptron, validated by [`MulticlassPerceptronParams::check`].
///
/// | parameter | default |
/// |---|---|
/// | bias rule | [`BiasRule::None`]: every class's `(x, c)` with `c = 0`, 1, `R` or a constant |
/// | η | 1 |
/// | order | [`Order::Cyclic`] |
/// | `max_epochs` | 1000 |
/// | `max_updates` | none |
/// | summation | [`Summation::Fast`] |
/// | initial `W`, `b` | zero |
///
/// ```
/// use ndarray::array;
/// use novikoff::{dataset::MulticlassDataset, multiclass::MulticlassPerceptronParams};
/// let data = MulticlassDataset::new(
///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0], [3.0, 1.0]],
///     vec!["east".into(), "north".into(), "south-west".into()],
///     vec![0, 1, 2, 0],
/// )?;
/// let fit = MulticlassPerceptronParams::new().check()?.fit(&data)?;
/// assert!(fit.converged);
/// assert_eq!(fit.predict(data.features())?, vec![0, 1, 2, 0]);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MulticlassPerceptronParams {
    pub(crate) bias: BiasRule,
    pub(crate) eta: f64,
    pub(crate) order: Order,
    pub(crate) max_epochs: usize,
    pub(crate) max_updates: Option<u64>,
    pub(crate) summation: Summation,
    pub(crate) initial: Option<(Array2<f64>, Array1<f64>)>,
}

impl Default for MulticlassPerceptronParams {
    fn default() -> Self {
        Self {
            bias: BiasRule::None,
            eta: 1.0,
            order: Order::Cyclic,
            max_epochs: 1000,
            max_updates: None,
            summation: Summation::Fast,
            initial: None,
        }
    }
}

impl MulticlassPerceptronParams {
    /// The defaults above.
    pub fn new() -> Self {
        Self::default()
    }

    /// Set the bias rule (each class's weights `(w_r, v_r)` on `(x, c)`, `b_r = c·v_r`).
    #[must_use]
    pub fn bias(mut self, rule: BiasRule) -> Self {
        self.bias = rule;
        self
    }

    /// Set η.
    #[must_use]
    pub fn eta(mut self, eta: f64) -> Self {
        self.eta = eta;
        self
    }

    /// Set the order.
    #[must_use]
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    /// Set the epoch cap.
    #[must_use]
    pub fn max_epochs(mut self, max_epochs: usize) -> Self {
        self.max_epochs = max_epochs;
        self
    }

    /// Set the update cap.
    #[must_use]
    pub fn max_updates(mut self, max_updates: Option<u64>) -> Self {
        self.max_updates = max_updates;
        self
    }

    /// Set the summation order of the scores.
    #[must_use]
    pub fn summation(mut self, summation: Summation) -> Self {
        self.summation = summation;
        self
    }

    /// Start from the weights `w` (`k × d`, row `r` class `r`'s) and biases `b` (`k`) instead of zero:
    /// a run resumed where another stopped, as scikit-learn's `partial_fit` resumes. With a bias
    /// constant `c`, class `r`'s weight of the constant coordinate starts at `b_r / c` (so `b_r` comes
    /// back as `c·(b_r / c)`, which may differ from it in the last bit); a non-zero bias needs a bias
    /// rule. The shapes are checked against the data when the run starts. [`verify()`](super::verify())
    /// refuses them: the theorem's proof starts from `W = 0`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, multiclass::MulticlassPerceptronParams};
    /// let data = MulticlassDataset::new(
    ///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]], vec!["a".into(), "b".into(), "c".into()], vec![0, 1, 2])?;
    /// let one = MulticlassPerceptronParams::new().max_epochs(1);
    /// let first = one.clone().check()?.fit(&data)?;
    /// let resumed = one.initial(first.w.clone(), first.b.clone()).check()?.fit(&data)?;
    /// let whole = MulticlassPerceptronParams::new().max_epochs(2).check()?.fit(&data)?;
    /// assert_eq!(resumed.w, whole.w);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    #[must_use]
    pub fn initial(mut self, w: Array2<f64>, b: Array1<f64>) -> Self {
        self.initial = Some((w, b));
        self
    }

    /// The multi-class perceptron with the settings of a perceptron's parameters (bias rule, η, order,
    /// caps, summation).
    ///
    /// # Errors
    /// [`Error::Parameter`] for another variant than the plain perceptron, or initial weights.
    pub fn from_perceptron(params: &crate::perceptron::PerceptronParams) -> Result<Self> {
        if params.variant != crate::perceptron::Variant::Perceptron {
            return Err(Error::parameter(
                "variant",
                format!(
                    "the multi-class perceptron makes the plain perceptron's updates; {} is not offered",
                    params.variant.name()
                ),
            ));
        }
        if params.initial_w.is_some() || params.initial_b != 0.0 {
            return Err(Error::parameter(
                "initial",
                "the multi-class perceptron starts from W = 0",
            ));
        }
        let checked = params.clone().check()?;
        Ok(Self::new()
            .bias(params.bias)
            .eta(checked.eta())
            .order(checked.order().clone())
            .max_epochs(checked.max_epochs())
            .max_updates(checked.max_updates())
            .summation(checked.summation()))
    }

    /// The bias rule.
    pub fn bias_rule(&self) -> BiasRule {
        self.bias
    }

    /// Validate.
    ///
    /// ```
    /// use novikoff::multiclass::MulticlassPerceptronParams;
    /// assert!(MulticlassPerceptronParams::new().eta(0.0).check().is_err());
    /// ```
    pub fn check(self) -> Result<MulticlassPerceptron> {
        crate::perceptron::PerceptronParams::check_shared(
            self.bias,
            self.eta,
            &self.order,
            self.max_epochs,
            self.max_updates,
        )?;
        Ok(MulticlassPerceptron { params: self })
    }
}

/// A validated multi-class perceptron.
#[derive(Debug, Clone, PartialEq)]
pub struct MulticlassPerceptron {
    pub(crate) params: MulticlassPerceptronParams,
}

/// A finished multi-class run: the weights `W` (one row per class), the biases, and the counts.
#[derive(Debug, Clone, PartialEq)]
pub struct MulticlassFit {
    /// The class names.
    pub classes: Vec<String>,
    /// `k × d`: row `r` is the weight vector of class `r`.
    pub w: Array2<f64>,
    /// The biases `b_r = c·v_r`.
    pub b: Array1<f64>,
    /// The bias weights `v_r`, which the bias rule's updates move (`v_y += η`, `v_r̂ −= η` when
    /// `c ≠ 0`).
    pub bias_weights: Array1<f64>,
    /// The bias constant `c`.
    pub bias_constant: f64,
    /// Mistakes (each one update: the true class and the predicted one move).
    pub mistakes: u64,
    /// Passes, including the final clean one.
    pub epochs: usize,
    /// True when the last epoch had no mistake.
    pub converged: bool,
    /// Why the run stopped.
    pub stop_reason: StopReason,
    /// Seconds in the training loop.
    pub train_seconds: f64,
    /// The summation order of the scores.
    pub summation: Summation,
}

impl MulticlassFit {
    /// `w_r·x + b_r` for every row and class (`n × k`).
    ///
    /// # Errors
    /// [`Error::Shape`] for data with another number of features.
    pub fn decision_function(&self, data: &Dataset) -> Result<Array2<f64>> {
        if data.n_features() != self.w.ncols() {
            return Err(Error::Shape {
                what: "columns against the fitted weights",
                expected: self.w.ncols(),
                found: data.n_features(),
            });
        }
        let classes: Vec<ClassScorer<'_>> = self
            .w
            .rows()
            .into_iter()
            .zip(&self.b)
            .map(|(w, &b)| ClassScorer {
                w: w.to_slice().expect("standard layout"),
                b,
                summation: self.summation,
            })
            .collect();
        Ok(class_scores(data, &classes))
    }

    /// The class of every row: `argmax_r w_r·x + b_r`, the lowest index on a tie.
    ///
    /// # Errors
    /// As [`MulticlassFit::decision_function`].
    pub fn predict(&self, data: &Dataset) -> Result<Vec<usize>> {
        Ok(predicted_classes(&self.decision_function(data)?))
    }

    /// The confusion matrix on labelled data (its classes must be this fit's, in this order, as
    /// [`crate::io::open_multiclass_as`] reads a test file).
    ///
    /// # Errors
    /// As [`MulticlassFit::decision_function`], and [`Error::Parameter`] for other classes.
    pub fn confusion(&self, data: &MulticlassDataset) -> Result<ConfusionMatrix> {
        confusion_on(&self.classes, data, |rows| self.predict(rows))
    }
}

impl MulticlassPerceptron {
    /// The validated parameters.
    pub fn params(&self) -> &MulticlassPerceptronParams {
        &self.params
    }

    /// Train until an epoch has no mistake. A mistake is `max_{r≠y} s_r ≥ s_y` (a tie is a mistake, as a
    /// zero activation is for the binary perceptron: `W·z ≤ 0` for the lifted vector `z`), and the
    /// update is `w_y += η(x, c)`, `w_r̂ −= η(x, c)` with `r̂ = argmax_{r≠y} s_r`: the binary perceptron's
    /// update on Kesler's vector `z = Φ(x, y) − Φ(x, r̂)`.
    pub fn fit(&self, data: &MulticlassDataset) -> Result<MulticlassFit> {
        self.fit_with_trace(data, &mut NoTrace)
    }

    /// [`MulticlassPerceptron::fit`], reporting every update to `sink` **in the lifted space**: the
    /// event's `x` is Kesler's vector `z` and its `w` the flattened `Ŵ = (w₁, v₁, …, w_k, v_k)` (of
    /// length `k·(d + 1)` with a bias constant, `k·d` without), label +1, bias 0, so that an
    /// [`InvariantCheck`](crate::bounds::InvariantCheck) built on the lifted vectors checks the proof.
    pub fn fit_with_trace<S: TraceSink>(
        &self,
        data: &MulticlassDataset,
        sink: &mut S,
    ) -> Result<MulticlassFit> {
        let p = &self.params;
        let features = data.features();
        let (n, d, k) = (data.n_samples(), data.n_features(), data.n_classes());
        let c = p.bias.constant(features.radius());
        let labels = data.labels();
        let mut visit: Vec<usize> = match &p.order {
            Order::Permutation(perm) => {
                crate::perceptron::check_permutation(perm, n)?;
                perm.clone()
            }
            _ => (0..n).collect(),
        };
        let mut shuffler = match p.order {
            Order::Shuffle { seed } => Some(rng::from_seed(seed)),
            _ => None,
        };
        let mut w = ClassWeights::zeros(k, d, features.is_sparse())?;
        let mut v = vec![0.0; k];
        if let Some((initial_w, initial_b)) = &p.initial {
            w.start_from(initial_w, initial_b, c, &mut v)?;
        }
        let mut scores = vec![0.0; k];
        let block = if c == 0.0 { d } else { d + 1 };
        let records = sink.records();
        let (mut lifted_x, mut lifted_w) = if records {
            (vec![0.0; k * block], vec![0.0; k * block])
        } else {
            (Vec::new(), Vec::new())
        };
        let started = Instant::now();
        let mut mistakes = 0u64;
        let mut epochs = 0;
        let mut stop_reason = StopReason::EpochCap;
        // Rows out of order are asked for ahead, as the binary passes ask: a sparse row's start and
        // entries, a dense row whole. Cyclic rows are followed by the hardware
        // prefetchers. Asking for the weights of the `k` classes ahead as well was slower.
        let sparse_ahead = features.row_arrays().sparse_ahead();
        let out_of_order = !matches!(p.order, Order::Cyclic);
        'epochs: for epoch in 1..=p.max_epochs {
            epochs = epoch;
            if let Some(stream) = shuffler.as_mut() {
                rng::shuffle(stream, &mut visit);
            }
            let before = mistakes;
            for (position, &i) in visit.iter().enumerate() {
                if out_of_order {
                    if let Some(ahead) = sparse_ahead {
                        ahead.after(&visit, position, None);
                    } else if let Some(&after) = visit.get(position + simd::DENSE_AHEAD) {
                        simd::prefetch_row(features.row(after));
                    }
                }
                let x = features.row_view(i);
                let y = labels[i];
                w.scores(x, p.summation, &mut scores);
                for (s, &v) in scores.iter_mut().zip(&v) {
                    *s += c * v;
                }
                let rival = (0..k)
                    .filter(|&r| r != y)
                    .fold(None, |best: Option<usize>, r| match best {
                        Some(b) if scores[b] >= scores[r] => Some(b),
                        _ => Some(r),
                    })
                    .expect("k ≥ 2");
                let activation = scores[y] - scores[rival];
                if activation > 0.0 {
                    continue;
                }
                mistakes += 1;
                w.add(x, p.eta, y);
                w.add(x, -p.eta, rival);
                v[y] += p.eta * c;
                v[rival] -= p.eta * c;
                if records {
                    lift(x, d, block, c, y, rival, &mut lifted_x);
                    for r in 0..k {
                        w.copy_class(r, &mut lifted_w[r * block..r * block + d]);
                        if c != 0.0 {
                            lifted_w[r * block + d] = v[r];
                        }
                    }
                    sink.record(&UpdateEvent {
                        update: mistakes,
                        epoch,
                        row: i,
                        label: 1.0,
                        activation,
                        x: &lifted_x,
                        w: &lifted_w,
                        b: 0.0,
                        bias_constant: 0.0,
                        bias_weight: 0.0,
                        eta: p.eta,
                        step: p.eta,
                    })?;
                }
                // The weights the update touched are finite (the data are).
                let finite = activation.is_finite()
                    && [y, rival]
                        .iter()
                        .all(|&r| v[r].is_finite() && w.finite_at(x, r));
                if !finite {
                    stop_reason = StopReason::NonFinite;
                    break 'epochs;
                }
                if p.max_updates.is_some_and(|cap| mistakes >= cap) {
                    stop_reason = StopReason::UpdateCap;
                    break 'epochs;
                }
            }
            if mistakes == before {
                stop_reason = StopReason::Converged;
                break;
            }
        }
        Ok(MulticlassFit {
            classes: data.classes().to_vec(),
            w: w.into_array(k, d),
            b: v.iter().map(|&v| c * v).collect(),
            bias_weights: Array1::from(v),
            bias_constant: c,
            mistakes,
            epochs,
            converged: stop_reason == StopReason::Converged,
            stop_reason,
            train_seconds: started.elapsed().as_secs_f64(),
            summation: p.summation,
        })
    }
}

/// Kesler's vector `Φ(x, y) − Φ(x, r)` into `out` (dense, `k` blocks of `block` values).
fn lift(x: RowView<'_>, d: usize, block: usize, c: f64, y: usize, r: usize, out: &mut [f64]) {
    out.iter_mut().for_each(|v| *v = 0.0);
    for (j, value) in x.entries() {
        out[y * block + j] = value;
        out[r * block + j] = -value;
    }
    if block > d {
        out[y * block + d] = c;
        out[r * block + d] = -c;
    }
}
