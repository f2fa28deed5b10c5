#!/usr/bin/env bash
# bash tests/check_caches.sh <check> <umrun> <work dir>   (run from the source root)
# The code caches as a trust boundary, seen from the runner (docs/reliability.md, "The caches"); the engine's
# own checks of modules, links and locks are in tests/test_hostc.cpp (HostCompileCache.*).
set -u
check=$1 UMRUN=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }
T="timeout -k 5 120"
JAC=(configs/jacobi.yaml --quiet --set run.backend=seq --set run.iterations=10 --set validation.reference=
     --set output.dir=)
# A compiler that takes its time: makes a temporary in $TMPDIR as cc does, then sleeps until killed.
slow_cc() {
  printf '#!/bin/sh\n: > "${TMPDIR:-/tmp}/ccSLOW$$.s"\nexec sleep 60\n' > "$WORK/slow-cc"
  chmod +x "$WORK/slow-cc"
}

case $check in
temporaries) # a run that ends while its background compile is in flight leaves nothing in $TMPDIR
  slow_cc; mkdir -p "$WORK/tmp" "$WORK/cache"
  TMPDIR="$WORK/tmp" $T "$UMRUN" "${JAC[@]}" --set hostc.compile=auto --set hostc.compile_after=0 \
    --set run.cache="$WORK/cache" --set hostc.cc="$WORK/slow-cc" > "$WORK/a.log" 2>&1 \
    || { cat "$WORK/a.log"; fail "the run failed: exit $?"; }
  left=$(ls -A "$WORK/tmp")
  [ -z "$left" ] || fail "left in \$TMPDIR: $left"
  left=$(ls -A "$WORK/cache" | grep -v '^host-.*\.so$')
  [ -z "$left" ] || fail "left in the cache: $left"
  ;;
signal) # SIGTERM during a compile (hostc.compile: wait) leaves no lock, work folder or temporary behind
  slow_cc; mkdir -p "$WORK/tmp" "$WORK/cache"
  TMPDIR="$WORK/tmp" "$UMRUN" "${JAC[@]}" --set hostc.compile=wait --set run.cache="$WORK/cache" \
    --set hostc.cc="$WORK/slow-cc" > "$WORK/a.log" 2>&1 & pid=$!
  for _ in $(seq 600); do ls "$WORK/cache" | grep -q '\.lock$' && break; sleep 0.1; done
  ls "$WORK/cache" | grep -q '\.lock$' || { kill -KILL $pid; cat "$WORK/a.log"; fail "no compile lock appeared"; }
  kill -TERM $pid; wait $pid; rc=$?
  [ $rc = 143 ] || { cat "$WORK/a.log"; fail "umrun did not die of SIGTERM: exit $rc"; }
  sleep 0.5
  left=$(ls -A "$WORK/cache")
  [ -z "$left" ] || fail "left in the cache after SIGTERM: $left"
  ;;
