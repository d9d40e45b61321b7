#!/usr/bin/env bash
# bench/pg-wire-vs-pgx.sh: the Go bus consumer's CPU per 1,000 commands with its PostgreSQL
# transactions spoken by the hand-written wire path (internal/backend/postgres Tx, the default)
# against pgx's own batches (BatchTx, iobench_tx=pgx in the database URL): the same round trips
# either way (TestTxRoundTrips). PAIRS pairs of async runs of N commands each, on one private
# RabbitMQ + PostgreSQL (started by IOBENCH, on free ports); the order within a pair alternates.
#
#   bash bench/pg-wire-vs-pgx.sh                      # bin/iobench, 7 pairs of 15,000 commands
#   PAIRS=9 N=30000 bash bench/pg-wire-vs-pgx.sh bin/iobench
#
# The consumer ('iobench serve bus', concurrency 80, prefetch 100) is pinned to SUT_CPU with
# taskset (default: the last CPU; SUT_CPU= pins nothing). Prints per pair the consumer's CPU ms
# per 1,000 commands on each path (its user + system time over N, from the record's process of
# role sut), their ratio wire/pgx and each run's cpu_probe_us (the machine's speed just before
# the load, lower is faster); then the median ratio, whether every pair agrees in sign, and what
# the rule says: keep the wire path only if its median is at least 10% lower and every pair
# agrees, else delete it and use pgx. Needs jq.
set -euo pipefail

source "$(dirname "$0")/lib.sh"
IOBENCH=$(realpath "${1:-bin/iobench}")
PAIRS=${PAIRS:-7}
N=${N:-15000}
CONCURRENCY=${CONCURRENCY:-80}
PREFETCH=${PREFETCH:-100}
SUT_CPU=${SUT_CPU-$(($(nproc) - 1))}
need jq
pin=""
if [[ -n $SUT_CPU && $(nproc) -gt 1 ]]; then
	need taskset=util-linux
	pin="taskset -c $SUT_CPU"
fi
OUT=${OUT:-results/bench-pg-wire-vs-pgx-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
bus_services "$IOBENCH" pgwire
DB=$(eval "$("$IOBENCH" services env --state-dir "$STATE")" && echo "$IOBENCH_DATABASE_URL")
[[ $DB == *\?* ]] && sep="&" || sep="?"

run() { # path -> "ms/1k cpu_probe_us" of one run
	local json
	json="$OUT/$1-$(date +%H%M%S%N).json"
	"$IOBENCH" bus -n "$N" --mode async --concurrency "$CONCURRENCY" --prefetch "$PREFETCH" --quiet \
		--state-dir "$STATE" --database-url "$DB${sep}iobench_tx=$1" \
		--sut-cmd "exec $pin $IOBENCH serve bus --mode async --concurrency $CONCURRENCY --prefetch $PREFETCH --profile seed" \
		--json "$json" >"${json%.json}.txt"
	jq -r --argjson n "$N" '
		[.processes[] | select(.role == "sut")][0] as $c
		| if .bus.verified != true then error("run not verified: \(input_filename)") else . end
		| "\(($c.cpu_user_s + $c.cpu_system_s) * 1e6 / $n * 10 | round / 10) \(.cpu_probe_us // "-")"' "$json"
}
{
	printf 'pair\tfirst\twire ms/1k\tpgx ms/1k\twire/pgx\twire cpu_probe_us\tpgx cpu_probe_us\n'
	for ((i = 1; i <= PAIRS; i++)); do
		first=wire second=pgx
		((i % 2)) || { first=pgx second=wire; }
		declare -A got
		got[$first]=$(run "$first")
		got[$second]=$(run "$second")
		read -r wire wprobe <<<"${got[wire]}"
		read -r pgx pprobe <<<"${got[pgx]}"
		printf '%d\t%s\t%s\t%s\t%.3f\t%s\t%s\n' "$i" "$first" "$wire" "$pgx" "$(echo "$wire $pgx" | awk '{print $1 / $2}')" "$wprobe" "$pprobe"
	done
} | tee "$OUT/pairs.tsv" | column -t -s $'\t'
echo
ratios=$(tail -n +2 "$OUT/pairs.tsv" | cut -f5)
med=$(echo "$ratios" | median)
lower=$(echo "$ratios" | awk '$1 < 1' | wc -l)
higher=$(echo "$ratios" | awk '$1 > 1' | wc -l)
agree=no
((lower == PAIRS || higher == PAIRS)) && agree=yes
verdict="delete the wire path, use pgx"
[[ $agree == yes && $lower == "$PAIRS" ]] && awk -v m="$med" 'BEGIN { exit !(m <= 0.90) }' && verdict="keep the wire path"
{
	echo "median wire/pgx $med ($(awk -v m="$med" 'BEGIN { printf "%+.0f%%", (m - 1) * 100 }') for the wire path)" \
		"over $PAIRS pairs of $N commands; wire lower in $lower, higher in $higher; every pair agrees in sign: $agree"
	echo "rule (wire kept only if at least 10% lower and every pair agrees): $verdict"
} | tee "$OUT/summary.txt"
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end; consumer pinned: ${pin:-no}; records: $OUT" >&2
