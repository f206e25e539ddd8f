#!/bin/sh
# Keeps `reproduce --cache` reports in the repository between machines:
# long reproductions (hours on 2 cores) outlive one session only if their
# finished runs are kept somewhere that lands with the code.
#
#   tools/run-cache.sh save DIR     # gzip DIR/*.json into results/runs/
#   tools/run-cache.sh restore DIR  # unpack results/runs/ into DIR
#
# The files are the cache's own (keyed by commit and run; see
# crates/experiments/src/run_cache.rs): a reproduction run with
# `--cache DIR` at the commit in their keys reads them instead of running
# them again, and they are the reports RESULTS.md's sections were made from.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
store="$here/results/runs"
case "${1:-}" in
save)
    dir=${2:?usage: run-cache.sh save DIR}
    mkdir -p "$store"
    n=0
    for f in "$dir"/*.json; do
        [ -e "$f" ] || continue
        out="$store/$(basename "$f").gz"
        [ -e "$out" ] && continue
        gzip -9 -n -c "$f" > "$out.tmp" && mv "$out.tmp" "$out"
        n=$((n + 1))
    done
    echo "saved $n new reports into $store"
    ;;
restore)
    dir=${2:?usage: run-cache.sh restore DIR}
    mkdir -p "$dir"
    n=0
    for f in "$store"/*.json.gz; do
        [ -e "$f" ] || continue
        out="$dir/$(basename "$f" .gz)"
        [ -e "$out" ] && continue
        gzip -d -c "$f" > "$out.tmp" && mv "$out.tmp" "$out"
        n=$((n + 1))
    done
    echo "restored $n reports into $dir"
    ;;
*)
    echo "usage: run-cache.sh save|restore DIR" >&2
    exit 2
    ;;
esac
