#!/usr/bin/env bash
# Consumers benchmark: one worker consumer with the probe handler (two jobs per event) over a
# pre-filled log, at consumer.batchSize 100 and 1000, in events per second, side by side with
# pgbench running the raw SQL of the same round (lock, read, one INSERT ... SELECT, advance);
# then the wake latency (append commit to jobs committed) at a steady append rate with NOTIFY.
#
# Prints "variant<TAB>sample_seconds" rows on stdout (BENCH_EVENTS events per sample) and the
# tables on stderr. Runs through bench/run.sh consumers [runs]; needs the test classes and
# pgbench (Debian package postgresql-client).
set -euo pipefail

runs="${1:-${BENCH_RUNS:-5}}"
root="${BENCH_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
events="${BENCH_EVENTS:-200000}"

[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "consumers: runs must be a positive integer" >&2; exit 2; }
[[ "$events" =~ ^[1-9][0-9]*000$ ]] || { echo "consumers: BENCH_EVENTS must be a multiple of 1000" >&2; exit 2; }
command -v pgbench >/dev/null || { echo "consumers: pgbench is required (apt-get install postgresql-client)" >&2; exit 1; }
[[ -d "$root/target/test-classes/dev/bothy/bench" ]] || { echo "consumers: test classes are missing; run bench/run.sh consumers without BENCH_SKIP_BUILD" >&2; exit 1; }

cp_file="$root/target/bench-classpath.txt"
(cd "$root" && mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file" >&2)

java -Dliquibase.analytics.enabled=false \
  -cp "$root/target/test-classes:$root/target/classes:$(cat "$cp_file")" \
  dev.bothy.bench.ConsumersBench "$runs" "$events"
