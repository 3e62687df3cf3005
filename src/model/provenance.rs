//! How a model was made: the training parameters, the data it saw and what the run did.

use serde::{Deserialize, Serialize};

use crate::dataset::{Dataset, MulticlassDataset};
use crate::kernel::{KernelFit, KernelPerceptronParams};
use crate::multiclass::{MulticlassFit, MulticlassPerceptron, OneVsRest};
use crate::perceptron::{BiasRule, Fit, Order, Perceptron, PerceptronParams, StopReason};

/// How a model was made: the training parameters, the data it saw and what the run did. Informative:
/// prediction does not read it, and a reader ignores fields it does not know.
///
/// ```
/// use ndarray::array;
/// use novikoff::{model::ModelFile, perceptron::PerceptronParams, Dataset};
/// let data = Dataset::new(array![[3.0, 4.0], [-1.0, 0.0]], array![1.0, -1.0])?;
/// let learner = PerceptronParams::new().check()?;
/// let file = ModelFile::from_fit(&learner.fit(&data)?, &learner, &data, None)?;
/// let provenance = file.provenance.unwrap();
/// assert_eq!((provenance.data.n, provenance.data.d, provenance.data.radius), (2, 2, Some(5.0)));
/// assert_eq!(provenance.params.bias, "none");
/// assert!(provenance.run.converged);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Provenance {
    /// The learner: the variant's name (`perceptron`, `averaged`, `pocket`, `margin:β`, `pa`, …).
    pub learner: String,
    /// Its parameters.
    pub params: TrainingParams,
    /// The training data.
    pub data: DataSummary,
    /// What the run did.
    pub run: RunSummary,
}

/// The training parameters of a [`Provenance`], spelled as the CLI spells them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TrainingParams {
    /// The bias rule: `none`, `classic`, `novikoff` or `c=VALUE`.
    pub bias: String,
    /// The learning rate η.
    pub eta: f64,
    /// The order: `cyclic`, `shuffle` or `permutation`.
    pub order: String,
    /// The seed of a shuffled order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The epoch cap.
    pub max_epochs: usize,
    /// The update cap.
    #[serde(default)]
    pub max_updates: Option<u64>,
    /// True when the run started from given weights rather than zero.
    #[serde(default)]
    pub warm_start: bool,
}

/// The training data of a [`Provenance`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DataSummary {
    /// Where the data came from (a path), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Rows.
    pub n: usize,
    /// Features.
    pub d: usize,
    /// Stored values (`n·d` when dense).
    pub nnz: usize,
    /// `dense` or `sparse`.
    pub storage: String,
    /// The radius `R = maxᵢ ‖xᵢ‖`; `None` when the maker skipped the pass over the data that computes
    /// it (see [`Provenance::of_run_without_radius_pass`]).
    pub radius: Option<f64>,
    /// Rows labelled +1 (a binary model's data).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positives: Option<usize>,
    /// Rows labelled −1 (a binary model's data).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub negatives: Option<usize>,
    /// Rows of each class, in the model's class order (a multi-class model's data).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_counts: Option<Vec<usize>>,
}

/// The run of a [`Provenance`]: the counts of [`Fit`]. For one-vs-rest, the classes' runs together: the
/// most epochs, the summed mistakes and seconds, converged when every class's run did, and the first
/// stop reason in class order that is not convergence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunSummary {
    /// Updates.
    pub mistakes: u64,
    /// Passes, including the final clean one.
    pub epochs: usize,
    /// True when the last epoch had no mistake.
    pub converged: bool,
    /// Why the run stopped.
    pub stop_reason: StopReason,
    /// Wall-clock seconds in the training loop.
    pub train_seconds: f64,
}

