#!/usr/bin/env bash
# bench/arrivals.sh: do --arrivals poisson arrivals queue as queueing theory says they must?
# Against `iobench serve hello --max-rate MU`, one queue with a fixed service time of 1/MU (an
# M/D/1 queue once its arrivals are Poisson, a D/D/1 one with even arrivals), each load RHO x MU
# runs PAIRS alternating pairs of open loops, one even and one Poisson (the order swapped each
# pair), DURATION each after a 1 s warm-up, server and generator pinned to CPUs of their own.
#
# Even arrivals never wait: their mean latency is 1/MU plus what the loopback, the timers and the
# generator add (the overhead). Poisson arrivals wait, on average, rho / (2 MU (1 - rho)) more
# (the Pollaczek-Khinchine formula for M/D/1), rho taken from the rate the run achieved. Per load
# it prints the medians of the pairs: even's mean, Poisson's mean, theory (even's mean + the
# formula) and Poisson / theory, Poisson's p99 beside even's, and the cpu_probe_us range.
#
#   bash bench/arrivals.sh                          # MU=1000, RHOS="0.5 0.8 0.9", PAIRS=3, 20 s: ~7 min
#   PAIRS=1 DURATION=5s bash bench/arrivals.sh      # a smoke test
#
# Records go to $OUT (default results/bench-arrivals-<time>). Needs jq and taskset, 2 cores or
# more, and a quiet machine.
set -euo pipefail

MU=${MU:-1000}
RHOS=${RHOS:-"0.5 0.8 0.9"}
PAIRS=${PAIRS:-3}
DURATION=${DURATION:-20s}
SUT_CPU=${SUT_CPU:-0}
GEN_CPU=${GEN_CPU:-1}
cd "$(dirname "$0")/.."
source bench/lib.sh
need jq taskset=util-linux
OUT=${OUT:-results/bench-arrivals-$(date +%Y%m%d-%H%M%S)}
(( $(nproc) >= 2 )) || { echo "bench/arrivals.sh: needs 2 cores or more (one for the server, one for the generator)" >&2; exit 2; }

make build >/dev/null
mkdir -p "$OUT"
SERVER=
trap '[[ -n $SERVER ]] && kill -INT $SERVER 2>/dev/null || true' EXIT
serve hello --max-rate "$MU"

# load RATE ARRIVALS REC: one open loop; -c 100 keeps every request's wait in the server's queue.
load() {
  taskset -c "$GEN_CPU" bin/iobench http -t 1 -c 100 -R "$1" --arrivals "$2" -d "$DURATION" --warmup 1s \
    --quiet --json "$3" "http://127.0.0.1:$PORT/" >/dev/null 2>"$3.err"
}

echo "M/D/1 check: service 1/$MU s, $PAIRS pairs of $DURATION per load (medians of the pairs)"
printf '%5s %8s %10s %12s %10s %8s %9s %11s %s\n' rho "λ (req/s)" "even mean" "poisson mean" theory ratio "even p99" "poisson p99" cpu_probe_us
for rho in $RHOS; do
  rate=$(awk -v r="$rho" -v mu="$MU" 'BEGIN { print r * mu }')
  for i in $(seq "$PAIRS"); do
    order="even poisson"
    (( i % 2 == 0 )) && order="poisson even"
    for a in $order; do load "$rate" "$a" "$OUT/$rho-$a-$i.json"; done
  done
  field() { jq -r "$1" "$OUT"/$rho-$2-*.json | median; }
  even=$(field '.latency.mean' even)
  lambda=$(field '.counts.attempted / (.duration.ns / 1e9)' poisson)
  pois=$(field '.latency.mean' poisson)
  theory=$(awk -v e="$even" -v l="$lambda" -v mu="$MU" 'BEGIN { r = l / mu; printf "%.0f", e + 1e6 * r / (2 * mu * (1 - r)) }')
  p99() { jq -r '.latency.percentiles[] | select(.p == 99) | .value' "$OUT"/$rho-$1-*.json | median; }
  probes=$(jq -r '.cpu_probe_us' "$OUT"/$rho-*.json | sort -g | awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%.0f-%.0f", a, b }')
  printf '%5s %8.0f %8.0fus %10.0fus %8sus %8.2f %7sus %9sus %s\n' "$rho" "$lambda" "$even" "$pois" "$theory" \
    "$(awk -v p="$pois" -v t="$theory" 'BEGIN { print p / t }')" "$(p99 even)" "$(p99 poisson)" "$probes"
done
