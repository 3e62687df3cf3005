//! Training, prediction and model files for the estimator `novikoff.Perceptron`.

use std::time::Instant;

use novikoff::model::{LinearModel, Model, ModelFile, Provenance};
use novikoff::perceptron::{BiasRule, Order, PerceptronParams, Predictor, Variant};
use novikoff::simd::Summation;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::OrPy;
use crate::{features, labels};

/// `sequential` or `fast`.
pub fn summation(name: &str) -> PyResult<Summation> {
    match name {
        "sequential" => Ok(Summation::Sequential),
        "fast" => Ok(Summation::Fast),
        other => Err(PyValueError::new_err(format!(
            "summation must be 'sequential' or 'fast', got {other:?}"
        ))),
    }
}

/// Train the perceptron on `x` and `y` and return the run as a dict: `w` (an array), `b`,
/// `bias_constant`, `bias_weight`, `mistakes`, `epochs`, `converged`, `stop_reason`, the timings, and
/// `model_json`, the run's model file (None when its weights are not finite; its radius is recorded
/// only when the run computed it).
///
/// With `target="signs"`, `y` holds ±1 (`float64`; the crate checks them). With `target="binary"`, `y`
/// is a binary target of whole numbers (`int64` or `float64`), mapped in one pass (see
/// [`labels::binary`]) and returned as `classes`; when it is not such a target, or has one class,
/// nothing is trained and the dict holds `classes` alone (None or one class), for the caller to name
/// the problem.
///
/// The timings, in seconds: `train_seconds` is the crate's training loop (`Fit::train_seconds`);
/// `fit_seconds` is what a Rust program spends in `Dataset::new(x, y)` (here `from_shared`, with the
/// same checks) and `Perceptron::fit`; `call_seconds` is this whole call in Rust (with the labels'
/// mapping and the model file).
///
/// `bias` is a rule name (`none`, `classic`, `novikoff`, `c=VALUE`); `bias_constant`, when given,
/// fixes the constant `c` instead (the estimator's later `partial_fit` calls keep the first call's `c`).
///
/// `variant` is a member of the perceptron's family as the CLI's `--variant` names it (`perceptron`,
/// `averaged`, `pocket`, `margin:β`, `pa`, `pa1:C`, `pa2:C`). `w` and `b` are then the variant's own
/// linear predictor ([`LinearModel::of_run`]: the averaged weights, the pocket's), `last_w` and
/// `last_b` the last weights, and `updates` the updates made (the margin perceptron and PA update
/// without a mistake). The voted perceptron is refused: its vote is not a linear model.
#[pyfunction]
#[pyo3(signature = (x, y, *, target, bias, bias_constant=None, eta, shuffle, seed, max_epochs,
    max_updates, summation, variant="perceptron", initial_w=None, initial_b=0.0, source=None))]
#[allow(clippy::too_many_arguments)]
pub fn fit<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: &Bound<'py, PyAny>,
    target: &str,
    bias: &str,
    bias_constant: Option<f64>,
    eta: f64,
    shuffle: bool,
    seed: u64,
    max_epochs: usize,
    max_updates: Option<u64>,
    summation: &str,
    variant: &str,
    initial_w: Option<PyReadonlyArray1<'py, f64>>,
    initial_b: f64,
    source: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let started = Instant::now();
    let rule = match bias_constant {
        Some(c) => BiasRule::Constant(c),
        None => BiasRule::parse(bias).or_py()?,
    };
    let variant = Variant::parse(variant).or_py()?;
    if variant.predictor() == Predictor::Voted {
        return Err(PyValueError::new_err(
            "variant 'voted' predicts by a vote of many weight vectors, which a linear estimator \
             cannot hold; use 'averaged' (Freund and Schapire's cheaper approximation of the vote)",
        ));
    }
    let mut params = PerceptronParams::new()
        .variant(variant)
        .bias(rule)
        .eta(eta)
        .order(if shuffle {
            Order::Shuffle { seed }
        } else {
            Order::Cyclic
        })
        .max_epochs(max_epochs)
        .max_updates(max_updates)
        .summation(self::summation(summation)?);
    if let Some(w) = initial_w {
        params = params.initial(w.as_array().to_owned(), initial_b);
    }
    let learner = params.check().or_py()?;
    let matrix = features::matrix(x)?;
    let out = PyDict::new(py);
    let labels_started = Instant::now();
    let labels = match target {
        "signs" => labels::signs(y)?,
        "binary" => match labels::binary(py, y)? {
            Some((classes, signs)) if classes.len()? == 2 => {
                out.set_item("classes", classes)?;
                signs
            }
            Some((classes, _)) => {
                out.set_item("classes", classes)?;
                return Ok(out);
            }
            None => {
                out.set_item("classes", py.None())?;
                return Ok(out);
            }
        },
        other => {
            return Err(PyValueError::new_err(format!(
                "target must be 'signs' or 'binary', got {other:?}"
            )));
        }
    };
    out.set_item("labels_seconds", labels_started.elapsed().as_secs_f64())?;
    // What a Rust program times around `Dataset::new(x, y)` and `Perceptron::fit`.
    let fit_started = Instant::now();
    let input = features::build(matrix, labels)?;
    let data = input.data();
    let (fit, fit_seconds, model, model_json) = py
        .detach(|| {
            let fit = learner.fit(data)?;
            let fit_seconds = fit_started.elapsed().as_secs_f64();
            // No pass over the data for R here (it costs as much as a clean epoch): the file records
            // R when the run computed it (the novikoff rule).
            let provenance =
                Provenance::of_run_without_radius_pass(&fit, &learner, data, source.as_deref());
            let model = LinearModel::of_run(&fit).ok();
            let model_json = model.clone().and_then(|m| {
                ModelFile::new(Model::Linear(m), Some(provenance))
                    .to_json()
                    .ok()
            });
            Ok((fit, fit_seconds, model, model_json))
        })
        .or_py()?;
    let call_seconds = started.elapsed().as_secs_f64();
    // The variant's own predictor; the last weights when they are not finite (the caller refuses
    // them by name).
    let (w, b) = match (&model, fit.variant.predictor()) {
        (Some(model), Predictor::Averaged | Predictor::Pocket) => {
            (PyArray1::from_slice(py, model.w()), model.b())
        }
        _ => (
            PyArray1::from_slice(py, fit.w.as_slice().expect("contiguous")),
            fit.b,
        ),
    };
    out.set_item("w", w)?;
    out.set_item("b", b)?;
    out.set_item("last_w", fit.w.into_pyarray(py))?;
    out.set_item("last_b", fit.b)?;
    out.set_item("updates", fit.updates)?;
    out.set_item("variant", fit.variant.name())?;
    out.set_item("bias_constant", fit.bias_constant)?;
    out.set_item("bias_weight", fit.bias_weight)?;
    out.set_item("mistakes", fit.mistakes)?;
    out.set_item("epochs", fit.epochs)?;
    out.set_item("converged", fit.converged)?;
    out.set_item("stop_reason", fit.stop_reason.name())?;
    out.set_item("train_seconds", fit.train_seconds)?;
    out.set_item("fit_seconds", fit_seconds)?;
    out.set_item("call_seconds", call_seconds)?;
    out.set_item("model_json", model_json)?;
    Ok(out)
}

