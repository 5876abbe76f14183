#!/usr/bin/env bash
# Process-level fault trials (issue 20): an api process taking writes through the HTTP API, two
# worker processes with the probe consumer, the relay on a nats-server, one embedded PostgreSQL;
# RUNS fault trials round robin over six fault kinds (SIGKILL of a worker, pg_terminate_backend of
# a Bothy backend, of a LISTEN connection, a PostgreSQL restart, a nats-server restart, SIGKILL of
# the relay lease holder), with a trial without a fault before each round as the baseline.
#
# Prints "kind<TAB>seconds_to_recover" rows on stdout and progress on stderr, then writes the
# table between the markers of docs/reliability.md (BENCH_FAULTS_DOC overrides the file). Fails
# when a trial lost, doubled or did not recover; the table is written anyway.
set -euo pipefail

runs="${1:-${BENCH_RUNS:-5}}"
root="${BENCH_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
doc="${BENCH_FAULTS_DOC:-$root/docs/reliability.md}"

[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "faults: runs (fault trials) must be a positive integer" >&2; exit 2; }
[[ -d "$root/target/test-classes/dev/bothy/bench" ]] || { echo "faults: test classes are missing; run bench/run.sh faults without BENCH_SKIP_BUILD" >&2; exit 1; }
grep -q '^<!-- faults:begin -->$' "$doc" && grep -q '^<!-- faults:end -->$' "$doc" \
  || { echo "faults: $doc lacks the lines <!-- faults:begin --> and <!-- faults:end -->" >&2; exit 1; }

cp_file="$root/target/bench-classpath.txt"
(cd "$root" && mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file" >&2)

table="$(mktemp "${TMPDIR:-/tmp}/bothy-faults-table.XXXXXX")"
section="$(mktemp "${TMPDIR:-/tmp}/bothy-faults-section.XXXXXX")"
trap 'rm -f "$table" "$section"' EXIT

status=0
java -Dliquibase.analytics.enabled=false ${BENCH_JAVA_OPTS:-} \
  -cp "$root/target/test-classes:$root/target/classes:$(cat "$cp_file")" \
  dev.bothy.bench.FaultsBench "$runs" "$table" || status=$?
[[ -s "$table" ]] || { echo "faults: the trials wrote no table" >&2; exit 1; }

commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
dirty=""
[[ -z "$(git -C "$root" status --porcelain 2>/dev/null || true)" ]] || dirty=" (working tree had uncommitted changes)"
{
  echo '<!-- faults:begin -->'
  echo
  cat "$table"
  echo
  echo "- reproduce: \`git checkout $commit && bench/run.sh faults $runs\`"
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "- commit: $commit$dirty"
  echo "- nproc: $(nproc)"
  echo "- java: $(java -version 2>&1 | head -n 1)"
  echo
  echo '<!-- faults:end -->'
} >"$section"
awk -v section="$section" '
  /^<!-- faults:begin -->$/ { while ((getline line < section) > 0) print line; skip = 1; next }
  /^<!-- faults:end -->$/ { skip = 0; next }
  !skip { print }
' "$doc" >"$doc.tmp" && mv "$doc.tmp" "$doc"
echo "faults: wrote the table into $doc" >&2
exit "$status"
