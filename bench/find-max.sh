#!/usr/bin/env bash
# bench/find-max.sh: the Accuracy mark of `iobench http --find-max` (issue 30): against
# `iobench serve hello --max-rate R`, a server whose true knee is exactly R, each search with
# --slo 'p99<20ms' must answer within ±5% of R, in 5 of 5 searches, each in at most 120 s.
# The server and the generator are pinned to CPUs of their own with taskset.
#
#   bash bench/find-max.sh                         # R = 2000 and 20000, 5 searches each
#   RATES="2000" SEARCHES=1 bash bench/find-max.sh # a smoke test
#
# Prints one line per search (R, the answer, its error against R, the steps, the seconds, the
# result line) and a verdict per R. Records go to $OUT (default results/bench-find-max-<time>);
# the server's answers per second are in server-R.log. Needs jq and taskset; 2 cores or more,
# and a quiet machine: another process on either CPU shows up as generator-bound steps or a
# lower knee.
set -euo pipefail

RATES=${RATES:-"2000 20000"}
SEARCHES=${SEARCHES:-5}
SLO=${SLO:-p99<20ms}
SUT_CPU=${SUT_CPU:-0}
GEN_CPU=${GEN_CPU:-1}
cd "$(dirname "$0")/.."
source bench/lib.sh
need jq taskset=util-linux
OUT=${OUT:-results/bench-find-max-$(date +%Y%m%d-%H%M%S)}
(( $(nproc) >= 2 )) || { echo "bench/find-max.sh: needs 2 cores or more (one for the server, one for the generator)" >&2; exit 2; }

make build >/dev/null
mkdir -p "$OUT"
SERVER=
trap '[[ -n $SERVER ]] && kill -INT $SERVER 2>/dev/null || true' EXIT

for R in $RATES; do
	PORT=$(( 20000 + RANDOM % 20000 ))
	taskset -c "$SUT_CPU" bin/iobench serve hello --max-rate "$R" --listen "127.0.0.1:$PORT" >"$OUT/server-$R.log" 2>&1 &
	SERVER=$!
	for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
	ok=0
	for i in $(seq "$SEARCHES"); do
		rec=$OUT/find-max-$R-$i.json
		start=$(date +%s)
		line=$(taskset -c "$GEN_CPU" bin/iobench http --find-max --slo "$SLO" -t 1 --quiet --json "$rec" "http://127.0.0.1:$PORT/" 2>"$OUT/find-max-$R-$i.err" | head -1) || true
		secs=$(( $(date +%s) - start ))
		answer=$(jq -r '.capacity.max_sustainable_rate // "none"' "$rec" 2>/dev/null || echo none)
		steps=$(jq -r '.capacity.steps | length' "$rec" 2>/dev/null || echo 0)
		err=none
		if [[ $answer != none ]]; then
			err=$(awk -v a="$answer" -v r="$R" 'BEGIN { printf "%+.1f%%", 100 * (a - r) / r }')
			if awk -v a="$answer" -v r="$R" -v s="$secs" 'BEGIN { exit !(a >= 0.95 * r && a <= 1.05 * r && s <= 120) }'; then
				ok=$((ok + 1))
			fi
		fi
		printf 'R=%s search %d: answer %s (%s), %s steps, %d s: %s\n' "$R" "$i" "$answer" "$err" "$steps" "$secs" "$line"
	done
	kill -INT "$SERVER" 2>/dev/null || true
	wait "$SERVER" 2>/dev/null || true
	SERVER=
	verdict=FAIL
	(( ok == SEARCHES )) && verdict=PASS
	echo "R=$R: $ok of $SEARCHES searches within ±5% of R in 120 s or less: $verdict"
done
echo "records: $OUT"
