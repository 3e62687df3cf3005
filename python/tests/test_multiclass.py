"""novikoff.Perceptron on three classes or more: one-vs-rest, bit-identical to scikit-learn's
Perceptron, and the multi-class perceptron, the CLI's run; partial_fit and the refusals."""

import contextlib
import json
import subprocess
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits, load_iris, make_blobs, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SkPerceptron

import novikoff
from novikoff import Perceptron


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def datasets():
    yield "iris", *load_iris(return_X_y=True)
    yield "digits", *load_digits(return_X_y=True)
    X, y = make_classification(n_samples=400, n_features=15, n_informative=8, n_classes=4,
                               random_state=2)
    yield "four classes", X, y
    X, y = make_blobs(n_samples=300, centers=5, n_features=6, random_state=3)
    yield "blobs", X, np.array(["v", "w", "x", "y", "z"])[y]


@contextlib.contextmanager
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


@pytest.mark.parametrize("name,X,y", list(datasets()), ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("max_iter", [1, 7, 1000])
def test_one_vs_rest_is_scikit_learns_multi_class_perceptron_bit_for_bit(name, X, y, max_iter):
    """scikit-learn's Perceptron learns k classes one-vs-rest, class r (+1) against the others (-1):
    with the sequential sum, every class's weights are the crate's bit for bit, and so are the
    predictions (the first highest score on a tie)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = Perceptron(summation="sequential", max_iter=max_iter).fit(X, y)
        theirs = SkPerceptron(eta0=1, penalty=None, shuffle=False, tol=None,
                              max_iter=max_iter).fit(X, y)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    assert ours.coef_.shape == theirs.coef_.shape == (len(theirs.classes_), X.shape[1])
    assert np.array_equal(bits(ours.coef_), bits(theirs.coef_))
    assert np.array_equal(bits(ours.intercept_), bits(theirs.intercept_))
    # scikit-learn scores with a matrix product (BLAS), the crate in the fitted summation order: the
    # scores agree to rounding, and the predictions on these data exactly.
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), rtol=1e-12,
                               atol=1e-12 * np.abs(theirs.decision_function(X)).max())
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    # A test that can fail: updates were made, and the classes' weights differ.
    assert ours.mistakes_ > 0 and not np.array_equal(ours.coef_[0], ours.coef_[1])
    if not ours.converged_:
        assert ours.n_iter_ == max_iter == theirs.n_iter_


def test_the_comparison_sees_each_class():
    """The test above can fail: a class trained on other labels (here, class 1's problem with one
    label changed) gives other weights for that class alone."""
    X, y = load_iris(return_X_y=True)
    ours = Perceptron(summation="sequential", max_iter=3).fit(X, y)
    changed = y.copy()
    changed[60] = 2
    other = Perceptron(summation="sequential", max_iter=3).fit(X, changed)
    differs = [not np.array_equal(bits(a), bits(b)) for a, b in zip(ours.coef_, other.coef_)]
    assert differs[1] and differs[2] and not differs[0]


@pytest.mark.parametrize("variant", ["perceptron", "averaged", "pocket", "pa1:0.5"])
def test_each_class_of_one_vs_rest_is_the_binary_estimators_run(variant):
    """One-vs-rest's class r is the binary estimator on (X, y == r), in every variant and both
    storages, with the last weights kept beside the variant's predictor."""
    X, y = load_iris(return_X_y=True)
    with quiet():
        multi = Perceptron(variant=variant, bias="novikoff", max_iter=4).fit(X, y)
        sparse = Perceptron(variant=variant, bias="novikoff", max_iter=4).fit(sp.csr_matrix(X), y)
        for r, label in enumerate(multi.classes_):
            binary = Perceptron(variant=variant, bias="novikoff", max_iter=4).fit(X, y == label)
            assert np.array_equal(bits(multi.coef_[r]), bits(binary.coef_[0]))
            assert np.array_equal(bits(multi.intercept_[r]), bits(binary.intercept_[0]))
            assert np.array_equal(bits(multi.last_coef_[r]), bits(binary.last_coef_[0]))
    assert multi.bias_constant_ == binary.bias_constant_ > 1  # R of the data
    assert multi.bias_weight_ is None
    np.testing.assert_array_equal(sparse.coef_, multi.coef_)


def test_the_multi_class_perceptron_is_the_clis_run(novikoff_bin, tmp_path):
    X, y = load_iris(return_X_y=True)
    path = tmp_path / "iris.csv"
    rows = ["a,b,c,d,class"] + [",".join([*map(repr, x), str(t)]) for x, t in zip(X.tolist(), y)]
    path.write_text("\n".join(rows) + "\n")
    for bias in ("none", "classic", "novikoff"):
        with quiet():
            p = Perceptron(multi_class="kesler", fit_intercept=bias != "none",
                           bias="classic" if bias == "none" else bias, max_iter=50).fit(X, y)
        out = subprocess.run(
            [novikoff_bin, "train", str(path), "--multiclass", "kesler", "--bias", bias,
             "--max-epochs", "50", "--format", "json"],
            check=True, capture_output=True, text=True,
        )
        run = json.loads(out.stdout)["run"]
        assert run["w"] == p.coef_.tolist() and run["b"] == p.intercept_.tolist()
        assert (run["mistakes"], run["epochs"]) == (p.mistakes_, p.n_iter_)
        assert run["stop_reason"] == p.stop_reason_
    # The multi-class perceptron separates the digits, which one-vs-rest's classes do not.
    X, y = load_digits(return_X_y=True)
    kesler = Perceptron(multi_class="kesler").fit(X, y)
    assert kesler.converged_ and kesler.score(X, y) == 1.0 and kesler.coef_.shape == (10, 64)


@pytest.mark.parametrize("multi_class", ["ovr", "kesler"])
def test_partial_fit_on_k_classes_resumes_the_run(multi_class):
    """Epochs of partial_fit on the whole data, from the first, are the epochs of fit (the cyclic
    order): the weights after each call are those of fit with max_iter calls."""
    X, y = load_iris(return_X_y=True)
    y = np.array(["setosa", "versicolor", "virginica"])[y]
    online = Perceptron(multi_class=multi_class, bias="novikoff", summation="sequential")
    for calls in range(1, 5):
        online.partial_fit(X, y, classes=np.unique(y) if calls == 1 else None)
        with quiet():
            whole = Perceptron(multi_class=multi_class, bias="novikoff", summation="sequential",
                               max_iter=calls).fit(X, y)
        np.testing.assert_array_equal(online.coef_, whole.coef_)
        # The bias weight is resumed as intercept_ / R, which may round in the last bit.
        np.testing.assert_allclose(online.intercept_, whole.intercept_, rtol=1e-14)
        assert online.n_iter_ == 1 and online.coef_.shape == (3, 4)
    assert not whole.converged_, "the test needs runs that go on"
    with pytest.raises(ValueError, match="not among classes"):
        online.partial_fit(X[:2], ["setosa", "rose"])


def test_k_classes_refusals_say_why(tmp_path):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="plain perceptron's updates"):
        Perceptron(multi_class="kesler", variant="averaged").fit(X, y)
    with pytest.raises(ValueError, match="averaged"):
        Perceptron(variant="voted").fit(X, y)
    with pytest.raises(ValueError, match="multi_class must be"):
        Perceptron(multi_class="ovo").fit(X, y)
    with quiet():
        fitted = Perceptron(max_iter=2).fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features"):
        fitted.predict(np.ones((2, 3)))
    bad = X.copy()
    bad[7, 2] = np.nan
    with pytest.raises(ValueError, match=r"row 7, column 2: value NaN is not finite"):
        Perceptron().fit(bad, y)


