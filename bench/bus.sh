#!/usr/bin/env bash
# bench/bus.sh: seed 1's bus, sync vs async, side by side with pgbench running the same
# transaction, on RabbitMQ + PostgreSQL started by iobench; then the embedded NATS + SQLite stack.
#
#   bash bench/bus.sh                 # 100,000 commands per mode (the sync run takes minutes)
#   N=20000 bash bench/bus.sh         # a quicker look
#
# Prints commands/s per mode (mean over the command phase and peak second), async/sync, async as a
# fraction of pgbench's tps at concurrency 80, the CPU per 1,000 commands of each process, and the
# async consumer's CPU per 1,000 commands against pgbench's client per 1,000 transactions.
# Records go to $OUT (default results/bench-bus-<time>). Needs jq and pgbench (postgresql-client).
set -euo pipefail

N=${N:-100000}
CONCURRENCY=${CONCURRENCY:-80}
PREFETCH=${PREFETCH:-100}
PGBENCH_TIME=${PGBENCH_TIME:-20}
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/iobench}
OUT=${OUT:-results/bench-bus-$(date +%Y%m%d-%H%M%S)}
STATE=$(mktemp -d /tmp/iobench-bench-bus.XXXXXX)
chmod 755 "$STATE" # the servers run as their own users (postgres, rabbitmq)

for tool in jq pgbench psql; do
	command -v "$tool" >/dev/null || { echo "bench/bus.sh: $tool not found; apt-get install jq postgresql-client" >&2; exit 2; }
done
# Servers come from our own 'services up', never from the caller's environment.
unset IOBENCH_AMQP_URL IOBENCH_NATS_URL IOBENCH_DATABASE_URL

go build -trimpath -o "$BIN" ./cmd/iobench
mkdir -p "$OUT"
cleanup() { "$BIN" services down --state-dir "$STATE" >/dev/null 2>&1 || true; rm -rf "$STATE"; }
trap cleanup EXIT
"$BIN" services up rabbitmq postgres --state-dir "$STATE" >&2
PGURL=$("$BIN" services env --state-dir "$STATE" | sed -n "s/^export IOBENCH_DATABASE_URL='\(.*\)'$/\1/p")
[[ -n $PGURL ]] || { echo "bench/bus.sh: no PostgreSQL URL from 'services env'" >&2; exit 1; }

bus() { # name, iobench bus flags...
	local name=$1; shift
	echo "== $name: iobench bus -n $N $*" >&2
	"$BIN" bus -n "$N" --quiet --json "$OUT/$name.json" "$@" >"$OUT/$name.txt"
}
bus rabbitmq-postgres-sync --mode sync --state-dir "$STATE"
bus rabbitmq-postgres-async --mode async --concurrency "$CONCURRENCY" --prefetch "$PREFETCH" --state-dir "$STATE"

