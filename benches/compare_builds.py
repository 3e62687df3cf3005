#!/usr/bin/env python3
"""Time the margin solver of the working tree against a base revision, shape by shape, alternating.

    python3 benches/compare_builds.py BASE [--rounds 4] [--set wide,narrow] [--keep]

Builds `benches/margin_suite.rs` twice: in the working tree, and in a temporary git worktree of BASE
(with this tree's copy of the suite, which uses only the crate's public API, and its `[[bench]]` entry
added when BASE has none). Then, for each shape, it runs the two builds alternately `--rounds` times,
each run a fresh process that reports its median solve (the builds take turns to go first, so an
even number of rounds is fair to both), and prints each build's median over the rounds
and the speed-up `base / new`, then the geometric mean of the speed-ups over the shapes.

On a shared machine only ratios taken close together in time compare, hence the alternation; and since
a change to the solver's path wins on some shapes and seeds and loses on others, only a geometric mean
over many shapes tells a change from noise. Every answer is checked too: the two builds' brackets on
γ* must overlap, and both must say the same of separability, or the line is marked `DISAGREE` and the
script exits with 1.

The base build has its own target folder in the worktree (a full build, a few minutes); `--keep`
leaves the worktree for a second comparison, which then reuses that build.
"""

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

BENCH = "margin_suite"
ENTRY = f'\n[[bench]]\nname = "{BENCH}"\nharness = false\n'


def build(root, target_dir=None):
    """The path of the suite's binary, built with `cargo bench --no-run` in `root`."""
    env = dict(os.environ)
    if target_dir:
        env["CARGO_TARGET_DIR"] = target_dir
    out = subprocess.run(
        ["cargo", "bench", "--bench", BENCH, "--no-run", "--message-format=json"],
        cwd=root, env=env, capture_output=True, text=True,
    )
    if out.returncode != 0:
        sys.exit(f"compare_builds: the build in {root} failed:\n{out.stderr[-4000:]}")
    for line in out.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message["target"]["name"] == BENCH:
            if message.get("executable"):
                return message["executable"]
    sys.exit(f"compare_builds: no `{BENCH}` binary in {root}'s build")


def run(binary, sets, key):
    out = subprocess.run([binary, "--set", sets, "--shape", key], capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout.strip():
        sys.exit(f"compare_builds: {binary} failed on `{key}`:\n{out.stderr[-2000:]}")
    _, ms, summary = out.stdout.strip().split("\t")
    return float(ms), summary


def answer(summary):
    """(status, lower, upper) of a shape's summary line."""
    fields = dict(f.split("=", 1) for f in summary.split()[1:] if "=" in f)
    lower = float(fields.get("lower", "nan"))
    upper = float(fields.get("upper", "nan"))
    return summary.split()[0], lower, upper


def agree(a, b):
    (status_a, lower_a, upper_a), (status_b, lower_b, upper_b) = answer(a), answer(b)
    if status_a != status_b:
        return False
    if status_a == "separable":
        return max(lower_a, lower_b) <= min(upper_a, upper_b)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base", help="the revision to compare against (a commit, tag or branch)")
    parser.add_argument("--rounds", type=int, default=4, help="runs of each build on each shape")
    parser.add_argument("--set", default="wide,narrow", help="the suite's sets, comma-separated")
    parser.add_argument("--keep", action="store_true", help="keep the base revision's worktree and build")
    args = parser.parse_args()

    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                          check=True).stdout.strip()
    commit = subprocess.run(["git", "rev-parse", "--verify", args.base + "^{commit}"], cwd=root,
                            capture_output=True, text=True)
    if commit.returncode != 0:
        sys.exit(f"compare_builds: no revision `{args.base}`")
    commit = commit.stdout.strip()
    worktree = os.path.join(tempfile.gettempdir(), f"novikoff-suite-{commit[:12]}")
    if not os.path.isdir(worktree):
        subprocess.run(["git", "worktree", "add", "--detach", "-q", worktree, commit], cwd=root, check=True)
    try:
        shutil.copy(os.path.join(root, "benches", f"{BENCH}.rs"), os.path.join(worktree, "benches"))
        manifest = os.path.join(worktree, "Cargo.toml")
        with open(manifest) as f:
            text = f.read()
        if f'name = "{BENCH}"' not in text:
            with open(manifest, "a") as f:
                f.write(ENTRY)
        print(f"building {commit[:12]} and the working tree", file=sys.stderr, flush=True)
        base_binary = build(worktree, os.path.join(worktree, "target"))
        new_binary = build(root)
        keys = subprocess.run([new_binary, "--set", args.set, "--list"], capture_output=True, text=True,
                              check=True).stdout.splitlines()
        print(f"{'shape':40s} {'base ms':>9s} {'new ms':>9s} {'speed-up':>8s}")
        logs, disagreements = [], 0
        for key in keys:
            times = {"base": [], "new": []}
            summaries = {}
            for r in range(args.rounds):
                # Alternate which build goes first, so that neither always runs on a warmer machine.
                order = [("base", base_binary), ("new", new_binary)]
                if r % 2:
                    order.reverse()
                for name, binary in order:
                    ms, summaries[name] = run(binary, args.set, key)
                    times[name].append(ms)
            base_ms, new_ms = statistics.median(times["base"]), statistics.median(times["new"])
            logs.append(math.log(base_ms / new_ms))
            mark = ""
            if not agree(summaries["base"], summaries["new"]):
                disagreements += 1
                mark = f"  DISAGREE: base {summaries['base']}; new {summaries['new']}"
            print(f"{key:40s} {base_ms:9.3f} {new_ms:9.3f} {base_ms / new_ms:7.2f}×{mark}", flush=True)
        print(f"geometric mean of the speed-ups over {len(logs)} shapes: {math.exp(sum(logs) / len(logs)):.3f}")
    finally:
        if not args.keep:
            subprocess.run(["git", "worktree", "remove", "--force", worktree], cwd=root)
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
