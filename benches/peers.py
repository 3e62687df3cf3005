#!/usr/bin/env python3
"""novikoff's certified maximum margin against peer solvers, on the same data in one run.

    cargo build --release
    target/notebooks-venv/bin/python benches/peers.py [--quick] [--shapes NxD:G[:SEED],...]
                                                      [--limit SECONDS] [--json OUT]

(the virtualenv comes from notebooks/run.sh; notebooks/requirements.txt pins the peers.)

For each shape it writes `novikoff generate separable --n N --d D --margin G --seed SEED` to a
temporary .npy (features, then the ±1 label in the last column), solves it with `novikoff margin`,
then hands the same float64 matrix to each peer. Every peer solves the hard-margin problem with a
free bias only approximately and certifies nothing, so its margin is re-evaluated here, with numpy,
as the margin its (w, b) actually achieves on the data: min_i y_i(w·x_i + b) / ‖w‖.

Columns of the table:
* shape: N rows × D dimensions, G the margin the generator prescribes (γ* ≥ G).
* γ* (certified bracket): novikoff's rigorous [gamma_lower, gamma_upper] around the maximum margin.
* novikoff s (passes): its `solve_seconds`, the wall time of the whole `novikoff margin` process
  (loading the file included), and its passes over the data.
* SVC s (rel. error): scikit-learn SVC(kernel="linear", C=1e10), seconds of `fit`.
* LIBLINEAR s (rel. error): liblinear-official, `-s 3 -c 1e6 -B 1 -e 1e-6` (L1-loss SVC dual with
  a bias feature, which LIBLINEAR regularises too), seconds of `train`.
* Clarabel s (rel. error): the SOCP max t s.t. y_i(w·x_i + b) ≥ t, ‖w‖ ≤ 1, seconds of the
  solver's setup and solve (building the constraint matrix in Python is not counted).
  The rel. error is (achieved − γ*)/γ*, γ* the bracket's midpoint: negative means a smaller margin
  than the best one, below −1 a (w, b) that does not separate the data.
Each peer runs in a child process with a time limit (default 120 s, over its setup and solve);
"timeout" means it was killed there, and a peer that ran out of time is "skipped (too slow)" on
the later shapes. Notes under the table list anything odd (non-separating answers, solvers that
stopped at an iteration cap or without converging).
"""
import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
import warnings
from importlib.metadata import version

import clarabel
import numpy as np
from liblinear import liblinear, liblinearutil
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
NOVIKOFF = os.path.join(ROOT, "target", "release", "novikoff")
# Seeds are fixed per shape, so that a shape shared by two lists is the same data in both.
DEFAULT_SHAPES = "10000x100:0.02:1,100000x100:0.001:2,1000000x10:0.001:3,20000x1000:0.1:4"
QUICK_SHAPES = "2000x20:0.05:5,10000x100:0.02:1"


def parse_shapes(text):
    shapes = []
    for position, item in enumerate(text.split(","), start=1):
        size, margin, *seed = item.strip().split(":")
        n, d = (int(float(v)) for v in size.lower().split("x"))
        shapes.append((n, d, float(margin), int(seed[0]) if seed else position))
    return shapes


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            models = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
        return f"{models[0]} ({len(models)} logical CPUs)"
    except (OSError, IndexError):
        return "unknown"


def achieved_margin(x, y, w, b):
    w = np.asarray(w, dtype=np.float64)
    return float(np.min(y * (x @ w + b)) / np.linalg.norm(w))


