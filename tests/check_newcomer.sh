#!/usr/bin/env bash
# bash tests/check_newcomer.sh <check> <umrun> <work dir>   (run from the source root)
# What a newcomer's first mistakes get told (ctest umrun.newcomer_<check>): a run stopped by a signal says so,
# two runs sharing an output.dir are warned, a checkout's config typed from another folder is pointed to,
# a results file of another format version is named as such.
set -u
check=$1 UMRUN=$2 WORK=$3
SRC=$PWD
rm -rf "$WORK" && mkdir -p "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }
T="timeout -k 5 120"                                   # nothing here may hang
LONG=(configs/jacobi.yaml --quiet --set run.iterations=2000000000 --set mesh.N=64 --set params.tolerance=0
      --set validation.reference=)
# the run in the background has started its loops (its log says "running")
started() { for i in $(seq 1200); do grep -qs "^running " "$1" && return 0; sleep 0.05; done; return 1; }

case $check in
interrupted) # SIGTERM (and SIGINT where env can give it back to a background job): one line says what happened
  sigs="TERM"; env --default-signal=INT true 2>/dev/null && sigs="TERM INT"
  for sig in $sigs; do
    DEF=(); [ $sig = INT ] && DEF=(env --default-signal=INT)
    "${DEF[@]}" "$UMRUN" "${LONG[@]}" --set output.dir="$WORK/out_$sig" --json "$WORK/run_$sig.json" > "$WORK/$sig.log" 2>&1 & pid=$!
    started "$WORK/$sig.log" || { kill -KILL $pid; cat "$WORK/$sig.log"; fail "test setup: the run did not start"; }
    kill -$sig $pid
    for i in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
    kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "the run did not end on SIG$sig"; }
    wait $pid; rc=$?
    want=$((128 + $(kill -l $sig)))
    [ $rc = $want ] || { cat "$WORK/$sig.log"; fail "SIG$sig: exit $rc, expected $want (the process dies of the signal)"; }
    grep -q "^umrun: stopped by SIG$sig.*: the run did not finish; the files it had not completed were removed" "$WORK/$sig.log" \
      || { cat "$WORK/$sig.log"; fail "SIG$sig: the run did not say it was stopped"; }
    [ "$(grep -c "stopped by" "$WORK/$sig.log")" = 1 ] || fail "SIG$sig: said more than once"
    [ -e "$WORK/run_$sig.json" ] && fail "SIG$sig: a --json was written for an unfinished run"
    [ -z "$(ls -A "$WORK/out_$sig")" ] || { ls -la "$WORK/out_$sig"; fail "SIG$sig left files in output.dir"; }
  done
  ;;
shared_output_dir) # a second run writing the output.dir of a run still running is warned; others are not
  "$UMRUN" "${LONG[@]}" --set output.dir="$WORK/out" > "$WORK/a.log" 2>&1 & pid=$!
  started "$WORK/a.log" || { kill -KILL $pid; cat "$WORK/a.log"; fail "test setup: the run did not start"; }
  $T "$UMRUN" configs/jacobi.yaml --quiet --set output.dir="$WORK/out" > "$WORK/b.log" 2>&1; rb=$?
  $T "$UMRUN" configs/jacobi.yaml --quiet --set output.dir="$WORK/other" > "$WORK/c.log" 2>&1; rc=$?
  kill -TERM $pid; wait $pid
  $T "$UMRUN" configs/jacobi.yaml --quiet --set output.dir="$WORK/out" > "$WORK/d.log" 2>&1; rd=$?
  [ $rb = 0 ] && [ $rc = 0 ] && [ $rd = 0 ] || fail "the runs beside it: exit $rb, $rc, $rd, expected 0"
  grep -q "warning: output.dir '$WORK/out' is the output.dir of another umrun running now.*--set output.dir=" "$WORK/b.log" \
    || { cat "$WORK/b.log"; fail "the second run into the same output.dir was not warned"; }
  grep -q "another umrun" "$WORK/c.log" && { cat "$WORK/c.log"; fail "a run into another output.dir was warned"; }
  grep -q "another umrun" "$WORK/d.log" && { cat "$WORK/d.log"; fail "a run after the first ended was warned"; }
  ls "$WORK/out"/jacobi_u.txt > /dev/null || fail "the second run wrote no output"
  [ -z "$(ls -A "$WORK/other" | grep -v '^jacobi_u.txt$')" ] || fail "the claim left a file in output.dir: $(ls -A "$WORK/other")"
  ;;
config_elsewhere) # configs/x.yaml typed from another folder: exit 1, and the data folder's copy named
  cd "$WORK"
  $T "$UMRUN" configs/jacobi.yaml --quiet > a.log 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "cannot open config file 'configs/jacobi.yaml'.*; um's data folder has it: .*/configs/jacobi.yaml" a.log \
    || { cat a.log; fail "configs/jacobi.yaml from another folder: exit $rc, expected 1 and the data folder's path"; }
  hint=$(sed -n "s/.*um's data folder has it: //p" a.log)
  $T "$UMRUN" "$hint" --quiet --set output.dir= > b.log 2>&1 || { cat b.log; fail "the path given ($hint) does not run"; }
  $T "$UMRUN" configs/jacobi_typo.yaml --quiet > c.log 2>&1; rc=$?
  [ $rc = 1 ] && ! grep -q "data folder" c.log || { cat c.log; fail "a misspelt config: exit $rc, or a data folder named"; }
  ;;
results_format) # --compare / --report of a results file in another format version: named, exit 1
  A=docs/report/compare/a/results.json
  sed 's/"um-suite-results-1"/"um-suite-results-2"/' $A > "$WORK/v2.json"
  $T "$UMRUN" --compare "$WORK/v2.json" $A > "$WORK/a.log" 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "umrun --compare: '$WORK/v2.json' is a results file of umrun --suite in format \"um-suite-results-2\", written by another version of um; this umrun reads \"um-suite-results-1\"" "$WORK/a.log" \
    || { cat "$WORK/a.log"; fail "--compare of format 2: exit $rc"; }
  $T "$UMRUN" --report "$WORK/r.html" "$WORK/v2.json" > "$WORK/b.log" 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "umrun --report: .* in format \"um-suite-results-2\", written by another version of um" "$WORK/b.log" \
    || { cat "$WORK/b.log"; fail "--report of format 2: exit $rc"; }
  echo '{"x": 1}' > "$WORK/other.json"
  $T "$UMRUN" --compare "$WORK/other.json" $A > "$WORK/c.log" 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "is not a results file of umrun --suite (no \"format\": \"um-suite-results-1\") nor a run's --json" "$WORK/c.log" \
    || { cat "$WORK/c.log"; fail "--compare of another JSON: exit $rc"; }
  ;;
*) fail "unknown check $check" ;;
esac
cd "$SRC"
echo "PASS $check"
