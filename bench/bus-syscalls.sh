#!/usr/bin/env bash
# bench/bus-syscalls.sh: the Go bus consumer's system calls per command, two builds of iobench
# side by side, runs alternating on one private RabbitMQ + PostgreSQL (started by the first
# build, on free ports), counted by perf's syscall tracepoints on the consumer process.
#
#   bash bench/bus-syscalls.sh OLD_IOBENCH NEW_IOBENCH             # 3 rounds of 15,000 async
#   ROUNDS=5 N=30000 bash bench/bus-syscalls.sh a b
#
# perf attaches to 'iobench serve bus' once it has started (the first ATTACH_S seconds, the
# connects, are not counted) and counts until it exits. Prints one line per run: consumer CPU
# ms per 1,000 commands, and writes, reads, epoll waits and all system calls per command. Needs
# perf (linux-perf, installed when missing) with access to tracepoints (root, or
# kernel.perf_event_paranoid <= 1) and jq.
set -euo pipefail

source "$(dirname "$0")/lib.sh"
old_new bus-syscalls.sh "$@"
ROUNDS=${ROUNDS:-3}
N=${N:-15000}
ATTACH_S=${ATTACH_S:-0.4}
need jq perf=linux-perf
EVENTS=syscalls:sys_enter_write,syscalls:sys_enter_read,syscalls:sys_enter_epoll_pwait,raw_syscalls:sys_enter
perf stat -e "$EVENTS" -- true >/dev/null 2>&1 ||
	{ echo "bench/bus-syscalls.sh: perf cannot count syscall tracepoints here; run as root or lower kernel.perf_event_paranoid" >&2; exit 2; }
OUT=${OUT:-results/bench-bus-syscalls-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
bus_services "$OLD" syscalls

run() { # label, binary -> one line
	local base="$OUT/$1-$(date +%H%M%S%N)" pid="" perfpid
	"$2" bus -n "$N" --quiet --state-dir "$STATE" --json "$base.json" >"$base.txt" &
	local bus=$!
	for _ in $(seq 1 400); do
		pid=$(pgrep -f "^$2 serve bus" | head -1) && break
		sleep 0.05
	done
	[[ -n $pid ]] || { echo "bench/bus-syscalls.sh: no consumer of $2 seen" >&2; exit 1; }
	sleep "$ATTACH_S"
	pid=$(pgrep -f "^$2 serve bus" | head -1) # after its re-exec for the timer slack
	perf stat -x, -e "$EVENTS" -p "$pid" -o "$base.perf" &
	perfpid=$!
	wait "$bus"
	kill -INT "$perfpid" 2>/dev/null || true
	wait "$perfpid" 2>/dev/null || true
	printf '%s\t%s\t%s\n' "$1" \
		"$(jq -r --argjson n "$N" '[.processes[] | select(.role == "sut")][0] as $c
			| "\(($c.cpu_user_s + $c.cpu_system_s) * 1e6 / $n * 10 | round / 10)\t\(.bus.verified)"' "$base.json")" \
		"$(awk -F, -v n="$N" '$3 ~ /sys_enter/ { printf "%s%.2f", sep, $1 / n; sep = "\t" }' "$base.perf")"
}
{
	printf 'build\tconsumer ms/1k\tverified\twrites/cmd\treads/cmd\tepoll_pwait/cmd\tsyscalls/cmd\n'
	for ((i = 0; i < ROUNDS; i++)); do
		run old "$OLD"
		run new "$NEW"
	done
} | tee "$OUT/runs.tsv" | column -t -s $'\t'
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end; records: $OUT" >&2
