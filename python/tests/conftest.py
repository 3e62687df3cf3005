import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def novikoff_bin():
    """The CLI, for the tests that compare the package with it: $NOVIKOFF_BIN, else target/release or
    target/debug, else `novikoff` on the PATH; skipped when none exists."""
    candidates = [os.environ.get("NOVIKOFF_BIN")]
    candidates += [str(ROOT / "target" / p / "novikoff") for p in ("release", "debug")]
    candidates += [shutil.which("novikoff")]
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    pytest.skip("the novikoff CLI is not built (cargo build --release)")


@pytest.fixture(scope="session")
def data_dir():
    return ROOT / "data"
