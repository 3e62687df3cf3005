//! One task of the kernel and multi-class axes: the kernel perceptron checked in its feature space, or
//! the multi-class methods checked on their own bounds. The margins each needs (a kernel's four, the
//! lifted space's) are solved once per dataset, by the first task that needs them, and shared.

use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Map, Value, json};

use super::grid::generator;
use super::measure_options::Measure;
use super::plan::{DatasetInstance, Source, Task};
use super::record::TaskRecord;
use crate::dataset::{Dataset, DenseRow, MulticlassDataset};
use crate::error::{Error, Result};
use crate::kernel::{
    self, Kernel, KernelFit, KernelGeometry, KernelPerceptronParams, KernelVerifyOptions,
};
use crate::margin::Bias;
use crate::multiclass::{
    self, BinaryLearner, LiftedGeometry, Method, MulticlassPerceptronParams, OneVsRest,
};

/// 2-D datasets up to this size carry their points in the rows, for the plots.
const MAX_PLOTTED_POINTS: usize = 2000;

/// An error kept for every task that asks again: whether it was the input's, and its message.
type Kept<T> = std::result::Result<T, (bool, String)>;

fn kept(error: Error) -> (bool, String) {
    (error.is_input(), error.to_string())
}

fn revive((input, message): &(bool, String)) -> Error {
    if *input {
        Error::parameter("kernel", message.clone())
    } else {
        Error::Solver(message.clone())
    }
}

/// A value computed once by whichever task asks first.
type Slot<T> = Arc<OnceLock<Kept<T>>>;

/// The margin problems shared by the tasks of one dataset.
#[derive(Default)]
pub(crate) struct SharedSolves<'a> {
    kernels: Mutex<Vec<(String, Slot<KernelGeometry<'a>>)>>,
    lifted: Mutex<Vec<(u64, Slot<LiftedGeometry>)>>,
}

fn slot<K: PartialEq, T>(list: &Mutex<Vec<(K, Slot<T>)>>, key: K) -> Slot<T> {
    let mut list = list.lock().expect("no task panics holding the list");
    if let Some((_, slot)) = list.iter().find(|(k, _)| *k == key) {
        return slot.clone();
    }
    let slot = Slot::default();
    list.push((key, slot.clone()));
    slot
}

/// What a task reads of its prepared dataset.
pub(crate) struct Parts<'p, 'a> {
    pub(crate) data: &'a Dataset,
    pub(crate) classes: Option<&'a MulticlassDataset>,
    pub(crate) test: Option<&'p Dataset>,
    pub(crate) class_test: Option<&'p MulticlassDataset>,
    pub(crate) solves: &'p SharedSolves<'a>,
}

/// Load a dataset with its classes: a file read with every class kept, the `multiclass` family, or a
/// binary family's two classes (`-1` and `1`).
pub(crate) fn load_classes(instance: &DatasetInstance) -> Result<MulticlassDataset> {
    match &instance.source {
        Source::File { path, options } => crate::io::open_multiclass(path, options),
        Source::Generated {
            family,
            params,
            seed,
        } if family == "multiclass" => Ok(super::kernel_axes::multiclass_family(params, *seed)?
            .generate()?
            .data),
        Source::Generated {
            family,
            params,
            seed,
        } => {
            let binary = match generator(family, params, *seed)? {
                Some(spec) => spec.generate()?.data,
                None => crate::textbook::example(family).ok_or_else(|| {
                    Error::parameter("family", format!("unknown example `{family}`"))
                })?,
            };
            let y = binary
                .labels()
                .iter()
                .map(|&l| usize::from(l > 0.0))
                .collect();
            MulticlassDataset::from_features(binary, vec!["-1".into(), "1".into()], y)
        }
    }
}

/// Measure one task of the kernel or multi-class axes.
pub(crate) fn fill(
    record: &mut TaskRecord,
    task: &Task,
    parts: &Parts<'_, '_>,
    measure: &Measure,
) -> Result<()> {
    match (task.multiclass, parts.classes) {
        (Some(method), Some(classes)) => {
            fill_multiclass(record, task, method, classes, parts, measure)
        }
        (Some(_), None) => Err(Error::parameter(
            "multiclass",
            "the dataset was not read with its classes",
        )),
        (None, _) => fill_kernel(record, task, parts, measure),
    }
}

