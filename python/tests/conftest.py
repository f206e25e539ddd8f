import os
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="session")
def cli():
    """The thermocline binary of this checkout, built if missing."""
    exe = os.path.join(ROOT, "target", "release", "thermocline")
    if not os.path.exists(exe):
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "thermocline"], cwd=ROOT, check=True)
    return exe


@pytest.fixture
def workdir(tmp_path):
    yield tmp_path
    shutil.rmtree(tmp_path, ignore_errors=True)
