#!/usr/bin/env bash
# Execute every notebook headless and fail on the first cell error.
#
#   notebooks/run.sh            run into a temporary folder (what CI does; the tree stays clean)
#   notebooks/run.sh --update   run and write the outputs back into notebooks/*.ipynb (to commit them)
#
# The Python packages go into a virtualenv, $NOVIKOFF_NOTEBOOK_VENV or target/notebooks-venv, so the
# system's Python is left alone. The notebooks find the CLI through $NOVIKOFF_BIN.
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
  echo "== notebooks: creating the virtualenv $venv"
  python3 -m venv "$venv"
fi
echo "== notebooks: pip install -r notebooks/requirements.txt"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r notebooks/requirements.txt

echo "== notebooks: cargo build --release"
cargo build --release --quiet
export NOVIKOFF_BIN="$root/target/release/novikoff"

scratch="$(mktemp -d "${TMPDIR:-/tmp}/novikoff-notebooks.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
if [[ "$mode" == update ]]; then
  out_dir="$root/notebooks"
else
  out_dir="$scratch/executed"
fi
# The kernels start in the scratch folder, so nothing a notebook writes lands in the tree.
"$venv/bin/python" notebooks/execute.py --out-dir "$out_dir" --cwd "$scratch" notebooks/*.ipynb
