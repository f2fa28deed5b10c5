#!/usr/bin/env bash
# bash tests/check_runner_safety.sh <check> <umrun> <work dir>   (run from the source root)
# The runner's safety checks end to end, one per subject (ctest umrun.<check>): outputs never replace
# what is not theirs, report escaping, --validate of unfinished runs, inputs that are regular files,
# no leftover files, stalled runs stop, suite matrices bounded.
set -u
check=$1 UMRUN=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }
T="timeout -k 5 120"                                   # nothing here may hang
JAC=(configs/jacobi.yaml --quiet --set run.iterations=10 --set validation.reference= --set output.dir=)
AIR=(--quiet --set run.iterations=2 --set validation.reference=)

case $check in
outputs_not_replaced) # symlinks followed, devices and FIFOs written in place, never replaced
  echo old > "$WORK/real.json"; ln -s real.json "$WORK/link.json"
  $T "$UMRUN" "${JAC[@]}" --json "$WORK/link.json" > "$WORK/a.log" 2>&1 || { cat "$WORK/a.log"; fail "--json through a symlink: exit $?"; }
  [ -L "$WORK/link.json" ] || fail "--json replaced the symlink by a file"
  grep -q '"app": "jacobi"' "$WORK/real.json" || fail "--json did not reach the symlink's target"
  ln -s /dev/null "$WORK/null.json"
  $T "$UMRUN" "${JAC[@]}" --json "$WORK/null.json" --csv "$WORK/null.json" > "$WORK/b.log" 2>&1 || { cat "$WORK/b.log"; fail "--json/--csv to a device: exit $?"; }
  [ -L "$WORK/null.json" ] && [ -c /dev/null ] || fail "a device output was replaced"
  if mknod "$WORK/node.json" c 1 3 2>/dev/null; then   # as root: a device node of our own
    $T "$UMRUN" "${JAC[@]}" --json "$WORK/node.json" > "$WORK/c.log" 2>&1 || { cat "$WORK/c.log"; fail "--json to a device node: exit $?"; }
    [ -c "$WORK/node.json" ] || fail "--json replaced a character device by a regular file"
  fi
  mkfifo "$WORK/pipe.json"                             # no reader: refused at once, no hang
  $T "$UMRUN" "${JAC[@]}" --json "$WORK/pipe.json" > "$WORK/d.log" 2>&1; rc=$?
  [ $rc = 2 ] || { cat "$WORK/d.log"; fail "--json to a FIFO nobody reads: exit $rc, expected 2"; }
  grep -q "FIFO (named pipe) that no process reads" "$WORK/d.log" || { cat "$WORK/d.log"; fail "no reason given"; }
  [ -p "$WORK/pipe.json" ] || fail "the FIFO was replaced"
  cat "$WORK/pipe.json" > "$WORK/piped.json" & rd=$!     # a reader: the JSON goes through the pipe
  $T "$UMRUN" "${JAC[@]}" --json "$WORK/pipe.json" > "$WORK/e.log" 2>&1 || { cat "$WORK/e.log"; fail "--json to a read FIFO: exit $?"; }
  wait $rd; grep -q '"app": "jacobi"' "$WORK/piped.json" || fail "the JSON did not come through the FIFO"
  # HDF5 and XDMF outputs: a symlinked airfoil.h5 gets its target replaced; a device there is refused
  mkdir -p "$WORK/out" "$WORK/elsewhere"; ln -s ../elsewhere/fields.h5 "$WORK/out/airfoil.h5"
  $T "$UMRUN" "${AIR[@]}" --set output.dir="$WORK/out" --set output.hdf5=true > "$WORK/f.log" 2>&1 || { cat "$WORK/f.log"; fail "airfoil.h5 through a symlink: exit $?"; }
  [ -L "$WORK/out/airfoil.h5" ] || fail "airfoil.h5: the symlink was replaced by a file"
  head -c 8 "$WORK/elsewhere/fields.h5" | grep -q HDF || fail "airfoil.h5: the link's target is not the new HDF5 file"
  rm "$WORK/out/airfoil.h5"; ln -s /dev/null "$WORK/out/airfoil.h5"
  $T "$UMRUN" "${AIR[@]}" --set output.dir="$WORK/out" --set output.hdf5=true > "$WORK/g.log" 2>&1; rc=$?
  [ $rc = 2 ] && grep -q "character device, not a regular file" "$WORK/g.log" || { cat "$WORK/g.log"; fail "HDF5 onto a device: exit $rc"; }
  [ -c /dev/null ] || fail "/dev/null is no longer a device"
  ls "$WORK" "$WORK/out" "$WORK/elsewhere" | grep -q '\.tmp' && fail "a temporary was left behind"
  ;;
