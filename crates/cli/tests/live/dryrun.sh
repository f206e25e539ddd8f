# Dry-run decides and moves nothing; SIGHUP re-reads the config.
cat > /tmp/w.cfg <<'CFG'
hot, 1048576
cold, 16777216

short
20000
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
sleep 8
kill -HUP $D
sleep 6
echo METRICS-BEGIN; wget -q -O - http://127.0.0.1:9477/metrics | grep -E "^thermocline_(would_move|moved_pages|dry_run)"; echo METRICS-END
P=$(sed -n 's/^masim: pid \([0-9]*\),.*/\1/p' /tmp/daemon.out)
echo PLACE-BEGIN; thermocline probe --pid "$P" --json; echo PLACE-END
wait $D; echo DAEMON-EXIT=$?
echo OUT-BEGIN; cat /tmp/daemon.out; echo OUT-END
echo LOG-BEGIN; grep -E '"event":"(reloaded|attached|stopped)"' /tmp/daemon.log; echo LOG-END
