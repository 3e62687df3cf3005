//! One-vs-rest: `k` binary problems, class `r` against the others, each run and checked against the
//! binary theorem on its own, in parallel; the prediction is the class whose decision value is highest
//! (scikit-learn's `OneVsRestClassifier`).

use ndarray::Array2;
use rayon::prelude::*;
use serde::Serialize;

use super::confusion::ConfusionMatrix;
use super::scores::{confusion_on, predicted_classes};
use crate::bounds::{Geometry, Verdict, verify_with};
use crate::dataset::{Dataset, MulticlassDataset};
use crate::error::{Error, Result};
use crate::kernel::{KernelFit, KernelPerceptronParams, KernelVerdict};
use crate::margin::{Bias, MaxMarginParams};
use crate::perceptron::{Fit, PerceptronParams};

/// The binary learner of every one-vs-rest problem.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BinaryLearner {
    /// The (primal) perceptron.
    Linear(PerceptronParams),
    /// The kernel perceptron.
    Kernel(KernelPerceptronParams),
}

/// One class's binary run and its check.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "learner", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ClassVerdict {
    /// A perceptron run.
    Linear(Box<Verdict>),
    /// A kernel perceptron run.
    Kernel(Box<KernelVerdict>),
    /// A perceptron run, not checked ([`OneVsRest::fit`]).
    #[serde(serialize_with = "linear_run")]
    LinearFit(Box<Fit>),
    /// A kernel perceptron run, not checked.
    #[serde(serialize_with = "kernel_run")]
    KernelFit(Box<KernelFit>),
}

/// An unchecked run in JSON: its counts.
fn run_summary<S: serde::Serializer>(
    serializer: S,
    mistakes: u64,
    epochs: usize,
    converged: bool,
) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut run = serializer.serialize_struct("Run", 3)?;
    run.serialize_field("mistakes", &mistakes)?;
    run.serialize_field("epochs", &epochs)?;
    run.serialize_field("converged", &converged)?;
    run.end()
}

fn linear_run<S: serde::Serializer>(fit: &Fit, s: S) -> std::result::Result<S::Ok, S::Error> {
    run_summary(s, fit.mistakes, fit.epochs, fit.converged)
}

fn kernel_run<S: serde::Serializer>(fit: &KernelFit, s: S) -> std::result::Result<S::Ok, S::Error> {
    run_summary(s, fit.mistakes, fit.epochs, fit.converged)
}

impl ClassVerdict {
    /// The run's mistakes.
    pub fn mistakes(&self) -> u64 {
        match self {
            ClassVerdict::Linear(v) => v.fit.mistakes,
            ClassVerdict::Kernel(v) => v.mistakes,
            ClassVerdict::LinearFit(f) => f.mistakes,
            ClassVerdict::KernelFit(f) => f.mistakes,
        }
    }

    /// Whether every applicable bound held (`None` when none applied).
    pub fn holds(&self) -> Option<bool> {
        match self {
            ClassVerdict::Linear(v) => v.holds,
            ClassVerdict::Kernel(v) => v.holds,
            _ => None,
        }
    }

    /// The tightest bound's value.
    pub fn bound(&self) -> Option<f64> {
        match self {
            ClassVerdict::Linear(v) => v.bound,
            ClassVerdict::Kernel(v) => v.bound,
            _ => None,
        }
    }

    /// Whether the run converged.
    pub fn converged(&self) -> bool {
        match self {
            ClassVerdict::Linear(v) => v.fit.converged,
            ClassVerdict::Kernel(v) => v.converged,
            ClassVerdict::LinearFit(f) => f.converged,
            ClassVerdict::KernelFit(f) => f.converged,
        }
    }

    /// Every failed check of the run.
    pub fn failures(&self) -> Vec<crate::bounds::Failure> {
        match self {
            ClassVerdict::Linear(v) => v.failures(),
            ClassVerdict::Kernel(v) => v.failures(),
            _ => Vec::new(),
        }
    }

    /// The decision values on `data` of the run's own predictor (the variant's: the averaged
    /// perceptron's averaged weights, the pocket's, the vote).
    fn decision_function(&self, data: &Dataset) -> Result<ndarray::Array1<f64>> {
        match self {
            ClassVerdict::Linear(v) => v.fit.decision_function_own(data),
            ClassVerdict::Kernel(v) => v.fit.decision_function(data),
            ClassVerdict::LinearFit(f) => f.decision_function_own(data),
            ClassVerdict::KernelFit(f) => f.decision_function(data),
        }
    }
}

/// One class against the rest.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OvrClass {
    /// The class's name.
    pub class: String,
    /// Its examples (the positives of its problem).
    pub positives: usize,
    /// The binary run, checked.
    pub verdict: ClassVerdict,
}

