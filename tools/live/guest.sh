#!/usr/bin/env bash
# Boots the live tests' guest (../shared/reference/live-testbed.md) under QEMU's
# TCG and runs SCRIPT in it as root: Debian's 6.12 kernel, 2 CPUs, node 0 with
# the CPUs (fast) and node 1 CPU-less and slower by HMAT (a CXL-like tier), and
# a zram swap device (a compressed tier). The given programs are copied in with
# the shared libraries they need. SCRIPT's output is the guest console's; the
# exit code is SCRIPT's (124 if the guest did not finish in time).
#
# Usage: guest.sh [-m FAST_MIB] [-s SLOW_MIB] [-z ZRAM_MIB] [-t TIMEOUT_S] [-H]
#                 [-b PROGRAM]... [-f FILE]... SCRIPT
# Programs land in /bin of the guest under their own names, files in /files.
# Transparent huge pages are off ("never", on the kernel's command line and
# in sysfs) unless -H sets them to "always". debugfs is mounted on
# /sys/kernel/debug (split_huge_pages is there).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fast=384 slow=384 zram=128 timeout=300 thp=never bins=() files=()
while getopts "m:s:z:t:Hb:f:" o; do
  case $o in
    m) fast=$OPTARG ;; s) slow=$OPTARG ;; z) zram=$OPTARG ;; t) timeout=$OPTARG ;;
    H) thp=always ;;
    b) bins+=("$OPTARG") ;;
    f) files+=("$OPTARG") ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: guest.sh [-m MiB] [-s MiB] [-z MiB] [-t S] [-H] [-b PROGRAM]... [-f FILE]... SCRIPT" >&2; exit 2; }
script=$1
[ -r "$script" ] || { echo "guest.sh: $script: cannot read" >&2; exit 2; }
kdir=${THERMOCLINE_GUEST_KERNEL:-"$here/../../target/live/kernel"}
[ -s "$kdir/vmlinuz" ] || bash "$here/fetch-kernel.sh" "$kdir"

root=$(mktemp -d)
chmod 755 "$root"
out=$(mktemp)
trap 'rm -rf "$root" "$root.initrd" "$out"' EXIT
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,lib,lib64,modules,mnt,files}
cp /bin/busybox "$root/bin/busybox"
for a in $(/bin/busybox --list); do [ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"; done
for b in "${bins[@]}"; do
  cp "$b" "$root/bin/"
  # the program's shared libraries, at the paths its loader looks in
  for lib in $(ldd "$b" 2>/dev/null | grep -o '/[^ ]*' || true); do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
done
cp "$kdir"/modules/*.ko "$root/modules/"
for f in "${files[@]}"; do cp "$f" "$root/files/"; done
cp "$script" "$root/test.sh"
cat > "$root/init" <<INIT
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
mount -t debugfs none /sys/kernel/debug 2>/dev/null
for m in lz4_compress lz4hc_compress zram; do insmod /modules/\$m.ko 2>/dev/null; done
if [ -e /sys/block/zram0/disksize ]; then
  echo ${zram}M > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null && swapon /dev/zram0
fi
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
echo $thp > /sys/kernel/mm/transparent_hugepage/enabled
cd /tmp
echo GUEST-START
sh /test.sh
echo "GUEST-EXIT=\$?"
echo o > /proc/sysrq-trigger
sleep 5
INIT
chmod +x "$root/init" "$root/test.sh"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$root.initrd"

mem=$((fast + slow))
set +e
timeout "$timeout" qemu-system-x86_64 -accel tcg -m "${mem}M" -smp 2 -nographic -no-reboot \
  -kernel "$kdir/vmlinuz" -initrd "$root.initrd" \
  -append "console=ttyS0 quiet panic=-1 transparent_hugepage=$thp" \
  -object memory-backend-ram,id=m0,size="${fast}M" -object memory-backend-ram,id=m1,size="${slow}M" \
  -numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,memdev=m1 \
  -machine hmat=on \
  -numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-latency,latency=80 \
  -numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-bandwidth,bandwidth=20G \
  -numa hmat-lb,initiator=0,target=1,hierarchy=memory,data-type=access-latency,latency=300 \
  -numa hmat-lb,initiator=0,target=1,hierarchy=memory,data-type=access-bandwidth,bandwidth=5G \
  </dev/null 2>&1 | tr -d '\r' | tee "$out"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 124 ] && { echo "guest.sh: the guest did not finish in ${timeout} s" >&2; exit 124; }
code=$(sed -n 's/^GUEST-EXIT=//p' "$out" | tail -1)
[ -n "$code" ] || { echo "guest.sh: the guest ended without running the script to its end (qemu exit $rc)" >&2; exit 125; }
exit "$code"
