#!/usr/bin/env bash
# lean-rss.sh: the peak RSS of the lean generator image, bin/iobench-http run by itself (not
# through iobench's hand-off, whose own start-up comes first), at a short and a long duration,
# so that a peak growing with the run shows. Each run is
#
#   /usr/bin/time -f %M bin/iobench-http http -t1 -c100 -d DURATION --quiet URL
#
# against nginx answering "Hello world!" (lib.sh hello_nginx; SCHEME=https: hello_nginx_tls and
# --insecure; SCHEME=h2c: nginx over h2c and --http2-prior-knowledge --streams STREAMS), the server pinned to SERVER_CPU and the generator to GEN_CPU. Prints each run's
# peak RSS in KiB and, per duration, the median, min and max (issue 15 asks for at most 8 MiB,
# 8,192 KiB, at -c100 from 10 s to 10 min).
#
#   bash bench/lean-rss.sh                            # 3 runs of 10 s, then 3 of 10 min (31 min)
#   RUNS=1 SHORT=3s LONG=6s bash bench/lean-rss.sh    # a smoke test
#   SCHEME=https LONG=2m bash bench/lean-rss.sh       # over TLS
#   SCHEME=h2c LONG=1m bash bench/lean-rss.sh         # HTTP/2, 100 streams per connection (issue 31: 10 MiB)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
RUNS=${RUNS:-3}
SHORT=${SHORT:-10s}
LONG=${LONG:-10m}
CONNS=${CONNS:-100}
SCHEME=${SCHEME:-http}
STREAMS=${STREAMS:-100}
PORT=${PORT:-18493}
SERVER_CPU=${SERVER_CPU:-0}
GEN_CPU=${GEN_CPU:-1}
work=$(mktemp -d /tmp/iobench-bench-rss.XXXXXX)
chmod 755 "$work" # nginx's workers may run as another user

need nginx taskset=util-linux time bc
make -s build
LEAN=$PWD/bin/iobench-http

trap 'stop_nginx "$work"' EXIT

flags=()
case $SCHEME in
  http) hello_nginx "$work" "127.0.0.1:$PORT backlog=4096" ;;
  https) hello_nginx_tls "$work" "127.0.0.1:$PORT"; flags=(--insecure) ;;
  h2c) hello_nginx "$work" "127.0.0.1:$PORT http2 backlog=4096"; flags=(--http2-prior-knowledge --streams "$STREAMS") ;;
  *) echo "SCHEME=$SCHEME: use http, https or h2c" >&2; exit 2 ;;
esac
run_nginx "$work" "$PORT" taskset -c "$SERVER_CPU"
url=${SCHEME/h2c/http}://127.0.0.1:$PORT/

printf '%-8s %-4s %10s %10s\n' duration run peak_KiB req/s
for d in "$SHORT" "$LONG"; do
  peaks=""
  for run in $(seq "$RUNS"); do
    taskset -c "$GEN_CPU" /usr/bin/time -f %M -o "$work/time" \
      "$LEAN" http -t1 -c"$CONNS" -d"$d" --quiet "${flags[@]}" "$url" >"$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
    peak=$(tail -1 "$work/time")
    printf '%-8s %-4s %10s %10s\n' "$d" "$run" "$peak" "$(awk '/Requests\/sec:/ {print $2; exit}' "$work/out")"
    peaks="$peaks $peak"
  done
  sorted=$(echo "$peaks" | tr ' ' '\n' | grep -v '^$' | sort -n)
  printf '%-8s peak RSS median %s KiB (%.2f MiB), min %s, max %s\n' "$d" "$(echo "$peaks" | median)" \
    "$(echo "$(echo "$peaks" | median) / 1024" | bc -l)" "$(head -1 <<<"$sorted")" "$(tail -1 <<<"$sorted")"
done
