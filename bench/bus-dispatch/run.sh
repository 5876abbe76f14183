#!/usr/bin/env bash
# Bus dispatch benchmark: events per second through one bus consumer with a no-op handler on each
# transport, with 1 and 2 worker processes (child JVMs running the application as worker), side by
# side with the ceilings in the same run on the same embedded PostgreSQL 18 and a bench-owned
# nats-server on a free loopback port:
# - log: pgbench running the delivery-row transaction with the job's completion at the same
#   concurrency (10 clients per process: the default workers of the queue bus);
# - nats (bus.nats.url set in the workers; the stream filled by a relay before any consumer pulls):
#   pgbench running the delivery-row transaction at 1 client per process (one pull loop per
#   process), and a raw jnats loop per process pulling with the same fetch batch and acking each
#   message over the same stream contents.
# Then the latency from an append's commit to the handler at 200 events/s on each transport.
#
# Prints "variant<TAB>sample_seconds" rows on stdout (BENCH_EVENTS events per sample) and the
# comparison tables on stderr. Before each log sample, warm-up passes of BENCH_EVENTS events run on
# the same worker processes, unrecorded, until their JIT is quiet (at most BENCH_WARMUP_PASSES,
# default 10). Runs through bench/run.sh bus-dispatch [runs]; needs the test classes,
# pgbench (Debian package postgresql-client) and nats-server (Debian package nats-server, or unpacked
# by the tests' NatsServer). BENCH_JAVA_OPTS="-Dbench.transports=log" runs one transport.
set -euo pipefail

runs="${1:-${BENCH_RUNS:-3}}"
root="${BENCH_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
events="${BENCH_EVENTS:-20000}"
latency_seconds="${BENCH_LATENCY_SECONDS:-15}"
warmup_passes="${BENCH_WARMUP_PASSES:-10}"

[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "bus-dispatch: runs must be a positive integer" >&2; exit 2; }
[[ "$events" =~ ^[1-9][0-9]*000$ ]] || { echo "bus-dispatch: BENCH_EVENTS must be a positive multiple of 1000" >&2; exit 2; }
[[ "$latency_seconds" =~ ^[1-9][0-9]{0,2}$ ]] || { echo "bus-dispatch: BENCH_LATENCY_SECONDS must be an integer from 1 to 999" >&2; exit 2; }
[[ "$warmup_passes" =~ ^[1-9][0-9]?$ ]] || { echo "bus-dispatch: BENCH_WARMUP_PASSES must be an integer from 1 to 99" >&2; exit 2; }
command -v pgbench >/dev/null || { echo "bus-dispatch: pgbench is required (apt-get install postgresql-client)" >&2; exit 1; }
[[ -d "$root/target/test-classes/dev/bothy/bench" ]] || { echo "bus-dispatch: test classes are missing; run bench/run.sh bus-dispatch without BENCH_SKIP_BUILD" >&2; exit 1; }

cp_file="$root/target/bench-classpath.txt"
(cd "$root" && mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file" >&2)

java -Dliquibase.analytics.enabled=false ${BENCH_JAVA_OPTS:-} \
  -cp "$root/target/test-classes:$root/target/classes:$(cat "$cp_file")" \
  dev.bothy.bench.BusDispatchBench "$runs" "$events" "$latency_seconds" "$warmup_passes"
