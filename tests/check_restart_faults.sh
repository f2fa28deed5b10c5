#!/usr/bin/env bash
# bash tests/check_restart_faults.sh <umrun> <mpiexec> <work dir> <case>   (from the source root)
# Checkpoints when things go wrong (run.reproducible, Airfoil's small mesh, 1500 iterations; A goes straight):
#   sigterm   SIGTERM with checkpoint.on_signal: a checkpoint at the next step, exit status 4, and --restart ends
#             with A's metrics
#   sigkill   one of 2 ranks killed (SIGKILL) while checkpoints are written every 100 iterations: --restart of the
#             folder continues from the newest complete checkpoint on 1 rank and ends with A's metrics
#   bad       a corrupt, a truncated, a foreign (Jacobi's) and a non-checkpoint HDF5 file, one without its mesh text or
#             its step record (um.step), another mesh and another physical setting, a checkpoint.dir that cannot be made
#             or holds another config's checkpoints (before the first step): each refused with its message and status
#             (1 or 2), and the checkpoints already there left as they were; a killed writer's temporary removed by the
#             next one; a run's new checkpoint kept where an earlier run of its settings left higher steps
#   ends      checkpoint.stop_after at the last step ends the run as usual; a restart with no step left is refused
#   settings  a deck edited after the checkpoint refused; a step limit and a log period may change
#   tolerance without run.reproducible: stopped on 1 rank, continued on 2, the run validates against upstream
#   chain     Volna stopped, continued to a checkpoint one step later, continued to the end: A's outputs
set -u
UMRUN=$1 MPIEXEC=$2 WORK=$3 CASE=$4
rm -rf "$WORK" && mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
T="timeout -k 10 300"
CFG=apps/airfoil/configs/airfoil_small.yaml
COMMON=(--quiet --set run.reproducible=true --set run.backend=seq --set validation.reference= --set output.dir=
        --set run.iterations=1500 --set checkpoint.dir="$WORK/ck")

# metrics of two JSON files, timings left out, identical
same() {
  python3 - "$1" "$2" <<'EOF' || fail "$2: metrics differ from $1's"
import json, re, sys
a, b = (json.load(open(p))["metrics"] for p in sys.argv[1:3])
timing = re.compile(r"seconds|ms_per|per_second|speedup")
bad = [k for k in a if not timing.search(k) and repr(a[k]) != repr(b.get(k))]
for k in bad: print(f"  {k}: {a[k]!r} straight, {b.get(k)!r} restarted")
sys.exit(1 if bad or not a else 0)
EOF
}
# wait_for <file or glob> <seconds>: until it exists
wait_for() {
  for _ in $(seq 1 $(($2 * 10))); do compgen -G "$1" > /dev/null && return 0; sleep 0.1; done
  return 1
}
$T "$UMRUN" $CFG "${COMMON[@]}" --json "$WORK/a.json" > "$WORK/a.log" 2>&1 || { cat "$WORK/a.log"; fail "A failed"; }

case $CASE in
sigterm)
  "$UMRUN" $CFG "${COMMON[@]}" --set checkpoint.on_signal=true --json "$WORK/b.json" > "$WORK/b.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do grep -q "^   100 " "$WORK/b.log" && break; sleep 0.05; done # the first rms line: running
  kill -TERM $pid
  wait $pid
  rc=$?
  [ $rc = 4 ] || { cat "$WORK/b.log"; fail "SIGTERM: exit $rc, expected 4"; }
  grep -q "after writing checkpoint .* (a signal asked for it)" "$WORK/b.log" || { cat "$WORK/b.log"; fail "no message"; }
  step=$(grep -o "stopped at step [0-9]*" "$WORK/b.log" | grep -o "[0-9]*$")
  $T "$UMRUN" $CFG "${COMMON[@]}" --restart "$WORK/ck" --json "$WORK/c.json" > "$WORK/c.log" 2>&1 \
    || { cat "$WORK/c.log"; fail "the restart failed"; }
  same "$WORK/a.json" "$WORK/c.json"
  echo "sigterm: checkpoint at step $step, exit 4, restart ends with A's metrics"
  ;;
