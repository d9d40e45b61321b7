#!/usr/bin/env bash
# install-services.sh: install the servers iobench starts by itself (Debian/Ubuntu, apt):
#   RabbitMQ, PostgreSQL (server + client), Redis (server + redis-cli), Memcached, libzmq,
#   nginx and PHP-FPM, and what the impls run on: PHP 8.2 with the redis, memcached, zmq, amqp
#   and pgsql extensions, Predis (seed 3), amphp/amp (seed 4), Symfony Messenger 5.4 with its AMQP
#   transport and serializer and Doctrine DBAL 3 (seed 1), Guzzle 7, ext-curl and Monolog (seed
#   5), and python3-venv for the Python impls' virtualenvs (Node 20 and npm must already be there).
#
#   scripts/install-services.sh           install what is missing (as root), then exit 0
#   scripts/install-services.sh --check   only report; exit 1 if something is missing
#   --with-test-tools                     also what the test suite needs: chromium (the HTML
#                                         report test), python3-pip and prometheus-pushgateway
#                                         (the OpenMetrics export's push test)
#   --with-bench-tools                    also what the bench/ scripts run beside iobench:
#                                         nghttp2-client (h2load), wrk, hey, linux-perf (perf),
#                                         jq, bc and time (bench/lib.sh's need calls this)
#
# It only installs: iobench starts private instances on free ports of 127.0.0.1 itself
# ('iobench services up', or each run), so no daemon is started here. A policy-rc.d that
# refuses everything keeps the packages' scripts from starting the system services.
# Idempotent: when everything is present it returns in about a second. Not root and something
# missing: it prints the apt-get command to run and exits 1.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
PKGS=(rabbitmq-server postgresql postgresql-client redis-server redis-tools memcached libzmq3-dev libzmq5
  nginx php8.2-fpm php8.2-cli php8.2-redis php8.2-memcached php8.2-zmq php-predis php-amphp-amp
  php8.2-amqp php8.2-pgsql php-symfony-messenger php-symfony-amqp-messenger php-symfony-serializer
  php-doctrine-dbal php8.2-curl php-guzzlehttp-guzzle php-monolog python3-venv)
readonly TEST_TOOLS=(chromium python3-pip prometheus-pushgateway)
readonly BENCH_TOOLS=(nghttp2-client wrk hey linux-perf jq bc time)

log() { printf 'install-services.sh: %s\n' "$*" >&2; }

check_only=0
for arg in "$@"; do
  case $arg in
    --check) check_only=1 ;;
    --with-test-tools) PKGS+=("${TEST_TOOLS[@]}") ;;
    --with-bench-tools) PKGS+=("${BENCH_TOOLS[@]}") ;;
    -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) log "unknown argument '$arg'; usage: $0 [--check] [--with-test-tools] [--with-bench-tools]"; exit 2 ;;
  esac
done

# installed PKG -> 0 when the package (or, for the PostgreSQL metapackages, any versioned
# postgresql-NN / postgresql-client-NN) is installed.
installed() {
  local pattern=$1
  case $1 in
    postgresql) pattern='postgresql-[0-9]*' ;;
    postgresql-client) pattern='postgresql-client-[0-9]*' ;;
  esac
  dpkg-query -W -f='${Status}\n' "$pattern" 2>/dev/null | grep -q '^install ok installed$'
}

if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
  log "not a Debian/Ubuntu system (no dpkg/apt-get); install by hand: RabbitMQ, PostgreSQL (server and client), Redis (server and redis-cli), Memcached, libzmq (development files), nginx, PHP 8.2 (CLI and FPM) with the redis, memcached and zmq extensions, Predis"
  exit 1
fi

missing=()
for p in "${PKGS[@]}"; do
  installed "$p" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  log "all ${#PKGS[@]} packages present (${PKGS[*]})"
  exit 0
fi
install_cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if ((check_only)); then
  log "missing: ${missing[*]}; install with: sudo $install_cmd (or run $0 as root)"
  exit 1
fi
if ((EUID != 0)); then
  log "missing: ${missing[*]}"
  log "run as root:  sudo apt-get update && sudo $install_cmd"
  log "or:           sudo $0"
  exit 1
fi

log "installing ${missing[*]}"
# Keep the packages' maintainer scripts from starting daemons (they would listen on the default
# ports, some on all interfaces). Use an existing policy-rc.d as is; remove only our own.
own_policy=0
if [[ ! -e /usr/sbin/policy-rc.d ]]; then
  printf '#!/bin/sh\n# written by iobench install-services.sh\nexit 101\n' >/usr/sbin/policy-rc.d
  chmod 755 /usr/sbin/policy-rc.d
  own_policy=1
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
# Refresh the package lists only when they are missing or older than a day.
if [[ -z $(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 -print -quit 2>/dev/null) ]]; then
  log "apt-get update (package lists missing or older than a day)"
  apt-get update -q
fi
apt-get install -y -q --no-install-recommends \
  -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}" ||
  { log "apt-get install failed (see above); try: apt-get update && $install_cmd"; exit 1; }
((own_policy)) && log "removed the temporary /usr/sbin/policy-rc.d"

still=()
for p in "${PKGS[@]}"; do
  installed "$p" || still+=("$p")
done
if ((${#still[@]} > 0)); then
  log "still missing after apt-get: ${still[*]}"
  exit 1
fi
log "installed; start them with: iobench services up"
