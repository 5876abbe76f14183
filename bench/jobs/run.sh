#!/usr/bin/env bash
# Jobs benchmark: batch insert (1,000 jobs per transaction) in jobs per second through
# JobInserter.insertTx, and no-op work throughput of a JobRuntime with the default worker
# counts, each side by side with its raw SQL ceiling run by pgbench on the same embedded
# PostgreSQL 18: INSERT ... SELECT of the same rows, and the fetch statement alone in a loop.
#
# Prints "variant<TAB>sample_seconds" rows on stdout (BENCH_JOBS jobs per sample) and the
# comparison table on stderr. Runs through bench/run.sh jobs [runs]; needs the test classes
# and pgbench (Debian package postgresql-client).
set -euo pipefail

runs="${1:-${BENCH_RUNS:-5}}"
root="${BENCH_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
jobs="${BENCH_JOBS:-50000}"

[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "jobs: runs must be a positive integer" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]*000$ ]] || { echo "jobs: BENCH_JOBS must be a multiple of 1000" >&2; exit 2; }
command -v pgbench >/dev/null || { echo "jobs: pgbench is required (apt-get install postgresql-client)" >&2; exit 1; }
[[ -d "$root/target/test-classes/dev/bothy/bench" ]] || { echo "jobs: test classes are missing; run bench/run.sh jobs without BENCH_SKIP_BUILD" >&2; exit 1; }

cp_file="$root/target/bench-classpath.txt"
(cd "$root" && mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file" >&2)

java -Dliquibase.analytics.enabled=false \
  -cp "$root/target/test-classes:$root/target/classes:$(cat "$cp_file")" \
  dev.bothy.bench.JobsBench "$runs" "$jobs"
