#!/usr/bin/env bash
# Make sure PostgreSQL (127.0.0.1:5432), MariaDB (127.0.0.1:3306), Redis
# (127.0.0.1:6379) and NATS with JetStream (127.0.0.1:4222, the ingestion log's
# tests) are reachable, and that the `test` database exists in
# PostgreSQL and MariaDB. Installs (apt-get) a missing server, starts a stopped
# one, waits up to 30 s, and exits 1 naming any service it still can't reach.
set -euo pipefail

HOST=127.0.0.1
PG_PORT=5432
MARIADB_PORT=3306
REDIS_PORT=6379
NATS_PORT=4222
WAIT_SECONDS=30

log() { printf 'ensure-services: %s\n' "$*" >&2; }
die() { printf 'ensure-services: ERROR: %s\n' "$*" >&2; exit 1; }

SUDO=
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "not root and sudo not available"
    SUDO=sudo
fi

# -- reachability -------------------------------------------------------------
tcp_open() { # host port
    timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null
}

pg_up() {
    if command -v pg_isready >/dev/null 2>&1; then
        pg_isready -q -h "$HOST" -p "$PG_PORT" -t 2
    else
        tcp_open "$HOST" "$PG_PORT"
    fi
}

mariadb_up() { tcp_open "$HOST" "$MARIADB_PORT"; }

# JetStream answers on the monitoring-free client port: a plain TCP check cannot tell a
# NATS without JetStream, so ask the server itself (INFO line, "jetstream":true).
nats_up() {
    local info
    info=$(timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"; head -n 1 <&3' _ "$HOST" "$NATS_PORT" 2>/dev/null) || return 1
    case "$info" in
        *'"jetstream":true'*) return 0 ;;
        *) return 1 ;;
    esac
}
nats_listening() { tcp_open "$HOST" "$NATS_PORT"; }

redis_up() {
    if command -v redis-cli >/dev/null 2>&1; then
        [ "$(timeout 2 redis-cli -h "$HOST" -p "$REDIS_PORT" ping 2>/dev/null)" = "PONG" ]
    else
        tcp_open "$HOST" "$REDIS_PORT"
    fi
}

# -- installation of missing servers ------------------------------------------
pg_installed() {
    command -v pg_ctlcluster >/dev/null 2>&1 && [ -n "$(ls /etc/postgresql 2>/dev/null)" ]
}
mariadb_installed() { [ -x /usr/sbin/mariadbd ]; }
redis_installed() { command -v redis-server >/dev/null 2>&1; }
nats_installed() { [ -x /usr/sbin/nats-server ]; }

missing=()
pg_up || pg_installed || missing+=(postgresql)
mariadb_up || mariadb_installed || missing+=(mariadb-server)
redis_up || redis_installed || missing+=(redis-server)
nats_up || nats_installed || missing+=(nats-server)

if [ "${#missing[@]}" -gt 0 ]; then
    log "installing missing server package(s): ${missing[*]}"
    $SUDO apt-get update -qq || die "apt-get update failed (needed to install: ${missing[*]})"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" \
        || die "apt-get install ${missing[*]} failed"
fi

# -- start stopped servers ----------------------------------------------------
if ! pg_up; then
    pg_installed || die "PostgreSQL is not installed and could not be installed"
    log "starting PostgreSQL"
    # shellcheck disable=SC2046
    $SUDO pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start \
        || log "PostgreSQL start command failed (will still wait for it)"
fi

if ! redis_up; then
    redis_installed || die "Redis is not installed and could not be installed"
    log "starting Redis"
    $SUDO mkdir -p /var/lib/redis /var/log/redis
    $SUDO redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log \
        || log "Redis start command failed (will still wait for it)"
fi

if ! mariadb_up; then
    mariadb_installed || die "MariaDB is not installed and could not be installed"
    log "starting MariaDB"
    if [ ! -d /run/mysqld ]; then
        $SUDO mkdir -p /run/mysqld
        $SUDO chown mysql:mysql /run/mysqld 2>/dev/null || true
    fi
    $SUDO start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd \
        || log "MariaDB start command failed (will still wait for it)"
fi

if ! nats_up; then
    nats_installed || die "NATS (nats-server) is not installed and could not be installed"
    if nats_listening; then
        die "NATS on $HOST:$NATS_PORT runs without JetStream; restart it with -js (the ingestion log's tests need JetStream)"
    fi
    log "starting NATS with JetStream"
    $SUDO mkdir -p /var/lib/nats-server /var/log
    $SUDO start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
        -a 127.0.0.1 -p "$NATS_PORT" -js -sd /var/lib/nats-server -l /var/log/nats-server.log \
        || log "NATS start command failed (will still wait for it)"
fi

# -- wait (up to WAIT_SECONDS in total) ---------------------------------------
deadline=$((SECONDS + WAIT_SECONDS))
while :; do
    down=()
    pg_up || down+=("PostgreSQL ($HOST:$PG_PORT)")
    mariadb_up || down+=("MariaDB ($HOST:$MARIADB_PORT)")
    redis_up || down+=("Redis ($HOST:$REDIS_PORT)")
    nats_up || down+=("NATS with JetStream ($HOST:$NATS_PORT; log: /var/log/nats-server.log)")
    [ "${#down[@]}" -eq 0 ] && break
    if [ "$SECONDS" -ge "$deadline" ]; then
        for s in "${down[@]}"; do
            printf 'ensure-services: ERROR: %s is not reachable after %ss\n' "$s" "$WAIT_SECONDS" >&2
        done
        exit 1
    fi
    sleep 1
done

# -- `test` databases ---------------------------------------------------------
pg_sql() { # sql -> runs against the postgres maintenance DB
    if psql -X -q -w -h "$HOST" -p "$PG_PORT" -U postgres -d postgres -tA -c "$1" 2>/dev/null; then
        return 0
    fi
    # Fall back to the local socket as the postgres OS user (peer auth).
    if [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null 2>&1; then
        runuser -u postgres -- psql -X -q -p "$PG_PORT" -d postgres -tA -c "$1"
    else
        $SUDO -u postgres psql -X -q -p "$PG_PORT" -d postgres -tA -c "$1"
    fi
}

exists=$(pg_sql "SELECT 1 FROM pg_database WHERE datname = 'test'") \
    || die "PostgreSQL: cannot query databases as user postgres"
if [ "$exists" != "1" ]; then
    log "creating PostgreSQL database test"
    pg_sql "CREATE DATABASE test" >/dev/null || die "PostgreSQL: could not create database test"
fi

mariadb_client=$(command -v mariadb || command -v mysql || true)
[ -n "$mariadb_client" ] || die "MariaDB: no mariadb/mysql client found"
mariadb_sql() {
    "$mariadb_client" -h "$HOST" -P "$MARIADB_PORT" -u root -e "$1" 2>/dev/null \
        || $SUDO "$mariadb_client" -u root -e "$1" # local socket (unix_socket auth)
}
mariadb_sql "CREATE DATABASE IF NOT EXISTS test" \
    || die "MariaDB: could not create database test"

log "PostgreSQL, MariaDB, Redis and NATS (JetStream) are up; databases 'test' exist"
