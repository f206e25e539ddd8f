# What the daemon meets on real hosts: a target it may not touch (EPERM, run
# as another user), a target that exits mid-run, and a slow node too small
# for what the policy wants to move there (ENOMEM). masim runs until it is
# told to stop.
. /files/lib.sh
cat > /tmp/short.cfg <<'CFG'
hot, 1048576
cold, 67108864

long
300000
hot, 1, 64, 1
CFG
cat > /tmp/d.toml <<'CFG'
[target]
pid = 1
[manager]
name = "thermostat"
params = { scan_period_s = 2.0, sample_fraction = 1.0, slow_poison_max = 50 }
[daemon]
metrics = ""
window_s = 1.0
CFG
start_masim /tmp/short.cfg
mkdir -p /etc
echo "root:x:0:0:root:/:/bin/sh" > /etc/passwd
echo "nobody:x:65534:65534:nobody:/tmp:/bin/sh" >> /etc/passwd
printf "root:x:0:\nnogroup:x:65534:\n" > /etc/group
echo EPERM-BEGIN
su -s /bin/sh nobody -c "thermocline daemon --config /tmp/d.toml --pid $M"
echo EPERM-EXIT=$?
echo EPERM-END
# Most of the slow node is taken by a hugetlb pool (unmovable, never
# reclaimed), and with swappiness 0 the kernel does not swap the node's
# other pages out to make room: moves there fail with ENOMEM.
echo 36 > /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages
grep -h HugePages_Total /sys/devices/system/node/node1/meminfo
echo 0 > /proc/sys/vm/swappiness
thermocline daemon --config /tmp/d.toml --pid $M > /tmp/daemon.out 2>/tmp/daemon.log &
D=$!
# once a window has logged moves refused for lack of memory (up to 4
# minutes on a loaded host), masim is stopped: it verifies every byte,
# reports and exits, and the daemon ends with it
i=0
until grep -q '"nomem":[1-9]' /tmp/daemon.log || [ $i -ge 1200 ]; do
  i=$((i + 1)); sleep 0.2
done
kill -TERM $M
wait $D; echo DAEMON-EXIT=$?
wait $M; echo MASIM-EXIT=$?
echo OUT-BEGIN; cat /tmp/daemon.out /tmp/masim.out; echo OUT-END
echo LOG-BEGIN; tail -3 /tmp/daemon.log; echo LOG-END
