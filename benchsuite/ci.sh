#!/usr/bin/env bash
# CI's wall time, and what the test command costs a developer: `.ci/run` on
# a clean clone of HEAD in a scratch directory, its log parsed (by the
# phase marks .ci/run prints) into ci/{total,test-build,tests,clippy,
# live-tests,python-package,python-tests,book}/wall (s) in results.csv.
# About half an hour; run with nothing else running.
# Usage: benchsuite/ci.sh            (clones and runs)
#        benchsuite/ci.sh LOG TOTAL_S COMMIT LOAD
#          (records a run already made: its log, wall time, the commit it
#          ran at and the load average when it started)
set -euo pipefail
cd "$(dirname "$0")/.."
. benchsuite/lib.sh
if [ $# -eq 4 ]; then
  log=$1 total=$2 commit=$3 load=$4
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  git clone -q . "$work/clone"
  log=$work/ci.log
  start=$(date +%s)
  # a failed run's whole log is kept: the failure is often a flaky test
  # whose message is far above the last lines
  (cd "$work/clone" && bash .ci/run) > "$log" 2>&1 || {
    mkdir -p target/benchsuite && cp "$log" target/benchsuite/ci-failed.log
    tail -n 20 "$log"
    echo "ci.sh: .ci/run failed; its log: target/benchsuite/ci-failed.log" >&2
    exit 1
  }
  total=$(( $(date +%s) - start ))
fi
python3 - "$log" "$total" <<'PY' | record_rows "bash .ci/run on a clean clone of HEAD"
import re, sys
log, total = open(sys.argv[1]).read(), float(sys.argv[2])
# .ci/run marks each phase: "== ci: NAME at S s"
marks = [(m.group(1), float(m.group(2))) for m in re.finditer(r"^== ci: (.*) at (\d+) s$", log, re.M)]
length = {name: nxt - at for (name, at), (_, nxt) in zip(marks, marks[1:])}
m = re.search(r"Finished `test` profile .* in (?:(\d+)m )?([\d.]+)s", log)
build = int(m.group(1) or 0) * 60 + float(m.group(2))
rows = [("total", total), ("test-build", build), ("tests", length["tests"] - build)]
rows += [(name.replace(" ", "-"), length[name]) for name in ("clippy", "live tests", "python package", "python tests", "book") if name in length]
for name, v in rows:
    print(f"ci/{name}/wall,{v:.0f},s")
PY
tail -n 5 "$out"
