#!/usr/bin/env bash
# Runs the same BenchmarkDotNet filter on this checkout and on an earlier revision, alternating, and prints both tables.
#
#   scripts/bench-against.sh <git-rev> <filter> [rounds] [-- more BenchmarkDotNet arguments]
#   scripts/bench-against.sh 44cb203 '*EndToEndBenchmarks*' 2 -- --job short
#
# The revision is checked out as a git worktree under ${BENCH_AGAINST_DIR:-$TMPDIR/bench-against}/<rev> (kept between
# runs, so a second run does not build it again) and its FunctionApp.Benchmarks built in Release, like this checkout's.
# Then, round after round, this checkout runs the filter and the revision runs it, so background load on a shared
# machine hits both alike; each round's tables are printed under "== <side>, round N ==". Figures to publish come from
# rounds that agree.
#
# Rows that measure the code as it was (the reader before its request-side changes, the pipeline's helper spinning
# between runs, reading then signing on one core) are not kept in the benchmarks: they are the other side of this
# script. The rows docs/performance.md cites and where they now come from:
#   Reader_BeforeIssue13 (the old reader)   bench-against.sh 8652cdf~1 '*RequestBreakdownBenchmarks.Reader_Full*'
#                                            (the revision's Reader_Full is the reader before those changes)
#   one core: read, then sign               bench-against.sh 44cb203 '*EndToEndBenchmarks.SignFunction_RunAsync_ReadThenSignOneCore*'
#                                            (the row exists at that revision only; this side prints no table for it)
#   the function, the helper spinning       bench-against.sh f55970c~1 '*EndToEndBenchmarks.SignFunction_RunAsync'
#                                            (the last revision whose helper spun and yielded between runs)
#   interleaved-reader (each reader change alone): a runner mode, not a filter; run it in the revision's worktree:
#     BENCH_AGAINST_MODE=1 bench-against.sh 44cb203 interleaved-reader
#     (with BENCH_AGAINST_MODE=1 the second argument is a runner mode, passed as the first argument, on the revision only)
set -euo pipefail

if [[ $# -lt 2 ]]; then
  sed -n '2,4p' "$0" >&2
  exit 2
fi

rev=$1
filter=$2
shift 2
rounds=1
if [[ $# -gt 0 && $1 != -- ]]; then
  rounds=$1
  shift
fi
[[ $# -gt 0 && $1 == -- ]] && shift
extra=("$@")

here=$(git rev-parse --show-toplevel)
commit=$(git -C "$here" rev-parse --verify "$rev^{commit}")
root=${BENCH_AGAINST_DIR:-${TMPDIR:-/tmp}/bench-against}
there=$root/${commit:0:12}
framework=${BENCH_FRAMEWORK:-net10.0}

if [[ ! -d $there ]]; then
  mkdir -p "$root"
  git -C "$here" worktree add --detach "$there" "$commit" >&2
fi

build() {
  echo "building $1's benchmarks" >&2
  dotnet build "$1/FunctionApp.Benchmarks/FunctionApp.Benchmarks.csproj" -c Release --framework "$framework" >&2
}

run() {
  local dir=$1
  (cd "$dir" && dotnet run --no-build -c Release --project FunctionApp.Benchmarks --framework "$framework" -- "${@:2}")
}

build "$here"
build "$there"

if [[ ${BENCH_AGAINST_MODE:-0} == 1 ]]; then
  echo "== $rev ($commit), mode $filter =="
  run "$there" "$filter" "${extra[@]}"
  exit 0
fi

for ((round = 1; round <= rounds; round++)); do
  for side in this "$rev"; do
    dir=$here
    [[ $side != this ]] && dir=$there
    echo "== $side, round $round =="
    # BenchmarkDotNet prints its summary table last; keep from the summary on.
    run "$dir" --filter "$filter" "${extra[@]}" | sed -n '/^\/\/ \* Summary \*/,$p'
  done
done
