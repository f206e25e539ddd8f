#!/usr/bin/env bash
# Installs what the live tests need on a fresh Debian bookworm machine (root):
# QEMU and busybox from bookworm-backports (qemu-utils on these machines already
# comes from there, and apt refuses to mix suites for QEMU), cpio, and xz.
# Idempotent: a machine that has them is left alone.
set -euo pipefail
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
[ -x /bin/busybox ] && /bin/busybox --list | grep -qx sh || need+=(busybox-static)
command -v cpio >/dev/null || need+=(cpio)
command -v xz >/dev/null || need+=(xz-utils)
[ ${#need[@]} -eq 0 ] && exit 0
echo "install-deps.sh: installing ${need[*]} from Debian's bookworm-backports (adding /etc/apt/sources.list.d/backports.sources if missing), for the live tests' QEMU guest" >&2
if [ ! -e /etc/apt/sources.list.d/backports.sources ]; then
  awk 'NR<=6' /etc/apt/sources.list.d/debian.sources \
    | sed 's/^Suites:.*/Suites: bookworm-backports/' > /etc/apt/sources.list.d/backports.sources
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq -t bookworm-backports --no-install-recommends "${need[@]}" >/dev/null