report_escaping) # an unregistered app is refused before anything runs; names and messages reach
                # summary.md, junit.xml, --compare's markdown and --report's page escaped
  cat > "$WORK/bad_app.yaml" <<YAML
cases:
  - {name: x, config: configs/jacobi.yaml, tags: [quick], set: ["app=<script>alert(1)</script>"]}
YAML
  $T "$UMRUN" --suite "$WORK/bad_app.yaml" --out "$WORK/bad_app" > "$WORK/a.log" 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "case 'x' .*app '<script>alert(1)</script>' is not a registered app; registered: airfoil" "$WORK/a.log" \
    || { cat "$WORK/a.log"; fail "an unregistered app in a suite case: exit $rc, expected 1 and the registered apps"; }
  [ -e "$WORK/bad_app" ] && fail "the suite created its folder before refusing the case"
  $T "$UMRUN" --suite "$WORK/bad_app.yaml" --list --set app=jacobi > "$WORK/a2.log" 2>&1 || fail "--set app=jacobi did not override the case's app"
  cat > "$WORK/markup.yaml" <<YAML
cases:
  - {name: ok, config: configs/jacobi.yaml, tags: [quick], set: [run.iterations=10, validation.reference=]}
  - {name: markup, config: configs/jacobi.yaml, tags: [quick], set: ["mesh.file=<script>alert(1)</script>[x](javascript:alert(2))|.dat"]}
YAML
  $T "$UMRUN" --suite "$WORK/markup.yaml" --out "$WORK/s" > "$WORK/b.log" 2>&1; rc=$?
  [ $rc = 3 ] || { cat "$WORK/b.log"; fail "the suite with a failing case: exit $rc, expected 3"; }
  grep -q "&lt;script&gt;" "$WORK/s/summary.md" || { cat "$WORK/s/summary.md"; fail "summary.md does not carry the message escaped"; }
  if grep -q "<script" "$WORK/s/summary.md" "$WORK/s/junit.xml"; then fail "markup from a config reached summary.md or junit.xml"; fi
  if grep -qE '(^|[^\\])\]\(javascript' "$WORK/s/summary.md"; then fail "a markdown link from a config reached summary.md"; fi
  $T "$UMRUN" --compare "$WORK/s/results.json" "$WORK/s/results.json" --md "$WORK/cmp.md" > "$WORK/c.log" 2>&1
  [ -s "$WORK/cmp.md" ] || { cat "$WORK/c.log"; fail "--compare wrote no markdown"; }
  if grep -q "<script" "$WORK/cmp.md"; then fail "markup reached --compare's markdown"; fi
  $T "$UMRUN" --report "$WORK/r.html" "$WORK/s/results.json" > "$WORK/d.log" 2>&1 || { cat "$WORK/d.log"; fail "--report: exit $?"; }
  if grep -q "<script" "$WORK/r.html" "$WORK/r.md"; then fail "markup reached the report"; fi
  ;;
