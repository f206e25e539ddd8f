# The kernel's own tiering as a baseline (examples/live-kernel-tiering.toml):
# refused without [kernel] allow_host_settings; NUMA balancing's tiering
# mode and then DAMOS migrate_hot/migrate_cold each bring a hot region that
# starts on the slow node to the fast one; the settings and the kdamond are
# gone after SIGTERM.
. /files/lib.sh
hot_cold_cfg > /tmp/w.cfg
S=/sys/kernel/mm/damon/admin/kdamonds
echo BEFORE numa_balancing=$(cat /proc/sys/kernel/numa_balancing) demotion_enabled=$(cat /sys/kernel/mm/numa/demotion_enabled)
grep -v allow_host_settings /files/live-kernel-tiering.toml > /tmp/refused.toml
echo REFUSED-BEGIN
thermocline daemon --config /tmp/refused.toml --pid 1
echo REFUSED-EXIT=$?
echo REFUSED-END
run() { # $1: mode, $2: seconds
  sed "s/mode = \"numa-balancing\"/mode = \"$1\"/" /files/live-kernel-tiering.toml > /tmp/k.toml
  thermocline masim /tmp/w.cfg > /tmp/masim.out 2>/tmp/masim.err &
  M=$!
  while ! grep -q "regions ready" /tmp/masim.out; do sleep 0.2; done
  HOT=$(sed -n 's/^masim: region hot at //p' /tmp/masim.out)
  COLD=$(sed -n 's/^masim: region cold at //p' /tmp/masim.out)
  thermocline daemon --config /tmp/k.toml --pid $M > /tmp/daemon.out 2> /tmp/daemon.log &
  D=$!
  # the settings change (and the kdamond starts) just after attaching, at
  # the "kernel tiering" event: sampling at "attached" raced it
  while ! grep -q '"event":"kernel tiering"' /tmp/daemon.log; do sleep 0.2; done
  echo "$1-DURING" numa_balancing=$(cat /proc/sys/kernel/numa_balancing) demotion_enabled=$(cat /sys/kernel/mm/numa/demotion_enabled) kdamonds=$(cat $S/nr_kdamonds)
  sleep "$2"
  echo "$1-PLACE-BEGIN"; thermocline probe --pid "$M" --range "$HOT" --range "$COLD" --json; echo "$1-PLACE-END"
  kill -TERM $D; wait $D; echo "$1-DAEMON-EXIT=$?"
  echo "$1-AFTER" numa_balancing=$(cat /proc/sys/kernel/numa_balancing) demotion_enabled=$(cat /sys/kernel/mm/numa/demotion_enabled) kdamonds=$(cat $S/nr_kdamonds)
  kill -TERM $M; wait $M; echo "$1-MASIM-EXIT=$?"
  echo "$1-OUT-BEGIN"; cat /tmp/daemon.out /tmp/masim.out; echo "$1-OUT-END"
  echo "$1-LOG-BEGIN"; grep -E '"event":"(kernel tiering|kernel tiering stopped|attached|stopped|failed)"' /tmp/daemon.log; tail -2 /tmp/daemon.log; echo "$1-LOG-END"
}
run numa-balancing 15
# the guest boots with numa_balancing = 1, which moves pages to the CPUs'
# node by itself: DAMOS alone is measured with it off (the daemon restores
# whatever it finds, so BEFORE/AFTER compare with 0 from here on)
echo 0 > /proc/sys/kernel/numa_balancing
echo BEFORE-DAMOS numa_balancing=$(cat /proc/sys/kernel/numa_balancing) demotion_enabled=$(cat /sys/kernel/mm/numa/demotion_enabled)
run damos 15
# What 6.12's DAMOS quota goals accept (a kdamond of the test's own)
echo 1 > $S/nr_kdamonds
echo 1 > $S/0/contexts/nr_contexts
echo 1 > $S/0/contexts/0/schemes/nr_schemes
echo 1 > $S/0/contexts/0/schemes/0/quotas/goals/nr_goals
for m in user_input some_mem_psi_us node_mem_used_bp node_mem_free_bp; do
  if echo $m > $S/0/contexts/0/schemes/0/quotas/goals/0/target_metric 2>/dev/null; then echo "GOAL $m accepted"; else echo "GOAL $m refused"; fi
done
echo 0 > $S/nr_kdamonds
