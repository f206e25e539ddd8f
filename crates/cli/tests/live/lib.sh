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
