#!/usr/bin/env bash
# hello-langs.sh: seed 4's hello servers side by side under `iobench http -t1 -c100`, generator
# pinned to CPU 0 and server to CPU 1 (bench/hello-pinned.yaml), three interleaved rounds. Prints
# per server: median req/s, the server's CPU ms per 1,000 requests and peak memory (PSS of its
# process tree), both sides' CPU use, which side was the limit, and go-hello / node-hello per
# round and for the medians (the target: >= 1.5).
#
#   bash bench/hello-langs.sh              # 8 servers x 3 rounds x 12 s (about 5 minutes)
#   DURATION=3s REPEATS=1 bash bench/hello-langs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
REPEATS=${REPEATS:-3}
work=$(mktemp -d /tmp/iobench-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
RESULTS=${RESULTS:-$work/results} # set RESULTS=dir to keep the records
(($(nproc) >= 2)) || { echo "hello-langs.sh: needs 2 CPUs to pin the generator and the server apart" >&2; exit 2; }
make -s build
sed -e "s/^duration: .*/duration: $DURATION/" -e "s/^repeats: .*/repeats: $REPEATS/" bench/hello-pinned.yaml >"$work/hello-pinned.yaml"
./bin/iobench run --quiet --results "$RESULTS" "$work/hello-pinned.yaml" >"$work/run.txt" || {
  cat "$work/run.txt"; echo "hello-langs.sh: a run failed (above)" >&2; exit 1; }
python3 bench/table.py --ratio go-hello:async/node-hello:keep-alive "$(ls -td "$RESULTS"/*-hello-pinned | head -1)"/*.json