sigkill)
  "$MPIEXEC" --oversubscribe -np 2 "$UMRUN" $CFG "${COMMON[@]}" --set checkpoint.every=100 --set checkpoint.keep=100 \
    > "$WORK/b.log" 2>&1 &
  mp=$!
  wait_for "$WORK/ck/airfoil-step000000300.h5" 120 || { cat "$WORK/b.log"; fail "no checkpoint written"; }
  victim=$(pgrep -f -n "umrun $CFG.*checkpoint.every=100") # the newest rank
  [ -n "$victim" ] || fail "no rank to kill"
  kill -KILL "$victim"
  wait $mp
  rc=$?
  [ $rc != 0 ] || fail "the job survived the SIGKILL of a rank"
  newest=$(ls "$WORK/ck" | grep -E '^airfoil-step[0-9]+\.h5$' | sort | tail -1)
  $T "$UMRUN" $CFG "${COMMON[@]}" --restart "$WORK/ck" --json "$WORK/c.json" > "$WORK/c.log" 2>&1 \
    || { cat "$WORK/c.log"; fail "the restart failed"; }
  grep -q "restart: continuing from step .* of $WORK/ck/$newest" "$WORK/c.log" || { cat "$WORK/c.log"; fail "not $newest"; }
  same "$WORK/a.json" "$WORK/c.json"
  echo "sigkill: rank killed (job exit $rc), restart from $newest ends with A's metrics"
  ;;
