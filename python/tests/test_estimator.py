"""novikoff.Perceptron as a scikit-learn estimator: scikit-learn's own checks, bit-identity with
sklearn.linear_model.Perceptron, input handling, partial_fit."""

import pickle
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.utils.estimator_checks import parametrize_with_checks

import novikoff
from novikoff import Perceptron

# scikit-learn's estimator checks, every one of them, multi-class ones included (one-vs-rest, and the
# multi-class perceptron). None is marked as an expected failure.
EXPECTED_FAILED_CHECKS = {}


@parametrize_with_checks(
    [Perceptron(), Perceptron(fit_intercept=False, summation="sequential"),
     Perceptron(bias="novikoff", shuffle=True, random_state=3), Perceptron(variant="pa1:0.5"),
     Perceptron(multi_class="kesler", summation="sequential")],
    expected_failed_checks=lambda estimator: EXPECTED_FAILED_CHECKS,
)
def test_scikit_learn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def cancellation():
    """Rows where the order of the sum decides a mistake: with w = (1, 1, 1) and b = 0, the row
    (2^53, 1, -2^53) has the activation ((2^53 + 1) - 2^53) + 0 = 0 summed left to right (2^53 + 1
    rounds to 2^53), a mistake, but (2^53 - 2^53) + 1 = 1 in the fast order's tree, no mistake."""
    M = 2.0**53
    X = np.array([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [M, 1.0, -M], [-2.0, 0.5, 3.0]])
    return X, np.array([1, -1, 1, -1])


def datasets():
    X, y = make_classification(n_samples=300, n_features=12, n_informative=6, random_state=0)
    yield "make_classification", X, y
    X, y = make_classification(n_samples=200, n_features=5, class_sep=3.0, flip_y=0.0, random_state=1)
    yield "separable-ish", X, y
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast_cancer", X, y
    rng = np.random.default_rng(7)
    X = rng.standard_normal((150, 30)) * np.exp(rng.uniform(-5, 5, 30))
    yield "random", X, rng.integers(0, 2, 150)
    yield "cancellation", *cancellation()


