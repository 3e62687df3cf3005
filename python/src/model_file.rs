//! Model files for the estimator `novikoff.Perceptron`: reading either kind, and writing a binary or a
//! multi-class estimator's model, with its run's provenance while the estimator still holds that run's
//! weights.

use ndarray::{Array1, Array2, ArrayView1};
use novikoff::model::{LinearModel, Model, ModelFile, MulticlassModel, Provenance};
use novikoff::multiclass::Method;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::OrPy;
use crate::learn;

/// Read a model file written by `novikoff train --save` or `save_model`: a dict with `kind`,
/// `summation`, `format_version`, `crate_version` and `provenance_json` (the file's provenance as
/// JSON, or None), and the model's fields. A linear model has `w`, `b`, `bias_constant` and
/// `bias_weight`; a multi-class model has `method`, `classes` (the names), and per class, in the
/// file's order, the rows of `coef` (`k × d`) and the values of `intercept`, `bias_constants` and
/// `bias_weights`.
///
/// A multi-class model whose classes were summed in different orders is refused: an estimator has
/// one summation order, and scoring a class in another would change its bits.
#[pyfunction]
pub fn load_model<'py>(py: Python<'py>, path: std::path::PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let file = ModelFile::load(&path).or_py()?;
    let named = |e: String| PyValueError::new_err(format!("{}: {e}", path.display()));
    let provenance_json = file
        .provenance
        .as_ref()
        .map(serde_json::to_string)
        .transpose()
        .map_err(|e| named(e.to_string()))?;
    let out = PyDict::new(py);
    out.set_item("kind", file.model.kind())?;
    out.set_item("format_version", file.format_version())?;
    out.set_item("crate_version", file.crate_version())?;
    out.set_item("provenance_json", provenance_json)?;
    match &file.model {
        Model::Linear(model) => {
            out.set_item("w", PyArray1::from_slice(py, model.w()))?;
            out.set_item("b", model.b())?;
            out.set_item("bias_constant", model.bias_constant())?;
            out.set_item("bias_weight", model.bias_weight())?;
            out.set_item("summation", model.summation().name())?;
            out.set_item("classes", model.classes().map(|c| c.to_vec()))?;
        }
        Model::Multiclass(model) => {
            let models = model.models();
            let summation = models[0].summation();
            if let Some(r) = models.iter().position(|m| m.summation() != summation) {
                return Err(named(format!(
                    "class `{}` is scored with the {} summation and class `{}` with the {}; an \
                     estimator has one summation order",
                    model.classes()[0],
                    summation.name(),
                    model.classes()[r],
                    models[r].summation().name()
                )));
            }
            let mut coef = Array2::zeros((model.n_classes(), model.n_features()));
            for (mut row, m) in coef.rows_mut().into_iter().zip(models) {
                row.assign(&ArrayView1::from(m.w()));
            }
            let per_class = |value: fn(&LinearModel) -> f64| -> Array1<f64> {
                models.iter().map(value).collect()
            };
            out.set_item("method", model.method().name())?;
            out.set_item("classes", model.classes().to_vec())?;
            out.set_item("coef", coef.into_pyarray(py))?;
            out.set_item("intercept", per_class(LinearModel::b).into_pyarray(py))?;
            out.set_item(
                "bias_constants",
                per_class(LinearModel::bias_constant).into_pyarray(py),
            )?;
            out.set_item(
                "bias_weights",
                per_class(LinearModel::bias_weight).into_pyarray(py),
            )?;
            out.set_item("summation", summation.name())?;
        }
        _ => {
            return Err(named(format!(
                "the Python package does not read `{}` models",
                file.model.kind()
            )));
        }
    }
    Ok(out)
}

/// Whether two arrays hold the same values bit for bit (so a NaN equals itself and 0.0 is not -0.0):
/// the weights a run made, not merely equal ones.
fn same_bits<'a>(
    a: impl IntoIterator<Item = &'a f64>,
    b: impl IntoIterator<Item = &'a f64>,
) -> bool {
    let (mut a, mut b) = (a.into_iter(), b.into_iter());
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if x.to_bits() == y.to_bits() => {}
            _ => return false,
        }
    }
}

/// The provenance a record holds as JSON.
fn provenance(json: &str) -> PyResult<Provenance> {
    serde_json::from_str(json)
        .map_err(|e| PyValueError::new_err(format!("the run's provenance does not parse: {e}")))
}

/// What a fit or a loaded file knew of the model it made: its provenance (JSON), its weights and bias
/// (to tell whether the estimator still holds them) and its bias rule's `c` and `v`.
type RunRecord<'py> = (String, PyReadonlyArray1<'py, f64>, f64, f64, f64);

