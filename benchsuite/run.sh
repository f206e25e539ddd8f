#!/usr/bin/env bash
# Runs the criterion benchmarks and appends their figures to results.csv:
#   date,commit,benchmark,value,unit,load,command (benchsuite/lib.sh)
# Figures: simulated accesses per second (exact machine, LLC off, one core),
# host bytes per simulated 4 KiB page, the rate machine's telemetry samples
# and clock steps per second, and the wall time and peak memory of each
# technique's telescope-multiphase run (one core). Run from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
. benchsuite/lib.sh
log=$(mktemp)
cargo bench -p thermocline-sim --bench access -- --noplot | tee "$log"
cargo bench -p thermocline-engine --bench rate -- --noplot | tee -a "$log"
cargo bench -p thermocline-managers --bench schemes -- --noplot | tee -a "$log"
grep '^host-bytes-per-4k-page,' "$log" | sed 's/$/,bytes/' \
  | record_rows "cargo bench -p thermocline-sim --bench access"
python3 - <<'PY' | record_rows "cargo bench -p thermocline-sim --bench access; -p thermocline-engine --bench rate; -p thermocline-managers --bench schemes (criterion means)"
import json, glob, os
per_iter = 1 << 20
for est in sorted(glob.glob("target/criterion/exact/*/*/new/estimates.json")):
    parts = est.split(os.sep)
    name = "exact/" + parts[-4] + "/" + parts[-3]
    mean_ns = json.load(open(est))["mean"]["point_estimate"]
    print(f"{name},{per_iter / (mean_ns * 1e-9):.0f},accesses/s")
for est in sorted(glob.glob("target/criterion/rate/*/*/new/estimates.json")):
    parts = est.split(os.sep)
    name = "rate/" + parts[-4] + "/" + parts[-3]
    mean_ns = json.load(open(est))["mean"]["point_estimate"]
    unit = "steps/s" if "advance" in name else "samples/s"
    print(f"{name},{10_000 / (mean_ns * 1e-9):.0f},{unit}")
# the scheme engine: microseconds per profile of 10 000 regions
for est in sorted(glob.glob("target/criterion/schemes/*/new/estimates.json")):
    name = "schemes/" + est.split(os.sep)[-3]
    mean_ns = json.load(open(est))["mean"]["point_estimate"]
    print(f"{name},{mean_ns / 1e3:.1f},us/profile")
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
    cmd="thermocline run --workload telescope-multiphase --manager $t --fast-capacity 768GiB --set workload.thp=$thp --set metrics.hot_map_bins=128"
    record "telescope-multiphase-$v/$t/wall" "$wall" s "$cmd"
    record "telescope-multiphase-$v/$t/peak-rss" "$((kb / 1024))" MiB "$cmd"
  done
done
tail -n 3 "$out"
