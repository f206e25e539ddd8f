# What the guest scripts here share: crates/cli/tests/live.rs gives every
# guest this file as /files/lib.sh, and a script sources it with
# `. /files/lib.sh`.

# A MASIM config: a 4 MiB hot and a 16 MiB cold region, both written once,
# then 60 s in which only the hot one is.
hot_cold_cfg() {
  cat <<'CFG'
hot, 4194304
cold, 16777216

fill
500
hot, 0, 4096, 1
cold, 0, 4096, 1

hot only
60000
hot, 1, 64, 1
CFG
}

# Waits until the masim whose output goes to the file $1 has its regions
# ready.
wait_ready() {
  while ! grep -q "regions ready" "$1"; do sleep 0.2; done
}

# Starts `thermocline masim` on the config $1 in the background, its output
# in /tmp/masim.out and /tmp/masim.err, and waits for its regions; M is its
# pid.
start_masim() {
  thermocline masim "$1" > /tmp/masim.out 2>/tmp/masim.err &
  M=$!
  wait_ready /tmp/masim.out
}

# Waits until the daemon's metric $1 (a whole line's name, as served at
# 127.0.0.1:9477) is at least $2, or $3 seconds have passed; the metrics
# last read are in /tmp/metrics. A loaded host slows the TCG guest down, so
# the scripts wait for what they need rather than for a fixed time.
wait_metric() {
  i=0
  until wget -q -O /tmp/metrics http://127.0.0.1:9477/metrics \
    && awk -v n="$1" -v min="$2" '$1 == n && $2 + 0 >= min + 0 { ok = 1 } END { exit !ok }' /tmp/metrics \
    || [ $i -ge $(( $3 * 5 )) ]; do
    i=$((i + 1)); sleep 0.2
  done
}
