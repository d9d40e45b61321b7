#!/usr/bin/env bash
# https-vs-wrk.sh: iobench's HTTP generator over TLS side by side with wrk, against one nginx
# serving "Hello world!" over https with a certificate made here (lib.sh hello_nginx_tls: ECDSA
# P-256, TLS 1.2 and 1.3 with TLS 1.3's suite fixed to TLS_AES_128_GCM_SHA256, a shared session
# cache and session tickets, HTTP/1.1 only), one worker pinned to CPU 0. Each generator runs
# pinned to CPU 1 with one thread (-t1, GOMAXPROCS=1) and 100 keep-alive connections; neither
# verifies the certificate (wrk never does: iobench runs with --insecure). Pairs alternate so
# that drift hits both tools; prints req/s and the generator's CPU seconds per run, then the
# medians and the ratios iobench/wrk.
#
#   bash bench/https-vs-wrk.sh                       # 7 pairs of 10 s runs (about 3 minutes)
#   PAIRS=1 DURATION=2s bash bench/https-vs-wrk.sh   # a smoke test
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-7}
DURATION=${DURATION:-10s}
CONNS=${CONNS:-100}
PORT=${PORT:-18491}
SERVER_CPU=${SERVER_CPU:-0}
GEN_CPU=${GEN_CPU:-1}
work=$(mktemp -d /tmp/iobench-bench-https.XXXXXX)
chmod 755 "$work" # nginx's workers may run as another user

source bench/lib.sh
need wrk nginx taskset=util-linux time bc
make -s build
BIN=$PWD/bin/iobench

trap 'stop_nginx "$work"' EXIT

hello_nginx_tls "$work" "127.0.0.1:$PORT"
run_nginx "$work" "$PORT" taskset -c "$SERVER_CPU"
url=https://127.0.0.1:$PORT/

# measure CMD... -> "req/s cpu_s": the run's Requests/sec and the generator's user+system CPU.
measure() {
  /usr/bin/time -f '%U %S' -o "$work/time" taskset -c "$GEN_CPU" timeout 120 "$@" >"$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
  local user sys rps
  read -r user sys <"$work/time"
  rps=$(awk '/Requests\/sec:/ {print $2; exit}' "$work/out")
  [[ -n $rps ]] || { cat "$work/out" >&2; exit 1; }
  echo "$rps $(echo "$user + $sys" | bc)"
}

taskset -c "$GEN_CPU" wrk -t1 -c10 -d2s "$url" >/dev/null # warm-up: nginx's caches, the page cache
printf '%-5s %-8s %12s %10s %14s\n' pair tool req/s gen_cpu_s req/gen_cpu_s
declare -A rps cpu
for pair in $(seq "$PAIRS"); do
  for tool in wrk iobench; do
    if [[ $tool == wrk ]]; then line=$(measure wrk -t1 -c"$CONNS" -d"$DURATION" "$url")
    else line=$(measure env GOMAXPROCS=1 "$BIN" http -t1 -c"$CONNS" -d"$DURATION" --insecure --quiet "$url")
      tlsline=$(grep '^TLS' "$work/out" || true)
    fi
    read -r r c <<<"$line"
    printf '%-5s %-8s %12.0f %10.2f %14.0f\n' "$pair" "$tool" "$r" "$c" "$(echo "$r * ${DURATION%s} / $c" | bc -l)"
    rps[$tool]="${rps[$tool]:-} $r"
    cpu[$tool]="${cpu[$tool]:-} $(echo "$r * ${DURATION%s} / $c" | bc -l)"
  done
done

w=$(echo "${rps[wrk]}" | median); i=$(echo "${rps[iobench]}" | median)
wcpu=$(echo "${cpu[wrk]}" | median); icpu=$(echo "${cpu[iobench]}" | median)
echo
echo "iobench's last TLS line: ${tlsline:-none}"
printf 'median req/s: wrk %.0f, iobench %.0f; iobench/wrk = %.2f\n' "$w" "$i" "$(echo "$i/$w" | bc -l)"
printf 'median requests per generator CPU-second: wrk %.0f, iobench %.0f; iobench/wrk = %.2f\n' "$wcpu" "$icpu" "$(echo "$icpu/$wcpu" | bc -l)"