def solve_svc(x, y):
    model = SVC(kernel="linear", C=1e10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        start = time.perf_counter()
        model.fit(x, y)
        seconds = time.perf_counter() - start
    # classes_ is sorted, so the decision function is positive for +1.
    w, b = model.coef_[0], float(model.intercept_[0])
    notes = [str(c.message).split(".")[0] for c in caught if issubclass(c.category, ConvergenceWarning)]
    return dict(seconds=seconds, w=w, b=b, nominal=1 / float(np.linalg.norm(w)),
                iterations=int(np.sum(model.n_iter_)), notes=notes)


def solve_liblinear(x, y):
    # The CSR path of liblinear's problem() is vectorised; a dense array goes row by row in Python.
    prob = liblinear.problem(y, sparse.csr_matrix(x))
    param = liblinear.parameter("-s 3 -c 1e6 -B 1 -e 1e-6")
    log = []
    # Capture LIBLINEAR's log rather than print it: it says when it stopped at its iteration cap.
    param.print_func = liblinear.PRINT_STRING_FUN(lambda s: log.append(s.decode()))
    start = time.perf_counter()
    model = liblinearutil.train(prob, param)
    seconds = time.perf_counter() - start
    w, b = model.get_decfun()
    sign = 1.0 if model.get_labels()[0] == 1 else -1.0  # the decision function favours labels[0]
    w, b = sign * np.asarray(w), sign * b
    lines = "".join(log).splitlines()
    iterations = [line.split("#iter =")[1].strip() for line in lines if "#iter =" in line]
    notes = [line.strip() for line in lines if "WARNING" in line]
    return dict(seconds=seconds, w=w, b=float(b), nominal=1 / float(np.linalg.norm(w)),
                iterations=int(iterations[-1]) if iterations else None, notes=notes)


def solve_clarabel(x, y):
    n, d = x.shape
    # Variables (w, b, t). Rows 0..n-1: s_i = y_i(w·x_i + b) − t ≥ 0; then s = (1, w) in the
    # second-order cone of dimension d + 1, i.e. ‖w‖ ≤ 1.
    margins = sparse.csc_matrix(-np.hstack([y[:, None] * x, y[:, None], -np.ones((n, 1))]))
    ball = sparse.hstack([sparse.vstack([sparse.csc_matrix((1, d)), -sparse.identity(d)]),
                          sparse.csc_matrix((d + 1, 2))])
    a = sparse.vstack([margins, ball]).tocsc()
    rhs = np.zeros(n + d + 1)
    rhs[n] = 1.0
    q = np.zeros(d + 2)
    q[-1] = -1.0
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    cones = [clarabel.NonnegativeConeT(n), clarabel.SecondOrderConeT(d + 1)]
    start = time.perf_counter()
    solver = clarabel.DefaultSolver(sparse.csc_matrix((d + 2, d + 2)), q, a, rhs, cones, settings)
    solution = solver.solve()
    seconds = time.perf_counter() - start
    z = np.asarray(solution.x)
    status = str(solution.status)
    return dict(seconds=seconds, w=z[:d], b=float(z[d]), nominal=float(z[d + 1]), status=status,
                iterations=solution.iterations,
                notes=[] if status == "Solved" else [f"status {status}"])


PEERS = {"SVC": solve_svc, "LIBLINEAR": solve_liblinear, "Clarabel": solve_clarabel}


def _child(solve, x, y, conn):
    try:
        conn.send(solve(x, y))
    except Exception as error:  # reported in the table rather than killing the whole run
        conn.send(dict(error=f"{type(error).__name__}: {error}"))


def run_limited(solve, x, y, limit):
    """solve(x, y) in a forked child (which shares x without a copy), killed after `limit` s."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(solve, x, y, send))
    child.start()
    send.close()
    try:
        result = receive.recv() if receive.poll(limit) else dict(timeout=True)
    except EOFError:
        child.join()
        result = dict(error=f"the child died (exit code {child.exitcode})")
    if child.is_alive():
        child.kill()
    child.join()
    return result


def run_shape(n, d, margin, seed, directory, limit, give_up):
    path = os.path.join(directory, f"separable_{n}x{d}_{seed}.npy")
    subprocess.run([NOVIKOFF, "generate", "separable", "--n", str(n), "--d", str(d),
                    "--margin", str(margin), "--seed", str(seed), "--out", path, "--format", "json"],
                   check=True, capture_output=True)
    start = time.perf_counter()
    out = subprocess.run([NOVIKOFF, "margin", path, "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    wall = time.perf_counter() - start
    ours = json.loads(out)
    data = np.load(path)
    x, y = np.ascontiguousarray(data[:, :-1]), np.ascontiguousarray(data[:, -1])
    os.remove(path)
    row = dict(n=n, d=d, margin=margin, seed=seed, notes=[], peers={})
    row["novikoff"] = {k: ours.get(k) for k in ("status", "gamma", "gamma_lower", "gamma_upper",
                                                "b", "solve_seconds", "passes", "rounds", "working_set")}
    row["novikoff"]["wall_seconds"] = wall
    if ours["status"] == "not_separable":
        row["notes"].append(f"novikoff says not separable: no reference margin")
        return row
    mid = (ours["gamma_lower"] + ours["gamma_upper"]) / 2
    row["novikoff"]["achieved"] = achieved_margin(x, y, ours["w"], ours["b"])
    if ours["status"] != "separable":
        row["notes"].append(f"novikoff status {ours['status']}")
    for name, solve in PEERS.items():
        if name in give_up:
            row["peers"][name] = dict(skipped=True)
            continue
        result = run_limited(solve, x, y, limit)
        if result.get("timeout"):
            give_up.add(name)
        elif "w" in result:
            result["achieved"] = achieved_margin(x, y, result.pop("w"), result["b"])
            result["rel_error"] = (result["achieved"] - mid) / mid
            if result["achieved"] <= 0:
                row["notes"].append(f"{name}: achieved margin {result['achieved']:.3g} ≤ 0, "
                                    "its (w, b) does not separate the data")
            elif result["achieved"] > ours["gamma_upper"] * (1 + 1e-12):
                row["notes"].append(f"{name}: achieved margin above the certified upper bound")
            row["notes"] += [f"{name}: {note}" for note in result["notes"]]
        else:
            row["notes"].append(f"{name}: {result['error']}")
        row["peers"][name] = result
    return row


def cell(result, limit):
    if result.get("skipped"):
        return "skipped (too slow)"
    if result.get("timeout"):
        return f"timeout (> {limit:g} s)"
    if "error" in result:
        return "error"
    return f"{result['seconds']:.3g} ({result['rel_error']:+.1e})"


def table(rows, limit):
    header = ["shape", "γ* (certified bracket)", "novikoff s (passes)"] + [f"{p} s (rel. error)" for p in PEERS]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        ours = row["novikoff"]
        shape = f"{row['n']} × {row['d']}, G = {row['margin']:g}"
        if ours.get("gamma_lower") is None:
            lines.append(f"| {shape} | {ours['status']} |" + " |" * (len(header) - 2))
            continue
        bracket = f"[{ours['gamma_lower']:.15g}, {ours['gamma_upper']:.15g}]"
        timing = f"{ours['solve_seconds']:.3g} / {ours['wall_seconds']:.3g} wall ({ours['passes']})"
        lines.append("| " + " | ".join([shape, bracket, timing] +
                                         [cell(row["peers"][p], limit) for p in PEERS]) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"only {QUICK_SHAPES}")
    parser.add_argument("--shapes", help=f"NxD:G[:SEED],... (default {DEFAULT_SHAPES})")
    parser.add_argument("--limit", type=float, default=120.0, help="seconds per peer and shape")
    parser.add_argument("--json", metavar="OUT", help="also write the raw numbers here")
    args = parser.parse_args()
    if not os.path.exists(NOVIKOFF):
        sys.exit(f"{NOVIKOFF} is missing: run `cargo build --release` first")
    shapes = parse_shapes(args.shapes or (QUICK_SHAPES if args.quick else DEFAULT_SHAPES))

    print(f"CPU: {cpu_model()}")
    versions = ", ".join(f"{p} {version(p)}" for p in ("scikit-learn", "liblinear-official", "clarabel"))
    print(f"Peers: {versions}; "
          f"time limit {args.limit:g} s per peer and shape. The peers certify nothing.\n", flush=True)
    rows, give_up = [], set()
    with tempfile.TemporaryDirectory(prefix="novikoff-peers-") as directory:
        for n, d, margin, seed in shapes:
            print(f"running {n} × {d}, G = {margin:g}, seed {seed} ...", file=sys.stderr, flush=True)
            rows.append(run_shape(n, d, margin, seed, directory, args.limit, give_up))
    print(table(rows, args.limit))
    notes = [f"* {row['n']} × {row['d']}: {note}" for row in rows for note in row["notes"]]
    if notes:
        print("\nNotes:\n" + "\n".join(notes))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(cpu=cpu_model(), limit=args.limit, shapes=rows), f, indent=1, default=float)


if __name__ == "__main__":
    main()
