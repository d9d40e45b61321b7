#!/usr/bin/env bash
# latency-sweep.sh: the marks of injected latency (BENCHMARKS.md), on services of its own.
#
# 1. The model. go-bus sync, php-messenger and go-bus async consume the bus with PostgreSQL
#    behind iobench's relay at +0, 1, 2, 5 and 10 ms, REPEATS times. For each sync impl and
#    latency: measured ÷ predicted, the prediction 1/(t0 + r·(L' − L'0)) from its 0 ms point (t0
#    the time per command there, r the relay's turns per command, L' the µs it measured it added
#    per turn, L'0 the same at 0 ms), medians of the repeats; the mark: 0.85-1.10 at every
#    latency from 1 to 10 ms. Then go-bus async ÷ go-bus sync at +5 ms; the mark: at least 5x.
# 2. The proxy's cost. go-cachequeue async /cache/redis: its closed-loop peak (-c 20, no relay),
#    then PAIRS alternating pairs at a fixed -R of half that peak, without and with a 0 ms relay:
#    the added µs per turn (median; the mark: at most 100), the relay's CPU per 1,000 requests,
#    and p50/p99 without and with it.
#
#   bash bench/latency-sweep.sh                     # the marks (about 15 minutes on 2 free cores)
#   REPEATS=1 SYNC_N=200 ASYNC_N=2000 PAIRS=1 DURATION=2s bash bench/latency-sweep.sh   # a smoke run
set -euo pipefail
cd "$(dirname "$0")/.."
REPEATS=${REPEATS:-3}
SYNC_N=${SYNC_N:-1000}
ASYNC_N=${ASYNC_N:-20000}
PAIRS=${PAIRS:-5}
DURATION=${DURATION:-10s}
work=$(mktemp -d /tmp/iobench-bench.XXXXXX)
chmod 755 "$work" # the services run as their own users
RESULTS=${RESULTS:-$work/results} # set RESULTS=dir to keep the records
make -s build
BIN=$PWD/bin/iobench
trap '"$BIN" services down --state-dir "$work/state" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$BIN" services up --state-dir "$work/state" rabbitmq postgres redis memcached >/dev/null
eval "$("$BIN" services env --state-dir "$work/state")"

# 1. The model: the bus at each latency, sync and async.
cat >"$work/sweep.yaml" <<YAML
name: bench-latency-sync
workload: bus
impls: [go-bus:sync, php-messenger:seed]
params:
  n: $SYNC_N
  profile: seed
  inject: ["postgres:latency=0s", "postgres:latency=1ms", "postgres:latency=2ms", "postgres:latency=5ms", "postgres:latency=10ms"]
repeats: $REPEATS
---
name: bench-latency-async
workload: bus
impls: [go-bus:async]
params:
  n: $ASYNC_N
  profile: seed
  inject: ["postgres:latency=0s", "postgres:latency=5ms"]
repeats: $REPEATS
YAML
"$BIN" run --quiet --results "$RESULTS/sweep" "$work/sweep.yaml" >"$work/sweep.txt" || {
  cat "$work/sweep.txt"; echo "latency-sweep.sh: a run failed (above)" >&2; exit 1; }