fn fill_kernel(
    record: &mut TaskRecord,
    task: &Task,
    parts: &Parts<'_, '_>,
    measure: &Measure,
) -> Result<()> {
    let data = parts.data;
    let choice = task.kernel.as_ref().expect("a kernel task");
    let kernel = choice.kernel(data)?;
    record.record_kernel(&kernel);
    let params = KernelPerceptronParams::from_perceptron(&task.params, kernel.clone())?;
    let fit = if measure.bounds || measure.margin {
        let slot = slot(&parts.solves.kernels, kernel.describe());
        let geometry = slot
            .get_or_init(|| KernelGeometry::compute(data, &kernel).map_err(kept))
            .as_ref()
            .map_err(revive)?;
        if measure.bounds {
            let options = KernelVerifyOptions {
                invariants: measure.invariants,
                record_steps: false,
            };
            let verdict = kernel::verify_with(geometry, &params, &options)?;
            record.record_kernel_verdict(&verdict);
            verdict.fit
        } else {
            let fit = params.clone().check()?.fit(data)?;
            record.record_kernel_fit(&fit);
            fit
        }
    } else {
        let fit = params.clone().check()?.fit(data)?;
        record.record_kernel_fit(&fit);
        fit
    };
    if let Some(test) = parts.test {
        record.test_last = Some(fit.accuracy(test)?);
    }
    if let Some(extra) = plot_extra(data, &kernel, &fit) {
        record.extra = extra;
    }
    Ok(())
}

/// The points, the labels and the dual predictor of a 2-D dataset, for the contour of the decision
/// boundary in the dataset plot.
fn plot_extra(data: &Dataset, kernel: &Kernel, fit: &KernelFit) -> Option<Value> {
    if data.n_features() != 2 || data.n_samples() > MAX_PLOTTED_POINTS || kernel.gram().is_some() {
        return None;
    }
    let mut dense = DenseRow::default();
    let points: Vec<Value> = (0..data.n_samples())
        .map(|i| json!(dense.of(data.row_view(i), 2)))
        .collect();
    let support: Vec<Value> = fit
        .support
        .iter()
        .map(|&i| json!(dense.of(data.row_view(i), 2)))
        .collect();
    let coef: Vec<f64> = fit.support.iter().map(|&i| fit.coef[i]).collect();
    let mut extra = Map::new();
    extra.insert("points".into(), Value::Array(points));
    extra.insert("labels".into(), json!(data.labels()));
    extra.insert(
        "dual".into(),
        json!({
            "kernel": kernel::KernelSummary::of(kernel),
            "support": support,
            "coef": coef,
            "b": fit.b,
        }),
    );
    Some(Value::Object(extra))
}

fn fill_multiclass(
    record: &mut TaskRecord,
    task: &Task,
    method: Method,
    classes: &MulticlassDataset,
    parts: &Parts<'_, '_>,
    measure: &Measure,
) -> Result<()> {
    record.classes = Some(classes.n_classes());
    let confusion = match method {
        Method::Kesler => {
            if task
                .kernel
                .as_ref()
                .is_some_and(|k| k.kind != kernel::KernelKind::Linear)
            {
                return Err(Error::parameter(
                    "kernel",
                    "the multi-class perceptron runs without a kernel",
                ));
            }
            let params = MulticlassPerceptronParams::from_perceptron(&task.params)?;
            if measure.bounds {
                let c = params.bias_rule().constant(classes.features().radius());
                let slot = slot(&parts.solves.lifted, c.to_bits());
                let lifted = slot
                    .get_or_init(|| {
                        LiftedGeometry::compute_with(
                            classes,
                            c,
                            &measure.solver(Bias::ThroughOrigin),
                        )
                        .map_err(kept)
                    })
                    .as_ref()
                    .map_err(revive)?;
                let verdict = multiclass::verify_with(classes, lifted, &params)?;
                record.record_multiclass_verdict(&verdict);
                let test = parts
                    .class_test
                    .map(|t| verdict.fit.confusion(t))
                    .transpose()?;
                (verdict.confusion, test)
            } else {
                let fit = params.check()?.fit(classes)?;
                record.record_multiclass_fit(&fit);
                let test = parts.class_test.map(|t| fit.confusion(t)).transpose()?;
                (fit.confusion(classes)?, test)
            }
        }
        Method::OneVsRest => {
            let learner = match &task.kernel {
                Some(choice) => {
                    let kernel = choice.kernel(classes.features())?;
                    record.record_kernel(&kernel);
                    BinaryLearner::Kernel(KernelPerceptronParams::from_perceptron(
                        &task.params,
                        kernel,
                    )?)
                }
                None => BinaryLearner::Linear(task.params.clone()),
            };
            let ovr = if measure.bounds {
                OneVsRest::verify_with(classes, &learner, &measure.solver(Bias::Free))?
            } else {
                OneVsRest::fit(classes, &learner)?
            };
            record.record_one_vs_rest(&ovr);
            let test = parts.class_test.map(|t| ovr.confusion(t)).transpose()?;
            (ovr.confusion, test)
        }
    };
    let (train, test) = confusion;
    if let Some(test) = &test {
        record.record_confusion_test(test);
    }
    record.extra = json!({
        "confusion": train,
        "test_confusion": test,
    });
    Ok(())
}