@pytest.mark.parametrize("name,X,y", list(datasets()), ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("max_iter", [1, 7, 1000])
def test_bit_identical_to_scikit_learn_perceptron(name, X, y, max_iter):
    """With fit_intercept=True (the classic rule b += y) and the sequential sum, the weights are
    sklearn's bit for bit: both run the textbook loop, w·x summed left to right, then + b."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = Perceptron(fit_intercept=True, summation="sequential", max_iter=max_iter).fit(X, y)
        theirs = SkPerceptron(eta0=1, penalty=None, shuffle=False, tol=None, max_iter=max_iter).fit(X, y)
    assert np.array_equal(bits(ours.coef_), bits(theirs.coef_))
    assert np.array_equal(bits(ours.intercept_), bits(theirs.intercept_))
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    # A test that can fail: the runs made updates, and the weights are not trivially zero.
    assert ours.mistakes_ > 0 and np.any(ours.coef_ != 0)
    if not ours.converged_:
        assert ours.n_iter_ == max_iter == theirs.n_iter_


def test_the_comparison_sees_the_summation_order():
    """The bit-identity test above can fail: on data where the order of the sum decides a mistake,
    the fast order's weights are not scikit-learn's, and the sequential order's still are."""
    X, y = cancellation()
    sequential = Perceptron(summation="sequential", max_iter=5).fit(X, y)
    fast = Perceptron(summation="fast", max_iter=5).fit(X, y)
    theirs = SkPerceptron(eta0=1, penalty=None, shuffle=False, tol=None, max_iter=5).fit(X, y)
    assert np.array_equal(bits(sequential.coef_), bits(theirs.coef_))
    assert np.array_equal(bits(sequential.intercept_), bits(theirs.intercept_))
    assert not np.array_equal(bits(fast.coef_), bits(theirs.coef_))


def seed004():
    X = np.array([[-1, 2], [1, 0], [1, 1], [-1, 0], [-1, -2], [1, -1]], dtype=float)
    y = np.array([-1, 1, 1, -1, -1, 1])
    return X, y


def test_the_textbook_run_of_seed004():
    X, y = seed004()
    p = Perceptron(fit_intercept=False).fit(X, y)
    np.testing.assert_array_equal(p.coef_, [[3.0, 1.0]])
    assert (p.intercept_[0], p.mistakes_, p.n_iter_, p.converged_) == (0.0, 3, 2, True)
    assert p.stop_reason_ == "converged" and p.bias_constant_ == 0.0
    np.testing.assert_array_equal(p.predict(X), y)
    assert p.score(X, y) == 1.0


@pytest.mark.parametrize("bias,constant", [("classic", 1.0), ("novikoff", np.sqrt(5.0)), (0.5, 0.5)])
def test_every_bias_rule_matches_the_cli(bias, constant, novikoff_bin, data_dir, tmp_path):
    import json
    import subprocess

    X, y = seed004()
    p = Perceptron(bias=bias, summation="sequential").fit(X, y)
    assert p.bias_constant_ == constant
    assert p.intercept_[0] == constant * p.bias_weight_
    rule = bias if isinstance(bias, str) else f"c={bias}"
    out = subprocess.run(
        [novikoff_bin, "train", str(data_dir / "seed004.csv"), "--bias", rule,
         "--summation", "sequential", "--format", "json"],
        check=True, capture_output=True, text=True,
    )
    cli = json.loads(out.stdout)
    assert cli["w"] == p.coef_[0].tolist() and cli["b"] == p.intercept_[0]
    assert cli["mistakes"] == p.mistakes_ and cli["epochs"] == p.n_iter_


def test_a_shuffled_order_with_a_seed_is_the_cli_order(novikoff_bin, data_dir):
    import json
    import subprocess

    X, y = seed004()
    p = Perceptron(fit_intercept=False, shuffle=True, random_state=11).fit(X, y)
    assert p.seed_ == 11
    out = subprocess.run(
        [novikoff_bin, "train", str(data_dir / "seed004.csv"), "--order", "shuffle", "--seed", "11",
         "--format", "json"],
        check=True, capture_output=True, text=True,
    )
    cli = json.loads(out.stdout)
    assert cli["w"] == p.coef_[0].tolist() and cli["mistakes"] == p.mistakes_
    # random_state=None draws a seed and keeps it: the run can be repeated.
    drawn = Perceptron(fit_intercept=False, shuffle=True).fit(X, y)
    again = Perceptron(fit_intercept=False, shuffle=True, random_state=drawn.seed_).fit(X, y)
    np.testing.assert_array_equal(drawn.coef_, again.coef_)


def test_any_two_labels_and_the_classes_order():
    X, y = seed004()
    for labels in (np.where(y > 0, "yes", "no"), np.where(y > 0, 5, 2), np.where(y > 0, 3.0, -7.0),
                   y > 0, np.where(y > 0, 2**62 + 1, 2**62), np.where(y > 0, 0.0, -0.0) + (y > 0),
                   np.where(y > 0, 2, 1).astype(np.uint64)):
        p = Perceptron(fit_intercept=False).fit(X, labels)
        np.testing.assert_array_equal(p.classes_, np.unique(labels))
        assert p.classes_.dtype == np.unique(labels).dtype
        np.testing.assert_array_equal(p.coef_, [[3.0, 1.0]])
        np.testing.assert_array_equal(p.predict(X), labels)


def test_bad_targets_are_refused_with_a_reason():
    X, y = seed004()
    with pytest.raises(ValueError, match="Unknown label type"):
        Perceptron().fit(X, np.linspace(0, 1, 6))
    with pytest.raises(ValueError, match="only one class"):
        Perceptron().fit(X, np.ones(6))


def test_bad_x_gets_the_crates_message():
    X, y = seed004()
    X = X.copy()
    X[4, 1] = np.nan
    with pytest.raises(ValueError, match=r"^row 4, column 1: value NaN is not finite$"):
        Perceptron().fit(X, y)
    X[4, 1] = -np.inf
    with pytest.raises(ValueError, match=r"row 4, column 1: value -inf is not finite"):
        Perceptron().fit(sp.csr_matrix(X), y)
    fitted = Perceptron().fit(*seed004())
    with pytest.raises(ValueError, match="value -inf is not finite"):
        fitted.predict(X)
    with pytest.raises(ValueError, match="X has 3 features"):
        fitted.predict(np.ones((2, 3)))


@pytest.mark.parametrize("params", [dict(eta0=0.0), dict(eta0=-1.0), dict(eta0=np.nan),
                                    dict(max_iter=0), dict(max_updates=0), dict(bias="sometimes"),
                                    dict(bias=-1.0), dict(summation="pairwise"), dict(shuffle="yes"),
                                    dict(shuffle=True, random_state=-1)])
def test_bad_parameters_are_refused_at_fit(params):
    with pytest.raises(ValueError):
        Perceptron(**params).fit(*seed004())


def test_the_crates_parameter_message_reaches_python():
    with pytest.raises(ValueError, match="invalid parameter `eta`: the learning rate must be finite"):
        Perceptron(eta0=np.inf).fit(*seed004())


def test_dense_c_float64_is_read_in_place_and_others_are_converted():
    X, y = make_classification(n_samples=400, n_features=8, random_state=2)
    reference = Perceptron(max_iter=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reference.fit(X, y)
        for variant in (np.asfortranarray(X), X.tolist(),
                        sp.csr_matrix(X), sp.csc_matrix(X), sp.csr_array(X), sp.coo_matrix(X)):
            p = Perceptron(max_iter=20, summation="sequential").fit(variant, y)
            q = Perceptron(max_iter=20, summation="sequential").fit(X, y)
            np.testing.assert_array_equal(p.coef_, q.coef_)
        # float32 is converted once to float64 (the values of the float32 array, exactly).
        X32 = X.astype(np.float32)
        p = Perceptron(max_iter=20).fit(X32, y)
        q = Perceptron(max_iter=20).fit(X32.astype(np.float64), y)
        np.testing.assert_array_equal(p.coef_, q.coef_)


def test_sparse_training_is_the_dense_sequential_run():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((120, 40)) * (rng.random((120, 40)) < 0.1)
    y = (X @ rng.standard_normal(40) > 0).astype(int)
    dense = Perceptron(summation="sequential", max_iter=30).fit(X, y)
    # Unsorted indices and a duplicate entry: canonicalised (summed), in a copy.
    S = sp.csr_matrix(X)
    S.has_sorted_indices = False
    sparse = Perceptron(summation="sequential", max_iter=30).fit(S, y)
    np.testing.assert_array_equal(dense.coef_, sparse.coef_)  # equal up to the sign of zero
    np.testing.assert_array_equal(dense.decision_function(X), sparse.decision_function(S))
    dup = sp.csr_matrix((np.array([1.0, 2.0, -1.0]), np.array([0, 0, 1]), np.array([0, 2, 3])),
                        shape=(2, 2))
    p = Perceptron(fit_intercept=False).fit(dup, [1, -1])
    assert p.decision_function(np.array([[3.0, 0.0]]))[0] == 9.0  # x0 = (1 + 2, 0)


def test_partial_fit_is_one_epoch_from_the_current_weights():
    X, y = seed004()
    p = Perceptron(fit_intercept=False)
    p.partial_fit(X[:3], y[:3], classes=[-1, 1])
    p.partial_fit(X[3:], y[3:])
    # One pass in order over all six rows: the first epoch of fit, which ends at (3, 1).
    one_epoch = Perceptron(fit_intercept=False, max_iter=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        one_epoch.fit(X, y)
    np.testing.assert_array_equal(p.coef_, one_epoch.coef_)
    assert p.n_iter_ == 1
    with pytest.raises(ValueError, match="classes must be passed"):
        Perceptron().partial_fit(X, y)
    with pytest.raises(ValueError, match="not among classes"):
        p.partial_fit(X, y + 5)


def test_partial_fit_keeps_the_novikoff_constant_of_the_first_batch():
    X, y = seed004()
    p = Perceptron(bias="novikoff")
    p.partial_fit(X[:2], y[:2], classes=[-1, 1])
    c = p.bias_constant_
    assert c == np.sqrt(5.0)  # R of the first two rows: ||(-1, 2)||
    p.partial_fit(X[2:], y[2:])
    assert p.bias_constant_ == c


def test_non_convergence_warns_and_says_why():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([1, -1, -1, 1])
    with pytest.warns(ConvergenceWarning, match="epoch_cap"):
        p = Perceptron(max_iter=9).fit(X, y)
    assert (p.converged_, p.n_iter_, p.stop_reason_) == (False, 9, "epoch_cap")


def test_pickle_and_clone_keep_the_model():
    X, y = seed004()
    p = Perceptron(bias="novikoff").fit(X, y)
    q = pickle.loads(pickle.dumps(p))
    np.testing.assert_array_equal(q.decision_function(X), p.decision_function(X))


def test_the_fit_reads_the_array_in_place():
    """No copy of X: the crate's dataset reads the array's memory (checked through what a copy would
    not see: the fit holds a reference to the array while it runs, and the Rust side refuses a
    non-contiguous view instead of copying it)."""
    X, y = make_classification(n_samples=50, n_features=4, random_state=0)
    from novikoff import _novikoff

    run = _novikoff.fit(
        np.ascontiguousarray(X), np.where(y > 0, 1.0, -1.0), target="signs", bias="none", eta=1.0, shuffle=False,
        seed=0, max_epochs=5, max_updates=None, summation="fast",
    )
    assert run["epochs"] >= 1
    with pytest.raises(ValueError, match="C-contiguous"):
        _novikoff.fit(
            np.asfortranarray(X), np.where(y > 0, 1.0, -1.0), target="signs", bias="none", eta=1.0, shuffle=False,
            seed=0, max_epochs=5, max_updates=None, summation="fast",
        )


def test_estimator_repr_and_params():
    p = Perceptron(bias="novikoff", eta0=0.5)
    assert p.get_params()["bias"] == "novikoff"
    p.set_params(summation="sequential")
    assert "summation='sequential'" in repr(p)
    assert novikoff.__version__


def noisy_file(tmp_path):
    """A non-separable set (the last rows sit on the wrong side), as arrays and as a CSV file."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 3))
    y = np.where(X @ [1.0, -2.0, 0.5] + 0.3 > 0, 1.0, -1.0)
    y[-6:] *= -1
    path = tmp_path / "noisy.csv"
    rows = ["x1,x2,x3,y"] + [",".join(map(repr, [*x, int(t)])) for x, t in zip(X.tolist(), y)]
    path.write_text("\n".join(rows) + "\n")
    return X, y, path


@pytest.mark.parametrize("variant", ["averaged", "pocket", "margin:0.5", "pa", "pa1:0.5", "pa2:2"])
def test_every_variant_is_the_clis_run(variant, novikoff_bin, tmp_path):
    import json
    import subprocess

    X, y, path = noisy_file(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        p = Perceptron(variant=variant, max_iter=5, bias="novikoff").fit(X, y)
    out = subprocess.run(
        [novikoff_bin, "train", str(path), "--variant", variant, "--max-epochs", "5",
         "--bias", "novikoff", "--format", "json"],
        check=True, capture_output=True, text=True,
    )
    cli = json.loads(out.stdout)
    assert cli["w"] == p.last_coef_[0].tolist() and cli["b"] == p.last_intercept_[0]
    assert (cli["mistakes"], cli["updates"]) == (p.mistakes_, p.updates_)
    own = cli["predictor_weights"] or {"w": cli["w"], "b": cli["b"]}
    assert own["w"] == p.coef_[0].tolist() and own["b"] == p.intercept_[0]
    if variant in ("averaged", "pocket"):
        assert not np.array_equal(p.coef_, p.last_coef_), "the test needs predictors that differ"
    # The saved model is the variant's predictor, and names the variant.
    model = tmp_path / "model.json"
    p.save_model(model)
    assert json.loads(model.read_text())["provenance"]["learner"] == variant
    np.testing.assert_array_equal(novikoff.load_model(model).decision_function(X), p.decision_function(X))


def test_the_voted_variant_and_partial_fit_of_a_whole_run_are_refused(tmp_path):
    X, y, _ = noisy_file(tmp_path)
    with pytest.raises(ValueError, match="averaged"):
        Perceptron(variant="voted").fit(X, y)
    with pytest.raises(ValueError, match="variant"):
        Perceptron(variant="bogus").fit(X, y)
    with pytest.raises(ValueError, match="partial_fit is not offered"):
        Perceptron(variant="averaged").partial_fit(X, y, classes=[-1.0, 1.0])
    with pytest.raises(ValueError, match="eta"):
        Perceptron(variant="pa", eta0=0.5).fit(X, y)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_a_csr_matrix_with_a_negative_index_is_refused_by_name(index_dtype):
    # scipy checks the indices only on request; the crate checks them as it converts them.
    X = sp.csr_matrix(
        (np.array([1.0, 2.0, 3.0]), np.array([0, -1, 1], dtype=index_dtype),
         np.array([0, 2, 3], dtype=index_dtype)),
        shape=(2, 3),
    )
    X.has_canonical_format = True
    with pytest.raises(ValueError, match="indices has the entry -1"):
        Perceptron().fit(X, [1, -1])
    X.indices[1] = 2
    fitted = Perceptron(max_iter=3).fit(X, [1, -1])
    np.testing.assert_array_equal(fitted.coef_, [[1.0, -3.0, 2.0]])


def test_a_csr_matrix_is_read_in_place_with_the_bits_of_a_converted_one():
    rng = np.random.default_rng(3)
    X = sp.random(300, 60, density=0.1, format="csr", random_state=rng, dtype=np.float64)
    y = np.where(X @ rng.normal(size=60) >= 0, 1.0, -1.0)
    assert X.indices.dtype == np.int32
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    # int64 indices are converted into the crate's storage; int32 ones are read in place.
    X64 = X.copy()
    X64.indices, X64.indptr = X.indices.astype(np.int64), X.indptr.astype(np.int64)
    assert X64.indices.dtype == np.int64
    for summation in ["sequential", "fast"]:
        shared = Perceptron(max_iter=4, summation=summation).fit(X, y)
        converted = Perceptron(max_iter=4, summation=summation).fit(X64, y)
        assert np.array_equal(bits(shared.coef_), bits(converted.coef_))
        assert shared.intercept_[0] == converted.intercept_[0] and shared.mistakes_ == converted.mistakes_
        assert np.array_equal(bits(shared.decision_function(X)), bits(converted.decision_function(X64)))
    for mine, kept in zip((X.data, X.indices, X.indptr), before):
        assert np.array_equal(mine, kept)


@pytest.mark.parametrize(
    "indices, data, message",
    [
        ([2, 0, 1], [1.0, 2.0, 3.0], "row 0: stored entry 1: column index 0 follows 2"),
        ([0, 1, 3], [1.0, 2.0, 3.0], "row 1: stored entry 2: column index 3 is beyond the 3 columns"),
        ([0, 2, 1], [1.0, 2.0, np.nan], "row 1, column 1: value NaN is not finite"),
    ],
)
def test_a_malformed_csr_matrix_read_in_place_is_refused_at_its_row_and_entry(indices, data, message):
    X = sp.csr_matrix(
        (np.array(data), np.array(indices, dtype=np.int32), np.array([0, 2, 3], dtype=np.int32)),
        shape=(2, 3),
    )
    # Claimed canonical, so that the package passes it on as it is (scipy checks only on request).
    X.has_canonical_format = True
    with pytest.raises(ValueError, match=re.escape(message)):
        Perceptron().fit(X, [1, -1])
