#!/usr/bin/env bash
# Smoke benchmark: how long Bothy takes to start.
#
#   check      (baseline) java -jar target/bothy.jar check: JVM start, configuration load and
#              validation, no configuration file.
#   all-ready  java -jar target/bothy.jar all in a fresh temporary directory, so the embedded
#              PostgreSQL is initialised from scratch as a newcomer sees it, until the admin
#              port's /readyz answers 200. Then SIGTERM, wait for the exit, and check that no
#              postgres process of that directory remains.
#
# Prints "variant<TAB>sample_seconds" rows on stdout, progress on stderr. Runs through
# bench/run.sh startup [runs]; can also run alone after a build.
set -euo pipefail

runs="${1:-${BENCH_RUNS:-5}}"
root="${BENCH_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
jar="${BENCH_JAR:-$root/target/bothy.jar}"
limit_seconds=120

[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "startup: runs must be a positive integer" >&2; exit 2; }
[[ -f "$jar" ]] || { echo "startup: $jar is missing" >&2; exit 1; }
command -v curl >/dev/null || { echo "startup: curl is required" >&2; exit 1; }

now_ns() { date +%s%N; }
seconds_between() { LC_ALL=C awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }

temp_dirs=()
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 200); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  for dir in "${temp_dirs[@]}"; do rm -rf "$dir"; done
}
trap cleanup EXIT

# Sets $dir to a new temporary directory that the exit trap removes. Not called in a
# command substitution: the list of directories must live in this shell.
new_temp_dir() {
  dir="$(mktemp -d "${TMPDIR:-/tmp}/bothy-bench-startup.XXXXXX")"
  temp_dirs+=("$dir")
}

# Prints three distinct free loopback ports, one per line.
free_ports() {
  if command -v python3 >/dev/null; then
    python3 - <<'EOF'
import socket
held = []
for _ in range(3):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    held.append(s)
for s in held:
    print(s.getsockname()[1])
for s in held:
    s.close()
EOF
    return
  fi
  local found=() p tries=0
  while [[ ${#found[@]} -lt 3 && $tries -lt 1000 ]]; do
    tries=$((tries + 1))
    p=$((20000 + RANDOM % 40000))
    [[ " ${found[*]} " == *" $p "* ]] && continue
    # A connection that fails means nothing listens there.
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then found+=("$p"); fi
  done
  [[ ${#found[@]} -eq 3 ]] || { echo "startup: no free ports found" >&2; return 1; }
  printf '%s\n' "${found[@]}"
}

# Prints the PIDs of processes whose command line names a directory.
pids_naming() {
  local dir="$1" cmdline f
  for f in /proc/[0-9]*/cmdline; do
    cmdline="$(tr '\0' ' ' <"$f" 2>/dev/null || true)"
    if [[ "$cmdline" == *postgres* && "$cmdline" == *"$dir"* ]]; then
      f="${f#/proc/}"
      printf '%s\n' "${f%/cmdline}"
    fi
  done
}

run_check() {
  local dir start end
  new_temp_dir
  start="$(now_ns)"
  if ! (cd "$dir" && timeout "$limit_seconds" java -jar "$jar" check >"$dir/bothy.log" 2>&1); then
    echo "startup: 'check' failed; its output:" >&2
    tail -n 40 "$dir/bothy.log" >&2
    exit 1
  fi
  end="$(now_ns)"
  rm -rf "$dir"
  printf 'check\t%s\n' "$(seconds_between "$start" "$end")"
}

run_all_ready() {
  local dir ports app admin pg start end deadline ready=0 leftovers
  new_temp_dir
  mapfile -t ports < <(free_ports)
  [[ ${#ports[@]} -eq 3 ]] || { echo "startup: could not pick free ports" >&2; exit 1; }
  app="${ports[0]}" admin="${ports[1]}" pg="${ports[2]}"
  start="$(now_ns)"
  deadline=$((start + limit_seconds * 1000000000))
  (
    cd "$dir"
    exec java \
      "-Ddw.server.applicationConnectors[0].port=$app" \
      "-Ddw.server.adminConnectors[0].port=$admin" \
      "-Ddw.database.embedded.port=$pg" \
      -jar "$jar" all
  ) >"$dir/bothy.log" 2>&1 &
  server_pid=$!
  while [[ "$(now_ns)" -lt "$deadline" ]]; do
    if curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$admin/readyz"; then
      ready=1
      break
    fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
      break
    fi
    sleep 0.05
  done
  end="$(now_ns)"
  if [[ "$ready" -ne 1 ]]; then
    echo "startup: 'all' did not become ready within ${limit_seconds}s; its output:" >&2
    tail -n 40 "$dir/bothy.log" >&2
    exit 1
  fi

  kill -TERM "$server_pid"
  deadline=$(($(now_ns) + limit_seconds * 1000000000))
  while kill -0 "$server_pid" 2>/dev/null; do
    if [[ "$(now_ns)" -ge "$deadline" ]]; then
      echo "startup: 'all' did not exit within ${limit_seconds}s of SIGTERM" >&2
      exit 1
    fi
    sleep 0.1
  done
  wait "$server_pid" 2>/dev/null || true
  server_pid=""

  leftovers="$(pids_naming "$dir")"
  if [[ -n "$leftovers" ]]; then
    echo "startup: postgres processes of $dir outlived 'all': $(echo $leftovers)" >&2
    for pid in $leftovers; do kill -TERM "$pid" 2>/dev/null || true; done
    exit 1
  fi
  rm -rf "$dir"
  printf 'all-ready\t%s\n' "$(seconds_between "$start" "$end")"
}

# Variants alternate within each run, so a slow moment of the machine hits both alike.
for i in $(seq 1 "$runs"); do
  echo "startup: run $i of $runs" >&2
  run_check
  run_all_ready
done
