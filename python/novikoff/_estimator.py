"""``novikoff.Perceptron``: the crate's perceptron as a scikit-learn classifier."""

import numbers
import os
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets, unique_labels
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _novikoff
from ._inputs import as_matrix

_RULES = ("classic", "novikoff")
_SUMMATIONS = ("sequential", "fast")
_MULTI_CLASS = ("ovr", "kesler")


def run_record(provenance_json, w, b, bias_constant, bias_weight):
    """What ``save_model`` needs to write a run's (or a loaded file's) model with its provenance while
    ``coef_`` and ``intercept_`` are still that model's: a copy of ``w``, since ``coef_`` is a view the
    user may write to. None when there is no provenance."""
    if provenance_json is None:
        return None
    return (provenance_json, w.copy(), float(b), float(bias_constant), float(bias_weight))


def class_run_record(provenance_json, coef, intercept, bias_constants, bias_weights):
    """What ``save_model`` needs to write a multi-class run's (or a loaded file's) model while
    ``coef_`` and ``intercept_`` are still that model's: copies of them, since they are arrays the user
    may write to, and each class's bias constant and weight as the library's model has them. The
    provenance may be None (it is then left out of the file); the record is None when the run made no
    model (weights that are not finite)."""
    if bias_constants is None:
        return None
    return (
        provenance_json,
        np.array(coef, dtype=np.float64, order="C"),
        np.array(intercept, dtype=np.float64),
        np.array(bias_constants, dtype=np.float64),
        np.array(bias_weights, dtype=np.float64),
    )


