#!/usr/bin/env bash
# Cluster failure campaign: the pipeline on a three-node KRaft cluster, every part its own process.
#   - three `cobra broker` nodes (combined broker and controller, one quorum);
#   - two `cobra topology` instances sharing the work under one application id;
#   - two `cobra verifier` processes with one id (active and standby);
#   - a recording client (`cobra record --bootstrap`, the interceptor).
# Topics have replication 3 and min.insync.replicas 2; every producer uses acks=all with idempotence. The shape is
# ops/config/cluster.env, the same as docker-compose.yml's (DeploymentConfigTest checks that they agree).
#
# While TXNS transactions are recorded it kills, with kill -9, one after another:
#   1. the broker leading cobra.rounds partition 0, restarted RESTART_AFTER seconds later;
#   2. one topology instance, restarted RESTART_AFTER seconds later;
#   3. the active verifier, restarted RESTART_AFTER seconds later (it comes back as the standby);
#   4. then the new active one is paused with SIGSTOP until the other has taken over, and resumed: a zombie, which
#      must find itself fenced, publish nothing, and stand by.
# For each kill it reports the time to the next verdict.
#
# Afterwards it checks (ops/check-verdicts.py):
#   - one verdict per round, none missing or repeated, in order, all accept;
#   - the verdicts cover every recorded transaction;
#   - each verdict equals a fresh `cobra replay --from-round 0`.
#
# With SINGLE=1 (the default), it first records the same workload through a single broker with replication 1,
# no kills, and reports both end-to-end rates: throughput with replication 3 against one broker, in one run.
#
#   TXNS=300000 ops/cluster-chaos.sh
#
# Exit 0 when every check holds, 1 otherwise. Work files stay in the printed directory.
set -uo pipefail
TXNS=${TXNS:-300000}
SEED=${SEED:-1}
SINGLE=${SINGLE:-1}
RESTART_AFTER=${RESTART_AFTER:-10}
RATE=${RATE:-0}               # transactions per second the client offers in both runs; 0: as fast as it goes
BASE=${BASE:-19300}
HERE=$(cd "$(dirname "$0")" && pwd)
COBRA="$HERE/cobra"
. "$HERE/config/cluster.env" # the deployment's shape, as docker-compose.yml has it: NODES, REPLICATION, PARTITIONS, VERIFIER_ID
[ "$NODES" = 3 ] && [ "$TOPOLOGY_INSTANCES" = 2 ] && [ "$VERIFIER_INSTANCES" = 2 ] || { echo "cluster-chaos: runs 3 nodes, 2 topologies, 2 verifiers"; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cobra-cluster-chaos.XXXXXX")
export COBRA_JAVA_OPTS="${COBRA_JAVA_OPTS:--Xmx1g}"
echo "cluster-chaos: work files in $WORK; $TXNS transactions, seed $SEED"
"$COBRA" --version >/dev/null 2>&1 || true # builds the jars once, before anything is timed

pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; }
trap cleanup EXIT
now() { date +%s.%N; }
wait_port() { for _ in $(seq 1 240); do (echo >/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.5; done; return 1; }
verdicts_so_far() { cat "$WORK"/verifier-*.out 2>/dev/null | grep -c '^round [0-9]*:'; }
checked_so_far() { cat "$WORK"/verifier-*.out 2>/dev/null | grep -o '[0-9]* checked' | awk '{print $1}' | sort -n | tail -1; }
total_of() { # committed + fences, from a record log (0 while it runs)
  grep -q 'fence transactions' "$1" 2>/dev/null || { echo 0; return; }
  local c f; c=$(grep -o '[0-9]* committed' "$1" | tail -1 | awk '{print $1}'); f=$(grep -o '[0-9]* fence transactions' "$1" | tail -1 | awk '{print $1}')
  echo $((c + f))
}
# waits until the verdicts cover $1 transactions (or stop growing for two minutes); prints the time it took
wait_covered() {
  local best=0 still=0 last
  while [ $still -lt 120 ]; do
    last=$(checked_so_far); [ "${last:-0}" -ge "$1" ] && return 0
    if [ "${last:-0}" -gt "$best" ]; then best=$last; still=0; else still=$((still + 1)); fi
    sleep 1
  done
  return 1
}

# ---- the baseline: one broker, replication 1, same workload, no kills
if [ "$SINGLE" = 1 ]; then
  mkdir -p "$WORK/single"
  P=$((BASE + 90))
  "$COBRA" broker --port "$P" --dir "$WORK/single/broker" >"$WORK/single/broker.log" 2>&1 & SB=$!; pids+=("$SB")
  wait_port "$P" || { echo "cluster-chaos: the single broker did not start"; exit 1; }
  "$COBRA" topology --bootstrap 127.0.0.1:$P --state-dir "$WORK/single/topology" --replication 1 --partitions "$PARTITIONS" >"$WORK/single/topology.log" 2>&1 & ST=$!; pids+=("$ST")
  sleep 3
  "$COBRA" verifier --bootstrap 127.0.0.1:$P --state-dir "$WORK/single/verifier" >"$WORK/verifier-0.out" 2>"$WORK/single/verifier.err" & SV=$!; pids+=("$SV")
  t0=$(now)
  "$COBRA" record --bootstrap 127.0.0.1:$P --workload blindw-rm --clients 24 --txns "$TXNS" --seed "$SEED" --rate "$RATE" >"$WORK/single/record.log" 2>&1
  t1=$(now)
  STOTAL=$(total_of "$WORK/single/record.log")
  wait_covered "$STOTAL"; t2=$(now)
  SINGLE_RATE=$(echo "$STOTAL / ($t2 - $t0)" | bc)
  echo "cluster-chaos: single broker: $STOTAL transactions recorded in $(printf %.1f "$(echo "$t1 - $t0" | bc)") s, verdicts covered them $(printf %.1f "$(echo "$t2 - $t1" | bc)") s later: end to end $SINGLE_RATE txn/s"
  mv "$WORK/verifier-0.out" "$WORK/single/verifier.out"
  kill -9 "$SV" "$ST" "$SB" 2>/dev/null; wait "$SV" "$ST" "$SB" 2>/dev/null
fi

# ---- the cluster
QUORUM=""; BOOT=""
for n in $(seq 1 "$NODES"); do
  QUORUM="$QUORUM${QUORUM:+,}$n@127.0.0.1:$((BASE + 10 * n + 1))"; BOOT="$BOOT${BOOT:+,}127.0.0.1:$((BASE + 10 * n))"
done
declare -A BPID
start_broker() {
  "$COBRA" broker --node-id "$1" --quorum "$QUORUM" --port $((BASE + 10 * $1)) --controller-port $((BASE + 10 * $1 + 1)) \
    --dir "$WORK/broker-$1" >>"$WORK/broker-$1.log" 2>&1 &
  BPID[$1]=$!; pids+=("${BPID[$1]}")
}
for n in $(seq 1 "$NODES"); do start_broker $n; done
for n in $(seq 1 "$NODES"); do wait_port $((BASE + 10 * n)) || { echo "cluster-chaos: broker $n did not start"; exit 1; }; done
declare -A TPID
start_topology() {
  "$COBRA" topology --bootstrap "$BOOT" --state-dir "$WORK/topology-$1" --replication "$REPLICATION" --partitions "$PARTITIONS" >>"$WORK/topology-$1.log" 2>&1 &
  TPID[$1]=$!; pids+=("${TPID[$1]}")
}
start_topology 1
sleep 5 # the first instance creates the topics
start_topology 2
declare -A VPID
VN=0
start_verifier() { # $1: which of the two (1 or 2); its incarnations are numbered across both
  VN=$((VN + 1))
  now >"$WORK/verifier-$VN.start"
  "$COBRA" verifier --bootstrap "$BOOT" --id "$VERIFIER_ID" --checkpoint-every "$CHECKPOINT_EVERY" --state-dir "$WORK/verifier" >"$WORK/verifier-$VN.out" 2>"$WORK/verifier-$VN.err" &
  VPID[$1]=$!; VINC[$1]=$VN; pids+=("${VPID[$1]}")
  local n=$VN
  ( for _ in $(seq 1 6000); do [ -s "$WORK/verifier-$n.out" ] && { now >"$WORK/verifier-$n.first"; break; }; sleep 0.1; done ) &
}
declare -A VINC
start_verifier 1
sleep 5
start_verifier 2
t0=$(now)
"$COBRA" record --bootstrap "$BOOT" --workload blindw-rm --clients 24 --txns "$TXNS" --seed "$SEED" --rate "$RATE" >"$WORK/record.log" 2>&1 &
REC=$!; pids+=("$REC")

# waits for N more verdicts than now
more_verdicts() { local want=$(( $(verdicts_so_far) + $1 )); for _ in $(seq 1 1200); do [ "$(verdicts_so_far)" -ge "$want" ] && return 0; sleep 0.2; done; return 1; }
# time from now to the next verdict, printed ("none due" when the workload is over and everything is covered)
next_verdict_after_kill() {
  local k=$(now) have; have=$(verdicts_so_far)
  for _ in $(seq 1 3000); do
    [ "$(verdicts_so_far)" -gt "$have" ] && { printf "%.1f s" "$(echo "$(now) - $k" | bc)"; return; }
    if ! kill -0 "$REC" 2>/dev/null && [ "$(checked_so_far)" -ge "$(total_of "$WORK/record.log")" ]; then echo "none due (everything was verified)"; return; fi
    sleep 0.1
  done
  echo "none within 300 s"
}
# in the background: the moment verifier $1's log says it resumed from a checkpoint once more than now, into $2
watch_resume() {
  local e="$WORK/verifier-${VINC[$1]}.err" n; n=$(grep -c "resumed from the checkpoint" "$e")
  ( for _ in $(seq 1 3000); do [ "$(grep -c "resumed from the checkpoint" "$e")" -gt "$n" ] && { now >"$2"; break; }; sleep 0.1; done ) &
}
since() { [ -s "$1" ] && printf "%.1f s" "$(echo "$(cat "$1") - $(cat "$1.killed")" | bc)" || echo "(not seen)"; }
active_verifier() { # the one of the two whose latest incarnation is not standing by
  for i in 1 2; do
    local e="$WORK/verifier-${VINC[$i]}.err"
    if ! grep -q "standing by" "$e" || [ "$(grep -n 'standing by\|taking over' "$e" | tail -1 | grep -c 'taking over')" = 1 ]; then echo "$i"; return; fi
  done
}

more_verdicts 3
LEADER=$("$COBRA" topics --bootstrap "$BOOT" --topic cobra.rounds 2>/dev/null | awk '$2 == 0 {print $4}')
echo "cluster-chaos: killing broker $LEADER, the leader of cobra.rounds partition 0"
kill -9 "${BPID[$LEADER]}"; wait "${BPID[$LEADER]}" 2>/dev/null
echo "cluster-chaos: next verdict $(next_verdict_after_kill) after the broker was killed"
sleep "$RESTART_AFTER"; start_broker "$LEADER"; echo "cluster-chaos: broker $LEADER restarted"
"$COBRA" topics --bootstrap "$BOOT" --topic cobra.rounds 2>/dev/null | sed 's/^/  /'

more_verdicts 3
echo "cluster-chaos: killing topology instance 1"
kill -9 "${TPID[1]}"; wait "${TPID[1]}" 2>/dev/null
echo "cluster-chaos: next verdict $(next_verdict_after_kill) after the topology instance was killed"
sleep "$RESTART_AFTER"; start_topology 1; echo "cluster-chaos: topology instance 1 restarted"

more_verdicts 3
A=$(active_verifier)
echo "cluster-chaos: killing the active verifier (process $A, incarnation ${VINC[$A]})"
B=$((3 - A))
watch_resume "$B" "$WORK/takeover-1"
kill -9 "${VPID[$A]}"; wait "${VPID[$A]}" 2>/dev/null; now >"$WORK/takeover-1.killed"
echo "cluster-chaos: next verdict $(next_verdict_after_kill) after the active verifier was killed"
echo "cluster-chaos: the standby had taken over and loaded its checkpoint $(since "$WORK/takeover-1") after the kill"
sleep "$RESTART_AFTER"; start_verifier "$A"; echo "cluster-chaos: verifier $A restarted (incarnation ${VINC[$A]})"

# a zombie: the new active verifier is paused (SIGSTOP) past its session, the other takes over, then it resumes: it
# must find itself fenced or out of the group, publish nothing more, and stand by
for _ in $(seq 1 600); do grep -q "standing by" "$WORK/verifier-${VINC[$A]}.err" && break; sleep 0.2; done
more_verdicts 2
Z=$(active_verifier)
echo "cluster-chaos: pausing the active verifier (process $Z, incarnation ${VINC[$Z]}) with SIGSTOP"
O=$((3 - Z))
watch_resume "$O" "$WORK/takeover-2"
kill -STOP "${VPID[$Z]}"; now >"$WORK/takeover-2.killed"
# resumed once the other has taken the partition (its session expired): it must then find itself fenced
for _ in $(seq 1 600); do [ "$(grep -c "taking over" "$WORK/verifier-${VINC[$O]}.err")" -ge 1 ] && break; sleep 0.1; done
kill -CONT "${VPID[$Z]}"
echo "cluster-chaos: next verdict $(next_verdict_after_kill) after the paused verifier was resumed (the other had taken over)"
echo "cluster-chaos: the other had taken over and loaded its checkpoint $(since "$WORK/takeover-2") after the pause"
for _ in $(seq 1 300); do grep -q "this one was fenced\|assigned to another verifier" "$WORK/verifier-${VINC[$Z]}.err" && break; sleep 0.2; done
echo "cluster-chaos: the paused verifier resumed and said: $(grep -h "this one was fenced\|assigned to another verifier" "$WORK/verifier-${VINC[$Z]}.err" | tail -1 | cut -c1-160)"

wait "$REC"; t1=$(now)
TOTAL=$(total_of "$WORK/record.log")
echo "cluster-chaos: the workload ended: $(grep 'committed' "$WORK/record.log" | tail -1)"
wait_covered "$TOTAL"; t2=$(now)
CLUSTER_RATE=$(echo "$TOTAL / ($t2 - $t0)" | bc)
echo "cluster-chaos: $NODES brokers, replication $REPLICATION: $TOTAL transactions recorded in $(printf %.1f "$(echo "$t1 - $t0" | bc)") s, covered $(printf %.1f "$(echo "$t2 - $t1" | bc)") s later: end to end $CLUSTER_RATE txn/s (with the kills)${SINGLE_RATE:+; single broker $SINGLE_RATE txn/s}"
for i in 1 2; do grep -h "standing by\|taking over\|fenced" "$WORK/verifier-${VINC[$i]}.err" | sed "s/^/  verifier $i: /"; done
sleep 2
"$COBRA" verdicts --bootstrap "$BOOT" --json --keep-going >"$WORK/verdicts.jsonl" 2>"$WORK/verdicts.err"
"$COBRA" replay --bootstrap "$BOOT" --from-round 0 --json >"$WORK/truth.jsonl" 2>"$WORK/truth.err"
ok=0
python3 "$HERE/check-verdicts.py" "$WORK" "$TOTAL" || ok=1
[ $ok -eq 0 ] && echo "cluster-chaos: passed" || echo "cluster-chaos: FAILED (see $WORK)"
exit $ok
