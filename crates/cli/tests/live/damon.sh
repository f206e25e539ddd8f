# The kernel's DAMON as telemetry and Telescope's migration rules on its
# regions (examples/live-damon.toml, on a shorter masim run given by --pid):
# the hot region starts on the slow node and ends on the fast one.
. /files/lib.sh
hot_cold_cfg > /tmp/w.cfg
start_masim /tmp/w.cfg
HOT=$(sed -n 's/^masim: region hot at //p' /tmp/masim.out)
COLD=$(sed -n 's/^masim: region cold at //p' /tmp/masim.out)
# migration waits 8 s here (the example's 5 s), so that the placement read
# right after the start is the start's (a probe takes seconds under TCG)
sed 's/warmup_s = 5.0/warmup_s = 8.0/' /files/live-damon.toml > /tmp/d.toml
cd /files
thermocline daemon --config /tmp/d.toml --pid $M > /tmp/daemon.out 2> /tmp/daemon.log &
D=$!
while ! grep -q '"event":"attached"' /tmp/daemon.log; do sleep 0.2; done
# start_in_slow has moved the pages
sleep 1
echo EARLY-BEGIN; thermocline probe --pid "$M" --range "$HOT" --range "$COLD" --json; echo EARLY-END
echo KDAMOND-BEGIN; cat /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds; echo KDAMOND-END
sleep 20
echo LATE-BEGIN; thermocline probe --pid "$M" --range "$HOT" --range "$COLD" --json; echo LATE-END
# The regions gauge is the manager's last read of the kernel's regions:
# under TCG one read can come back before DAMON refilled them (seen once in
# CI, 0 regions at the scrape after 20 s of migrations), so look up to five
# times, a second apart, for a read with regions.
for i in 1 2 3 4 5; do
  wget -q -O /tmp/metrics http://127.0.0.1:9477/metrics
  awk '/name="regions"/ { exit !($2 >= 3) }' /tmp/metrics && break
  sleep 1
done
echo METRICS-BEGIN; grep -E "^thermocline_(moved|manager|pages)" /tmp/metrics; echo METRICS-END
kill -TERM $D; wait $D; echo DAEMON-EXIT=$?
echo KDAMOND-AFTER=$(cat /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds)
kill -TERM $M; wait $M; echo MASIM-EXIT=$?
echo OUT-BEGIN; cat /tmp/daemon.out /tmp/masim.out; echo OUT-END
echo LOG-BEGIN; cat /tmp/daemon.log; echo LOG-END