bad)
  $T "$UMRUN" $CFG "${COMMON[@]}" --set checkpoint.every=200 --set checkpoint.stop_after=400 > "$WORK/b.log" 2>&1
  [ $? = 4 ] || { cat "$WORK/b.log"; fail "the stop did not exit 4"; }
  good="$WORK/ck/airfoil-step000000200.h5" newest="$WORK/ck/airfoil-step000000400.h5"
  sums=$(md5sum "$WORK"/ck/*.h5)
  # expect <name> <status> <regex> <args...>: a restart refused as it should be, the folder unchanged
  expect() {
    local name=$1 want=$2 regex=$3
    shift 3
    $T "$UMRUN" $CFG "${COMMON[@]}" "$@" > "$WORK/$name.log" 2>&1
    local rc=$?
    [ $rc = "$want" ] || { cat "$WORK/$name.log"; fail "$name: exit $rc, expected $want"; }
    grep -Eq "$regex" "$WORK/$name.log" || { cat "$WORK/$name.log"; fail "$name: the message does not say ($regex)"; }
    echo "$name: exit $want, $(grep -Eo "$regex" "$WORK/$name.log" | head -1)"
  }
  cp "$newest" "$WORK/keep.h5"
  # corrupt: bytes in the middle of the newest file (its dats' rows) changed
  size=$(stat -c %s "$newest")
  printf 'CORRUPTCORRUPT' | dd of="$newest" bs=1 seek=$((size * 3 / 4)) conv=notrunc status=none
  sums_corrupt=$(md5sum "$WORK"/ck/*.h5)
  expect corrupt 2 "is corrupt: dataset '[^']*' does not match its checksum.*" --restart "$WORK/ck"
  grep -q "the newest checkpoint that passes its checks is $good" "$WORK/corrupt.log" || fail "corrupt: no good one named"
  head -c $((size / 2)) "$WORK/keep.h5" > "$WORK/truncated.h5"
  expect truncated 2 "cannot open checkpoint '[^']*truncated.h5' \(a truncated file\?\)" --restart "$WORK/truncated.h5"
  $T "$UMRUN" configs/jacobi.yaml --quiet --set validation.reference= --set output.dir= --set checkpoint.dir="$WORK/jk" \
    --set checkpoint.stop_after=10 > "$WORK/j.log" 2>&1
  expect foreign 1 "it is a checkpoint of jacobi, and this config runs airfoil" --restart "$WORK/jk/jacobi-step000000010.h5"
  $T "$UMRUN" $CFG --quiet --set run.iterations=1 --set validation.reference= --set output.dir="$WORK/o" \
    --set output.hdf5=true > "$WORK/o.log" 2>&1
  expect not_checkpoint 2 "is not a complete um checkpoint: it has no readable 'um_checkpoint' marker" \
    --restart "$WORK/o/airfoil.h5"
  expect other_mesh 1 "mesh.J: 75 in the checkpoint, 60 now" --restart "$good" --set mesh.J=60
  expect other_physics 1 "params.fused: true in the checkpoint, false now" --restart "$good" --set params.fused=false
  expect missing 1 "the folder holds no checkpoint of airfoil" --restart "$WORK/o"
  # a copy of the good checkpoints in WORK/$1 whose step-400 file has the link name $2 renamed $3 (a flipped byte)
  renamed() {
    mkdir -p "$WORK/$1" && cp "$good" "$WORK/$1/" && cp "$WORK/keep.h5" "$WORK/$1/airfoil-step000000400.h5"
    python3 - "$WORK/$1/airfoil-step000000400.h5" "$2" "$3" <<'EOF2' || fail "$1: no single '$2' link name to change"
import sys
b = open(sys.argv[1], "rb").read()
old, new = sys.argv[2].encode() + b"\0", sys.argv[3].encode() + b"\0"
assert b.count(old) == 1
open(sys.argv[1], "wb").write(b.replace(old, new))
EOF2
  }
  # meta/mesh renamed: corrupt, never a checkpoint whose mesh goes unchecked
  renamed nomesh mesh mesX
  expect no_mesh_text 2 "is corrupt: it has no meta/mesh, which every um checkpoint holds" --restart "$WORK/nomesh"
  grep -q "the newest checkpoint that passes its checks is $WORK/nomesh/airfoil-step000000200.h5" \
    "$WORK/no_mesh_text.log" || fail "no_mesh_text: no good one named"
  # state/um.step renamed: incomplete or corrupt (exit 2), never another app's or version's
  renamed nostep um.step um.stXp
  expect no_step 2 "checkpoint '$WORK/nostep/airfoil-step000000400.h5' is incomplete or corrupt: it has no step record" \
    --restart "$WORK/nostep"
  ! grep -q "another app or version" "$WORK/no_step.log" || fail "no_step: called another app's or version's"
  grep -q "the newest checkpoint that passes its checks is $WORK/nostep/airfoil-step000000200.h5" \
    "$WORK/no_step.log" || fail "no_step: no good one named"
  touch "$WORK/file"
  # a folder that cannot be written: refused before the first step (no iteration printed), as any output path
  expect unwritable_dir 1 "checkpoint.dir: cannot write checkpoints into '$WORK/file/ck': .*checked before the first step" \
    --set checkpoint.dir="$WORK/file/ck" --set checkpoint.every=100
  ! grep -q "^ *100 " "$WORK/unwritable_dir.log" || fail "unwritable_dir: steps ran before the refusal"
  # checkpoint.on_signal alone writes nothing unless a signal comes: its folder is neither made nor checked before
  $T "$UMRUN" $CFG "${COMMON[@]}" --set run.iterations=10 --set checkpoint.on_signal=true \
    --set checkpoint.dir="$WORK/file/never" > "$WORK/on_signal_only.log" 2>&1 ||
    { cat "$WORK/on_signal_only.log"; fail "on_signal alone: refused for a folder it never wrote"; }
  # the folder holds checkpoints of another config: refused before the first step (its checkpoints would remove
  # this run's, or this run's replace them)
  expect shared_dir 1 "checkpoint.dir '$WORK/ck' holds $newest, a checkpoint of airfoil with other settings \(mesh.J: 75 in the checkpoint, 60 now\)" \
    --set mesh.J=60 --set checkpoint.every=100
  [ "$(md5sum "$WORK"/ck/*.h5)" = "$sums_corrupt" ] || fail "a refused restart changed the checkpoints"
  [ "$(echo "$sums" | grep -c step000000200)" = 1 ] && [ -f "$good" ] || fail "the good checkpoint is gone"
  $T "$UMRUN" $CFG "${COMMON[@]}" --restart "$good" --json "$WORK/c.json" > "$WORK/c.log" 2>&1 \
    || { cat "$WORK/c.log"; fail "the restart from the good one failed"; }
  same "$WORK/a.json" "$WORK/c.json"
  # a writer killed mid-write left its temporary: removed with the next checkpoint past its step, no other
  mkdir -p "$WORK/tk" && touch "$WORK/tk/airfoil-step000000050.h5.tmp.Ab12Cd" "$WORK/tk/airfoil-step000009999.h5.tmp.Ab12Cd"
  $T "$UMRUN" $CFG "${COMMON[@]}" --set run.iterations=100 --set checkpoint.every=100 --set checkpoint.dir="$WORK/tk" \
    > "$WORK/tk.log" 2>&1 || { cat "$WORK/tk.log"; fail "the run into tk failed"; }
  [ "$(ls "$WORK/tk" | tr '\n' ' ')" = "airfoil-step000000100.h5 airfoil-step000009999.h5.tmp.Ab12Cd " ] \
    || fail "temporaries: $(ls "$WORK/tk" | tr '\n' ' ')"
  # a fresh run into a folder where an earlier run of the same settings left checkpoints of higher steps: the one
  # it writes is kept (with the newest other), never removed as the oldest
  mkdir -p "$WORK/hk" && cp "$good" "$WORK/hk/airfoil-step000999998.h5" && cp "$good" "$WORK/hk/airfoil-step000999999.h5"
  $T "$UMRUN" $CFG "${COMMON[@]}" --set run.iterations=100 --set checkpoint.every=100 --set checkpoint.dir="$WORK/hk" \
    > "$WORK/hk.log" 2>&1 || { cat "$WORK/hk.log"; fail "the run into hk failed"; }
  [ "$(ls "$WORK/hk" | tr '\n' ' ')" = "airfoil-step000000100.h5 airfoil-step000999999.h5 " ] \
    || fail "higher steps of an earlier run: $(ls "$WORK/hk" | tr '\n' ' ')"
  echo "bad: every bad checkpoint refused, the good one named and continued to A's metrics; stale temporary removed;" \
    "the checkpoint just written kept beside an earlier run's of higher steps"
  ;;
ends)
  # checkpoint.stop_after at the run's last step: the run ends as usual (exit 0, A's metrics, its outputs) with the
  # checkpoint written; a restart from it with the same or a lower step limit has no step to take: refused (exit 1),
  # never outputs from the set-up's values; a higher limit continues. LULESH ending by its time (size 2: cycle 5)
  # and BookLeaf (whose restart took one step past a lower limit) the same.
  $T "$UMRUN" $CFG "${COMMON[@]}" --set checkpoint.stop_after=1500 --json "$WORK/b.json" > "$WORK/b.log" 2>&1
  rc=$?
  [ $rc = 0 ] || { cat "$WORK/b.log"; fail "stop_after at the last step: exit $rc, expected 0"; }
  same "$WORK/a.json" "$WORK/b.json"
  [ -f "$WORK/ck/airfoil-step000001500.h5" ] || fail "no checkpoint at the last step"
  none="has no step to take"
  for it in 1500 1000; do
    $T "$UMRUN" $CFG "${COMMON[@]}" --set run.iterations=$it --restart "$WORK/ck" > "$WORK/c$it.log" 2>&1
    rc=$?
    [ $rc = 1 ] && grep -q "$none" "$WORK/c$it.log" || { cat "$WORK/c$it.log"; fail "restart, $it iterations: exit $rc"; }
  done
  $T "$UMRUN" $CFG "${COMMON[@]}" --set run.iterations=1600 --json "$WORK/a2.json" > "$WORK/a2.log" 2>&1 || fail "A 1600"
  $T "$UMRUN" $CFG "${COMMON[@]}" --set run.iterations=1600 --restart "$WORK/ck" --json "$WORK/c2.json" \
    > "$WORK/c2.log" 2>&1 || { cat "$WORK/c2.log"; fail "the restart to 1600 failed"; }
  same "$WORK/a2.json" "$WORK/c2.json"
  L=(configs/lulesh_small.yaml --quiet --set run.reproducible=true --set validation.reference= --set output.dir=
     --set params.size=2 --set run.iterations=10 --set checkpoint.dir="$WORK/lk")
  $T "$UMRUN" "${L[@]}" --set checkpoint.stop_after=5 > "$WORK/l.log" 2>&1
  rc=$?
  [ $rc = 0 ] || { cat "$WORK/l.log"; fail "LULESH, stop_after at its last cycle: exit $rc, expected 0"; }
  grep -q "iterations           5 " "$WORK/l.log" || { cat "$WORK/l.log"; fail "LULESH did not end at cycle 5"; }
  $T "$UMRUN" "${L[@]}" --restart "$WORK/lk" > "$WORK/lr.log" 2>&1
  rc=$?
  [ $rc = 1 ] && grep -q "$none" "$WORK/lr.log" || { cat "$WORK/lr.log"; fail "LULESH restart at its end: exit $rc"; }
  B=(configs/bookleaf_sod_sm_lag_small.yaml --quiet --set run.reproducible=true --set validation.reference=
     --set output.dir= --set checkpoint.dir="$WORK/bk")
  $T "$UMRUN" "${B[@]}" --set run.iterations=20 --set checkpoint.stop_after=10 > "$WORK/bl.log" 2>&1
  [ $? = 4 ] || { cat "$WORK/bl.log"; fail "BookLeaf: the stop did not exit 4"; }
  $T "$UMRUN" "${B[@]}" --set run.iterations=10 --restart "$WORK/bk" > "$WORK/br.log" 2>&1
  rc=$?
  [ $rc = 1 ] && grep -q "$none" "$WORK/br.log" || { cat "$WORK/br.log"; fail "BookLeaf restart at its limit: exit $rc"; }
  echo "ends: a checkpoint at the last step ends the run as usual; restarts with no step left refused (Airfoil," \
    "LULESH by its end time, BookLeaf); a higher limit continues to the straight run's metrics"
  ;;
settings)
  # what a restart compares beside the config's keys, and what it lets change: Volna's deck (the file mesh.file
  # names) edited after the checkpoint is refused naming it; its step limit and log period (params.max_steps,
  # params.progress: UM_OPT_NOT_PHYSICS) may change, and the run continues to the straight run's metrics
  cp validation/volna/decks/landslide_small.vln "$WORK/v.vln"
  V=(configs/volna_landslide_small.yaml --quiet --set run.reproducible=true --set validation.reference=
     --set output.dir= --set mesh.file="$WORK/v.vln" --set checkpoint.dir="$WORK/vk")
  $T "$UMRUN" "${V[@]}" --set params.max_steps=30 --json "$WORK/va.json" > "$WORK/va.log" 2>&1 || fail "Volna A"
  $T "$UMRUN" "${V[@]}" --set params.max_steps=20 --set checkpoint.stop_after=10 > "$WORK/vb.log" 2>&1
  [ $? = 4 ] || { cat "$WORK/vb.log"; fail "Volna: the stop did not exit 4"; }
  $T "$UMRUN" "${V[@]}" --set params.max_steps=30 --set params.progress=5 --restart "$WORK/vk" --json "$WORK/vc.json" \
    > "$WORK/vc.log" 2>&1 || { cat "$WORK/vc.log"; fail "Volna: the restart with another step limit was refused"; }
  grep -q "params.max_steps: 20 in the checkpoint, 30 now" "$WORK/vc.log" || { cat "$WORK/vc.log"; fail "not listed"; }
  same "$WORK/va.json" "$WORK/vc.json"
  # the deck moved elsewhere, its bytes the same: the run continues (the file is compared by content), said
  mkdir -p "$WORK/moved" && cp "$WORK/v.vln" "$WORK/moved/deck.vln"
  $T "$UMRUN" "${V[@]}" --set params.max_steps=30 --set mesh.file="$WORK/moved/deck.vln" \
    --restart "$WORK/vk/volna-step000000010.h5" --json "$WORK/vm.json" > "$WORK/vm.log" 2>&1 \
    || { cat "$WORK/vm.log"; fail "Volna: the restart with the deck moved was refused"; }
  grep -q "mesh.file: $WORK/v.vln in the checkpoint, $WORK/moved/deck.vln now: the same content" "$WORK/vm.log" \
    || { cat "$WORK/vm.log"; fail "Volna: the moved deck not said"; }
  same "$WORK/va.json" "$WORK/vm.json"
  sed -i 's/g = 9.81/g = 3.0/' "$WORK/v.vln"
  grep -q "g = 3.0" "$WORK/v.vln" || fail "the deck has no g = 9.81 to change"
  $T "$UMRUN" "${V[@]}" --set params.max_steps=20 --restart "$WORK/vk/volna-step000000010.h5" > "$WORK/vd.log" 2>&1
  rc=$?
  [ $rc = 1 ] && grep -q "mesh.file content: [0-9a-f]* in the checkpoint, [0-9a-f]* now" "$WORK/vd.log" \
    || { cat "$WORK/vd.log"; fail "Volna: an edited deck: exit $rc, expected 1 naming mesh.file's content"; }
  echo "settings: an edited deck refused; params.max_steps and params.progress changed, and the deck moved," \
    "continued to A's metrics"
  ;;
chain)
  # a chain of jobs: stopped at step 12, continued on 2 ranks to a checkpoint one step later (before the steps
  # wrote the maxima again), continued from it to the end in the same output folder: A's metrics and output files,
  # byte for byte (the restored maxima were left out of the second checkpoint, and the third job lost them)
  V=(configs/volna_landslide_small.yaml --quiet --set run.reproducible=true --set validation.reference=
     --set output.hdf5=true --set mesh.file=apps/volna/tests/data/outputs.vln --set params.max_steps=40
     --set checkpoint.dir="$WORK/vk")
  $T "$UMRUN" "${V[@]}" --set output.dir="$WORK/va" --json "$WORK/va.json" > "$WORK/va.log" 2>&1 || fail "Volna A"
  $T "$UMRUN" "${V[@]}" --set output.dir="$WORK/vb" --set checkpoint.stop_after=12 > "$WORK/vb1.log" 2>&1
  [ $? = 4 ] || { cat "$WORK/vb1.log"; fail "chain: the first stop did not exit 4"; }
  $T "$MPIEXEC" --oversubscribe -np 2 "$UMRUN" "${V[@]}" --set output.dir="$WORK/vb" --set checkpoint.stop_after=13 \
    --restart "$WORK/vk" > "$WORK/vb2.log" 2>&1
  [ $? = 4 ] || { cat "$WORK/vb2.log"; fail "chain: the second stop did not exit 4"; }
  $T "$UMRUN" "${V[@]}" --set output.dir="$WORK/vb" --restart "$WORK/vk" --json "$WORK/vb.json" > "$WORK/vb3.log" 2>&1 \
    || { cat "$WORK/vb3.log"; fail "chain: the last job failed"; }
  grep -q "continuing from step 13 " "$WORK/vb3.log" || { cat "$WORK/vb3.log"; fail "chain: not from step 13"; }
  same "$WORK/va.json" "$WORK/vb.json"
  files=$(cd "$WORK/va" && find . -type f | sort)
  [ "$files" = "$(cd "$WORK/vb" && find . -type f | sort)" ] || fail "chain: other files than A's"
  for f in $files; do cmp -s "$WORK/va/$f" "$WORK/vb/$f" || fail "chain: output $f differs from A's"; done
  echo "chain: 12 -> 13 (2 ranks) -> the end: A's metrics and $(echo "$files" | wc -l) output files"
  ;;
tolerance)
  # without run.reproducible: stopped on 1 rank (OpenMP), continued on 2 (seq), validated against upstream's numbers
  V=(--quiet --set checkpoint.dir="$WORK/ck" --set output.dir=)
  $T "$UMRUN" $CFG "${V[@]}" --set run.backend=openmp --set checkpoint.stop_after=500 > "$WORK/b.log" 2>&1
  [ $? = 4 ] || { cat "$WORK/b.log"; fail "the stop did not exit 4"; }
  $T "$MPIEXEC" --oversubscribe -np 2 "$UMRUN" $CFG "${V[@]}" --set run.backend=seq --restart "$WORK/ck" \
    > "$WORK/c.log" 2>&1 || { cat "$WORK/c.log"; fail "the continued run did not validate"; }
  grep -q "VALIDATION PASS" "$WORK/c.log" || { cat "$WORK/c.log"; fail "no VALIDATION PASS"; }
  echo "tolerance: stopped at 500 on 1 rank, continued on 2: $(grep -o 'VALIDATION PASS.*' "$WORK/c.log")"
  ;;
*) fail "unknown case $CASE" ;;
esac
