#!/usr/bin/env bash
# Makes the current figures of docs/performance.md again, on this machine: each figure's command, run as written there,
# its output kept under OUT (default: perf-out/) and the line that holds the figure printed. Run it on a quiet machine;
# it takes a few minutes. PostgreSQL's figure needs the local server (skipped without it).
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
cobra="$root/ops/cobra"
out="${1:-perf-out}"
mkdir -p "$out"
echo "perf-figures: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(java -version 2>&1 | head -n 1)"

run() { # name, then the command; prints the lines matching the figure's pattern (set in $want)
  local name="$1"; shift
  echo "== $name: $*"
  "$@" >"$out/$name.txt" 2>&1 || true
  grep -E "$want" "$out/$name.txt" || echo "   (no figure: see $out/$name.txt)"
}

want='BlindW-RW-10000'
run one-shot-cold "$cobra" bench --sizes 10000 --workloads blindw-rw
run one-shot-warm "$cobra" bench --sizes 10000 --workloads blindw-rw --repeat 5

want='^(blindw-rm|tpcc|workload)|capacity'
run rounds "$cobra" bench --rounds --txns 100000 --round-workloads blindw-rm,tpcc --round-sizes 5000

want='^ +[0-9]+/s|offered'
run pipeline "$cobra" bench --pipeline --rates 5000 --pipeline-txns 100000

if command -v pg_isready >/dev/null 2>&1 && pg_isready -h 127.0.0.1 -p 5432 -q; then
  want='^  serializable|surveyed in'
  start=$(date +%s.%N)
  run survey-postgres "$cobra" survey --db postgres --levels serializable --txns 20000 --out "$out/survey-postgres"
  echo "   wall clock: $(echo "$(date +%s.%N) - $start" | bc | cut -c1-5) s"
else
  echo "== survey-postgres: skipped (no PostgreSQL at 127.0.0.1:5432)"
fi
