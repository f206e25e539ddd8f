"""Sweeps as Ray tasks on a local two-CPU Ray cluster started here: the
same files as a local sweep, and no cell lost or doubled when a worker is
killed mid-cell."""

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

ray = pytest.importorskip("ray")

import thermocline

SPEC = {
    "name": "ray",
    "seeds": [1, 2, 3],
    "duration_s": 0.2,
    "grid": {"manager": ["first-touch", "all-slow", "interleave"]},
}


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def files(d):
    cells = os.path.join(d, "cells")
    return {n: open(os.path.join(cells, n)).read() for n in sorted(os.listdir(cells))}


def test_a_ray_sweep_gives_the_local_sweeps_bytes(cluster, workdir):
    local, remote = str(workdir / "local"), str(workdir / "ray")
    thermocline.sweep(SPEC, local, jobs=2)
    seen = []
    s = thermocline.sweep(SPEC, remote, executor="ray", progress=lambda d, t, c: seen.append((d, t, c)))
    assert (s.cells, s.resumed) == (9, 0)
    assert files(remote) == files(local)
    assert open(os.path.join(remote, "table.csv")).read() == open(os.path.join(local, "table.csv")).read()
    assert [d for d, _, _ in seen] == list(range(1, 10))
    # a second pass finds every cell there and runs none
    again = thermocline.sweep(SPEC, remote, executor="ray")
    assert again.resumed == 9


def _kill_first_cell_worker(stop, killed):
    """Kills (SIGKILL) the first worker process seen running a cell."""
    while not stop.is_set():
        ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
        for line in ps.splitlines():
            if "ray::_run_cell" in line:
                pid = int(line.split()[0])
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
        time.sleep(0.02)


def test_a_killed_worker_loses_no_cell_and_doubles_none(cluster, workdir):
    # cells long enough (a second of simulated time) to be killed mid-cell
    spec = dict(SPEC, seeds=[1, 2], duration_s=1.0, name="kill")
    local, remote = str(workdir / "local"), str(workdir / "ray")
    thermocline.sweep(spec, local, jobs=2)
    stop, killed = threading.Event(), []
    killer = threading.Thread(target=_kill_first_cell_worker, args=(stop, killed))
    killer.start()
    try:
        s = thermocline.sweep(spec, remote, executor="ray")
    finally:
        stop.set()
        killer.join()
    assert killed, "a worker was killed mid-cell"
    assert (s.cells, s.resumed) == (6, 0)
    assert files(remote) == files(local), "every cell once, as a local sweep makes it"
    table = open(os.path.join(remote, "table.csv")).read().splitlines()
    ids = [row.split(",")[0] for row in table[1:]]
    assert len(ids) == len(set(ids)) == 6


def test_the_cli_sweeps_on_ray_with_the_local_clis_bytes(cli, workdir):
    spec = workdir / "spec.toml"
    spec.write_text('seeds = [1, 2]\nduration_s = 0.1\n[grid]\nmanager = ["first-touch", "all-slow"]\n')
    local, remote = str(workdir / "local"), str(workdir / "ray")
    subprocess.run([cli, "sweep", str(spec), "--out", local, "--quiet"], check=True)
    env = dict(os.environ, THERMOCLINE_PYTHON=sys.executable)
    run = subprocess.run([cli, "sweep", str(spec), "--out", remote, "--ray"], env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "table.csv: 4 cells" in run.stdout
    assert files(remote) == files(local)
    env["THERMOCLINE_PYTHON"] = "/nonexistent/python"
    run = subprocess.run([cli, "sweep", str(spec), "--out", remote, "--ray"], env=env,
                         capture_output=True, text=True)
    assert run.returncode == 2 and "cannot import thermocline and ray" in run.stderr


def test_a_reproduction_on_ray_is_the_local_one(cluster, workdir):
    here = thermocline.reproduce("thermostat-sensitivity", duration_s=0.1)
    out = str(workdir / "ray")
    there = thermocline.reproduce("thermostat-sensitivity", duration_s=0.1, out=out, executor="ray")
    assert [(r.text, r.summary) for r in there] == [(r.text, r.summary) for r in here]
    assert len(os.listdir(os.path.join(out, "cells"))) == 24
    with pytest.raises(ValueError, match="needs out"):
        thermocline.reproduce("thermostat-sensitivity", executor="ray")


def _clean_tree():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    st = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                        capture_output=True, text=True)
    return st.returncode == 0 and not st.stdout.strip()


@pytest.mark.skipif(not _clean_tree(), reason="reproduce --cache keys runs by commit: needs a tree without uncommitted changes (CI's clean clone has one)")
def test_the_cli_reproduces_on_ray_what_it_reproduces_here(cli, workdir):
    # telescope-needle: nine runs, each a fraction of a second at this cap
    args = [cli, "reproduce", "telescope-needle", "--duration", "0.2"]
    here = subprocess.run(args, capture_output=True, text=True, check=True)
    env = dict(os.environ, THERMOCLINE_PYTHON=sys.executable)
    cache = str(workdir / "cache")
    there = subprocess.run(args + ["--cache", cache, "--ray"], env=env, capture_output=True, text=True)
    assert there.returncode == 0, there.stderr
    assert there.stdout == here.stdout
    # the runs of each of the three default seeds as a spec
    specs = sorted(f for f in os.listdir(cache) if f.startswith("spec"))
    assert specs == [f"spec-seed-{s}.toml" for s in (1, 2, 3)], specs
    # the same directory, now without Ray: every run is read back
    again = subprocess.run(args + ["--cache", cache], capture_output=True, text=True, check=True)
    assert again.stdout == here.stdout
    progress = [l for l in again.stderr.splitlines() if re.match(r"(seed \d )?\[", l)]
    assert progress and all(l.endswith("(from the cache)") for l in progress), again.stderr


def test_each_task_asks_for_its_cells_memory_and_a_cell_too_big_is_refused(cluster, workdir):
    spec = {"duration_s": 0.1, "grid": {"workload": ["telescope-subtb-1g", "telescope-subtb-10g"]},
            "set": {"backend": "exact"}}
    memory = dict(thermocline._native.sweep_memory(json.dumps(spec)))
    small, large = (memory[c[0]] for c in thermocline._native.sweep_cells(json.dumps(spec)))
    # 9 GiB more footprint, 80 B per 4 KiB page of it
    assert large - small == 9 * 2**30 // 4096 * 80
    s = thermocline.sweep(spec, str(workdir / "fits"), executor="ray")
    assert s.cells == 2
    # more than any node has: refused before running, nothing written
    huge = dict(spec, memory_gib=100000)
    with pytest.raises(thermocline.ConfigError, match="largest node of the Ray cluster"):
        thermocline.sweep(huge, str(workdir / "huge"), executor="ray")
    assert not os.listdir(os.path.join(workdir, "huge", "cells"))