validate_unfinished_run) # --validate of a run that did not finish never passes
  $T "$UMRUN" configs/jacobi.yaml --quiet --set output.dir= --json "$WORK/ok.json" > "$WORK/a.log" 2>&1 || { cat "$WORK/a.log"; fail "the jacobi run: exit $?"; }
  REF=validation/jacobi/grid16.ref.yaml
  $T "$UMRUN" --validate "$WORK/ok.json" $REF > "$WORK/b.log" 2>&1 || { cat "$WORK/b.log"; fail "--validate of a good run: exit $?"; }
  for st in '"run failed"' '"config error"' '"whatever"'; do
    sed "s/\"status\": \"ok\"/\"status\": $st/" "$WORK/ok.json" > "$WORK/failed.json"
    grep -q "\"status\": $st" "$WORK/failed.json" || fail "test setup: no status in the run's JSON"
    $T "$UMRUN" --validate "$WORK/failed.json" $REF --json "$WORK/v.json" > "$WORK/c.log" 2>&1; rc=$?
    [ $rc = 3 ] || { cat "$WORK/c.log"; fail "--validate of a run with status $st: exit $rc, expected 3"; }
    grep -q "VALIDATION FAILED: the run did not finish (status '${st//\"/}')" "$WORK/c.log" || { cat "$WORK/c.log"; fail "no reason given"; }
    grep -q '"pass": false' "$WORK/v.json" || fail "--json says the failed run passed"
  done
  grep -v '"status"' "$WORK/ok.json" > "$WORK/nostatus.json"
  $T "$UMRUN" --validate "$WORK/nostatus.json" $REF > "$WORK/d.log" 2>&1; rc=$?
  [ $rc = 3 ] || { cat "$WORK/d.log"; fail "--validate of a run JSON without status: exit $rc, expected 3"; }
  ;;
inputs_regular_files) # a FIFO or a device as any input is refused at once (exit 1), before the first loop
  mkfifo "$WORK/in.fifo"
  expect1() { # <what> <regex> <umrun args...>
    local what=$1 re=$2; shift 2
    $T "$UMRUN" "$@" > "$WORK/x.log" 2>&1; local rc=$?
    [ $rc = 1 ] || { cat "$WORK/x.log"; fail "$what: exit $rc, expected 1 (124: it hung)"; }
    grep -q "$re" "$WORK/x.log" || { cat "$WORK/x.log"; fail "$what: the message does not match '$re'"; }
    if grep -q "^running " "$WORK/x.log"; then fail "$what: found only after the run started"; fi
  }
  expect1 "a FIFO as the config" "cannot open config file .*FIFO (named pipe), not a regular file" "$WORK/in.fifo"
  expect1 "a FIFO as the suite" "FIFO (named pipe), not a regular file" --suite "$WORK/in.fifo"
  expect1 "a FIFO as --validate's run" "FIFO (named pipe), not a regular file" --validate "$WORK/in.fifo" validation/jacobi/grid16.ref.yaml
  expect1 "/dev/zero as --validate's run" "character device, not a regular file" --validate /dev/zero validation/jacobi/grid16.ref.yaml
  expect1 "a FIFO as --compare's input" "FIFO (named pipe), not a regular file" --compare "$WORK/in.fifo" "$WORK/in.fifo"
  expect1 "a FIFO as a reference" "FIFO (named pipe), not a regular file" configs/jacobi.yaml --set validation.reference="$WORK/in.fifo"
  expect1 "a FIFO as mesh.file" "mesh.file .* is not a regular file" --set mesh.file="$WORK/in.fifo"
  printf 'app: jacobi\ncase: x\nprovenance: {code: c, command: c}\nfields:\n  - {name: u, file: /dev/zero, rel_tol: 1.0e-6}\n' > "$WORK/zero.ref.yaml"
  expect1 "a reference whose field file is /dev/zero" "cannot read reference file '/dev/zero'.*character device, not a regular file" \
    configs/jacobi.yaml --quiet --set validation.reference="$WORK/zero.ref.yaml"
  ;;
