# Shared by Scripts/run, Scripts/test and Scripts/bench (source it; bash).
# Installs what a new Debian machine lacks and runs a PostgreSQL cluster on a unix socket,
# as the `postgres` user when we are root (initdb refuses root).

PG_VERSION=${PG_VERSION:-15}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/$PG_VERSION/bin}

# install_packages PKG...: installs the missing Debian packages (root or sudo).
install_packages() {
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "missing packages ${missing[*]} and no sudo: install them first" >&2; return 1; }
    sudo="sudo"
  fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# as_cluster_owner CMD...: runs a command as the cluster's owner.
as_cluster_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# pg_cluster_start DATADIR SOCKETDIR [EXTRA_OPTIONS]: initializes (when new) and starts a
# cluster that listens only on a unix socket in SOCKETDIR. Trust auth: the socket is ours.
pg_cluster_start() {
  local data=$1 socket=$2 extra=${3:-}
  mkdir -p "$data" "$socket"
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres:postgres "$data" "$socket"
    chmod 700 "$data"
  fi
  if [ ! -f "$data/PG_VERSION" ]; then
    as_cluster_owner "$PG_BIN/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  fi
  if ! as_cluster_owner "$PG_BIN/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    as_cluster_owner "$PG_BIN/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
      -o "-c listen_addresses='' -c unix_socket_directories='$socket' -c max_connections=200 -c shared_buffers=256MB $extra" \
      start >/dev/null
  fi
}

pg_cluster_stop() {
  local data=$1
  as_cluster_owner "$PG_BIN/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
}

# The Debian packages the project needs on a new machine (pgcrypto and pg_trgm ship
# with postgresql-15 itself; postgresql-contrib-15 is only a name for it). msmtp is the
# SMTP client `liftbase deliver` sends mail with.
LIFTBASE_PACKAGES=(libpq-dev zlib1g-dev pkg-config postgresql-$PG_VERSION
  postgresql-$PG_VERSION-pgtap postgresql-$PG_VERSION-plpgsql-check libtap-parser-sourcehandler-pgtap-perl msmtp)
