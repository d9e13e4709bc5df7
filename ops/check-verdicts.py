#!/usr/bin/env python3
"""The checks of a crash campaign (ops/chaos.sh, ops/cluster-chaos.sh): cobra.verdicts, as exported to
WORK/verdicts.jsonl, holds exactly one verdict per round, 0..n in order; each equals the fresh verification of the
same round (WORK/truth.jsonl, from cobra replay --from-round 0); the last covers TOTAL transactions. Then, per
verifier incarnation (WORK/verifier-N.*), how it started and how long to its first verdict. Exit 0 when all hold."""
import json, sys, os, glob
work, total = sys.argv[1], int(sys.argv[2])
pub = [json.loads(l) for l in open(os.path.join(work, "verdicts.jsonl")) if l.strip()]
truth = {v["round"]: v for v in (json.loads(l) for l in open(os.path.join(work, "truth.jsonl")) if l.strip())}
rounds = [v["round"] for v in pub]
bad = []
if rounds != list(range(len(rounds))): bad.append("rounds are not 0..%d once each, in order: %s" % (len(rounds) - 1, rounds[:20]))
for v in pub:
    t = truth.get(v["round"])
    if t is None: bad.append("round %d: no fresh verdict" % v["round"]); continue
    if (v["verdict"], v["checked"]) != (t["verdict"], t["checked"]):
        bad.append("round %d: published %s/%d, fresh %s/%d" % (v["round"], v["verdict"], v["checked"], t["verdict"], t["checked"]))
if not pub: bad.append("no verdict at all")
not_accept = [v["round"] for v in pub if v["verdict"] != "accept"]
if not_accept: bad.append("rounds not accepted (the workload is serializable): %s" % not_accept[:20])
if pub and pub[-1]["checked"] < total: bad.append("the last verdict covers %d of %d transactions" % (pub[-1]["checked"], total))
print("campaign: %d verdicts, rounds 0..%d, %s; last covers %d of %d transactions; restarts counted: %d"
      % (len(pub), len(pub) - 1, "all accept" if all(v["verdict"] == "accept" for v in pub) else "NOT all accept",
         pub[-1]["checked"] if pub else 0, total, pub[-1].get("verifierRestarts", 0) if pub else 0))
# restarts: checkpoint load time and process start to first new verdict
for err in sorted(glob.glob(os.path.join(work, "verifier-*.err")), key=lambda p: int(p.split("-")[-1].split(".")[0])):
    n = err.split("-")[-1].split(".")[0]
    start = float(open(os.path.join(work, "verifier-%s.start" % n)).read())
    loaded = [l.strip() for l in open(err) if "resumed from the checkpoint" in l]
    first = os.path.join(work, "verifier-%s.first" % n)
    t = "%.1f s" % (float(open(first).read()) - start) if os.path.exists(first) else "-"
    print("  verifier %s: %s; first new verdict after %s" % (n, loaded[0].split(": ", 1)[1] if loaded else "fresh start", t))
for b in bad: print("campaign: FAILED: " + b)
sys.exit(1 if bad else 0)
