//! One task's measurements: load or generate the dataset, solve its margins once, then train and check
//! every run on it.

use std::time::Instant;

use serde_json::{Map, Value, json};

use super::grid::{Scalar, generator};
use super::measure_kernel::{SharedSolves, load_classes};
use super::measure_options::Measure;
use super::plan::{DatasetInstance, Source, Task};
use super::record::TaskRecord;
use super::spec::ADVERSARY_UPDATES;
use crate::bounds::{
    AdversaryParams, BoundKind, Geometry, Verdict, VerifyOptions, search, verify_with_options,
};
use crate::dataset::{Dataset, DenseRow, MulticlassDataset};
use crate::error::{Error, Result};
use crate::margin::Bias;
use crate::perceptron::Variant;
use crate::rng::derive_seed;

/// The bound columns of `results.csv`, one per form of the theorem, in report order.
///
/// ```
/// assert_eq!(novikoff::experiment::bound_names()[0], "block_novikoff");
/// ```
pub fn bound_names() -> Vec<String> {
    BoundKind::ALL.iter().map(|k| k.id().to_string()).collect()
}

/// 2-D datasets up to this size carry their points in the rows, for the plots.
const MAX_PLOTTED_POINTS: usize = 2000;
/// A traced run keeps at most this many points of cos(u, w_k) and ‖w_k‖.
const TRACE_POINTS: usize = 200;

/// The work shared by every task of a dataset: the dataset and, when the spec measures them, its
/// margins (one geometry, borrowed by every task).
pub(crate) struct Prepared<'a> {
    data: &'a Dataset,
    geometry: Option<Geometry<'a>>,
    solve_seconds: Option<f64>,
    /// The held-out data of a `file` entry with a `test`.
    test: Option<Dataset>,
    /// The classes, for a multi-class dataset.
    classes: Option<&'a MulticlassDataset>,
    /// The held-out data of a multi-class `file` entry, with the training classes.
    class_test: Option<MulticlassDataset>,
    /// The kernel and lifted margins, solved once per dataset by the first task that needs them.
    solves: SharedSolves<'a>,
}

/// A dataset as the tasks read it: binary labels, or every class kept.
pub(crate) enum Loaded {
    Binary(Dataset),
    Classes(MulticlassDataset),
}

impl Loaded {
    fn features(&self) -> &Dataset {
        match self {
            Loaded::Binary(data) => data,
            Loaded::Classes(classes) => classes.features(),
        }
    }
}

/// Load or generate a task group's dataset.
pub(crate) fn load(instance: &DatasetInstance) -> Result<Loaded> {
    if instance.classes {
        return load_classes(instance).map(Loaded::Classes);
    }
    Ok(Loaded::Binary(match &instance.source {
        Source::File { path, options } => crate::io::open(path, options)?,
        Source::Generated {
            family,
            params,
            seed,
        } => match generator(family, params, *seed)? {
            Some(spec) => spec.generate()?.data,
            None if crate::bundled::NAMES.contains(&family.as_str()) => {
                let positive = match params.get("positive") {
                    Some(Scalar::Text(text)) => text.clone(),
                    Some(Scalar::Number(value)) => value.to_string(),
                    None => String::new(),
                };
                crate::bundled::dataset(family, &positive)?
            }
            None => crate::textbook::example(family)
                .ok_or_else(|| Error::parameter("family", format!("unknown example `{family}`")))?,
        },
    }))
}

/// Solve the margins of a loaded dataset (timed), if the spec measures them, and read its test data.
pub(crate) fn prepare<'a>(
    loaded: &'a Loaded,
    instance: &DatasetInstance,
    measure: &Measure,
) -> Result<Prepared<'a>> {
    let data = loaded.features();
    let classes = match loaded {
        Loaded::Classes(classes) => Some(classes),
        Loaded::Binary(_) => None,
    };
    if let Some(classes) = classes {
        let class_test = match (&instance.test, &instance.source) {
            (Some(path), Source::File { options, .. }) => Some(crate::io::open_multiclass_as(
                path,
                &options.clone().n_features(data.n_features()),
                classes.classes(),
            )?),
            _ => None,
        };
        return Ok(Prepared {
            data,
            geometry: None,
            solve_seconds: None,
            test: None,
            classes: Some(classes),
            class_test,
            solves: SharedSolves::default(),
        });
    }
    let test = match (&instance.test, &instance.source) {
        (Some(path), Source::File { options, .. }) => Some(crate::io::open(
            path,
            &options.clone().n_features(data.n_features()),
        )?),
        _ => None,
    };
    let (geometry, solve_seconds) =
        if (measure.margin || measure.bounds) && instance.binary_geometry {
            let started = Instant::now();
            let geometry = Geometry::compute_with(data, &measure.solver(Bias::Free))?;
            (Some(geometry), Some(started.elapsed().as_secs_f64()))
        } else {
            (None, None)
        };
    Ok(Prepared {
        data,
        geometry,
        solve_seconds,
        test,
        classes: None,
        class_test: None,
        solves: SharedSolves::default(),
    })
}

fn base_record(task: &Task, instance: &DatasetInstance, spec_hash: &str) -> TaskRecord {
    TaskRecord {
        task_id: task.id.clone(),
        index: task.index,
        key: task.key.clone(),
        spec_hash: spec_hash.to_string(),
        dataset: instance.key.clone(),
        source: match &instance.source {
            Source::File { .. } => "file".to_string(),
            Source::Generated { family, .. } => family.clone(),
        },
        rule: task.params.bias.name(),
        multiclass: task.multiclass.map(|m| m.name().to_string()),
        variant: task.params.variant_kind().name(),
        order: task.params.order.name().to_string(),
        eta: task.params.eta,
        seed: task.replicate,
        ..TaskRecord::default()
    }
}

