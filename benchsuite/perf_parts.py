"""Sorts `perf report --sort symbol --stdio` lines (stdin) into the parts
of an end-to-end run and prints `benchmark,value,unit` rows: host ns per
access of each part, from its share of the samples, the run's wall time
(argv[1], seconds) and its accesses (argv[2])."""
import re
import sys

PARTS = [
    # the workload making its accesses
    ("generation", ("thermocline_workloads::", "thermocline_masim::", "Zipf", "__ieee754")),
    # the simulated machine: access path, TLB, walks, LLC, performance model
    ("machine", ("thermocline_sim::", "thermocline_model::")),
]

wall, accesses = float(sys.argv[1]), int(sys.argv[2])
shares = {name: 0.0 for name, _ in PARTS}
shares["other"] = 0.0
for line in sys.stdin:
    m = re.match(r"\s*([0-9.]+)%\s+\[[.k]\]\s+(.*)", line)
    if not m:
        continue
    pct, sym = float(m.group(1)), m.group(2)
    part = next((name for name, keys in PARTS if any(k in sym for k in keys)), "other")
    shares[part] += pct
total = sum(shares.values()) or 1.0
for name, pct in shares.items():
    ns = wall * 1e9 / accesses * pct / total
    print(f"end-to-end/random-1g/ns-per-access/{name},{ns:.2f},ns")