no_leftover_files) # a read-only output.dir is found before the run; killed runs and suite TIMEOUTs
                   # leave no umrun-fields-* folder in TMPDIR
  if [ "$(id -u)" = 0 ]; then RO=/proc/1                 # root writes through permissions: a folder nothing can be made in
  else mkdir "$WORK/ro" && chmod 555 "$WORK/ro" && RO="$WORK/ro"; fi
  $T "$UMRUN" "${JAC[@]}" --set output.dir="$RO" > "$WORK/a.log" 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "output.dir '$RO' is not writable" "$WORK/a.log" || { cat "$WORK/a.log"; fail "a read-only output.dir: exit $rc, expected 1 before the run"; }
  if grep -q "^running " "$WORK/a.log"; then fail "a read-only output.dir was found only after the run started"; fi
  $T "$UMRUN" "${JAC[@]}" --json "$RO/x.json" > "$WORK/b.log" 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "is not writable" "$WORK/b.log" || { cat "$WORK/b.log"; fail "a --json in a read-only folder: exit $rc"; }
  # a reference field file this process cannot open (too few file descriptors): no verdict, the run failed (exit 2),
  # not VALIDATION FAILED (exit 3, numbers out of tolerance); the fewest descriptors with which the run gets that far
  for n in $(seq 3 24); do
    (ulimit -n $n && exec $T "$UMRUN" configs/jacobi.yaml --quiet --set output.dir=) > "$WORK/v.log" 2>&1; rc=$?
    grep -q "the field was not compared" "$WORK/v.log" || continue
    [ $rc = 2 ] && ! grep -q "VALIDATION FAILED" "$WORK/v.log" ||
      { cat "$WORK/v.log"; fail "an unreadable reference field (ulimit -n $n): exit $rc, expected 2 and no verdict"; }
    break
  done
  # a report on standard output that cannot be written (a full disk): said, exit 2 (it was exit 0 with nothing said)
  if [ -w /dev/full ]; then
    $T "$UMRUN" "${JAC[@]}" > /dev/full 2> "$WORK/full.log"; rc=$?
    [ $rc = 2 ] && grep -q "cannot write the run's report on standard output" "$WORK/full.log" ||
      { cat "$WORK/full.log"; fail "a report to /dev/full: exit $rc, expected 2 saying why"; }
  fi
  # a --json path past PATH_MAX: refused with the reason (the message was cut off before it)
  long="$WORK"; while [ ${#long} -lt 4200 ]; do long="$long/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"; done
  $T "$UMRUN" "${JAC[@]}" --json "$long/r.json" > "$WORK/long.log" 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "the path is too long ([0-9]* bytes, at most 4095)" "$WORK/long.log" ||
    { cat "$WORK/long.log"; fail "a --json path past PATH_MAX: exit $rc"; }
  # an output.dir that is a symbolic link to nothing: said before the run, as such (not as a folder that went away)
  ln -s "$WORK/nowhere" "$WORK/dangling"
  $T "$UMRUN" "${JAC[@]}" --set output.dir="$WORK/dangling" > "$WORK/c.log" 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "output.dir '$WORK/dangling' is a symbolic link to '$WORK/nowhere', which does not exist" "$WORK/c.log" ||
    { cat "$WORK/c.log"; fail "an output.dir linking to nothing: exit $rc"; }
  # a run with field validation and no output.dir writes its fields into TMPDIR/umrun-fields-*: killed, it removes them
  LONG=(configs/jacobi.yaml --quiet --set run.iterations=2000000000 --set mesh.N=64 --set params.tolerance=0 --set output.dir=)
  # (SIGINT and SIGQUIT: a shell starts background jobs with them ignored, and umrun keeps an ignored
  # signal ignored, as nohup wants; env --default-signal gives them back where coreutils has it)
  sigs="TERM HUP USR1 USR2 ALRM"; env --default-signal=INT true 2>/dev/null && sigs="$sigs INT"
  for sig in $sigs; do
    DEF=(); [ $sig = INT ] && DEF=(env --default-signal=INT)
    mkdir -p "$WORK/tmp_$sig"
    TMPDIR="$WORK/tmp_$sig" "${DEF[@]}" "$UMRUN" "${LONG[@]}" > "$WORK/k.log" 2>&1 & pid=$!
    for i in $(seq 1200); do ls "$WORK/tmp_$sig" | grep -q umrun-fields && break; sleep 0.05; done
    ls "$WORK/tmp_$sig" | grep -q umrun-fields || { kill -KILL $pid; cat "$WORK/k.log"; fail "test setup: the run made no field folder"; }
    kill -$sig $pid
    for i in $(seq 1200); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
    kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "the run did not end on SIG$sig"; }
    wait $pid
    [ -z "$(ls -A "$WORK/tmp_$sig")" ] || { ls -lR "$WORK/tmp_$sig"; fail "a run killed by SIG$sig left $(ls "$WORK/tmp_$sig")"; }
  done
  # past the process's file size limit (ulimit -f, in KB): the write fails with EFBIG instead of SIGXFSZ killing umrun
  # mid-write; it is reported (exit 2), the old file stays and no temporary is left (the JSON is about 15 KB)
  mkdir -p "$WORK/fsz" && echo old > "$WORK/fsz/r.json"
  (ulimit -f 8 && exec $T "$UMRUN" "${JAC[@]}" --json "$WORK/fsz/r.json") > "$WORK/fsz.log" 2>&1; rc=$?
  [ $rc = 2 ] && grep -q "file size limit (ulimit -f)" "$WORK/fsz.log" ||
    { cat "$WORK/fsz.log"; fail "a --json past the file size limit: exit $rc, expected 2 saying why"; }
  [ "$(cat "$WORK/fsz/r.json")" = old ] && [ "$(ls -A "$WORK/fsz")" = r.json ] ||
    fail "a --json past the file size limit left $(ls -A "$WORK/fsz") (the old file changed or a temporary stayed)"
  # the same for an HDF5 output (airfoil.h5, about 550 KB): HDF5's failed close is reported, and its clean-up at exit
  # does not crash on the file it still holds (SIGSEGV, exit 139, before)
  echo old > "$WORK/fsz/airfoil.h5"
  (ulimit -f 200 && exec $T "$UMRUN" configs/airfoil_small.yaml --quiet --set run.backend=seq --set run.iterations=5 \
    --no-validate --set output.dir="$WORK/fsz") > "$WORK/fsz.log" 2>&1; rc=$?
  [ $rc = 2 ] && grep -q "file size limit (ulimit -f)" "$WORK/fsz.log" ||
    { cat "$WORK/fsz.log"; fail "an HDF5 output past the file size limit: exit $rc, expected 2 saying why"; }
  [ "$(cat "$WORK/fsz/airfoil.h5")" = old ] && [ "$(ls -A "$WORK/fsz" | tr '\n' ' ')" = "airfoil.h5 r.json " ] ||
    fail "an HDF5 output past the file size limit left $(ls -A "$WORK/fsz")"
  # a suite run past its timeout_s: TIMEOUT, and nothing left in TMPDIR
  mkdir -p "$WORK/tmp_suite"
  cat > "$WORK/slow.yaml" <<YAML
cases:
  - {name: slow, config: configs/jacobi.yaml, tags: [quick], timeout_s: 1, set: [run.iterations=2000000000, mesh.N=64, params.tolerance=0]}
YAML
  TMPDIR="$WORK/tmp_suite" $T "$UMRUN" --suite "$WORK/slow.yaml" --out "$WORK/suite" > "$WORK/s.log" 2>&1; rc=$?
  [ $rc = 3 ] && grep -q TIMEOUT "$WORK/s.log" || { cat "$WORK/s.log"; fail "the slow suite case: exit $rc, expected 3 and TIMEOUT"; }
  [ -z "$(ls -A "$WORK/tmp_suite")" ] || { ls -lR "$WORK/tmp_suite"; fail "a suite TIMEOUT left $(ls "$WORK/tmp_suite")"; }
  ;;
stall_stops) # time-stepping runs that cannot reach their end time stop with exit 2, naming step, t and dt
  sed 's/cfl = .45/cfl = 1e-30/' validation/volna/decks/dambreak_1d.vln > "$WORK/stall.vln"
  printf 'app: volna\nmesh: {file: %s}\n' "$WORK/stall.vln" > "$WORK/volna.yaml"
  $T "$UMRUN" "$WORK/volna.yaml" --quiet > "$WORK/a.log" 2>&1; rc=$?
  [ $rc = 2 ] && grep -q "volna: step [0-9]* at t = .* with dt = .*UM_APP_MAX_STEPS" "$WORK/a.log" || { tail "$WORK/a.log"; fail "Volna with cfl = 1e-30: exit $rc, expected 2 (124: it never ended)"; }
  $T "$UMRUN" apps/bookleaf/configs/bookleaf_sod_sm_lag_small.yaml --quiet --set output.dir= --set validation.reference= \
    --set params.dt_min=1e-300 --set params.dt_initial=1e-300 --set params.dt_max=1e-300 > "$WORK/b.log" 2>&1; rc=$?
  [ $rc = 2 ] && grep -q "bookleaf: step [0-9]* at t = 1e-300 with dt = 1e-300" "$WORK/b.log" || { tail "$WORK/b.log"; fail "BookLeaf with dt = 1e-300: exit $rc, expected 2"; }
  ;;