impl Provenance {
    /// The provenance of a run of `learner` on `data`, which came from `source` (a path) when given.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::Provenance, perceptron::PerceptronParams, Dataset};
    /// let data = Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let learner = PerceptronParams::new().check()?;
    /// let provenance = Provenance::of_run(&learner.fit(&data)?, &learner, &data, Some("d.csv"));
    /// assert_eq!(provenance.data.source.as_deref(), Some("d.csv"));
    /// assert_eq!(provenance.run.mistakes, 1);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn of_run(fit: &Fit, learner: &Perceptron, data: &Dataset, source: Option<&str>) -> Self {
        let mut provenance = Self::of_run_without_radius_pass(fit, learner, data, source);
        provenance.data.radius = Some(data.radius());
        provenance
    }

    /// [`Provenance::of_run`] without a pass over the data for `R`: the radius is recorded when the run
    /// computed it (the `novikoff` rule does), and is `None` otherwise. For a caller whose cost is the
    /// training's alone (the Python estimator's `fit`, where a pass over 10⁶ rows would cost as much as
    /// a clean epoch).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::Provenance, perceptron::{BiasRule, PerceptronParams}, Dataset};
    /// let data = Dataset::new(array![[3.0, 4.0], [-1.0, 0.0]], array![1.0, -1.0])?;
    /// let plain = PerceptronParams::new().check()?;
    /// let p = Provenance::of_run_without_radius_pass(&plain.fit(&data)?, &plain, &data, None);
    /// assert_eq!(p.data.radius, None);
    /// let novikoff = PerceptronParams::new().bias(BiasRule::Novikoff).check()?;
    /// let p = Provenance::of_run_without_radius_pass(&novikoff.fit(&data)?, &novikoff, &data, None);
    /// assert_eq!(p.data.radius, Some(5.0));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn of_run_without_radius_pass(
        fit: &Fit,
        learner: &Perceptron,
        data: &Dataset,
        source: Option<&str>,
    ) -> Self {
        Provenance {
            learner: fit.variant.name(),
            params: TrainingParams::of_perceptron(learner.params()),
            data: DataSummary::of_labels(data, source),
            run: RunSummary::of_counts(
                fit.mistakes,
                fit.epochs,
                fit.stop_reason,
                fit.train_seconds,
            ),
        }
    }

    /// The provenance of a multi-class perceptron's run of `learner` on `data` (from `source`, a path,
    /// when given). The radius is recorded when the run computed it (the `novikoff` rule does).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, model::Provenance, multiclass::MulticlassPerceptronParams};
    /// let data = MulticlassDataset::new(
    ///     array![[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0], [2.0, 0.0]],
    ///     vec!["a".into(), "b".into(), "c".into()],
    ///     vec![0, 1, 2, 0],
    /// )?;
    /// let learner = MulticlassPerceptronParams::new().check()?;
    /// let provenance = Provenance::of_multiclass_run(&learner.fit(&data)?, &learner, &data, None);
    /// assert_eq!(provenance.data.class_counts, Some(vec![2, 1, 1]));
    /// assert_eq!(provenance.data.positives, None);
    /// assert!(provenance.run.converged);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn of_multiclass_run(
        fit: &MulticlassFit,
        learner: &MulticlassPerceptron,
        data: &MulticlassDataset,
        source: Option<&str>,
    ) -> Self {
        let params = learner.params();
        Provenance {
            learner: "perceptron".into(),
            params: TrainingParams::of(
                params.bias,
                params.eta,
                &params.order,
                params.max_epochs,
                params.max_updates,
                params.initial.is_some(),
            ),
            data: DataSummary::of_classes(data, source),
            run: RunSummary::of_counts(
                fit.mistakes,
                fit.epochs,
                fit.stop_reason,
                fit.train_seconds,
            ),
        }
    }

    /// The provenance of a one-vs-rest run ([`OneVsRest::fit`]) of the perceptron `learner` on
    /// `data`: the classes' runs together, as [`RunSummary`] says. `None` when a class's run is not
    /// a perceptron's fit (a kernel or a checked run).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, model::Provenance, multiclass::{BinaryLearner, OneVsRest}};
    /// use novikoff::perceptron::{BiasRule, PerceptronParams};
    /// let data = MulticlassDataset::new(
    ///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]], vec!["a".into(), "b".into(), "c".into()], vec![0, 1, 2])?;
    /// let learner = PerceptronParams::new().bias(BiasRule::Classic);
    /// let ovr = OneVsRest::fit(&data, &BinaryLearner::Linear(learner.clone()))?;
    /// let provenance = Provenance::of_one_vs_rest(&ovr, &learner, &data, Some("three.csv")).unwrap();
    /// assert_eq!(provenance.run.mistakes, ovr.mistakes);
    /// assert_eq!(provenance.params.bias, "classic");
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn of_one_vs_rest(
        ovr: &OneVsRest,
        learner: &PerceptronParams,
        data: &MulticlassDataset,
        source: Option<&str>,
    ) -> Option<Self> {
        let fits = ovr.linear_fits().ok()?;
        Some(Provenance {
            learner: learner.variant.name(),
            params: TrainingParams::of_perceptron(learner),
            data: DataSummary::of_classes(data, source),
            run: RunSummary::of_classes(
                fits.iter()
                    .map(|f| (f.mistakes, f.epochs, f.stop_reason, f.train_seconds)),
            ),
        })
    }

    /// The provenance of a one-vs-rest run ([`OneVsRest::fit`]) of the kernel perceptron `learner`
    /// on `data`: the classes' runs together, as [`RunSummary`] says, the learner named
    /// `kernel:NAME`. `None` when a class's run is not a kernel perceptron's fit.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, model::Provenance, multiclass::{BinaryLearner, OneVsRest}};
    /// use novikoff::kernel::{Gamma, KernelParams, KernelPerceptronParams};
    /// let data = MulticlassDataset::new(
    ///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]], vec!["a".into(), "b".into(), "c".into()], vec![0, 1, 2])?;
    /// let learner = KernelPerceptronParams::new(KernelParams::rbf().gamma(Gamma::Value(0.5)).check()?);
    /// let ovr = OneVsRest::fit(&data, &BinaryLearner::Kernel(learner.clone()))?;
    /// let provenance = Provenance::of_kernel_one_vs_rest(&ovr, &learner, &data, None).unwrap();
    /// assert_eq!((provenance.learner.as_str(), provenance.run.mistakes), ("kernel:rbf", ovr.mistakes));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn of_kernel_one_vs_rest(
        ovr: &OneVsRest,
        learner: &KernelPerceptronParams,
        data: &MulticlassDataset,
        source: Option<&str>,
    ) -> Option<Self> {
        let fits = ovr.kernel_fits().ok()?;
        Some(Provenance {
            learner: format!("kernel:{}", fits.first()?.kernel.name()),
            params: TrainingParams::of_kernel(learner),
            data: DataSummary::of_classes(data, source),
            run: RunSummary::of_classes(
                fits.iter()
                    .map(|f| (f.mistakes, f.epochs, f.stop_reason, f.train_seconds)),
            ),
        })
    }
}

