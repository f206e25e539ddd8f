"""thermocline: tiered main memory, from Python.

The same catalogue, runs, comparisons, reproductions and sweeps as the
``thermocline`` command line, with reports as typed objects that turn
into DataFrames::

    import thermocline
    r = thermocline.run(workload="multiphase", manager="ambix", fast_capacity="25%")
    print(f"{r.slowdown:.1%} slower than all-fast, {r.migrated_bytes / 1e6:.0f} MB moved")
    r.to_pandas()          # one row per metrics window

``list_workloads()``, ``list_managers()``, ``list_machines()`` and
``list_reproductions()`` give the names the functions take.

Runs release the GIL, and a Ctrl-C stops a run and raises
``KeyboardInterrupt``. Bad input raises :class:`ConfigError` with the
CLI's message (and ``file`` and ``line`` where it names them).
"""

from __future__ import annotations

import json as _json
import os as _os
import typing as _typing
from collections.abc import Mapping as _Mapping

if _typing.TYPE_CHECKING:  # annotations only: kept out of the package's namespace
    from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from . import _native
from ._native import ConfigError, HostError, InternalError, ThermoclineError
from .report import Report
from . import sweep as _sweep
from .sweep import Sweep, sweep

__version__ = _native.__version__

__all__ = [
    "ConfigError",
    "HostError",
    "InternalError",
    "ThermoclineError",
    "Report",
    "Reproduction",
    "Sweep",
    "compare",
    "list_machines",
    "list_managers",
    "list_reproductions",
    "list_workloads",
    "reproduce",
    "run",
    "sweep",
]


def _entries(kind: str) -> List[Tuple[str, str]]:
    return [(n, d) for k, n, d in _native.catalogue_entries() if k == kind]


def list_workloads() -> List[Tuple[str, str]]:
    """Built-in workloads: (name, description)."""
    return _entries("workload")


def list_managers() -> List[Tuple[str, str]]:
    """Managers: (name, description)."""
    return _entries("manager")


def list_machines() -> List[Tuple[str, str]]:
    """Machine presets: (name, description); the first is the default."""
    return _entries("machine")


def list_reproductions() -> List[Tuple[str, str]]:
    """Paper reproductions: (name, description)."""
    return _entries("reproduction")


def _toml_value(v: Any) -> str:
    """A Python value as a TOML literal, for ``--set KEY=VALUE``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return _json.dumps(v)  # a TOML basic string: JSON's escapes are TOML's
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, _Mapping):
        return "{" + ", ".join(f"{_json.dumps(str(k))} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot pass {type(v).__name__} {v!r} as a configuration value")


def _overrides(config: Any, **run_keys: Any) -> Tuple[Optional[str], List[str]]:
    """A configuration given as a TOML file's path or as a dict of keys,
    with the ``run.`` keys not left as ``None``: (file, ``--set`` overrides)."""
    keys: Mapping[str, Any] = {}
    path = None
    if isinstance(config, _Mapping):
        keys = config
    elif config is not None:
        path = _os.fspath(config)
    sets = [f"run.{k}={_toml_value(v)}" for k, v in run_keys.items() if v is not None]
    sets.extend(f"{k}={_toml_value(v)}" for k, v in keys.items())
    return path, sets


def run(
    workload: Optional[str] = None,
    manager: Optional[str] = None,
    machine: Optional[str] = None,
    fast_capacity: Optional[str] = None,
    duration_s: Optional[float] = None,
    seed: Optional[int] = None,
    backend: Optional[str] = None,
    config: Any = None,
) -> Report:
    """One run, as ``thermocline run`` makes it.

    ``config`` is a TOML file's path, or a dict of configuration keys
    (``{"thermostat.slowdown": 0.06, "metrics.window_s": 1.0}``). Arguments
    left as ``None`` take the configuration's, else the CLI's defaults.
    """
    path, sets = _overrides(
        config,
        workload=workload,
        manager=manager,
        machine=machine,
        fast_capacity=fast_capacity,
        duration_s=duration_s,
        seed=seed,
        backend=backend,
    )
    return Report.from_json(_native.run(sets, path))


def compare(
    managers: Sequence[str],
    workload: Optional[str] = None,
    machine: Optional[str] = None,
    fast_capacity: Optional[str] = None,
    duration_s: Optional[float] = None,
    seed: Optional[int] = None,
    backend: Optional[str] = None,
    config: Any = None,
    jobs: Optional[int] = None,
) -> List[Report]:
    """One workload under several managers, in parallel (``jobs`` threads,
    default one per core): the reports in the managers' order, the same
    whatever ``jobs`` is."""
    path, sets = _overrides(
        config,
        workload=workload,
        machine=machine,
        fast_capacity=fast_capacity,
        duration_s=duration_s,
        seed=seed,
        backend=backend,
    )
    jobs = jobs or _os.cpu_count() or 1
    return [Report.from_json(j) for j in _native.compare_runs(sets, list(managers), jobs, path)]


class Reproduction:
    """A paper reproduction's outputs: its table as text and its summary."""

    def __init__(self, name: str, text: str, summary: Dict[str, Any]):
        self.name = name
        self.text = text
        self.summary = summary

    def __repr__(self) -> str:
        return f"Reproduction({self.name!r})"


