"""Local sweeps: cells, the table, resume, and the CLI's own files."""

import os
import subprocess

import pytest

import thermocline
from thermocline import ConfigError

SPEC = {
    "name": "t",
    "seeds": [1, 2],
    "duration_s": 0.1,
    "grid": {"manager": ["first-touch", "all-slow"], "fast_capacity": ["25%", "50%"]},
}


def files(d):
    cells = os.path.join(d, "cells")
    return {n: open(os.path.join(cells, n)).read() for n in sorted(os.listdir(cells))}


def test_a_sweep_writes_a_cell_per_grid_point_and_a_table(workdir):
    s = thermocline.sweep(SPEC, str(workdir / "s"), jobs=2)
    assert (s.cells, s.resumed) == (8, 0)
    t = s.table
    assert len(t) == 8
    assert set(t["run.manager"]) == {"first-touch", "all-slow"}
    assert (t[t["run.manager"] == "all-slow"]["slowdown"] > 0).all()
    reports = s.reports()
    assert set(reports) == set(t["id"])


def test_an_interrupted_sweep_resumes_with_the_same_bytes(workdir):
    out = str(workdir / "s")
    thermocline.sweep(SPEC, out, jobs=2)
    before, table = files(out), open(os.path.join(out, "table.csv")).read()
    lost = sorted(before)[:3]
    for n in lost:
        os.remove(os.path.join(out, "cells", n))
    s = thermocline.sweep(SPEC, out, jobs=1)
    assert (s.cells, s.resumed) == (8, 5)
    assert files(out) == before
    assert open(os.path.join(out, "table.csv")).read() == table


def test_a_toml_spec_matches_the_cli_sweep(cli, workdir):
    spec = workdir / "spec.toml"
    spec.write_text(
        'name = "t"\nseeds = [1, 2]\nduration_s = 0.1\n[grid]\n'
        'manager = ["first-touch", "all-slow"]\nfast_capacity = ["25%", "50%"]\n'
    )
    py_out, cli_out = str(workdir / "py"), str(workdir / "cli")
    thermocline.sweep(spec, py_out, code="same")
    # the same cells as the CLI's (which keys them by commit), and the
    # dict spec names the same cells as the TOML one
    subprocess.run([cli, "sweep", str(spec), "--out", cli_out, "--quiet"], check=True)
    assert sorted(files(py_out)) == sorted(files(cli_out))
    assert thermocline.sweep(SPEC, py_out, code="same").resumed == 8


def test_bad_specs_are_config_errors(workdir):
    with pytest.raises(ConfigError, match="seeds"):
        thermocline.sweep({"seeds": 3, "grid": {"manager": ["first-touch"]}}, str(workdir))
    with pytest.raises(ConfigError, match='unknown manager "nope"'):
        thermocline.sweep({"grid": {"manager": ["nope"]}}, str(workdir))
    bad = workdir / "bad.toml"
    bad.write_text('[grid]\nmanager = ["first-touch", "nope"]\n')
    with pytest.raises(ConfigError) as e:
        thermocline.sweep(bad, str(workdir / "o"))
    assert str(e.value).startswith(f"{bad}:2:")
    with pytest.raises(ValueError):
        thermocline.sweep(SPEC, str(workdir), executor="spark")


def test_the_table_goes_to_parquet_and_reports_to_polars(workdir):
    pl = pytest.importorskip("polars")
    pytest.importorskip("pyarrow")
    s = thermocline.sweep(SPEC, str(workdir / "s"), jobs=2)
    path = str(workdir / "t.parquet")
    s.write_parquet(path)
    back = pl.read_parquet(path)
    assert back.columns == list(s.table.columns)
    assert back["id"].to_list() == list(s.table["id"])
    assert back["slowdown"].to_list() == list(s.table["slowdown"])
    r = next(iter(s.reports().values()))
    df = r.to_polars()
    assert df.height == len(r.windows) and "t_s" in df.columns
    assert df["t_s"].to_list() == list(r.to_pandas()["t_s"])
