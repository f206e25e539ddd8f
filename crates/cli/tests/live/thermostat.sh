# The README's live example in the guest: the daemon starts masim on
# live-hotcold.cfg and Thermostat tiers it; the kernel is asked where the
# pages ended.
# The example's hot phase is 60 s; here it lasts until the daemon has moved
# most of the cold region (up to 5 minutes on a loaded host), and then the
# script stops masim (SIGTERM: it verifies every byte and reports).
. /files/lib.sh
mkdir /tmp/ex
cp /files/live-thermostat.toml /tmp/ex/
sed 's/^60000$/300000/' /files/live-hotcold.cfg > /tmp/ex/live-hotcold.cfg
cd /tmp/ex
echo PROBE-BEGIN; thermocline probe --json; echo PROBE-END
thermocline daemon --config /tmp/ex/live-thermostat.toml > /tmp/daemon.out 2> /tmp/daemon.log &
D=$!
# 4500 pages: 55% of the cold region's 8192 (the test asks the kernel for
# 40%, and the daemon goes on moving while the kernel is read)
wait_metric 'thermocline_pages{tier="memory_tier67"}' 4500 300
echo METRICS-BEGIN; cat /tmp/metrics; echo METRICS-END
P=$(sed -n 's/^masim: pid \([0-9]*\),.*/\1/p' /tmp/daemon.out)
HOT=$(sed -n 's/^masim: region hot at //p' /tmp/daemon.out)
COLD=$(sed -n 's/^masim: region cold at //p' /tmp/daemon.out)
echo PLACE-BEGIN; thermocline probe --pid "$P" --range "$HOT" --range "$COLD" --json; echo PLACE-END
# the daemon's figures again, so that the kernel's read is bracketed by two
# of the daemon's (it goes on moving pages in between)
echo METRICS-AFTER-BEGIN; wget -q -O - http://127.0.0.1:9477/metrics; echo METRICS-AFTER-END
kill -TERM "$P"
wait $D; echo DAEMON-EXIT=$?
echo OUT-BEGIN; cat /tmp/daemon.out; echo OUT-END
echo LOG-BEGIN; cat /tmp/daemon.log; echo LOG-END
