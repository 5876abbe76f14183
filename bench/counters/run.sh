#!/usr/bin/env bash
# Counters benchmark: units of work that each commit one advance(event_seq, 1) in the sync
# hook (Bothy), against pgbench running the same SQL shape (the ceiling: the counter
# UPDATE ... RETURNING, COMMIT; the unit's timeouts are set once per connection, ADR 0028) on
# the same embedded PostgreSQL 18, at 1, 8 and 32 concurrent writers. Each sample is the time to commit a fixed number of units
# (BENCH_UNITS, default 3200).
#
# Prints "variant<TAB>sample_seconds" rows on stdout and a table of rates per writer count on
# stderr. Runs through bench/run.sh counters [runs]; needs the test classes (bench/run.sh builds
# them with the jar) and pgbench (Debian package postgresql-client).
set -euo pipefail

runs="${1:-${BENCH_RUNS:-5}}"
root="${BENCH_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
units="${BENCH_UNITS:-3200}"

[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "counters: runs must be a positive integer" >&2; exit 2; }
command -v pgbench >/dev/null || { echo "counters: pgbench is required (apt-get install postgresql-client)" >&2; exit 1; }
[[ -d "$root/target/test-classes/dev/bothy/bench" ]] || { echo "counters: test classes are missing; run bench/run.sh counters without BENCH_SKIP_BUILD" >&2; exit 1; }

cp_file="$root/target/bench-classpath.txt"
(cd "$root" && mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file" >&2)

java -Dliquibase.analytics.enabled=false \
  -cp "$root/target/test-classes:$root/target/classes:$(cat "$cp_file")" \
  dev.bothy.bench.CountersBench "$runs" "$units"
