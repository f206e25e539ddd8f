#!/usr/bin/env bash
# Issue 25's goal: a valgrind-lackey trace of 7.3 GB replays at >= 10 M
# data accesses/s in under 1 GB of RSS, streamed from disk; and the same
# trace converted once to the binary format. Appends to results.csv:
#   lackey-7.3g/run/{wall,accesses-per-s,peak-rss}, lackey-7.3g/convert/wall,
#   trace-7.3g/run/{wall,accesses-per-s,peak-rss}
# Usage: benchsuite/trace.sh [LACKEY_FILE]
# Without a file it makes one (about 20 minutes; needs valgrind): lackey's
# output for `gzip -9` of the first 2 MB of /usr/bin/python3, cut at a line
# end to 7.3 GB. Run from the repository root, with nothing else running.
set -euo pipefail
cd "$(dirname "$0")/.."
. benchsuite/lib.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trace=${1:-}
if [ -z "$trace" ]; then
  trace=$work/gzip.lackey
  head -c 2000000 /usr/bin/python3 > "$work/in"
  valgrind --tool=lackey --trace-mem=yes --log-file="$trace" gzip -9 -c "$work/in" > /dev/null
  python3 - "$trace" 7300000000 <<'PY'
import os, sys
path, size = sys.argv[1], int(sys.argv[2])
if os.path.getsize(path) > size:
    with open(path, "rb+") as f:
        f.seek(size - 4096)
        cut = f.read(4096).rfind(b"\n")
        f.truncate(size - 4096 + cut + 1)
PY
fi
cargo build --release -q
bin=./target/release/thermocline
measure() { # name workload
  /usr/bin/time -f "%e %M" -o "$work/time" $bin run --workload "$2" --manager first-touch \
    --json "$work/r.json" > /dev/null 2>&1
  read -r wall kb < "$work/time"
  accesses=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['accesses'])" "$work/r.json")
  local cmd="thermocline run --workload $2 --manager first-touch"
  record "$1/run/wall" "$wall" s "$cmd"
  record "$1/run/accesses-per-s" "$(python3 -c "print(round($accesses / $wall))")" accesses/s "$cmd"
  record "$1/run/peak-rss" "$((kb / 1024))" MiB "$cmd"
}
measure lackey-7.3g "lackey:$trace"
/usr/bin/time -f "%e" -o "$work/time" $bin convert "lackey:$trace" "$work/t.trace" 2> /dev/null
record lackey-7.3g/convert/wall "$(cat "$work/time")" s "thermocline convert lackey:$trace OUT.trace"
measure trace-7.3g "trace:$work/t.trace"
tail -n 7 "$out"
