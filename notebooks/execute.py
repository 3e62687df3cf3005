"""Execute notebooks headless with nbclient; exit 1 if any cell of any notebook raised.

Usage (notebooks/run.sh calls it from the virtualenv):
    python notebooks/execute.py --out-dir DIR --cwd DIR NOTEBOOK.ipynb...

Each notebook runs in a fresh kernel whose working directory is --cwd, and the executed copy (with its
outputs) is written to --out-dir under the same file name. A failing notebook is still written, so its
traceback can be read, and the other notebooks still run.
"""

import argparse
import sys
import time
from pathlib import Path

import nbformat
from ipykernel.kernelspec import install as install_kernelspec
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

# A kernel of our own, registered inside this virtualenv: the name "python3" could resolve to a kernel
# spec of some other Python installed for the user.
KERNEL = "novikoff-notebooks"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", required=True, type=Path)
    parser.add_argument("--cwd", required=True, type=Path)
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    parser.add_argument("notebooks", nargs="+", type=Path)
    args = parser.parse_args()

    install_kernelspec(kernel_name=KERNEL, display_name="Python (novikoff notebooks)", prefix=sys.prefix)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    passed, failed = 0, 0
    for path in args.notebooks:
        notebook = nbformat.read(path, as_version=4)
        client = NotebookClient(
            notebook,
            timeout=args.timeout,
            kernel_name=KERNEL,
            resources={"metadata": {"path": str(args.cwd)}},
        )
        started = time.perf_counter()
        try:
            client.execute()
        except CellExecutionError as error:
            failed += 1
            print(f"FAILED {path} after {time.perf_counter() - started:.1f} s\n{error}", flush=True)
        else:
            passed += 1
            print(f"ok     {path} in {time.perf_counter() - started:.1f} s", flush=True)
        # Keep the kernel spec the notebook was saved with: readers open it with their own "python3".
        notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(notebook, args.out_dir / path.name)
    print(f"notebooks: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
