//! Training on three classes or more for the estimator `novikoff.Perceptron`: one-vs-rest or the
//! multi-class perceptron, through the crate's `multiclass` module.

use std::time::Instant;

use ndarray::{Array1, Array2};
use novikoff::dataset::MulticlassDataset;
use novikoff::margin::{Bias, MaxMarginParams};
use novikoff::model::{LinearModel, MulticlassModel, Provenance};
use novikoff::multiclass::{BinaryLearner, Method, MulticlassRuns, OneVsRest};
use novikoff::multiclass::{MulticlassFit, MulticlassPerceptronParams};
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::OrPy;
use crate::{features, learn};

/// Train on `x` with `y` holding each row's class index in `0..n_classes` (`int64`; the Python side
/// has mapped the classes, sorted, to their indices) and return the run as a dict: `coef` (`k × d`)
/// and `intercept` (`k`), the predictor of each class; `last_coef` and `last_intercept`, the last
/// weights (they differ from the predictor for the averaged and pocket variants); per run (`k` runs
/// for one-vs-rest, one for the multi-class perceptron) `mistakes`, `updates`, `epochs`,
/// `converged` and `stop_reasons`; `bias_constant` (`c`, the same for every
/// class), `train_seconds` (the training loops' seconds, summed over the classes), `fit_seconds` (what
/// a Rust program spends in `MulticlassDataset::from_features` and the fit) and `call_seconds`.
///
/// What [`save_multiclass_model`](crate::model_file::save_multiclass_model) needs to write the run's
/// model file later: `provenance_json` (the run's provenance, `Provenance::of_one_vs_rest` or
/// `of_multiclass_run`, whose radius is recorded only when the run computed it) and
/// `model_bias_constants` and `model_bias_weights` (`k`), each class's `c_r` and `v_r` in the
/// library's model of the run (`MulticlassModel::from_one_vs_rest` or `from_fit`); all three None
/// when the weights are not finite.
///
/// `initial_coef` (`k × d`) and `initial_intercept` (`k`) start the multi-class perceptron from
/// those weights (`partial_fit`).
///
/// `method` is `ovr` (the `k` binary problems of one class against the rest, in parallel; every
/// binary variant) or `kesler` (the multi-class perceptron; the plain perceptron only). The other
/// parameters are those of [`learn::fit`]; with `ovr`, every class's run has them all, its shuffled
/// order included (the same seed for every class, as the CLI's `train --multiclass ovr`).
#[pyfunction]
#[pyo3(signature = (x, y, *, n_classes, method, bias, bias_constant=None, eta, shuffle, seed,
    max_epochs, max_updates, summation, variant="perceptron", initial_coef=None,
    initial_intercept=None))]
