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
300000
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
# depends on how fast the emulated CPU runs: wait (up to 60 s) until the
# kernel shows a page of the target on node 1
for i in $(seq 1 60); do grep -q ' N1=' /proc/$P/numa_maps 2> /dev/null && break; sleep 1; done
echo PLACE-BEGIN; thermocline probe --pid "$P" --range "$HOT" --range "$COLD" --json; echo PLACE-END
# masim's hot phase is long enough for a loaded host; stopped now (SIGTERM:
# it verifies every byte, reports and exits 0, and exec passes that on)
kill -TERM "$P"
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
# the placement baselines run on a command exec starts, under the kernel
# policy that gives theirs (set between fork and execve); a running
# process's policy cannot be set, so the daemon refuses them on a pid
cat > /tmp/b.cfg <<'CFG'
data, 8388608

read
4000
data, 0, 4096, 1
CFG
for m in interleave all-slow first-touch; do
  # a file per manager: the wait below must not read the last one's
  thermocline exec --manager $m -- thermocline masim /tmp/b.cfg > /tmp/b-$m.out 2> /tmp/b-$m.log &
  B=$!
  while ! grep -q "regions ready" /tmp/b-$m.out 2> /dev/null; do sleep 0.2; done
  P=$(sed -n 's/^masim: pid \([0-9]*\),.*/\1/p' /tmp/b-$m.out)
  R=$(sed -n 's/^masim: region data at //p' /tmp/b-$m.out)
  echo BASE-$m-BEGIN; thermocline probe --pid "$P" --range "$R" --json; echo BASE-$m-END
  wait $B; echo BASE-$m-EXIT=$?
  echo BASE-$m-LOG-BEGIN; grep -E '"event":"started"' /tmp/b-$m.log; tail -1 /tmp/b-$m.out; echo BASE-$m-LOG-END
done
thermocline exec --manager random -- true 2> /tmp/r.err; echo RANDOM-EXIT=$?
echo RANDOM-BEGIN; cat /tmp/r.err; echo RANDOM-END
sleep 30 &
S=$!
printf '[manager]\nname = "interleave"\n[target]\npid = %s\nsettle_s = 0\n' $S > /tmp/p.toml
thermocline daemon --config /tmp/p.toml 2> /tmp/p.err; echo PIDPOLICY-EXIT=$?
kill $S
echo PIDPOLICY-BEGIN; cat /tmp/p.err; echo PIDPOLICY-END