python3 - "$RESULTS"/sweep/*/ <<'PY'
import glob, json, statistics, sys
from collections import defaultdict
pts = defaultdict(list)  # (impl, mode, latency_us) -> records
for d in sys.argv[1:]:
    for p in glob.glob(d + "*.json"):
        r = json.load(open(p))
        if "inject" in r:
            pts[(r["impl"], r["mode"], r["inject"]["postgres"]["latency_us"])].append(r)
def med(recs, f):
    return statistics.median(f(r) for r in recs)
def rate(recs): return med(recs, lambda r: r["throughput"]["mean"])
def r_(recs): return med(recs, lambda r: r["inject"]["postgres"]["turns_per_op"])
def added(recs): return med(recs, lambda r: r["inject"]["postgres"]["added_us_per_turn"])
ok = True
for impl in ("go-bus", "php-messenger"):
    base = pts.get((impl, "sync", 0))
    if not base:
        print(f"{impl} sync: no 0 ms point"); ok = False; continue
    t0 = 1 / rate(base)
    print(f"{impl} sync: t0 {t0 * 1e6:.0f} µs per command at +0 ms (L'0 {added(base):.0f} µs per turn)")
    for lat in (1000, 2000, 5000, 10000):
        recs = pts.get((impl, "sync", lat))
        if not recs:
            print(f"  +{lat / 1000:g} ms: no runs"); ok = False; continue
        pred = 1 / (t0 + r_(recs) * (added(recs) - added(base)) / 1e6)
        ratio = rate(recs) / pred
        mark = "ok" if 0.85 <= ratio <= 1.10 else "MISSED"
        ok &= mark == "ok"
        print(f"  +{lat / 1000:g} ms: {rate(recs):.1f}/s, r {r_(recs):.2f}, L' {added(recs):.0f} µs: predicted {pred:.1f}/s, "
              f"measured ÷ predicted {ratio:.3f} ({mark}; 0.85-1.10; medians of {len(recs)} repeat(s))")
s, a = pts.get(("go-bus", "sync", 5000)), pts.get(("go-bus", "async", 5000))
if s and a:
    x = rate(a) / rate(s)
    ok &= x >= 5
    print(f"go-bus async ÷ sync at +5 ms: {rate(a):.0f} / {rate(s):.1f} = {x:.1f}x ({'ok' if x >= 5 else 'MISSED'}; at least 5x)")
else:
    print("go-bus async ÷ sync at +5 ms: missing runs"); ok = False
print("model and async marks:", "met" if ok else "NOT met")
PY

# 2. The proxy's cost: go-cachequeue async /cache/redis at half its closed-loop peak.
cq() { "$BIN" cachequeue --impl go-cachequeue:async --route /cache/redis -c 20 --warmup 2s --quiet "$@" >/dev/null; }
cq -d "$DURATION" --json "$work/peak.json"
rate=$(python3 -c "import json; print(round(json.load(open('$work/peak.json'))['throughput']['mean'] / 2))")
echo "go-cachequeue async /cache/redis: closed-loop peak $(python3 -c "print($rate * 2)") req/s; pairs at -R $rate" >&2
for i in $(seq "$PAIRS"); do
  cq -d "$DURATION" -R "$rate" --json "$work/direct.$i.json"
  cq -d "$DURATION" -R "$rate" --inject redis:latency=0s --json "$work/relay.$i.json"
done
python3 - "$work" "$PAIRS" "$rate" <<'PY'
import json, statistics, sys
work, pairs, rate = sys.argv[1], int(sys.argv[2]), sys.argv[3]
load = lambda p: json.load(open(p))
def pct(r, p): return next(x["value"] for x in r["latency"]["percentiles"] if x["p"] == p)
direct = [load(f"{work}/direct.{i}.json") for i in range(1, pairs + 1)]
relay = [load(f"{work}/relay.{i}.json") for i in range(1, pairs + 1)]
added, cpu = [], []
for r in relay:
    e = r["inject"]["redis"]
    added.append(e["added_us_per_turn"])
    ops = e["turns"] / e["turns_per_op"] if e["turns_per_op"] else 0
    p = next(p for p in r["processes"] if p["role"] == "proxy")
    cpu.append((p["cpu_user_s"] + p["cpu_system_s"]) * 1000 / (ops / 1000) if ops else float("nan"))
m = statistics.median(added)
print(f"proxy at 0 ms, go-cachequeue async /cache/redis -R {rate}, {pairs} pairs:")
print(f"  added per turn: median {m:.0f} µs (each: {', '.join(f'{a:.0f}' for a in added)}; {'ok' if m <= 100 else 'MISSED'}: at most 100)")
print(f"  relay CPU per 1,000 requests: median {statistics.median(cpu):.1f} ms (r {statistics.median(r['inject']['redis']['turns_per_op'] for r in relay):.2f} turns per request)")
for p in (50, 99):
    d, w = statistics.median(pct(r, p) for r in direct), statistics.median(pct(r, p) for r in relay)
    print(f"  p{p}: {d:.0f} µs without, {w:.0f} µs with the relay ({w - d:+.0f} µs)")
PY