#[allow(clippy::too_many_arguments)]
pub fn fit_multiclass<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: PyReadonlyArray1<'py, i64>,
    n_classes: usize,
    method: &str,
    bias: &str,
    bias_constant: Option<f64>,
    eta: f64,
    shuffle: bool,
    seed: u64,
    max_epochs: usize,
    max_updates: Option<u64>,
    summation: &str,
    variant: &str,
    initial_coef: Option<numpy::PyReadonlyArray2<'py, f64>>,
    initial_intercept: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyDict>> {
    let started = Instant::now();
    let method = Method::parse(method).or_py()?;
    let params = learn::run_params(
        learn::bias_rule(bias, bias_constant)?,
        eta,
        shuffle.then_some(seed),
        max_epochs,
        max_updates,
        summation,
    )?
    .variant(learn::linear_variant(variant)?);
    let initial = match (initial_coef, initial_intercept) {
        (Some(w), Some(b)) if method == Method::Kesler => {
            Some((w.as_array().to_owned(), b.as_array().to_owned()))
        }
        (None, None) => None,
        _ => {
            return Err(PyValueError::new_err(
                "initial_coef and initial_intercept go together, and only with method='kesler' \
                 (one-vs-rest resumes each class's binary run)",
            ));
        }
    };
    let classes = class_indices(y.as_slice()?, n_classes)?;
    let mut input = features::build(features::matrix(x)?, crate::labels::ones(classes.len()))?;
    let fit_started = Instant::now();
    let features = input.take_data();
    let names = (0..n_classes).map(|r| r.to_string()).collect();
    let (run, fit_seconds, saved) = py
        .detach(|| {
            // The features are shared by the classes' problems, not copied for each.
            let data = MulticlassDataset::from_features(features, names, classes)?;
            let (run, fit_seconds, saved) = match method {
                Method::OneVsRest => {
                    let ovr = OneVsRest::fit(&data, &BinaryLearner::Linear(params.clone()))?;
                    let fit_seconds = fit_started.elapsed().as_secs_f64();
                    let saved = MulticlassModel::from_one_vs_rest(&ovr).ok().map(|model| {
                        (
                            model,
                            Provenance::of_one_vs_rest(&ovr, &params, &data, None),
                        )
                    });
                    (Run::of_ovr(&ovr)?, fit_seconds, saved)
                }
                Method::Kesler => {
                    let mut kesler = MulticlassPerceptronParams::from_perceptron(&params)?;
                    if let Some((w, b)) = initial {
                        kesler = kesler.initial(w, b);
                    }
                    let learner = kesler.check()?;
                    let fit = learner.fit(&data)?;
                    let fit_seconds = fit_started.elapsed().as_secs_f64();
                    let saved = MulticlassModel::from_fit(&fit).ok().map(|model| {
                        let provenance = Provenance::of_multiclass_run(&fit, &learner, &data, None);
                        (model, Some(provenance))
                    });
                    (Run::of_kesler(&fit), fit_seconds, saved)
                }
            };
            Ok::<_, novikoff::Error>((run, fit_seconds, saved))
        })
        .or_py()?;
    // What `save_multiclass_model` needs to write this run's file later; the file itself is not made
    // here, as `k × d` weights written as text cost more than a sparse epoch and most fits are never
    // saved.
    let (provenance_json, constants, weights) = match saved {
        Some((model, provenance)) => {
            let json = provenance
                .as_ref()
                .map(serde_json::to_string)
                .transpose()
                .map_err(|e| PyValueError::new_err(format!("the run's provenance: {e}")))?;
            let per_class = |value: fn(&LinearModel) -> f64| -> Array1<f64> {
                model.models().iter().map(value).collect()
            };
            (
                json,
                Some(per_class(LinearModel::bias_constant).into_pyarray(py)),
                Some(per_class(LinearModel::bias_weight).into_pyarray(py)),
            )
        }
        None => (None, None, None),
    };
    let out = PyDict::new(py);
    out.set_item("coef", run.coef.into_pyarray(py))?;
    out.set_item("intercept", run.intercept.into_pyarray(py))?;
    out.set_item("last_coef", run.last_coef.into_pyarray(py))?;
    out.set_item("last_intercept", run.last_intercept.into_pyarray(py))?;
    out.set_item("mistakes", run.mistakes.into_pyarray(py))?;
    out.set_item("updates", run.updates.into_pyarray(py))?;
    out.set_item("epochs", run.epochs.into_pyarray(py))?;
    out.set_item("converged", run.converged)?;
    out.set_item("stop_reasons", run.stop_reasons)?;
    out.set_item("bias_constant", run.bias_constant)?;
    out.set_item("train_seconds", run.train_seconds)?;
    out.set_item("fit_seconds", fit_seconds)?;
    out.set_item("provenance_json", provenance_json)?;
    out.set_item("model_bias_constants", constants)?;
    out.set_item("model_bias_weights", weights)?;
    out.set_item("call_seconds", started.elapsed().as_secs_f64())?;
    Ok(out)
}

/// Each row's class index, checked against `n_classes` by the crate's `MulticlassDataset`; here only
/// a negative one is refused (it has no `usize`).
fn class_indices(y: &[i64], n_classes: usize) -> PyResult<Vec<usize>> {
    y.iter()
        .enumerate()
        .map(|(row, &c)| {
            usize::try_from(c).map_err(|_| {
                PyValueError::new_err(format!(
                    "row {row} has class index {c}, not one of 0..{n_classes}"
                ))
            })
        })
        .collect()
}

/// A multi-class run in the estimator's terms.
struct Run {
    coef: Array2<f64>,
    intercept: Array1<f64>,
    last_coef: Array2<f64>,
    last_intercept: Array1<f64>,
    mistakes: Array1<u64>,
    updates: Array1<u64>,
    epochs: Array1<u64>,
    converged: Vec<bool>,
    stop_reasons: Vec<&'static str>,
    bias_constant: f64,
    train_seconds: f64,
}

impl Run {
    /// The classes' binary runs, row `r` of each array class `r`'s.
    fn of_ovr(ovr: &OneVsRest) -> novikoff::Result<Run> {
        let fits = ovr.linear_fits()?;
        let (k, d) = (fits.len(), fits.first().map_or(0, |f| f.w.len()));
        let mut run = Run {
            coef: Array2::zeros((k, d)),
            intercept: Array1::zeros(k),
            last_coef: Array2::zeros((k, d)),
            last_intercept: Array1::zeros(k),
            mistakes: fits.iter().map(|f| f.mistakes).collect(),
            updates: fits.iter().map(|f| f.updates).collect(),
            epochs: fits.iter().map(|f| f.epochs as u64).collect(),
            converged: fits.iter().map(|f| f.converged).collect(),
            stop_reasons: fits.iter().map(|f| f.stop_reason.name()).collect(),
            bias_constant: fits.first().map_or(0.0, |f| f.bias_constant),
            train_seconds: fits.iter().map(|f| f.train_seconds).sum(),
        };
        for (r, fit) in fits.iter().enumerate() {
            run.last_coef.row_mut(r).assign(&fit.w);
            run.last_intercept[r] = fit.b;
            // The variant's own predictor (the voted perceptron was refused with the parameters).
            let own = fit.own_linear().ok_or_else(|| {
                novikoff::Error::parameter(
                    "variant",
                    "the voted perceptron has no linear predictor",
                )
            })?;
            run.coef.row_mut(r).assign(&own.w);
            run.intercept[r] = own.b;
        }
        Ok(run)
    }

