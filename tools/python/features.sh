#!/usr/bin/env bash
# Shows the dependencies that the wheel's build (maturin builds only
# thermocline-python) would compile with other features than `cargo test
# --workspace` does. Cargo unifies features over the packages a build
# selects, so each such dependency, and everything above it, compiles twice;
# crates/python/Cargo.toml lists the features that make the two agree. Prints
# nothing when they agree; exits 0 either way (it costs time, not results).
set -euo pipefail
cd "$(dirname "$0")/../.."
tree() { cargo tree -f '{p}|{f}' --prefix none "$@" 2>/dev/null; }
python3 - <(tree --workspace -e normal,dev,build) <(tree -p thermocline-python -e normal,build) <<'PY'
import sys

def features(path):
    out = {}
    for line in open(path):
        # cargo tree marks a repeated package " (*)", a macro " (proc-macro)"
        line = line.strip().replace(" (*)", "").replace(" (proc-macro)", "")
        package, _, feats = line.partition("|")
        name = package.split(" (")[0]
        out.setdefault(name, set()).update(f for f in feats.split(",") if f)
    return out

workspace, wheel = features(sys.argv[1]), features(sys.argv[2])
for package in sorted(wheel):
    if wheel[package] != workspace.get(package):
        missing = sorted(workspace.get(package, set()) - wheel[package])
        extra = sorted(wheel[package] - workspace.get(package, set()))
        print(f"features.sh: {package}: the wheel lacks {missing}, adds {extra}"
              " (crates/python/Cargo.toml)")
PY
