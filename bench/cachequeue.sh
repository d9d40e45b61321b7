#!/usr/bin/env bash
# cachequeue.sh: seed 3's /cache/redis (INCR) served by the PHP app under nginx + PHP-FPM and by
# go-cachequeue's async variant (bench/cachequeue-redis.yaml), each counted in Redis, alternating
# round by round with redis-benchmark -t incr -c 20 against the same Redis: the store's own
# ceiling. Prints per impl the median req/s and each process's cost (PHP-FPM, nginx, Redis, the
# generator), then go/php (the target: >= 3x) and go/redis-benchmark (>= 0.5x) per round and
# for the medians.
#
#   bash bench/cachequeue.sh             # 3 rounds of 2 x 12 s + redis-benchmark (about 2 minutes)
#   ROUNDS=1 DURATION=3s bash bench/cachequeue.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10s}
INCRS=${INCRS:-1000000}
work=$(mktemp -d /tmp/iobench-bench.XXXXXX)
chmod 755 "$work" # the services run as their own users
RESULTS=${RESULTS:-$work/results} # set RESULTS=dir to keep the records
command -v redis-benchmark >/dev/null || { echo "cachequeue.sh: needs redis-benchmark: apt-get install redis-tools" >&2; exit 2; }
make -s build
BIN=$PWD/bin/iobench
trap '"$BIN" services down --state-dir "$work/state" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
# A Redis and a Memcached of this script's own: the impls and redis-benchmark share the Redis.
"$BIN" services up --state-dir "$work/state" redis memcached >/dev/null
eval "$("$BIN" services env --state-dir "$work/state")"
redis_host=$(sed -E 's#^redis://([^:/]+):([0-9]+).*#\1#' <<<"$IOBENCH_REDIS_URL")
redis_port=$(sed -E 's#^redis://([^:/]+):([0-9]+).*#\2#' <<<"$IOBENCH_REDIS_URL")
sed -e "s/^duration: .*/duration: $DURATION/" bench/cachequeue-redis.yaml >"$work/cachequeue-redis.yaml"
bench_rps=()
for round in $(seq "$ROUNDS"); do
  ./bin/iobench run --quiet --results "$RESULTS/round$round" "$work/cachequeue-redis.yaml" >"$work/run.txt" || {
    cat "$work/run.txt"; echo "cachequeue.sh: a run failed (above)" >&2; exit 1; }
  for f in "$(ls -td "$RESULTS/round$round"/*-cachequeue-redis | head -1)"/*.json; do
    [[ $f == */suite.json ]] || cp "$f" "$work/$(basename "$f" .r1.json).r$round.json"
  done
  rps=$(redis-benchmark -h "$redis_host" -p "$redis_port" -t incr -c 20 -n "$INCRS" -q | tr '\r' '\n' | awk '/INCR:/ {print $2}' | tail -1)
  bench_rps+=("$rps")
  echo "round $round: redis-benchmark -t incr -c 20 -n $INCRS: $rps req/s" >&2
done
python3 bench/table.py --ratio "go-cachequeue:async /cache/redis|php-cachequeue:sync /cache/redis" "$work"/*.json
python3 - "${bench_rps[@]}" "$work"/*.json <<'PY'
import json, statistics, sys
rb = [float(x) for x in sys.argv[1:] if not x.endswith(".json")]
go = {}
for p in sys.argv[1:]:
    if p.endswith(".json"):
        r = json.load(open(p))
        if r.get("impl") == "go-cachequeue":
            go[int(p.rsplit(".r", 1)[1][:-5])] = r["throughput"]["mean"]
each = ", ".join(f"{go[i + 1] / x:.2f}" for i, x in enumerate(rb) if i + 1 in go)
print(f"go-cachequeue:async /cache/redis / redis-benchmark -t incr -c 20: medians "
      f"{statistics.median(go.values()):.0f} / {statistics.median(rb):.0f} = "
      f"{statistics.median(go.values()) / statistics.median(rb):.2f}x (each round: {each})")
PY
