#!/usr/bin/env bash
# API benchmark: appends over HTTP (POST /v1/events with 1 and with 100 events per request, at 8
# and 32 concurrent clients) side by side with the same appends made in-process through the unit
# of work (the ceiling), against one all role started in the benchmark's JVM on an embedded
# PostgreSQL 18; then the fan-out of the event stream: 200 SSE clients while 1,000 events per
# second are appended, with the latency from each append's commit to each client's parse.
#
# Prints "variant<TAB>sample_seconds" rows on stdout (BENCH_EVENTS events per sample with 100
# events per request, a twentieth of that with 1) and the tables on stderr, the stream latencies
# among them. BENCH_STREAM_SECONDS (default 20, at most 300) sets
# the seconds of appends per stream phase. Runs through bench/run.sh api [runs]; needs the test classes.
set -euo pipefail

runs="${1:-${BENCH_RUNS:-5}}"
root="${BENCH_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
events="${BENCH_EVENTS:-64000}"
stream_seconds="${BENCH_STREAM_SECONDS:-20}"

[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "api: runs must be a positive integer" >&2; exit 2; }
[[ "$events" =~ ^[1-9][0-9]{3,8}$ ]] && ((events % 3200 == 0)) || { echo "api: BENCH_EVENTS must be a positive multiple of 3200" >&2; exit 2; }
[[ "$stream_seconds" =~ ^[1-9][0-9]{0,2}$ ]] && ((stream_seconds <= 300)) || { echo "api: BENCH_STREAM_SECONDS must be an integer from 1 to 300" >&2; exit 2; }
[[ -d "$root/target/test-classes/dev/bothy/bench" ]] || { echo "api: test classes are missing; run bench/run.sh api without BENCH_SKIP_BUILD" >&2; exit 1; }

cp_file="$root/target/bench-classpath.txt"
(cd "$root" && mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file" >&2)

java -Dliquibase.analytics.enabled=false ${BENCH_JAVA_OPTS:-} \
  -cp "$root/target/test-classes:$root/target/classes:$(cat "$cp_file")" \
  dev.bothy.bench.ApiBench "$runs" "$events" "$stream_seconds"
