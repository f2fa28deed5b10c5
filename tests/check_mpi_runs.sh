#!/usr/bin/env bash
# bash tests/check_mpi_runs.sh <check> <umrun> <mpiexec> <work dir>   (run from the source root)
# umrun under mpirun on 2 ranks when something goes wrong: an output rank 0 cannot write, messages from the
# config and the command line, per-loop keys naming no loop, the folders of ranks other than 0.
set -u
check=$1 UMRUN=$2 MPIEXEC=$3 WORK=$4
rm -rf "$WORK" && mkdir -p "$WORK/tmp"
trap 'rm -rf "$WORK"' EXIT
export TMPDIR=$WORK/tmp OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
T="timeout -k 10 120"                                  # a hang fails the check (status 124), never the test's timeout
MPI=("$MPIEXEC" --oversubscribe -np 2)
count() { grep -c -- "$1" "$2"; }                      # lines of file $2 holding $1
no_fields_left() { ! ls -A "$1" | grep -q . || { ls -la "$1"; fail "$2: left in TMPDIR: $(ls -A "$1")"; }; }

case $check in
output) # an output rank 0 cannot write (a folder where its file goes): every rank exits 2 at once, though
        # mpi.deadline_s is 600 s, and --json holds the run's record with "status": "run failed"
  for app in airfoil miniaero volna jacobi; do
    mkdir -p "$WORK/$app"
    case $app in
      airfoil) mkdir -p "$WORK/$app/airfoil.h5"          # the engine's HDF5 writer (by blocks, every rank in turn)
               args=(configs/airfoil_small.yaml --set run.iterations=10 --set output.hdf5=true) ;;
      miniaero) mkdir -p "$WORK/$app/results.0"          # the app's own file by blocks, then its HDF5 output
                args=(configs/miniaero_small.yaml --set output.hdf5=true) ;;
      volna) mkdir -p "$WORK/$app/sim0010.h5"               # the deck's output at step 10, then more steps
             args=(configs/volna_landslide_small.yaml --set params.max_steps=20
                   --set mesh.file=apps/volna/tests/data/outputs.vln) ;;
      jacobi) mkdir -p "$WORK/$app/jacobi_u.txt"        # a field file written by blocks (um_app_write_blocks)
              args=(configs/jacobi.yaml) ;;
    esac
    $T "${MPI[@]}" "$UMRUN" "${args[@]}" --quiet --set run.backend=seq --set mpi.deadline_s=600 \
      --set validation.reference= --set output.dir="$WORK/$app" --json "$WORK/$app.json" > "$WORK/$app.log" 2>&1
    rc=$?
    [ $rc = 2 ] || { cat "$WORK/$app.log"; fail "$app: rank 0 cannot write its output: exit $rc, expected 2 at once"; }
    grep -q "is a folder" "$WORK/$app.log" || { cat "$WORK/$app.log"; fail "$app: the reason is not said"; }
    [ "$(count 'failed: ' "$WORK/$app.log")" = 1 ] \
      || { cat "$WORK/$app.log"; fail "$app: the failure is not said once"; }
    grep -q '"status": "run failed"' "$WORK/$app.json" 2>/dev/null \
      || { cat "$WORK/$app.log"; fail "$app: --json does not hold the failed run's record"; }
    no_fields_left "$TMPDIR" "$app"
  done
  ;;
messages) # notes and errors from the config and the command line: once (rank 0), whole lines
  "${MPI[@]}" "$UMRUN" configs/jacobi.yaml --quiet --set run.block_size=-3 > "$WORK/a.log" 2>&1; rc=$?
  [ $rc = 1 ] && [ "$(count 'run.block_size = -3: use 1' "$WORK/a.log")" = 1 ] \
    || { cat "$WORK/a.log"; fail "a bad config value: exit $rc, and its message not once"; }
  "${MPI[@]}" "$UMRUN" configs/jacobi.yaml --quiet --no-such-option > "$WORK/b.log" 2>&1; rc=$?
  [ $rc = 1 ] && [ "$(count "unknown option '--no-such-option'" "$WORK/b.log")" = 1 ] \
    || { cat "$WORK/b.log"; fail "a bad command line: exit $rc, and its message not once"; }
  $T "${MPI[@]}" "$UMRUN" configs/jacobi.yaml --quiet --set run.backend=seq --set run.iterations=20 \
    --set validation.reference= --set run.unknown_keys=warn --set run.blok_size=3 > "$WORK/c.log" 2>&1 \
    || { cat "$WORK/c.log"; fail "a run with a misspelt key (run.unknown_keys=warn): exit $?"; }
  [ "$(count "unknown config key 'run.blok_size'" "$WORK/c.log")" = 1 ] \
    || { cat "$WORK/c.log"; fail "the misspelt key: not warned once"; }
  [ "$(count "but --set removes it: this run is NOT validated" "$WORK/c.log")" = 1 ] \
    || { cat "$WORK/c.log"; fail "the note on validation: not once"; }
  cat "$WORK"/[abc].log | grep -q "umrun: umrun:" && fail "two ranks' messages interleaved"
  ;;
