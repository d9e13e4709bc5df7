#!/usr/bin/env bash
# Crash campaign: the pipeline as separate processes (broker, topology, verifier, a recording client),
# with the verifier killed -9 at random moments VERIFIER_KILLS times and the topology TOPOLOGY_KILLS
# times, each restarted at once. Then it checks that cobra.verdicts holds exactly one verdict per round,
# none missing, none repeated, in order, and that they equal a fresh, uninterrupted verification of the
# same rounds (cobra replay --from-round 0); and it reports each verifier restart: how long loading its
# checkpoint took, and from the process start to its first new verdict.
#
#   TXNS=300000 VERIFIER_KILLS=10 TOPOLOGY_KILLS=3 SEED=1 ops/chaos.sh
#   TXNS=1000000 VERIFIER_KILLS=1 TOPOLOGY_KILLS=0 START_AFTER=300 ops/chaos.sh   # one restart late in a long run
#   TXNS=1000000 VERIFIER_KILLS=0 TOPOLOGY_KILLS=0 QUIET_RESTART=1 ops/chaos.sh    # restart after the run, machine quiet
#
# QUIET_RESTART=1: when the workload ends, the verifier (still behind) is killed -9 and restarted only once the
# topology has cut the last rounds (the machine otherwise idle): its time to the first new verdict is the restart
# cost alone.
#
# Exit 0 when every check holds, 1 otherwise. Work files stay in the printed directory.
set -uo pipefail
TXNS=${TXNS:-300000}
VERIFIER_KILLS=${VERIFIER_KILLS:-10}
TOPOLOGY_KILLS=${TOPOLOGY_KILLS:-3}
SEED=${SEED:-1}
START_AFTER=${START_AFTER:-0} # seconds of the workload before the first kill
QUIET_RESTART=${QUIET_RESTART:-0}
REPLAY=${REPLAY:-}            # windows to replay and time at the end, e.g. "1:11 100:110"
PORT=${PORT:-19192}
RANDOM=$SEED
HERE=$(cd "$(dirname "$0")" && pwd)
COBRA="$HERE/cobra"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cobra-chaos.XXXXXX")
BOOT=127.0.0.1:$PORT
echo "chaos: work files in $WORK; $TXNS transactions, $VERIFIER_KILLS verifier kills, $TOPOLOGY_KILLS topology kills, seed $SEED"

"$COBRA" --version >/dev/null 2>&1 || true # builds the jars once, before anything is timed
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; }
trap cleanup EXIT

"$COBRA" broker --port "$PORT" --dir "$WORK/broker" >"$WORK/broker.log" 2>&1 &
BROKER=$!; pids+=("$BROKER")
for _ in $(seq 1 120); do (echo >/dev/tcp/127.0.0.1/"$PORT") 2>/dev/null && break; sleep 0.5; done

start_topology() {
  "$COBRA" topology --bootstrap "$BOOT" --state-dir "$WORK/topology" >>"$WORK/topology.log" 2>&1 &
  TOPO=$!; pids+=("$TOPO")
}
VN=0
start_verifier() {
  VN=$((VN + 1))
  VSTART=$(date +%s.%N)
  "$COBRA" verifier --bootstrap "$BOOT" --state-dir "$WORK/verifier" >"$WORK/verifier-$VN.out" 2>"$WORK/verifier-$VN.err" &
  VER=$!; pids+=("$VER")
  echo "$VSTART" >"$WORK/verifier-$VN.start"
  local n=$VN
  ( for _ in $(seq 1 600); do [ -s "$WORK/verifier-$n.out" ] && { date +%s.%N >"$WORK/verifier-$n.first"; break; }; sleep 0.1; done ) &
}
start_topology
sleep 3
start_verifier
"$COBRA" record --bootstrap "$BOOT" --workload blindw-rm --clients 24 --txns "$TXNS" --out "$WORK/history.jsonl" >"$WORK/record.log" 2>&1 &
REC=$!; pids+=("$REC")

