#!/bin/sh
# Keeps `reproduce --cache DIR` runs in the repository between machines:
# long reproductions (hours on 2 cores) outlive one session only if their
# finished runs are kept somewhere that lands with the code.
#
#   tools/run-cache.sh save DIR            # gzip DIR/cells/*.json into results/cells/CODE/
#   tools/run-cache.sh restore DIR [CODE]  # unpack results/cells/CODE/ into DIR/cells/
#
# DIR is a sweep directory (docs/sweeps.md), as `reproduce --cache DIR`
# and `sweep --out DIR` leave it; CODE is the commit that made the runs
# (each cell file names it), by default the commit checked out. A
# reproduction run with `--cache DIR` at that commit reads them instead of
# running them again.
#
# results/runs/ holds the reports of earlier commits in the run cache's
# layout of those commits (one flat DIR/*.json per run): check out the
# commit a RESULTS.md section names and use its own tools/run-cache.sh.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
store="$here/results/cells"
case "${1:-}" in
save)
    dir=${2:?usage: run-cache.sh save DIR}
    n=0
    for f in "$dir"/cells/*.json; do
        [ -e "$f" ] || continue
        code=$(sed -n 's/^  "code": "\(.*\)",$/\1/p' "$f" | head -n 1)
        [ -n "$code" ] || { echo "$f: no code in it, skipped" >&2; continue; }
        mkdir -p "$store/$code"
        out="$store/$code/$(basename "$f").gz"
        [ -e "$out" ] && continue
        gzip -9 -n -c "$f" > "$out.tmp" && mv "$out.tmp" "$out"
        n=$((n + 1))
    done
    echo "saved $n new runs into $store"
    ;;
restore)
    dir=${2:?usage: run-cache.sh restore DIR [CODE]}
    code=${3:-$(git -C "$here" rev-parse --short=12 HEAD)}
    mkdir -p "$dir/cells"
    n=0
    for f in "$store/$code"/*.json.gz; do
        [ -e "$f" ] || continue
        out="$dir/cells/$(basename "$f" .gz)"
        [ -e "$out" ] && continue
        gzip -d -c "$f" > "$out.tmp" && mv "$out.tmp" "$out"
        n=$((n + 1))
    done
    echo "restored $n runs of $code into $dir/cells"
    ;;
*)
    echo "usage: run-cache.sh save DIR | restore DIR [CODE]" >&2
    exit 2
    ;;
esac
