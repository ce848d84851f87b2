#!/usr/bin/env bash
# Makes sure the servers the tests use answer on 127.0.0.1: PostgreSQL (5432), MariaDB (3306) and
# Redis (6379). Starts any that does not, waits up to ~30 s for it, and exits non-zero naming each
# service that cannot be started.
set -u

answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
  case "$1" in
    PostgreSQL) pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start ;;
    Redis) redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log ;;
    MariaDB) start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd ;;
  esac
}

services=("PostgreSQL 5432" "MariaDB 3306" "Redis 6379")
waiting=()
for entry in "${services[@]}"; do
  read -r name port <<<"$entry"
  if answers "$port"; then
    echo "ensure-services: $name answers on 127.0.0.1:$port"
  else
    echo "ensure-services: $name does not answer on 127.0.0.1:$port; starting it"
    start "$name" || echo "ensure-services: the start command of $name failed (exit $?)" >&2
    waiting+=("$entry")
  fi
done

failed=()
for entry in "${waiting[@]+"${waiting[@]}"}"; do
  read -r name port <<<"$entry"
  up=""
  for _ in $(seq 1 60); do
    if answers "$port"; then up=yes; break; fi
    sleep 0.5
  done
  if [ -n "$up" ]; then
    echo "ensure-services: $name started and answers on 127.0.0.1:$port"
  else
    echo "ensure-services: ERROR: $name cannot be started: nothing answers on 127.0.0.1:$port after ~30 s" >&2
    failed+=("$name")
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "ensure-services: FAILED to start: ${failed[*]}" >&2
  exit 1
fi
