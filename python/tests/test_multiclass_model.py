"""Multi-class model files ("kind": "multiclass") shared by the CLI and the package: an estimator of
three classes or more saved on one side predicts the same classes and score bits on the other, and
reads back into an estimator that predicts, saves and resumes as the one that wrote it."""

import contextlib
import json
import pickle
import subprocess
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

import novikoff
from novikoff import Perceptron

NAMES = np.array(["ant", "bee", "cat", "dog"])
NUMBERS = np.array([-3, 0, 9, 10])  # sorted by value, not as text ("-3" < "0" < "10" < "9")


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


@contextlib.contextmanager
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def four_classes(labels="int", sparse=False):
    """Four classes that are not linearly separable, on features of very different scales (so the
    summation order shows in the last bits), a third of the values zero for the sparse storage."""
    rng = np.random.default_rng(11)
    X = rng.standard_normal((120, 6)) * 10.0 ** rng.uniform(-2, 2, 6)
    X[rng.random(X.shape) < 0.3] = 0.0
    W = rng.standard_normal((4, 6)) / 10.0 ** rng.uniform(-2, 2, 6)
    index = np.argmax(X @ W.T, axis=1)
    index[:6] = (index[:6] + 1) % 4
    y = (NAMES if labels == "str" else NUMBERS)[index]
    return (sp.csr_matrix(X) if sparse else X), y, X


def write_csv(path, X, y):
    # repr writes the shortest decimal that reads back to the same float, as the crate's reader does.
    rows = ["a,b,c,d,e,f,class"] + [",".join([*map(repr, x), str(t)]) for x, t in zip(X.tolist(), y)]
    path.write_text("\n".join(rows) + "\n")
    return path


def write_data(tmp_path, X, y, sparse):
    """The data as the CLI reads them, and the flags that keep its storage the estimator's."""
    if not sparse:
        return write_csv(tmp_path / "data.csv", X, y), []
    # LIBSVM by hand: scikit-learn's writer takes numeric targets only and rounds values to 16 digits.
    path = tmp_path / "data.svm"
    rows = [" ".join([str(t)] + [f"{j + 1}:{v!r}" for j, v in enumerate(x) if v != 0.0])
            for x, t in zip(X.tolist(), y)]
    path.write_text("\n".join(rows) + "\n")
    return path, ["--storage", "sparse", "--features", str(X.shape[1])]


