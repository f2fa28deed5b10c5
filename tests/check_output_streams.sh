#!/usr/bin/env bash
# bash tests/check_output_streams.sh <umrun> <work dir>   (run from the source root)
# --json and --csv may name this process's stdout or stderr (/dev/stdout, /dev/fd/1, /proc/self/fd/1,
# /dev/stderr), whatever the stream is: a file the shell redirected it to (the common
# `umrun ... --json /dev/stdout > run.json`), a pipe. The output is written into the open stream, and with
# stdout named, the stream holds the output alone (umrun's own messages go to stderr).
set -u
UMRUN=$1 WORK=$2
rm -rf "$WORK" && mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
T="timeout -k 5 300"
JAC=(configs/jacobi.yaml --set run.iterations=10 --set validation.reference= --set output.dir=)
REF=validation/jacobi/grid16.ref.yaml
# the JSON must be what umrun --validate reads: a JSON object of a run (anything else is a parse error, exit 1)
json_ok() { # <file> <what>
  grep -q '"app": "jacobi"' "$1" || { head -c 2000 "$1"; fail "$2: no run JSON in the file"; }
  $T "$UMRUN" --validate "$1" $REF > "$WORK/v.log" 2>&1; local rc=$?
  [ $rc = 1 ] && { cat "$WORK/v.log"; head -c 600 "$1"; fail "$2: the file is not JSON alone"; }
  [ "$(head -c 1 "$1")" = "{" ] || { head -c 600 "$1"; fail "$2: the file does not start with the JSON object"; }
}
for p in /dev/stdout /dev/fd/1 /proc/self/fd/1; do
  $T "$UMRUN" "${JAC[@]}" --json $p > "$WORK/run.json" 2> "$WORK/err.log"; rc=$?
  [ $rc = 0 ] || { cat "$WORK/err.log"; fail "--json $p > run.json: exit $rc"; }
  json_ok "$WORK/run.json" "--json $p > run.json"
  grep -q "^running jacobi" "$WORK/err.log" || { cat "$WORK/err.log"; fail "--json $p: umrun's messages did not go to stderr"; }
done
# through a pipe, and appended to a file the shell opened for appending
$T "$UMRUN" "${JAC[@]}" --json /dev/stdout 2> /dev/null | cat > "$WORK/piped.json"
json_ok "$WORK/piped.json" "--json /dev/stdout | cat"
# --quiet prints little, but not nothing: the stream still holds the JSON alone
$T "$UMRUN" "${JAC[@]}" --quiet --json /dev/stdout > "$WORK/quiet.json" 2> /dev/null || fail "--quiet --json /dev/stdout: exit $?"
json_ok "$WORK/quiet.json" "--quiet --json /dev/stdout > quiet.json"
# --csv: the header and the rows alone
$T "$UMRUN" "${JAC[@]}" --csv /dev/stdout > "$WORK/run.csv" 2> "$WORK/err.log" || { cat "$WORK/err.log"; fail "--csv /dev/stdout: exit $?"; }
head -1 "$WORK/run.csv" | grep -q '^variant,app,' || { head -3 "$WORK/run.csv"; fail "--csv /dev/stdout > run.csv: not the CSV header first"; }
[ "$(grep -vc ',' "$WORK/run.csv")" = 0 ] || { cat "$WORK/run.csv"; fail "--csv /dev/stdout > run.csv: lines that are not CSV rows"; }
# /dev/stderr redirected to a file: written there (with umrun's messages: stderr is theirs)
$T "$UMRUN" "${JAC[@]}" --json /dev/stderr > "$WORK/out.log" 2> "$WORK/stderr.json"; rc=$?
[ $rc = 0 ] || { cat "$WORK/stderr.json"; fail "--json /dev/stderr 2> file: exit $rc"; }
grep -q '"app": "jacobi"' "$WORK/stderr.json" || { cat "$WORK/stderr.json"; fail "--json /dev/stderr 2> file: no JSON"; }
ls -A "$WORK" | grep -q '\.tmp\.' && fail "a temporary was left behind"
echo PASS