/// The row of a task whose dataset could not be prepared.
pub(crate) fn failed_record(
    task: &Task,
    instance: &DatasetInstance,
    spec_hash: &str,
    error: &Error,
) -> TaskRecord {
    TaskRecord {
        error: Some(error.to_string()),
        ..base_record(task, instance, spec_hash)
    }
}

/// Train and check one task; any failure becomes the row's `error`, and is returned beside the row.
pub(crate) fn measure(
    task: &Task,
    instance: &DatasetInstance,
    prepared: &Prepared<'_>,
    measure: &Measure,
    spec_hash: &str,
) -> (TaskRecord, Option<Error>) {
    let mut record = base_record(task, instance, spec_hash);
    let failure = fill(&mut record, task, instance, prepared, measure).err();
    if let Some(error) = &failure {
        record.error = Some(error.to_string());
    }
    (record, failure)
}

fn fill(
    record: &mut TaskRecord,
    task: &Task,
    instance: &DatasetInstance,
    prepared: &Prepared<'_>,
    measure: &Measure,
) -> Result<()> {
    let data = prepared.data;
    record.n = Some(data.n_samples());
    record.d = Some(data.n_features());
    record.nnz = Some(data.nnz());
    record.radius = Some(data.radius());
    record.solve_seconds = prepared.solve_seconds;
    if let Some(geometry) = &prepared.geometry {
        let stats = geometry.solve_stats();
        record.solve_passes = Some(stats.passes);
        record.working_set = Some(stats.working_set);
    }
    if task.kernel.is_some() || task.multiclass.is_some() {
        let parts = super::measure_kernel::Parts {
            data: prepared.data,
            classes: prepared.classes,
            test: prepared.test.as_ref(),
            class_test: prepared.class_test.as_ref(),
            solves: &prepared.solves,
        };
        return super::measure_kernel::fill(record, task, &parts, measure);
    }
    let params = &task.params;
    // Checked here, whichever branch runs, so that an invalid task fails the same way in both.
    let learner = params.clone().check()?;
    let mut extra = Map::new();
    let (w, b) = match (&prepared.geometry, measure.bounds) {
        (Some(geometry), true) => {
            let options = VerifyOptions {
                invariants: measure.invariants,
                record_steps: measure.trace_summary && measure.invariants,
            };
            let verdict = verify_with_options(geometry, params, &options)?;
            record.record_verdict(&verdict);
            if instance.adversary
                && params.variant_kind() == Variant::Perceptron
                && task.replicate.is_none()
            {
                let adversary = AdversaryParams::new()
                    .restarts(2)
                    .seed(derive_seed(0, &task.key))
                    .max_updates(Some(ADVERSARY_UPDATES))
                    .check()?;
                record.record_adversary(&search(geometry, &learner, &adversary)?);
            }
            if let Some(test) = &prepared.test {
                record.record_test(&verdict.fit.test_accuracy(test)?);
            }
            if measure.trace_summary
                && let Some(trace) = trace_summary(&verdict)
            {
                extra.insert("trace".into(), trace);
            }
            (Some(verdict.fit.w.to_vec()), Some(verdict.fit.b))
        }
        _ => {
            let fit = learner.fit(data)?;
            record.record_fit(&fit);
            if let Some(test) = &prepared.test {
                record.record_test(&fit.test_accuracy(test)?);
            }
            (Some(fit.w.to_vec()), Some(fit.b))
        }
    };
    if data.n_features() == 2 && data.n_samples() <= MAX_PLOTTED_POINTS {
        let mut dense_row = DenseRow::default();
        let points: Vec<Value> = (0..data.n_samples())
            .map(|i| json!(dense_row.of(data.row_view(i), 2)))
            .collect();
        extra.insert("points".into(), Value::Array(points));
        extra.insert("labels".into(), json!(data.labels()));
        if let (Some(w), Some(b)) = (w, b) {
            extra.insert("w".into(), json!(w));
            extra.insert("b".into(), json!(b));
        }
        if let Some(summary) = prepared.geometry.as_ref().map(|g| g.summary()) {
            let free = &summary.margins.free_bias;
            if free.status == "separable" {
                extra.insert(
                    "max_margin".into(),
                    json!({ "w": free.w, "b": free.b, "gamma": free.bracket.map(|b| b[0]), "support": free.support }),
                );
            }
        }
    }
    if !extra.is_empty() {
        record.extra = Value::Object(extra);
    }
    Ok(())
}

/// cos(u, w_k) and ‖w_k‖ at up to [`TRACE_POINTS`] evenly spaced updates, with the constants of the
/// proof's bounds.
fn trace_summary(verdict: &Verdict) -> Option<Value> {
    let steps = &verdict.invariants.steps;
    if steps.is_empty() {
        return None;
    }
    let stride = steps.len().div_ceil(TRACE_POINTS).max(1);
    let picked: Vec<_> = steps
        .iter()
        .enumerate()
        .filter(|(i, _)| i % stride == 0 || *i + 1 == steps.len())
        .map(|(_, s)| s)
        .collect();
    Some(json!({
        "k": picked.iter().map(|s| s.update).collect::<Vec<_>>(),
        "cos": picked.iter().map(|s| s.cos).collect::<Vec<_>>(),
        "norm": picked.iter().map(|s| s.norm_sq.sqrt()).collect::<Vec<_>>(),
        "gamma": verdict.invariants.gamma,
        "r_eff": verdict.invariants.radius_eff,
        "eta": verdict.eta,
    }))
}
