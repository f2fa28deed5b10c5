#!/usr/bin/env bash
# bash tests/check_env_edges.sh <check> <umrun> <work dir>   (run from the source root)
# The runner at the edges of its environment (ctest umrun.env_<check>): a stale $TMPDIR, a small stack, an .xmf that
# cannot be written beside its .h5 (Airfoil, miniAero, BookLeaf, SIAC, Volna), a relative output.dir under a current
# folder that is gone, a --repeat whose sample cannot write its results.
set -u
check=$1 UMRUN=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }
T="timeout -k 5 120"                                   # nothing here may hang
JAC=(configs/jacobi.yaml --quiet)                      # validated, its field compared: a temporary folder for it

case $check in
tmpdir_stale) # $TMPDIR missing, relative or not a folder: every user of it takes /tmp, after one warning that
  # names $TMPDIR and why (the field folder of a run, --repeat's folder, --suite's, the host compiler's)
  : > "$WORK/file"
  for t in "$WORK/gone/x|does not exist (No such file or directory)" "rel/tmp|is not an absolute path" \
           "$WORK/file|is not a folder"; do
    dir=${t%%|*} why=${t#*|}
    TMPDIR=$dir $T "$UMRUN" "${JAC[@]}" > "$WORK/a.log" 2>&1 || { rc=$?; cat "$WORK/a.log"; fail "TMPDIR=$dir: exit $rc"; }
    grep -q "VALIDATION PASS" "$WORK/a.log" || { cat "$WORK/a.log"; fail "TMPDIR=$dir: not validated"; }
    n=$(grep -cF "umrun: warning: \$TMPDIR ('$dir') $why; using /tmp" "$WORK/a.log")
    [ "$n" = 1 ] || { cat "$WORK/a.log"; fail "TMPDIR=$dir: $n warnings naming it and why, expected 1"; }
  done
  stale=$WORK/gone/x
  TMPDIR=$stale $T "$UMRUN" "${JAC[@]}" --repeat 2 > "$WORK/r.log" 2>&1 || { rc=$?; cat "$WORK/r.log"; fail "--repeat: exit $rc"; }
  [ "$(grep -c "warning: \$TMPDIR ('$stale') does not exist" "$WORK/r.log")" = 1 ] \
    || { cat "$WORK/r.log"; fail "--repeat: not one warning"; }
  printf 'cases:\n  - {name: j, config: configs/jacobi.yaml, tags: [quick]}\n' > "$WORK/suite.yaml"
  TMPDIR=$stale $T "$UMRUN" --suite "$WORK/suite.yaml" --out "$WORK/suite" > "$WORK/s.log" 2>&1 \
    || { rc=$?; cat "$WORK/s.log"; fail "--suite: exit $rc"; }
  grep -q "1 of 1 runs pass" "$WORK/s.log" || { cat "$WORK/s.log"; fail "--suite: the run did not pass"; }
  [ "$(grep -c "umrun --suite: warning: \$TMPDIR ('$stale') does not exist" "$WORK/s.log")" = 1 ] \
    || { cat "$WORK/s.log"; fail "--suite: not one warning"; }
  # the host compiler's private folder (cache off): /tmp, said as "does not exist", not "not private enough"
  TMPDIR=$stale $T "$UMRUN" "${JAC[@]}" --set output.dir="$WORK/out" --set run.backend=seq --set run.cache=off \
    --set hostc.compile=wait > "$WORK/h.log" 2>&1 || { rc=$?; cat "$WORK/h.log"; fail "hostc: exit $rc"; }
  grep -qF "um: hostc: \$TMPDIR ('$stale') does not exist (No such file or directory); compiling in /tmp instead" \
    "$WORK/h.log" || { cat "$WORK/h.log"; fail "hostc: no warning naming \$TMPDIR and why"; }
  grep -q "private enough\|keeps its generic host code" "$WORK/h.log" && { cat "$WORK/h.log"; fail "hostc: wrong reason"; }
  [ -e "$WORK/gone" ] && fail "the missing \$TMPDIR was made"
  ;;
small_stack) # a 256 KiB stack (ulimit -s 256: some containers and batch systems): runs as with the usual 8 MiB (every
  # thread's stack too, where glibc takes the limit); it crashed at once before (SIGSEGV, no message)
  ( ulimit -s 256 && $T "$UMRUN" "${JAC[@]}" --json "$WORK/j.json" ) > "$WORK/j.log" 2>&1; rc=$?
  [ $rc = 0 ] && grep -q "VALIDATION PASS" "$WORK/j.log" || { cat "$WORK/j.log"; fail "jacobi under ulimit -s 256: exit $rc"; }
  grep -q '"status": "ok"' "$WORK/j.json" || fail "jacobi under ulimit -s 256: no --json"
  ( ulimit -s 256 && $T "$UMRUN" configs/airfoil_small.yaml --quiet --set run.iterations=20 --no-validate \
      --set output.dir="$WORK/air" --set output.hdf5=true --set run.threads=2 ) > "$WORK/a.log" 2>&1; rc=$?
  [ $rc = 0 ] && [ -s "$WORK/air/airfoil.h5" ] && [ -s "$WORK/air/airfoil.xmf" ] \
    || { cat "$WORK/a.log"; fail "airfoil_small with HDF5 output under ulimit -s 256: exit $rc"; }
  ;;