    /// The multi-class perceptron's run: one run for all the classes, so its counts are arrays of one.
    fn of_kesler(fit: &MulticlassFit) -> Run {
        Run {
            coef: fit.w.clone(),
            intercept: fit.b.clone(),
            last_coef: fit.w.clone(),
            last_intercept: fit.b.clone(),
            mistakes: Array1::from_elem(1, fit.mistakes),
            updates: Array1::from_elem(1, fit.mistakes),
            epochs: Array1::from_elem(1, fit.epochs as u64),
            converged: vec![fit.converged],
            stop_reasons: vec![fit.stop_reason.name()],
            bias_constant: fit.bias_constant,
            train_seconds: fit.train_seconds,
        }
    }
}

/// `W x + b` for every row (`n × k`), in the given summation order: each class's
/// [`LinearModel::decision_function_dataset`], with the crate's checks of `x`.
#[pyfunction]
#[pyo3(signature = (x, coef, intercept, summation))]
pub fn decision_functions<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    coef: numpy::PyReadonlyArray2<'py, f64>,
    intercept: PyReadonlyArray1<'py, f64>,
    summation: &str,
) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
    let summation = learn::summation(summation)?;
    let (coef, intercept) = (coef.as_array(), intercept.as_array());
    check_rows(coef, intercept)?;
    let models = coef
        .rows()
        .into_iter()
        .zip(intercept.iter())
        .map(|(w, &b)| LinearModel::new(w.to_vec(), b, summation))
        .collect::<novikoff::Result<Vec<_>>>()
        .or_py()?;
    let input = features::unlabelled(x)?;
    let data = input.data();
    let scores = py
        .detach(|| {
            let mut scores = Array2::zeros((data.n_samples(), models.len()));
            for (r, model) in models.iter().enumerate() {
                scores
                    .column_mut(r)
                    .assign(&model.decision_function_dataset(data)?);
            }
            Ok::<_, novikoff::Error>(scores)
        })
        .or_py()?;
    Ok(scores.into_pyarray(py))
}

/// Train with each bias rule by `method` and check every run: the JSON text of
/// `novikoff verify --multiclass METHOD --format json` (the crate's [`MulticlassRuns::to_json`]), for
/// the Python layer to parse. `y` holds each row's class index and `classes` the classes' names.
#[pyfunction]
#[pyo3(signature = (x, y, *, classes, method, rules, eta, shuffle, seed, max_epochs, max_updates,
    summation, source, working_set_mb=None))]
#[allow(clippy::too_many_arguments)]
pub fn verify_multiclass(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: PyReadonlyArray1<'_, i64>,
    classes: Vec<String>,
    method: &str,
    rules: Vec<String>,
    eta: f64,
    shuffle: bool,
    seed: u64,
    max_epochs: usize,
    max_updates: Option<u64>,
    summation: &str,
    source: String,
    working_set_mb: Option<u64>,
) -> PyResult<String> {
    let method = Method::parse(method).or_py()?;
    let solver = MaxMarginParams::new(Bias::Free).working_set_mebibytes(working_set_mb);
    solver.clone().check().or_py()?;
    let rules = learn::rule_params(
        &rules,
        eta,
        shuffle.then_some(seed),
        max_epochs,
        max_updates,
        summation,
    )?;
    let indices = class_indices(y.as_slice()?, classes.len())?;
    let mut input = features::build(features::matrix(x)?, crate::labels::ones(indices.len()))?;
    let features = input.take_data();
    py.detach(|| {
        let data = MulticlassDataset::from_features(features, classes, indices)?;
        let runs = MulticlassRuns::verify(&data, method, &rules, &solver)?;
        serde_json::to_string(&runs.to_json(&source, &data, None))
            .map_err(|e| novikoff::Error::io("<json>", std::io::Error::other(e)))
    })
    .or_py()
}

/// `coef_` and `intercept_` of one class a row.
pub(crate) fn check_rows(
    coef: ndarray::ArrayView2<'_, f64>,
    intercept: ndarray::ArrayView1<'_, f64>,
) -> PyResult<()> {
    if coef.nrows() != intercept.len() {
        return Err(PyValueError::new_err(format!(
            "coef_ has {} rows but intercept_ {} values",
            coef.nrows(),
            intercept.len()
        )));
    }
    Ok(())
}
