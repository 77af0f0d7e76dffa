#!/usr/bin/env bash
# Starts and stops throwaway PostgreSQL 15 + PostGIS 3 clusters for the PostGIS engine's tests and
# benchmarks. Nothing here is durable (fsync is off): use a directory you are happy to lose.
#
#   pg-cluster.sh start DIR                 initdb into DIR (new or empty), start it on a free port on
#                                           127.0.0.1, create the roles and databases below, print its URL
#   pg-cluster.sh standby PRIMARY_DIR DIR   a streaming hot standby of the running cluster in
#                                           PRIMARY_DIR, in DIR; prints its URL once it is replaying
#   pg-cluster.sh stop DIR                  stop the cluster in DIR (immediate) and remove DIR;
#                                           succeeds if DIR is already gone
#   pg-cluster.sh url DIR                   print the URL of the running cluster in DIR
#   pg-cluster.sh tls DIR [required]        turn TLS on in the running cluster in DIR, with a new CA
#                                           and certificates in DIR/tls; print that directory. With
#                                           `required`, connections over TCP without TLS are refused
#
# stdout is exactly one line, postgresql://wells@127.0.0.1:PORT/wells, for start, standby and url
# (nothing for stop); everything else goes to stderr. The port is also in DIR/port.
#
# What a started cluster holds:
#   role postgres        superuser (trust, no password)
#   role wells           LOGIN SUPERUSER (trust, no password)
#   role wells_secret    LOGIN, not superuser, password 'right-password'; the only role that needs a
#                        password over TCP (scram-sha-256), for authentication-failure tests
#   database wells       owned by wells, with the postgis and unaccent extensions
#   database wellkit_template  owned by wells, with postgis and unaccent, never connected to: tests
#                        make a database per test with CREATE DATABASE name TEMPLATE wellkit_template
#   database plain       owned by postgres, no PostGIS; wells_secret may CONNECT and CREATE but,
#                        not being a superuser, cannot CREATE EXTENSION postgis there
# Replication connections from 127.0.0.1 are trusted, so `standby` needs no password.
#
# What `tls` makes in DIR/tls (openssl; the keys unencrypted):
#   ca.crt               the CA that signed server.crt and client.crt
#   server.crt/.key      the server's certificate, for DNS:localhost only (not 127.0.0.1, so that a
#                        verify-full connection to 127.0.0.1 fails the name check)
#   client.crt/.key      a client certificate for the role wells_cert (CN=wells_cert), which may
#                        log in over TLS with that certificate only (pg_hba `cert`)
#   other-ca.crt         an unrelated CA, which signed nothing here
#
# The server refuses to run as root: run as root, the script runs initdb, pg_ctl and pg_basebackup
# as the system user wellkit-pg (created on first use; nobody if it cannot be created), so DIR's
# parent must be traversable by that user (anything under /tmp is). Run as anyone else, it runs them
# as that user. Debian's own `main` cluster (started by postgresql-common on install) is not used.
#
# Environment: WELLKIT_PG_BIN, the directory holding initdb and pg_ctl (default
# /usr/lib/postgresql/15/bin, else the one on PATH). PG* variables of the caller are ignored.
set -euo pipefail

me="pg-cluster.sh"
die() { echo "$me: $*" >&2; exit 1; }
say() { echo "$me: $*" >&2; }

usage() {
  echo "usage:" >&2
  sed -n '5,14s/^# \{0,1\}//p' "$0" >&2
  exit 2
}

# The caller's libpq settings must not redirect our connections.
while read -r v; do unset "$v"; done < <(compgen -e | grep '^PG' || true)

