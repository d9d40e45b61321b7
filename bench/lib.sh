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
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
