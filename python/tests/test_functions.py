"""The library's functions from Python: the radius, the certified margin, verify (the CLI's JSON),
experiments; and the crate's errors as Python exceptions."""

import json
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp

import novikoff

SEED004_X = np.array([[-1, 2], [1, 0], [1, 1], [-1, 0], [-1, -2], [1, -1]], dtype=float)
SEED004_Y = np.array([-1, 1, 1, -1, -1, 1], dtype=float)
XOR_X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
XOR_Y = np.array([1, -1, -1, 1], dtype=float)


def test_radius_about_the_origin_dense_and_sparse():
    assert novikoff.radius(SEED004_X) == np.sqrt(5.0)
    assert novikoff.radius(sp.csr_matrix(SEED004_X)) == np.sqrt(5.0)
    # Never about the centroid: shifting the data changes R.
    assert novikoff.radius(SEED004_X + 10) > 13
    assert novikoff.radius([[3, 4]]) == 5.0


def test_columns_beyond_the_32_bit_index_are_refused():
    # scipy itself switches to int64 indices here; the crate stores 32-bit ones and says so.
    wide = sp.csr_matrix((np.array([1.0, 2.0]), np.array([0, 2_999_999_999]), np.array([0, 1, 2])),
                         shape=(2, 3_000_000_000))
    with pytest.raises(ValueError, match="32-bit column indices"):
        novikoff.radius(wide)
    assert novikoff.radius(sp.csr_matrix(([3.0, 4.0], [0, 2_147_483_646], [0, 1, 2]),
                                         shape=(2, 2_147_483_647))) == 4.0


def test_max_margin_of_seed004_is_certified():
    result = novikoff.max_margin(SEED004_X, SEED004_Y, bias="through_origin")
    assert result.status == "separable" and result.separable
    lower, upper = result.bracket
    assert lower <= 1.0 <= upper and upper - lower < 1e-9
    assert np.isclose(np.linalg.norm(result.w), 1.0) and result.b == 0.0
    margins = SEED004_Y * (SEED004_X @ result.w + result.b)
    assert margins.min() >= lower * (1 - 1e-12)
    assert result.support and result.certificate is None


def test_max_margin_of_xor_is_a_checkable_certificate():
    result = novikoff.max_margin(XOR_X, XOR_Y)
    assert result.status == "not_separable" and not result.separable
    c = result.certificate
    weights = c["weights"]
    positive, negative = XOR_Y > 0, XOR_Y < 0
    # A mix of the positive rows equals a mix of the negative rows: the hulls meet.
    p = weights[positive] @ XOR_X[positive]
    q = weights[negative] @ XOR_X[negative]
    assert np.isclose(weights[positive].sum(), 1) and np.isclose(weights[negative].sum(), 1)
    assert np.linalg.norm(p - q) <= c["residual"] + 1e-15
    assert sorted(c["rows"]) == [0, 1, 2, 3]


def test_max_margin_of_sparse_data_equals_dense():
    dense = novikoff.max_margin(SEED004_X, SEED004_Y)
    sparse = novikoff.max_margin(sp.csr_matrix(SEED004_X), SEED004_Y)
    assert sparse.status == dense.status
    assert np.isclose(sparse.gamma, dense.gamma, rtol=1e-9)


def test_input_checks_are_the_crates():
    with pytest.raises(ValueError, match=r"^row 1: label 0 is not \+1 or -1$"):
        novikoff.max_margin(SEED004_X, np.array([1, 0, 1, -1, -1, 1.0]))
    with pytest.raises(ValueError, match="only one class is present .* a free bias needs both"):
        novikoff.max_margin(SEED004_X, np.ones(6))
    # Through the origin, one class is fine.
    assert novikoff.max_margin(SEED004_X[1:3], np.ones(2), bias="through_origin").separable
    X = SEED004_X.copy()
    X[2, 0] = np.inf
    with pytest.raises(ValueError, match="row 2, column 0: value inf is not finite"):
        novikoff.radius(X)
    with pytest.raises(ValueError, match="shape mismatch: labels against rows: expected 6, found 5"):
        novikoff.max_margin(SEED004_X, SEED004_Y[:5])
    with pytest.raises(ValueError, match="the dataset is empty"):
        novikoff.radius(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="no features"):
        novikoff.radius(np.zeros((3, 0)))
    with pytest.raises(ValueError, match="2-D"):
        novikoff.radius(np.zeros(3))
    with pytest.raises(ValueError, match="complex"):
        novikoff.radius(np.zeros((2, 2), dtype=complex))
    with pytest.raises(ValueError, match="must hold numbers"):
        novikoff.radius(np.array([["a", "b"]]))
    with pytest.raises(ValueError, match="bias must be"):
        novikoff.max_margin(SEED004_X, SEED004_Y, bias="sometimes")
    with pytest.raises(ValueError, match="invalid parameter"):
        novikoff.max_margin(SEED004_X, SEED004_Y, tolerance=-1)


