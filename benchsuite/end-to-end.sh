#!/usr/bin/env bash
# Issue 48, item 1: what a whole `thermocline run` spends per access, not
# what the machine's criterion benchmark shows. The run: one 1 GiB MASIM
# region, random 64 B loads, 200 M accesses (benchsuite/random-1g.cfg),
# first-touch, half the footprint fast, on the default machine (its LLC
# on). Appends to results.csv:
#   end-to-end/random-1g/accesses-per-s       the whole run, as a user waits for it
#   end-to-end/random-1g-llc-off/accesses-per-s   the same with the LLC model off
#   end-to-end/c-random-reads/reads-per-s     the host's limit: a C loop of
#     independent random 8-byte reads over 1 GiB, before and after
#   end-to-end/random-1g/ratio-to-c-loop      the first over that limit
#   end-to-end/random-1g/ns-per-access/PART   host ns per access by part, from
#     perf's samples of the whole run (machine: the access path, the TLB,
#     the page walk, the LLC model and the performance model; generation:
#     the workload's accesses; other: the engine, windows, setup, the kernel)
# Needs perf (linux-perf). Run from anywhere, with nothing else running.
set -euo pipefail
cd "$(dirname "$0")/.."
. benchsuite/lib.sh
cargo build --release -q
bin=./target/release/thermocline
cfg=benchsuite/random-1g.cfg
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
base="thermocline run --workload $cfg --manager first-touch --fast-capacity 50%"

# wall-clock throughput: the median of RUNS runs (default 3)
throughput() { # NAME EXTRA-ARGS...
  local name=$1; shift
  local walls=()
  for _ in $(seq "${RUNS:-3}"); do
    /usr/bin/time -f "%e" -o "$tmp/t" "$bin" run --workload "$cfg" --manager first-touch \
      --fast-capacity 50% --quiet --json "$tmp/r.json" "$@" > /dev/null
    walls+=("$(cat "$tmp/t")")
  done
  local n wall
  n=$(python3 -c "import json; print(json.load(open('$tmp/r.json'))['accesses'])")
  wall=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(( (${#walls[@]} + 1) / 2 ))p")
  record "end-to-end/$name/accesses-per-s" "$(python3 -c "print(round($n / $wall))")" accesses/s \
    "$base $* (median of ${RUNS:-3})"
  echo "$n"
}
# the host's limit, in the same minutes: a C loop of random 8-byte reads
gcc -O2 -o "$tmp/random-reads" benchsuite/random-reads.c
c_before=$("$tmp/random-reads")
n=$(throughput random-1g)
throughput random-1g-llc-off --set machine.llc.bytes=0 > /dev/null
c_after=$("$tmp/random-reads")
c=$(python3 -c "print(round(($c_before + $c_after) / 2))")
record "end-to-end/c-random-reads/reads-per-s" "$c" reads/s \
  "gcc -O2 benchsuite/random-reads.c; mean of a run before and after the thermocline runs"
e2e=$(grep ",end-to-end/random-1g/accesses-per-s," "$out" | tail -n 1 | cut -d, -f4)
record "end-to-end/random-1g/ratio-to-c-loop" "$(python3 -c "print(round($e2e / $c, 3))")" ratio \
  "end-to-end/random-1g/accesses-per-s over end-to-end/c-random-reads/reads-per-s (issue 48's goal: 0.75)"

# where the time of one run goes, by perf's samples
perf record -q -F 999 -o "$tmp/perf.data" "$bin" run --workload "$cfg" --manager first-touch \
  --fast-capacity 50% --quiet --json /dev/null > /dev/null 2>&1
/usr/bin/time -f "%e" -o "$tmp/t" "$bin" run --workload "$cfg" --manager first-touch \
  --fast-capacity 50% --quiet --json /dev/null > /dev/null
perf report -i "$tmp/perf.data" --no-children --sort symbol --stdio 2>/dev/null \
  | python3 benchsuite/perf_parts.py "$(cat "$tmp/t")" "$n" \
  | record_rows "$base; perf record -F 999, samples by symbol"
tail -n 6 "$out"
