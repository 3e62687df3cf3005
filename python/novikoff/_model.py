"""Model files of ``novikoff train --save``, read into a fitted :class:`Perceptron`."""

import json
import os

import numpy as np

from . import _novikoff
from ._estimator import Perceptron, class_run_record, run_record

_INT64 = np.iinfo(np.int64)


def load_model(path):
    """A fitted :class:`Perceptron` from a model file written by ``novikoff train --save`` or
    :meth:`Perceptron.save_model`. Its parameters are those of the file's provenance where it has them
    (the bias rule, ``eta0``, ``max_iter``, the order and seed, the variant), and so are ``n_iter_``,
    ``mistakes_``, ``converged_`` and ``stop_reason_``.

    A ``"linear"`` model is a binary estimator. Its ``classes_`` are the file's names of its classes
    -1 and +1 when it has them (``save_model`` of an estimator trained on other labels writes them),
    read back as for a multi-class file below, and ``[-1, 1]`` otherwise.

    A ``"multiclass"`` model (``novikoff train --multiclass ovr|kesler --save``, or ``save_model`` of
    an estimator of three classes or more) is an estimator with ``multi_class`` the file's method,
    ``coef_`` of shape ``(n_classes, n_features)`` and ``classes_`` in the file's order. A file names
    its classes as strings, and ``classes_`` holds them as the saving estimator's labels spelt them:
    an ``int64`` array when every name is an integer written canonically (``str(int(name)) == name``,
    within 64 bits), a ``float64`` array when every name is a finite float written canonically
    (``str(float(name)) == name``, as ``str`` writes ``numpy.float64`` labels), a ``bool`` array for
    ``"False"`` and ``"True"``, and otherwise an array of the names as strings.
    Its predictions are the saving estimator's (the same scores, bit for bit), and ``save_model``
    writes the file's model back. ``partial_fit`` resumes it as it resumes a fit, from the file's
    weights (with ``"kesler"``, or one-vs-rest of the plain perceptron and the margin and PA
    variants).

    A corrupt file, an unknown format version or model kind, and a multi-class model whose classes
    use different summation orders are refused with a message naming the file (``ValueError``).
    """
    path = os.fspath(path)
    model = _novikoff.load_model(path)
    provenance_json = model["provenance_json"]
    provenance = json.loads(provenance_json) if provenance_json is not None else {}
    params = provenance.get("params", {})
    bias = params.get("bias", "classic")
    estimator = Perceptron(
        fit_intercept=bias != "none",
        bias=float(bias[2:]) if bias.startswith("c=") else (bias if bias != "none" else "classic"),
        eta0=params.get("eta", 1.0),
        max_iter=params.get("max_epochs", 1000),
        max_updates=params.get("max_updates"),
        shuffle=params.get("order") == "shuffle",
        random_state=params.get("seed"),
        summation=model["summation"],
        variant=provenance.get("learner", "perceptron"),
        multi_class=model.get("method", "ovr"),
    )
    if model["kind"] == "multiclass":
        coef, intercept = model["coef"], model["intercept"]
        estimator.classes_ = _class_labels(model["classes"])
        # One constant c for every class in the files the library writes; the first class's resumes
        # partial_fit (any positive c is the same perceptron, scaled).
        estimator.bias_constant_ = float(model["bias_constants"][0])
        estimator.bias_weight_ = None
        estimator._multi_class = model["method"]
        estimator._run_record = class_run_record(
            provenance_json, coef, intercept, model["bias_constants"], model["bias_weights"]
        )
    else:
        coef = np.asarray(model["w"], dtype=np.float64).reshape(1, -1)
        intercept = np.array([model["b"]])
        classes = model["classes"]
        estimator.classes_ = np.array([-1, 1]) if classes is None else _class_labels(classes)
        estimator.bias_constant_ = model["bias_constant"]
        estimator.bias_weight_ = model["bias_weight"]
        estimator._run_record = run_record(
            provenance_json, coef[0], model["b"], model["bias_constant"], model["bias_weight"]
        )
    estimator.coef_ = coef
    estimator.intercept_ = intercept
    estimator.n_features_in_ = coef.shape[1]
    run = provenance.get("run", {})
    estimator.n_iter_ = run.get("epochs", 0)
    estimator.mistakes_ = run.get("mistakes")
    estimator.converged_ = run.get("converged")
    estimator.stop_reason_ = run.get("stop_reason")
    estimator.seed_ = params.get("seed")
    estimator._summation = model["summation"]
    estimator._partial_calls = 0
    return estimator


def _class_labels(names):
    """A file's class names as ``classes_``, in the type whose ``str`` gives each name back (so that
    saving the estimator again writes the same names): ``int64``, ``float64`` or ``bool`` when every
    name is one written canonically, else the names themselves."""
    for parse, dtype in ((_canonical_int, np.int64), (_canonical_float, np.float64),
                         (_canonical_bool, bool)):
        values = [parse(name) for name in names]
        if all(value is not None for value in values):
            return np.array(values, dtype=dtype)
    return np.array(names, dtype=str)


def _canonical_int(name):
    try:
        value = int(name)
    except ValueError:
        return None
    return value if str(value) == name and _INT64.min <= value <= _INT64.max else None


def _canonical_float(name):
    try:
        value = float(name)
    except ValueError:
        return None
    return value if np.isfinite(value) and str(np.float64(value)) == name else None


def _canonical_bool(name):
    return {"False": False, "True": True}.get(name)
