# lib.sh: what the bench scripts share; source it from bench/*.sh.

# need CMD[=PACKAGE]...: installs with apt (as root) the package of each command not found on the
# PATH or in /usr/sbin (the package is named as the command unless given).
need() {
  local missing=() spec
  for spec in "$@"; do
    type -P "${spec%%=*}" >/dev/null || [[ -x /usr/sbin/${spec%%=*} ]] || missing+=("${spec#*=}")
  done
  ((${#missing[@]})) || return 0
  echo "installing ${missing[*]}" >&2
  [[ -z $(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 -print -quit 2>/dev/null) ]] && apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
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
