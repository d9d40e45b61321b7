#!/usr/bin/env bash
# http-vs-wrk.sh: iobench's HTTP generator side by side with wrk (and hey once) on the same
# hello targets: nginx with one worker, and `iobench serve hello`. Pairs alternate so that drift
# on this shared machine hits both tools. Prints req/s, p50/p99, the generator's own CPU seconds
# and peak RSS, requests per generator CPU-second, and each engine's ratio to wrk. `iobench http`
# runs as bin/iobench-http (the lean generator image), once per engine in ENGINES (--engine loop,
# goroutine); one more run per target ("in-proc") keeps it inside iobench, to show what the
# hand-off saves. The server is pinned to SERVER_CPU and every generator to GEN_CPU (taskset;
# PIN=0 leaves them free), the pinned setup (nginx on core 0, the generator on core 1). Each
# round runs wrk and then every engine, so drift hits all of them; the summary gives medians over
# the rounds and each engine's ratio to wrk. srv_% is the server's CPU over the run in percent of a
# core: near 100 the server, not the generator, sets the rate, and 100 / wrk's srv_% bounds what
# any generator can reach over wrk against it.
#
#   bash bench/http-vs-wrk.sh            # 7 rounds of 10 s runs per target (about 8 minutes)
#   PAIRS=1 DURATION=2s bash bench/http-vs-wrk.sh                  # a smoke test
#   ENGINES=loop PAIRS=9 TARGETS=nginx bash bench/http-vs-wrk.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
PAIRS=${PAIRS:-7}
DURATION=${DURATION:-10s}
CONNS=${CONNS:-100}
THREADS=${THREADS:-1}
ENGINES=${ENGINES:-loop goroutine}
TARGETS=${TARGETS:-nginx hello}
PIN=${PIN:-1}
SERVER_CPU=${SERVER_CPU:-0}
GEN_CPU=${GEN_CPU:-1}
NGINX_PORT=${NGINX_PORT:-18481}
HELLO_PORT=${HELLO_PORT:-18482}
work=$(mktemp -d /tmp/iobench-bench.XXXXXX)

need wrk hey nginx time taskset=util-linux
make -s build
BIN=$PWD/bin/iobench

cleanup() {
  [[ -n ${hello_pid:-} ]] && kill "$hello_pid" 2>/dev/null || true
  stop_nginx "$work"
}
trap cleanup EXIT

# The command prefixes that pin the server and the generators (empty with PIN=0); taskset execs
# its command, so $! of a server started in the background is the server's own pid.
server_pin=(); gen_pin=()
if [[ $PIN == 1 ]]; then server_pin=(taskset -c "$SERVER_CPU"); gen_pin=(taskset -c "$GEN_CPU"); fi

hello_nginx "$work" "127.0.0.1:$NGINX_PORT backlog=4096"
run_nginx "$work" "$NGINX_PORT" "${server_pin[@]}"
"${server_pin[@]}" "$BIN" serve hello --listen 127.0.0.1:$HELLO_PORT & hello_pid=$!
wait_port "$HELLO_PORT"

# measure NAME CMD... -> one line: name req/s p50 p99 cpu_s rss_kib srv_% (the CPU of the
# processes in $server_pids over the run's wall time, in percent of a core)
measure() {
  local name=$1; shift
  local t0
  t0=$(cpu_ticks $server_pids)
  "${gen_pin[@]}" /usr/bin/time -f '%U %S %M %e' -o "$work/time" timeout 120 "$@" >"$work/out" 2>&1
  read -r user sys rss wall <"$work/time"
  local srv
  srv=$(echo "($(cpu_ticks $server_pids) - $t0) * 100 / $(getconf CLK_TCK) / $wall" | bc -l)
  local rps p50 p99
  rps=$(awk '/Requests\/sec:/ {print $2; exit}' "$work/out")
  case $name in
    hey) p50=$(awk '$1=="50%" && $2=="in" {print $3*1000 "ms"}' "$work/out"); p99=$(awk '$1=="99%" && $2=="in" {print $3*1000 "ms"}' "$work/out") ;;
    *) p50=$(awk '$1=="50%" || $1=="50.000%" {print $2; exit}' "$work/out"); p99=$(awk '$1=="99%" || $1=="99.000%" {print $2; exit}' "$work/out") ;;
  esac
  echo "$name ${rps:-0} ${p50:--} ${p99:--} $(echo "$user + $sys" | bc) $rss $srv"
}

# row TARGET TOOL LINE: prints one table row from measure's line; sets rps to its req/s.
row() {
  local p50 p99 cpu rss
  read -r _ rps p50 p99 cpu rss srv <<<"$3"
  printf '%-8s %-10s %12.0f %10s %10s %8.2f %9.1f %14.0f %6.0f\n' "$1" "$2" "$rps" "$p50" "$p99" "$cpu" "$(echo "$rss/1024" | bc -l)" "$(echo "$rps * ${DURATION%s} / $cpu" | bc -l)" "$srv"
}

printf '%-8s %-10s %12s %10s %10s %8s %9s %14s %6s\n' target tool req/s p50 p99 gen_cpu_s rss_MiB req/gen_cpu_s srv_%
declare -A sum
for target in $TARGETS; do
  port=$NGINX_PORT; [[ $target == hello ]] && port=$HELLO_PORT
  server_pids=$(nginx_pids "$work"); [[ $target == hello ]] && server_pids=$hello_pid
  url=http://127.0.0.1:$port/
  wrk -t1 -c10 -d2s "$url" >/dev/null # warm-up
  for pair in $(seq "$PAIRS"); do
    line=$(measure wrk wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency "$url")
    row "$target" wrk "$line"
    sum[$target.wrk]="${sum[$target.wrk]:-} $rps"
    sum[$target.srv]="${sum[$target.srv]:-} $srv"
    for engine in $ENGINES; do
      line=$(measure iobench "$BIN" http --engine "$engine" -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency --quiet "$url")
      row "$target" "$engine" "$line"
      sum[$target.$engine]="${sum[$target.$engine]:-} $rps"
    done
  done
  line=$(measure hey hey -z "$DURATION" -c "$CONNS" "$url")
  row "$target" hey "$line"
  sum[$target.hey]=$rps
  # The same generator kept inside iobench (no hand-off to bin/iobench-http), once, for its RSS.
  line=$(measure iobench env IOBENCH_HTTP_INPROCESS=1 "$BIN" http -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency --quiet "$url")
  row "$target" in-proc "$line"
done

echo
pin="unpinned"; [[ $PIN == 1 ]] && pin="server on CPU $SERVER_CPU, generators on CPU $GEN_CPU"
echo "medians of $PAIRS rounds, -t$THREADS -c$CONNS -d$DURATION, $pin"
for target in $TARGETS; do
  w=$(echo "${sum[$target.wrk]}" | median)
  printf '%s: wrk %.0f req/s' "$target" "$w"
  for engine in $ENGINES; do
    i=$(echo "${sum[$target.$engine]}" | median)
    printf '; iobench --engine %s %.0f (%.2fx wrk)' "$engine" "$i" "$(echo "$i/$w" | bc -l)"
  done
  printf '; hey %.0f\n' "${sum[$target.hey]}"
  s=$(echo "${sum[$target.srv]}" | median)
  printf '%s: its server at %.0f%% of a core under wrk (median), so at the same server CPU per request no generator can pass %.2fx wrk against it here\n' "$target" "$s" "$(echo "100/$s" | bc -l)"
done
