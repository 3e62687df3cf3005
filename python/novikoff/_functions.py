"""The library's functions: the radius, the certified maximum margin, the theorem's checks and batch
experiments."""

import json
import os
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from . import _novikoff
from ._inputs import as_labels, as_matrix

__all__ = ["MarginResult", "experiment", "max_margin", "radius", "verify"]


def radius(X):
    """The radius ``R = max_i ||x_i||`` of the rows of ``X``, about the origin (never the centroid).

    ``X`` is a 2-D array or a SciPy sparse matrix; the crate checks it as it checks a data file
    (at least one row and one column, every value finite).

    >>> import numpy as np, novikoff
    >>> novikoff.radius(np.array([[3.0, 4.0], [1.0, 0.0]]))
    5.0
    """
    return _novikoff.radius(as_matrix(X))


@dataclass(frozen=True)
class MarginResult:
    """The certified maximum margin of a dataset (the crate's ``MarginResult``).

    ``status`` is ``"separable"`` (``gamma`` is known to the requested relative accuracy, with
    ``bracket[0] <= gamma* <= bracket[1]``; ``w`` is a unit normal, ``b`` its bias, ``support`` the
    rows on the margin), ``"not_separable"`` (``certificate`` proves that no separator exists: its
    ``weights`` on the rows make the classes' convex hulls meet, or put the origin in the hull of the
    ``y_i x_i`` through the origin; ``rows`` lists the rows by weight, ``residual`` bounds the
    rounding) or ``"inaccurate"`` (the solver missed the accuracy; the ``bracket`` is still rigorous
    and ``reason`` says why). ``separable`` is what the result proves: ``True`` (also for an
    inaccurate result whose separator separates), ``False`` with a certificate, ``None`` when an
    inaccurate solve could not tell.
    """

    status: str
    separable: Optional[bool]
    bias: str
    gamma: Optional[float]
    bracket: Optional[tuple]
    w: Optional[np.ndarray]
    b: Optional[float]
    support: Optional[list]
    certificate: Optional[dict]
    reason: Optional[str]
    radius: float
    n: int
    d: int
    passes: int
    rounds: int
    working_set: int
    solve_seconds: float = field(repr=False)


def max_margin(X, y, bias="free", tolerance=1e-6, working_set_mb=None):
    """The maximum margin ``gamma*`` of ``(X, y)`` with a certified bracket, or a certificate that no
    separator exists: the crate's ``margin::max_margin``, what ``novikoff margin`` prints.

    ``y`` holds the labels +1 and -1. ``bias`` is ``"free"`` (any hyperplane ``w.x + b = 0``; needs
    both classes) or ``"through_origin"``. ``tolerance`` is the largest accepted relative width of
    the bracket. ``working_set_mb`` is the memory budget of the solve's working set in MiB
    (``margin --working-set-mb``; ``None`` keeps the default of 128): past it the result is
    ``"inaccurate"`` with its rigorous bracket and a ``reason`` that names the budget. Returns a
    :class:`MarginResult`.

    >>> import numpy as np, novikoff
    >>> result = novikoff.max_margin(np.array([[1.0], [-3.0]]), np.array([1.0, -1.0]))
    >>> result.status, round(result.gamma, 9)
    ('separable', 2.0)
    """
    if bias not in ("free", "through_origin"):
        raise ValueError(f"bias must be 'free' or 'through_origin', got {bias!r}")
    out = _novikoff.max_margin(
        as_matrix(X),
        as_labels(y),
        bias=bias,
        tolerance=float(tolerance),
        working_set_mb=_budget(working_set_mb),
    )
    return MarginResult(
        status=out["status"],
        separable=out["separable"],
        bias=out["bias"],
        gamma=out.get("gamma"),
        bracket=out.get("bracket"),
        w=out.get("w"),
        b=out.get("b"),
        support=out.get("support"),
        certificate=out.get("certificate"),
        reason=out.get("reason"),
        radius=out["radius"],
        n=out["n"],
        d=out["d"],
        passes=out["passes"],
        rounds=out["rounds"],
        working_set=out["working_set"],
        solve_seconds=out["solve_seconds"],
    )


def _rule_name(rule):
    if isinstance(rule, str):
        return rule
    if isinstance(rule, (int, float, np.floating, np.integer)) and not isinstance(rule, bool):
        # repr is the shortest decimal that reads back to the same float, as the crate parses it.
        return f"c={float(rule)!r}"
    raise ValueError(
        f"a bias rule is 'none', 'classic', 'novikoff', 'c=VALUE' or a number c, got {rule!r}"
    )


