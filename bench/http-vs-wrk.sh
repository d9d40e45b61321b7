#!/usr/bin/env bash
# http-vs-wrk.sh: iobench's HTTP generator side by side with wrk (and hey once) on the same
# hello targets: nginx with one worker, and `iobench serve hello`. Pairs alternate so that drift
# on this shared machine hits both tools. Prints req/s, p50/p99, the generator's own CPU seconds
# and peak RSS, requests per generator CPU-second, and the ratio iobench/wrk. `iobench http` runs as
# bin/iobench-http (the lean generator image); one more run per target ("in-proc") keeps it inside
# iobench, to show what the hand-off saves.
#
#   bash bench/http-vs-wrk.sh            # 3 pairs of 10 s runs per target (about 3 minutes)
#   PAIRS=1 DURATION=5s bash bench/http-vs-wrk.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-3}
DURATION=${DURATION:-10s}
CONNS=${CONNS:-100}
NGINX_PORT=${NGINX_PORT:-18481}
HELLO_PORT=${HELLO_PORT:-18482}
work=$(mktemp -d /tmp/iobench-bench.XXXXXX)

source bench/lib.sh
need wrk hey nginx time
make -s build
BIN=$PWD/bin/iobench

cleanup() {
  [[ -f $work/nginx.pid ]] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  [[ -n ${hello_pid:-} ]] && kill "$hello_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 4096; }
http {
  access_log off; keepalive_requests 1000000;
  client_body_temp_path $work; proxy_temp_path $work; fastcgi_temp_path $work; uwsgi_temp_path $work; scgi_temp_path $work;
  server { listen 127.0.0.1:$NGINX_PORT backlog=4096; location / { default_type text/plain; return 200 "Hello world!"; } }
}
CONF
nginx -c "$work/nginx.conf"
"$BIN" serve hello --listen 127.0.0.1:$HELLO_PORT & hello_pid=$!
for port in $NGINX_PORT $HELLO_PORT; do
  for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
done

# measure NAME CMD... -> one line: name req/s p50 p99 cpu_s rss_kib
measure() {
  local name=$1; shift
  /usr/bin/time -f '%U %S %M' -o "$work/time" timeout 120 "$@" >"$work/out" 2>&1
  read -r user sys rss <"$work/time"
  local rps p50 p99
  rps=$(awk '/Requests\/sec:/ {print $2; exit}' "$work/out")
  case $name in
    hey) # hey 0.1.4 prints "50%%": its format string escapes the percent sign twice
      p50=$(awk '($1=="50%" || $1=="50%%") && $2=="in" {print $3*1000 "ms"}' "$work/out"); p99=$(awk '($1=="99%" || $1=="99%%") && $2=="in" {print $3*1000 "ms"}' "$work/out") ;;
    *) p50=$(awk '$1=="50%" || $1=="50.000%" {print $2; exit}' "$work/out"); p99=$(awk '$1=="99%" || $1=="99.000%" {print $2; exit}' "$work/out") ;;
  esac
  echo "$name $rps $p50 $p99 $(echo "$user + $sys" | bc) $rss"
}

# row TARGET TOOL LINE: prints one table row from measure's line; sets rps to its req/s.
row() {
  local p50 p99 cpu rss
  read -r _ rps p50 p99 cpu rss <<<"$3"
  printf '%-8s %-8s %12.0f %10s %10s %8.2f %9.1f %14.0f\n' "$1" "$2" "$rps" "$p50" "$p99" "$cpu" "$(echo "$rss/1024" | bc -l)" "$(echo "$rps * ${DURATION%s} / $cpu" | bc -l)"
}

printf '%-8s %-8s %12s %10s %10s %8s %9s %14s\n' target tool req/s p50 p99 gen_cpu_s rss_MiB req/gen_cpu_s
declare -A sum
for target in nginx hello; do
  port=$NGINX_PORT; [[ $target == hello ]] && port=$HELLO_PORT
  url=http://127.0.0.1:$port/
  wrk -t1 -c10 -d2s "$url" >/dev/null # warm-up
  for pair in $(seq "$PAIRS"); do
    for tool in wrk iobench; do
      if [[ $tool == wrk ]]; then line=$(measure wrk wrk -t1 -c"$CONNS" -d"$DURATION" --latency "$url")
      else line=$(measure iobench "$BIN" http -t1 -c"$CONNS" -d"$DURATION" --latency --quiet "$url"); fi
      row "$target" "$tool" "$line"
      sum[$target.$tool]="${sum[$target.$tool]:-} $rps"
    done
  done
  line=$(measure hey hey -z "$DURATION" -c "$CONNS" "$url")
  row "$target" hey "$line"
  sum[$target.hey]=$rps
  # The same generator kept inside iobench (no hand-off to bin/iobench-http), once, for its RSS.
  line=$(measure iobench env IOBENCH_HTTP_INPROCESS=1 "$BIN" http -t1 -c"$CONNS" -d"$DURATION" --latency --quiet "$url")
  row "$target" in-proc "$line"
done

echo
for target in nginx hello; do
  w=$(echo "${sum[$target.wrk]}" | median); i=$(echo "${sum[$target.iobench]}" | median); h=${sum[$target.hey]}
  printf '%s: median req/s wrk %.0f, iobench %.0f, hey %.0f; iobench/wrk = %.2f, iobench/hey = %.2f\n' \
    "$target" "$w" "$i" "$h" "$(echo "$i/$w" | bc -l)" "$(echo "$i/$h" | bc -l)"
done
