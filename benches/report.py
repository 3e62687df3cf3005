#!/usr/bin/env python3
"""Tables for benches/README.md from criterion's saved results (standard library only).

    cargo bench --bench epoch -- --warm-up-time 1 --measurement-time 3
    python3 benches/report.py [target-dir]

For every entry of the `epoch_clean` and `epoch_mistakes` groups it reads `new/estimates.json` (the
median) and `new/sample.json` (criterion's samples, each the time of a run of iterations) and prints
throughputs in GB/s of matrix bytes, with the ratios the issue's targets are stated in. Two estimates:

* median: criterion's median time per iteration;
* best: the fastest sample (its time divided by its iterations). On a shared machine, other jobs
  only ever slow a sample down, so the fastest sample is the least disturbed one. Ratios of best
  samples compare each loop with the others' best.
"""
import glob
import json
import os
import sys

TARGET = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "target")


def entries(group):
    """{shape: {function: (median GB/s, best GB/s)}} for one criterion group."""
    found = {}
    pattern = os.path.join(TARGET, "criterion", group, "*", "*", "new", "estimates.json")
    for path in glob.glob(pattern):
        new = os.path.dirname(path)
        function, shape = path.split(os.sep)[-4:-2]
        with open(os.path.join(new, "benchmark.json")) as f:
            nbytes = json.load(f)["throughput"]["Bytes"]
        with open(path) as f:
            median = json.load(f)["median"]["point_estimate"]
        with open(os.path.join(new, "sample.json")) as f:
            sample = json.load(f)
        best = min(t / i for t, i in zip(sample["times"], sample["iters"]))
        found.setdefault(shape, {})[function] = (nbytes / median, nbytes / best)
    return found


def by_size(shape):
    n, d = shape.split("x")
    return (int(n) * int(d) < 4 << 17, int(d))  # the 80 MB shapes first, by d


def ratio(row, numerator, denominators, which):
    present = [row[d][which] for d in denominators if d in row]
    if numerator not in row or not present:
        return "–"
    return f"{row[numerator][which] / max(present):.2f}"


def table(group, columns, ratios):
    rows = entries(group)
    if not rows:
        print(f"(no results for {group} under {TARGET})\n")
        return
    print(f"`{group}`, GB/s (median; best sample in parentheses):\n")
    header = ["n × d"] + columns + [f"{name} median / best" for name, _, _ in ratios]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for shape in sorted(rows, key=by_size):
        row = rows[shape]
        cells = [shape.replace("x", " × ")]
        for c in columns:
            cells.append(f"{row[c][0]:.1f} ({row[c][1]:.1f})" if c in row else "–")
        for _, numerator, denominators in ratios:
            cells.append(
                ratio(row, numerator, denominators, 0) + " / " + ratio(row, numerator, denominators, 1)
            )
        print("| " + " | ".join(cells) + " |")
    print()


table(
    "epoch_clean",
    ["fast", "fast_shuffled", "sequential", "rowloop", "read_sum", "read_dot", "read_with_labels"],
    [
        ("fast / read", "fast", ["read_sum", "read_dot"]),
        ("fast_shuffled / read", "fast_shuffled", ["read_sum", "read_dot"]),
        ("fast / read_with_labels", "fast", ["read_with_labels"]),
        ("fast / rowloop", "fast", ["rowloop"]),
        ("fast / sequential", "fast", ["sequential"]),
    ],
)
table(
    "epoch_mistakes",
    ["fast", "sequential", "rowloop"],
    [
        ("fast / rowloop", "fast", ["rowloop"]),
        ("fast / sequential", "fast", ["sequential"]),
    ],
)
