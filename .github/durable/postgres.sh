#!/usr/bin/env bash
# Runs the durable host's tests on Postgres (Debian's postgresql package):
# a cluster of its own in a temporary directory, on a port of its own,
# stopped at exit; each test makes a database of its own there. .ci/run runs
# it after the tests on SQLite. Any arguments go to go test, such as
# -run ProcessesShareOnePage -v.
set -euo pipefail
cd "$(dirname "$0")"
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
if [ ! -x "$bin/initdb" ]; then
	echo "no postgres: apt-get install -y postgresql"
	exit 1
fi
dir=$(mktemp -d)
port=${PGPORT:-54329}
as=()
if [ "$(id -u)" = 0 ]; then # initdb refuses to run as root
	chown postgres "$dir"
	as=(runuser -u postgres --)
fi
trap '"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
"${as[@]}" "$bin/initdb" -D "$dir/data" -U dbos --auth=trust >/dev/null
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -o "-p $port -k $dir -c listen_addresses=127.0.0.1" -l "$dir/log" -w start >/dev/null
"${as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U dbos durable
DURABLE_TEST_DB="postgres://dbos@127.0.0.1:$port/durable?sslmode=disable" go test -count=1 "$@" .
