#!/usr/bin/env bash
# Runs one benchmark and prints a markdown table of medians and ratios.
#
#   bench/run.sh NAME [runs]
#
# Builds target/bothy.jar once (mvn -B -q package -DskipTests) unless BENCH_SKIP_BUILD=1,
# then runs bench/NAME/run.sh RUNS from the repository root. The benchmark prints one row
# per sample on stdout, "variant<TAB>sample_seconds"; the first variant it prints is the
# baseline. Anything else the benchmark wants to say goes to stderr.
set -euo pipefail

usage() {
  echo "usage: bench/run.sh NAME [runs]   (runs: a positive integer, default 5)" >&2
  echo "benchmarks:" >&2
  for dir in "$root"/bench/*/; do
    [[ -f "$dir/run.sh" ]] && echo "  $(basename "$dir")" >&2
  done
  exit 2
}

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[[ $# -ge 1 && $# -le 2 ]] || usage
name="$1"
runs="${2:-5}"
[[ "$name" =~ ^[A-Za-z0-9_-]+$ ]] || usage
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || usage
script="$root/bench/$name/run.sh"
[[ -f "$script" ]] || { echo "no benchmark bench/$name/run.sh" >&2; usage; }

cd "$root"
jar="$root/target/bothy.jar"
if [[ "${BENCH_SKIP_BUILD:-0}" == "1" ]]; then
  built="reused (BENCH_SKIP_BUILD=1)"
else
  echo "bench: building target/bothy.jar (mvn -B -q package -DskipTests)" >&2
  mvn -B -q package -DskipTests
  built="built by this run"
fi
[[ -f "$jar" ]] || { echo "bench: $jar is missing; build it or unset BENCH_SKIP_BUILD" >&2; exit 1; }

rows="$(mktemp "${TMPDIR:-/tmp}/bothy-bench-rows.XXXXXX")"
trap 'rm -f "$rows"' EXIT

echo "bench: running bench/$name/run.sh with $runs runs per variant" >&2
if ! BENCH_ROOT="$root" BENCH_JAR="$jar" BENCH_RUNS="$runs" bash "$script" "$runs" >"$rows"; then
  echo "bench: bench/$name/run.sh failed" >&2
  exit 1
fi

# Keep only well-formed rows; say how many lines were dropped.
valid="$(LC_ALL=C awk -F'\t' 'NF == 2 && $1 != "" && $2 ~ /^[0-9]+(\.[0-9]+)?$/' "$rows")"
dropped="$(($(wc -l <"$rows") - $(printf '%s' "$valid" | grep -c '' || true)))"
if [[ -z "$valid" ]]; then
  echo "bench: bench/$name/run.sh printed no rows of the form variant<TAB>seconds" >&2
  exit 1
fi
if [[ "$dropped" -gt 0 ]]; then
  echo "bench: ignored $dropped malformed line(s) from bench/$name/run.sh" >&2
fi

commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git -C "$root" status --porcelain 2>/dev/null || true)" ]]; then
  commit="$commit (working tree has uncommitted changes)"
fi
java_version="$(java -version 2>&1 | head -n 1)"

echo
echo "## bench: $name"
echo
printf '%s\n' "$valid" | LC_ALL=C awk -F'\t' '
  # Medians per variant, in the order the variants first appear; the first is the baseline.
  {
    if (!($1 in count)) { order[++variants] = $1 }
    samples[$1, ++count[$1]] = $2 + 0
  }
  function median(v,    n, i, j, t, a) {
    n = count[v]
    for (i = 1; i <= n; i++) a[i] = samples[v, i]
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    base = median(order[1])
    printf "| variant | samples | median (s) | ratio to %s |\n", order[1]
    print "|---|---|---|---|"
    for (k = 1; k <= variants; k++) {
      v = order[k]; m = median(v)
      ratio = (base > 0) ? sprintf("%.2f", m / base) : "n/a"
      printf "| %s | %d | %.3f | %s |\n", v, count[v], m, ratio
    }
  }'
echo
echo "- reproduce: \`git checkout ${commit%% *} && bench/run.sh $name $runs\`"
echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "- commit: $commit"
echo "- nproc: $(nproc)"
echo "- java: $java_version"
echo "- jar: $built"
