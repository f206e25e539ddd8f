# thermocline exec: Thermostat tiers a masim command that exec starts; the
# command's exit code comes back through exec (a code, a signal, a signal
# sent on), and the kernel is asked where the pages ended. `monitor` looks
# at the same process, read-only.
. /files/lib.sh
cat > /tmp/w.cfg <<'CFG'
hot, 2097152
cold, 16777216

fill
1000
hot, 0, 4096, 1
cold, 0, 4096, 1

hot only
30000
hot, 1, 64, 1
CFG
thermocline exec --manager thermostat --set thermostat.scan_period_s=1 \
  --set thermostat.sample_fraction=1.0 --set thermostat.slow_poison_max=50 \
  -- thermocline masim /tmp/w.cfg > /tmp/exec.out 2> /tmp/exec.log &
E=$!
wait_ready /tmp/exec.out
P=$(sed -n 's/^masim: pid \([0-9]*\),.*/\1/p' /tmp/exec.out)
HOT=$(sed -n 's/^masim: region hot at //p' /tmp/exec.out)
COLD=$(sed -n 's/^masim: region cold at //p' /tmp/exec.out)
sleep 12
echo MONITOR-BEGIN; thermocline monitor --pid "$P" --once --json --writes --bin 1MiB --interval 3; echo MONITOR-EXIT=$?; echo MONITOR-END
echo MONITOR-TEXT-BEGIN; thermocline monitor --pid "$P" --once --writes --interval 1; echo MONITOR-TEXT-END
# Thermostat decides the cold units' fate a few periods in, at a pace that
# depends on how fast the emulated CPU runs: wait (up to 20 s, the rest of
# masim's run) until the kernel shows a page of the target on node 1
for i in $(seq 1 20); do grep -q ' N1=' /proc/$P/numa_maps 2> /dev/null && break; sleep 1; done
echo PLACE-BEGIN; thermocline probe --pid "$P" --range "$HOT" --range "$COLD" --json; echo PLACE-END
wait $E; echo EXEC-EXIT=$?
echo OUT-BEGIN; cat /tmp/exec.out; echo OUT-END
echo LOG-BEGIN; grep -E '"event":"(started|attached|tiering ended|stopped)"' /tmp/exec.log; grep '"event":"window"' /tmp/exec.log | tail -2; tail -1 /tmp/exec.log; echo LOG-END
# exit codes: a command that ends before it can be tiered, one killed by a
# signal, and SIGTERM sent to exec and on to its command
thermocline exec --manager thermostat -- sh -c 'exit 7' 2> /dev/null; echo CODE-EXIT=$?
thermocline exec --manager thermostat -- sh -c 'sleep 2; kill -KILL $$' 2> /dev/null; echo KILLED-EXIT=$?
thermocline exec --manager thermostat -- sleep 60 2> /tmp/fwd.log &
F=$!
while ! grep -q '"event":"attached"' /tmp/fwd.log; do sleep 0.2; done
kill -TERM $F
wait $F; echo FORWARD-EXIT=$?
echo FORWARD-BEGIN; grep '"event":"forwarded"' /tmp/fwd.log; echo FORWARD-END
