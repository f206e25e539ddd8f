#!/usr/bin/env bash
# Issue 25's goal: the main job (`thermocline compare` with no options)
# in under 60 s of wall time on a 2-core machine, build excluded.
# Appends main-job/wall-{min,median,max} over RUNS runs (default 3) to
# results.csv. Run from anywhere, with nothing else running.
set -euo pipefail
cd "$(dirname "$0")/.."
. benchsuite/lib.sh
runs=${RUNS:-3}
cargo build --release -q
walls=()
for _ in $(seq "$runs"); do
  start=$(date +%s.%N)
  ./target/release/thermocline compare --quiet > /dev/null
  walls+=("$(python3 -c "import time; print(round(time.time() - $start, 2))")")
done
read -r lo mid hi < <(printf '%s\n' "${walls[@]}" | sort -n | python3 -c "
import sys; v = [float(x) for x in sys.stdin]; print(v[0], v[len(v) // 2], v[-1])")
for k in "min $lo" "median $mid" "max $hi"; do
  set -- $k
  record "main-job/wall-$1" "$2" s "thermocline compare --quiet (median of $runs)"
done
tail -n 3 "$out"
