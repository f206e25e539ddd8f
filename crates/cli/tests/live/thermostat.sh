# The README's live example in the guest: the daemon starts masim on
# live-hotcold.cfg and Thermostat tiers it; the kernel is asked where the
# pages ended.
cd /files
echo PROBE-BEGIN; thermocline probe --json; echo PROBE-END
thermocline daemon --config /files/live-thermostat.toml > /tmp/daemon.out 2> /tmp/daemon.log &
D=$!
sleep 54
echo METRICS-BEGIN; wget -q -O - http://127.0.0.1:9477/metrics; echo METRICS-END
P=$(sed -n 's/^masim: pid \([0-9]*\),.*/\1/p' /tmp/daemon.out)
HOT=$(sed -n 's/^masim: region hot at //p' /tmp/daemon.out)
COLD=$(sed -n 's/^masim: region cold at //p' /tmp/daemon.out)
echo PLACE-BEGIN; thermocline probe --pid "$P" --range "$HOT" --range "$COLD" --json; echo PLACE-END
# the daemon's figures again, so that the kernel's read is bracketed by two
# of the daemon's (it goes on moving pages in between)
echo METRICS-AFTER-BEGIN; wget -q -O - http://127.0.0.1:9477/metrics; echo METRICS-AFTER-END
wait $D; echo DAEMON-EXIT=$?
echo OUT-BEGIN; cat /tmp/daemon.out; echo OUT-END
echo LOG-BEGIN; cat /tmp/daemon.log; echo LOG-END