@pytest.mark.parametrize("multi_class", ["kesler", "ovr"])
def test_verify_on_k_classes_is_the_clis_verdict(multi_class, novikoff_bin, tmp_path):
    """novikoff.verify(..., multi_class=M) returns what `novikoff verify --multiclass M --format json`
    prints, timings aside, and a separable set passes."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(90, 3))
    W = np.array([[2.0, 0.0, 0.0], [-1.0, 1.7, 0.0], [-1.0, -1.7, 0.5]])
    y = np.argmax(X @ W.T, axis=1)
    path = tmp_path / "three.csv"
    rows = ["a,b,c,class"] + [",".join([*map(repr, x), str(t)]) for x, t in zip(X.tolist(), y)]
    path.write_text("\n".join(rows) + "\n")
    ours = novikoff.verify(X, y, rules=["none", "classic"], multi_class=multi_class,
                           source=str(path))
    out = subprocess.run(
        [novikoff_bin, "verify", str(path), "--multiclass", multi_class, "--rules", "none,classic",
         "--format", "json"],
        check=True, capture_output=True, text=True,
    )

    def untimed(value):
        if isinstance(value, dict):
            return {k: untimed(v) for k, v in value.items() if "seconds" not in k}
        if isinstance(value, list):
            return [untimed(v) for v in value]
        return value

    cli = json.loads(out.stdout)
    assert untimed(ours) == untimed(cli)
    assert ours["passed"] and ours["classes"] == ["0", "1", "2"] and len(ours["rules"]) == 2
    if multi_class == "kesler":
        assert ours["rules"][0]["margin_status"] == "separable"
    # Labels of any kind name the classes; a check that is for two classes is refused.
    named = novikoff.verify(X, np.array(["x", "y", "z"])[y], rules="classic", multi_class=multi_class)
    assert named["classes"] == ["x", "y", "z"] and named["passed"]
    with pytest.raises(ValueError, match="for two classes"):
        novikoff.verify(X, y, adversary=True, multi_class=multi_class)
    with pytest.raises(ValueError, match="ovr"):
        novikoff.verify(X, y, multi_class="ovo")
