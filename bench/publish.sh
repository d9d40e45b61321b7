#!/usr/bin/env bash
# bench/publish.sh: iobench publish side by side with the official RabbitMQ PerfTest, on the same
# broker (started by iobench), alternately, then seed 2's whole comparison.
#
#   bash bench/publish.sh                 # 3 rounds of 4 runs of 10 s, then `iobench publish seed2`
#   ROUNDS=5 SECONDS_PER_RUN=10 bash bench/publish.sh
#   SEED2=0 bash bench/publish.sh         # PerfTest pairs only
#
# Scenarios (100-byte bodies, one publisher, no consumer, a named queue so messages are enqueued):
#   transient   PerfTest -x1 -y0 -s 100 -u Q -ad false
#               iobench  -P 1 --size 100
#   confirms    PerfTest -x1 -y0 -s 100 -f persistent -c 100 -u Q -ad false   (durable queue)
#               iobench  -P 1 --size 100 --persistent --queue-durable --confirm 100
# Each pair runs in both orders across rounds (ABBA) so drift and other load hit both alike; the
# ratio of each pair is reported, then the median of the ratios. PerfTest's figure is its
# "sending rate avg" (what it published; with -c 100 it cannot run ahead of its confirms);
# iobench's is the broker-accepted rate (confirms, or the queue's count read from the broker),
# with its client write rate beside it.
#
# Needs: go, java, mvn (Maven Central reachable once; PerfTest and its 25 jars are cached in
# $CACHE), rabbitmq-server (scripts/install-services.sh). Results go to results/bench-publish/.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
SECS=${SECONDS_PER_RUN:-10}
SEED2=${SEED2:-1}
PERFTEST_VERSION=2.22.1
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/iobench/perftest-$PERFTEST_VERSION}
STATE=${STATE:-$PWD/.state/bench-publish}
OUT=${OUT:-$PWD/results/bench-publish}
IOB=$PWD/bin/iobench

for c in go java mvn python3; do
	command -v "$c" >/dev/null || { echo "bench/publish.sh: $c not found; install it (apt-get install default-jdk-headless maven for java/mvn)" >&2; exit 2; }
done

echo "== building iobench" >&2
make -s build

# PerfTest is not a self-contained jar on Maven Central: fetch it with its dependencies.
if ! ls "$CACHE"/lib/perf-test-"$PERFTEST_VERSION".jar >/dev/null 2>&1; then
	echo "== fetching com.rabbitmq:perf-test:$PERFTEST_VERSION from Maven Central into $CACHE" >&2
	mkdir -p "$CACHE"
	cat >"$CACHE/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>iobench</groupId><artifactId>perftest-fetch</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>com.rabbitmq</groupId><artifactId>perf-test</artifactId><version>$PERFTEST_VERSION</version></dependency>
  </dependencies>
</project>
EOF
	(cd "$CACHE" && mvn -B -q dependency:copy-dependencies -DoutputDirectory=lib)
fi

