#!/usr/bin/env bash
# Webhooks benchmark: deliveries per second from a running all role to a receiver on
# 127.0.0.1 (webhooks.allowedNetworks [127.0.0.0/8], webhooks.allowPlainHttp, webhooks.maxRateLimit
# 100000 and subscriptions that ask for it) with 1 and with
# 100 subscriptions, side by side with the ceiling (the same signed POSTs of the same body from
# a plain Java HTTP client loop at the concurrency Bothy keeps open to one receiver with the
# defaults, webhooks.maxConnectionsPerTarget, no database); then
# the latency from an append's commit to the receiver at 200 events/s. Beside them the same POSTs
# through Bothy's own transport (transport-alone) and each variant's CPU per delivery (D-WF-10).
#
# Prints "variant<TAB>sample_seconds" rows on stdout (BENCH_DELIVERIES per sample) and the
# comparison tables on stderr. Runs through bench/run.sh webhooks [runs]. Warm-up passes of every
# variant run first, unrecorded, until the JIT is quiet (at most BENCH_WARMUP_PASSES, default 30).
set -euo pipefail

runs="${1:-${BENCH_RUNS:-3}}"
root="${BENCH_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
deliveries="${BENCH_DELIVERIES:-4000}"
latency_seconds="${BENCH_LATENCY_SECONDS:-20}"
warmup_passes="${BENCH_WARMUP_PASSES:-30}"

[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "webhooks: runs must be a positive integer" >&2; exit 2; }
[[ "$deliveries" =~ ^[1-9][0-9]*00$ ]] || { echo "webhooks: BENCH_DELIVERIES must be a positive multiple of 100" >&2; exit 2; }
[[ "$latency_seconds" =~ ^[1-9][0-9]{0,2}$ ]] || { echo "webhooks: BENCH_LATENCY_SECONDS must be an integer from 1 to 999" >&2; exit 2; }
[[ "$warmup_passes" =~ ^[1-9][0-9]?$ ]] || { echo "webhooks: BENCH_WARMUP_PASSES must be an integer from 1 to 99" >&2; exit 2; }
[[ -d "$root/target/test-classes/dev/bothy/bench" ]] || { echo "webhooks: test classes are missing; run bench/run.sh webhooks without BENCH_SKIP_BUILD" >&2; exit 1; }

cp_file="$root/target/bench-classpath.txt"
(cd "$root" && mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file" >&2)

java -Dliquibase.analytics.enabled=false ${BENCH_JAVA_OPTS:-} \
  -cp "$root/target/test-classes:$root/target/classes:$(cat "$cp_file")" \
  dev.bothy.bench.WebhooksBench "$runs" "$deliveries" "$latency_seconds" "$warmup_passes"
