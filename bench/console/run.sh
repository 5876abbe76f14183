#!/usr/bin/env bash
# Console benchmark: the jobs page's API with one million jobs in the table. Fills the jobs with
# one INSERT ... SELECT generate_series (UUIDv7 ids spread over the last three hours, ten kinds,
# states mostly completed as in a working installation), starts one all role, then times the
# request the jobs page makes (GET /console/api/jobs, each with its capped count) for each filter
# shape (none, state, kind, state and kind; first page and a deep keyset page) side by side with
# the ceiling: the same three statements (page, error histories, capped count) over JDBC in one
# transaction. Reports p50 and p99 per shape; the goal is an API p99 within 200 ms.
#
# Prints "variant<TAB>p99_seconds" rows on stdout (one per run and shape) and the tables and the
# plans (EXPLAIN ANALYZE of each shape's statements) on stderr. BENCH_REQUESTS (default 400)
# sets the requests per shape and run. Runs through bench/run.sh console [runs].
set -euo pipefail

runs="${1:-${BENCH_RUNS:-3}}"
root="${BENCH_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
requests="${BENCH_REQUESTS:-400}"
jobs="${BENCH_JOBS:-1000000}"

[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "console: runs must be a positive integer" >&2; exit 2; }
[[ "$requests" =~ ^[1-9][0-9]{2,5}$ ]] || { echo "console: BENCH_REQUESTS must be an integer from 100 to 999999" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]{4,7}$ ]] || { echo "console: BENCH_JOBS must be an integer from 10000 to 99999999" >&2; exit 2; }
[[ -d "$root/target/test-classes/dev/bothy/bench" ]] || { echo "console: test classes are missing; run bench/run.sh console without BENCH_SKIP_BUILD" >&2; exit 1; }

cp_file="$root/target/bench-classpath.txt"
(cd "$root" && mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file" >&2)

java -Dliquibase.analytics.enabled=false ${BENCH_JAVA_OPTS:-} \
  -cp "$root/target/test-classes:$root/target/classes:$(cat "$cp_file")" \
  dev.bothy.bench.ConsoleBench "$runs" "$requests" "$jobs"
