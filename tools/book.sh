#!/usr/bin/env bash
# Builds the book (docs/, mdBook) into target/book. mdBook comes from
# crates.io into target/tools the first time (pinned, without its server,
# watcher and search: only `build` is needed), so nothing outside the
# clone changes. The links are checked by crates/cli/tests/docs.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
version=0.5.4
mdbook=target/tools/bin/mdbook
if ! [ -x "$mdbook" ] || [ "$("$mdbook" --version)" != "mdbook v$version" ]; then
  echo "book.sh: installing mdbook $version from crates.io into target/tools" >&2
  # unoptimised and without debug info: it builds a few pages once
  CARGO_PROFILE_DEV_DEBUG=0 cargo install mdbook --version "$version" --locked \
    --no-default-features --debug --root target/tools --quiet
fi
"$mdbook" build docs
