//! `novikoff._novikoff`: the compiled half of the Python package `novikoff`.
//!
//! A thin shell over the crate, like the CLI: it turns NumPy and SciPy arrays into a
//! [`Dataset`](novikoff::Dataset) (a C-contiguous `float64` matrix is read in place, without a copy), calls
//! the library with the GIL released, and returns plain Python values. Every error is the crate's
//! [`Error`](novikoff::Error) with its message: `ValueError` for bad input, `RuntimeError` for a solver
//! failure, `OSError` (or its subclasses) for a file the system refused. The public Python API, with its
//! scikit-learn estimator, is in `python/novikoff/`.

mod batch;
mod errors;
mod features;
mod geometry;
mod labels;
mod learn;
mod model_file;
mod multiclass;

use pyo3::prelude::*;

/// The compiled part of novikoff (use the `novikoff` package, not this module).
#[pymodule]
fn _novikoff(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(learn::fit, m)?)?;
    m.add_function(wrap_pyfunction!(learn::decision_function, m)?)?;
    m.add_function(wrap_pyfunction!(multiclass::fit_multiclass, m)?)?;
    m.add_function(wrap_pyfunction!(multiclass::decision_functions, m)?)?;
    m.add_function(wrap_pyfunction!(multiclass::verify_multiclass, m)?)?;
    m.add_function(wrap_pyfunction!(model_file::load_model, m)?)?;
    m.add_function(wrap_pyfunction!(model_file::save_model, m)?)?;
    m.add_function(wrap_pyfunction!(model_file::save_multiclass_model, m)?)?;
    m.add_function(wrap_pyfunction!(geometry::radius, m)?)?;
    m.add_function(wrap_pyfunction!(geometry::max_margin, m)?)?;
    m.add_function(wrap_pyfunction!(geometry::verify, m)?)?;
    m.add_function(wrap_pyfunction!(batch::experiment, m)?)?;
    Ok(())
}
