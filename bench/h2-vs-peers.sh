#!/usr/bin/env bash
# h2-vs-peers.sh: iobench's HTTP/2 (h2c, --streams) and pipelined HTTP/1.1 load beside the peer
# tools on one nginx with one worker: h2c against h2load (nghttp2-client) and oha --http2, and
# pipelining 16 deep against wrk with bench/pipeline.lua. Pinned as bench/http-vs-wrk.sh is:
# nginx on SERVER_CPU, every generator on GEN_CPU (taskset). Each round runs every tool once, in
# turn, so drift on this shared machine hits all of them. Per run it prints req/s, the
# generator's CPU seconds and peak RSS, its CPU per request, nginx's CPU in percent of a core
# (srv_%: near 100 the server, not the generator, sets the rate) and the machine's speed just
# before (cpu_probe_us, iobench's fixed loop, lower is faster). Then the medians, the ratios of
# each round's adjacent runs (iobench over its peer) and one verdict line per mark of issue 31:
#   - h2c vs h2load and pipelined vs wrk: CPU per request at most 1.00x the peer's; req/s at
#     least 0.97x the peer's where nginx's core is 95% busy or more (median, the lower middle, over both tools'
#     runs), at least 1.00x where it is not;
#   - h2c vs oha: req/s at least 1.5x.
# A verdict is judged on the median of the rounds' ratios; the ratio of the medians is beside it.
#
#   bash bench/h2-vs-peers.sh                     # 7 rounds of 10 s runs (about 7 minutes)
#   PAIRS=1 DURATION=3s bash bench/h2-vs-peers.sh # a smoke test
#   OHA=/path/to/oha bash bench/h2-vs-peers.sh    # oha elsewhere than the PATH or ~/.cargo/bin
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
[[ -z $OHA && -x $HOME/.cargo/bin/oha ]] && OHA=$HOME/.cargo/bin/oha # cargo install oha --locked
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
[[ -n $OHA ]] && echo "oha: $OHA ($("$OHA" --version 2>/dev/null | head -1))" || echo "oha: not found (cargo install oha --locked, or OHA=path): its mark is not judged"
echo "h2load: $(h2load --version 2>/dev/null | head -1); wrk: $(wrk --version 2>&1 | head -1 | cut -c1-40)"
printf '%-5s %-16s %12s %8s %8s %12s %6s %8s\n' round tool req/s cpu_s rss_MiB cpu_us/req srv_% probe_us
# Per run, by "tool round": req/s, µs CPU per request, nginx's busy %, cpu_probe_us.
declare -A RPS CPU SRV PROBE
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
for round in $(seq "$PAIRS"); do
  for tool in $TOOLS; do
    [[ $tool == oha && -z $OHA ]] && continue
    line=$(run "$tool")
    echo "$round     $line"
    read -r n r _ _ u s p <<<"$line"
    RPS[$n $round]=$r CPU[$n $round]=$u SRV[$n $round]=$s PROBE[$n $round]=$p
  done
done

# col ARRAY TOOL: the values of ARRAY for TOOL, one per round that ran it.
col() {
  local -n a=$1
  local round
  for round in $(seq "$PAIRS"); do [[ -n ${a[$2 $round]:-} ]] && echo "${a[$2 $round]}"; done
  true
}
# ratios ARRAY A B: A's value over B's, for each round that ran both.
ratios() {
  local -n a=$1
  local round
  for round in $(seq "$PAIRS"); do
    [[ -n ${a[$2 $round]:-} && -n ${a[$3 $round]:-} ]] && echo "${a[$2 $round]} / ${a[$3 $round]}" | bc -l
  done
  true
}
med() { col "$@" | median; }
x() { printf '%.2fx' "$1"; }

