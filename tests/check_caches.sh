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
group_folder) # a group-writable folder above the cache: trusted only while nobody but the user is in its group
  [ "$(id -u)" = 0 ] || { echo "SKIP: needs root to run with another group"; exit 0; }
  ogid=$(getent passwd nobody | cut -d: -f4)  # nobody's own group: one with a member who is not the user
  [ -n "$ogid" ] || { echo "SKIP: no user nobody"; exit 0; }
  mkdir -p "$WORK/team"; chgrp "$ogid" "$WORK/team"; chmod 0775 "$WORK/team"
  # the user's primary group is that group (as alice's is the team mallory is in)
  setpriv --regid="$ogid" --clear-groups $T "$UMRUN" "${JAC[@]}" --set hostc.compile=wait \
    --set run.cache="$WORK/team/cache" > "$WORK/a.log" 2>&1 || { cat "$WORK/a.log"; fail "the run failed: exit $?"; }
  grep -q "the folder '$WORK/team' above it is writable by its group '.*' (mode 0775, not sticky), and others are in" \
    "$WORK/a.log" || { cat "$WORK/a.log"; fail "no warning naming the folder and its group"; }
  [ -z "$(ls -A "$WORK/team/cache")" ] || fail "wrote into the cache under the shared folder: $(ls -A "$WORK/team/cache")"
  # a group of the user's alone (a user-private group) may write the folder above
  upg=$(id -g); me=$(id -un)
  if [ -z "$(getent passwd | awk -F: -v g="$upg" -v me="$me" '$4 == g && $1 != me')" ] &&
     [ -z "$(getent group "$upg" | cut -d: -f4 | tr ',' '\n' | grep -vx "$me")" ]; then
    mkdir -p "$WORK/own"; chgrp "$upg" "$WORK/own"; chmod 0775 "$WORK/own"
    $T "$UMRUN" "${JAC[@]}" --set hostc.compile=wait --set run.cache="$WORK/own/cache" > "$WORK/b.log" 2>&1 \
      || { cat "$WORK/b.log"; fail "the run failed: exit $?"; }
    grep -q "run.cache" "$WORK/b.log" && { cat "$WORK/b.log"; fail "a user-private group's folder was refused"; }
    ls "$WORK/own/cache" | grep -q '^host-.*\.so$' || fail "nothing kept in the cache under a user-private group's folder"
  fi
  ;;
foreign_link) # a symbolic link on the way to the cache that another user owns (and can repoint): not trusted
  [ "$(id -u)" = 0 ] || { echo "SKIP: needs root to give a link to another user"; exit 0; }
  mkdir -p "$WORK/sticky" "$WORK/real"; chmod 1777 "$WORK/sticky"
  ln -s "$WORK/real" "$WORK/sticky/link"; chown -h 65534:65534 "$WORK/sticky/link"
  ln -s "$WORK/sticky/link" "$WORK/mine"  # ours, but it leads through theirs
  for c in "$WORK/sticky/link/cache" "$WORK/mine/cache"; do
    $T "$UMRUN" "${JAC[@]}" --set hostc.compile=wait --set run.cache="$c" > "$WORK/a.log" 2>&1 \
      || { cat "$WORK/a.log"; fail "the run failed: exit $?"; }
    grep -q "run.cache: the symbolic link '$WORK/sticky/link' on the way to it belongs to another user" \
      "$WORK/a.log" || { cat "$WORK/a.log"; fail "$c: no warning naming the link"; }
    [ -z "$(ls -A "$WORK/real/cache" 2>/dev/null)" ] || fail "$c: wrote through the link: $(ls -A "$WORK/real/cache")"
  done
  ln -s "$WORK/real" "$WORK/ours"  # a link of the user's to a folder of the user's: used
  $T "$UMRUN" "${JAC[@]}" --set hostc.compile=wait --set run.cache="$WORK/ours/cache" > "$WORK/b.log" 2>&1 \
    || { cat "$WORK/b.log"; fail "the run failed: exit $?"; }
  grep -q "run.cache" "$WORK/b.log" && { cat "$WORK/b.log"; fail "a link of the user's own was refused"; }
  ls "$WORK/real/cache" | grep -q '^host-.*\.so$' || fail "nothing kept in the cache behind the user's own link"
  ;;
private_tmpdir) # with the cache off, the run's private folder is made only where the cache rules allow: not in a
  # $TMPDIR others can write (then in /tmp)
  mkdir -p "$WORK/open"; chmod 0777 "$WORK/open"
  TMPDIR="$WORK/open" $T "$UMRUN" "${JAC[@]}" --set hostc.compile=wait --set run.cache=off > "$WORK/a.log" 2>&1 \
    || { cat "$WORK/a.log"; fail "the run failed: exit $?"; }
  grep -q "hostc: \$TMPDIR ('$WORK/open') is not private enough to compile in: .*writable by group or others" \
    "$WORK/a.log" || { cat "$WORK/a.log"; fail "no warning naming \$TMPDIR"; }
  grep -q "compiling in /tmp instead" "$WORK/a.log" || { cat "$WORK/a.log"; fail "not compiled in /tmp"; }
  grep -q "keeps its generic host code" "$WORK/a.log" && { cat "$WORK/a.log"; fail "the loops were not compiled"; }
  ;;
