//! What `verify --multiclass` reports: the runs of one multi-class method, one per bias rule, each
//! checked against its theorem, and the verdict, as the CLI and the Python package print it.

use serde_json::{Value, json};

use super::ovr::{BinaryLearner, OneVsRest};
use super::perceptron::MulticlassPerceptronParams;
use super::verify::{LiftedGeometry, MulticlassVerdict, verify_with};
use super::{Method, MulticlassDataset};
use crate::bounds::Failure;
use crate::error::Result;
use crate::kernel::KernelSummary;
use crate::margin::MaxMarginParams;
use crate::perceptron::{BiasRule, PerceptronParams};

/// Every bias rule's run of one multi-class method, checked, in the order of the rules.
///
/// ```
/// use ndarray::array;
/// use novikoff::dataset::MulticlassDataset;
/// use novikoff::margin::{Bias, MaxMarginParams};
/// use novikoff::multiclass::{Method, MulticlassRuns};
/// use novikoff::perceptron::{BiasRule, PerceptronParams};
/// let data = MulticlassDataset::new(
///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0], [3.0, 0.5]],
///     vec!["a".into(), "b".into(), "c".into()],
///     vec![0, 1, 2, 0],
/// )?;
/// let rules = [PerceptronParams::new(), PerceptronParams::new().bias(BiasRule::Classic)];
/// let solver = MaxMarginParams::new(Bias::Free);
/// let runs = MulticlassRuns::verify(&data, Method::Kesler, &rules, &solver)?;
/// assert!(runs.failures().is_empty());
/// let json = runs.to_json("four points", &data, None);
/// assert_eq!((json["multiclass"].as_str(), json["passed"].as_bool()), (Some("kesler"), Some(true)));
/// assert_eq!(json["rules"][1]["rule"], "classic");
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MulticlassRuns {
    /// The multi-class perceptron, checked on Kesler's lifted vectors.
    Kesler(Vec<MulticlassVerdict>),
    /// One-vs-rest, each class checked against the binary theorem, with the bias rule of each run.
    OneVsRest(Vec<(BiasRule, OneVsRest)>),
}

impl MulticlassRuns {
    /// Train with each of `rules` (a bias rule with η, the order, the caps and the summation) by
    /// `method` and check every run: the multi-class perceptron on its lifted geometry
    /// ([`verify_with`]), or one-vs-rest with the perceptron on every class
    /// ([`OneVsRest::verify_with`]). Every margin solve has the limits of `solver` (its bias is not
    /// used: each problem has its own).
    ///
    /// # Errors
    /// As [`MulticlassPerceptronParams::from_perceptron`] (another variant than the perceptron for
    /// the multi-class perceptron), [`LiftedGeometry::for_run`] and [`OneVsRest::verify_with`].
    pub fn verify(
        data: &MulticlassDataset,
        method: Method,
        rules: &[PerceptronParams],
        solver: &MaxMarginParams,
    ) -> Result<MulticlassRuns> {
        match method {
            Method::Kesler => rules
                .iter()
                .map(|rule| {
                    let params = MulticlassPerceptronParams::from_perceptron(rule)?;
                    let lifted = LiftedGeometry::for_run(data, &params, solver)?;
                    verify_with(data, &lifted, &params)
                })
                .collect::<Result<_>>()
                .map(MulticlassRuns::Kesler),
            Method::OneVsRest => Self::verify_one_vs_rest(
                data,
                rules
                    .iter()
                    .map(|rule| BinaryLearner::Linear(rule.clone()))
                    .collect(),
                solver,
            ),
        }
    }

    /// One-vs-rest with each of `learners` (the perceptron or the kernel perceptron), every class's
    /// run checked ([`OneVsRest::verify_with`]).
    ///
    /// # Errors
    /// As [`OneVsRest::verify_with`].
    pub fn verify_one_vs_rest(
        data: &MulticlassDataset,
        learners: Vec<BinaryLearner>,
        solver: &MaxMarginParams,
    ) -> Result<MulticlassRuns> {
        learners
            .into_iter()
            .map(|learner| {
                let rule = match &learner {
                    BinaryLearner::Linear(params) => params.bias_rule(),
                    BinaryLearner::Kernel(params) => params.bias_rule(),
                };
                Ok((rule, OneVsRest::verify_with(data, &learner, solver)?))
            })
            .collect::<Result<_>>()
            .map(MulticlassRuns::OneVsRest)
    }

    /// The method of the runs.
    pub fn method(&self) -> Method {
        match self {
            MulticlassRuns::Kesler(_) => Method::Kesler,
            MulticlassRuns::OneVsRest(_) => Method::OneVsRest,
        }
    }

    /// Every failed check of every run.
    pub fn failures(&self) -> Vec<Failure> {
        match self {
            MulticlassRuns::Kesler(verdicts) => verdicts
                .iter()
                .flat_map(MulticlassVerdict::failures)
                .collect(),
            MulticlassRuns::OneVsRest(runs) => {
                runs.iter().flat_map(|(_, ovr)| ovr.failures()).collect()
            }
        }
    }

    /// The object `verify --multiclass --format json` prints: `data` (`source`), `classes`,
    /// `multiclass`, `rules` (each run, with its checks), `passed` and `failures`, and for one-vs-rest
    /// the `kernel` of its binary learners (null for the perceptron).
    pub fn to_json(
        &self,
        source: &str,
        data: &MulticlassDataset,
        kernel: Option<&KernelSummary>,
    ) -> Value {
        let failures: Vec<String> = self.failures().iter().map(ToString::to_string).collect();
        match self {
            MulticlassRuns::Kesler(verdicts) => json!({
                "data": source, "classes": data.classes(), "multiclass": "kesler",
                "rules": verdicts, "passed": failures.is_empty(), "failures": failures,
            }),
            MulticlassRuns::OneVsRest(runs) => json!({
                "data": source, "classes": data.classes(), "multiclass": "ovr", "kernel": kernel,
                "rules": runs.iter().map(|(rule, ovr)| json!({"rule": rule.name(), "run": ovr}))
                    .collect::<Vec<_>>(),
                "passed": failures.is_empty(), "failures": failures,
            }),
        }
    }
}
