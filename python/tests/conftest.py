import os
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="session")
def cli():
    """The thermocline binary of this checkout (release or debug, as
    `cargo test` left it), built if missing. Runs are deterministic, so
    either gives the extension's bytes."""
    for profile in ("release", "debug"):
        exe = os.path.join(ROOT, "target", profile, "thermocline")
        if os.path.exists(exe):
            return exe
    subprocess.run(["cargo", "build", "-q", "-p", "thermocline"], cwd=ROOT, check=True)
    return os.path.join(ROOT, "target", "debug", "thermocline")


@pytest.fixture
def workdir(tmp_path):
    yield tmp_path
    shutil.rmtree(tmp_path, ignore_errors=True)
