//! Training, prediction and model files for the estimator `novikoff.Perceptron`.

use std::time::Instant;

use novikoff::model::{LinearModel, Provenance};
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

/// The bias rule `bias` names (`none`, `classic`, `novikoff`, `c=VALUE`), or the constant
/// `bias_constant` when given.
pub fn bias_rule(bias: &str, bias_constant: Option<f64>) -> PyResult<BiasRule> {
    match bias_constant {
        Some(c) => Ok(BiasRule::Constant(c)),
        None => BiasRule::parse(bias).or_py(),
    }
}

/// A perceptron with the bias rule, η, the order (cyclic, or shuffled with this seed), the caps and
/// the summation of a call, the rest as [`PerceptronParams::new`] has it.
pub fn run_params(
    rule: BiasRule,
    eta: f64,
    shuffle_seed: Option<u64>,
    max_epochs: usize,
    max_updates: Option<u64>,
    summation: &str,
) -> PyResult<PerceptronParams> {
    Ok(PerceptronParams::new()
        .bias(rule)
        .eta(eta)
        .order(match shuffle_seed {
            Some(seed) => Order::Shuffle { seed },
            None => Order::Cyclic,
        })
        .max_epochs(max_epochs)
        .max_updates(max_updates)
        .summation(self::summation(summation)?))
}

/// [`run_params`] for each of the bias rules `rules` names (at least one), as `verify --rules` has them.
pub fn rule_params(
    rules: &[String],
    eta: f64,
    shuffle_seed: Option<u64>,
    max_epochs: usize,
    max_updates: Option<u64>,
    summation: &str,
) -> PyResult<Vec<PerceptronParams>> {
    if rules.is_empty() {
        return Err(PyValueError::new_err(
            "invalid parameter `rules`: name at least one bias rule",
        ));
    }
    rules
        .iter()
        .map(|name| {
            let rule = BiasRule::parse(name).or_py()?;
            run_params(rule, eta, shuffle_seed, max_epochs, max_updates, summation)
        })
        .collect()
}

/// The member of the perceptron's family named `name`, refused when its predictor is not one linear
/// model (the voted perceptron).
pub fn linear_variant(name: &str) -> PyResult<Variant> {
    let variant = Variant::parse(name).or_py()?;
    if variant.predictor() == Predictor::Voted {
        return Err(PyValueError::new_err(
            "variant 'voted' predicts by a vote of many weight vectors, which a linear estimator \
             cannot hold; use 'averaged' (Freund and Schapire's cheaper approximation of the vote)",
        ));
    }
    Ok(variant)
}

/// Train the perceptron on `x` and `y` and return the run as a dict: `w` (an array), `b`,
/// `bias_constant`, `bias_weight`, `mistakes`, `epochs`, `converged`, `stop_reason`, the timings, and
/// what [`save_model`](crate::model_file::save_model) needs to write the run's model file later: `provenance_json` (the run's
/// [`Provenance`], whose radius is recorded only when the run computed it) and `model_bias_constant`
/// and `model_bias_weight`, the predictor's `c` and `v` (all three None when its weights are not
/// finite). The file itself is not made here: serialising `d` weights as text costs several times the
/// training of a sparse epoch, and most fits are never saved.
///
/// With `target="signs"`, `y` holds ±1 (`float64`; the crate checks them). With `target="binary"`, `y`
/// is a binary target of whole numbers (`int64` or `float64`), mapped in one pass (see
/// [`labels::binary`]) and returned as `classes`; when it is not such a target, or has one class,
/// nothing is trained and the dict holds `classes` alone (None or one class), for the caller to name
/// the problem.
///
/// The timings, in seconds: `train_seconds` is the crate's training loop (`Fit::train_seconds`);
/// `fit_seconds` is what a Rust program spends in `Dataset::new(x, y)` (here `from_shared` or
/// `from_shared_csr`, with the same checks) and `Perceptron::fit`; `call_seconds` is this whole call in Rust (with the labels'
/// mapping and the provenance).
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
    let mut params = run_params(
        bias_rule(bias, bias_constant)?,
        eta,
        shuffle.then_some(seed),
        max_epochs,
        max_updates,
        summation,
    )?
    .variant(linear_variant(variant)?);
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
    let (fit, fit_seconds, model, provenance_json) = py
        .detach(|| {
            let fit = learner.fit(data)?;
            let fit_seconds = fit_started.elapsed().as_secs_f64();
            let model = LinearModel::of_run(&fit).ok();
            // No pass over the data for R here (it costs as much as a clean epoch): the file records
            // R when the run computed it (the novikoff rule).
            let provenance_json = match &model {
                Some(_) => Some(
                    serde_json::to_string(&Provenance::of_run_without_radius_pass(
                        &fit,
                        &learner,
                        data,
                        source.as_deref(),
                    ))
                    .map_err(|e| novikoff::Error::parameter("provenance", e.to_string()))?,
                ),
                None => None,
            };
            Ok::<_, novikoff::Error>((fit, fit_seconds, model, provenance_json))
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
    out.set_item("provenance_json", provenance_json)?;
    out.set_item(
        "model_bias_constant",
        model.as_ref().map(LinearModel::bias_constant),
    )?;
    out.set_item(
        "model_bias_weight",
        model.as_ref().map(LinearModel::bias_weight),
    )?;
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
