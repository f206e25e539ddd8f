#!/usr/bin/env bash
# How good a sweep cell's memory estimate (crates/sweep/src/
# host_memory.rs, what each Ray task asks for) is: for a family of runs
# (both machines; per-page managers; a large model; an executed kernel; a
# linear scan on the rate machine), the peak RSS of `thermocline run`
# (/usr/bin/time) over the estimate `sweep --dry-run` gives for the same
# run. A ratio above 1 is an estimate too low. Appends
# cell-memory/WORKLOAD/MANAGER,ratio and cell-memory/max-ratio to
# results.csv; prints the table. About 2 minutes, one run at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
. benchsuite/lib.sh
cargo build --release -q -p thermocline
bin=./target/release/thermocline
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# workload manager backend duration_s
family="redis-hotspot first-touch exact 10
tpcc kstaled exact 10
tpcc heteroos-lru exact 10
analytics thermostat exact 10
zipf-1g first-touch exact 10
heteroos-memlat:6 memos exact 10
heteroos-memlat:6 autonuma-tiering exact 10
telescope-subtb-100g first-touch exact 10
npb-cg-sketch-small damon-tiering exact 10
telescope-multiphase damon-moderate rate 336
telescope-scattered telescope-bounded rate 60
telescope-needle linear-scan-moderate rate 30
memcached-ycsb linear-scan-moderate rate 30"
printf '%-24s %-22s %-5s %10s %10s %6s\n' workload manager back peak_MiB est_MiB ratio
max=0
while read -r w m b d; do
  printf 'duration_s = %s\n[[runs]]\nworkload = "%s"\nmanager = "%s"\nbackend = "%s"\n' "$d" "$w" "$m" "$b" > "$work/spec.toml"
  est=$("$bin" sweep "$work/spec.toml" --out "$work/none" --dry-run | head -n 1 | awk '{print $3, $4}')
  est_b=$(python3 -c "import sys; v,u=sys.argv[1:]; print(int(float(v)*{'B':1,'KiB':2**10,'MiB':2**20,'GiB':2**30,'TiB':2**40}[u]))" $est)
  peak_kb=$(/usr/bin/time -f %M "$bin" run --workload "$w" --manager "$m" --backend "$b" --duration "$d" --quiet 2>&1 >/dev/null | tail -n 1)
  ratio=$(python3 -c "print(f'{$peak_kb*1024/$est_b:.3f}')")
  max=$(python3 -c "print(max($max, $ratio))")
  printf '%-24s %-22s %-5s %10.1f %10.1f %6s\n' "$w" "$m" "$b" "$(python3 -c "print($peak_kb/1024)")" "$(python3 -c "print($est_b/2**20)")" "$ratio"
  record "cell-memory/$w/$m" "$ratio" peak-over-estimate "thermocline run --workload $w --manager $m --backend $b --duration $d (peak RSS) over sweep --dry-run's estimate"
done <<< "$family"
record cell-memory/max-ratio "$max" peak-over-estimate "bash benchsuite/cell-memory.sh"
echo "largest peak/estimate: $max (above 1: an estimate too low)"
