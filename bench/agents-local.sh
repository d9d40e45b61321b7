#!/usr/bin/env bash
# bench/agents-local.sh: two load agents on loopback
# (iobench http --agents-local 2) against one generator process at the same fixed rate, the
# server (iobench serve hello) pinned to a core of its own, the generators on the others.
# Repeats alternate (agents, single, agents, ...) so that drift hits both.
#
#   bash bench/agents-local.sh                      # -R 40000 -c 100 -d 10s, 3 repeats each
#   RATE=5000 DURATION=2s REPEATS=1 bash bench/agents-local.sh   # a smoke test
#
# Prints, per side, the median and the min–max over the repeats of throughput, p50, p99 and
# p99.9 (corrected latency), and the generators' CPU seconds; the two sides agree when each
# median lies within the other side's spread. Records go to $OUT (default
# results/bench-agents-local-<time>). Needs jq and taskset; a machine of 2 cores or more, quiet.
set -euo pipefail

RATE=${RATE:-40000}
CONNS=${CONNS:-100}
DURATION=${DURATION:-10s}
REPEATS=${REPEATS:-3}
SUT_CPU=${SUT_CPU:-0}
cd "$(dirname "$0")/.."
OUT=${OUT:-results/bench-agents-local-$(date +%Y%m%d-%H%M%S)}
for tool in jq taskset; do
	command -v "$tool" >/dev/null || { echo "bench/agents-local.sh: $tool not found; apt-get install jq util-linux" >&2; exit 2; }
done
CORES=$(nproc)
(( CORES >= 2 )) || { echo "bench/agents-local.sh: needs 2 cores or more (one for the server)" >&2; exit 2; }
GEN_CPUS=$(seq -s, 0 $((CORES - 1)) | tr , '\n' | grep -vx "$SUT_CPU" | paste -sd,)

make build >/dev/null
mkdir -p "$OUT"
PORT=$(( 20000 + RANDOM % 20000 ))
URL=http://127.0.0.1:$PORT/
taskset -c "$SUT_CPU" bin/iobench serve hello --listen "127.0.0.1:$PORT" >"$OUT/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done

load() { # side, repeat: one run, its record in $OUT/side-repeat.json
	local side=$1 i=$2 extra=()
	[[ $side == agents ]] && extra=(--agents-local 2)
	echo "== $side #$i: iobench http ${extra[*]} -R $RATE -c $CONNS -d $DURATION (server on CPU $SUT_CPU, generators on $GEN_CPUS)" >&2
	taskset -c "$GEN_CPUS" bin/iobench http "${extra[@]}" -R "$RATE" -c "$CONNS" -d "$DURATION" --quiet \
		--json "$OUT/$side-$i.json" "$URL" >"$OUT/$side-$i.txt"
}
for i in $(seq "$REPEATS"); do
	load agents "$i"
	load single "$i"
done

# One line per side: median [min–max] of each figure over the repeats.
summary() { # side
	jq -s -r --arg side "$1" '
	  def med: sort | .[(length-1)/2|floor];
	  def cell(f): [.[] | f] as $v | "\($v|med|.*100|round/100) [\($v|min|.*100|round/100)–\($v|max|.*100|round/100)]";
	  def pct(p): .latency.percentiles[] | select(.p == p) | .value / 1000;
	  def cpu: [.processes[] | select(.role == "generator") | .cpu_user_s + .cpu_system_s] | add;
	  "\($side)\t\(length)\t\(cell(.throughput.mean))\t\(cell(pct(50)))\t\(cell(pct(99)))\t\(cell(pct(99.9)))\t\(cell(cpu))"
	' "$OUT"/"$1"-*.json
}
{
	printf 'side\truns\treq/s\tp50 ms\tp99 ms\tp99.9 ms\tgenerator CPU-s\n'
	summary agents
	summary single
} | column -t -s $'\t' | tee "$OUT/summary.txt"
echo "records in $OUT" >&2
