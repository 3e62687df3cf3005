//! NumPy and SciPy matrices as datasets.
//!
//! A dense matrix must arrive as a C-contiguous `float64` array (the Python layer converts anything else
//! once, with a documented copy): the dataset then reads the array's memory in place, without a copy,
//! and holds a reference to the array for as long as it lives. A SciPy CSR matrix arrives as its three
//! arrays and becomes the crate's sparse storage (its indices are copied into `usize`, the crate's index
//! type). Either way the dataset is checked by the crate (`Dataset::from_shared`, `Dataset::from_csr`),
//! so the errors are the CLI's.

use std::sync::Arc;

use ndarray::Array1;
use novikoff::Dataset;
use novikoff::dataset::{CsrMatrix, MAX_SPARSE_COLUMNS, SharedValues};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::OrPy;

/// The memory of a C-contiguous `float64` NumPy array, read in place by a [`Dataset`].
#[derive(Debug)]
struct NumpyValues {
    /// A strong reference: the array, and so its memory, lives as long as this does.
    _array: Py<PyArray2<f64>>,
    ptr: *const f64,
    len: usize,
}

// SAFETY: `ptr` and `len` describe the data buffer of `array`, which this object keeps alive through
// its strong reference; a NumPy array's buffer does not move while a reference to the array exists (a
// resize with references alive is refused by NumPy). The buffer is only read. Python code in another
// thread could write into the array while the GIL is released; the package documents that an array
// must not be changed during a call that reads it, as NumPy-based extensions do.
unsafe impl Send for NumpyValues {}
// SAFETY: as for `Send`: shared access only reads.
unsafe impl Sync for NumpyValues {}

impl SharedValues for NumpyValues {
    fn values(&self) -> &[f64] {
        // SAFETY: see `Send` above; `ptr` is the start of `len` initialised `f64` (taken from
        // rust-numpy's checked `as_slice` of the same array).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// A dataset built from Python arrays, with the read borrow of a dense array (rust-numpy's borrow
/// flag, which keeps other Rust code from writing into it) held for as long as the dataset is used.
/// Dropped, it gives its labels' buffer back for the next call ([`labels::recycle`](crate::labels::recycle)).
pub struct Input<'py> {
    data: Option<Dataset>,
    _borrow: Option<PyReadonlyArray2<'py, f64>>,
}

impl Input<'_> {
    /// The dataset.
    pub fn data(&self) -> &Dataset {
        self.data.as_ref().expect("taken only on drop")
    }
}

impl Drop for Input<'_> {
    fn drop(&mut self) {
        if let Some(data) = self.data.take() {
            crate::labels::recycle(data.into_labels());
        }
    }
}

/// The two ways a matrix arrives from the Python layer.
pub enum Matrix<'py> {
    Dense(PyReadonlyArray2<'py, f64>),
    Csr(CsrMatrix),
}

impl Matrix<'_> {
    fn n_rows(&self) -> usize {
        match self {
            Matrix::Dense(x) => x.shape()[0],
            Matrix::Csr(x) => x.rows(),
        }
    }
}

/// `("csr", data, indices, indptr, (n, d))`, as the Python layer passes a SciPy CSR matrix.
type CsrParts<'py> = (
    String,
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    (usize, usize),
);

/// `x` is a 2-D C-contiguous `float64` ndarray, or `("csr", data, indices, indptr, (n, d))`.
pub fn matrix<'py>(x: &Bound<'py, PyAny>) -> PyResult<Matrix<'py>> {
    if let Ok(tuple) = x.cast::<PyTuple>() {
        let (tag, data, indices, indptr, shape): CsrParts<'py> = tuple.extract()?;
        if tag != "csr" {
            return Err(PyTypeError::new_err(format!("unknown matrix tag {tag:?}")));
        }
        let data = data.cast::<PyArray1<f64>>()?.to_vec()?;
        if shape.1 > MAX_SPARSE_COLUMNS {
            return Err(PyValueError::new_err(format!(
                "the CSR matrix has {} columns; novikoff's sparse storage has 32-bit column indices \
                 (at most {MAX_SPARSE_COLUMNS} columns, as scipy's int32)",
                shape.1
            )));
        }
        let indices = index_array(&indices, "indices")?;
        let indptr = index_array(&indptr, "indptr")?;
        let csr = CsrMatrix::try_new(shape, indptr, indices, data)
            .map_err(|e| PyValueError::new_err(format!("the CSR matrix is malformed: {}", e.3)))?;
        return Ok(Matrix::Csr(csr));
    }
    let array = x.cast::<PyArray2<f64>>().map_err(|_| {
        PyTypeError::new_err("X must be a 2-D float64 NumPy array (the package converts others)")
    })?;
    if !array.is_c_contiguous() {
        return Err(PyValueError::new_err(
            "X must be C-contiguous (the package converts other layouts)",
        ));
    }
    Ok(Matrix::Dense(array.try_readonly()?))
}

