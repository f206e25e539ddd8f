#!/usr/bin/env bash
# The Python package and what its tests need, in a virtual environment of
# its own (VENV, default .venv at the repository root): maturin builds the
# extension from this checkout (`pip install .`), then pytest, pandas,
# matplotlib (the example's chart), Ray, pyarrow (Parquet tables) and polars
# come from PyPI, pinned.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${VENV:-.venv}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --disable-pip-version-check \
  "maturin==1.16.0" "pytest==8.4.2" "pandas==2.3.3" "matplotlib==3.10.7" "ray==2.52.0" \
  "pyarrow==26.0.1" "polars==2.1.0"
"$venv/bin/pip" install -q --disable-pip-version-check .
"$venv/bin/python" -c "import thermocline; print('thermocline', thermocline.__version__, 'installed in', '$venv')"
