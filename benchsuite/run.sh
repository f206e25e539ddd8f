#!/usr/bin/env bash
# Runs the criterion benchmarks and appends their figures to results.csv:
#   date,commit,benchmark,value,unit
# Figures: simulated accesses per second (exact machine, LLC off, one core),
# host bytes per simulated 4 KiB page, the rate machine's telemetry samples
# and clock steps per second, and the wall time and peak memory of each
# technique's telescope-multiphase run (one core). Run from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
out=benchsuite/results.csv
[ -f "$out" ] || echo "date,commit,benchmark,value,unit" > "$out"
commit=$(git rev-parse --short HEAD)
day=$(date -u +%Y-%m-%d)
log=$(mktemp)
cargo bench -p thermocline-sim --bench access -- --noplot | tee "$log"
cargo bench -p thermocline-engine --bench rate -- --noplot | tee -a "$log"
cargo bench -p thermocline-managers --bench schemes -- --noplot | tee -a "$log"
grep '^host-bytes-per-4k-page,' "$log" | while IFS=, read -r name value; do
  echo "$day,$commit,$name,$value,bytes" >> "$out"
done
python3 - "$day" "$commit" >> "$out" <<'PY'
import json, sys, glob, os
day, commit = sys.argv[1], sys.argv[2]
per_iter = 1 << 20
for est in sorted(glob.glob("target/criterion/exact/*/*/new/estimates.json")):
    parts = est.split(os.sep)
    name = "exact/" + parts[-4] + "/" + parts[-3]
    mean_ns = json.load(open(est))["mean"]["point_estimate"]
    print(f"{day},{commit},{name},{per_iter / (mean_ns * 1e-9):.0f},accesses/s")
for est in sorted(glob.glob("target/criterion/rate/*/*/new/estimates.json")):
    parts = est.split(os.sep)
    name = "rate/" + parts[-4] + "/" + parts[-3]
    mean_ns = json.load(open(est))["mean"]["point_estimate"]
    unit = "steps/s" if "advance" in name else "samples/s"
    print(f"{day},{commit},{name},{10_000 / (mean_ns * 1e-9):.0f},{unit}")
# the scheme engine: microseconds per profile of 10 000 regions
for est in sorted(glob.glob("target/criterion/schemes/*/new/estimates.json")):
    name = "schemes/" + est.split(os.sep)[-3]
    mean_ns = json.load(open(est))["mean"]["point_estimate"]
    print(f"{day},{commit},{name},{mean_ns / 1e3:.1f},us/profile")
PY
# Issue 3's goal: each technique's telescope-multiphase run on one core.
cargo build --release -q
for thp in false true; do
  for t in damon-moderate damon-aggressive pebs-5khz pebs-10khz telescope-bounded \
           telescope-flex linear-scan-aggressive linear-scan-moderate linear-scan-conservative; do
    /usr/bin/time -f "%e %M" -o "$log.time" ./target/release/thermocline run \
      --workload telescope-multiphase --manager "$t" --fast-capacity 768GiB \
      --set "workload.thp=$thp" --set metrics.hot_map_bins=128 --json /dev/null > /dev/null 2>&1
    read -r wall kb < "$log.time"
    v=$([ "$thp" = true ] && echo thp || echo 4k)
    echo "$day,$commit,telescope-multiphase-$v/$t/wall,$wall,s" >> "$out"
    echo "$day,$commit,telescope-multiphase-$v/$t/peak-rss,$((kb / 1024)),MiB" >> "$out"
  done
done
tail -n 3 "$out"
