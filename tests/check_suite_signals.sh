#!/usr/bin/env bash
# bash tests/check_suite_signals.sh <umrun> <work dir>   (run from the source root)
# SIGINT, SIGTERM or SIGHUP to `umrun --suite` (Ctrl-C) while a case runs: the signal reaches the run
# (its own process group), what is still alive after the grace period is killed, the suite's temporaries
# are removed, and umrun dies of the signal (exit status 128 + the signal in the shell). No run is left
# behind to write into --out afterwards.
set -u
UMRUN=$1 WORK=$2
rm -rf "$WORK" && mkdir -p "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$WORK/hang.yaml" <<YAML
cases:
  - {name: hang, config: configs/jacobi.yaml, tags: [quick], timeout_s: 3000,
     set: [run.iterations=2000000000, mesh.N=64, params.tolerance=0, output.dir=]}
YAML
# the process group led by a child of $1 (the running case: it leads a group of its own), or nothing
child_group() { awk -v p="$1" '$4 == p && $5 == $1 { print $5; exit }' /proc/[0-9]*/stat 2>/dev/null; }
group_alive() { [ -n "$1" ] && kill -0 -- "-$1" 2>/dev/null; }
left=""
cleanup() { [ -n "$left" ] && kill -KILL -- "-$left" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
# (a shell starts background jobs with SIGINT ignored, and umrun keeps an ignored signal ignored, as nohup
# wants; env --default-signal gives it back where coreutils has it)
sigs="TERM HUP"; env --default-signal=INT true 2>/dev/null && sigs="INT TERM HUP"
for sig in $sigs; do
  out="$WORK/out_$sig" tmp="$WORK/tmp_$sig"
  mkdir -p "$tmp"
  DEF=(); [ $sig = INT ] && DEF=(env --default-signal=INT)
  TMPDIR="$tmp" "${DEF[@]}" "$UMRUN" --suite "$WORK/hang.yaml" --out "$out" > "$WORK/s_$sig.log" 2>&1 & pid=$!
  grp=""
  for i in $(seq 600); do  # the case started (its group exists) and made its field folder: it is running
    grp=$(child_group $pid)
    [ -n "$grp" ] && ls "$tmp"/umrun-suite-run-*/ 2>/dev/null | grep -q umrun-fields && break
    sleep 0.05
  done
  [ -n "$grp" ] || { kill -KILL $pid; cat "$WORK/s_$sig.log"; fail "test setup: the suite started no run"; }
  left=$grp
  kill -$sig $pid
  wait $pid 2>/dev/null; rc=$?
  sig_no=$(kill -l $sig)
  [ $rc = $((128 + sig_no)) ] || { cat "$WORK/s_$sig.log"; fail "SIG$sig: umrun exited with status $rc, expected $((128 + sig_no)) (it dies of the signal)"; }
  for i in $(seq 1200); do group_alive $grp || break; sleep 0.05; done
  group_alive $grp && { awk -v g=$grp '$5 == g { print "alive:", $1, $2, $3 }' /proc/[0-9]*/stat; fail "SIG$sig: the running case (process group $grp) outlived umrun --suite"; }
  left=""
  snap() { find "$out" -printf '%p %s %T@\n' | sort; }
  before=$(snap)
  echo "$before" | grep -q '\.tmp\.' && fail "SIG$sig: a temporary was left in --out: $(echo "$before" | grep '\.tmp\.')"
  [ -z "$(ls -A "$tmp")" ] || { ls -lR "$tmp"; fail "SIG$sig: the suite's temporaries were left in TMPDIR"; }
  sleep 2
  [ "$(snap)" = "$before" ] || fail "SIG$sig: something was written into --out after umrun ended"
done
echo PASS
