#!/usr/bin/env bash
# h2-nginx-cost.sh: what one-worker nginx spends per h2c request for each client, the question
# behind issue 31's "1.5x oha's req/s" mark. nginx is pinned to SERVER_CPU, each client to
# GEN_CPU, -c10 with 100 streams, DURATION each, ROUNDS rounds alternating iobench and oha. Per
# run: req/s, nginx's CPU in percent of its core and in µs per request, nginx's write system
# calls per request (/proc/PID/io syscw), TCP segments per request (both directions, nstat
# TcpOutSegs over the run; loopback carries nothing else while it runs), and nginx's smoothed
# RTT to the client (ss -ti, the kernel's view of how soon the client's ACKs come back).
# A server-bound rate is nginx's CPU per request: max req/s = 1e6 / (µs per request) at 100%.
#
#   bash bench/h2-nginx-cost.sh                    # 3 rounds of 5 s (about 1 minute)
#   ROUNDS=5 DURATION=10 bash bench/h2-nginx-cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
SERVER_CPU=${SERVER_CPU:-0}
GEN_CPU=${GEN_CPU:-1}
H1_PORT=${H1_PORT:-18591}
H2C_PORT=${H2C_PORT:-18592}
OHA=${OHA:-$(type -P oha || true)}
[[ -z $OHA && -x $HOME/.cargo/bin/oha ]] && OHA=$HOME/.cargo/bin/oha # cargo install oha --locked
[[ -n $OHA ]] || { echo "bench/h2-nginx-cost.sh: oha not found (cargo install oha --locked, or OHA=path)" >&2; exit 2; }
need nginx taskset=util-linux bc nstat=iproute2 ss=iproute2
make -s build
work=$(mktemp -d /tmp/iobench-bench.XXXXXX)
trap 'stop_nginx "$work"' EXIT
hello_nginx "$work" "127.0.0.1:$H1_PORT backlog=4096; listen 127.0.0.1:$H2C_PORT http2 backlog=4096"
run_nginx "$work" "$H1_PORT" taskset -c "$SERVER_CPU"
sleep 0.5
pids=$(nginx_pids "$work")
worker=$(pgrep -P "$(cat "$work/nginx.pid")")
url=http://127.0.0.1:$H2C_PORT/
echo "congestion control: $(sysctl -n net.ipv4.tcp_congestion_control); oha: $("$OHA" --version | head -1)"
printf '%-8s %10s %8s %10s %12s %10s %12s\n' client req/s nginx_% nginx_us writes/req segs/req nginx_srtt_ms

# syscw: nginx's worker's write system calls so far.
syscw() { awk '/^syscw/ {print $2}' "/proc/$worker/io"; }

# probe NAME CMD...: one run of CMD pinned to GEN_CPU, and its line.
probe() {
  local name=$1 t0 t1 w0 w1 rps segs srtt n
  shift
  w0=$(syscw) t0=$(cpu_ticks $pids)
  nstat -n >/dev/null
  (sleep $((DURATION / 2)); ss -tin state established "( sport = :$H2C_PORT )" >"$work/ss") &
  taskset -c "$GEN_CPU" timeout 60 "$@" >"$work/out" 2>&1 || true
  wait
  t1=$(cpu_ticks $pids) w1=$(syscw)
  segs=$(nstat 2>/dev/null | awk '/TcpOutSegs/ {print $2}')
  srtt=$(grep -o ' rtt:[0-9.]*' "$work/ss" | cut -d: -f2 | median)
  rps=$(awk '/Requests\/sec:/ {print $2; exit}' "$work/out")
  n=$(echo "${rps:-0} * $DURATION" | bc -l)
  [[ $(echo "$n > 0" | bc) == 1 ]] || { echo "$name: no rate in its output:" >&2; cat "$work/out" >&2; return; }
  printf '%-8s %10.0f %8.1f %10.2f %12.3f %10.3f %12s\n' "$name" "$rps" \
    "$(echo "($t1 - $t0) * 100 / $(getconf CLK_TCK) / $DURATION" | bc -l)" \
    "$(echo "($t1 - $t0) * 1000000 / $(getconf CLK_TCK) / $n" | bc -l)" \
    "$(echo "($w1 - $w0) / $n" | bc -l)" "$(echo "${segs:-0} / $n" | bc -l)" "${srtt:-?}"
}

for _ in $(seq "$ROUNDS"); do
  probe iobench bin/iobench-http http -t1 -c10 --http2-prior-knowledge --streams 100 -d"${DURATION}s" --warmup 0s "$url"
  probe oha "$OHA" --http2 -c10 -p100 -z"${DURATION}s" --no-tui "$url"
done
