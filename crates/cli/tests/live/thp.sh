# THPs moved whole (issue #23): with THP "always", masim's hot 4 MiB and
# cold 16 MiB regions are faulted in as 2 MiB pages; torture moves random
# pages between the two nodes (no page-outs: they split THPs on purpose).
# The kernel is asked whether the THPs are still there (AnonHugePages) and
# what it migrated (/proc/vmstat); masim checks every byte. Then Thermostat
# tiers a fresh masim for 14 s: its regions are THPeligible, so the units it
# samples are collapsed back (MADV_COLLAPSE) when classified.
. /files/lib.sh
echo THP=$(cat /sys/kernel/mm/transparent_hugepage/enabled)
cat > /tmp/thp.cfg <<'CFG'
hot, 4194304
cold, 16777216

both
50000
hot, 1, 64, 9
cold, 1, 64, 1
CFG
huge() { awk '/^AnonHugePages:/ { s += $2 } END { print s + 0 }' /proc/$1/smaps; }
vm() { sed -n "s/^$1 //p" /proc/vmstat; }
start_masim /tmp/thp.cfg
echo HUGE-BEFORE-KB=$(huge $M)
S0=$(vm thp_migration_success); P0=$(vm thp_split_pmd)
thermocline torture --pid $M --moves 1000 --batch 32 --no-page-out
echo TORTURE-EXIT=$?
echo HUGE-AFTER-KB=$(huge $M)
echo THP-MIGRATED=$(( $(vm thp_migration_success) - S0 ))
echo THP-SPLIT-PMD=$(( $(vm thp_split_pmd) - P0 ))
grep -E '^(thp_migration|thp_split|pgmigrate_success)' /proc/vmstat
kill -USR1 $M
sleep 2
kill -TERM $M
wait $M; echo MASIM-EXIT=$?
cat /tmp/masim.out

# Thermostat under THP: 2 s periods, one unit of the 10 per batch, so the
# first batch is classified (and collapsed) about 6 s after the daemon
# attaches
cat > /tmp/thp-thermostat.toml <<'CFG'
[target]
pid = 1
[tiers]
compressed = false
[manager]
name = "thermostat"
params = { scan_period_s = 2.0, slow_poison_max = 50 }
[daemon]
window_s = 2.0
duration_s = 14.0
metrics = ""
CFG
thermocline masim /tmp/thp.cfg > /tmp/masim2.out 2>/tmp/masim2.err &
M=$!
while ! grep -q "regions ready" /tmp/masim2.out; do sleep 0.2; done
thermocline daemon --config /tmp/thp-thermostat.toml --pid $M > /tmp/daemon.out 2> /tmp/daemon.log
echo DAEMON-EXIT=$?
# the counters of the daemon's last window
echo THP-COLLAPSES=$(grep -o '"collapses":[0-9]*' /tmp/daemon.log | tail -1 | cut -d: -f2)
echo THP-SPLITS=$(grep -o '"splits":[0-9]*' /tmp/daemon.log | tail -1 | cut -d: -f2)
kill -USR1 $M
sleep 2
kill -TERM $M
wait $M; echo MASIM2-EXIT=$?
sed 's/^masim: verified/masim2: verified/' /tmp/masim2.out
cat /tmp/daemon.out
