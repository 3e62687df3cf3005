"""Arrays as the compiled module takes them: a C-contiguous float64 matrix (read in place), or the
arrays of a canonical CSR matrix."""

import numpy as np
import scipy.sparse as sp


def as_matrix(X):
    """``X`` for the compiled module.

    A C-contiguous float64 ndarray is returned as it is (no copy). Any other dense input is
    converted once by ``numpy.ascontiguousarray(X, dtype=float64)``. A SciPy sparse matrix or array
    becomes canonical CSR float64 (converted or copied only when it is not already), passed as
    ``("csr", data, indices, indptr, shape)``.
    """
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (samples × features), got {X.ndim}-D")
        if X.format != "csr":
            X = X.tocsr()
        if X.dtype != np.float64:
            X = X.astype(np.float64)
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        data = np.ascontiguousarray(X.data, dtype=np.float64)
        return ("csr", data, X.indices, X.indptr, (int(X.shape[0]), int(X.shape[1])))
    X = np.asarray(X)
    if X.dtype.kind == "c":
        raise ValueError("complex data is not supported: X must be real")
    if X.ndim != 2:
        raise ValueError(
            f"X must be 2-D (samples × features), got {X.ndim}-D with shape {X.shape}"
        )
    if X.dtype != np.float64 or not X.flags.c_contiguous:
        try:
            X = np.ascontiguousarray(X, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(f"X must hold numbers: {error}") from None
    return X


def as_labels(y):
    """Labels as a float64 vector; the crate checks that each is +1 or -1."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D (one label per sample), got shape {y.shape}")
    try:
        return np.ascontiguousarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            "y must hold the labels +1 and -1 (map other labels first, or use Perceptron, "
            "which accepts any two classes)"
        ) from None
