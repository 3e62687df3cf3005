#!/usr/bin/env python3
"""Compare two novikoff results folders row for row, apart from the timing columns.

Usage: compare-results.py EXPECTED_DIR ACTUAL_DIR

Both `results.jsonl` (every field, the plot data included) and `results.csv` (every column) must hold
the same task ids, each exactly once, with identical values in everything but `train_seconds` and
`solve_seconds`, the only fields that depend on the machine's load. Exits 1 on the first kind of
difference found, after listing (up to 10 of) its instances.
"""

import csv
import json
import sys
from pathlib import Path

TIMING = ("train_seconds", "solve_seconds")
SHOWN = 10


def fail(message, items=()):
    items = list(items)
    print(f"compare-results: {message}", file=sys.stderr)
    for item in items[:SHOWN]:
        print(f"  {item}", file=sys.stderr)
    if len(items) > SHOWN:
        print(f"  ... and {len(items) - SHOWN} more", file=sys.stderr)
    sys.exit(1)


def keyed(rows, source):
    """Rows by task id; a duplicated id is an error (a resumed shard must not write a row twice)."""
    by_id = {}
    duplicates = []
    for row in rows:
        task_id = row["task_id"]
        if task_id in by_id:
            duplicates.append(task_id)
        by_id[task_id] = row
    if duplicates:
        fail(f"{source}: {len(duplicates)} duplicated task id(s)", duplicates)
    if not by_id:
        fail(f"{source}: no rows")
    return by_id


def without_timing(row):
    return {k: v for k, v in row.items() if k not in TIMING}


def compare(expected, actual, what):
    missing = sorted(set(expected) - set(actual))
    if missing:
        fail(f"{what}: {len(missing)} row(s) missing from the sharded run", missing)
    extra = sorted(set(actual) - set(expected))
    if extra:
        fail(f"{what}: {len(extra)} row(s) that the single run does not have", extra)
    differing = []
    for task_id in sorted(expected):
        a, b = without_timing(expected[task_id]), without_timing(actual[task_id])
        if a != b:
            fields = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
            differing.append(f"{task_id}: {', '.join(fields)}")
    if differing:
        fail(f"{what}: {len(differing)} row(s) differ outside the timing columns", differing)
    return len(expected)


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return keyed((json.loads(line) for line in f if line.strip()), path)


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames
        return header, keyed(reader, path)


def main():
    if len(sys.argv) != 3:
        fail("usage: compare-results.py EXPECTED_DIR ACTUAL_DIR")
    expected_dir, actual_dir = map(Path, sys.argv[1:])
    rows = compare(
        read_jsonl(expected_dir / "results.jsonl"),
        read_jsonl(actual_dir / "results.jsonl"),
        "results.jsonl",
    )
    expected_header, expected_csv = read_csv(expected_dir / "results.csv")
    actual_header, actual_csv = read_csv(actual_dir / "results.csv")
    if expected_header != actual_header:
        fail("results.csv: the headers differ", [expected_header, actual_header])
    compare(expected_csv, actual_csv, "results.csv")
    print(
        f"compare-results: {rows} rows identical in results.jsonl and results.csv "
        f"(apart from {' and '.join(TIMING)})"
    )


if __name__ == "__main__":
    main()
