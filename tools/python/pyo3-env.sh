#!/usr/bin/env bash
# Prints, as `export` lines for `eval`, the environment in which maturin's
# PEP 517 build of the wheel (tools/python/install.sh) builds pyo3: the base
# interpreter (MATURIN_PEP517_USE_BASE_PYTHON, rather than pip's throwaway
# build environment, whose path changes at every install) and maturin's
# signature for it. pyo3's build script reruns, and pyo3 and everything on
# it compiles again, whenever either differs; .ci/run sets them for every
# cargo command, so the wheel reuses what `cargo test` built.
set -euo pipefail
python3 - <<'PY'
import os
import struct
import sys

exe = os.path.realpath(sys.executable)
v = sys.version_info
signature = "%s-%d.%d-%dbit" % (sys.implementation.name, v[0], v[1], struct.calcsize("P") * 8)
print(f"export PYO3_PYTHON={exe}")
print(f"export PYO3_ENVIRONMENT_SIGNATURE={signature}")
print("export MATURIN_PEP517_USE_BASE_PYTHON=1")
PY
