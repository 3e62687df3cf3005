#!/usr/bin/env python3
"""Fail when the crate's modules import each other in a cycle.

The crate is layered (error and rng at the bottom; then simd, dataset, perceptron; margin, io and
generate; bounds; experiment; plot and cli), and the layering only stays true if a check keeps it. Each
file's `crate::…` paths (in `use` items and in code) become edges between modules at two levels: the
crate's top-level modules (`bounds` → `margin`), and the files inside one top-level module
(`experiment::spec` → `experiment::plan`). A strongly connected component of more than one node is a
cycle. Doc comments and `#[cfg(test)]` modules are ignored: a test may reach anywhere.

`cargo modules` draws the same graph, but it is a heavy build for CI; this reads the source directly.
"""

import re
import sys
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
# `crate::a::b`, `super::b` and `use crate::{a, b::c}` forms.
CRATE_PATH = re.compile(r"\bcrate::((?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*|\{)")


def module_of(path: Path) -> list[str]:
    """The module path of a source file: src/experiment/spec.rs → ["experiment", "spec"]."""
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return parts


def code_of(text: str) -> str:
    """The source without comments and without `#[cfg(test)]` modules."""
    text = re.sub(r"//[^\n]*", "", text)
    out, i = [], 0
    for match in re.finditer(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text):
        if match.start() < i:
            continue
        out.append(text[i : match.start()])
        depth, j = 1, match.end()
        while depth and j < len(text):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def targets(code: str, module: list[str]) -> set[tuple[str, ...]]:
    """Every module path a file names through `crate::` or `super::`, expanding one level of
    `use crate::{a, b}`."""
    parent = module[:-1]
    found = set()
    for match in re.finditer(r"\bsuper::((?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*)", code):
        found.add(tuple((parent + match.group(1).split("::"))[:2]))
    for match in re.finditer(r"\bcrate::\{([^;]*)\}", code):
        for item in re.split(r",(?![^{]*\})", match.group(1)):
            head = item.strip().split("::")[0].strip("{} ")
            if head and head != "self":
                tail = item.strip().split("::")[1:2]
                found.add(tuple([head] + [t.strip("{} ") for t in tail]))
    for match in CRATE_PATH.finditer(code):
        if match.group(1) != "{":
            found.add(tuple(match.group(1).split("::")[:2]))
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one node."""
    index, low, stack, on_stack, result, counter = {}, {}, [], set(), [], [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                result.append(sorted(component))

    for node in list(edges):
        if node not in index:
            visit(node)
    return result


def main() -> int:
    top: dict[str, set[str]] = defaultdict(set)
    inner: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    evidence: dict[tuple[str, str], str] = {}
    for path in sorted(SRC.rglob("*.rs")):
        module = module_of(path)
        code = code_of(path.read_text())
        for target in targets(code, module):
            if not module:
                continue
            source_top, target_top = module[0], target[0]
            if target_top in ("Error", "Result", "Dataset") or not target_top.islower():
                continue
            if source_top != target_top:
                top[source_top].add(target_top)
                evidence.setdefault((source_top, target_top), str(path.relative_to(SRC.parent)))
            elif len(module) > 1 and len(target) > 1 and target[1] != module[1]:
                if (SRC / source_top / f"{target[1]}.rs").exists() or (SRC / source_top / target[1]).is_dir():
                    a, b = f"{source_top}::{module[1]}", f"{source_top}::{target[1]}"
                    inner[source_top][a].add(b)
                    evidence.setdefault((a, b), str(path.relative_to(SRC.parent)))
    failed = False
    graphs = [("crate", top)] + sorted(inner.items())
    for name, graph in graphs:
        for component in cycles(graph):
            failed = True
            print(f"import cycle in {name}: {' ↔ '.join(component)}")
            for a in component:
                for b in component:
                    if b in graph.get(a, ()):
                        print(f"  {a} → {b}  ({evidence[(a, b)]})")
    if not failed:
        layers = ", ".join(f"{m} → {{{', '.join(sorted(t))}}}" for m, t in sorted(top.items()))
        print(f"no import cycles among {len(graphs)} module graphs; top level: {layers}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