suite_matrix_bounded) # a suite's matrix is counted before it is expanded; past the limit it is refused with the count
  vals=$(seq -s, 1 1000)
  { echo "cases:"; echo "  - name: big"; echo "    config: configs/jacobi.yaml"; echo "    tags: [quick]"
    echo "    matrix: {backend: [$vals], strategy: [$vals], layout: [$vals], reorder: [$vals], block_size: [$vals]}"; } > "$WORK/big.yaml"
  # (14.6 GB in 10 s before, with --list too); 2 GB of address space is plenty now (not under AddressSanitizer,
  # which reserves terabytes of shadow memory: there the timeout alone guards)
  VLIM=2000000; ( ulimit -v $VLIM; "$UMRUN" --version ) > /dev/null 2>&1 || VLIM=unlimited
  for list in --list ""; do
    ( ulimit -v $VLIM; $T "$UMRUN" --suite "$WORK/big.yaml" $list --out "$WORK/out" ) > "$WORK/a.log" 2>&1; rc=$?
    [ $rc = 1 ] && grep -q "the selection makes 1e+15 runs, more than the 5000 a suite may run.*case 'big' 1e+15 (1000 backend x 1000 strategy x 1000 layout x 1000 reorder x 1000 block_size)" "$WORK/a.log" \
      || { cat "$WORK/a.log"; fail "a 1e15-run matrix ${list:-(run)}: exit $rc, expected 1 and the count"; }
  done
  [ -e "$WORK/out" ] && fail "the refused suite created its folder"
  { echo "cases:"; echo "  - name: ok"; echo "    config: configs/jacobi.yaml"; echo "    tags: [quick]"
    echo "    matrix: {block_size: [$(seq -s, 1 50)], layout: [aos, soa]}"; } > "$WORK/ok.yaml"
  $T "$UMRUN" --suite "$WORK/ok.yaml" --list > "$WORK/b.log" 2>&1 && grep -q "^100 runs" "$WORK/b.log" && grep -q "ok\[soa b50\]" "$WORK/b.log" \
    || { cat "$WORK/b.log"; fail "a 100-run matrix is not listed"; }
  ;;
*) fail "unknown check $check" ;;
esac
echo "PASS $check"