mkdir -p "$OUT" "$STATE"
rm -f "$OUT"/*.json "$OUT"/*.log
echo "== starting RabbitMQ (iobench services up, state in $STATE)" >&2
"$IOB" services up rabbitmq --state-dir "$STATE" >&2
trap '"$IOB" services down --state-dir "$STATE" >&2 || true' EXIT
URL=$("$IOB" services env --state-dir "$STATE" | sed -n "s/^export IOBENCH_AMQP_URL='\{0,1\}\([^']*\)'\{0,1\}$/\1/p")
[ -n "$URL" ] || { echo "bench/publish.sh: no RabbitMQ URL from iobench services env" >&2; exit 1; }
URL=${URL%/} # the Java client reads a trailing "/" as the empty vhost
unset IOBENCH_AMQP_URL # iobench finds the broker through --state-dir, so it can measure its CPU

# dropq deletes a queue PerfTest left behind: an iobench run owns its queue (deletes it first
# and last), so a one-message run on that name removes it and its messages.
dropq() { "$IOB" publish --state-dir "$STATE" -n 1 --queue "$1" --quiet >/dev/null; }

perftest() { # name, extra PerfTest flags...
	local name=$1; shift
	local q="perftest-$name-$RANDOM"
	/usr/bin/time -f "%U %S %M" -o "$OUT/$name.time" \
		java -cp "$CACHE/lib/*" com.rabbitmq.perf.PerfTest -h "$URL" -x 1 -y 0 -s 100 -z "$SECS" \
		-u "$q" -ad false "$@" >"$OUT/$name.log" 2>&1
	dropq "$q"
	local rate
	rate=$(grep -o 'sending rate avg: [0-9]*' "$OUT/$name.log" | tail -1 | awk '{print $4}')
	echo "${rate:-0} $(tail -1 "$OUT/$name.time")"
}

iobench_run() { # name, extra iobench flags...
	local name=$1; shift
	"$IOB" publish --state-dir "$STATE" -P 1 -d "${SECS}s" --size 100 --queue "iobench-bench-$name" \
		--quiet --json "$OUT/$name.json" "$@" >"$OUT/$name.log"
	python3 - "$OUT/$name.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["publish"]
procs = {x["name"]: x for x in r.get("processes", [])}
cpu = lambda n: procs[n]["cpu_user_s"] + procs[n]["cpu_system_s"] if n in procs else 0
print(p["broker_rate"]["mean"], p["client_write_rate"]["mean"], p["broker_rate"]["peak_second"],
      round(cpu("iobench"), 2), round(cpu("rabbitmq"), 2), p["counted_by"])
EOF
}

declare -A PT IOB
ROWS=()
for round in $(seq 1 "$ROUNDS"); do
	for scen in transient confirms; do
		if [ "$scen" = transient ]; then ptflags=(); ioflags=(); else ptflags=(-f persistent -c 100); ioflags=(--persistent --queue-durable --confirm 100); fi
		load=$(cut -d' ' -f1 /proc/loadavg)
		if [ $((round % 2)) -eq 1 ]; then
			pt=$(perftest "pt-$scen-$round" "${ptflags[@]}"); io=$(iobench_run "iob-$scen-$round" "${ioflags[@]}")
			order="PerfTest first"
		else
			io=$(iobench_run "iob-$scen-$round" "${ioflags[@]}"); pt=$(perftest "pt-$scen-$round" "${ptflags[@]}")
			order="iobench first"
		fi
		echo "round $round $scen ($order, load $load): PerfTest [rate user sys maxrssKB] $pt | iobench [broker client peak cpu brokercpu by] $io" >&2
		ROWS+=("$scen $round $load $pt $io")
	done
done

python3 - "${ROWS[@]}" <<'EOF'
import statistics, sys
rows = [r.split() for r in sys.argv[1:]]
print("| scenario | round | load avg | PerfTest msg/s (its sending rate) | iobench broker-accepted msg/s | ratio | iobench client writes msg/s | ratio | iobench peak second | PerfTest CPU s | iobench CPU s | broker CPU s (iobench run) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
ratios, cratios = {}, {}
for scen, rnd, load, pt, ptu, pts, ptrss, ib, ic, ipk, icpu, bcpu, by in rows:
    pt, ib, ic = float(pt), float(ib), float(ic)
    ratio = ib / pt if pt else float("nan")
    cratio = ic / pt if pt else float("nan")
    ratios.setdefault(scen, []).append(ratio)
    cratios.setdefault(scen, []).append(cratio)
    print(f"| {scen} | {rnd} | {load} | {pt:,.0f} | {ib:,.0f} ({by}) | {ratio:.2f}x | {ic:,.0f} | {cratio:.2f}x | {float(ipk):,.0f} | {float(ptu)+float(pts):.2f} | {icpu} | {bcpu} |")
print()
for scen, rs in ratios.items():
    cs = cratios[scen]
    print(f"{scen}: iobench broker-accepted / PerfTest median {statistics.median(rs):.2f}x (min {min(rs):.2f}x, max {max(rs):.2f}x); "
          f"client writes / PerfTest median {statistics.median(cs):.2f}x ({len(rs)} pairs)")
EOF

if [ "$SEED2" = 1 ]; then
	echo >&2
	echo "== seed 2, every row counted at the broker: iobench publish seed2" >&2
	"$IOB" publish seed2 --state-dir "$STATE" --results "$OUT/seed2"
fi
