#!/usr/bin/env bash
# bash tests/check_output_streams.sh <umrun> <work dir>   (run from the source root)
# --json and --csv (and the tools' --json and --md) may name this process's stdout or stderr (/dev/stdout, /dev/fd/1, /proc/self/fd/1,
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
# the tools: --validate's --json and --compare's --md / --json to stdout hold what the same output to a file holds
$T "$UMRUN" "${JAC[@]}" --json "$WORK/ok.json" > /dev/null 2>&1 || fail "the jacobi run: exit $?"
$T "$UMRUN" --validate "$WORK/ok.json" $REF --json "$WORK/v_file.json" > /dev/null 2>&1
$T "$UMRUN" --validate "$WORK/ok.json" $REF --json /dev/stdout > "$WORK/v_out.json" 2> /dev/null
cmp -s "$WORK/v_file.json" "$WORK/v_out.json" || { head -5 "$WORK/v_out.json"; fail "--validate --json /dev/stdout > file: not the JSON alone"; }
printf 'cases:\n  - {name: ok, config: configs/jacobi.yaml, tags: [quick], set: [run.iterations=10, validation.reference=]}\n' \
  > "$WORK/one.yaml"
$T "$UMRUN" --suite "$WORK/one.yaml" --out "$WORK/suite" > "$WORK/s.log" 2>&1 || { cat "$WORK/s.log"; fail "the suite: exit $?"; }
R="$WORK/suite/results.json"
$T "$UMRUN" --compare "$R" "$R" --md "$WORK/c_file.md" --json "$WORK/c_file.json" > /dev/null 2>&1
$T "$UMRUN" --compare "$R" "$R" --md /dev/stdout > "$WORK/c_out.md" 2> /dev/null
$T "$UMRUN" --compare "$R" "$R" --json /dev/fd/1 > "$WORK/c_out.json" 2> /dev/null
cmp -s "$WORK/c_file.md" "$WORK/c_out.md" || { head -5 "$WORK/c_out.md"; fail "--compare --md /dev/stdout > file: not the markdown alone"; }
cmp -s "$WORK/c_file.json" "$WORK/c_out.json" || { head -5 "$WORK/c_out.json"; fail "--compare --json /dev/fd/1 > file: not the JSON alone"; }
ls -A "$WORK" | grep -q '\.tmp\.' && fail "a temporary was left behind"
echo PASS
