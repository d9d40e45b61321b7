#!/usr/bin/env bash
# h2-vs-peers.sh: iobench's HTTP/2 (h2c, --streams) and pipelined HTTP/1.1 load beside the peer
# tools on one nginx with one worker: h2c against h2load (nghttp2-client) and oha --http2, and
# pipelining 16 deep against wrk with bench/pipeline.lua. Pinned as bench/http-vs-wrk.sh is:
# nginx on SERVER_CPU, every generator on GEN_CPU (taskset). Each round runs every tool once, in
# turn, so drift on this shared machine hits all of them. Per run it prints req/s, the
# generator's CPU seconds and peak RSS, its CPU per request, nginx's CPU in percent of a core
# (srv_%: near 100 the server, not the generator, sets the rate) and the machine's speed just
# before (cpu_probe_us, iobench's fixed loop, lower is faster); then medians and ratios.
#
#   bash bench/h2-vs-peers.sh                     # 7 rounds of 10 s runs (about 7 minutes)
#   PAIRS=1 DURATION=3s bash bench/h2-vs-peers.sh # a smoke test
#   OHA=/path/to/oha bash bench/h2-vs-peers.sh    # oha built with `cargo install oha` (else skipped)
#   TOOLS="iobench-h2c oha" bash bench/h2-vs-peers.sh   # some of the tools only
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
PAIRS=${PAIRS:-7}
DURATION=${DURATION:-10s}
CONNS=${CONNS:-10}
STREAMS=${STREAMS:-100}
DEPTH=${DEPTH:-16}
SERVER_CPU=${SERVER_CPU:-0}
GEN_CPU=${GEN_CPU:-1}
H1_PORT=${H1_PORT:-18491}
H2C_PORT=${H2C_PORT:-18492}
OHA=${OHA:-$(type -P oha || true)}
TOOLS=${TOOLS:-iobench-h2c h2load oha iobench-pipe wrk-pipe}
work=$(mktemp -d /tmp/iobench-bench.XXXXXX)

need wrk h2load=nghttp2-client nginx time taskset=util-linux bc
make -s build
GEN=$PWD/bin/iobench-http
trap 'stop_nginx "$work"' EXIT

hello_nginx "$work" "127.0.0.1:$H1_PORT backlog=4096; listen 127.0.0.1:$H2C_PORT http2 backlog=4096"
run_nginx "$work" "$H1_PORT" taskset -c "$SERVER_CPU"
server_pids=$(nginx_pids "$work")
secs=${DURATION%s}

# measure NAME CMD...: runs CMD pinned to GEN_CPU and prints "NAME req/s cpu_s rss_kib srv_%
# probe_us"; req/s is read from the tool's own output.
measure() {
  local name=$1 t0 user sys rss wall rps srv probe
  shift
  probe=$(cpu_probe)
  t0=$(cpu_ticks $server_pids)
  taskset -c "$GEN_CPU" /usr/bin/time -f '%U %S %M %e' -o "$work/time" timeout 120 "$@" >"$work/out" 2>&1 || true
  read -r user sys rss wall <"$work/time"
  srv=$(echo "($(cpu_ticks $server_pids) - $t0) * 100 / $(getconf CLK_TCK) / $wall" | bc -l)
  case $name in
    h2load) rps=$(awk '/^finished in/ {print $4; exit}' "$work/out") ;;
    oha) rps=$(awk '/Requests\/sec:/ {print $2; exit}' "$work/out") ;;
    *) rps=$(awk '/Requests\/sec:/ {print $2; exit}' "$work/out") ;;
  esac
  printf '%-16s %12.0f %8.2f %8.1f %12.3f %6.0f %8s\n' "$name" "${rps:-0}" "$(echo "$user + $sys" | bc)" \
    "$(echo "$rss/1024" | bc -l)" "$(echo "($user + $sys) * 1000000 / (${rps:-1} * $secs)" | bc -l)" "$srv" "$probe"
}

# cpu_probe: iobench's measure of the machine's speed (µs, lower is faster), taken as records do.
cpu_probe() {
  "$GEN" http -n 1 -c1 -t1 --quiet --json - "http://127.0.0.1:$H1_PORT/" 2>/dev/null | awk -F': ' '/"cpu_probe_us"/ {gsub(/,/, "", $2); print $2; exit}'
}

h2c=http://127.0.0.1:$H2C_PORT/
h1=http://127.0.0.1:$H1_PORT/
printf '%-16s %12s %8s %8s %12s %6s %8s\n' tool req/s cpu_s rss_MiB cpu_us/req srv_% probe_us
declare -A rps cpu
add() { read -r n r c _ u s _ <<<"$1"; echo "$1"; rps[$n]="${rps[$n]:-} $r"; cpu[$n]="${cpu[$n]:-} $u"; srvs[$n]="${srvs[$n]:-} $s"; }
declare -A srvs
# run TOOL: one measured run of TOOL.
run() {
  case $1 in
    iobench-h2c) measure "$1" "$GEN" http -t1 -c"$CONNS" --http2-prior-knowledge --streams "$STREAMS" -d"$DURATION" --quiet "$h2c" ;;
    h2load) measure "$1" h2load -t1 -c"$CONNS" -m"$STREAMS" -D"$secs" "$h2c" ;;
    oha) measure "$1" "$OHA" --http2 -c"$CONNS" -p"$STREAMS" -z"$DURATION" --no-tui "$h2c" ;;
    iobench-pipe) measure "$1" "$GEN" http -t1 -c"$CONNS" --pipeline "$DEPTH" -d"$DURATION" --quiet "$h1" ;;
    wrk-pipe) measure "$1" wrk -t1 -c"$CONNS" -d"$DURATION" -s bench/pipeline.lua "$h1" -- "$DEPTH" ;;
  esac
}
for pair in $(seq "$PAIRS"); do
  for tool in $TOOLS; do
    [[ $tool == oha && -z $OHA ]] && continue
    add "$(run "$tool")"
  done
done

echo
echo "medians of $PAIRS rounds, -c$CONNS, h2c --streams $STREAMS (h2load -m$STREAMS, oha -p$STREAMS), pipeline $DEPTH, ${DURATION} each; nginx 1 worker on CPU $SERVER_CPU, generators on CPU $GEN_CPU"
for n in iobench-h2c h2load oha iobench-pipe wrk-pipe; do
  [[ -z ${rps[$n]:-} ]] && continue
  printf '%-14s %10.0f req/s  %8.3f µs CPU/req  nginx %3.0f%%\n' "$n" "$(echo "${rps[$n]}" | median)" "$(echo "${cpu[$n]}" | median)" "$(echo "${srvs[$n]}" | median)"
done
ratio() { printf '%s / %s: req/s %.2fx, CPU per request %.2fx\n' "$1" "$2" "$(echo "$(echo "${rps[$1]}" | median) / $(echo "${rps[$2]}" | median)" | bc -l)" "$(echo "$(echo "${cpu[$1]}" | median) / $(echo "${cpu[$2]}" | median)" | bc -l)"; }
have() { [[ -n ${rps[$1]:-} && -n ${rps[$2]:-} ]]; }
have iobench-h2c h2load && ratio iobench-h2c h2load
have iobench-h2c oha && ratio iobench-h2c oha
have iobench-pipe wrk-pipe && ratio iobench-pipe wrk-pipe
true
