#!/usr/bin/env bash
# Build the Python package, run its tests, then execute every notebook headless; fail on the first error.
#
#   notebooks/run.sh            run into a temporary folder (what CI does; the tree stays clean)
#   notebooks/run.sh --update   run and write the outputs back into notebooks/*.ipynb (to commit them)
#
# The Python packages go into a virtualenv, $NOVIKOFF_NOTEBOOK_VENV or target/notebooks-venv, so the
# system's Python is left alone: requirements.txt, every version pinned by constraints.txt, then the
# package of python/ built once by maturin as a release wheel and installed. pytest runs python/tests
# (with scikit-learn's estimator checks) against that wheel. The notebooks import the package and find
# the CLI through $NOVIKOFF_BIN.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

mode=temp
case "${1:-}" in
  "") ;;
  --update) mode=update ;;
  *) echo "usage: notebooks/run.sh [--update]" >&2; exit 2 ;;
esac

venv="${NOVIKOFF_NOTEBOOK_VENV:-$root/target/notebooks-venv}"
if [[ ! -x "$venv/bin/python" ]]; then
  # Debian's python3 ships without ensurepip, which `python3 -m venv` needs: a fresh machine gets it
  # from the distribution (as .ci/run does for OpenBLAS), when it may install packages.
  if ! python3 -c 'import ensurepip' >/dev/null 2>&1 && command -v apt-get >/dev/null &&
    [[ "$(id -u)" == 0 ]]; then
    echo "== notebooks: apt-get install python3-venv python3-pip"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq python3-venv python3-pip >/dev/null
  fi
  echo "== notebooks: creating the virtualenv $venv"
  python3 -m venv "$venv"
fi
echo "== notebooks: pip install -r notebooks/requirements.txt -c notebooks/constraints.txt"
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
  -r notebooks/requirements.txt -c notebooks/constraints.txt

echo "== notebooks: cargo build --release"
cargo build --release --quiet
export NOVIKOFF_BIN="$root/target/release/novikoff"

scratch="$(mktemp -d "${TMPDIR:-/tmp}/novikoff-notebooks.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

# The wheel, built once in release mode for the virtualenv's Python, and installed without touching
# its pinned dependencies (they are in requirements.txt).
echo "== python: maturin build --release (python/), pip install the wheel"
started=$SECONDS
"$venv/bin/maturin" build --release --quiet --interpreter "$venv/bin/python" \
  --manifest-path python/Cargo.toml --out "$scratch/wheels"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps --force-reinstall \
  "$scratch"/wheels/novikoff-*.whl
echo "   built and installed in $((SECONDS - started)) s"

# From the scratch folder, so that `import novikoff` is the installed wheel, not python/novikoff.
echo "== python: pytest python/tests (with sklearn's check_estimator)"
started=$SECONDS
(cd "$scratch" && "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests")
echo "   pytest took $((SECONDS - started)) s"
if [[ "$mode" == update ]]; then
  out_dir="$root/notebooks"
else
  out_dir="$scratch/executed"
fi
# The kernels start in the scratch folder, so nothing a notebook writes lands in the tree.
"$venv/bin/python" notebooks/execute.py --out-dir "$out_dir" --cwd "$scratch" notebooks/*.ipynb