loop_keys) # per-loop keys naming no loop of the run, and mpi.partition_set on one process
  $T "$UMRUN" configs/jacobi.yaml --quiet --set run.backend=seq --set block_size.relx=64 > "$WORK/a.log" 2>&1 \
    || { cat "$WORK/a.log"; fail "block_size.<no such loop>: exit $?"; }
  grep -q "warning: block_size.relx: no loop named .relx. ran .*the loops of this run are: degree, gather, relax" \
    "$WORK/a.log" || { cat "$WORK/a.log"; fail "block_size.<no such loop> is not warned with the loops that ran"; }
  $T "${MPI[@]}" "$UMRUN" configs/airfoil_small.yaml --quiet --set run.backend=seq --set run.iterations=10 \
    --set validation.reference= --set output.dir= --set mpi.loops.res_calk=reverse > "$WORK/b.log" 2>&1 \
    || { cat "$WORK/b.log"; fail "mpi.loops.<no such loop> on 2 ranks: exit $?"; }
  loops="save_soln, adt_calc, res_calc, bres_calc, update"
  [ "$(count "warning: mpi.loops.res_calk: no loop named 'res_calk' ran .*run are: $loops" "$WORK/b.log")" = 1 ] \
    || { cat "$WORK/b.log"; fail "mpi.loops.<no such loop> is not warned once with the loops that ran"; }
  "$UMRUN" configs/jacobi.yaml --quiet --set mpi.partition_set=nodez > "$WORK/c.log" 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "mpi.partition_set: no set named 'nodez'; this app has: nodes, edges" "$WORK/c.log" \
    || { cat "$WORK/c.log"; fail "a misspelt mpi.partition_set on one process: exit $rc, expected 1 naming the sets"; }
  $T "$UMRUN" configs/jacobi.yaml --quiet --set run.backend=seq --set mpi.partition_set=nodes > "$WORK/d.log" 2>&1 \
    || { cat "$WORK/d.log"; fail "mpi.partition_set on one process: exit $?"; }
  grep -q "note: mpi.partition_set is set, but this run is one process" "$WORK/d.log" \
    || { cat "$WORK/d.log"; fail "mpi.partition_set on one process is not noted"; }
  ;;
folders) # ranks other than 0 create no umrun-fields-* folder (they write nothing), not even when killed
  mkdir -p "$WORK/out" "$WORK/tmp1"
  "$MPIEXEC" --oversubscribe -np 1 "$UMRUN" configs/airfoil_small.yaml --quiet --set run.backend=seq \
    --set run.iterations=1000000 --set validation.reference= --set output.dir="$WORK/out" \
    : -np 1 sh -c 'echo $$ > "$0/rank1.pid"; TMPDIR=$0/tmp1 exec "$@"' "$WORK" "$UMRUN" configs/airfoil_small.yaml \
    --quiet --set run.backend=seq --set run.iterations=1000000 --set validation.reference= \
    --set output.dir="$WORK/out" > "$WORK/a.log" 2>&1 &
  job=$!
  for _ in $(seq 1200); do                              # until the ranks step together (halos: rank 1 is running)
    grep -q '^ *200 ' "$WORK/a.log" && break
    kill -0 $job 2>/dev/null || { cat "$WORK/a.log"; fail "the run ended early"; }
    sleep 0.1
  done
  grep -q '^ *200 ' "$WORK/a.log" || { kill $job; cat "$WORK/a.log"; fail "the run did not reach iteration 200"; }
  ls -A "$WORK/tmp" "$WORK/tmp1" | grep -q umrun-fields \
    && { kill $job; fail "a rank created a folder: $(ls "$WORK/tmp1")"; }
  kill -9 "$(cat "$WORK/rank1.pid")"
  for _ in $(seq 600); do kill -0 $job 2>/dev/null || break; sleep 0.1; done
  kill -0 $job 2>/dev/null && { kill -9 $job; fail "mpirun did not end after its rank 1 was killed"; }
  wait $job
  no_fields_left "$WORK/tmp1" "rank 1 (killed)"
  no_fields_left "$WORK/tmp" "rank 0"
  # rank 0 fails alone (its own mesh.N) after making its temporary field folder: it stops the job after
  # mpi.deadline_s (MPI_Abort, which ends it without its signal handlers) and removes the folder first
  mkdir -p "$WORK/tmp0"
  $T "$MPIEXEC" --oversubscribe -np 1 env TMPDIR="$WORK/tmp0" "$UMRUN" configs/jacobi.yaml --quiet --set mesh.N=1 \
    --set mpi.deadline_s=3 : -np 1 "$UMRUN" configs/jacobi.yaml --quiet --set mpi.deadline_s=3 > "$WORK/b.log" 2>&1
  rc=$?
  [ $rc = 1 ] && grep -q "rank 0 of 2: jacobi failed: mesh.N = 1" "$WORK/b.log" \
    || { cat "$WORK/b.log"; fail "rank 0 failing alone: exit $rc, expected 1 with its message"; }
  no_fields_left "$WORK/tmp0" "rank 0 (failed alone, stopped the job)"
  ;;
*) fail "unknown check '$check'" ;;
esac
echo "PASS: $check"