def verify(
    X,
    y,
    rules=("none", "classic", "novikoff"),
    *,
    eta=1.0,
    shuffle=False,
    seed=0,
    max_epochs=1000,
    max_updates=None,
    summation="fast",
    steps=False,
    separator=None,
    separator_bias=0.0,
    adversary=False,
    restarts=8,
    source="<array>",
    working_set_mb=None,
    multi_class=None,
):
    """Train with each bias rule and check every form of the convergence theorem on the run.

    Returns the verdict of ``novikoff verify --format json`` as Python objects (the crate's
    ``Report::to_json``, parsed): ``n``, ``d``, ``radius``, ``separable`` (``True``, ``False`` when a
    verified certificate proves it, ``None`` when a margin solve was inaccurate), the four margins
    ``gamma``, a ``certificate`` when nothing separates, the ``geometry``, one entry of ``rules`` per
    rule (its run, every bound with its hypotheses, the proof's inequalities) and the verdict,
    ``passed`` and ``failures``. A failed check is reported there, not raised: only bad input and
    solver failures raise.

    ``rules`` names bias rules (``"none"``, ``"classic"``, ``"novikoff"``, ``"c=VALUE"``, or a
    number c). The other arguments are the CLI's options: ``shuffle`` with ``seed`` is
    ``--order shuffle --seed``; ``separator``/``separator_bias`` add the bounds of your separator;
    ``adversary`` searches for orders that force more mistakes (``restarts``, seeded by ``seed``);
    ``steps`` records every update's quantities of the proof; ``working_set_mb`` is
    ``--working-set-mb``, the margin solves' working-set budget. ``source`` fills the
    ``data`` field.

    ``multi_class="ovr"`` or ``"kesler"`` keeps every class of ``y`` (any labels, sorted as
    ``numpy.unique`` sorts them) and returns what ``novikoff verify --multiclass ovr|kesler --format
    json`` prints: ``classes`` (their names as text), ``multiclass``, one entry of ``rules`` per rule
    (one-vs-rest: every class's binary run with its own checks; the multi-class perceptron: its
    bounds on Kesler's lifted vectors, with the lifted margin, and the proof's inequalities in the
    lifted space), ``passed`` and ``failures``. ``steps``, ``separator`` and ``adversary`` are for
    two classes.

    >>> import numpy as np, novikoff
    >>> X = np.array([[-1, 2], [1, 0], [1, 1], [-1, 0], [-1, -2], [1, -1]], dtype=float)
    >>> y = np.array([-1, 1, 1, -1, -1, 1], dtype=float)
    >>> report = novikoff.verify(X, y, rules=["none"])
    >>> report["passed"], report["rules"][0]["mistakes"]
    (True, 3)
    """
    if isinstance(rules, (str, int, float)):
        rules = [rules]
    names = [_rule_name(rule) for rule in rules]
    runs = dict(
        rules=names,
        eta=float(eta),
        shuffle=bool(shuffle),
        seed=_seed(seed),
        max_epochs=_count(max_epochs, "max_epochs"),
        max_updates=None if max_updates is None else _count(max_updates, "max_updates"),
        summation=summation,
        source=str(source),
        working_set_mb=_budget(working_set_mb),
    )
    if multi_class is not None:
        if steps or separator is not None or adversary:
            raise ValueError(
                "steps, separator and adversary are for two classes; drop them with multi_class"
            )
        classes, indices = np.unique(np.asarray(y), return_inverse=True)
        text = _novikoff.verify_multiclass(
            as_matrix(X),
            np.ascontiguousarray(indices.reshape(-1), dtype=np.int64),
            classes=[str(c) for c in classes],
            method=str(multi_class),
            **runs,
        )
        return json.loads(text)
    if separator is not None:
        separator = np.ascontiguousarray(separator, dtype=np.float64)
        if separator.ndim != 1:
            raise ValueError("separator must be a 1-D vector of weights, one per feature")
    text = _novikoff.verify(
        as_matrix(X),
        as_labels(y),
        steps=bool(steps),
        separator=separator,
        separator_bias=float(separator_bias),
        adversary=bool(adversary),
        restarts=_count(restarts, "restarts"),
        **runs,
    )
    return json.loads(text)


def experiment(
    spec_path,
    out="results",
    *,
    threads=None,
    shard=None,
    resume=False,
    progress=True,
    plots=True,
):
    """Run a batch experiment from a TOML spec into the folder ``out``, as
    ``novikoff experiment SPEC --out OUT`` does, and return what its ``--format json`` prints:
    ``spec``, ``ran``, ``skipped``, ``failed``, ``threads``, ``seconds``, ``results_csv``,
    ``results_jsonl``, ``plots`` and the per-rule ``summary``.

    ``threads`` (default: every core), ``shard=(i, n)``, ``resume`` and ``plots`` are the CLI's
    options. Progress is the crate's progress bar on stderr (shown only on a terminal). When tasks
    fail, their rows are stored with their errors and the call raises the crate's error, as the CLI
    exits non-zero.
    """
    if shard is not None:
        index, count = shard
        shard = (_count(index, "shard index", minimum=0), _count(count, "shard count"))
    text = _novikoff.experiment(
        os.fspath(spec_path),
        os.fspath(out),
        threads=None if threads is None else _count(threads, "threads"),
        shard=shard,
        resume=bool(resume),
        progress=bool(progress),
        plots=bool(plots),
    )
    return json.loads(text)


def _count(value, name, minimum=1):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be a whole number of at least {minimum}, got {value!r}")
    return int(value)


def _budget(working_set_mb):
    return None if working_set_mb is None else _count(working_set_mb, "working_set_mb")


def _seed(value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not (
        0 <= value < 2**64
    ):
        raise ValueError(f"seed must be a whole number in [0, 2**64), got {value!r}")
    return int(value)