# --- binaries ---------------------------------------------------------------------------------------
find_bin() {
  if [ -n "${WELLKIT_PG_BIN:-}" ]; then
    bin="$WELLKIT_PG_BIN"
  elif [ -x /usr/lib/postgresql/15/bin/initdb ]; then
    bin=/usr/lib/postgresql/15/bin
  elif command -v initdb >/dev/null 2>&1; then
    bin="$(dirname "$(command -v initdb)")"
  else
    die "initdb not found: run bash .ci/setup (installs postgresql-15 and postgresql-15-postgis-3), or set WELLKIT_PG_BIN to the directory holding initdb and pg_ctl"
  fi
  local tool
  for tool in initdb pg_ctl postgres psql pg_basebackup pg_config; do
    [ -x "$bin/$tool" ] || die "$tool not found in $bin: run bash .ci/setup (installs postgresql-15 and postgresql-15-postgis-3)"
  done
  local version
  version="$("$bin/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')"
  [ "$version" -ge 15 ] 2>/dev/null || die "$bin holds PostgreSQL $version; 15 or later is needed (bash .ci/setup installs postgresql-15)"
  local ext
  ext="$("$bin/pg_config" --sharedir)/extension"
  [ -f "$ext/postgis.control" ] || die "PostGIS not installed for PostgreSQL $version (no $ext/postgis.control): run bash .ci/setup (installs postgresql-15-postgis-3)"
  [ -f "$ext/unaccent.control" ] || die "the unaccent extension is not installed for PostgreSQL $version (no $ext/unaccent.control): run bash .ci/setup (installs postgresql-contrib)"
}

# --- the user the server runs as --------------------------------------------------------------------
server_user() {
  if [ "$(id -u)" -ne 0 ]; then
    id -un
  elif id -u wellkit-pg >/dev/null 2>&1; then
    echo wellkit-pg
  elif useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
         --comment "WellKit throwaway PostgreSQL clusters" wellkit-pg >/dev/null 2>&1; then
    say "created system user wellkit-pg to run throwaway clusters"
    echo wellkit-pg
  else
    echo nobody
  fi
}

# as USER CMD...: run CMD as USER (from /, which every user can enter).
as() {
  local user="$1"; shift
  if [ "$(id -u)" -eq 0 ] && [ "$user" != root ]; then
    (cd / && runuser -u "$user" -- "$@")
  else
    (cd / && "$@")
  fi
}

owner_of() { stat -c %U "$1"; }

# --- helpers ----------------------------------------------------------------------------------------
absolute() {
  [ -n "$1" ] || usage
  local d
  d="$(realpath -m -- "$1")"
  [ "$d" != / ] || die "refusing to use / as a cluster directory"
  echo "$d"
}

