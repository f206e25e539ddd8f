# Shared by the benchsuite scripts (sourced, from the repository root): one
# row per figure appended to results.csv,
#   date,commit,benchmark,value,unit,load,command
# `load` is the 1-minute load average when the script started (these
# machines are shared: a figure measured under load says so); `command` is
# what was measured, quoted. The commit is marked -dirty when the code
# measured has uncommitted changes.
out=benchsuite/results.csv
header="date,commit,benchmark,value,unit,load,command"
[ -f "$out" ] || echo "$header" > "$out"
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- crates Cargo.toml Cargo.lock || commit="$commit-dirty"
day=$(date -u +%Y-%m-%d)
load=$(cut -d' ' -f1 /proc/loadavg)

# record BENCHMARK VALUE UNIT COMMAND
record() {
  local cmd=${4//\"/\"\"}
  printf '%s,%s,%s,%s,%s,%s,"%s"\n' "$day" "$commit" "$1" "$2" "$3" "$load" "$cmd" >> "$out"
}

# record_rows COMMAND: records each `benchmark,value,unit` line of stdin
record_rows() {
  local name value unit
  while IFS=, read -r name value unit; do
    record "$name" "$value" "$unit" "$1"
  done
}