class Perceptron(ClassifierMixin, BaseEstimator):
    """The perceptron of the convergence theorem, trained by the Rust crate ``novikoff``.

    Two classes are the perceptron of the theorem: ``classes_[1]`` is the crate's +1 and
    ``classes_[0]`` its -1. A mistake is ``y (w.x + b) <= 0`` (a zero activation is a mistake) and
    the update is ``w += eta0 y x`` with the bias rule's update of ``b``. Training stops after the
    first epoch without a mistake (the data are then separated) or at ``max_iter`` epochs.

    Three classes or more are learnt as ``multi_class`` says: one-vs-rest (scikit-learn's
    ``Perceptron`` does the same, and with the sequential summation and ``shuffle=False`` its
    ``coef_`` and ``intercept_`` are the same bits), or the multi-class perceptron of Kesler's
    construction. The prediction is the class of the highest score, the first of them on a tie.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn a bias ``b``. ``False`` is the perceptron through the origin (Block-Novikoff).
    bias : {"classic", "novikoff"} or float, default="classic"
        The bias rule when ``fit_intercept`` is true (ignored otherwise): ``"classic"`` is
        ``b += eta0 y`` (CS 536), ``"novikoff"`` is ``b += eta0 y R^2`` with ``R`` the radius of the
        training data, a positive number ``c`` is ``b += eta0 y c^2`` (the perceptron on ``(x, c)``).
    eta0 : float, default=1.0
        The learning rate (positive and finite).
    max_iter : int, default=1000
        The most epochs (passes over the data) of ``fit``.
    max_updates : int or None, default=None
        Stop after this many updates (mistakes).
    shuffle : bool, default=False
        Visit the rows in a fresh seeded order each epoch (ChaCha8, as ``--order shuffle``) instead of
        in order. Unlike scikit-learn's ``Perceptron``, the default is the textbook cyclic pass.
    random_state : int, RandomState or None, default=None
        The seed of the shuffled order. An int is the crate's seed itself (``random_state=7`` visits
        the rows as ``novikoff train --order shuffle --seed 7``); ``None`` or a ``RandomState`` draws a
        seed, kept in ``seed_``. Unused when ``shuffle`` is false.
    summation : {"fast", "sequential"}, default="fast"
        The dot product's summation order: ``"sequential"`` is the left-to-right loop of textbooks and
        of scikit-learn (with ``fit_intercept=True`` and the classic rule, ``coef_`` and
        ``intercept_`` are bit-identical to ``sklearn.linear_model.Perceptron(eta0=1,
        penalty=None, shuffle=False, tol=None)`` on dense data); ``"fast"`` is a fixed 32-lane tree,
        the same bits on every CPU.
    variant : str, default="perceptron"
        The member of the perceptron's family, named as ``novikoff train --variant``:
        ``"perceptron"``; ``"averaged"`` (Freund and Schapire's average of every intermediate weight
        vector, which ``coef_`` then holds); ``"pocket"`` (Gallant's pocket with ratchet: the weights
        with the fewest training errors seen); ``"margin:BETA"`` (update when
        ``y (w.x + b) <= BETA``); ``"pa"``, ``"pa1:C"``, ``"pa2:C"`` (Passive-Aggressive, PA-I and
        PA-II of Crammer et al. 2006, with ``eta0=1``). The voted perceptron is not offered: its vote
        of many weight vectors is not a linear model (use ``"averaged"``).
    multi_class : {"ovr", "kesler"}, default="ovr"
        How three classes or more are learnt (two classes are always the binary perceptron):
        ``"ovr"`` trains one perceptron per class, that class against the rest, in parallel in the
        crate (every variant; a shuffled order uses the same seed for every class, as
        ``novikoff train --multiclass ovr``); ``"kesler"`` is the multi-class perceptron (Duda and
        Hart's construction; Collins 2002; Crammer and Singer 2003) with one weight vector per class:
        on a mistake (the true class's score not above every other's) the true class moves towards
        the example and the highest-scoring wrong class away from it (``variant="perceptron"``
        only). ``novikoff train --multiclass kesler`` makes the same run.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
        The variant's predictor: the last weights, or the averaged or pocket weights. One row per
        class for three classes or more.
    last_coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    last_intercept_ : ndarray of shape (1,) or (n_classes,)
        The last weights of the run (equal to ``coef_`` and ``intercept_`` unless the variant is
        ``"averaged"`` or ``"pocket"``).
    classes_ : ndarray of shape (n_classes,)
    n_iter_ : int
        Epochs of the last ``fit`` (including the final clean one; with one-vs-rest, the most of any
        class, as scikit-learn counts them), or 1 after ``partial_fit``.
    mistakes_ : int
        Mistakes (``y (w.x + b) <= 0``) on which the last ``fit`` or ``partial_fit`` call updated
        (with one-vs-rest, summed over the classes).
    updates_ : int
        Updates made by that call: the mistakes, and for ``"margin:BETA"`` and the PA variants also
        the updates on rows that were classified right but inside the margin or with a loss.
    converged_ : bool
        True when the last epoch of ``fit`` had no mistake (with one-vs-rest, in every class).
    stop_reason_ : str
        ``converged``, ``epoch_cap``, ``update_cap``, ``non_finite`` or ``underflow`` (with
        one-vs-rest, the first class's that did not converge).
    bias_constant_ : float
        The rule's augmentation constant ``c`` (0 without a bias, 1 classic, ``R`` novikoff), so that
        ``intercept_ = c * bias_weight_``.
    bias_weight_ : float or None
        The weight of the constant coordinate (None for three classes or more).
    seed_ : int or None
        The seed of the shuffled order (None without shuffling).
    train_seconds_ : float
        The crate's training loop, in seconds (its own timing, ``train_seconds``).
    fit_seconds_ : float
        What a Rust program spends in ``Dataset::new`` (the checks of the data) and
        ``Perceptron::fit`` for the same run.
    call_seconds_ : float
        The whole call in Rust: ``fit_seconds_`` plus the conversion of a sparse ``X``'s row pointers
        (and of ``int64`` indices), the labels' mapping and the run's provenance (the model file itself is written by ``save_model``).
    n_features_in_ : int
    feature_names_in_ : ndarray of str (only when ``X`` has column names)

    Notes
    -----
    Input: a C-contiguous ``float64`` array is read in place (``fit`` makes no copy of ``X``); any
    other dense array (Fortran order, ``float32``, integers) is converted once into a C-contiguous
    ``float64`` copy; a SciPy sparse matrix becomes canonical CSR and is trained on as sparse rows,
    its values and ``int32`` indices read in place.
    NaN or infinite values are refused with the crate's message (``ValueError``).

    ``predict`` uses sign(0) = +1: a row with ``decision_function == 0`` is predicted ``classes_[1]``
    (scikit-learn's linear classifiers predict ``classes_[0]`` there). With three classes or more,
    ``decision_function`` has a column per class and ``predict`` takes the first highest, as
    scikit-learn does.

    With three classes or more, ``partial_fit`` is one epoch of every class's one-vs-rest problem,
    or of the multi-class perceptron from the current weights; ``save_model`` writes the
    ``"multiclass"`` model file of ``novikoff train --multiclass ... --save`` (classes named
    ``str(c)``), which :func:`novikoff.load_model` reads back.

    ``partial_fit`` makes one epoch over the batch, starting from the current weights. It is refused
    for ``"averaged"`` and ``"pocket"``, whose predictors depend on the whole run, which one epoch
    from given weights cannot resume. The bias
    rule's constant is fixed by the first call (for ``"novikoff"``, ``R`` of the first batch). When
    ``c`` is not 1, the bias weight is recovered as ``intercept_ / c`` at each call, which may differ
    from the running weight in the last bit.
    """

    def __init__(
        self,
        *,
        fit_intercept=True,
        bias="classic",
        eta0=1.0,
        max_iter=1000,
        max_updates=None,
        shuffle=False,
        random_state=None,
        summation="fast",
        variant="perceptron",
        multi_class="ovr",
    ):
        self.fit_intercept = fit_intercept
        self.bias = bias
        self.eta0 = eta0
        self.max_iter = max_iter
        self.max_updates = max_updates
        self.shuffle = shuffle
        self.random_state = random_state
        self.summation = summation
        self.variant = variant
        self.multi_class = multi_class

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # -- parameters -------------------------------------------------------------------------

    def _rule(self):
        """The crate's rule name, and a fixed constant c when ``bias`` is a number."""
        if not isinstance(self.fit_intercept, (bool, np.bool_)):
            raise ValueError(f"fit_intercept must be True or False, got {self.fit_intercept!r}")
        if not self.fit_intercept:
            return "none", None
        if isinstance(self.bias, str):
            if self.bias not in _RULES:
                raise ValueError(
                    f"bias must be 'classic', 'novikoff' or a positive number c, got {self.bias!r}"
                )
            return self.bias, None
        if isinstance(self.bias, numbers.Real) and not isinstance(self.bias, bool):
            c = float(self.bias)
            if not (np.isfinite(c) and c > 0):
                raise ValueError(
                    f"bias c must be finite and positive, got {self.bias!r} "
                    "(for no bias, set fit_intercept=False)"
                )
            return "c", c
        raise ValueError(
            f"bias must be 'classic', 'novikoff' or a positive number c, got {self.bias!r}"
        )

    def _check_params(self):
        if self.summation not in _SUMMATIONS:
            raise ValueError(f"summation must be 'fast' or 'sequential', got {self.summation!r}")
        for name in ("max_iter", "max_updates"):
            value = getattr(self, name)
            if value is None and name == "max_updates":
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
                raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
        if isinstance(self.eta0, bool) or not isinstance(self.eta0, numbers.Real):
            raise ValueError(f"eta0 must be a positive number, got {self.eta0!r}")
        if not isinstance(self.shuffle, (bool, np.bool_)):
            raise ValueError(f"shuffle must be True or False, got {self.shuffle!r}")
        if not isinstance(self.variant, str):
            raise ValueError(f"variant must be a name such as 'averaged' or 'pa1:0.5', got {self.variant!r}")
        if self.multi_class not in _MULTI_CLASS:
            raise ValueError(f"multi_class must be 'ovr' or 'kesler', got {self.multi_class!r}")

    def _draw_seed(self):
        """The crate's seed of the shuffled order, or None."""
        if not self.shuffle:
            return None
        state = self.random_state
        if isinstance(state, numbers.Integral) and not isinstance(state, bool):
            if not 0 <= state < 2**64:
                raise ValueError(f"random_state must be in [0, 2**64), got {state!r}")
            return int(state)
        return int(check_random_state(state).randint(0, np.iinfo(np.int64).max, dtype=np.int64))

    # -- labels -----------------------------------------------------------------------------

    @staticmethod
    def _classes(y):
        """``classes_`` (sorted, as ``numpy.unique`` has them) and each label's index among them, for a
        target the crate does not map itself: strings, objects, unsigned 64-bit integers, or three
        classes or more."""
        check_classification_targets(y)
        classes, inverse = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(
                f"only one class is present in y (every label is {classes[0]!r}); the perceptron "
                "needs samples of two classes"
            )
        return classes, inverse.reshape(-1)

    # -- fitting ----------------------------------------------------------------------------

    def fit(self, X, y):
        """Train on ``(X, y)`` from zero weights, epoch after epoch, until an epoch makes no mistake or
        ``max_iter`` epochs (or ``max_updates`` updates) are done.

        A C-contiguous float64 ``X`` is read in place, without a copy."""
        self._check_params()
        rule, constant = self._rule()
        X, y = validate_data(
            self,
            X,
            y,
            accept_sparse="csr",
            dtype=np.float64,
            order="C",
            ensure_all_finite=False,
        )
        self.seed_ = self._draw_seed()
        options = dict(
            bias=rule,
            bias_constant=constant,
            eta=float(self.eta0),
            shuffle=bool(self.shuffle),
            seed=self.seed_ or 0,
            max_epochs=int(self.max_iter),
            max_updates=None if self.max_updates is None else int(self.max_updates),
            summation=self.summation,
            variant=self.variant,
        )
        X = as_matrix(X)
        # Whole-number labels go to the crate as they are: one pass there finds the two classes and
        # maps them to ±1 (numpy.unique would sort, at the cost of a clean epoch on 10^6 rows).
        kind = y.dtype.kind
        if kind in "biu" and (kind != "u" or y.dtype.itemsize < 8):
            labels = np.ascontiguousarray(y, dtype=np.int64)
        elif kind == "f":
            labels = np.ascontiguousarray(y, dtype=np.float64)
        else:
            labels = None
        run = None
        if labels is not None:
            run = _novikoff.fit(X, labels, target="binary", **options)
            classes = run["classes"]
            if classes is None or len(classes) < 2:
                run = None  # not a binary target of whole numbers, or one class
            else:
                self.classes_ = classes.astype(y.dtype)
        if run is None:
            classes, indices = self._classes(y)
            self.classes_ = classes
            if len(classes) == 2:
                signs = np.ascontiguousarray(np.where(indices == 1, 1.0, -1.0))
                run = _novikoff.fit(X, signs, target="signs", **options)
            else:
                run = self._fit_classes(X, indices, len(classes), options)
        if run.get("multi_class"):
            self._keep_classes(run)
        else:
            self._keep(run)
        self._partial_calls = 0
        self.n_iter_ = int(run["epochs"])
        if not run["converged"]:
            warnings.warn(
                f"the perceptron stopped without converging after {run['epochs']} epoch(s) and "
                f"{run['mistakes']} update(s) (stop reason: {run['stop_reason']}); the data may not "
                "be linearly separable",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def _fit_classes(self, X, indices, n_classes, options):
        """Three classes or more, in the crate (``multi_class``); the run in the binary run's terms,
        with ``multi_class`` set."""
        return _totals(_novikoff.fit_multiclass(
            X, np.ascontiguousarray(indices, dtype=np.int64), n_classes=n_classes,
            method=self.multi_class, **options,
        ))

    def _keep_classes(self, run):
        coef, intercept = run["coef"], run["intercept"]
        if not (np.all(np.isfinite(coef)) and np.all(np.isfinite(intercept))):
            raise ValueError(
                f"the weights overflowed (stop reason: {run['stop_reason']}); scale the data down, "
                "for instance with sklearn.preprocessing.StandardScaler"
            )
        self.coef_ = coef
        self.intercept_ = intercept
        self.last_coef_ = run["last_coef"]
        self.last_intercept_ = run["last_intercept"]
        self.updates_ = run["updates"]
        self.bias_constant_ = float(run["bias_constant"])
        self.bias_weight_ = None
        self.mistakes_ = run["mistakes"]
        self.converged_ = run["converged"]
        self.stop_reason_ = run["stop_reason"]
        self.train_seconds_ = float(run["train_seconds"])
        self.fit_seconds_ = float(run["fit_seconds"])
        self.call_seconds_ = float(run["call_seconds"])
        self._summation = self.summation
        self._multi_class = self.multi_class
        self._run_record = class_run_record(
            run["provenance_json"], coef, intercept, run["model_bias_constants"],
            run["model_bias_weights"],
        )

    def partial_fit(self, X, y, classes=None):
        """One epoch over the batch ``(X, y)``, from the current weights.

        ``classes`` (both classes) is required on the first call, as in scikit-learn."""
        self._check_params()
        if self.variant.strip() in ("averaged", "pocket"):
            raise ValueError(
                f"partial_fit is not offered for variant {self.variant!r}: its predictor depends on "
                "the whole run, which one epoch from given weights cannot resume; use fit"
            )
        first = not hasattr(self, "classes_") or getattr(self, "_partial_calls", None) is None
        if first:
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit")
            classes = unique_labels(classes)
            if len(classes) < 2:
                raise ValueError(
                    f"classes must name at least two classes, got {len(classes)}"
                )

        elif classes is not None and not np.array_equal(unique_labels(classes), self.classes_):
            raise ValueError(
                f"classes {classes!r} differ from those of the first call, {self.classes_!r}"
            )
        X, y = validate_data(
            self,
            X,
            y,
            accept_sparse="csr",
            dtype=np.float64,
            order="C",
            ensure_all_finite=False,
            reset=first,
        )
        known = classes if first else self.classes_
        unknown = np.setdiff1d(np.unique(y), known)
        if len(unknown):
            raise ValueError(f"y holds labels {unknown!r} that are not among classes {known!r}")
        if first:
            rule, constant = self._rule()
            seed = self._draw_seed()
        else:
            rule, constant = ("none", None) if self.bias_constant_ == 0 else ("c", self.bias_constant_)
            seed = self.seed_
        calls = 0 if first else self._partial_calls + 1
        X = as_matrix(X)
        options = dict(
            bias=rule,
            bias_constant=constant,
            eta=float(self.eta0),
            shuffle=bool(self.shuffle),
            # Call k shuffles its batch with the seed seed_ + k.
            seed=((seed or 0) + calls) % 2**64,
            max_epochs=1,
            max_updates=None if self.max_updates is None else int(self.max_updates),
            summation=self.summation,
            variant=self.variant,
        )
        if len(known) > 2 and self.multi_class == "kesler":
            initial = {} if first else {
                "initial_coef": np.ascontiguousarray(self.coef_, dtype=np.float64),
                "initial_intercept": np.ascontiguousarray(self.intercept_, dtype=np.float64),
            }
            # classes_ read from a model file keep the file's order, which need not be sorted.
            order = np.argsort(known, kind="stable")
            indices = order[np.searchsorted(known, y, sorter=order)]
            self._keep_classes(self._fit_classes(X, indices, len(known), dict(options, **initial)))
        else:
            # Two classes are one problem, class known[1] against known[0]; k classes are k
            # problems, each class against the rest, run one after the other.
            problems = [known[1]] if len(known) == 2 else list(known)
            runs = []
            for r, positive in enumerate(problems):
                initial = {} if first else {
                    "initial_w": self.coef_[r].copy(), "initial_b": float(self.intercept_[r])
                }
                runs.append(_novikoff.fit(
                    X, np.ascontiguousarray(np.where(y == positive, 1.0, -1.0)), target="signs",
                    **options, **initial,
                ))
            if len(runs) == 1:
                self._keep(runs[0])
            else:
                self._keep_classes(_ovr_run(runs))
        if first:
            self.classes_ = classes
            self.seed_ = seed
        self._partial_calls = calls
        self.n_iter_ = 1
        return self

    def _keep(self, run):
        w = run["w"]
        if not (np.all(np.isfinite(w)) and np.isfinite(run["b"])):
            raise ValueError(
                f"the weights overflowed (stop reason: {run['stop_reason']}); scale the data down, "
                "for instance with sklearn.preprocessing.StandardScaler"
            )
        self.coef_ = w.reshape(1, -1)
        self.intercept_ = np.array([run["b"]])
        self.last_coef_ = run["last_w"].reshape(1, -1)
        self.last_intercept_ = np.array([run["last_b"]])
        self.updates_ = int(run["updates"])
        self.bias_constant_ = float(run["bias_constant"])
        self.bias_weight_ = float(run["bias_weight"])
        self.mistakes_ = int(run["mistakes"])
        self.converged_ = bool(run["converged"])
        self.stop_reason_ = run["stop_reason"]
        self.train_seconds_ = float(run["train_seconds"])
        self.fit_seconds_ = float(run["fit_seconds"])
        self.call_seconds_ = float(run["call_seconds"])
        self._summation = self.summation
        self._run_record = run_record(
            run["provenance_json"], w, run["b"], run["model_bias_constant"], run["model_bias_weight"]
        )

    # -- prediction -------------------------------------------------------------------------

    def decision_function(self, X):
        """``w.x + b`` for every row, in the fitted summation order (the crate's prediction)."""
        check_is_fitted(self)
        X = validate_data(
            self,
            X,
            accept_sparse="csr",
            dtype=np.float64,
            order="C",
            ensure_all_finite=False,
            reset=False,
        )
        summation = getattr(self, "_summation", "fast")
        if len(self.classes_) > 2:
            return _novikoff.decision_functions(
                as_matrix(X),
                np.ascontiguousarray(self.coef_, dtype=np.float64),
                np.ascontiguousarray(self.intercept_, dtype=np.float64),
                summation,
            )
        coef = np.ascontiguousarray(self.coef_, dtype=np.float64).reshape(-1)
        return _novikoff.decision_function(as_matrix(X), coef, float(self.intercept_[0]), summation)

    def predict(self, X):
        """``classes_[1]`` where ``decision_function(X) >= 0`` (sign(0) = +1), else ``classes_[0]``;
        with three classes or more, the class of the highest score (the first on a tie)."""
        scores = self.decision_function(X)
        if scores.ndim == 2:
            return self.classes_[np.argmax(scores, axis=1)]
        return self.classes_[(scores >= 0).astype(int)]

    # -- model files ------------------------------------------------------------------------

    def save_model(self, path):
        """Write the model file of ``novikoff train --save`` (for ``novikoff predict`` and ``score``),
        with the provenance of the last fit when ``coef_`` and ``intercept_`` are still, bit for bit,
        that fit's (weights set or changed by hand are saved without one). The file is written
        atomically (a temporary file renamed).

        Two classes make a ``"linear"`` model, whose labels are ±1: ``classes_[1]`` is +1. Unless
        the classes are the integers -1 and 1, the file also names them (``str(c)`` for each ``c`` in
        ``classes_``): ``novikoff predict`` then prints those names and ``novikoff score`` reads them,
        and :func:`load_model` gives the estimator its ``classes_`` back.

        Three classes or more make a ``"multiclass"`` model, as ``novikoff train --multiclass
        ovr|kesler --save``: the method (``multi_class``), the classes named ``str(c)`` for each
        ``c`` in ``classes_`` (the names must differ and not be empty), and one linear model per
        class. ``novikoff predict`` prints each row's class name and every class's score, the bits of
        ``decision_function``. After ``partial_fit`` with ``multi_class="ovr"`` (each class resumed as
        its own binary run) the file has no provenance; with ``"kesler"`` it has the last call's."""
        check_is_fitted(self)
        summation = getattr(self, "_summation", "fast")
        if len(self.classes_) > 2:
            _novikoff.save_multiclass_model(
                os.fspath(path),
                [str(c) for c in self.classes_],
                getattr(self, "_multi_class", self.multi_class),
                np.ascontiguousarray(self.coef_, dtype=np.float64),
                np.ascontiguousarray(self.intercept_, dtype=np.float64),
                summation,
                getattr(self, "_run_record", None),
            )
            return
        coef = np.ascontiguousarray(self.coef_, dtype=np.float64).reshape(-1)
        names = [str(c) for c in self.classes_]
        _novikoff.save_model(
            os.fspath(path),
            coef,
            float(self.intercept_[0]),
            summation,
            getattr(self, "_run_record", None),
            None if names == ["-1", "1"] else tuple(names),
        )


def _ovr_run(runs):
    """The binary runs of one-vs-rest's classes (class order) as one multi-class run, in the terms
    of ``fit_multiclass``. The library's provenance of a one-vs-rest run describes one run of
    ``OneVsRest::fit``, not classes resumed one by one, so the run has none; each class's bias
    constant and weight are its binary run's, as the library's model of one-vs-rest takes them."""
    finite = all(run["model_bias_constant"] is not None for run in runs)
    return _totals({
        "coef": np.vstack([run["w"] for run in runs]),
        "intercept": np.array([run["b"] for run in runs]),
        "last_coef": np.vstack([run["last_w"] for run in runs]),
        "last_intercept": np.array([run["last_b"] for run in runs]),
        "updates": [run["updates"] for run in runs],
        "mistakes": [run["mistakes"] for run in runs],
        "epochs": [run["epochs"] for run in runs],
        "converged": [run["converged"] for run in runs],
        "stop_reasons": [run["stop_reason"] for run in runs],
        "bias_constant": runs[0]["bias_constant"],
        "train_seconds": sum(run["train_seconds"] for run in runs),
        "fit_seconds": sum(run["fit_seconds"] for run in runs),
        "call_seconds": sum(run["call_seconds"] for run in runs),
        "provenance_json": None,
        "model_bias_constants": [run["model_bias_constant"] for run in runs] if finite else None,
        "model_bias_weights": [run["model_bias_weight"] for run in runs] if finite else None,
    })


def _totals(run):
    """A multi-class run's per-run counts (one-vs-rest's classes, or the multi-class perceptron's one
    run) as the estimator's: the most epochs (as scikit-learn counts them), the summed mistakes and
    updates, converged when every run did, and the first stop reason that is not convergence."""
    reasons = run["stop_reasons"]
    return dict(
        run,
        multi_class=True,
        epochs=int(np.max(run["epochs"])),
        mistakes=int(np.sum(run["mistakes"])),
        updates=int(np.sum(run["updates"])),
        converged=bool(all(run["converged"])),
        stop_reason=next((r for r in reasons if r != "converged"), reasons[0]),
    )
