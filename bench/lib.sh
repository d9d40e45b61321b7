# lib.sh: what the bench scripts share; source it from bench/*.sh.

# need CMD[=PACKAGE]...: makes sure each command is on the PATH or in /usr/sbin. When one is not,
# scripts/install-services.sh --with-bench-tools installs what is missing (as root): the one place
# iobench's packages are named and installed. PACKAGE (the command's own name unless given) is
# only for the message of a command still missing after it.
need() {
  local missing=() spec
  for spec in "$@"; do
    on_path "${spec%%=*}" || missing+=("$spec")
  done
  ((${#missing[@]})) || return 0
  echo "missing ${missing[*]%%=*}: running scripts/install-services.sh --with-bench-tools" >&2
  bash "$(dirname "${BASH_SOURCE[0]}")/../scripts/install-services.sh" --with-bench-tools || true
  for spec in "${missing[@]}"; do
    on_path "${spec%%=*}" || { echo "${spec%%=*} is still missing: install ${spec#*=}" >&2; exit 1; }
  done
}

# on_path CMD: whether CMD is on the PATH or in /usr/sbin.
on_path() { type -P "$1" >/dev/null || [[ -x /usr/sbin/$1 ]]; }

# old_new SCRIPT ARGS...: sets OLD and NEW to the two builds an A/B script was given, or stops
# with its usage.
old_new() {
  local script=$1
  shift
  [[ $# -eq 2 ]] || { echo "usage: bench/$script OLD_IOBENCH NEW_IOBENCH" >&2; exit 2; }
  OLD=$(realpath "$1") NEW=$(realpath "$2")
}

# median: the median of the numbers on stdin, separated by blanks or newlines.
median() { tr ' ' '\n' | { grep -v '^$' || true; } | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# hello_nginx DIR LISTEN [HTTP_EXTRA [MAIN_EXTRA]]: writes DIR/nginx.conf, nginx with one worker
# and no access log answering "Hello world!" on LISTEN ("127.0.0.1:8080 backlog=4096", with "ssl"
# for TLS); HTTP_EXTRA goes inside http {} (certificates), MAIN_EXTRA before it (user).
hello_nginx() {
  local dir=$1 listen=$2 http_extra=${3:-} main_extra=${4:-}
  cat >"$dir/nginx.conf" <<CONF
$main_extra
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 4096; }
http {
  access_log off; keepalive_requests 1000000;
  client_body_temp_path $dir; proxy_temp_path $dir; fastcgi_temp_path $dir; uwsgi_temp_path $dir; scgi_temp_path $dir;
  $http_extra
  server { listen $listen; location / { default_type text/plain; return 200 "Hello world!"; } }
}
CONF
}

# bus_services IOBENCH NAME: starts a private RabbitMQ and PostgreSQL with IOBENCH on free ports,
# in a state directory of their own (in STATE) that an EXIT trap stops and removes, and unsets
# the IOBENCH_* service URLs, which 'iobench bus' would take over --state-dir.
bus_services() {
  STATE=$(mktemp -d "/tmp/iobench-bench-$2.XXXXXX")
  chmod 755 "$STATE" # the servers run as their own users
  unset IOBENCH_AMQP_URL IOBENCH_NATS_URL IOBENCH_DATABASE_URL
  BUS_SERVICES_IOBENCH=$1
  trap '"$BUS_SERVICES_IOBENCH" services down --state-dir "$STATE" >/dev/null 2>&1 || true; rm -rf "$STATE"' EXIT
  "$1" services up rabbitmq postgres --state-dir "$STATE" >&2
}

# hello_nginx_tls DIR ADDR: hello_nginx over TLS on ADDR (host:port) with a certificate made in
# DIR (Go's generate_cert.go, ECDSA P-256; no openssl needed): TLS 1.2 and 1.3 with TLS 1.3's
# suite fixed to TLS_AES_128_GCM_SHA256 (OpenSSL's clients, wrk's, would prefer AES-256, Go's
# AES-128), a shared session cache and session tickets, HTTP/1.1 only; workers as www-data when
# run as root.
hello_nginx_tls() {
  local dir=$1 addr=$2 user=""
  (cd "$dir" && go run "$(go env GOROOT)/src/crypto/tls/generate_cert.go" --host 127.0.0.1,localhost --ecdsa-curve P256 >/dev/null 2>&1)
  [[ $(id -u) == 0 ]] && user="user www-data;"
  hello_nginx "$dir" "$addr ssl backlog=4096" "ssl_certificate $dir/cert.pem; ssl_certificate_key $dir/key.pem;
  ssl_protocols TLSv1.2 TLSv1.3;
  ssl_conf_command Ciphersuites TLS_AES_128_GCM_SHA256;
  ssl_session_cache shared:SSL:10m; ssl_session_tickets on;" "$user"
}

# wait_port PORT: waits up to 5 s for a listener on 127.0.0.1:PORT.
wait_port() {
  for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done
  echo "nothing listens on 127.0.0.1:$1" >&2
  return 1
}

# run_nginx DIR PORT [PIN...]: starts the nginx of DIR/nginx.conf (hello_nginx or hello_nginx_tls),
# behind the command prefix PIN (e.g. taskset -c 0), and waits for PORT.
run_nginx() {
  local dir=$1 port=$2
  shift 2
  "$@" "$(type -P nginx || echo /usr/sbin/nginx)" -c "$dir/nginx.conf"
  wait_port "$port"
}

# nginx_pids DIR: the master and worker pids of the nginx that run_nginx started from DIR.
nginx_pids() {
  local master
  master=$(cat "$1/nginx.pid")
  echo "$master" $(pgrep -P "$master")
}

# cpu_ticks PID...: the CPU the processes have used so far (utime + stime, in clock ticks).
cpu_ticks() {
  local t=0 p
  for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done
  echo "$t"
}

# stop_nginx DIR: stops the nginx that run_nginx started from DIR and removes DIR (for an EXIT trap).
stop_nginx() {
  [[ -f $1/nginx.pid ]] && kill "$(cat "$1/nginx.pid")" 2>/dev/null || true
  rm -rf "$1"
}

# serve ARGS...: `bin/iobench serve ARGS` pinned to SUT_CPU, listening on a free port it sets in
# PORT, its pid in SERVER and its log in $OUT; a port found taken (the server exits at once) is
# tried anew, five times. stop_server stops it (call it from an EXIT trap too).
serve() {
  for _ in 1 2 3 4 5; do
    PORT=$(( 20000 + RANDOM % 20000 ))
    taskset -c "$SUT_CPU" bin/iobench serve "$@" --listen "127.0.0.1:$PORT" >"$OUT/server-$1-$PORT.log" 2>&1 &
    SERVER=$!
    for _ in $(seq 50); do
      kill -0 "$SERVER" 2>/dev/null || break
      (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return 0
      sleep 0.1
    done
    stop_server
  done
  echo "bench/$(basename "$0"): iobench serve $* did not listen on five ports in a row; see $OUT/server-*.log" >&2
  exit 1
}

stop_server() {
  kill -INT "$SERVER" 2>/dev/null || true
  wait "$SERVER" 2>/dev/null || true
  SERVER=
}
