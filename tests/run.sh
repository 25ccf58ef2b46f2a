#!/usr/bin/env bash
# The test command (README and .ci/run call exactly this). It installs what the tests need:
# the pinned Python packages, Debian's chromium for the browser tests, and a throwaway
# PostgreSQL 15 server for the database tests; then checks format, lint and types (ruff, mypy)
# and runs pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

python -m pip install --quiet --disable-pip-version-check --root-user-action=ignore -r requirements-dev.txt
# Ray (optional) only when asked: the CI runner sets CI=true; locally SPECDRAFT_TEST_RAY=1. Without it
# tests/test_cluster.py skips itself.
if [ "${CI:-}" = "true" ] || [ "${SPECDRAFT_TEST_RAY:-}" = "1" ]; then
  python -m pip install --quiet --disable-pip-version-check --root-user-action=ignore -r requirements-ray.txt
fi

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need_apt+=(postgresql)
if [ ${#need_apt[@]} -gt 0 ]; then
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

pg_dir=""
stop_pg() {
  if [ -n "$pg_dir" ]; then
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg_dir/data" -m fast stop >/dev/null 2>&1 || true
    else "$pg_bin/pg_ctl" -D "$pg_dir/data" -m fast stop >/dev/null 2>&1 || true; fi
    rm -rf "$pg_dir"
  fi
}
if [ -z "${SPECDRAFT_TEST_PG_URL:-}" ]; then
  pg_bin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)")
  pg_dir=$(mktemp -d /tmp/specdraft-pg.XXXXXX)
  trap stop_pg EXIT
  pg_port=$(python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  run_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
  [ "$(id -u)" = 0 ] && chown postgres "$pg_dir"
  run_pg "$pg_bin/initdb" -D "$pg_dir/data" -A trust -U postgres >/dev/null
  run_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" -w \
    -o "-p $pg_port -k $pg_dir -c listen_addresses=127.0.0.1" start >/dev/null
  export SPECDRAFT_TEST_PG_URL="postgresql+psycopg2://postgres@127.0.0.1:$pg_port/postgres"
fi

export SPECDRAFT_CHROMIUM="${SPECDRAFT_CHROMIUM:-$(command -v chromium)}"
# Format, lint and types first (configured in pyproject.toml): a failure stops the run before pytest.
python -m ruff format --check .
python -m ruff check .
python -m mypy
python -m pytest -q "$@"
