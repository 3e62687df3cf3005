//! NumPy and SciPy matrices as datasets.
//!
//! A dense matrix must arrive as a C-contiguous `float64` array (the Python layer converts anything else
//! once, with a documented copy): the dataset then reads the array's memory in place, without a copy,
//! and holds a reference to the array for as long as it lives. A SciPy CSR matrix arrives as its three
//! arrays. With `int32` indices (SciPy's choice below 2³¹ stored values) its values and column indices
//! are read in place too, and only the `n + 1` row pointers are converted to the crate's `usize`;
//! with `int64` indices they are converted into the crate's storage. Either way the dataset is checked
//! by the crate (`Dataset::from_shared`, `Dataset::from_shared_csr`, `Dataset::from_csr`), so the errors
//! are the CLI's.

use std::sync::Arc;

use ndarray::Array1;
use novikoff::Dataset;
use novikoff::dataset::{CsrMatrix, MAX_SPARSE_COLUMNS, SharedCsr, SharedValues};
use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
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

/// The values and column indices of a SciPy CSR matrix with `int32` indices, read in place by a
/// [`Dataset`], and its row pointers as the crate's `usize`.
#[derive(Debug)]
pub struct ScipyCsr {
    /// Strong references: the arrays, and so their memory, live as long as this does.
    _data: Py<PyArray1<f64>>,
    _indices: Py<PyArray1<i32>>,
    indptr: Vec<usize>,
    values: (*const f64, usize),
    /// The `int32` indices, every one checked non-negative, read as `u32` (the same bits).
    indices: (*const u32, usize),
}

// SAFETY: as for `NumpyValues`: the pointers describe the buffers of the two arrays this object keeps
// alive, which do not move while a reference exists, and are only read.
unsafe impl Send for ScipyCsr {}
// SAFETY: as for `Send`: shared access only reads.
unsafe impl Sync for ScipyCsr {}

impl SharedCsr for ScipyCsr {
    fn indptr(&self) -> &[usize] {
        &self.indptr
    }

    fn indices(&self) -> &[u32] {
        // SAFETY: `indices` is the start and length of the `int32` array's initialised buffer (taken
        // from rust-numpy's checked `as_slice`); `i32` and `u32` have the same size and alignment, and
        // every entry was checked non-negative, so each reads as the same number.
        unsafe { std::slice::from_raw_parts(self.indices.0, self.indices.1) }
    }

    fn values(&self) -> &[f64] {
        // SAFETY: as for `NumpyValues::values`.
        unsafe { std::slice::from_raw_parts(self.values.0, self.values.1) }
    }
}

/// The read borrows of the arrays a dataset reads in place (rust-numpy's borrow flags, which keep other
/// Rust code from writing into them).
#[expect(dead_code, reason = "held for their borrow flags, never read")]
enum Borrow<'py> {
    Dense(PyReadonlyArray2<'py, f64>),
    Csr(PyReadonlyArray1<'py, f64>, PyReadonlyArray1<'py, i32>),
}

/// A dataset built from Python arrays, with the read borrows of the arrays it reads in place held for
/// as long as the dataset is used. Dropped, it gives its labels' buffer back for the next call
/// ([`labels::recycle`](crate::labels::recycle)).
pub struct Input<'py> {
    data: Option<Dataset>,
    _borrow: Option<Borrow<'py>>,
}

impl Input<'_> {
    /// The dataset.
    pub fn data(&self) -> &Dataset {
        self.data
            .as_ref()
            .expect("taken only once, by take_data or on drop")
    }

    /// The dataset, moved out (to become a multi-class dataset's features) while the borrows of the
    /// arrays it reads stay held, for as long as this `Input` lives.
    pub fn take_data(&mut self) -> Dataset {
        self.data
            .take()
            .expect("taken only once, by take_data or on drop")
    }
}

impl Drop for Input<'_> {
    fn drop(&mut self) {
        if let Some(data) = self.data.take() {
            crate::labels::recycle(data.into_labels());
        }
    }
}

/// The ways a matrix arrives from the Python layer.
pub enum Matrix<'py> {
    Dense(PyReadonlyArray2<'py, f64>),
    /// A CSR matrix read in place, not yet checked.
    SharedCsr {
        arrays: Arc<ScipyCsr>,
        shape: (usize, usize),
        borrow: (PyReadonlyArray1<'py, f64>, PyReadonlyArray1<'py, i32>),
    },
    Csr(CsrMatrix),
}

impl Matrix<'_> {
    fn n_rows(&self) -> usize {
        match self {
            Matrix::Dense(x) => x.shape()[0],
            Matrix::SharedCsr { shape, .. } => shape.0,
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
        let data = data.cast::<PyArray1<f64>>()?;
        if shape.1 > MAX_SPARSE_COLUMNS {
            return Err(PyValueError::new_err(format!(
                "the CSR matrix has {} columns; novikoff's sparse storage has 32-bit column indices \
                 (at most {MAX_SPARSE_COLUMNS} columns, as scipy's int32)",
                shape.1
            )));
        }
        let indptr = index_array(&indptr, "indptr")?;
        if let Ok(indices32) = indices.cast::<PyArray1<i32>>()
            && let (Ok(values), Ok(columns)) = (data.try_readonly(), indices32.try_readonly())
            && let (Ok(value_slice), Ok(column_slice)) = (values.as_slice(), columns.as_slice())
        {
            if let Some(k) = first_negative(column_slice) {
                return Err(invalid_index("indices", i64::from(column_slice[k])));
            }
            let arrays = Arc::new(ScipyCsr {
                _data: data.clone().unbind(),
                _indices: indices32.clone().unbind(),
                indptr,
                values: (value_slice.as_ptr(), value_slice.len()),
                indices: (column_slice.as_ptr().cast::<u32>(), column_slice.len()),
            });
            return Ok(Matrix::SharedCsr {
                arrays,
                shape,
                borrow: (values, columns),
            });
        }
        let indices = index_array(&indices, "indices")?;
        let csr = CsrMatrix::try_new(shape, indptr, indices, data.to_vec()?)
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

/// An index array's entry that no index type of the crate holds.
fn invalid_index(name: &str, v: i64) -> PyErr {
    PyValueError::new_err(format!(
        "the CSR matrix's {name} has the entry {v}, which is negative or too large"
    ))
}

/// The position of the first negative entry, found after a pass that vectorises.
fn first_negative(values: &[i32]) -> Option<usize> {
    if values.iter().fold(0i32, |m, &v| m.min(v)) >= 0 {
        return None;
    }
    values.iter().position(|&v| v < 0)
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
    let invalid = |v: i64| invalid_index(name, v);
    if let Ok(a) = array.cast::<PyArray1<i32>>() {
        let ro = a.try_readonly()?;
        let view = ro.as_array();
        // A CSR matrix's indices are millions of entries: a first pass that vectorises finds whether
        // any is negative, and a plain conversion follows.
        if let Some(values) = view.as_slice()
            && first_negative(values).is_none()
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
                _borrow: Some(Borrow::Dense(borrow)),
            })
        }
        Matrix::SharedCsr {
            arrays,
            shape,
            borrow,
        } => Ok(Input {
            data: Some(Dataset::from_shared_csr(arrays, shape, y).or_py()?),
            _borrow: Some(Borrow::Csr(borrow.0, borrow.1)),
        }),
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
