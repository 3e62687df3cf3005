"""Model files of ``novikoff train --save``, read into a fitted :class:`Perceptron`."""

import json
import os

import numpy as np

from . import _novikoff
from ._estimator import Perceptron, run_record


def load_model(path):
    """A fitted :class:`Perceptron` from a model file written by ``novikoff train --save`` or
    :meth:`Perceptron.save_model`. Its ``classes_`` are ``[-1, 1]`` (the file's labels); its
    parameters are those of the file's provenance where it has them.

    A corrupt file, an unknown format version or model kind are refused with the crate's message,
    naming the file (``ValueError``).
    """
    model = _novikoff.load_model(os.fspath(path))
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
    )
    w = np.asarray(model["w"], dtype=np.float64)
    estimator.coef_ = w.reshape(1, -1)
    estimator.intercept_ = np.array([model["b"]])
    estimator.classes_ = np.array([-1, 1])
    estimator.n_features_in_ = w.shape[0]
    estimator.bias_constant_ = model["bias_constant"]
    estimator.bias_weight_ = model["bias_weight"]
    run = provenance.get("run", {})
    estimator.n_iter_ = run.get("epochs", 0)
    estimator.mistakes_ = run.get("mistakes")
    estimator.converged_ = run.get("converged")
    estimator.stop_reason_ = run.get("stop_reason")
    estimator.seed_ = params.get("seed")
    estimator._summation = model["summation"]
    estimator._run_record = run_record(
        provenance_json, w, model["b"], model["bias_constant"], model["bias_weight"]
    )
    estimator._partial_calls = 0
    return estimator
