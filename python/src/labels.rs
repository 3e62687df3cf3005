//! Labels for the crate: ±1 as given, or a binary target of any two whole numbers mapped to ±1 in
//! one pass.

use std::sync::Mutex;

use ndarray::Array1;
use numpy::{IntoPyArray, PyArray1, PyArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

/// The buffer of the last labels given back by [`recycle`], for the next call to fill.
static SPARE: Mutex<Vec<f64>> = Mutex::new(Vec::new());

/// An owned vector of `len` values. Fresh memory costs its page faults on first touch: for the 8 MB of
/// 10⁶ labels, about ten times the pass that fills it (measured here: 9–13 ms against 1.3 ms). So
/// the buffer of the previous call is reused when it is large enough ([`recycle`] keeps it), and a
/// new one is advised for huge pages. One spare buffer, of the largest labels recently seen, stays
/// allocated between calls.
fn advised(len: usize, values: impl Iterator<Item = f64>) -> Array1<f64> {
    let spare = std::mem::take(&mut *SPARE.lock().unwrap_or_else(|e| e.into_inner()));
    let mut out = if spare.capacity() >= len {
        spare
    } else {
        let mut fresh = Vec::with_capacity(len);
        novikoff::simd::advise_huge_pages(&mut fresh);
        fresh
    };
    out.clear();
    out.extend(values);
    Array1::from_vec(out)
}

/// `n` labels +1, for a dataset of features alone.
pub fn ones(n: usize) -> Array1<f64> {
    advised(n, std::iter::repeat_n(1.0, n))
}

/// Keep the buffer of labels that are no longer needed, for the next [`advised`].
pub fn recycle(labels: Array1<f64>) {
    let (buffer, _) = labels.into_raw_vec_and_offset();
    let mut spare = SPARE.lock().unwrap_or_else(|e| e.into_inner());
    if buffer.capacity() > spare.capacity() {
        *spare = buffer;
    }
}

/// Labels that should be ±1 (`float64`), copied for the dataset, which checks them.
pub fn signs(y: &Bound<'_, PyAny>) -> PyResult<Array1<f64>> {
    let array = y
        .cast::<PyArray1<f64>>()
        .map_err(|_| PyTypeError::new_err("y must be a 1-D float64 NumPy array"))?;
    let ro = array.try_readonly()?;
    let values = ro.as_slice()?;
    Ok(advised(values.len(), values.iter().copied()))
}

/// The classes of a target (sorted, in its own type) and the target as ±1, +1 for the larger class.
pub type Binary<'py> = (Bound<'py, PyAny>, Array1<f64>);

/// A binary target of whole numbers (`int64` or `float64`) as its classes and ±1, in one pass that
/// maps and checks every label: what `numpy.unique` gives, without its sort (which costs as much as a
/// clean epoch of the perceptron on 10⁶ × 10). `None` when the target is not that: a third value, a
/// NaN, a float class that is not a whole number (which scikit-learn calls continuous), or no label.
/// One class comes back as one, with every label +1.
pub fn binary<'py>(py: Python<'py>, y: &Bound<'py, PyAny>) -> PyResult<Option<Binary<'py>>> {
    if let Ok(array) = y.cast::<PyArray1<i64>>() {
        let ro = array.try_readonly()?;
        return Ok(two_classes(ro.as_slice()?, |_| true)
            .map(|(classes, signs)| (classes.into_pyarray(py).into_any(), signs)));
    }
    let array = y
        .cast::<PyArray1<f64>>()
        .map_err(|_| PyTypeError::new_err("y must be a 1-D float64 or int64 NumPy array"))?;
    let ro = array.try_readonly()?;
    let whole = |v: f64| v.is_finite() && v.fract() == 0.0;
    Ok(two_classes(ro.as_slice()?, whole)
        .map(|(classes, signs)| (classes.into_pyarray(py).into_any(), signs)))
}

/// The classes and the signs of `values`; see [`binary`]. -0.0 and 0.0 are one class, as
/// `numpy.unique` has them; a NaN equals no class. The pass is branch-free (a label order that is
/// random defeats a branch predictor): every label is compared with both classes and the misses are
/// counted.
fn two_classes<T: Copy + PartialOrd>(
    values: &[T],
    valid: impl Fn(T) -> bool,
) -> Option<(Vec<T>, Array1<f64>)> {
    let &first = values.first()?;
    let second = values.iter().copied().find(|&v| v != first);
    let (negative, positive) = match second {
        None => (first, first),
        Some(s) if s < first => (s, first),
        Some(s) => (first, s),
    };
    if !(valid(negative) && valid(positive)) {
        return None;
    }
    let mut misses = 0usize;
    let signs = advised(
        values.len(),
        values.iter().map(|&v| {
            misses += usize::from((v != positive) & (v != negative));
            if v == positive { 1.0 } else { -1.0 }
        }),
    );
    if misses > 0 {
        return None;
    }
    let classes = match second {
        None => vec![first],
        Some(_) => vec![negative, positive],
    };
    Some((classes, signs))
}
