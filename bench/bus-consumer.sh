#!/usr/bin/env bash
# bench/bus-consumer.sh: the Go bus consumer's own CPU per 1,000 commands, two builds of iobench
# side by side, runs alternating on one private RabbitMQ + PostgreSQL (started by the first
# build, on free ports), so that both see the same machine.
#
#   bash bench/bus-consumer.sh OLD_IOBENCH NEW_IOBENCH            # 3 rounds of 30,000 async
#   ROUNDS=5 N=50000 SYNC_N=3000 bash bench/bus-consumer.sh a b  # then 3,000 sync commands each
#
# Each build runs its own consumer ('iobench serve bus', the defaults: concurrency 80, prefetch
# 100). Prints one line per run (consumer CPU ms per 1,000 commands, commands/s, how busy the
# machine was) and the median of each build. SYNC_N=0 skips the sync runs. Needs jq.
set -euo pipefail

source "$(dirname "$0")/lib.sh"
old_new bus-consumer.sh "$@"
ROUNDS=${ROUNDS:-3}
N=${N:-30000}
SYNC_N=${SYNC_N:-1500}
need jq
OUT=${OUT:-results/bench-bus-consumer-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
# Servers come from our own 'services up', never from the caller's environment.
bus_services "$OLD" consumer

run() { # label, binary, mode, n -> one line
	local json="$OUT/$1-$3-$(date +%H%M%S%N).json"
	"$2" bus -n "$4" --mode "$3" --quiet --state-dir "$STATE" --json "$json" >"${json%.json}.txt"
	jq -r --arg l "$1" --argjson n "$4" '
		[.processes[] | select(.role == "sut")][0] as $c
		| "\($l)\t\(.mode)\t\(($c.cpu_user_s + $c.cpu_system_s) * 1e6 / $n * 10 | round / 10)\t\(.bus.phases[1].mean_per_sec | round)\t\(.machine_cpu_percent // "-")\t\(.bus.verified)"' "$json"
}
{
	printf 'build\tmode\tconsumer ms/1k\tcommands/s\tmachine %%\tverified\n'
	for mode in async sync; do
		n=$N
		[[ $mode == sync ]] && n=$SYNC_N
		[[ $n -gt 0 ]] || continue
		for ((i = 0; i < ROUNDS; i++)); do
			run old "$OLD" "$mode" "$n"
			run new "$NEW" "$mode" "$n"
		done
	done
} | tee "$OUT/runs.tsv" | column -t -s $'\t'
echo
tail -n +2 "$OUT/runs.tsv" | sort -t$'\t' -k1,2 -k3,3n | awk -F'\t' '
	function flush() { if (n) printf "%s: median %.1f ms/1k over %d runs (%s)\n", key, (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2), n, list }
	$1 " " $2 != key { flush(); key = $1 " " $2; n = 0; list = "" }
	{ a[++n] = $3; list = list (n > 1 ? " " : "") $3 }
	END { flush() }' | tee "$OUT/summary.txt"
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end; records: $OUT" >&2