/// `w·x + b` for every row of `x`, in the given summation order: the crate's
/// [`LinearModel::decision_function_dataset`], with the crate's checks of `x`.
#[pyfunction]
#[pyo3(signature = (x, w, b, summation))]
pub fn decision_function<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    w: PyReadonlyArray1<'py, f64>,
    b: f64,
    summation: &str,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let model = LinearModel::new(w.as_array().to_vec(), b, self::summation(summation)?).or_py()?;
    let input = features::unlabelled(x)?;
    let data = input.data();
    let decisions = py
        .detach(|| model.decision_function_dataset(data))
        .or_py()?;
    Ok(decisions.into_pyarray(py))
}

/// Read a model file written by `novikoff train --save` or `save_model`: a dict with `kind`, `w`, `b`,
/// `bias_constant`, `bias_weight`, `summation`, `format_version`, `crate_version` and `provenance`
/// (the file's JSON object, or None).
#[pyfunction]
pub fn load_model<'py>(py: Python<'py>, path: std::path::PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let file = ModelFile::load(&path).or_py()?;
    let Some(model) = file.model.linear() else {
        return Err(PyValueError::new_err(format!(
            "{}: the Python package reads linear models only, not `{}`",
            path.display(),
            file.model.kind()
        )));
    };
    let out = PyDict::new(py);
    out.set_item("kind", file.model.kind())?;
    out.set_item("w", PyArray1::from_slice(py, model.w()))?;
    out.set_item("b", model.b())?;
    out.set_item("bias_constant", model.bias_constant())?;
    out.set_item("bias_weight", model.bias_weight())?;
    out.set_item("summation", model.summation().name())?;
    out.set_item("format_version", file.format_version())?;
    out.set_item("crate_version", file.crate_version())?;
    out.set_item("model_json", file.to_json().or_py()?)?;
    Ok(out)
}

/// Write a model file: the run's file `model_json` when it still describes `w` and `b`, else a file
/// of `w` and `b` alone (weights set by hand have no provenance). Atomic, like the CLI's `--save`.
#[pyfunction]
#[pyo3(signature = (path, w, b, summation, model_json=None))]
pub fn save_model(
    path: std::path::PathBuf,
    w: PyReadonlyArray1<'_, f64>,
    b: f64,
    summation: &str,
    model_json: Option<&str>,
) -> PyResult<()> {
    let w = w.as_array().to_vec();
    let from_run = match model_json {
        Some(text) => Some(ModelFile::from_json(text, &path).or_py()?),
        None => None,
    };
    let same = |file: &ModelFile| {
        file.model.linear().is_some_and(|m| {
            m.w()
                .iter()
                .map(|v| v.to_bits())
                .eq(w.iter().map(|v| v.to_bits()))
                && m.b().to_bits() == b.to_bits()
        })
    };
    let file = match from_run {
        Some(file) if same(&file) => file,
        _ => ModelFile::new(
            Model::Linear(LinearModel::new(w, b, self::summation(summation)?).or_py()?),
            None,
        ),
    };
    file.save(&path).or_py()
}
