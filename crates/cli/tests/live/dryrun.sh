# Dry-run decides and moves nothing; SIGHUP re-reads the config. Each step
# waits for the daemon's own events rather than a fixed time: a loaded host
# slows the TCG guest down (CI once read the metrics before the daemon
# served them). masim runs until it is told to stop (SIGTERM: it verifies
# and reports, then the daemon ends with its target).
. /files/lib.sh
cat > /tmp/w.cfg <<'CFG'
hot, 1048576
cold, 16777216

long
300000
hot, 1, 64, 1
CFG
cat > /tmp/d.toml <<'CFG'
[target]
exec = ["thermocline", "masim", "w.cfg"]
[manager]
name = "thermostat"
params = { scan_period_s = 1.0, sample_fraction = 1.0, slow_poison_max = 50 }
[daemon]
metrics = "127.0.0.1:9477"
window_s = 1.0
dry_run = true
CFG
thermocline daemon --config /tmp/d.toml > /tmp/daemon.out 2> /tmp/daemon.log &
D=$!
attached() { n=$(grep -c '"event":"attached"' /tmp/daemon.log 2> /dev/null); echo "${n:-0}"; }
while [ "$(attached)" -lt 1 ]; do sleep 0.2; done
# windows (1 s) and scan periods (1 s) of decisions, then a reload
sleep 8
kill -HUP $D
while [ "$(attached)" -lt 2 ]; do sleep 0.2; done
# the reloaded manager's counters start from 0: wait (up to a minute) for
# its first decisions
wait_metric thermocline_would_move_pages_total 1 60
echo METRICS-BEGIN; grep -E "^thermocline_(would_move|moved_pages|dry_run)" /tmp/metrics; echo METRICS-END
P=$(sed -n 's/^masim: pid \([0-9]*\),.*/\1/p' /tmp/daemon.out)
echo PLACE-BEGIN; thermocline probe --pid "$P" --json; echo PLACE-END
kill -TERM "$P"
wait $D; echo DAEMON-EXIT=$?
echo OUT-BEGIN; cat /tmp/daemon.out; echo OUT-END
echo LOG-BEGIN; grep -E '"event":"(reloaded|attached|stopped)"' /tmp/daemon.log; echo LOG-END
