#!/usr/bin/env bash
# bench/find-max.sh: the marks of `iobench http --find-max` (issue 30), MARKS of:
#   accuracy (the default): against `iobench serve hello --max-rate R`, a server whose true knee
#     is exactly R, each search with --slo 'p99<20ms' must answer within ±5% of R, in 5 of 5
#     searches, each in at most 120 s;
#   guard: against `iobench serve hello`, the generator pinned to a CPU shared with two busy loops,
#     the search must say generator-bound and report no service capacity;
#   starved: against `iobench serve upstream --delay 10ms` with -c 2 and --slo 'p99<1s', the search
#     must say connection-starved near 200 req/s with the -c it needed, not a capacity of 200;
#   repeatability: node-hello:keep-alive and python-asyncio-hello, started from their manifests by
#     `iobench run` as any suite starts them (a load: max scenario written to $OUT, each impl
#     started once per search), SEARCHES searches each (3 unless given) at p99 < 10 ms with the
#     --find-max defaults (1 s warm-up, 5 s steps): every answer within ±7% of the impl's median;
#   spread: no search, the servers' own speed: node-hello:keep-alive, python-asyncio-hello and
#     go-hello:net-http, each started anew per run, loaded in turn by a closed loop (-c 50, 1 s
#     warm-up, 3 s measured) SPREAD_RUNS times (15 unless given): per server the median req/s, the
#     range and how many runs fell within ±7% of the median, and the range of the machine's
#     cpu_probe_us. A search can be no steadier than the speed of what it measures.
# The server and the generator are pinned to CPUs of their own (taskset, or the scenario's cpus:).
#
#   bash bench/find-max.sh                         # accuracy: R = 2000 and 20000, 5 searches each
#   RATES="2000" SEARCHES=1 bash bench/find-max.sh # a smoke test
#   MARKS="guard starved" bash bench/find-max.sh
#   MARKS=repeatability bash bench/find-max.sh    # about 20 minutes; SEARCHES=1 for a smoke test
#   MARKS=repeatability STEP=10s bash bench/find-max.sh   # steps of 10 s (the default is 5 s)
#   MARKS=spread bash bench/find-max.sh           # about 5 minutes
#
# Prints one line per search (R, the answer, its error against R, the steps, the seconds, the
# result line) and a verdict per R (and per other mark). Records go to $OUT (default
# results/bench-find-max-<time>); the servers' logs (the max-rate one's answers per second) are
# in server-NAME-PORT.log. Needs jq and taskset; 2 cores or more,
# and a quiet machine: another process on either CPU shows up as generator-bound steps or a
# lower knee.
set -euo pipefail

MARKS=${MARKS:-accuracy}
RATES=${RATES:-"2000 20000"}
SEARCHES_GIVEN=${SEARCHES:-}
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

accuracy() {
	for R in $RATES; do
		serve hello --max-rate "$R"
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
		stop_server
		verdict=FAIL
		(( ok == SEARCHES )) && verdict=PASS
		echo "R=$R: $ok of $SEARCHES searches within ±5% of R in 120 s or less: $verdict"
	done
}

# guard: a fast server, the generator's CPU shared with two busy loops.
guard() {
	local port busy=() rec=$OUT/guard.json line
	serve hello
	port=$PORT
	for _ in 1 2; do taskset -c "$GEN_CPU" sh -c 'while :; do :; done' & busy+=($!); done
	line=$(taskset -c "$GEN_CPU" bin/iobench http --find-max --slo "$SLO" -t 1 --quiet --json "$rec" "http://127.0.0.1:$port/" 2>/dev/null | head -1) || true
	kill "${busy[@]}"
	stop_server
	local bound answer
	bound=$(jq -r '.capacity.bound' "$rec") answer=$(jq -r '.capacity.max_sustainable_rate // "none"' "$rec")
	verdict=FAIL
	[[ $bound == generator && $answer == none ]] && verdict=PASS
	echo "guard: bound $bound, answer $answer: $line"
	echo "guard: generator-bound and no service capacity: $verdict"
}

# starved: calls that wait 10 ms concurrently, two connections given by hand.
starved() {
	local port rec=$OUT/starved.json line
	serve upstream --delay 10ms
	port=$PORT
	line=$(taskset -c "$GEN_CPU" bin/iobench http --find-max --slo 'p99<1s' -c 2 --start-rate 50 -t 1 --quiet --json "$rec" "http://127.0.0.1:$port/" 2>/dev/null | head -1) || true
	stop_server
	local bound at needed
	bound=$(jq -r '.capacity.bound' "$rec") at=$(jq -r '.capacity.steps[-1].target_rate' "$rec") needed=$(jq -r '.capacity.needed_connections // 0' "$rec")
	verdict=FAIL
	[[ $bound == connections ]] && awk -v a="$at" -v n="$needed" 'BEGIN { exit !(a >= 150 && a <= 400 && n > 2) }' && verdict=PASS
	echo "starved: bound $bound at $at req/s, -c $needed needed: $line"
	echo "starved: connection-starved near 200 req/s with the -c it needed: $verdict"
}

