"""novikoff: the perceptron and its convergence theorem, from Python.

The package is the Rust crate `novikoff` compiled with PyO3:

* :class:`Perceptron`, a scikit-learn estimator (``fit``, ``partial_fit``, ``predict``,
  ``decision_function``, ``score``) with every bias rule of the crate, on two classes or more
  (one-vs-rest, or the multi-class perceptron);
* :func:`radius`, :func:`max_margin`, :func:`verify` and :func:`experiment`, the library's
  functions, returning plain Python values (``verify`` returns exactly what
  ``novikoff verify --format json`` prints);
* :func:`load_model` and :meth:`Perceptron.save_model`, the model files of ``novikoff train --save``
  (a ``"linear"`` model for two classes, a ``"multiclass"`` one for three or more).

A C-contiguous ``float64`` NumPy array is read in place, without a copy. Any other array
(Fortran order, ``float32``, integers, a list) is converted once into a C-contiguous ``float64``
copy, and a SciPy sparse matrix into canonical CSR (sorted indices, no duplicates), which the crate
keeps as sparse storage: with ``int32`` indices (SciPy's below 2³¹ stored values) its ``data`` and
``indices`` are read in place too, and only ``indptr`` is converted; ``int64`` indices are converted.
An array must not be changed by another thread while a call reads it (the GIL is released during the
computation).

Errors are the crate's, with its message: ``ValueError`` for bad input (a NaN, a shape, a label
that is not ±1, a parameter), ``RuntimeError`` for a solver failure, ``OSError`` for a file the
system refused.
"""

from ._novikoff import __version__
from ._estimator import Perceptron
from ._functions import experiment, max_margin, radius, verify
from ._model import load_model

__all__ = [
    "Perceptron",
    "__version__",
    "experiment",
    "load_model",
    "max_margin",
    "radius",
    "verify",
]
