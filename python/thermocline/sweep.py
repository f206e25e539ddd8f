"""Sweeps from Python: a grid of runs (docs/sweeps.md), run here on
threads or as Ray tasks, with the same cell files either way.

A cell's file is made by the Rust code wherever the cell runs (a thread
here, a Ray worker elsewhere) and stored here as it arrives, so a Ray
sweep's directory is byte for byte a local sweep's; cells already stored
by the same code are not run again, so an interrupted sweep resumes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

from . import _native
from .report import Report

Spec = Union[Mapping[str, Any], str, "os.PathLike[str]"]


def _spec_args(spec: Spec) -> Tuple[str, Optional[str]]:
    """(spec text, TOML file name or None for a dict's JSON)."""
    if isinstance(spec, Mapping):
        return json.dumps(spec), None
    path = os.fspath(spec)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    except OSError as e:
        raise _native.ConfigError(f"{path}: cannot read: {e.strerror}") from None


def default_code() -> str:
    """What stored cells are keyed by when no code is given: this
    package's version (the CLI keys them by a hash of the code a run
    goes through, docs/sweeps.md)."""
    return f"thermocline-python {_native.__version__}"


class Sweep:
    """A sweep's directory: its table and its cells' reports."""

    def __init__(self, out: str, cells: int, resumed: int):
        self.out = out
        self.cells = cells
        self.resumed = resumed

    @property
    def table_path(self) -> str:
        return os.path.join(self.out, "table.csv")

    @property
    def table(self):
        """``table.csv`` as a pandas DataFrame, one row per cell (needs pandas)."""
        import pandas as pd

        return pd.read_csv(self.table_path, dtype={"id": str})

    def write_parquet(self, path: str) -> None:
        """The table as Parquet (needs pandas and pyarrow)."""
        self.table.to_parquet(path, index=False)

    def reports(self) -> Dict[str, Report]:
        """Every cell's report, by cell id."""
        out = {}
        cells_dir = os.path.join(self.out, "cells")
        for name in sorted(os.listdir(cells_dir)):
            if name.endswith(".json"):
                with open(os.path.join(cells_dir, name), encoding="utf-8") as f:
                    stored = json.load(f)
                out[stored["id"]] = Report.from_dict(stored["report"])
        return out

    def __repr__(self) -> str:
        return f"Sweep({self.out!r}, cells={self.cells}, resumed={self.resumed})"


def sweep(
    spec: Spec,
    out: str,
    jobs: Optional[int] = None,
    executor: str = "local",
    address: Optional[str] = None,
    code: Optional[str] = None,
    progress: Optional[Callable[[int, int, str], None]] = None,
    max_retries: int = 3,
) -> Sweep:
    """Runs the cells of ``spec`` (a dict, or a TOML file's path) not yet in
    ``out``, and writes ``out/table.csv``.

    ``executor="local"`` runs them here on ``jobs`` threads (default one
    per core); ``executor="ray"`` runs each as a Ray task (one CPU and
    the cell's estimated host memory each, or the spec's ``memory_gib``)
    on the cluster at ``address`` (default: the one this process is
    connected to, else a new local one), retried up to ``max_retries``
    times if its worker is lost; a cell no node has the memory for is
    refused before any runs. ``progress(done, total, cell_id)`` is
    called as cells finish (Ray only).
    """
    text, toml_file = _spec_args(spec)
    code = code or default_code()
    _native.sweep_check(text, toml_file)
    if executor == "local":
        n, resumed = _native.sweep_local(text, out, jobs or os.cpu_count() or 1, code, toml_file)
        return Sweep(out, n, resumed)
    if executor == "ray":
        return _ray_sweep(text, toml_file, out, code, address, progress, max_retries)
    raise ValueError(f"executor: 'local' or 'ray', not {executor!r}")


def _run_cell(text: str, cell_id: str, code: str, toml_file: Optional[str]) -> Tuple[str, str]:
    """A Ray task: one cell, run wherever Ray put it."""
    from thermocline import _native as native

    return cell_id, native.sweep_run_cell(text, cell_id, code, toml_file)


def _check_fits(memory: Dict[str, int], todo: List[str], ray: Any) -> None:
    """Refuses a cell no node of the cluster has the memory for: Ray would
    keep it pending for ever."""
    nodes = [n.get("Resources", {}).get("memory", 0) for n in ray.nodes() if n.get("Alive")]
    largest = max(nodes, default=0)
    for cell_id in todo:
        if memory[cell_id] > largest:
            raise _native.ConfigError(
                f"cell {cell_id} asks for {memory[cell_id] / 2**30:.2f} GiB of memory (its estimate;"
                f" memory_gib in the spec sets it) and the largest node of the Ray cluster offers"
                f" {largest / 2**30:.2f} GiB"
            )


def _ray_sweep(
    text: str,
    toml_file: Optional[str],
    out: str,
    code: str,
    address: Optional[str],
    progress: Optional[Callable[[int, int, str], None]],
    max_retries: int,
) -> Sweep:
    import ray

    if not ray.is_initialized():
        ray.init(address=address or None, include_dashboard=False, log_to_driver=False)
    cells = _native.sweep_cells(text, toml_file)
    todo = [c[0] for c in cells if not _native.sweep_has(text, out, c[0], code, toml_file)]
    memory = dict(_native.sweep_memory(text, toml_file))
    _check_fits(memory, todo, ray)
    task = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=False)(_run_cell)
    pending = [
        task.options(memory=memory[cell_id]).remote(text, cell_id, code, toml_file)
        for cell_id in todo
    ]
    done = len(cells) - len(todo)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        cell_id, cell_json = ray.get(ready[0])
        _native.sweep_store(text, out, cell_id, cell_json, toml_file)
        done += 1
        if progress:
            progress(done, len(cells), cell_id)
    _native.sweep_table(text, out, code, toml_file)
    return Sweep(out, len(cells), len(cells) - len(todo))


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m thermocline.sweep SPEC --out DIR [--jobs N] [--ray [ADDRESS]]``
    (what ``thermocline sweep --ray`` runs)."""
    p = argparse.ArgumentParser(prog="thermocline-sweep", description=main.__doc__)
    p.add_argument("spec")
    p.add_argument("--out", required=True)
    p.add_argument("--jobs", type=int)
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS")
    p.add_argument("--code")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    started = time.monotonic()

    def show(done: int, total: int, cell_id: str) -> None:
        if not a.quiet:
            print(f"[{done}/{total}] cell {cell_id} at {time.monotonic() - started:.1f} s", file=sys.stderr)

    try:
        s = sweep(
            a.spec,
            a.out,
            jobs=a.jobs,
            executor="local" if a.ray is None else "ray",
            address=a.ray or None,
            code=a.code,
            progress=show,
        )
    except _native.ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except _native.ThermoclineError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if not a.quiet:
        print(
            f"sweep: {s.cells} cells ({s.resumed} already there) in {time.monotonic() - started:.1f} s",
            file=sys.stderr,
        )
    print(f"{s.table_path}: {s.cells} cells")
    return 0


if __name__ == "__main__":
    sys.exit(main())