# pgbench: the consumer's transaction (BEGIN; the idempotent INSERT; COMMIT) at the same concurrency,
# prepared statements, against the same server and table.
cat >"$OUT/pgbench-insert.sql" <<'EOF'
BEGIN;
INSERT INTO customers (id, name, email) VALUES (gen_random_uuid(), 'name_' || :client_id, 'name@qwerty.root') ON CONFLICT (id) DO NOTHING;
COMMIT;
EOF
# PostgreSQL's CPU in clock ticks: the postmaster and its live children, plus the children it has
# reaped (cutime, cstime), so backends that exit with pgbench still count.
pg_ticks() {
	local pm total=0 p f
	pm=$(pgrep -o -f "postgres -D $STATE/postgres-") || { echo 0; return; }
	for p in "$pm" $(pgrep -P "$pm"); do
		f=$(cat "/proc/$p/stat" 2>/dev/null) || continue
		set -- ${f##*) }
		total=$((total + ${12} + ${13}))
		[[ $p == "$pm" ]] && total=$((total + ${14} + ${15}))
	done
	echo "$total"
}
psql -q "$PGURL" -c "TRUNCATE customers"
echo "== pgbench -c $CONCURRENCY -j 2 -T $PGBENCH_TIME -M prepared" >&2
before=$(pg_ticks)
/usr/bin/time -f "%U %S" -o "$OUT/pgbench.cpu" \
	pgbench -n -M prepared -c "$CONCURRENCY" -j 2 -T "$PGBENCH_TIME" -f "$OUT/pgbench-insert.sql" "$PGURL" >"$OUT/pgbench.txt" 2>&1
PGTICKS=$(($(pg_ticks) - before))
PGTPS=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$OUT/pgbench.txt")
PGTX=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$OUT/pgbench.txt")
PGCLIENT=$(awk '{print $1 + $2}' "$OUT/pgbench.cpu")
psql -q "$PGURL" -c "TRUNCATE customers"

bus nats-sqlite-sync --mode sync --broker nats --db sqlite
bus nats-sqlite-async --mode async --concurrency "$CONCURRENCY" --prefetch "$PREFETCH" --broker nats --db sqlite

# The table.
row() { # record -> one line of figures
	jq -r --argjson n "$N" '
		def ms1k: ((.cpu_user_s + .cpu_system_s) * 1000 * 1000 / $n * 10 | round / 10);
		def cpu($role; $pat): [.processes[] | select(.role == $role and (.name | test($pat)))][0] // null | if . == null then "-" else ms1k end;
		[ .mode,
		  (.bus.phases[1].mean_per_sec | round), (.bus.phases[1].peak_per_sec | round),
		  (.bus.phases[0].mean_per_sec | round), (.bus.phases[2].mean_per_sec | round),
		  ((.latency.percentiles[] | select(.p == 50) | .value / 1000 | round)),
		  cpu("generator"; "."), cpu("sut"; "."), cpu("service"; "rabbitmq"), cpu("service"; "postgres"),
		  (if .bus.verified then "yes" else "NO" end)
		] | @tsv' "$1"
}
mean() { jq '.bus.phases[1].mean_per_sec' "$OUT/$1.json"; }
consumer_ms() { # record -> the consumer's CPU ms per 1,000 commands
	jq --argjson n "$N" '[.processes[] | select(.role == "sut")][0] | (.cpu_user_s + .cpu_system_s) * 1e6 / $n' "$1"
}
{
	echo "N=$N commands, concurrency $CONCURRENCY, prefetch $PREFETCH; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	{
		printf 'stack\tmode\tcommands/s\tpeak 1s\tfill/s\tevents/s\te2e p50 ms\tcpu ms/1k: iobench\tconsumer\trabbitmq\tpostgres\tverified\n'
		for r in rabbitmq-postgres-sync rabbitmq-postgres-async nats-sqlite-sync nats-sqlite-async; do
			printf '%s\t%s\n' "${r%-*}" "$(row "$OUT/$r.json")"
		done
		awk -v tps="$PGTPS" -v tx="$PGTX" -v client="$PGCLIENT" -v ticks="$PGTICKS" -v c="$CONCURRENCY" 'BEGIN {
			printf "pgbench\t-c %s\t%.0f tps\t-\t-\t-\t-\t%.1f (pgbench)\t-\t-\t%.1f\t-\n", c, tps, client * 1e6 / tx, ticks * 10 * 1000 / tx
		}'
	} | column -t -s $'\t'
	echo
	awk -v s="$(mean rabbitmq-postgres-sync)" -v a="$(mean rabbitmq-postgres-async)" -v p="$PGTPS" \
		-v ns="$(mean nats-sqlite-sync)" -v na="$(mean nats-sqlite-async)" 'BEGIN {
		printf "rabbitmq+postgres: async/sync %.2fx, async/pgbench %.2fx (must reach 2x and 0.25x)\n", a / s, a / p
		printf "nats+sqlite:       async/sync %.2fx\n", na / ns
	}'
	awk -v c="$(consumer_ms "$OUT/rabbitmq-postgres-async.json")" -v client="$PGCLIENT" -v tx="$PGTX" 'BEGIN {
		p = client * 1e6 / tx
		printf "rabbitmq+postgres async consumer: %.1f ms CPU per 1,000 commands, %.2fx the pgbench client (%.1f per 1,000 transactions); the target: at most 60\n", c, c / p, p
	}'
} | tee "$OUT/summary.txt"
echo "records: $OUT" >&2