def reproduce(
    *names: str,
    duration_s: Optional[float] = None,
    seed: int = 1,
    jobs: Optional[int] = None,
    out: Optional[str] = None,
    executor: str = "local",
    address: Optional[str] = None,
    code: Optional[str] = None,
) -> List[Reproduction]:
    """Regenerates reproductions by name, as ``thermocline reproduce`` does.

    Their runs are one sweep (docs/sweeps.md): with ``out``, a sweep
    directory that keeps each run's report (keyed by ``code``, default
    this package's version) and ``spec.toml``, so that an interrupted
    reproduction resumes. ``executor="ray"`` runs each run as a Ray task
    (on the cluster at ``address``, else the one this process is
    connected to, else a new local one) and needs ``out``.
    """
    names_list = list(names)
    code = code or _sweep.default_code()
    if executor == "local":
        jobs = jobs or _os.cpu_count() or 1
        done = _native.reproduce_named(names_list, seed, jobs, duration_s, out, code)
    elif executor == "ray":
        if out is None:
            raise ValueError("executor='ray' needs out=DIR: the runs' reports gather there")
        _os.makedirs(out, exist_ok=True)
        specs = _native.reproduce_spec(names_list, seed, duration_s)
        for i, text in enumerate(specs):
            # a run that no seed changes is made at its one seed: its own spec
            spec = _os.path.join(out, "spec.toml" if len(specs) == 1 else f"spec-{i + 1}.toml")
            with open(spec, "w", encoding="utf-8") as f:
                f.write(text)
            sweep(spec, out, executor="ray", address=address, code=code)
        done = _native.reproduce_from(names_list, seed, out, code, duration_s)
    else:
        raise ValueError(f"executor: 'local' or 'ray', not {executor!r}")
    return [Reproduction(n, t, _json.loads(s)) for n, t, s in done]


def _names(kind: str) -> str:
    return ", ".join(n for n, _ in _entries(kind))


# The names each function takes, in its help(): the catalogue's, as
# ``thermocline list`` prints them.
run.__doc__ += f"""
    ``workload``: a MASIM config's path, ``lackey:PATH``, ``trace:PATH`` or one
    of {_names("workload")}.

    ``manager``: one of {_names("manager")}.

    ``machine``: one of {_names("machine")}.
    """
compare.__doc__ += f"""
    ``managers``: any of {_names("manager")}.
    """
reproduce.__doc__ += f"""
    ``names``: any of {_names("reproduction")}.
    """


def __dir__() -> List[str]:
    return sorted(__all__ + ["__version__"])


del annotations