def test_verify_returns_the_clis_json(novikoff_bin, data_dir):
    path = str(data_dir / "seed004.csv")
    for extra, kwargs in [
        ([], {}),
        (["--rules", "none,c=0.5", "--summation", "sequential"],
         dict(rules=["none", 0.5], summation="sequential")),
        (["--order", "shuffle", "--seed", "3", "--separator", "3,1", "--adversary", "--restarts", "2"],
         dict(shuffle=True, seed=3, separator=[3, 1], adversary=True, restarts=2)),
    ]:
        cli = subprocess.run([novikoff_bin, "verify", path, "--format", "json", *extra],
                             capture_output=True, text=True)
        assert cli.returncode == 0, cli.stderr
        ours = novikoff.verify(SEED004_X, SEED004_Y, source=path, **kwargs)
        assert mask(ours) == mask(json.loads(cli.stdout))
        assert ours["passed"] is True


def test_verify_reports_failures_instead_of_raising_them(novikoff_bin, data_dir):
    # A separator that does not separate makes no bound applicable: the verdict says so.
    report = novikoff.verify(XOR_X, XOR_Y, rules=["classic"], max_epochs=20)
    assert report["separable"] is False and report["certificate"] is not None
    assert report["passed"] is True and report["failures"] == []
    assert report["rules"][0]["converged"] is False


def mask(value):
    """The JSON with wall-clock timings (keys ending in `seconds`) removed: they cannot repeat."""
    if isinstance(value, dict):
        return {k: mask(v) for k, v in value.items() if not k.endswith("seconds")}
    if isinstance(value, list):
        return [mask(v) for v in value]
    return value


SPEC = """
name = "tiny"
seed = 7

[train]
rules = ["none", "classic"]
orders = ["cyclic"]
seeds = [0]
eta = [1.0]
max_epochs = 100

[[dataset]]
family = "seed004"

[[dataset]]
family = "separable"
params = { n = [40], d = [3], margin = [0.2], radius = 1.0 }
"""


def test_experiment_writes_the_results_the_cli_writes(tmp_path, novikoff_bin):
    spec = tmp_path / "tiny.toml"
    spec.write_text(SPEC)
    out = novikoff.experiment(spec, tmp_path / "py", threads=1, progress=False, plots=False)
    assert out["spec"] == "tiny" and out["ran"] == 4 and out["failed"] == 0
    assert {row["rule"] for row in out["summary"]} == {"none", "classic"}
    cli = subprocess.run([novikoff_bin, "experiment", str(spec), "--out", str(tmp_path / "cli"),
                          "--threads", "1", "--no-plots", "--format", "json"],
                         capture_output=True, text=True, check=True)
    assert mask(json.loads(cli.stdout))["summary"] == mask(out)["summary"]
    ours = (tmp_path / "py" / "results.jsonl").read_text().splitlines()
    theirs = (tmp_path / "cli" / "results.jsonl").read_text().splitlines()
    assert [mask(json.loads(a)) for a in ours] == [mask(json.loads(b)) for b in theirs]
    # Resuming skips what is stored.
    again = novikoff.experiment(spec, tmp_path / "py", resume=True, progress=False, plots=False)
    assert (again["ran"], again["skipped"]) == (0, 4)


def test_experiment_errors_name_the_spec(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.toml"):
        novikoff.experiment(tmp_path / "missing.toml", tmp_path / "out")
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[train]\nrules = ["sometimes"]\n')
    with pytest.raises(ValueError, match="bad.toml"):
        novikoff.experiment(bad, tmp_path / "out", progress=False)
    with pytest.raises(ValueError, match="threads"):
        novikoff.experiment(bad, tmp_path / "out", threads=0)


def test_a_working_set_budget_too_small_leaves_the_margin_and_separability_open():
    rng = np.random.default_rng(5)
    X = sp.random(2000, 20000, density=12 / 20000, format="csr", random_state=rng)
    y = np.where(X @ rng.normal(size=20000) >= 0, 1.0, -1.0)  # separable through the origin
    result = novikoff.max_margin(X, y, working_set_mb=1)
    assert result.status == "inaccurate" and result.separable is None
    assert "working_set_memory" in result.reason
    assert result.bracket[0] <= 0.0
    report = novikoff.verify(X, y, rules=["none"], max_epochs=2, working_set_mb=1)
    assert report["separable"] is None and report["separable_through_origin"] is None
    for bad in [0, -1, 1.5]:
        with pytest.raises(ValueError, match="working_set_mb"):
            novikoff.max_margin(X, y, working_set_mb=bad)
    with pytest.raises(ValueError, match="working_set_memory"):
        novikoff.verify(X, y, working_set_mb=2**50)