impl Provenance {
    /// The provenance of a kernel perceptron's run of `learner` on `data` (from `source`, a path,
    /// when given); the learner is named `kernel:NAME` (`kernel:rbf`, …).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::{Kernel, KernelPerceptronParams}, model::Provenance, Dataset};
    /// let data = Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let learner = KernelPerceptronParams::new(Kernel::linear());
    /// let fit = learner.clone().check()?.fit(&data)?;
    /// let provenance = Provenance::of_kernel_run(&fit, &learner, &data, None);
    /// assert_eq!(provenance.learner, "kernel:linear");
    /// assert_eq!(provenance.data.positives, Some(1));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn of_kernel_run(
        fit: &KernelFit,
        learner: &KernelPerceptronParams,
        data: &Dataset,
        source: Option<&str>,
    ) -> Self {
        Provenance {
            learner: format!("kernel:{}", fit.kernel.name()),
            params: TrainingParams::of_kernel(learner),
            data: DataSummary::of_labels(data, source),
            run: RunSummary::of_counts(
                fit.mistakes,
                fit.epochs,
                fit.stop_reason,
                fit.train_seconds,
            ),
        }
    }
}

impl TrainingParams {
    /// The parameters of a (binary) perceptron's run.
    fn of_perceptron(params: &PerceptronParams) -> Self {
        Self::of(
            params.bias,
            params.eta,
            &params.order,
            params.max_epochs,
            params.max_updates,
            params.initial_w.is_some() || params.initial_b != 0.0,
        )
    }

    /// The parameters of a kernel perceptron's run (which starts from zero).
    fn of_kernel(params: &KernelPerceptronParams) -> Self {
        Self::of(
            params.bias,
            params.eta,
            &params.order,
            params.max_epochs,
            params.max_updates,
            false,
        )
    }

    fn of(
        bias: BiasRule,
        eta: f64,
        order: &Order,
        max_epochs: usize,
        max_updates: Option<u64>,
        warm_start: bool,
    ) -> Self {
        TrainingParams {
            bias: bias.name(),
            eta,
            order: order.name().into(),
            seed: match order {
                Order::Shuffle { seed } => Some(*seed),
                _ => None,
            },
            max_epochs,
            max_updates,
            warm_start,
        }
    }
}

impl RunSummary {
    /// A run's counts; it converged exactly when it stopped for that reason.
    /// The classes' runs of one-vs-rest as one run: their mistakes and seconds summed, the most
    /// epochs, and the first stop reason other than convergence (converged when every class's run
    /// did).
    fn of_classes(runs: impl Iterator<Item = (u64, usize, StopReason, f64)>) -> Self {
        let mut total = Self::of_counts(0, 0, StopReason::Converged, 0.0);
        for (mistakes, epochs, stop_reason, seconds) in runs {
            total.mistakes += mistakes;
            total.epochs = total.epochs.max(epochs);
            total.train_seconds += seconds;
            if total.converged && stop_reason != StopReason::Converged {
                total.converged = false;
                total.stop_reason = stop_reason;
            }
        }
        total
    }

    fn of_counts(
        mistakes: u64,
        epochs: usize,
        stop_reason: StopReason,
        train_seconds: f64,
    ) -> Self {
        RunSummary {
            mistakes,
            epochs,
            converged: stop_reason == StopReason::Converged,
            stop_reason,
            train_seconds,
        }
    }
}

impl DataSummary {
    /// The summary without the class counts, which the binary and multi-class makers add.
    fn of(data: &Dataset, source: Option<&str>) -> Self {
        DataSummary {
            source: source.map(str::to_string),
            n: data.n_samples(),
            d: data.n_features(),
            nnz: data.nnz(),
            storage: if data.is_sparse() { "sparse" } else { "dense" }.into(),
            radius: data.known_radius(),
            positives: None,
            negatives: None,
            class_counts: None,
        }
    }

    /// A binary dataset's summary, with its rows of each sign.
    fn of_labels(data: &Dataset, source: Option<&str>) -> Self {
        let (positives, negatives) = data.class_counts();
        DataSummary {
            positives: Some(positives),
            negatives: Some(negatives),
            ..Self::of(data, source)
        }
    }

    /// A multi-class dataset's summary, with its rows of each class.
    fn of_classes(data: &MulticlassDataset, source: Option<&str>) -> Self {
        DataSummary {
            class_counts: Some(data.class_counts()),
            ..Self::of(data.features(), source)
        }
    }
}