compiler_identity) # two compilers of one name (PATH decides): each compiles its own modules, none loads the other's
  mkdir -p "$WORK/a" "$WORK/b" "$WORK/cache"
  cc=$(command -v cc || command -v gcc)
  printf '#!/bin/sh\nexec %s "$@"\n' "$cc" > "$WORK/a/cc"
  printf '#!/bin/sh\n# another compiler, of the same name\nexec %s "$@"\n' "$cc" > "$WORK/b/cc"
  chmod +x "$WORK/a/cc" "$WORK/b/cc"
  for d in a b; do
    PATH="$WORK/$d:$PATH" $T "$UMRUN" "${JAC[@]}" --set hostc.compile=wait --set hostc.cc=cc \
      --set run.cache="$WORK/cache" > "$WORK/$d.log" 2>&1 || { cat "$WORK/$d.log"; fail "the run with $d/cc failed"; }
    eval "n_$d=$(ls "$WORK/cache" | grep -c '^host-.*\.so$')"
  done
  [ "$n_a" -gt 0 ] && [ "$n_b" = $((2 * n_a)) ] \
    || fail "the second compiler of the name 'cc' took the first one's modules ($n_a, then $n_b modules)"
  ;;
full_disk) # a compile on a full disk (hostc.compile: wait fails the loop) names the cause
  [ "$(id -u)" = 0 ] || { echo "SKIP: needs root to mount a small disk"; exit 0; }
  mkdir -p "$WORK/disk"
  mount -t tmpfs -o size=512k tmpfs "$WORK/disk" 2>/dev/null || { echo "SKIP: cannot mount a tmpfs here"; exit 0; }
  trap 'umount "$WORK/disk"' EXIT
  mkdir -m 0700 "$WORK/disk/cache"
  dd if=/dev/zero of="$WORK/disk/fill" bs=1k count=1024 2>/dev/null  # stops when the disk is full
  truncate -s -64K "$WORK/disk/fill"  # room for the sources, not for the compiler's output
  $T "$UMRUN" "${JAC[@]}" --set hostc.compile=wait --set run.cache="$WORK/disk/cache" > "$WORK/a.log" 2>&1; rc=$?
  [ $rc != 0 ] && grep -q "No space left on device" "$WORK/a.log" \
    || { cat "$WORK/a.log"; fail "a compile on a full disk: exit $rc, and the cause not named"; }
  ;;
xdg_relative) # a relative XDG_CACHE_HOME is ignored (the XDG spec): ~/.cache/um, nothing made in the current folder
  mkdir -p "$WORK/home" "$WORK/cwd"
  JACA=("$PWD/${JAC[0]}" "${JAC[@]:1}")
  (cd "$WORK/cwd" && XDG_CACHE_HOME=rel HOME="$WORK/home" $T "$UMRUN" "${JACA[@]}" --set hostc.compile=wait \
    > "$WORK/a.log" 2>&1) || { cat "$WORK/a.log"; fail "the run failed: exit $?"; }
  [ -z "$(ls -A "$WORK/cwd")" ] || fail "made in the current folder: $(ls -A "$WORK/cwd")"
  ls "$WORK/home/.cache/um" 2>/dev/null | grep -q '^host-.*\.so$' || fail "nothing kept in \$HOME/.cache/um"
  ;;
home_missing) # a HOME that does not exist (a service account's /nonexistent) or is relative: no cache, nothing made
  mkdir -p "$WORK/cwd"
  JACA=("$PWD/${JAC[0]}" "${JAC[@]:1}")
  for h in "$WORK/nohome" relhome; do
    (cd "$WORK/cwd" && env -u XDG_CACHE_HOME HOME="$h" $T "$UMRUN" "${JACA[@]}" --set hostc.compile=wait \
      > "$WORK/a.log" 2>&1) || { cat "$WORK/a.log"; fail "HOME=$h: the run failed"; }
    [ ! -e "$WORK/nohome" ] || fail "HOME=$h: the missing home folder was made"
    [ -z "$(ls -A "$WORK/cwd")" ] || fail "HOME=$h: made in the current folder: $(ls -A "$WORK/cwd")"
  done
  ;;
few_fds) # a sealed module that this process cannot load (too few file descriptors) stays in the cache for the next run
  mkdir -m 0700 "$WORK/cache"
  C=(--set hostc.compile=wait --set run.cache="$WORK/cache")
  $T "$UMRUN" "${JAC[@]}" "${C[@]}" > "$WORK/a.log" 2>&1 || { cat "$WORK/a.log"; fail "the first run failed"; }
  before=$(ls "$WORK/cache" | grep '\.so$')
  [ -n "$before" ] || fail "the first run kept no module"
  hit=0
  for n in $(seq 5 24); do # the fewest descriptors with which the run starts and then fails to load a module
    (ulimit -n $n && exec $T "$UMRUN" "${JAC[@]}" "${C[@]}") > "$WORK/b.log" 2>&1
    grep -q "the cached module is not used: cannot load" "$WORK/b.log" && { hit=1; break; }
  done
  [ $hit = 1 ] || { echo "SKIP: no descriptor limit made a module fail to load here"; exit 0; }
  [ "$(ls "$WORK/cache" | grep '\.so$')" = "$before" ] || fail "modules removed (ulimit -n $n): $before -> $(ls "$WORK/cache")"
  ;;
*) fail "unknown check $check" ;;
esac
echo "PASS: $check"
