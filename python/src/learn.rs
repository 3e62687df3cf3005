//! Training, prediction and model files for the estimator `novikoff.Perceptron`.

use std::time::Instant;

use novikoff::model::{LinearModel, Model, ModelFile};
use novikoff::perceptron::{BiasRule, Order, PerceptronParams};
use novikoff::simd::Summation;
use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::OrPy;
use crate::features;

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

/// Train the perceptron on `x` and labels ±1 and return the run as a dict: `w` (an array), `b`,
/// `bias_constant`, `bias_weight`, `mistakes`, `epochs`, `converged`, `stop_reason`, `train_seconds`
/// (the crate's training loop) and `call_seconds` (this whole call in Rust: the checks of the data,
/// the run, the model file), and `model_json`, the run's model file (None when its weights are not
/// finite).
///
/// `bias` is a rule name (`none`, `classic`, `novikoff`, `c=VALUE`); `bias_constant`, when given,
/// fixes the constant `c` instead (the estimator's later `partial_fit` calls keep the first call's `c`).
#[pyfunction]
#[pyo3(signature = (x, y, *, bias, bias_constant=None, eta, shuffle, seed, max_epochs, max_updates,
    summation, initial_w=None, initial_b=0.0, source=None))]
#[allow(clippy::too_many_arguments)]
pub fn fit<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: &Bound<'py, PyAny>,
    bias: &str,
    bias_constant: Option<f64>,
    eta: f64,
    shuffle: bool,
    seed: u64,
    max_epochs: usize,
    max_updates: Option<u64>,
    summation: &str,
    initial_w: Option<PyReadonlyArray1<'py, f64>>,
    initial_b: f64,
    source: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let started = Instant::now();
    let rule = match bias_constant {
        Some(c) => BiasRule::Constant(c),
        None => BiasRule::parse(bias).or_py()?,
    };
    let mut params = PerceptronParams::new()
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
    let input = features::labelled(x, y)?;
    let data = &input.data;
    let (fit, model_json) = py
        .detach(|| {
            let fit = learner.fit(data)?;
            let model = ModelFile::from_fit(&fit, &learner, data, source.as_deref())
                .and_then(|file| file.to_json())
                .ok();
            Ok((fit, model))
        })
        .or_py()?;
    let call_seconds = started.elapsed().as_secs_f64();
    let out = PyDict::new(py);
    out.set_item("w", fit.w.into_pyarray(py))?;
    out.set_item("b", fit.b)?;
    out.set_item("bias_constant", fit.bias_constant)?;
    out.set_item("bias_weight", fit.bias_weight)?;
    out.set_item("mistakes", fit.mistakes)?;
    out.set_item("epochs", fit.epochs)?;
    out.set_item("converged", fit.converged)?;
    out.set_item("stop_reason", fit.stop_reason.name())?;
    out.set_item("train_seconds", fit.train_seconds)?;
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
    let data = &input.data;
    let decisions = py
        .detach(|| model.decision_function_dataset(data))
        .or_py()?;
    Ok(decisions.into_pyarray(py))
}

/// The classes (in the labels' type) and the labels as ±1.
type ClassesAndSigns<'py> = (Bound<'py, PyAny>, Bound<'py, PyArray1<f64>>);

/// The two classes of numeric labels and the labels as ±1 (the larger class is +1), in one pass: what
/// `numpy.unique` gives for a binary target, without its sort (which costs more than a clean epoch of
/// the perceptron on 10⁶ rows). `None` when the target is not binary with whole-number or two-valued
/// labels: more than two distinct values, a NaN, or a float class that is not a whole number (which
/// scikit-learn calls continuous); the caller then asks scikit-learn what the target is, for its
/// message. `y` is `float64` or `int64`; the classes come back in its type.
#[pyfunction]
pub fn binary_labels<'py>(
    py: Python<'py>,
    y: &Bound<'py, PyAny>,
) -> PyResult<Option<ClassesAndSigns<'py>>> {
    if let Ok(y) = y.cast::<PyArray1<i64>>() {
        let y = y.try_readonly()?;
        return Ok(
            two_classes(y.as_array().iter().copied(), |_| true).map(|classes| {
                let positive = classes[classes.len() - 1];
                let signs = y
                    .as_array()
                    .mapv(|v| if v == positive { 1.0 } else { -1.0 });
                (classes.into_pyarray(py).into_any(), signs.into_pyarray(py))
            }),
        );
    }
    let y = y
        .cast::<PyArray1<f64>>()
        .map_err(|_| PyValueError::new_err("labels must be a 1-D float64 or int64 array"))?
        .try_readonly()?;
    let whole = |v: f64| v.is_finite() && v.fract() == 0.0;
    Ok(
        two_classes(y.as_array().iter().copied(), whole).map(|classes| {
            let positive = classes[classes.len() - 1];
            let signs = y
                .as_array()
                .mapv(|v| if v == positive { 1.0 } else { -1.0 });
            (classes.into_pyarray(py).into_any(), signs.into_pyarray(py))
        }),
    )
}

/// The distinct values, sorted, if there are at most two and each passes `valid`; a NaN is never
/// equal to a class, so it makes a third. -0.0 and 0.0 are one class, as `numpy.unique` has them.
fn two_classes<T: Copy + PartialOrd>(
    values: impl Iterator<Item = T>,
    valid: impl Fn(T) -> bool,
) -> Option<Vec<T>> {
    let mut classes: Vec<T> = Vec::with_capacity(3);
    for v in values {
        if !classes.contains(&v) {
            if classes.len() == 2 || !valid(v) {
                return None;
            }
            classes.push(v);
        }
    }
    if classes.len() == 2 && classes[1] < classes[0] {
        classes.swap(0, 1);
    }
    Some(classes)
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
