#!/usr/bin/env bash
# Append benchmark: committed units per second at 1, 8 and 32 writers, with 1 and with 100
# events per unit, for Bothy's append path (unit of work, sync.append hook, event_seq counter),
# pgbench running the same SQL (the counter-row ceiling) and pgbench inserting into a
# bigserial table (the unserialized limit), all on the same embedded PostgreSQL 18.
#
# Prints "variant<TAB>sample_seconds" rows on stdout (BENCH_UNITS units with 1 event, a fifth
# of that with 100) and the comparison table on stderr. Runs through bench/run.sh append [runs];
# needs the test classes and pgbench (Debian package postgresql-client).
set -euo pipefail

runs="${1:-${BENCH_RUNS:-5}}"
root="${BENCH_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
units="${BENCH_UNITS:-8000}"

[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "append: runs must be a positive integer" >&2; exit 2; }
command -v pgbench >/dev/null || { echo "append: pgbench is required (apt-get install postgresql-client)" >&2; exit 1; }
[[ -d "$root/target/test-classes/dev/bothy/bench" ]] || { echo "append: test classes are missing; run bench/run.sh append without BENCH_SKIP_BUILD" >&2; exit 1; }

cp_file="$root/target/bench-classpath.txt"
(cd "$root" && mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file" >&2)

java -Dliquibase.analytics.enabled=false ${BENCH_JAVA_OPTS:-} \
  -cp "$root/target/test-classes:$root/target/classes:$(cat "$cp_file")" \
  dev.bothy.bench.AppendBench "$runs" "$units"
