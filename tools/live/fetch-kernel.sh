#!/usr/bin/env bash
# Fetches the guest kernel of the live tests: Debian's 6.12 from
# bookworm-backports (DAMON, HMAT memory tiers, soft-dirty, PAGEMAP_SCAN, zram;
# see ../shared/reference/live-testbed.md), pinned so the tests meet the kernel
# they were written against. Leaves DIR/vmlinuz and DIR/modules/*.ko (zram and
# what it needs, decompressed: busybox insmod cannot read .ko.xz).
# Usage: fetch-kernel.sh [DIR]   (default: target/live/kernel)
set -euo pipefail
VERSION=6.12.95
PKG="linux-image-${VERSION}+deb12-amd64"
DIR=${1:-"$(cd "$(dirname "$0")/../.." && pwd)/target/live/kernel"}
[ -s "$DIR/vmlinuz" ] && [ -s "$DIR/modules/zram.ko" ] && exit 0
bash "$(dirname "$0")/install-deps.sh"
echo "fetch-kernel.sh: downloading Debian's $PKG (about 100 MB) into $DIR, for the live tests' QEMU guest" >&2
mkdir -p "$DIR/deb" "$DIR/modules"
cd "$DIR/deb"
if ! ls "${PKG}"_*.deb >/dev/null 2>&1; then
  apt-get download "$PKG" >/dev/null 2>&1 || { apt-get update -qq && apt-get download "$PKG"; }
fi
rm -rf x && mkdir x && dpkg-deb -x "${PKG}"_*.deb x
cp x/boot/vmlinuz-* "$DIR/vmlinuz"
cp x/boot/config-* "$DIR/config"
# zram and its compressors (lz4 is zram's default in Debian's config)
for m in zram lz4_compress lz4hc_compress zsmalloc; do
  f=$(find x/lib/modules -name "$m.ko.xz" | head -1)
  [ -n "$f" ] && xz -dc "$f" > "$DIR/modules/$m.ko"
done
rm -rf x
[ -s "$DIR/modules/zram.ko" ] || { echo "fetch-kernel: no zram module in $PKG" >&2; exit 1; }