# kills at random moments: the verifier's once its current incarnation has published a verdict (so every
# incarnation gets to resume and work), 0-8 s later; the topology's spread among them
sleep "$START_AFTER"
vk=0; tk=0
while [ $vk -lt "$VERIFIER_KILLS" ] || [ $tk -lt "$TOPOLOGY_KILLS" ]; do
  left=$((VERIFIER_KILLS - vk + TOPOLOGY_KILLS - tk))
  if [ $tk -lt "$TOPOLOGY_KILLS" ] && [ $((RANDOM % left)) -lt $((TOPOLOGY_KILLS - tk)) ]; then
    sleep $((2 + RANDOM % 7))
    kill -9 "$TOPO" 2>/dev/null; wait "$TOPO" 2>/dev/null; tk=$((tk + 1))
    echo "chaos: killed the topology ($tk of $TOPOLOGY_KILLS)"
    start_topology
  else
    for _ in $(seq 1 180); do [ -s "$WORK/verifier-$VN.out" ] && break; sleep 0.5; done
    sleep $((RANDOM % 9))
    kill -9 "$VER" 2>/dev/null; wait "$VER" 2>/dev/null; vk=$((vk + 1))
    echo "chaos: killed the verifier ($vk of $VERIFIER_KILLS)"
    start_verifier
  fi
done
wait "$REC"; echo "chaos: the workload ended: $(tail -1 "$WORK/record.log")"
if [ "$QUIET_RESTART" = 1 ]; then
  kill -9 "$VER" 2>/dev/null; wait "$VER" 2>/dev/null
  echo "chaos: killed the verifier as the workload ended; restarting it once the topology is idle"
  prev=-1
  for _ in $(seq 1 300); do # the topology is idle once its log and state stop changing for 5 s
    cur=$(du -sb "$WORK/topology" 2>/dev/null | cut -f1)
    [ "$cur" = "$prev" ] && break
    prev=$cur; sleep 5
  done
  start_verifier
fi
COMMITTED=$(grep -o '[0-9]* committed' "$WORK/record.log" | tail -1 | awk '{print $1}')
FENCES=$(grep -o '[0-9]* fence transactions' "$WORK/record.log" | tail -1 | awk '{print $1}')
TOTAL=$((COMMITTED + FENCES))

# wait until the verdicts cover every committed transaction (or stop growing for two minutes)
best=0; still=0
while [ $still -lt 120 ]; do
  LAST=$(cat "$WORK"/verifier-*.out 2>/dev/null | grep -o '[0-9]* checked' | awk '{print $1}' | sort -n | tail -1)
  [ "${LAST:-0}" -ge "$TOTAL" ] && break
  if [ "${LAST:-0}" -gt "$best" ]; then best=$LAST; still=0; else still=$((still + 1)); fi
  sleep 1
done
sleep 2
"$COBRA" verdicts --bootstrap "$BOOT" --json --keep-going >"$WORK/verdicts.jsonl" 2>"$WORK/verdicts.err"
"$COBRA" replay --bootstrap "$BOOT" --from-round 0 --json >"$WORK/truth.jsonl" 2>"$WORK/truth.err"
for w in $REPLAY; do
  a=${w%:*}; b=${w#*:}
  t0=$(date +%s.%N)
  "$COBRA" replay --bootstrap "$BOOT" --from-round "$a" --to-round "$b" --json >"$WORK/replay-$a-$b.jsonl" 2>"$WORK/replay-$a-$b.err"
  t1=$(date +%s.%N)
  same=$(python3 -c "
import json,sys
pub={v['round']:v for v in (json.loads(l) for l in open('$WORK/verdicts.jsonl') if l.strip())}
rep=[json.loads(l) for l in open('$WORK/replay-$a-$b.jsonl') if l.strip()]
print('%d rounds, %s' % (len(rep), 'same verdicts as published' if rep and all((r['verdict'],r['checked'])==(pub[r['round']]['verdict'],pub[r['round']]['checked']) for r in rep) else 'DIFFERENT'))")
  echo "chaos: replay of rounds $a-$b: $(echo "$t1 - $t0" | bc) s wall (the command, JVM start included; $(grep -o 'in [0-9.]* s$' "$WORK/replay-$a-$b.err" | tail -1) by its own clock); $same"
done
kill -9 "$VER" "$TOPO" 2>/dev/null

ok=0
python3 "$HERE/check-verdicts.py" "$WORK" "$TOTAL" || ok=1
[ $ok -eq 0 ] && echo "chaos: passed" || echo "chaos: FAILED (see $WORK)"
exit $ok