h5_xmf_pair) # NAME.h5 and NAME.xmf all or nothing: when the .xmf cannot be written (here a folder stands at its path),
  # the new .h5 is removed, or the earlier one put back byte for byte; the message names the file and the reason and
  # says which, no C function; no second name (.old.<pid>) nor temporary left. Airfoil (um_app_write_mesh_xdmf) and
  # the apps writing their own pair (um_app_h5_pair_begin/end): <app> <NAME> <first run's --set> <failing run's>
  pair() {
    local app=$1 b=$2 first=$3 again=$4; shift 4
    local d=$WORK/$app log=$WORK/$app run=("$@" --quiet --no-validate --set output.dir="$WORK/$app")
    mkdir -p "$d/$b.xmf"
    $T "$UMRUN" "${run[@]}" $first > "$log.a.log" 2>&1; rc=$?
    [ $rc = 2 ] || { cat "$log.a.log"; fail "$app: an .xmf that cannot be written: exit $rc, expected 2"; }
    grep -q "cannot write '$d/$b.xmf': it is a folder.*; the new $b.h5 was removed (no half pair is left)" \
      "$log.a.log" || { cat "$log.a.log"; fail "$app: no message naming the .xmf, its reason and the removed .h5"; }
    [ -e "$d/$b.h5" ] && fail "$app: a new $b.h5 was left without its .xmf"
    rmdir "$d/$b.xmf"
    $T "$UMRUN" "${run[@]}" $first > "$log.b.log" 2>&1 || { rc=$?; cat "$log.b.log"; fail "$app: exit $rc"; }
    [ -s "$d/$b.h5" ] && [ -s "$d/$b.xmf" ] || { ls -A "$d"; fail "$app: no $b.h5 + $b.xmf"; }
    cp "$d/$b.h5" "$log.earlier.h5"
    rm "$d/$b.xmf"; mkdir "$d/$b.xmf"
    $T "$UMRUN" "${run[@]}" $again > "$log.c.log" 2>&1; rc=$?
    [ $rc = 2 ] && grep -q "'$d/$b.xmf': it is a folder.*; $b.h5 is the earlier one again (the earlier pair stays" \
      "$log.c.log" || { cat "$log.c.log"; fail "$app: exit $rc, or no message saying the earlier $b.h5 is back"; }
    cmp -s "$log.earlier.h5" "$d/$b.h5" || fail "$app: the earlier $b.h5 was not put back byte for byte"
    grep -q "um_xdmf\|um_app_\|um_hdf5" "$log".[ac].log && { cat "$log".[ac].log; fail "$app: a C function named"; }
    find "$WORK" -name "*.old.*" -o -name "*.tmp*" | grep -q . && { find "$WORK"; fail "$app: a second name left"; }
  }
  pair airfoil airfoil "--set run.iterations=5" "--set run.iterations=7" configs/airfoil_small.yaml
  pair miniaero miniaero "--set run.iterations=5" "--set run.iterations=7" configs/miniaero_small.yaml \
    --set output.hdf5=true
  pair bookleaf bookleaf "--set params.time_end=0.05" "--set params.time_end=0.1" configs/bookleaf_sod_sm_lag_small.yaml
  pair siac siac "--set params.n=8" "--set params.n=16" configs/siac_uniform.yaml --set output.hdf5=true
  # Volna's deck writes max_elevation.h5 at steps 0, 10 (and 20): the failing run fails at step 0
  pair volna max_elevation "--set params.max_steps=10" "--set params.max_steps=20" configs/volna_landslide_small.yaml \
    --set mesh.file=apps/volna/tests/data/outputs.vln
  ;;
relative_outdir) # a relative output.dir (the config's) that cannot be made because the current folder is gone: the
  # message names output.dir whole, what it is relative to and why, and what to do; exit 1, nothing made
  src=$PWD
  mkdir -p "$WORK/gone" && cd "$WORK/gone" && rmdir "$WORK/gone" || fail "cannot make a folder that is gone"
  $T "$UMRUN" "$src/configs/airfoil_small.yaml" --quiet --set run.iterations=5 --no-validate > "$WORK/a.log" 2>&1
  rc=$?
  cd "$src" || fail "cannot come back"
  [ $rc = 1 ] || { cat "$WORK/a.log"; fail "exit $rc, expected 1"; }
  grep -qF "output.dir 'out/airfoil_small' is relative to the current folder, which no longer exists" "$WORK/a.log" &&
    grep -qF -- "--set output.dir=PATH" "$WORK/a.log" || { cat "$WORK/a.log"; fail "the message does not say why"; }
  ;;
repeat_stopped) # a --repeat whose sample cannot write its results (past the file size limit, as a full $TMPDIR):
  # exit 2 and the last line is --repeat's, naming the sample and where it could not write, not the sample's PASS
  (ulimit -f 8 && exec $T "$UMRUN" "${JAC[@]}" --set output.dir="$WORK/o" --repeat 3 --json "$WORK/r.json") \
    > "$WORK/a.log" 2>&1
  rc=$?
  [ $rc = 2 ] || { cat "$WORK/a.log"; fail "exit $rc, expected 2"; }
  tail -n 1 "$WORK/a.log" | grep -q "umrun: --repeat: stopped after sample 1 of 3, which ended with exit status 2" &&
    tail -n 1 "$WORK/a.log" | grep -q "set TMPDIR to a folder with room" || { cat "$WORK/a.log"; fail "no closing line"; }
  [ -e "$WORK/r.json" ] && fail "a --json was written"
  ;;
*) fail "unknown check '$check'" ;;
esac
echo "PASS: $check"
