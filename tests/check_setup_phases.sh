#!/usr/bin/env bash
# bash tests/check_setup_phases.sh <umrun> <mpiexec> <work dir> [python]   (from the source root)
# The set-up by phase (the JSON's setup_phases): Airfoil's small case on one process, then on 3 ranks declared by
# blocks (mpi.mesh: blocks) and declared whole (mpi.mesh: whole, the whole-mesh partition and migration). On every
# run rank 0's phases add up to setup_seconds within 3% (2 ms for rounding), each phase is >= 0 on every rank,
# the mesh phase is > 0, and under mpirun partition, migrate and halos are > 0 on every rank; the summary prints its
# "set-up" line. setup_faulted_bytes has the same phases, each >= 0 on every rank, the mesh's > 0 on one process,
# and the memory line says what the set-up touched. With a python that has jsonschema, the files validate against docs/schema.
set -u
UMRUN=$1 MPIEXEC=$2 WORK=$3 PY=${4:-python3}
rm -rf "$WORK" && mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
T="timeout -k 10 300"
ARGS=(configs/airfoil_small.yaml --no-validate --set run.backend=seq --set output.dir= --set run.iterations=2)
$T "$UMRUN" "${ARGS[@]}" --json "$WORK/one.json" > "$WORK/one.log" 2>&1 || { tail -20 "$WORK/one.log"; fail "one process"; }
for mesh in blocks whole; do
  $T "$MPIEXEC" --oversubscribe -np 3 "$UMRUN" "${ARGS[@]}" --set mpi.mesh=$mesh --json "$WORK/$mesh.json" \
    > "$WORK/$mesh.log" 2>&1 || { tail -20 "$WORK/$mesh.log"; fail "3 ranks, mpi.mesh: $mesh"; }
done
for f in one blocks whole; do
  grep -q "^set-up [0-9.]* s" "$WORK/$f.log" || { tail -30 "$WORK/$f.log"; fail "$f: no set-up line in the summary"; }
  grep -q "^memory.*; the set-up touched [0-9.]* MB of fresh memory" "$WORK/$f.log" ||
    { tail -30 "$WORK/$f.log"; fail "$f: the memory line does not say what the set-up touched"; }
done
"$PY" - "$WORK/one.json" "$WORK/blocks.json" "$WORK/whole.json" <<'PY' || fail "the set-up's phases (above)"
import json, sys
ok = True
for path in sys.argv[1:]:
    d = json.load(open(path))
    ph, setup, ranks = d["setup_phases"], d["setup_seconds"], d["ranks"]
    total0 = sum(v["per_rank"][0] for v in ph.values())
    print(f"{path}: setup_seconds {setup:.4f}, rank 0's phases add up to {total0:.4f}; " +
          ", ".join(f"{k} {v['max']:.4f}" for k, v in ph.items()))
    if abs(total0 - setup) > 0.03 * setup + 0.002:
        print(f"  the phases do not add up to the set-up"); ok = False
    for k, v in ph.items():
        if len(v["per_rank"]) != ranks or min(v["per_rank"]) < 0:
            print(f"  {k}: {v['per_rank']} (one value >= 0 per rank expected)"); ok = False
    must = ["mesh"] + (["partition", "migrate", "halos"] if ranks > 1 else [])
    for k in must:
        if min(ph[k]["per_rank"]) <= 0:
            print(f"  {k}: {ph[k]['per_rank']}: the run had this phase on every rank"); ok = False
    if ranks == 1 and any(ph[k]["max"] > 0 for k in ("partition", "migrate", "halos")):
        print("  one process: nothing to partition, migrate or exchange"); ok = False
    fb = d["setup_faulted_bytes"]  # the bytes each phase touched first: the same phases, per rank
    if sorted(fb) != sorted(ph) or any(len(v["per_rank"]) != ranks or min(v["per_rank"]) < 0 for v in fb.values()):
        print(f"  setup_faulted_bytes: {fb} (the phases of setup_phases, one value >= 0 per rank)"); ok = False
    if ranks == 1 and fb["mesh"]["max"] < 4096:
        print(f"  one process: the generated mesh touched no fresh page ({fb['mesh']})"); ok = False
sys.exit(0 if ok else 1)
PY
"$PY" tests/check_schema.py docs/schema "$WORK/one.json" "$WORK/blocks.json" "$WORK/whole.json"
rc=$?
[ $rc = 0 ] || [ $rc = 77 ] || fail "the JSON files do not validate against docs/schema"
echo "set-up phases: PASS"
