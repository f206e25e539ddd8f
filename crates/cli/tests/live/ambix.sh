# Ambix through the daemon (examples/live-ambix.toml, with a smaller DRAM
# and a shorter masim run given by --pid): R from the kernel's DAMON, D from
# soft-dirty; the written-hot region starts on the slow node and ends in
# DRAM, and masim finds every byte intact.
. /files/lib.sh
hot_cold_cfg > /tmp/w.cfg
sed 's/dram_mib = 24/dram_mib = 8/' /files/live-ambix.toml > /tmp/a.toml
start_masim /tmp/w.cfg
HOT=$(sed -n 's/^masim: region hot at //p' /tmp/masim.out)
COLD=$(sed -n 's/^masim: region cold at //p' /tmp/masim.out)
thermocline daemon --config /tmp/a.toml --pid $M > /tmp/daemon.out 2> /tmp/daemon.log &
D=$!
while ! grep -q '"event":"attached"' /tmp/daemon.log; do sleep 0.2; done
sleep 1
echo EARLY-BEGIN; thermocline probe --pid "$M" --range "$HOT" --range "$COLD" --json; echo EARLY-END
sleep 14
echo LATE-BEGIN; thermocline probe --pid "$M" --range "$HOT" --range "$COLD" --json; echo LATE-END
echo METRICS-BEGIN; wget -q -O - http://127.0.0.1:9477/metrics | grep -E "^thermocline_(moved|manager|pages)"; echo METRICS-END
kill -TERM $D; wait $D; echo DAEMON-EXIT=$?
kill -TERM $M; wait $M; echo MASIM-EXIT=$?
echo OUT-BEGIN; cat /tmp/daemon.out /tmp/masim.out; echo OUT-END
echo LOG-BEGIN; cat /tmp/daemon.log; echo LOG-END
