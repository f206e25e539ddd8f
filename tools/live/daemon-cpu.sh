#!/bin/sh
# Measures what `thermocline daemon` costs in CPU on this host: it starts a
# `thermocline masim` process with one region of SIZE GiB written at random
# for the whole run, attaches the daemon to it (dry-run, the given manager,
# 1 s windows), and reads the daemon's CPU time (utime + stime of
# /proc/PID/stat, and the sum of its threads' schedstat run time, which has
# ns resolution) over DURATION seconds after a warm-up. Prints one line per
# run: % of a core, and % of a core per GiB the target has resident.
#
# Usage: daemon-cpu.sh [-b THERMOCLINE] [-s SIZE_GIB] [-m MANAGER] [-d DURATION_S]
#                      [-w WARMUP_S] [-p 'KEY = VALUE, ...'] [-W WINDOW_S]
# e.g. tools/live/daemon-cpu.sh -s 4 -m first-touch -d 60
# The binary defaults to target/release/thermocline (cargo build --release
# -p thermocline). POSIX sh and busybox suffice, so it runs in the test
# guest too (tools/live/guest.sh -f tools/live/daemon-cpu.sh, then
# `sh /files/daemon-cpu.sh -b thermocline ...`). Nothing is moved
# (dry_run = true; refault sampling, which Thermostat needs, still pages
# sampled pages out and back); no metrics port is opened; the masim
# process is stopped with SIGTERM at the end and verifies every byte (exit 3 if any
# was lost or corrupted, which this script reports as a failure).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin="$here/../../target/release/thermocline" size=4 manager=first-touch duration=60
warmup=10 params="" window=1
while getopts "b:s:m:d:w:p:W:" o; do
  case $o in
    b) bin=$OPTARG ;; s) size=$OPTARG ;; m) manager=$OPTARG ;; d) duration=$OPTARG ;;
    w) warmup=$OPTARG ;; p) params=$OPTARG ;; W) window=$OPTARG ;;
    *) exit 2 ;;
  esac
done
command -v "$bin" >/dev/null || { echo "daemon-cpu.sh: $bin: not built (cargo build --release -p thermocline)" >&2; exit 2; }
dir=$(mktemp -d)
masim_pid="" daemon_pid=""
cleanup() {
  # only the two processes this script started
  [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null || true
  [ -n "$masim_pid" ] && kill "$masim_pid" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
bytes=$(awk -v g="$size" 'BEGIN { printf "%.0f", g * 1024 * 1024 * 1024 }')
cat > "$dir/w.cfg" <<CFG
big, $bytes

random
3600000
big, 1, 64, 1
CFG
cat > "$dir/d.toml" <<CFG
[target]
pid = 1
[manager]
name = "$manager"
params = { $params }
[daemon]
window_s = $window
dry_run = true
metrics = ""
CFG

"$bin" masim --ready "$dir/ready" "$dir/w.cfg" > "$dir/masim.out" 2>&1 &
masim_pid=$!
for _ in $(seq 600); do [ -s "$dir/ready" ] && break; sleep 0.5; done
[ -s "$dir/ready" ] || { echo "daemon-cpu.sh: masim did not get ready" >&2; cat "$dir/masim.out" >&2; exit 1; }

"$bin" daemon --config "$dir/d.toml" --pid "$masim_pid" 2> "$dir/daemon.log" > "$dir/daemon.out" &
daemon_pid=$!
for _ in $(seq 600); do grep -q '"event":"attached"' "$dir/daemon.log" 2>/dev/null && break; sleep 0.1; done
grep -q '"event":"attached"' "$dir/daemon.log" || { echo "daemon-cpu.sh: the daemon did not attach" >&2; cat "$dir/daemon.log" >&2; exit 1; }
sleep "$warmup"
kill -0 "$daemon_pid" 2>/dev/null || { echo "daemon-cpu.sh: the daemon stopped" >&2; tail -5 "$dir/daemon.log" >&2; exit 1; }

ticks() { awk '{ s = $0; sub(/.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' "/proc/$1/stat"; }
run_ns() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%.0f", s }'; }
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
now() { cut -d" " -f1 /proc/uptime; }
t0=$(now) c0=$(ticks "$daemon_pid") r0=$(run_ns "$daemon_pid")
sleep "$duration"
t1=$(now) c1=$(ticks "$daemon_pid") r1=$(run_ns "$daemon_pid")
rss=$(awk '/^RssAnon:/ { print $2 * 1024 }' "/proc/$masim_pid/status")

kill "$daemon_pid"; wait "$daemon_pid" || true; daemon_pid=""
kill "$masim_pid"; status=0; wait "$masim_pid" || status=$?; masim_pid=""
grep -E "^masim: (verified|stopped)" "$dir/masim.out" || true
awk -v c0="$c0" -v c1="$c1" -v r0="$r0" -v r1="$r1" -v t0="$t0" -v t1="$t1" -v hz="$hz" \
    -v rss="$rss" -v win="$window" -v m="$manager" -v params="$params" 'BEGIN {
  wall = t1 - t0; gib = rss / 1073741824
  stat = (c1 - c0) / hz / wall * 100; sched = (r1 - r0) / 1e9 / wall * 100
  printf "daemon CPU (%s%s, dry-run, %s s windows) on a %.2f GiB masim process over %.0f s: %.3f%% of a core by /proc/PID/stat (utime+stime), %.3f%% by schedstat; %.4f%% per GiB\n", \
    m, params == "" ? "" : " " params, win, gib, wall, stat, sched, sched / gib
}'
[ "$status" -eq 0 ] || { echo "daemon-cpu.sh: masim exited $status (3: data lost or corrupted)" >&2; exit 1; }