# repeatability: SEARCHES searches of each impl, every answer within ±7% of the impl's median.
repeatability() {
	local n=${REPEAT_SEARCHES:-3} scen=$OUT/repeatability.yaml impl answers median
	[[ ${SEARCHES_GIVEN:-} ]] && n=$SEARCHES
	cat >"$scen" <<YAML
name: repeatability
workload: hello
impls: [node-hello:keep-alive, python-asyncio-hello]
params: {load: max, slo: ["p99<10ms"], threads: 1}
cpus: {generator: "$GEN_CPU", sut: "$SUT_CPU"}
repeats: $n
warmup: 1s
duration: ${STEP:-5s}
YAML
	bin/iobench run "$scen" --results "$OUT/repeatability" --quiet >"$OUT/repeatability.log" 2>&1 || true
	for impl in node-hello python-asyncio-hello; do
		answers=$(jq -r '.capacity.max_sustainable_rate // "none"' "$OUT"/repeatability/*/repeatability."$impl"*.json | tr '\n' ' ')
		for f in "$OUT"/repeatability/*/repeatability."$impl"*.json; do
			printf '%s: %s\n' "$impl" "$(jq -r '"\(.capacity.bound): \(.capacity.steps | length) steps, \(.capacity.elapsed.text)"' "$f")"
		done
		verdict=FAIL median=
		if [[ $answers != *none* && -n $answers ]]; then
			median=$(echo "$answers" | median)
			awk -v m="$median" -v a="$answers" 'BEGIN { n = split(a, x, " "); for (i = 1; i <= n; i++) if (x[i] < 0.93 * m || x[i] > 1.07 * m) exit 1 }' && verdict=PASS
		fi
		echo "repeatability $impl: answers $answers(median ${median:-none}): every one within ±7% of the median: $verdict"
	done
}

# spread: each server's closed-loop peak over SPREAD_RUNS interleaved runs, and the machine's probe.
spread() {
	local runs=${SPREAD_RUNS:-15} scen=$OUT/spread.yaml impl rates median
	cat >"$scen" <<YAML
name: spread
workload: hello
impls: [node-hello:keep-alive, python-asyncio-hello, go-hello:net-http]
params: {load: closed, connections: 50, threads: 1}
cpus: {generator: "$GEN_CPU", sut: "$SUT_CPU"}
repeats: $runs
warmup: 1s
duration: 3s
YAML
	bin/iobench run "$scen" --results "$OUT/spread" --quiet >"$OUT/spread.log" 2>&1 || true
	for impl in node-hello_keep-alive python-asyncio-hello go-hello_net-http; do
		rates=$(jq -r '.throughput.mean | floor' "$OUT"/spread/*/spread."$impl".r*.json | tr '\n' ' ')
		median=$(echo "$rates" | median)
		awk -v m="$median" -v a="$rates" -v impl="$impl" 'BEGIN {
			n = split(a, x, " "); lo = hi = x[1]
			for (i = 1; i <= n; i++) { if (x[i] >= 0.93 * m && x[i] <= 1.07 * m) k++; if (x[i] < lo) lo = x[i]; if (x[i] > hi) hi = x[i] }
			printf "spread %s: %d runs, median %d req/s, %d to %d (%+.1f%% to %+.1f%%), %d of %d within ±7%% of the median\n", impl, n, m, lo, hi, 100 * (lo - m) / m, 100 * (hi - m) / m, k, n }'
	done
	jq -r '.cpu_probe_us' "$OUT"/spread/*/spread.*.json | sort -g | awk '{a[NR] = $1} END { printf "spread: cpu_probe_us %s to %s over %d runs (median %s)\n", a[1], a[NR], NR, a[int((NR + 1) / 2)] }'
}

for mark in $MARKS; do
	case $mark in
	accuracy | guard | starved | repeatability | spread) "$mark" ;;
	*) echo "bench/find-max.sh: MARKS: $mark is not a mark; use accuracy, guard, starved, repeatability or spread" >&2; exit 2 ;;
	esac
done
echo "records: $OUT"