echo
echo "medians of $PAIRS rounds, -c$CONNS, h2c --streams $STREAMS (h2load -m$STREAMS, oha -p$STREAMS), pipeline $DEPTH, ${DURATION} each; nginx 1 worker on CPU $SERVER_CPU, generators on CPU $GEN_CPU"
for n in iobench-h2c h2load oha iobench-pipe wrk-pipe; do
  [[ -z $(col RPS "$n") ]] && continue
  printf '%-14s %10.0f req/s  %8.3f µs CPU/req  nginx %3.0f%%  cpu_probe_us %s\n' "$n" "$(med RPS "$n")" "$(med CPU "$n")" "$(med SRV "$n")" "$(med PROBE "$n")"
done

# pair A B: prints each round's ratios of A over B and their medians, then A's marks against B:
# CPU per request (when CPU_MARK is set) and req/s (at least RPS_MARK; "server" for the bound that
# depends on nginx's busy %).
pair() {
  local a=$1 b=$2 cpu_mark=$3 rps_mark=$4 rps_r cpu_r srv bound round
  [[ -z $(ratios RPS "$a" "$b") ]] && { echo "MARK $a vs $b: not judged ($b did not run)"; return; }
  echo
  echo "$a / $b, round by round: req/s ratio, CPU per request ratio, nginx % under each"
  for round in $(seq "$PAIRS"); do
    [[ -n ${RPS[$a $round]:-} && -n ${RPS[$b $round]:-} ]] || continue
    printf '  round %-3s req/s %s  CPU/req %s  nginx %3.0f%% / %3.0f%%\n' "$round" \
      "$(x "$(echo "${RPS[$a $round]} / ${RPS[$b $round]}" | bc -l)")" "$(x "$(echo "${CPU[$a $round]} / ${CPU[$b $round]}" | bc -l)")" "${SRV[$a $round]}" "${SRV[$b $round]}"
  done
  rps_r=$(ratios RPS "$a" "$b" | median)
  cpu_r=$(ratios CPU "$a" "$b" | median)
  printf '  median    req/s %s  CPU/req %s  (ratio of the medians: req/s %s, CPU/req %s)\n' "$(x "$rps_r")" "$(x "$cpu_r")" \
    "$(x "$(echo "$(med RPS "$a") / $(med RPS "$b")" | bc -l)")" "$(x "$(echo "$(med CPU "$a") / $(med CPU "$b")" | bc -l)")"
  if [[ -n $cpu_mark ]]; then
    printf 'MARK %s CPU per request <= %sx %s'"'"'s: %s -> %s\n' "$a" "$cpu_mark" "$b" "$(x "$cpu_r")" "$(verdict "$cpu_r <= $cpu_mark")"
  fi
  if [[ $rps_mark == server ]]; then
    srv=$( { col SRV "$a"; col SRV "$b"; } | median)
    bound=1.00
    (($(echo "$srv >= 95" | bc))) && bound=0.97
    printf 'MARK %s req/s >= %sx %s'"'"'s (nginx %.0f%% busy, median of both tools'"'"' runs: %s): %s -> %s\n' "$a" "$bound" "$b" "$srv" \
      "$( [[ $bound == 0.97 ]] && echo "server-bound, 0.97x" || echo "under 95%, 1.00x")" "$(x "$rps_r")" "$(verdict "$rps_r >= $bound")"
  else
    printf 'MARK %s req/s >= %sx %s'"'"'s: %s -> %s\n' "$a" "$rps_mark" "$b" "$(x "$rps_r")" "$(verdict "$rps_r >= $rps_mark")"
  fi
}
# verdict EXPR: "met" when the bc expression holds, "NOT met" otherwise.
verdict() { (($(echo "$1" | bc -l))) && echo met || echo "NOT met"; }

has() { [[ " $TOOLS " == *" $1 "* ]]; }
has iobench-h2c && has h2load && pair iobench-h2c h2load 1.00 server
has iobench-h2c && has oha && { [[ -n $OHA ]] && pair iobench-h2c oha "" 1.5 || echo "MARK iobench-h2c req/s >= 1.5x oha's: not judged (oha not found)"; }
has iobench-pipe && has wrk-pipe && pair iobench-pipe wrk-pipe 1.00 server
true
