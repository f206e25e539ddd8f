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


def test_figure11_from_the_sweep_is_the_reproductions(workdir):
    """The figure's numbers from the sweep's cells are those `reproduce
    thermostat-sensitivity` computes from the same runs (capped here)."""
    import importlib.util

    import thermocline

    path = os.path.join(ROOT, "python", "examples", "thermostat_figure11.py")
    spec = importlib.util.spec_from_file_location("figure11", path)
    fig11 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fig11)
    # the time mean by hand: windows ending at 10, 20 and 40 s
    class R:
        windows = [{"t_s": 10.0, "resident_bytes": [3, 1]}, {"t_s": 20.0, "resident_bytes": [1, 1]},
                   {"t_s": 40.0, "resident_bytes": [0, 4]}]
    assert fig11.time_mean(R, fig11.cold_fraction) == (0.25 * 10 + 0.5 * 10 + 1.0 * 20) / 40

    out = str(workdir / "fig")
    run = subprocess.run([sys.executable, path, out, "--duration", "0.5"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert os.path.getsize(os.path.join(out, "figure11.png")) > 10_000
    (rep,) = thermocline.reproduce("thermostat-sensitivity", duration_s=0.5)
    got = fig11.figure(thermocline.Sweep(out, 24, 24))
    for row in rep.summary["workloads"]:
        mine = got[row["workload"]]
        theirs = [(t["target"], t["mean_cold_fraction"], t["slowdown"]) for t in row["targets"]]
        assert mine == theirs, row["workload"]
