#!/usr/bin/env bash
# Same-run comparison: `bench/compare.sh <commit> [bench names…]` builds <commit> in a temporary git worktree, then
# runs `npm run bench` there and here, alternating (before, after, before, after), so both see the machine's same load.
# Compare figures only within one run of this script. Needs a commit that has the harness (bench/ and the reference
# routes), i.e. any commit since the performance work; older commits are compared from the figures in
# docs/manual/13-performance.md.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
commit="${1:?usage: bench/compare.sh <commit> [bench names…]}"
shift
rounds="${BENCH_ROUNDS:-2}"
before="$(mktemp -d -t commerce-bench-before-XXXXXX)"
cleanup() { git -C "$here" worktree remove --force "$before" >/dev/null 2>&1 || rm -rf "$before"; }
trap cleanup EXIT
git -C "$here" worktree add --detach "$before" "$commit" >/dev/null
(cd "$before" && npm ci --no-audit --no-fund --silent && npm run build --silent >/dev/null)
(cd "$here" && npm run build --silent >/dev/null)
for i in $(seq 1 "$rounds"); do
  echo "===== round $i: before ($(git -C "$before" rev-parse --short HEAD)) ====="
  (cd "$before" && npm run bench --silent -- "$@")
  echo "===== round $i: after ($(git -C "$here" rev-parse --short HEAD)$(git -C "$here" diff --quiet || echo ', with uncommitted changes')) ====="
  (cd "$here" && npm run bench --silent -- "$@")
done