/// An index type that holds every non-negative `i32`, converted without a check.
trait FromNonNegativeI32 {
    fn of_non_negative(v: i32) -> Self;
}

impl FromNonNegativeI32 for u32 {
    fn of_non_negative(v: i32) -> Self {
        v as u32
    }
}

impl FromNonNegativeI32 for usize {
    fn of_non_negative(v: i32) -> Self {
        v as usize
    }
}

/// A SciPy index array (`int32` or `int64`) as the crate's indices (`usize` row pointers, 32-bit
/// column indices); an entry that is negative or does not fit is refused.
fn index_array<T: TryFrom<i64> + FromNonNegativeI32>(
    array: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<Vec<T>> {
    let invalid = |v: i64| {
        PyValueError::new_err(format!(
            "the CSR matrix's {name} has the entry {v}, which is negative or too large"
        ))
    };
    if let Ok(a) = array.cast::<PyArray1<i32>>() {
        let ro = a.try_readonly()?;
        let view = ro.as_array();
        // A CSR matrix's indices are millions of entries: a first pass that vectorises finds whether
        // any is negative, and a plain conversion follows.
        if let Some(values) = view.as_slice()
            && values.iter().fold(0i32, |m, &v| m.min(v)) >= 0
        {
            return Ok(values.iter().map(|&v| T::of_non_negative(v)).collect());
        }
        return view
            .iter()
            .map(|&v| T::try_from(i64::from(v)).map_err(|_| invalid(i64::from(v))))
            .collect();
    }
    let a = array.cast::<PyArray1<i64>>().map_err(|_| {
        PyTypeError::new_err(format!("the CSR matrix's {name} must be int32 or int64"))
    })?;
    let ro = a.try_readonly()?;
    ro.as_array()
        .iter()
        .map(|&v| T::try_from(v).map_err(|_| invalid(v)))
        .collect()
}

pub fn build<'py>(matrix: Matrix<'py>, y: Array1<f64>) -> PyResult<Input<'py>> {
    match matrix {
        Matrix::Dense(borrow) => {
            let (n, d) = (borrow.shape()[0], borrow.shape()[1]);
            let slice = borrow
                .as_slice()
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            let values = Arc::new(NumpyValues {
                _array: (*borrow).clone().unbind(),
                ptr: slice.as_ptr(),
                len: slice.len(),
            });
            let data = Dataset::from_shared(values, n, d, y).or_py()?;
            Ok(Input {
                data: Some(data),
                _borrow: Some(borrow),
            })
        }
        Matrix::Csr(x) => Ok(Input {
            data: Some(Dataset::from_csr(x, y).or_py()?),
            _borrow: None,
        }),
    }
}

/// A labelled dataset: the crate checks `x` and that every label of `y` (`float64`) is ±1.
pub fn labelled<'py>(x: &Bound<'py, PyAny>, y: &Bound<'py, PyAny>) -> PyResult<Input<'py>> {
    let matrix = matrix(x)?;
    build(matrix, crate::labels::signs(y)?)
}

/// The features alone, for what does not read labels (R, prediction): the dataset gets the label +1 on
/// every row, which the crate accepts (one class is a legitimate dataset), so that `x` has the checks of
/// every other input.
pub fn unlabelled<'py>(x: &Bound<'py, PyAny>) -> PyResult<Input<'py>> {
    let matrix = matrix(x)?;
    let n = matrix.n_rows();
    build(matrix, crate::labels::ones(n))
}
