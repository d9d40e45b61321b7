#!/usr/bin/env bash
# peers.sh: iobench's HTTP generator beside the peers its users come from (wrk, oha, hey, vegeta,
# k6) against one nginx worker pinned to core 0, every generator pinned to core 1 (Go tools with
# GOMAXPROCS=1), the same connections and duration, rounds interleaved (each round runs every
# tool once, in a new order), so that drift on the machine hits all of them alike.
#
# Table 1, closed loop (as fast as each tool goes): median req/s, ratio to wrk, the generator's
# own CPU seconds (user + system, /usr/bin/time) and peak RSS.
# Table 2, fixed rate (RATE req/s, default 50,000) for the tools that can hold one (iobench -R, oha
# -q, vegeta -rate, k6's constant-arrival-rate): the rate each reached, generator CPU ms per 1,000
# requests and p99 latency (each tool's own p99, from its intended start where the tool has one:
# iobench's -R latency is, oha's -q and vegeta's are not).
#
#   bash bench/peers.sh                          # 5 s runs, 3 rounds per table (about 5 minutes)
#   ROUNDS=7 DURATION=5s bash bench/peers.sh     # medians of 7
#   TOOLS="wrk iobench" FIXED=0 bash bench/peers.sh
#   IOBENCH_BASE=/tmp/old/bin/iobench TOOLS="iobench iobench-base" ROUNDS=9 bash bench/peers.sh
#     # this tree's iobench beside an older build (make build in a worktree of the older commit),
#     # in the same rounds: each table ends with iobench's CPU per request over the older one's,
#     # round by round and their median (what a change to the generator saves, on a busy machine)
# Peers are installed when missing: wrk with apt, hey, vegeta and k6 with `go install`, oha with
# `cargo install` (minutes, once).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-100}
RATE=${RATE:-50000}
FIXED=${FIXED:-1}
TOOLS=${TOOLS:-wrk iobench oha hey vegeta k6}
PORT=${PORT:-18491}
SERVER_CPU=${SERVER_CPU:-0}
GEN_CPU=${GEN_CPU:-1}
secs=${DURATION%s}
work=$(mktemp -d /tmp/iobench-peers.XXXXXX)
export PATH=$PATH:$(go env GOPATH)/bin:$HOME/.cargo/bin:/usr/sbin

install_peers() {
  local t
  for t in $TOOLS; do
    if [[ $t == iobench-base ]]; then
      [[ -x ${IOBENCH_BASE:-} ]] || { echo "peers.sh: iobench-base needs IOBENCH_BASE, the path of an older build's bin/iobench" >&2; exit 2; }
      continue
    fi
    { [[ $t == iobench ]] || command -v "$t" >/dev/null; } && continue
    echo "installing $t" >&2
    case $t in
      wrk) apt-get install -y -q --no-install-recommends wrk >/dev/null ;;
      hey) go install github.com/rakyll/hey@latest ;;
      vegeta) go install github.com/tsenart/vegeta/v12@latest ;;
      k6) go install go.k6.io/k6@latest ;;
      oha) cargo install oha --locked -q ;;
      iobench) ;;
    esac
  done
  command -v nginx >/dev/null || apt-get install -y -q --no-install-recommends nginx >/dev/null
  [[ -x /usr/bin/time ]] || apt-get install -y -q --no-install-recommends time >/dev/null
}

start_nginx() {
  hello_nginx "$work" "127.0.0.1:$PORT backlog=4096"
  run_nginx "$work" "$PORT" taskset -c "$SERVER_CPU"
}
trap 'stop_nginx "$work"' EXIT

# k6_script RATE: a k6 script for CONNS VUs as fast as they go (RATE 0) or RATE req/s.
k6_script() {
  if [[ $1 == 0 ]]; then
    echo "export const options = { vus: $CONNS, duration: '$DURATION', summaryTrendStats: ['p(50)', 'p(99)'] };"
  else
    echo "export const options = { summaryTrendStats: ['p(50)', 'p(99)'], scenarios: { fixed: { executor: 'constant-arrival-rate', rate: $1, timeUnit: '1s', duration: '$DURATION', preAllocatedVUs: $CONNS, maxVUs: $((CONNS * 4)) } } };"
  fi
  echo "import http from 'k6/http'; export default function () { http.get('$url'); }"
}

# run TOOL RATE: runs TOOL pinned to GEN_CPU (RATE 0: closed loop), leaving its output in
# $work/out and /usr/bin/time's "user sys maxrss_kib" in $work/time.
run() {
  local tool=$1 rate=$2 cmd
  case $tool in
    wrk) cmd=(wrk -t1 -c"$CONNS" -d"$DURATION" --latency "$url") ;;
    iobench | iobench-base) cmd=(./bin/iobench http -t1 -c"$CONNS" -d"$DURATION" --latency --quiet --json "$work/rec.json" "$url")
      [[ $tool == iobench-base ]] && cmd[0]=$IOBENCH_BASE
      [[ $rate != 0 ]] && cmd+=(-R "$rate") ;;
    oha) cmd=(oha -z "$DURATION" -c "$CONNS" --no-tui --output-format json "$url")
      [[ $rate != 0 ]] && cmd+=(-q "$rate") ;;
    hey) cmd=(hey -z "$DURATION" -c "$CONNS" "$url") ;;
    vegeta) cmd=(sh -c "echo 'GET $url' | vegeta attack -duration=$DURATION -rate=$rate -workers=$CONNS -max-workers=$CONNS -keepalive=true > $work/vegeta.bin")
      [[ $rate == 0 ]] && cmd=(sh -c "echo 'GET $url' | vegeta attack -duration=$DURATION -rate=0 -workers=$CONNS -max-workers=$CONNS > $work/vegeta.bin") ;;
    k6) k6_script "$rate" >"$work/k6.js"
      cmd=(k6 run -q --no-color --summary-export "$work/k6.json" "$work/k6.js") ;;
  esac
  GOMAXPROCS=1 /usr/bin/time -f '%U %S %M' -o "$work/time" taskset -c "$GEN_CPU" timeout 300 "${cmd[@]}" >"$work/out" 2>&1 || {
    echo "peers.sh: $tool failed:" >&2; tail -5 "$work/out" >&2; return 1; }
}