def cli_predictions(novikoff_bin, model, data, flags=()):
    """The classes and the scores (k columns) that `novikoff predict` prints, and its header."""
    out = subprocess.run([novikoff_bin, "predict", str(model), str(data), *flags],
                         capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    rows = [line.split(",") for line in lines[1:]]
    return lines[0].split(","), [r[0] for r in rows], np.array([[float(v) for v in r[1:]] for r in rows])


# (multi_class, variant, bias as the estimator takes it, as the CLI takes it)
SETTINGS = [
    ("ovr", "perceptron", "classic", "classic"),
    ("ovr", "averaged", "novikoff", "novikoff"),
    ("ovr", "pocket", 0.37, "c=0.37"),
    ("ovr", "pa1:0.5", None, "none"),
    ("kesler", "perceptron", "classic", "classic"),
    ("kesler", "perceptron", "novikoff", "novikoff"),
    ("kesler", "perceptron", None, "none"),
    ("kesler", "perceptron", 2.5, "c=2.5"),
]


def eta(variant):
    return 1.0 if variant.startswith("pa") else 0.3  # PA chooses its own step, with eta 1


def estimator(multi_class, variant, bias):
    return Perceptron(multi_class=multi_class, variant=variant, fit_intercept=bias is not None,
                      bias="classic" if bias is None else bias, eta0=eta(variant), max_iter=9)


@pytest.mark.parametrize("labels", ["int", "str"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("multi_class,variant,bias,_", SETTINGS)
def test_a_saved_multi_class_estimator_loads_back_as_itself(tmp_path, multi_class, variant, bias, _,
                                                             sparse, labels):
    X, y, _dense = four_classes(labels, sparse)
    with quiet():
        p = estimator(multi_class, variant, bias).fit(X, y)
    path = tmp_path / "model.json"
    p.save_model(path)
    written = json.loads(path.read_text())
    model = written["model"]
    assert (model["kind"], model["method"], model["n_features"]) == ("multiclass", multi_class, 6)
    assert model["classes"] == [str(c) for c in p.classes_]
    assert written["provenance"]["learner"] == variant
    assert written["provenance"]["data"]["class_counts"] == np.unique(y, return_counts=True)[1].tolist()
    assert written["provenance"]["data"]["storage"] == ("sparse" if sparse else "dense")
    for r, m in enumerate(model["models"]):
        assert m["w"] == p.coef_[r].tolist() and m["b"] == p.intercept_[r]
        # b = c·v as the library's model of the run has them (the rule's c; 1 for the averaged and
        # pocket predictors, which the library keeps as w and b).
        own = variant in ("averaged", "pocket")
        assert m["bias_constant"] == (1.0 if own else p.bias_constant_)
    loaded = novikoff.load_model(path)
    assert loaded.classes_.dtype == (np.int64 if labels == "int" else NAMES.dtype)
    np.testing.assert_array_equal(loaded.classes_, p.classes_)
    assert (loaded.multi_class, loaded.variant, loaded.summation) == (multi_class, variant, "fast")
    assert (loaded.fit_intercept, loaded.eta0, loaded.max_iter) == (bias is not None, eta(variant), 9)
    if bias is not None:
        assert loaded.bias == bias
    assert np.array_equal(bits(loaded.coef_), bits(p.coef_))
    assert np.array_equal(bits(loaded.intercept_), bits(p.intercept_))
    assert loaded.n_features_in_ == 6 and loaded.bias_weight_ is None
    assert (loaded.n_iter_, loaded.mistakes_, loaded.converged_, loaded.stop_reason_) == (
        p.n_iter_, p.mistakes_, p.converged_, p.stop_reason_)
    assert not p.converged_ and p.mistakes_ > 0, "the test needs a run that goes on"
    assert np.array_equal(bits(loaded.decision_function(X)), bits(p.decision_function(X)))
    np.testing.assert_array_equal(loaded.predict(X), p.predict(X))
    again = tmp_path / "again.json"
    loaded.save_model(again)
    assert json.loads(again.read_text()) == written
    # The record of the run survives a pickle (the estimator is kept that way too).
    pickled = tmp_path / "pickled.json"
    pickle.loads(pickle.dumps(p)).save_model(pickled)
    assert json.loads(pickled.read_text()) == written


@pytest.mark.parametrize("labels", ["int", "str"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("multi_class,variant,bias,cli_bias", SETTINGS)
def test_a_python_model_is_the_clis_and_predicts_the_same_bits(tmp_path, novikoff_bin, multi_class,
                                                               variant, bias, cli_bias, sparse,
                                                               labels):
    X, y, dense = four_classes(labels, sparse)
    data, flags = write_data(tmp_path, dense, y, sparse)
    with quiet():
        p = estimator(multi_class, variant, bias).fit(X, y)
    ours = tmp_path / "python.json"
    p.save_model(ours)
    header, classes, scores = cli_predictions(novikoff_bin, ours, data, flags)
    assert header == ["prediction"] + [f"decision:{c}" for c in p.classes_]
    assert classes == [str(c) for c in p.predict(X)]
    assert np.array_equal(bits(scores), bits(p.decision_function(X)))
    # The CLI's run of the same training writes the same model, and the same provenance but for
    # the data's path and the timings.
    cli = tmp_path / "cli.json"
    subprocess.run([novikoff_bin, "train", str(data), "--multiclass", multi_class, "--bias", cli_bias,
                    "--eta", str(eta(variant)), "--max-epochs", "9", "--variant", variant, *flags,
                    "--save", str(cli)], check=True, capture_output=True)
    python_file, cli_file = json.loads(ours.read_text()), json.loads(cli.read_text())
    assert python_file["model"] == cli_file["model"]

    def untimed(provenance):
        data = {k: v for k, v in provenance["data"].items() if k != "source"}
        run = {k: v for k, v in provenance["run"].items() if k != "train_seconds"}
        return provenance["learner"], provenance["params"], data, run

    assert untimed(python_file["provenance"]) == untimed(cli_file["provenance"])


@pytest.mark.parametrize("multi_class", ["ovr", "kesler"])
@pytest.mark.parametrize("labels", ["int", "str"])
def test_a_cli_model_loads_and_predicts_what_the_cli_prints(tmp_path, novikoff_bin, multi_class,
                                                            labels):
    X, y, _ = four_classes(labels)
    data = write_csv(tmp_path / "data.csv", X, y)
    model = tmp_path / "cli.json"
    subprocess.run([novikoff_bin, "train", str(data), "--multiclass", multi_class, "--bias",
                    "novikoff", "--eta", "0.3", "--max-epochs", "12", "--summation", "sequential",
                    "--save", str(model)], check=True, capture_output=True)
    loaded = novikoff.load_model(model)
    assert (loaded.multi_class, loaded.bias, loaded.eta0, loaded.max_iter) == (
        multi_class, "novikoff", 0.3, 12)
    assert loaded.summation == "sequential"
    assert loaded.classes_.dtype == (np.int64 if labels == "int" else NAMES.dtype)
    np.testing.assert_array_equal(loaded.classes_, np.unique(y))
    _, classes, scores = cli_predictions(novikoff_bin, model, data)
    assert [str(c) for c in loaded.predict(X)] == classes
    assert np.array_equal(bits(loaded.decision_function(X)), bits(scores))
    assert loaded.score(X, y) < 1.0, "the test needs rows the model gets wrong"
    # Written back, the file's model and provenance are unchanged.
    again = tmp_path / "again.json"
    loaded.save_model(again)
    cli_file, python_file = json.loads(model.read_text()), json.loads(again.read_text())
    assert python_file["model"] == cli_file["model"]
    assert python_file["provenance"] == cli_file["provenance"]


def test_class_names_read_as_numbers_only_when_written_as_numbers(tmp_path):
    X, y, _ = four_classes()
    cases = [
        (NUMBERS, np.int64, NUMBERS),
        (np.array(["01", "1", "2", "3"]), str, ["01", "1", "2", "3"]),  # "01" is not int("01")'s text
        (np.array([-1.0, 0.0, 2.0, 3.0]), np.float64, [-1.0, 0.0, 2.0, 3.0]),
        (np.array([-1.0, 0.0, 2.0, 1e15]), np.float64, [-1.0, 0.0, 2.0, 1e15]),
        (np.array(["-1.0", "0", "2.0", "3.0"]), str, ["-1.0", "0", "2.0", "3.0"]),  # mixed forms
        (np.array([2**63 - 1, -(2**63), 0, 1], dtype=np.int64), np.int64, None),
    ]
    for classes, dtype, names in cases:
        with quiet():
            p = Perceptron(max_iter=3).fit(X, classes[np.searchsorted(NUMBERS, y)])
        path = tmp_path / "model.json"
        p.save_model(path)
        loaded = novikoff.load_model(path)
        assert loaded.classes_.dtype.kind == np.dtype(dtype).kind, classes
        expected = names if names is not None else p.classes_
        np.testing.assert_array_equal(loaded.classes_, expected)
        assert [str(c) for c in loaded.predict(X)] == [str(c) for c in p.predict(X)]
    # A name beyond 64 bits stays a string.
    text = path.read_text().replace(f'"{2**63 - 1}"', f'"{2**64}"')
    path.write_text(text)
    assert novikoff.load_model(path).classes_.dtype.kind == "U"


@pytest.mark.parametrize("multi_class", ["ovr", "kesler"])
def test_a_loaded_estimator_resumes_with_partial_fit(tmp_path, multi_class):
    """fit with max_iter=2, saved and loaded, then one partial_fit epoch is fit with max_iter=3 (the
    cyclic order; with the classic rule c = 1 the bias weight resumes exactly)."""
    X, y, _ = four_classes("str")
    with quiet():
        two = Perceptron(multi_class=multi_class, max_iter=2).fit(X, y)
        three = Perceptron(multi_class=multi_class, max_iter=3).fit(X, y)
    assert not three.converged_ and not np.array_equal(two.coef_, three.coef_)
    path = tmp_path / "two.json"
    two.save_model(path)
    loaded = novikoff.load_model(path).partial_fit(X, y)
    assert np.array_equal(bits(loaded.coef_), bits(three.coef_))
    assert np.array_equal(bits(loaded.intercept_), bits(three.intercept_))
    np.testing.assert_array_equal(loaded.predict(X), three.predict(X))
    # The classes in the file's order, unsorted: the same model with its columns reversed resumes
    # to the same weights, reversed.
    text = json.loads(path.read_text())
    text["model"]["classes"].reverse()
    text["model"]["models"].reverse()
    reversed_path = tmp_path / "reversed.json"
    reversed_path.write_text(json.dumps(text))
    reversed_model = novikoff.load_model(reversed_path)
    np.testing.assert_array_equal(reversed_model.classes_, NAMES[::-1])
    np.testing.assert_array_equal(reversed_model.predict(X), two.predict(X))
    reversed_model.partial_fit(X, y)
    assert np.array_equal(bits(reversed_model.coef_[::-1]), bits(three.coef_))


def test_after_partial_fit_the_file_describes_the_newest_weights(tmp_path):
    X, y, _ = four_classes()
    with quiet():
        kesler = Perceptron(multi_class="kesler", bias="novikoff", max_iter=2).fit(X, y)
        ovr = Perceptron(multi_class="ovr", bias="novikoff", max_iter=2).fit(X, y)
    for p in (kesler, ovr):
        before = p.coef_.copy()
        p.partial_fit(X[:40], y[:40])
        assert not np.array_equal(before, p.coef_)
        path = tmp_path / f"{p.multi_class}.json"
        p.save_model(path)
        written = json.loads(path.read_text())
        loaded = novikoff.load_model(path)
        assert np.array_equal(bits(loaded.coef_), bits(p.coef_))
        assert np.array_equal(bits(loaded.intercept_), bits(p.intercept_))
        for m in written["model"]["models"]:
            # The rule's constant R of the first fit, kept by partial_fit, not 1 as by hand.
            assert m["bias_constant"] == p.bias_constant_ != 1.0
    # The multi-class perceptron's last call is one run of the library, with its provenance.
    provenance = json.loads((tmp_path / "kesler.json").read_text())["provenance"]
    assert provenance["params"]["warm_start"] and provenance["params"]["max_epochs"] == 1
    assert provenance["data"]["n"] == 40 and provenance["run"]["mistakes"] == kesler.mistakes_
    # One-vs-rest resumes each class as its own binary run, which no one-vs-rest provenance describes.
    assert "provenance" not in json.loads((tmp_path / "ovr.json").read_text())


@pytest.mark.parametrize("multi_class", ["ovr", "kesler"])
def test_weights_set_by_hand_are_saved_without_provenance(tmp_path, multi_class):
    X, y, _ = four_classes("str")
    edits = {
        "unchanged": lambda p: None,
        "coef replaced": lambda p: setattr(p, "coef_", p.coef_ * 2.0),
        "coef changed in place": lambda p: p.coef_.__setitem__((2, 3), p.coef_[2, 3] + 1.0),
        "intercept changed in place": lambda p: p.intercept_.__setitem__(0, p.intercept_[0] - 1.0),
    }
    for name, edit in edits.items():
        with quiet():
            p = Perceptron(multi_class=multi_class, bias="novikoff", max_iter=4).fit(X, y)
        edit(p)
        path = tmp_path / "model.json"
        p.save_model(path)
        written = json.loads(path.read_text())
        assert ("provenance" in written) == (name == "unchanged"), name
        if name != "unchanged":
            for r, m in enumerate(written["model"]["models"]):
                assert (m["bias_constant"], m["bias_weight"]) == (1.0, p.intercept_[r]), name
        loaded = novikoff.load_model(path)
        assert np.array_equal(bits(loaded.coef_), bits(p.coef_)), name
        assert np.array_equal(bits(loaded.decision_function(X)), bits(p.decision_function(X))), name


def test_bad_multi_class_files_are_refused_by_name(tmp_path):
    X, y, _ = four_classes("str")
    with quiet():
        p = Perceptron(multi_class="kesler", max_iter=3).fit(X, y)
    good = tmp_path / "m.json"
    p.save_model(good)
    text = good.read_text()
    document = json.loads(text)

    def edited(change):
        copy = json.loads(text)
        change(copy["model"])
        return json.dumps(copy)

    sequential = edited(lambda m: m["models"][2].__setitem__("summation", "sequential"))
    assert json.loads(sequential) != document
    for name, content, message in [
        ("cut.json", text[: len(text) // 2], "does not parse"),
        ("kind.json", text.replace('"multiclass"', '"ensemble"'), "model kind `ensemble`"),
        ("twice.json", edited(lambda m: m["classes"].__setitem__(1, "ant")), "named twice"),
        ("short.json", edited(lambda m: m["models"].pop()), "one model per class"),
        ("method.json", edited(lambda m: m.__setitem__("method", "ovo")), "ovo"),
        ("summation.json", sequential, "one summation order"),
    ]:
        path = tmp_path / name
        path.write_text(content)
        with pytest.raises(ValueError, match=name):
            novikoff.load_model(path)
        with pytest.raises(ValueError, match=message):
            novikoff.load_model(path)
    assert np.array_equal(novikoff.load_model(good).coef_, p.coef_)


def test_classes_without_a_name_are_refused_at_save(tmp_path):
    X, y, _ = four_classes("str")
    with quiet():
        p = Perceptron(max_iter=2).fit(X, np.where(y == "ant", "", y))
    with pytest.raises(ValueError, match="empty name"):
        p.save_model(tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()