/// Write a model file: with the provenance of `run` (see [`RunRecord`]) when `w` and `b` are still,
/// bit for bit, the weights that run made, else a file of `w` and `b` alone (weights set by hand have
/// no provenance). `classes` names the classes −1 and +1 (`LinearModel::with_classes`), for an
/// estimator whose labels are not those numbers. Atomic, like the CLI's `--save`.
#[pyfunction]
#[pyo3(signature = (path, w, b, summation, run=None, classes=None))]
pub fn save_model(
    path: std::path::PathBuf,
    w: PyReadonlyArray1<'_, f64>,
    b: f64,
    summation: &str,
    run: Option<RunRecord<'_>>,
    classes: Option<(String, String)>,
) -> PyResult<()> {
    let summation = learn::summation(summation)?;
    let w_now = w.as_array();
    let w = w_now.to_vec();
    let (model, provenance) = match run {
        Some((json, run_w, run_b, c, v))
            if run_b.to_bits() == b.to_bits() && same_bits(run_w.as_array(), w_now) =>
        {
            let model = LinearModel::with_bias_weight(w, c, v, summation).or_py()?;
            (model, Some(provenance(&json)?))
        }
        _ => (LinearModel::new(w, b, summation).or_py()?, None),
    };
    let model = match classes {
        Some((negative, positive)) => model.with_classes(negative, positive).or_py()?,
        None => model,
    };
    ModelFile::new(Model::Linear(model), provenance)
        .save(&path)
        .or_py()
}

/// What a multi-class fit or a loaded multi-class file knew of its model: its provenance (JSON; None
/// when unknown, as after `partial_fit` with one-vs-rest, or for a file without one), its weights
/// (`k × d`) and biases (`k`), to tell whether the estimator still holds them, and each class's bias
/// rule `c_r` and `v_r` as the library's model has them.
type ClassRunRecord<'py> = (
    Option<String>,
    PyReadonlyArray2<'py, f64>,
    PyReadonlyArray1<'py, f64>,
    PyReadonlyArray1<'py, f64>,
    PyReadonlyArray1<'py, f64>,
);

/// Write a multi-class model file of `classes` (the names, in the order of `coef`'s rows) learnt by
/// `method` (`ovr` or `kesler`). When `coef` and `intercept` are still, bit for bit, those of `run`
/// (see [`ClassRunRecord`]), each class's model keeps the run's `c_r` and `v_r` (the library's
/// `MulticlassModel::from_fit` or `from_one_vs_rest` for a fit, the file's model for a loaded file)
/// and the file the run's provenance; otherwise each class is `LinearModel::new(w_r, b_r)` and the
/// file has no provenance (weights set by hand). Atomic, like the CLI's `--save`.
#[pyfunction]
#[pyo3(signature = (path, classes, method, coef, intercept, summation, run=None))]
pub fn save_multiclass_model(
    path: std::path::PathBuf,
    classes: Vec<String>,
    method: &str,
    coef: PyReadonlyArray2<'_, f64>,
    intercept: PyReadonlyArray1<'_, f64>,
    summation: &str,
    run: Option<ClassRunRecord<'_>>,
) -> PyResult<()> {
    let method = Method::parse(method).or_py()?;
    let summation = learn::summation(summation)?;
    let (coef, intercept) = (coef.as_array(), intercept.as_array());
    crate::multiclass::check_rows(coef, intercept)?;
    let by_hand = || {
        coef.rows()
            .into_iter()
            .zip(&intercept)
            .map(|(w, &b)| LinearModel::new(w.to_vec(), b, summation))
            .collect::<novikoff::Result<Vec<_>>>()
    };
    let of_run = |c: ArrayView1<'_, f64>, v: ArrayView1<'_, f64>| {
        coef.rows()
            .into_iter()
            .zip(c.iter().zip(&v))
            .map(|(w, (&c, &v))| LinearModel::with_bias_weight(w.to_vec(), c, v, summation))
            .collect::<novikoff::Result<Vec<_>>>()
    };
    let recorded = match &run {
        Some((json, run_coef, run_intercept, c, v))
            if run_coef.as_array().shape() == coef.shape()
                && same_bits(run_coef.as_array(), coef)
                && same_bits(run_intercept.as_array(), intercept)
                && c.as_array().len() == coef.nrows()
                && v.as_array().len() == coef.nrows() =>
        {
            let models = of_run(c.as_array(), v.as_array()).or_py()?;
            // b_r = c_r·v_r is the run's intercept by construction; should a record disagree, its
            // c and v do not describe these weights, and neither does its provenance.
            let agrees = models
                .iter()
                .zip(&intercept)
                .all(|(m, b)| m.b().to_bits() == b.to_bits());
            agrees.then_some((models, json.as_deref().map(provenance).transpose()?))
        }
        _ => None,
    };
    let (models, provenance) = match recorded {
        Some(recorded) => recorded,
        None => (by_hand().or_py()?, None),
    };
    let model = MulticlassModel::new(method, classes, models).or_py()?;
    ModelFile::new(Model::Multiclass(model), provenance)
        .save(&path)
        .or_py()
}