# figures TOOL: prints "req/s p99_ms" from the output run left.
figures() {
  case $1 in
    wrk) awk '/Requests\/sec:/ {r=$2} $1=="99%" {p=$2} END {print r, p}' "$work/out" | to_ms ;;
    iobench | iobench-base) python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["throughput"]["mean"], next(q["value"] / 1000 for q in r["latency"]["percentiles"] if q["p"] == 99))' "$work/rec.json" ;;
    oha) python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["summary"]["requestsPerSec"], 1000*j["latencyPercentiles"]["p99"])' "$work/out" ;;
    hey) awk '/Requests\/sec:/ {r=$2} ($1=="99%" || $1=="99%%") && $2=="in" {p=$3*1000} END {print r, p}' "$work/out" ;;
    vegeta) vegeta report -type=json <"$work/vegeta.bin" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["throughput"], j["latencies"]["99th"]/1e6)' ;;
    k6) python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["metrics"]; print(m["http_reqs"]["rate"], m["http_req_duration"]["p(99)"])' "$work/k6.json" ;;
  esac
}

# to_ms turns wrk's "1.23ms"/"456.00us"/"1.2s" second field into milliseconds.
to_ms() {
  awk '{v=$2; m=1; if (v ~ /us$/) m=0.001; else if (v ~ /ms$/) m=1; else if (v ~ /s$/) m=1000; sub(/[a-z]+$/, "", v); print $1, v*m}'
}


# table TITLE RATE TOOLS...: ROUNDS interleaved rounds, then one row of medians per tool.
table() {
  local title=$1 rate=$2; shift 2
  local tools=("$@") round t rps p99 user sys rss
  declare -A R P C M K
  echo "== $title ==" >&2
  for round in $(seq "$ROUNDS"); do
    # rotate the order each round
    local order=("${tools[@]:$((round % ${#tools[@]}))}" "${tools[@]:0:$((round % ${#tools[@]}))}")
    for t in "${order[@]}"; do
      run "$t" "$rate" || continue
      read -r rps p99 < <(figures "$t")
      read -r user sys rss <"$work/time"
      R[$t]+=" $rps"; P[$t]+=" $p99"; C[$t]+=" $(echo "$user + $sys" | bc -l)"; M[$t]+=" $rss"
      K[$t.$round]=$(echo "($user + $sys) / $rps" | bc -l) # CPU per request: this round's pair
      printf '  round %d %-12s %10.0f req/s  p99 %8.2f ms  cpu %5.2f s  rss %6.1f MiB\n' "$round" "$t" "$rps" "$p99" "$(echo "$user + $sys" | bc -l)" "$(echo "$rss/1024" | bc -l)" >&2
    done
  done
  local w
  w=$(echo "${R[wrk]:-}" | median)
  echo
  echo "$title (medians of $ROUNDS rounds, $DURATION each, -c$CONNS, nginx on CPU $SERVER_CPU, generator on CPU $GEN_CPU)"
  printf '| %-12s | %10s | %8s | %10s | %14s | %10s | %12s |\n' tool req/s "vs wrk" "p99 ms" "gen CPU-s" "CPU ms/1k" "peak RSS MiB"
  printf '|%s|\n' "--------------|-----------:|---------:|-----------:|---------------:|-----------:|-------------:"
  for t in "${tools[@]}"; do
    [[ -z ${R[$t]:-} ]] && continue
    local r p c m vs
    r=$(echo "${R[$t]}" | median); p=$(echo "${P[$t]}" | median); c=$(echo "${C[$t]}" | median); m=$(echo "${M[$t]}" | median)
    vs="-"; [[ -n $w && $rate == 0 ]] && vs=$(printf '%.2fx' "$(echo "$r / $w" | bc -l)")
    printf '| %-12s | %10.0f | %8s | %10.2f | %14.2f | %10.1f | %12.1f |\n' "$t" "$r" "$vs" "$p" "$c" "$(echo "1000000 * $c / ($r * $secs)" | bc -l)" "$(echo "$m / 1024" | bc -l)"
  done
  local ratios=""
  for round in $(seq "$ROUNDS"); do
    [[ -n ${K[iobench.$round]:-} && -n ${K[iobench-base.$round]:-} ]] &&
      ratios+=" $(printf '%.3f' "$(echo "${K[iobench.$round]} / ${K[iobench-base.$round]}" | bc -l)")"
  done
  [[ -n $ratios ]] && echo "iobench / iobench-base CPU per request, each round:$ratios; median $(echo "$ratios" | median)"
  return 0
}

install_peers
make -s build
start_nginx
url=http://127.0.0.1:$PORT/
wrk -t1 -c10 -d1s "$url" >/dev/null 2>&1 || true # warm-up
read -ra tools <<<"$TOOLS"
table "Closed loop" 0 "${tools[@]}"
if [[ $FIXED == 1 ]]; then
  fixed=()
  for t in "${tools[@]}"; do [[ $t =~ ^(iobench|iobench-base|oha|vegeta|k6)$ ]] && fixed+=("$t"); done
  ((${#fixed[@]})) && table "Fixed rate, $RATE req/s" "$RATE" "${fixed[@]}"
fi
