//! The data's geometry and the theorem's checks: `radius`, `max_margin` and `verify`.

use std::time::Instant;

use novikoff::bounds::{AdversaryParams, Geometry, ReportOptions, report};
use novikoff::margin::{Bias, MarginResult, MaxMarginParams};
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::OrPy;
use crate::features;
use crate::learn::rule_params;

/// `R = maxᵢ ‖xᵢ‖`, about the origin: the crate's [`Dataset::radius`](novikoff::Dataset::radius).
#[pyfunction]
pub fn radius(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<f64> {
    let input = features::unlabelled(x)?;
    let data = input.data();
    Ok(py.detach(|| data.radius()))
}

/// The certified maximum margin: the crate's `MaxMargin::solve`, as a dict whose fields are those of
/// `novikoff margin --format json` (`status`, `gamma`, `gamma_lower`, `gamma_upper`, `w`, `b`,
/// `support`, `certificate`, `reason`, the solver's `passes`, `rounds`, `working_set`).
/// `working_set_mb` is the working set's memory budget (`margin --working-set-mb`; None: the default).
#[pyfunction]
#[pyo3(signature = (x, y, *, bias, tolerance, working_set_mb=None))]
pub fn max_margin<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: &Bound<'py, PyAny>,
    bias: &str,
    tolerance: f64,
    working_set_mb: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let bias = match bias {
        "free" => Bias::Free,
        "through_origin" => Bias::ThroughOrigin,
        other => {
            return Err(PyValueError::new_err(format!(
                "bias must be 'free' or 'through_origin', got {other:?}"
            )));
        }
    };
    let solver = MaxMarginParams::new(bias)
        .working_set_mebibytes(working_set_mb)
        .tolerance(tolerance)
        .check()
        .or_py()?;
    let input = features::labelled(x, y)?;
    let data = input.data();
    let started = Instant::now();
    let result = py.detach(|| solver.solve(data)).or_py()?;
    let seconds = started.elapsed().as_secs_f64();
    let out = PyDict::new(py);
    out.set_item("bias", bias.name())?;
    out.set_item("n", data.n_samples())?;
    out.set_item("d", data.n_features())?;
    out.set_item("radius", data.radius())?;
    out.set_item("solve_seconds", seconds)?;
    out.set_item("separable", result.separability())?;
    let stats = result.stats();
    out.set_item("passes", stats.passes)?;
    out.set_item("rounds", stats.rounds)?;
    out.set_item("working_set", stats.working_set)?;
    match result {
        MarginResult::Separable {
            gamma,
            bracket,
            w,
            b,
            support,
            ..
        } => {
            out.set_item("status", "separable")?;
            out.set_item("gamma", gamma)?;
            out.set_item("bracket", bracket)?;
            out.set_item("w", w.into_pyarray(py))?;
            out.set_item("b", b)?;
            out.set_item("support", support)?;
        }
        MarginResult::NotSeparable { certificate, .. } => {
            out.set_item("status", "not_separable")?;
            let rows = certificate.rows_by_weight();
            let c = PyDict::new(py);
            c.set_item("bias", certificate.bias.name())?;
            c.set_item("weights", certificate.weights.into_pyarray(py))?;
            c.set_item("residual", certificate.residual)?;
            c.set_item("rows", rows)?;
            out.set_item("certificate", c)?;
        }
        MarginResult::Inaccurate {
            gamma,
            bracket,
            w,
            b,
            reason,
            ..
        } => {
            out.set_item("status", "inaccurate")?;
            out.set_item("gamma", gamma)?;
            out.set_item("bracket", bracket)?;
            out.set_item("w", w.into_pyarray(py))?;
            out.set_item("b", b)?;
            out.set_item("reason", reason)?;
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "a margin result this package does not know: {other:?}"
            )));
        }
    }
    Ok(out)
}

/// Train with each bias rule and check every form of the theorem: the JSON text of
/// `novikoff verify --format json` (the crate's `Report::to_json`), for the Python layer to parse.
/// `working_set_mb` bounds the margin solves as `verify --working-set-mb` does.
#[pyfunction]
#[pyo3(signature = (x, y, *, rules, eta, shuffle, seed, max_epochs, max_updates, summation,
    steps, separator, separator_bias, adversary, restarts, source, working_set_mb=None))]
#[allow(clippy::too_many_arguments)]
pub fn verify(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    rules: Vec<String>,
    eta: f64,
    shuffle: bool,
    seed: u64,
    max_epochs: usize,
    max_updates: Option<u64>,
    summation: &str,
    steps: bool,
    separator: Option<PyReadonlyArray1<'_, f64>>,
    separator_bias: f64,
    adversary: bool,
    restarts: usize,
    source: String,
    working_set_mb: Option<u64>,
) -> PyResult<String> {
    let solver = MaxMarginParams::new(Bias::Free).working_set_mebibytes(working_set_mb);
    solver.clone().check().or_py()?;
    let params = rule_params(
        &rules,
        eta,
        shuffle.then_some(seed),
        max_epochs,
        max_updates,
        summation,
    )?;
    let options = ReportOptions {
        record_steps: steps,
        separator: separator.map(|w| (w.as_array().to_vec(), separator_bias)),
        adversary: adversary.then(|| {
            AdversaryParams::new()
                .restarts(restarts)
                .seed(seed)
                .max_updates(max_updates)
        }),
    };
    let input = features::labelled(x, y)?;
    let data = input.data();
    py.detach(|| {
        let geometry = Geometry::compute_with(data, &solver)?;
        let report = report(&geometry, &params, &options)?;
        // Written as it is serialised: no tree of values beside the text.
        serde_json::to_string(&report.json_view(&source, data))
            .map_err(|e| novikoff::Error::io("<json>", std::io::Error::other(e)))
    })
    .or_py()
}