/// One-vs-rest on a multi-class dataset: every binary run with its own theorem check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OneVsRest {
    /// One entry per class, in class order.
    pub classes: Vec<OvrClass>,
    /// The sum of the binary runs' mistakes.
    pub mistakes: u64,
    /// Every class's applicable bounds held (`None` when none applied anywhere).
    pub holds: Option<bool>,
    /// Training accuracy of the argmax prediction.
    pub train_accuracy: f64,
    /// The confusion matrix on the training data.
    pub confusion: ConfusionMatrix,
}

impl OneVsRest {
    /// Run the `k` binary problems in parallel (rayon), each checked against every form of the binary
    /// theorem (its own margins, its own invariants). [`OneVsRest::fit`] trains without the checks.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, multiclass::{BinaryLearner, OneVsRest}};
    /// use novikoff::perceptron::{BiasRule, PerceptronParams};
    /// let data = MulticlassDataset::new(
    ///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0], [3.0, 0.5], [0.5, 3.0], [-3.0, -2.5]],
    ///     vec!["a".into(), "b".into(), "c".into()],
    ///     vec![0, 1, 2, 0, 1, 2],
    /// )?;
    /// let ovr = OneVsRest::verify(&data, &BinaryLearner::Linear(PerceptronParams::new().bias(BiasRule::Classic)))?;
    /// assert_eq!(ovr.classes.len(), 3);
    /// assert_eq!(ovr.holds, Some(true));
    /// assert_eq!(ovr.train_accuracy, 1.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// The first class's error, in class order (the same whatever the thread count).
    pub fn verify(data: &MulticlassDataset, learner: &BinaryLearner) -> Result<OneVsRest> {
        Self::verify_with(data, learner, &MaxMarginParams::new(Bias::Free))
    }