free_port() {
  local py
  for py in python3 /usr/bin/python3; do
    if "$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null; then
      return 0
    fi
  done
  # No usable Python: a random port nothing answers on (the start retries if it was taken anyway).
  local p i
  for i in $(seq 1 50); do
    p=$(( 20000 + RANDOM % 30000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  die "could not find a free TCP port on 127.0.0.1"
}

url_for() { echo "postgresql://wells@127.0.0.1:$1/wells"; }

running() { # running DIR: a live postmaster owns DIR
  local dir="$1"
  [ -f "$dir/postmaster.pid" ] || return 1
  as "$(owner_of "$dir")" "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1
}

port_of() {
  local dir="$1" p
  p="$(cat "$dir/port" 2>/dev/null || true)"
  [[ "$p" =~ ^[0-9]+$ ]] || die "$dir/port is missing or unreadable; is $dir a cluster started by $me?"
  echo "$p"
}

sql() { # sql PORT DB SQL...: run as superuser postgres over TCP, stopping at the first error
  local port="$1" db="$2"; shift 2
  "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d "$db" "$@" >/dev/null
}

check_socket_path() { # Unix socket paths are limited to 107 bytes.
  local sock="$1/.s.PGSQL.65535"
  [ "${#sock}" -le 107 ] || die "$1 is too long a path for the server's Unix socket ($sock must be at most 107 bytes); use a shorter one, e.g. under /tmp"
}

# prepare_dir DIR USER: DIR exists, is empty, belongs to USER, and USER can reach it.
prepare_dir() {
  local dir="$1" user="$2"
  if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
    if [ -f "$dir/PG_VERSION" ]; then
      die "$dir holds a cluster that is not running; run: $0 stop $dir, then start again"
    fi
    die "$dir is not empty; give a new or empty directory"
  fi
  local made=""
  [ -e "$dir" ] || made=yes
  mkdir -p -- "$dir" || die "cannot create $dir"
  if [ "$(id -u)" -eq 0 ]; then chown "$user": "$dir"; fi
  chmod 700 "$dir"
  if ! as "$user" test -w "$dir/."; then
    [ -z "$made" ] || rmdir -- "$dir" 2>/dev/null || true
    die "$user cannot write $dir: every directory above it must be traversable by $user (use a directory under /tmp)"
  fi
}

# write_local DIR PORT: the per-cluster settings (port, socket directory), after everything else.
write_local() {
  local dir="$1" port="$2"
  as "$(owner_of "$dir")" tee "$dir/wellkit-local.conf" >/dev/null <<EOF
# Written by $me for this cluster only.
port = $port
unix_socket_directories = '$dir'
EOF
}

# start_server DIR: pg_ctl start on a free port, retried if the port was taken meanwhile. Sets port.
start_server() {
  local dir="$1" user attempt before
  user="$(owner_of "$dir")"
  for attempt in 1 2 3 4 5 6 7 8; do
    port="$(free_port)"
    write_local "$dir" "$port"
    before=$(stat -c %s "$dir/server.log" 2>/dev/null || echo 0)
    if as "$user" "$bin/pg_ctl" -w -t 60 -D "$dir" -l "$dir/server.log" start >/dev/null 2>&1; then
      echo "$port" | as "$user" tee "$dir/port" >/dev/null
      return 0
    fi
    if tail -c +"$((before + 1))" "$dir/server.log" 2>/dev/null | grep -q "Address already in use"; then
      say "port $port was taken; trying another"
      continue
    fi
    # A server that started but never became ready must not be left behind.
    as "$user" "$bin/pg_ctl" -D "$dir" -m immediate stop >/dev/null 2>&1 || true
    say "the server in $dir did not start; the end of $dir/server.log:"
    tail -n 20 "$dir/server.log" >&2 2>/dev/null || true
    exit 1
  done
  die "could not start the server in $dir: every port tried was taken"
}

# A failure after a server was started must not leave it running.
started=""
on_exit() {
  local rc=$?
  if [ "$rc" -ne 0 ] && [ -n "$started" ]; then stop_quietly "$started"; fi
}
trap on_exit EXIT

stop_quietly() {
  local dir="$1"
  if [ -f "$dir/postmaster.pid" ]; then
    as "$(owner_of "$dir")" "$bin/pg_ctl" -D "$dir" -m immediate stop >/dev/null 2>&1 || true
    say "stopped the server in $dir after the failure; its log is $dir/server.log; $0 stop $dir removes it"
  fi
}

# --- subcommands ------------------------------------------------------------------------------------
cmd_start() {
  local dir user
  dir="$(absolute "${1:-}")"
  find_bin
  if running "$dir"; then
    url_for "$(port_of "$dir")"
    return 0
  fi
  check_socket_path "$dir"
  user="$(server_user)"
  prepare_dir "$dir" "$user"

  say "initdb $dir (as $user)"
  local out
  out="$(as "$user" "$bin/initdb" -D "$dir" --auth=trust --username=postgres --encoding=UTF8 \
           --locale=C.UTF-8 --no-sync 2>&1)" || { echo "$out" >&2; die "initdb failed in $dir"; }

  as "$user" tee "$dir/wellkit.conf" >/dev/null <<'EOF'
# Written by pg-cluster.sh: a throwaway cluster for tests and benchmarks. Not durable.
listen_addresses = '127.0.0.1'
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 128MB
max_connections = 100
wal_level = replica
max_wal_senders = 10
hot_standby = on
logging_collector = off
log_destination = 'stderr'
EOF
  as "$user" tee -a "$dir/postgresql.conf" >/dev/null <<'EOF'

# pg-cluster.sh: its settings, then this cluster's port and socket directory.
include 'wellkit.conf'
include 'wellkit-local.conf'
EOF
  as "$user" tee "$dir/pg_hba.conf" >/dev/null <<'EOF'
# Written by pg-cluster.sh. TYPE  DATABASE     USER          ADDRESS        METHOD
local   all          all                          trust
host    all          wells_secret  127.0.0.1/32   scram-sha-256
host    replication  all           127.0.0.1/32   trust
host    all          all           127.0.0.1/32   trust
EOF

  started="$dir"
  start_server "$dir"
  say "started $dir on 127.0.0.1:$port"

  sql "$port" postgres <<'EOF'
CREATE ROLE wells LOGIN SUPERUSER;
CREATE ROLE wells_secret LOGIN PASSWORD 'right-password';
CREATE DATABASE wells OWNER wells;
CREATE DATABASE plain OWNER postgres;
GRANT CONNECT, CREATE ON DATABASE plain TO wells_secret;
CREATE DATABASE wellkit_template OWNER wells;
EOF
  sql "$port" wells <<'EOF'
CREATE EXTENSION postgis;
CREATE EXTENSION unaccent;
EOF
  sql "$port" wellkit_template <<'EOF'
CREATE EXTENSION postgis;
CREATE EXTENSION unaccent;
EOF
  started=""
  url_for "$port"
}

cmd_standby() {
  local primary dir user pport i state
  primary="$(absolute "${1:-}")"
  dir="$(absolute "${2:-}")"
  find_bin
  running "$primary" || die "no running cluster in $primary; start one with: $0 start $primary"
  pport="$(port_of "$primary")"
  if running "$dir"; then
    url_for "$(port_of "$dir")"
    return 0
  fi
  check_socket_path "$dir"
  user="$(server_user)"
  prepare_dir "$dir" "$user"

  say "pg_basebackup of $primary (127.0.0.1:$pport) into $dir (as $user)"
  # --checkpoint=fast: the default spread checkpoint makes pg_basebackup wait minutes on an idle primary.
  local out
  out="$(as "$user" "$bin/pg_basebackup" -h 127.0.0.1 -p "$pport" -U postgres -D "$dir" -R -X stream \
           --checkpoint=fast --no-sync 2>&1)" || { echo "$out" >&2; die "pg_basebackup from 127.0.0.1:$pport failed"; }
  # (It skips the primary's Unix socket, which lives in the data directory, with a warning: expected.)
  grep -v 'skipping special file' <<<"$out" >&2 || true
  # The copy brings the primary's log, port and socket lock file: not this cluster's.
  rm -f "$dir/port" "$dir"/.s.PGSQL.*.lock
  : > "$dir/server.log"; [ "$(id -u)" -ne 0 ] || chown "$user": "$dir/server.log"

  started="$dir"
  start_server "$dir"
  say "started standby $dir on 127.0.0.1:$port; waiting for it to stream from $primary"
  for i in $(seq 1 300); do
    state="$("$bin/psql" -X -At -h 127.0.0.1 -p "$port" -U postgres -d postgres -c \
      "SELECT pg_is_in_recovery() AND EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming')" \
      2>/dev/null || true)"
    [ "$state" = t ] && break
    sleep 0.1
  done
  if [ "$state" != t ]; then
    stop_quietly "$dir"
    die "the standby in $dir did not start streaming from 127.0.0.1:$pport within 30 s; see $dir/server.log"
  fi
  started=""
  url_for "$port"
}

cmd_stop() {
  local dir user
  dir="$(absolute "${1:-}")"
  [ -e "$dir" ] || return 0
  [ -d "$dir" ] || die "$dir is not a directory"
  # Only remove what this script made: a cluster directory, or one holding nothing else.
  if [ ! -f "$dir/PG_VERSION" ] &&
     [ -n "$(ls -A "$dir" | grep -vxE 'server\.log|port|wellkit(-local)?\.conf' || true)" ]; then
    die "$dir does not look like a cluster directory; not removing it"
  fi
  if [ -f "$dir/postmaster.pid" ]; then
    find_bin
    user="$(owner_of "$dir")"
    if as "$user" "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
      as "$user" "$bin/pg_ctl" -D "$dir" -m immediate -w stop >/dev/null ||
        die "could not stop the server in $dir; not removing it"
    fi
  fi
  rm -rf -- "$dir"
}

cmd_tls() {
  local dir="$1" required="${2:-}" user port tls
  dir="$(absolute "$dir")"
  find_bin
  command -v openssl >/dev/null 2>&1 || die "openssl not found: run bash .ci/setup (installs openssl)"
  running "$dir" || die "no running cluster in $dir; start one with: $0 start $dir"
  port="$(port_of "$dir")"
  user="$(owner_of "$dir")"
  tls="$dir/tls"
  rm -rf -- "$tls"
  mkdir -p -- "$tls"
  local days=30 subject
  {
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tls/ca.key" -out "$tls/ca.crt" -days "$days" -subj "/CN=WellKit test CA"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tls/other-ca.key" -out "$tls/other-ca.crt" -days "$days" -subj "/CN=WellKit other CA"
    for subject in server client; do
      openssl req -newkey rsa:2048 -nodes -keyout "$tls/$subject.key" -out "$tls/$subject.csr" \
        -subj "/CN=$([ "$subject" = server ] && echo localhost || echo wells_cert)"
    done
    printf 'subjectAltName = DNS:localhost\n' > "$tls/server.ext"
    openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial -days "$days" \
      -extfile "$tls/server.ext" -out "$tls/server.crt"
    openssl x509 -req -in "$tls/client.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial -days "$days" -out "$tls/client.crt"
  } >/dev/null 2>&1 || die "openssl could not make the certificates in $tls"
  chmod 600 "$tls"/*.key
  # The server reads its certificate and key as its own user; the tests read the rest.
  if [ "$(id -u)" -eq 0 ]; then chown "$user": "$tls/server.crt" "$tls/server.key"; fi
  chmod 755 "$tls"
  {
    if [ "$required" = required ]; then echo "hostnossl  all          all           127.0.0.1/32   reject"; fi
    echo "hostssl    all          wells_cert    127.0.0.1/32   cert"
    grep -v '^host\(no\)\?ssl' "$dir/pg_hba.conf"
  } > "$tls/pg_hba.conf"
  as "$user" tee "$dir/pg_hba.conf" < "$tls/pg_hba.conf" >/dev/null
  sql "$port" postgres <<EOF
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'wells_cert') THEN CREATE ROLE wells_cert LOGIN; END IF;
END \$\$;
GRANT CONNECT ON DATABASE wells TO wells_cert;
ALTER SYSTEM SET ssl = on;
ALTER SYSTEM SET ssl_cert_file = '$tls/server.crt';
ALTER SYSTEM SET ssl_key_file = '$tls/server.key';
ALTER SYSTEM SET ssl_ca_file = '$tls/ca.crt';
SELECT pg_reload_conf();
EOF
  local i state=""
  for i in $(seq 1 50); do
    state="$("$bin/psql" -X -At "sslmode=require host=127.0.0.1 port=$port user=postgres dbname=postgres" -c "SHOW ssl" 2>/dev/null || true)"
    [ "$state" = on ] && break
    sleep 0.1
  done
  [ "$state" = on ] || die "TLS did not come on in $dir; see $dir/server.log"
  echo "$tls"
}

cmd_url() {
  local dir
  dir="$(absolute "${1:-}")"
  find_bin
  running "$dir" || die "no running cluster in $dir"
  url_for "$(port_of "$dir")"
}

case "${1:-}" in
  start)   [ $# -eq 2 ] || usage; cmd_start "$2" ;;
  standby) [ $# -eq 3 ] || usage; cmd_standby "$2" "$3" ;;
  stop)    [ $# -eq 2 ] || usage; cmd_stop "$2" ;;
  url)     [ $# -eq 2 ] || usage; cmd_url "$2" ;;
  tls)     [ $# -eq 2 ] || { [ $# -eq 3 ] && [ "$3" = required ]; } || usage; cmd_tls "$2" "${3:-}" ;;
  *)       usage ;;
esac
