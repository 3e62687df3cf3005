//! The crate's errors as Python exceptions, with the crate's message.

use std::io::ErrorKind;

use novikoff::Error;
use pyo3::PyErr;
use pyo3::exceptions::{
    PyFileNotFoundError, PyIsADirectoryError, PyOSError, PyPermissionError, PyRuntimeError,
    PyValueError,
};

/// `ValueError` for the user's input (a value, a shape, a parameter, a file's contents),
/// `RuntimeError` for a solver failure or a dataset too large to densify, and the `OSError` subclass
/// of a file the system refused.
pub fn to_py(error: Error) -> PyErr {
    let message = error.to_string();
    if let Error::Io { source, .. } = &error {
        return match source.kind() {
            ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
            ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
            ErrorKind::IsADirectory => PyIsADirectoryError::new_err(message),
            ErrorKind::InvalidData | ErrorKind::InvalidInput | ErrorKind::UnexpectedEof => {
                PyValueError::new_err(message)
            }
            _ => PyOSError::new_err(message),
        };
    }
    if error.is_input() {
        PyValueError::new_err(message)
    } else {
        PyRuntimeError::new_err(message)
    }
}

/// `?` on a crate result inside a `#[pyfunction]`.
pub trait OrPy<T> {
    fn or_py(self) -> pyo3::PyResult<T>;
}

impl<T> OrPy<T> for novikoff::Result<T> {
    fn or_py(self) -> pyo3::PyResult<T> {
        self.map_err(to_py)
    }
}
