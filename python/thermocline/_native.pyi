"""Type stubs of the extension module (crates/python/src/lib.rs)."""

from typing import List, Optional, Tuple

__version__: str

class ThermoclineError(Exception):
    """Any thermocline failure."""

class ConfigError(ThermoclineError):
    """Input that cannot be used; ``file`` and ``line`` say where, when known."""

    file: Optional[str]
    line: Optional[int]

class InternalError(ThermoclineError):
    """A failure of thermocline itself; the message says how to reproduce it."""

class HostError(ThermoclineError):
    """What a live host refused or lacks; the message says what to do."""

    kind: str

def catalogue_entries() -> List[Tuple[str, str, str]]: ...
def run(sets: List[str], config_path: Optional[str] = None) -> str: ...
def compare_runs(
    sets: List[str], managers: List[str], jobs: int, config_path: Optional[str] = None
) -> List[str]: ...
def reproduce_named(
    names: List[str],
    seed: int,
    jobs: int,
    duration_s: Optional[float] = None,
    out: Optional[str] = None,
    code: Optional[str] = None,
) -> List[Tuple[str, str, str]]: ...
def reproduce_spec(names: List[str], seed: int, duration_s: Optional[float] = None) -> List[str]: ...
def reproduce_from(
    names: List[str], seed: int, out: str, code: str, duration_s: Optional[float] = None
) -> List[Tuple[str, str, str]]: ...
def sweep_cells(
    spec: str, toml_file: Optional[str] = None
) -> List[Tuple[str, List[Tuple[str, str]], int]]: ...
def sweep_check(spec: str, toml_file: Optional[str] = None) -> None: ...
def sweep_local(
    spec: str, out: str, jobs: int, code: str, toml_file: Optional[str] = None
) -> Tuple[int, int]: ...
def sweep_has(
    spec: str, out: str, id: str, code: str, toml_file: Optional[str] = None
) -> bool: ...
def sweep_memory(spec: str, toml_file: Optional[str] = None) -> List[Tuple[str, int]]: ...
def sweep_run_cell(spec: str, id: str, code: str, toml_file: Optional[str] = None) -> str: ...
def sweep_store(
    spec: str, out: str, id: str, cell_json: str, toml_file: Optional[str] = None
) -> None: ...
def sweep_table(spec: str, out: str, code: str, toml_file: Optional[str] = None) -> str: ...
