#!/usr/bin/env bash
# fanout.sh: seed 5's service at -c10 (10 ms upstream, 10 ms of work) for every impl and route,
# three interleaved rounds (bench/fanout-c10.yaml). Prints per impl and route the median req/s,
# p50/p99 and each process's cost, then each impl's /async-overlap and /async over its /sync per
# round and for the medians (the target: /async-overlap >= 1.8x /sync), and the overlap ratios
# from the records (PHP's as-written /async should sit near 1.0).
#
#   bash bench/fanout.sh                 # 5 impls x 3 routes x 3 rounds (about 6 minutes)
#   REQUESTS=500 REPEATS=1 bash bench/fanout.sh
#   IMPLS=php-fanout ROUTES=/sync,/async-overlap bash bench/fanout.sh   # one impl, two routes
set -euo pipefail
cd "$(dirname "$0")/.."
REQUESTS=${REQUESTS:-2000}
REPEATS=${REPEATS:-3}
WARMUP=${WARMUP:-}   # a warm-up instead of the suite's, e.g. 1s
IMPLS=${IMPLS:-}   # comma-separated impls instead of the suite's list
ROUTES=${ROUTES:-} # comma-separated routes instead of the suite's three
work=$(mktemp -d /tmp/iobench-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
RESULTS=${RESULTS:-$work/results} # set RESULTS=dir to keep the records
make -s build
narrow=()
[ -n "$IMPLS" ] && narrow+=(-e "s|^impls: .*|impls: [${IMPLS//,/, }]|")
[ -n "$ROUTES" ] && narrow+=(-e "s|^  route: .*|  route: [${ROUTES//,/, }]|")
[ -n "$WARMUP" ] && narrow+=(-e "s|^warmup: .*|warmup: $WARMUP|")
sed -e "s/^  requests: .*/  requests: $REQUESTS/" -e "s/^repeats: .*/repeats: $REPEATS/" "${narrow[@]}" bench/fanout-c10.yaml >"$work/fanout-c10.yaml"
./bin/iobench run --quiet --results "$RESULTS" "$work/fanout-c10.yaml" >"$work/run.txt" || {
  cat "$work/run.txt"; echo "fanout.sh: a run failed (above)" >&2; exit 1; }
python3 bench/table.py --route-ratio /async-overlap:/sync --route-ratio /async:/sync "$(ls -td "$RESULTS"/*-fanout-c10 | head -1)"/*.json
