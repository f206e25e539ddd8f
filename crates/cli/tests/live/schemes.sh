# examples/damon-tiering.toml, the config `thermocline run` reads, run
# unchanged by `thermocline daemon --pid` on a masim hot/cold process: the
# same manager (damon-moderate, its Accessed bits read by refault sampling
# here) acting by the same schemes. The cold region goes to the slow node.
. /files/lib.sh
hot_cold_cfg > /tmp/w.cfg
start_masim /tmp/w.cfg
HOT=$(sed -n 's/^masim: region hot at //p' /tmp/masim.out)
COLD=$(sed -n 's/^masim: region cold at //p' /tmp/masim.out)
cd /files
thermocline daemon --config /files/damon-tiering.toml --pid $M > /tmp/daemon.out 2> /tmp/daemon.log &
D=$!
while ! grep -q '"event":"attached"' /tmp/daemon.log; do sleep 0.2; done
sleep ${SCHEMES_S:-30}
echo PLACE-BEGIN; thermocline probe --pid "$M" --range "$HOT" --range "$COLD" --json; echo PLACE-END
echo METRICS-BEGIN; wget -q -O - http://127.0.0.1:9477/metrics | grep -E "^thermocline_(moved|manager|pages|memory_pressure|refaults|sampling)"; echo METRICS-END
kill -TERM $D; wait $D; echo DAEMON-EXIT=$?
kill -TERM $M; wait $M; echo MASIM-EXIT=$?
echo OUT-BEGIN; cat /tmp/daemon.out /tmp/masim.out; echo OUT-END
echo LOG-BEGIN; cat /tmp/daemon.log; echo LOG-END
