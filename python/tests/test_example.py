"""The README's example runs as a plain script and draws its chart."""

import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_the_example_sweeps_and_plots(workdir):
    out = str(workdir / "ex")
    script = os.path.join(ROOT, "python", "examples", "sweep_and_plot.py")
    run = subprocess.run([sys.executable, script, out], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("36 cells, 0 already there"), run.stdout
    png = open(os.path.join(out, "slowdown.png"), "rb").read()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    again = subprocess.run([sys.executable, script, out], capture_output=True, text=True)
    assert again.stdout.startswith("36 cells, 36 already there"), again.stdout
