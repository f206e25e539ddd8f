"""The Python API against the CLI: the same catalogue, the same reports."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import thermocline


def test_catalogue_matches_the_cli(cli):
    listed = subprocess.run([cli, "list"], capture_output=True, text=True, check=True).stdout
    for name, desc in thermocline.list_workloads() + thermocline.list_managers():
        assert f"  {name} " in listed, name
        assert desc
    assert thermocline.list_machines()[0][0] == "dram+dcpmm"
    assert any(n == "thermostat-sensitivity" for n, _ in thermocline.list_reproductions())


def test_run_gives_the_cli_report_byte_for_byte(cli, workdir):
    args = dict(workload="multiphase", manager="ambix", duration_s=0.3, fast_capacity="50%")
    r = thermocline.run(**args, config={"metrics.window_s": 0.1})
    out = workdir / "r.json"
    subprocess.run(
        [cli, "run", "--workload", "multiphase", "--manager", "ambix", "--duration", "0.3",
         "--fast-capacity", "50%", "--set", "metrics.window_s=0.1", "--json", str(out), "--quiet"],
        check=True, capture_output=True,
    )
    assert r.raw == json.loads(out.read_text())
    assert r.manager == "ambix" and r.workload == "multiphase"
    assert r.slowdown == json.loads(out.read_text())["slowdown"]
    assert len(r.tiers) == 2 and r.tiers[0].name == "dram"
    df = r.to_pandas()
    assert len(df) == len(r.windows) >= 3
    assert {"t_s", "resident_bytes_tier0", "accesses_per_s"} <= set(df.columns)
    assert r.fast_gib_s > 0


def test_compare_is_the_same_whatever_the_jobs():
    ms = ["first-touch", "all-slow", "interleave"]
    one = thermocline.compare(ms, workload="multiphase", duration_s=0.2, jobs=1)
    two = thermocline.compare(ms, workload="multiphase", duration_s=0.2, jobs=2)
    assert [r.manager for r in one] == ms
    assert [r.raw for r in one] == [r.raw for r in two]
    assert one[1].slowdown > one[0].slowdown


def test_reproduce_returns_text_and_summary():
    (rep,) = thermocline.reproduce("thermostat-sensitivity", duration_s=0.1)
    assert rep.name == "thermostat-sensitivity"
    assert "cold fraction" in rep.text
    assert len(rep.summary["workloads"]) == 8


def test_reproduce_keeps_its_runs_in_a_sweep_directory_and_resumes(workdir):
    out = str(workdir / "r")
    # telescope-needle: nine runs, each a fraction of a second at this cap
    fresh = thermocline.reproduce("telescope-needle", duration_s=0.2)
    kept = thermocline.reproduce("telescope-needle", duration_s=0.2, out=out, jobs=2)
    assert [(r.text, r.summary) for r in kept] == [(r.text, r.summary) for r in fresh]
    assert os.path.exists(os.path.join(out, "table.csv"))
    # its runs are a sweep's cells, named as the sweep of its spec names them
    [spec] = thermocline._native.reproduce_spec(["telescope-needle"], 1, 0.2)
    ids = sorted(c[0] + ".json" for c in thermocline._native.sweep_cells(spec, "spec.toml"))
    cells = sorted(os.listdir(os.path.join(out, "cells")))
    assert cells == ids and len(cells) >= 2
    # a lost run is made again, the others are read back
    os.remove(os.path.join(out, "cells", cells[0]))
    again = thermocline.reproduce("telescope-needle", duration_s=0.2, out=out, jobs=1)
    assert [r.summary for r in again] == [r.summary for r in fresh]
    assert sorted(os.listdir(os.path.join(out, "cells"))) == cells


def test_a_run_releases_the_gil():
    # A thread counting while a run goes: it gets the interpreter.
    import threading

    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    thermocline.run(workload="multiphase", manager="first-touch", duration_s=2.0,
                    config={"metrics.window_s": 0.05})
    stop.set()
    t.join()
    assert len(ticks) > 50, len(ticks)


# Each takes half a minute or more on the exact machine.
LONG = {
    "run": 'thermocline.run(workload="multiphase-2min", manager="first-touch", backend="exact")',
    "compare": 'thermocline.compare(["first-touch", "all-slow"], workload="multiphase-2min", backend="exact", jobs=2)',
    "sweep": 'thermocline.sweep({"seeds": [1, 2, 3, 4], "grid": {"manager": ["first-touch"], "workload": ["multiphase-2min"], "backend": ["exact"]}}, OUT, jobs=2)',
}


@pytest.mark.parametrize("call", sorted(LONG))
def test_ctrl_c_stops_the_call_with_keyboard_interrupt(call, workdir):
    script = workdir / "long.py"
    script.write_text(textwrap.dedent(f"""
        import signal, sys, time, thermocline
        # Ctrl-C raises KeyboardInterrupt, as in a notebook, even where this
        # process was started with SIGINT ignored (a background job's lot)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        OUT = {str(workdir / "sweep")!r}
        print("start", flush=True)
        t = time.monotonic()
        try:
            {LONG[call]}
        except KeyboardInterrupt:
            print(f"interrupted after {{time.monotonic() - t:.1f}} s", flush=True)
            sys.exit(3)
        print("finished", flush=True)
    """))
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "start"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 3, out
    seconds = float(out.split()[2])
    assert seconds < 3.0, out
    if call == "sweep":
        # a stopped sweep leaves no half cell for the next one to trip on
        cells = workdir / "sweep" / "cells"
        assert all(f.suffix == ".json" and json.loads(f.read_text()) for f in cells.iterdir())


def test_the_stubs_name_every_native_function():
    import re

    import thermocline._native as native

    stub = open(os.path.join(os.path.dirname(thermocline.__file__), "_native.pyi")).read()
    stubbed = set(re.findall(r"^def (\w+)\(", stub, re.M)) | set(re.findall(r"^class (\w+)", stub, re.M))
    public = {n for n in dir(native) if not n.startswith("_")}
    assert public == stubbed


def test_the_namespace_holds_the_api_and_its_modules_only():
    public = {n for n in vars(thermocline) if not n.startswith("_")}
    # the package's own modules are attributes too; nothing imported for its use is
    assert public - set(thermocline.__all__) <= {"report"}, public - set(thermocline.__all__)
    assert dir(thermocline) == sorted(thermocline.__all__ + ["__version__"])


def test_help_lists_the_names_each_function_takes():
    for name, _ in thermocline.list_managers():
        assert name in thermocline.run.__doc__ and name in thermocline.compare.__doc__
    for name, _ in thermocline.list_workloads() + thermocline.list_machines():
        assert name in thermocline.run.__doc__
    for name, _ in thermocline.list_reproductions():
        assert name in thermocline.reproduce.__doc__


def test_the_first_example_shows_pages_moving():
    # the package docstring's example, as docs/python.md gives it
    r = thermocline.run(workload="multiphase", manager="ambix", fast_capacity="25%")
    assert r.migrated_bytes > 0 and r.slowdown > 0
