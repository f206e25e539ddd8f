#!/usr/bin/env bash
# Runs the criterion benchmarks and appends their figures to results.csv:
#   date,commit,benchmark,value,unit
# Figures: simulated accesses per second (exact machine, LLC off, one core)
# and host bytes per simulated 4 KiB page. Run from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
out=benchsuite/results.csv
[ -f "$out" ] || echo "date,commit,benchmark,value,unit" > "$out"
commit=$(git rev-parse --short HEAD)
day=$(date -u +%Y-%m-%d)
log=$(mktemp)
cargo bench -p thermocline --bench access -- --noplot | tee "$log"
grep '^host-bytes-per-4k-page,' "$log" | while IFS=, read -r name value; do
  echo "$day,$commit,$name,$value,bytes" >> "$out"
done
python3 - "$day" "$commit" >> "$out" <<'PY'
import json, sys, glob, os
day, commit = sys.argv[1], sys.argv[2]
per_iter = 1 << 20
for est in sorted(glob.glob("target/criterion/exact/*/*/new/estimates.json")):
    parts = est.split(os.sep)
    name = parts[-4] + "/" + parts[-3]
    mean_ns = json.load(open(est))["mean"]["point_estimate"]
    print(f"{day},{commit},{name},{per_iter / (mean_ns * 1e-9):.0f},accesses/s")
PY
tail -n 3 "$out"
