#!/usr/bin/env bash
# Issue 26's goals: the Python `run` within 5% of the CLI's time on the same
# run, and a 64-cell sweep on a local 2-CPU Ray cluster within 10% of a
# local `--jobs 2` sweep. Needs the package (tools/python/install.sh).
# Appends python/{run,cli-run}/wall-median and sweep-64/{local,ray}/wall to
# results.csv. Run from anywhere, with nothing else running.
set -euo pipefail
cd "$(dirname "$0")/.."
. benchsuite/lib.sh
py=${THERMOCLINE_PYTHON:-.venv/bin/python}
cargo build --release -q -p thermocline
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One run of about 1 s, five times each way: medians.
args=(--workload multiphase-2min --manager damon-tiering --backend rate --fast-capacity 50%)
"$py" - "$work" "${args[@]}" <<'PY' >> "$out.tmp"
import statistics, subprocess, sys, time
import thermocline
work, args = sys.argv[1], sys.argv[2:]
kw = dict(workload=args[1], manager=args[3], backend=args[5], fast_capacity=args[7])
def timed(f):
    t = time.perf_counter(); f(); return time.perf_counter() - t
py = [timed(lambda: thermocline.run(**kw)) for _ in range(5)]
cli = [timed(lambda: subprocess.run(["./target/release/thermocline", "run", *args, "--quiet"],
                                     check=True, capture_output=True)) for _ in range(5)]
print(f"python/run/wall-median,{statistics.median(py):.3f},s")
print(f"python/cli-run/wall-median,{statistics.median(cli):.3f},s")
PY
# 64 cells of about 0.15 s: jobs 2 here, then 2 Ray workers (ray.init not timed).
"$py" - "$work" <<'PY' >> "$out.tmp" 2>/dev/null
import sys, time
import ray, thermocline
work = sys.argv[1]
spec = {"name": "bench", "seeds": list(range(1, 17)), "duration_s": 8.0,
        "grid": {"workload": ["multiphase"], "backend": ["rate"],
                 "manager": ["ambix", "autonuma-tiering", "memos-placement", "kstaled"]}}
t = time.perf_counter(); thermocline.sweep(spec, f"{work}/local", jobs=2); local = time.perf_counter() - t
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
t = time.perf_counter(); thermocline.sweep(spec, f"{work}/ray", executor="ray"); remote = time.perf_counter() - t
print(f"sweep-64/local-jobs-2/wall,{local:.3f},s")
print(f"sweep-64/ray-2-workers/wall,{remote:.3f},s")
PY
record_rows "bash benchsuite/python.sh (python run vs CLI run, medians of 5; 64-cell sweep, jobs 2 vs 2 Ray workers)" < "$out.tmp"
rm "$out.tmp"
tail -n 4 "$out"
