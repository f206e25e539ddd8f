# THPs moved whole (issue #23): with THP "always", masim's hot 4 MiB and
# cold 16 MiB regions are faulted in as 2 MiB pages; torture moves random
# pages between the two nodes (no page-outs: they split THPs on purpose).
# The kernel is asked whether the THPs are still there (AnonHugePages) and
# what it migrated (/proc/vmstat); masim checks every byte.
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
