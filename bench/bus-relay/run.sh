#!/usr/bin/env bash
# Bus relay benchmark: events per second the relay carries from a pre-filled log to a fresh EVENTS
# stream on a nats-server of its own (a free loopback port, never 4222), side by side with the
# ceiling (a raw jnats loop publishing the same messages with the same message ids, headers, publish
# options and window, no database); then the latency from an append's commit to the event's
# storage in the stream at 200 events/s.
#
# Prints "variant<TAB>sample_seconds" rows on stdout (BENCH_EVENTS events per sample) and the
# comparison tables on stderr. Runs through bench/run.sh bus-relay [runs]; needs the test classes
# and nats-server (found or unpacked from Debian's package by the test harness).
set -euo pipefail

runs="${1:-${BENCH_RUNS:-3}}"
root="${BENCH_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
events="${BENCH_EVENTS:-200000}"
latency_seconds="${BENCH_LATENCY_SECONDS:-20}"

[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "bus-relay: runs must be a positive integer" >&2; exit 2; }
[[ "$events" =~ ^[1-9][0-9]*000$ ]] || { echo "bus-relay: BENCH_EVENTS must be a positive multiple of 1000" >&2; exit 2; }
[[ "$latency_seconds" =~ ^[1-9][0-9]{0,2}$ ]] || { echo "bus-relay: BENCH_LATENCY_SECONDS must be an integer from 1 to 999" >&2; exit 2; }
[[ -d "$root/target/test-classes/dev/bothy/bench" ]] || { echo "bus-relay: test classes are missing; run bench/run.sh bus-relay without BENCH_SKIP_BUILD" >&2; exit 1; }

cp_file="$root/target/bench-classpath.txt"
(cd "$root" && mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file" >&2)

java -Dliquibase.analytics.enabled=false ${BENCH_JAVA_OPTS:-} \
  -cp "$root/target/test-classes:$root/target/classes:$(cat "$cp_file")" \
  dev.bothy.bench.BusRelayBench "$runs" "$events" "$latency_seconds"