    /// [`OneVsRest::verify`] with the maximum-margin solver's limits of every class's geometry taken
    /// from `solver`, as [`Geometry::compute_with`] takes them (its bias is not used): what
    /// `verify --multiclass ovr --working-set-mb` and an experiment's `[measure] working_set_mb` set.
    /// The kernel perceptron's margins have their own limits, in its [`KernelPerceptronParams`].
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, multiclass::{BinaryLearner, OneVsRest}};
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// use novikoff::perceptron::PerceptronParams;
    /// let data = MulticlassDataset::new(
    ///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]], vec!["a".into(), "b".into(), "c".into()], vec![0, 1, 2])?;
    /// let learner = BinaryLearner::Linear(PerceptronParams::new());
    /// let limits = MaxMarginParams::new(Bias::Free).working_set_memory(1 << 30);
    /// assert_eq!(OneVsRest::verify_with(&data, &learner, &limits)?.holds, Some(true));
    /// assert!(OneVsRest::verify_with(&data, &learner, &limits.working_set_memory(0)).is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// The errors of [`MaxMarginParams::check`] for limits that are not valid, and those of
    /// [`OneVsRest::verify`].
    pub fn verify_with(
        data: &MulticlassDataset,
        learner: &BinaryLearner,
        solver: &MaxMarginParams,
    ) -> Result<OneVsRest> {
        solver.clone().check()?;
        Self::run(data, learner, Some(solver))
    }

    /// Train the `k` binary problems in parallel, without the theorem's checks (no margin is solved).
    ///
    /// # Errors
    /// As [`OneVsRest::verify`].
    pub fn fit(data: &MulticlassDataset, learner: &BinaryLearner) -> Result<OneVsRest> {
        Self::run(data, learner, None)
    }

    /// Train, and check each run against its theorem when `check` holds the margin solver's limits.
    fn run(
        data: &MulticlassDataset,
        learner: &BinaryLearner,
        check: Option<&MaxMarginParams>,
    ) -> Result<OneVsRest> {
        let results: Vec<Result<OvrClass>> = (0..data.n_classes())
            .into_par_iter()
            .map(|r| {
                let binary = data.one_vs_rest(r)?;
                let verdict = match learner {
                    BinaryLearner::Linear(params) => match check {
                        None => ClassVerdict::LinearFit(Box::new(params.fit(&binary)?)),
                        Some(solver) => {
                            let geometry = Geometry::compute_with(&binary, solver)?;
                            ClassVerdict::Linear(Box::new(verify_with(&geometry, params)?))
                        }
                    },
                    BinaryLearner::Kernel(params) => match check {
                        None => {
                            ClassVerdict::KernelFit(Box::new(params.clone().check()?.fit(&binary)?))
                        }
                        Some(_) => {
                            ClassVerdict::Kernel(Box::new(crate::kernel::verify(&binary, params)?))
                        }
                    },
                };
                Ok(OvrClass {
                    class: data.classes()[r].clone(),
                    positives: binary.class_counts().0,
                    verdict,
                })
            })
            .collect();
        let classes = results.into_iter().collect::<Result<Vec<_>>>()?;
        let applicable: Vec<bool> = classes.iter().filter_map(|c| c.verdict.holds()).collect();
        let mut ovr = OneVsRest {
            mistakes: classes.iter().map(|c| c.verdict.mistakes()).sum(),
            holds: (!applicable.is_empty()).then(|| applicable.iter().all(|&h| h)),
            classes,
            train_accuracy: 0.0,
            confusion: ConfusionMatrix::new(data.classes().to_vec(), &[], &[])?,
        };
        ovr.confusion = ovr.confusion(data)?;
        ovr.train_accuracy = ovr.confusion.accuracy();
        Ok(ovr)
    }

    /// Every class's decision value on `data` (`n × k`), from its run's own predictor: the last
    /// weights, or the variant's (the averaged weights, the pocket's, the vote).
    ///
    /// # Errors
    /// As the binary predictors' (another number of features).
    pub fn decision_function(&self, data: &Dataset) -> Result<Array2<f64>> {
        let mut out = Array2::zeros((data.n_samples(), self.classes.len()));
        for (r, class) in self.classes.iter().enumerate() {
            out.column_mut(r)
                .assign(&class.verdict.decision_function(data)?);
        }
        Ok(out)
    }

    /// The predicted classes: the highest decision value, the lowest class on a tie.
    ///
    /// # Errors
    /// As [`OneVsRest::decision_function`].
    pub fn predict(&self, data: &Dataset) -> Result<Vec<usize>> {
        Ok(predicted_classes(&self.decision_function(data)?))
    }

    /// The confusion matrix on data with the training classes.
    ///
    /// # Errors
    /// [`Error::Parameter`] for data with other classes.
    pub fn confusion(&self, data: &MulticlassDataset) -> Result<ConfusionMatrix> {
        let names: Vec<String> = self.classes.iter().map(|c| c.class.clone()).collect();
        confusion_on(&names, data, |rows| self.predict(rows))
    }

    /// Every class's perceptron run, in class order: what a saved model and its provenance are
    /// made of.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, multiclass::{BinaryLearner, OneVsRest}};
    /// use novikoff::perceptron::PerceptronParams;
    /// let data = MulticlassDataset::new(
    ///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]], vec!["a".into(), "b".into(), "c".into()], vec![0, 1, 2])?;
    /// let learner = BinaryLearner::Linear(PerceptronParams::new());
    /// assert_eq!(OneVsRest::fit(&data, &learner)?.linear_fits()?.len(), 3);
    /// assert!(OneVsRest::verify(&data, &learner)?.linear_fits().is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Parameter`] for a class learnt by the kernel perceptron (a
    /// dual model) or checked by [`OneVsRest::verify`] (which keeps its verdict, not its weights).
    pub fn linear_fits(&self) -> Result<Vec<&Fit>> {
        self.classes
            .iter()
            .map(|class| match &class.verdict {
                ClassVerdict::LinearFit(fit) => Ok(fit.as_ref()),
                ClassVerdict::Kernel(_) | ClassVerdict::KernelFit(_) => Err(Error::parameter(
                    "learner",
                    format!(
                        "class `{}` was learnt by the kernel perceptron, whose model is dual, not \
                         linear",
                        class.class
                    ),
                )),
                ClassVerdict::Linear(_) => Err(checked_not_fitted(class)),
            })
            .collect()
    }

    /// Every class's kernel perceptron run, in class order: what a saved kernel model and its
    /// provenance are made of.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, multiclass::{BinaryLearner, OneVsRest}};
    /// use novikoff::kernel::{Gamma, KernelParams, KernelPerceptronParams};
    /// let data = MulticlassDataset::new(
    ///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]], vec!["a".into(), "b".into(), "c".into()], vec![0, 1, 2])?;
    /// let learner = BinaryLearner::Kernel(KernelPerceptronParams::new(KernelParams::rbf().gamma(Gamma::Value(0.5)).check()?));
    /// assert_eq!(OneVsRest::fit(&data, &learner)?.kernel_fits()?.len(), 3);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Parameter`] for a class learnt by the perceptron (see [`OneVsRest::linear_fits`]) or
    /// checked by [`OneVsRest::verify`].
    pub fn kernel_fits(&self) -> Result<Vec<&KernelFit>> {
        self.classes
            .iter()
            .map(|class| match &class.verdict {
                ClassVerdict::KernelFit(fit) => Ok(fit.as_ref()),
                ClassVerdict::Linear(_) | ClassVerdict::LinearFit(_) => Err(Error::parameter(
                    "learner",
                    format!(
                        "class `{}` was learnt by the perceptron, whose model is linear",
                        class.class
                    ),
                )),
                ClassVerdict::Kernel(_) => Err(checked_not_fitted(class)),
            })
            .collect()
    }

    /// Every failed check of every class's run.
    pub fn failures(&self) -> Vec<crate::bounds::Failure> {
        self.classes
            .iter()
            .flat_map(|c| c.verdict.failures())
            .collect()
    }
}

/// The refusal of a saved model of a class that [`OneVsRest::verify`] checked: it keeps the verdict,
/// not the weights.
fn checked_not_fitted(class: &OvrClass) -> Error {
    Error::parameter(
        "learner",
        format!(
            "class `{}` was checked by OneVsRest::verify, which keeps its verdict, not its weights: \
             train it with OneVsRest::fit",
            class.class
        ),
    )
}