long_home) # a cache path too long to build is refused with a warning, never truncated into a sibling folder
  long="$WORK/h"; while [ ${#long} -lt 1000 ]; do long="$long/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"; done
  mkdir -p "$long"
  before=$(find "$WORK" -type d | sort)
  env -u XDG_CACHE_HOME HOME="$long" $T "$UMRUN" "${JAC[@]}" --set hostc.compile=wait > "$WORK/a.log" 2>&1 \
    || { cat "$WORK/a.log"; fail "the run failed: exit $?"; }
  grep -q "run.cache: the cache folder's path is longer than" "$WORK/a.log" || { cat "$WORK/a.log"; fail "no warning"; }
  after=$(find "$WORK" -type d | sort)
  [ "$before" = "$after" ] || fail "folders made under a truncated path: $(comm -13 <(echo "$before") <(echo "$after"))"
  ;;
untrusted) # a cache folder others can write: warned about, not used; the run's results are the same
  mkdir -p "$WORK/shared"; chmod 0777 "$WORK/shared"
  $T "$UMRUN" "${JAC[@]}" --set hostc.compile=wait --set run.cache="$WORK/shared" > "$WORK/a.log" 2>&1 \
    || { cat "$WORK/a.log"; fail "the run failed: exit $?"; }
  grep -q "run.cache: the cache folder '$WORK/shared' is writable by group or others (mode 0777)" "$WORK/a.log" \
    || { cat "$WORK/a.log"; fail "no warning naming the folder"; }
  [ -z "$(ls -A "$WORK/shared")" ] || fail "wrote into the untrusted folder: $(ls -A "$WORK/shared")"
  ;;
compiler) # hostc.cc / hostc.cflags (earlier run.cc / run.cflags) name a program: only the command line may set
  # them, or --allow-compiler
  printf 'app: jacobi\nhostc: {cc: /bin/true}\nrun: {iterations: 5}\nvalidation: {reference: ""}\n' > "$WORK/hcc.yaml"
  $T "$UMRUN" "$WORK/hcc.yaml" --quiet > "$WORK/g.log" 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "hostc.cc is set by file .*hcc.yaml:2.*only the command line may name them" \
    "$WORK/g.log" || { cat "$WORK/g.log"; fail "hostc.cc from a config file: exit $rc, expected 1 and why"; }
  printf 'app: jacobi\nrun: {cc: /bin/true, iterations: 5}\nvalidation: {reference: ""}\n' > "$WORK/cc.yaml"
  $T "$UMRUN" "$WORK/cc.yaml" --quiet > "$WORK/a.log" 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "run.cc is set by file .*cc.yaml:2.*only the command line may name them.*--allow-compiler" \
    "$WORK/a.log" || { cat "$WORK/a.log"; fail "run.cc from a config file: exit $rc, expected 1 and why"; }
  UM_OPTIONS="hostc.cflags=-O0" $T "$UMRUN" "${JAC[@]}" > "$WORK/b.log" 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "hostc.cflags is set by UM_OPTIONS" "$WORK/b.log" \
    || { cat "$WORK/b.log"; fail "hostc.cflags from UM_OPTIONS: exit $rc, expected 1"; }
  printf 'app: jacobi\nrun: {iterations: 5}\nvalidation: {reference: ""}\nsweep: ["hostc.cflags=-O0,-O1"]\n' \
    > "$WORK/sweep.yaml"
  $T "$UMRUN" "$WORK/sweep.yaml" --quiet --sweep-out "$WORK/sw" > "$WORK/c.log" 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "hostc.cflags=-O0,-O1': the compiler and its flags are a program" "$WORK/c.log" \
    || { cat "$WORK/c.log"; fail "hostc.cflags in a config's sweep: exit $rc, expected 1"; }
  [ -e "$WORK/sw" ] && fail "the refused sweep made its folder"
  printf 'cases:\n  - {name: x, config: configs/jacobi.yaml, tags: [quick], set: ["run.cc=/bin/true"]}\n' \
    > "$WORK/suite.yaml"
  $T "$UMRUN" --suite "$WORK/suite.yaml" --out "$WORK/s" > "$WORK/f.log" 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "cases.0.set (.*suite.yaml:2.*): 'run.cc=/bin/true' names the compiler" "$WORK/f.log" \
    || { cat "$WORK/f.log"; fail "run.cc in a suite case's set: exit $rc, expected 1"; }
  [ -e "$WORK/s" ] && fail "the refused suite made its folder"
  $T "$UMRUN" "${JAC[@]}" --set hostc.cflags=-O1 > "$WORK/d.log" 2>&1 || { cat "$WORK/d.log"; fail "--set hostc.cflags"; }
  $T "$UMRUN" "${JAC[@]}" --set run.cflags=-O1 > "$WORK/h.log" 2>&1 || { cat "$WORK/h.log"; fail "--set run.cflags"; }
  UM_OPTIONS="hostc.cflags=-O1" $T "$UMRUN" "${JAC[@]}" --allow-compiler > "$WORK/e.log" 2>&1 \
    || { cat "$WORK/e.log"; fail "--allow-compiler did not accept UM_OPTIONS' hostc.cflags"; }
  ;;
*) fail "unknown check $check" ;;
esac
echo "PASS: $check"
