"""A run's report as a typed object (docs/report-schema.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass(frozen=True)
class Tier:
    """One tier of the machine, fastest first."""

    name: str
    capacity_bytes: int
    avg_resident_bytes: float
    reads: int
    writes: int
    energy_j: float


@dataclass(frozen=True)
class Report:
    """A run's report. The fields mirror the JSON report's top-level
    fields; ``raw`` holds all of it (the windows, the time breakdown,
    notes and the rest)."""

    schema_version: int
    workload: str
    manager: str
    machine: str
    seed: int
    backend: str
    footprint_bytes: int
    touched_bytes: int
    sim_time_s: float
    ideal_time_s: float
    accesses: int
    slowdown: float
    tiers: List[Tier]
    migrated_bytes: int
    manager_cpu_util: float
    mean_recall: Optional[float]
    mean_precision: Optional[float]
    notes: List[str]
    windows: List[Dict[str, Any]]
    raw: Dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, text: str) -> "Report":
        """From the JSON a run writes (``thermocline run --json``)."""
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "Report":
        """From a parsed JSON report."""
        return cls(
            schema_version=d["schema_version"],
            workload=d["workload"],
            manager=d["manager"],
            machine=d["machine"],
            seed=d["seed"],
            backend=d["backend"],
            footprint_bytes=d["footprint_bytes"],
            touched_bytes=d["touched_bytes"],
            sim_time_s=d["sim_time_s"],
            ideal_time_s=d["ideal_time_s"],
            accesses=d["accesses"],
            slowdown=d["slowdown"],
            tiers=[
                Tier(
                    name=t["name"],
                    capacity_bytes=t["capacity_bytes"],
                    avg_resident_bytes=t["avg_resident_bytes"],
                    reads=t["reads"],
                    writes=t["writes"],
                    energy_j=t["energy_j"],
                )
                for t in d["tiers"]
            ],
            migrated_bytes=d["migrations"]["bytes"],
            manager_cpu_util=d["manager_cpu_util"],
            mean_recall=d.get("mean_recall"),
            mean_precision=d.get("mean_precision"),
            notes=list(d.get("notes", [])),
            windows=list(d.get("windows", [])),
            raw=d,
        )

    @property
    def fast_gib_s(self) -> float:
        """Fast-tier GiB-seconds: mean fast-tier residency times the time."""
        if not self.tiers:
            return 0.0
        return self.tiers[0].avg_resident_bytes / 2**30 * self.sim_time_s

    def window_rows(self) -> List[Dict[str, Any]]:
        """The metrics windows as flat rows: the window's own fields,
        ``resident_bytes_tierN`` per tier and ``manager.NAME`` per gauge."""
        rows = []
        for w in self.windows:
            row: Dict[str, Any] = {}
            for k, v in w.items():
                if k == "resident_bytes":
                    for i, b in enumerate(v):
                        row[f"resident_bytes_tier{i}"] = b
                elif k == "manager":
                    for g, x in v.items():
                        row[f"manager.{g}"] = x
                else:
                    row[k] = v
            rows.append(row)
        return rows

    def to_pandas(self):
        """The windows as a pandas DataFrame, one row per window (needs
        pandas)."""
        import pandas as pd

        return pd.DataFrame(self.window_rows())

    def to_polars(self):
        """The windows as a polars DataFrame, one row per window (needs
        polars)."""
        import polars as pl

        return pl.DataFrame(self.window_rows())

    def to_json(self) -> str:
        """The report as JSON, as the CLI writes it."""
        return json.dumps(self.raw, indent=2)
