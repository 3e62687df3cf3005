"""Model files shared by the CLI and the package: a model saved on one side predicts the same bits on
the other."""

import json
import subprocess
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import novikoff
from novikoff import Perceptron


def decisions_of_cli(novikoff_bin, model, data):
    out = subprocess.run([novikoff_bin, "predict", str(model), str(data)],
                         capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0] == "prediction,decision"
    return np.array([float(line.split(",")[1]) for line in lines[1:]])


def awkward_csv(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((50, 6)) * 10.0 ** rng.uniform(-3, 3, 6) / 3
    y = np.where(X @ rng.standard_normal(6) > 0, 1, -1)
    y[:3] = -y[:3]
    path = tmp_path / "awkward.csv"
    # repr writes the shortest decimal that reads back to the same float, as the crate's reader does.
    lines = ["a,b,c,d,e,f,label"] + [",".join(repr(float(v)) for v in row) + f",{t}"
                                     for row, t in zip(X, y)]
    path.write_text("\n".join(lines) + "\n")
    return X, y, path


@pytest.mark.parametrize("bias", ["classic", "novikoff", 0.37])
def test_a_python_model_predicts_the_same_bits_in_the_cli(tmp_path, novikoff_bin, bias):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    X, y, path = awkward_csv(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        p = Perceptron(bias=bias, eta0=0.1, max_iter=9).fit(X, y)
    model = tmp_path / "model.json"
    p.save_model(model)
    ours = p.decision_function(X)
    theirs = decisions_of_cli(novikoff_bin, model, path)
    assert np.array_equal(ours.view(np.uint64), theirs.view(np.uint64))
    loaded = novikoff.load_model(model)
    assert np.array_equal(loaded.decision_function(X).view(np.uint64), ours.view(np.uint64))
    assert loaded.bias_constant_ == p.bias_constant_ and loaded.mistakes_ == p.mistakes_


def test_a_cli_model_loads_as_a_fitted_estimator(tmp_path, novikoff_bin):
    X, y, path = awkward_csv(tmp_path)
    model = tmp_path / "cli.json"
    subprocess.run([novikoff_bin, "train", str(path), "--bias", "novikoff", "--eta", "0.3",
                    "--max-epochs", "12", "--save", str(model)], check=True, capture_output=True)
    loaded = novikoff.load_model(model)
    np.testing.assert_array_equal(loaded.classes_, [-1, 1])
    assert (loaded.bias, loaded.eta0, loaded.max_iter) == ("novikoff", 0.3, 12)
    ours = loaded.decision_function(X)
    theirs = decisions_of_cli(novikoff_bin, model, path)
    assert np.array_equal(ours.view(np.uint64), theirs.view(np.uint64))
    np.testing.assert_array_equal(loaded.predict(X), np.where(theirs >= 0, 1, -1))


def test_a_cli_kernel_model_is_refused_by_name(tmp_path, novikoff_bin):
    _, _, path = awkward_csv(tmp_path)
    model = tmp_path / "kernel.json"
    subprocess.run([novikoff_bin, "train", str(path), "--kernel", "rbf", "--kernel-gamma", "0.5",
                    "--max-epochs", "2", "--save", str(model)], check=True, capture_output=True)
    assert json.loads(model.read_text())["model"]["kind"] == "kernel"
    with pytest.raises(ValueError, match=r"kernel\.json: .*does not read `kernel` models"):
        novikoff.load_model(model)
    classes = tmp_path / "classes.csv"
    rows = path.read_text().splitlines()
    classes.write_text("\n".join([rows[0]] + [row.rsplit(",", 1)[0] + f",c{i % 3}"
                                               for i, row in enumerate(rows[1:])]) + "\n")
    subprocess.run([novikoff_bin, "train", str(classes), "--multiclass", "ovr", "--kernel", "rbf",
                    "--max-epochs", "2", "--save", str(model)], check=True, capture_output=True)
    with pytest.raises(ValueError, match=r"does not read `multiclass_kernel` models"):
        novikoff.load_model(model)


def test_bad_model_files_are_refused_by_name(tmp_path):
    p = Perceptron().fit([[1.0, 0.0], [-1.0, 0.5]], [1, -1])
    good = tmp_path / "m.json"
    p.save_model(good)
    text = good.read_text()
    for name, content, message in [
        ("cut.json", text[: len(text) // 2], "does not parse"),
        ("newer.json", text.replace('"format_version": 1', '"format_version": 2'), "newer"),
        ("kind.json", text.replace('"linear"', '"voted"'), "model kind `voted`"),
    ]:
        path = tmp_path / name
        path.write_text(content)
        with pytest.raises(ValueError, match=name):
            novikoff.load_model(path)
        with pytest.raises(ValueError, match=message):
            novikoff.load_model(path)
    with pytest.raises(FileNotFoundError):
        novikoff.load_model(tmp_path / "none.json")


def test_weights_set_by_hand_are_saved_without_provenance(tmp_path):
    p = Perceptron().fit([[1.0, 0.0], [-1.0, 0.5]], [1, -1])
    p.coef_ = np.array([[2.0, -1.0]])
    path = tmp_path / "hand.json"
    p.save_model(path)
    loaded = novikoff.load_model(path)
    np.testing.assert_array_equal(loaded.coef_, [[2.0, -1.0]])
    assert "provenance" not in path.read_text()


def test_weights_changed_in_place_are_saved_without_provenance(tmp_path):
    # coef_ is a view the user may write to: the file must not claim the run made these weights.
    p = Perceptron().fit([[1.0, 0.0], [-1.0, 0.5]], [1, -1])
    p.coef_[0, 0] += 1.0
    path = tmp_path / "changed.json"
    p.save_model(path)
    assert "provenance" not in path.read_text()
    np.testing.assert_array_equal(novikoff.load_model(path).coef_, p.coef_)


@pytest.mark.parametrize("variant", ["perceptron", "averaged"])
def test_a_saved_run_holds_the_clis_model_and_survives_a_load(tmp_path, novikoff_bin, variant):
    X, y, path = awkward_csv(tmp_path)
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        p = Perceptron(bias="novikoff", eta0=0.3, max_iter=12, variant=variant).fit(X, y)
    ours = tmp_path / "python.json"
    p.save_model(ours)
    cli = tmp_path / "cli.json"
    subprocess.run([novikoff_bin, "train", str(path), "--bias", "novikoff", "--eta", "0.3",
                    "--max-epochs", "12", "--variant", variant, "--save", str(cli)],
                   check=True, capture_output=True)
    python_file, cli_file = json.loads(ours.read_text()), json.loads(cli.read_text())
    assert python_file["model"] == cli_file["model"]
    assert python_file["provenance"]["learner"] == variant
    timing = {"train_seconds"}
    assert {k: v for k, v in python_file["provenance"]["run"].items() if k not in timing} == {
        k: v for k, v in cli_file["provenance"]["run"].items() if k not in timing
    }
    again = tmp_path / "again.json"
    novikoff.load_model(ours).save_model(again)
    assert again.read_text() == ours.read_text()


BINARY_LABELS = [
    (np.array([0, 1]), np.int64),
    (np.array([3, 7]), np.int64),
    (np.array([-1.0, 1.0]), np.float64),
    (np.array([0.0, 2.0]), np.float64),
    (np.array([False, True]), bool),
    (np.array(["ham", "spam, canned"]), str),
    (np.array(["0", "1"]), np.int64),  # names that read as integers come back as integers
]


@pytest.mark.parametrize("labels,dtype", BINARY_LABELS, ids=lambda v: str(v))
def test_a_binary_model_keeps_its_class_labels(tmp_path, novikoff_bin, labels, dtype):
    """Saved and loaded, an estimator of labels other than the integers ±1 predicts in its own labels,
    and the CLI prints and reads them."""
    X, y, path = awkward_csv(tmp_path)
    named = labels[(y > 0).astype(int)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        p = Perceptron(max_iter=7).fit(X, named)
    model = tmp_path / "model.json"
    p.save_model(model)
    assert json.loads(model.read_text())["model"]["classes"] == [str(c) for c in p.classes_]
    loaded = novikoff.load_model(model)
    assert loaded.classes_.dtype.kind == np.dtype(dtype).kind
    assert [str(c) for c in loaded.classes_] == [str(c) for c in p.classes_]
    assert [str(c) for c in loaded.predict(X)] == [str(c) for c in p.predict(X)]
    if labels.dtype.kind != "U" or dtype is str:
        np.testing.assert_array_equal(loaded.predict(X), p.predict(X))
        assert loaded.score(X, named) == p.score(X, named) < 1.0
    # Saved again, the file names the same classes.
    again = tmp_path / "again.json"
    loaded.save_model(again)
    assert json.loads(again.read_text())["model"] == json.loads(model.read_text())["model"]

    # The CLI predicts the names and scores the data labelled by them.
    out = subprocess.run([novikoff_bin, "predict", str(model), str(path)],
                         capture_output=True, text=True, check=True).stdout
    printed = [line.rsplit(",", 1)[0].strip('"') for line in out.splitlines()[1:]]
    assert printed == [str(c) for c in p.predict(X)]
    labelled = tmp_path / "named.csv"
    rows = path.read_text().splitlines()
    labelled.write_text("\n".join([rows[0]] + [
        row.rsplit(",", 1)[0] + f',"{c}"' for row, c in zip(rows[1:], named)]) + "\n")
    score = json.loads(subprocess.run(
        [novikoff_bin, "score", str(model), str(labelled), "--format", "json"],
        capture_output=True, text=True, check=True).stdout)
    assert score["classes"] == [str(c) for c in p.classes_]
    assert score["accuracy"] == p.score(X, named)


def test_a_model_of_the_labels_plus_and_minus_one_names_no_classes(tmp_path):
    X, y, _ = awkward_csv(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        p = Perceptron(max_iter=3).fit(X, y)
    model = tmp_path / "model.json"
    p.save_model(model)
    assert "classes" not in json.loads(model.read_text())["model"]
    np.testing.assert_array_equal(novikoff.load_model(model).classes_, [-1, 1])
