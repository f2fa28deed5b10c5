#!/usr/bin/env bash
# bash tests/check_restart.sh <umrun> <mpiexec or ""> <work dir> <config> <stop step> [--set k=v ...]  (from the source root)
# Checkpoint and restart, bit for bit (run.reproducible): run A goes straight to the end; runs B stop at a
# checkpoint (checkpoint.stop_after = <stop step>, exit status 4) and a second run continues it (--restart) on
# another rank count and backend, in the same output folder (as a user continues a run: the files written on a
# schedule before the checkpoint are there, the continued run writes the others). Every B must end with A's metrics
# (timings left out) and A's output files (output.hdf5, the field files, the app's outputs), byte for byte, and no
# other file; a restart on another rank count lists the ranks among the settings that differ:
#   1 rank seq      -> 3 ranks openmp       3 ranks openmp -> 1 rank seq       2 ranks seq -> 4 ranks seq
# Without mpiexec (a build without MPI) only 1 rank seq -> 1 rank openmp. UM_RESTART_PAIRS="1:cuda:1:seq ..."
# (ranks:backend:ranks:backend, space-separated) replaces the three (on a GPU: CUDA <-> seq).
set -u
UMRUN=$1 MPIEXEC=$2 WORK=$3 CFG=$4 STOP=$5
shift 5
rm -rf "$WORK" && mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
fail() { echo "FAIL: $*" >&2; exit 1; }
T="timeout -k 10 300"
COMMON=(--quiet --set run.reproducible=true --set validation.reference= --set output.hdf5=true "$@")

# go <name> <ranks> <backend> <expected exit> [more args]: one run, its JSON and outputs under $WORK/<name>
go() {
  local name=$1 np=$2 backend=$3 want=$4
  shift 4
  local launch=()
  [ "$np" -gt 1 ] && launch=("$MPIEXEC" --oversubscribe -np "$np")
  mkdir -p "$WORK/$name"
  $T "${launch[@]}" "$UMRUN" "$CFG" "${COMMON[@]}" --set run.backend="$backend" --set output.dir="$WORK/$name/out" \
    --set checkpoint.dir="$WORK/ck" --json "$WORK/$name/run.json" "$@" > "$WORK/$name/log" 2>&1
  local rc=$?
  [ "$rc" = "$want" ] || { tail -30 "$WORK/$name/log"; fail "$name: exit $rc, expected $want"; }
}

# same <A> <B>: the metrics but timings, and every output file, identical
same() {
  python3 - "$WORK/$1/run.json" "$WORK/$2/run.json" <<'EOF' || fail "$2: metrics differ from $1's"
import json, re, sys
a, b = (json.load(open(p))["metrics"] for p in sys.argv[1:3])
timing = re.compile(r"seconds|ms_per|per_second|speedup")
keys = sorted(k for k in a if not timing.search(k))
bad = [k for k in keys if k not in b or repr(a[k]) != repr(b[k])]
for k in bad:
    print(f"  {k}: {a[k]!r} straight, {b.get(k)!r} restarted")
sys.exit(1 if bad or not keys else 0)
EOF
  local files
  files=$(cd "$WORK/$1/out" && find . -type f | sort)
  [ -n "$files" ] || fail "$1 wrote no output files to compare"
  [ "$files" = "$(cd "$WORK/$2/out" && find . -type f | sort)" ] || fail "$2 wrote other files than $1: $(
    diff <(echo "$files") <(cd "$WORK/$2/out" && find . -type f | sort) | grep '^[<>]' | tr '\n' ' ')"
  for f in $files; do
    cmp -s "$WORK/$1/out/$f" "$WORK/$2/out/$f" || fail "$2: output $f differs from $1's"
  done
  echo "$2: the same $(echo "$files" | wc -l) files and metrics as $1"
}

# pair <stop ranks> <stop backend> <go-on ranks> <go-on backend>
pair() {
  local n="r$1$2-$3$4"
  rm -rf "$WORK/ck"
  go "$n.stop" "$1" "$2" 4 --set checkpoint.stop_after="$STOP"
  grep -q "stopped at step $STOP after writing checkpoint" "$WORK/$n.stop/log" \
    || { tail -20 "$WORK/$n.stop/log"; fail "$n: the stop does not say where it stopped"; }
  mkdir -p "$WORK/$n" # continued in the same output folder
  if [ -d "$WORK/$n.stop/out" ]; then mv "$WORK/$n.stop/out" "$WORK/$n/out"; fi
  go "$n" "$3" "$4" 0 --restart "$WORK/ck"
  grep -q "restart: continuing from step $STOP" "$WORK/$n/log" || { tail -20 "$WORK/$n/log"; fail "$n: no restart"; }
  if [ "$1" != "$3" ]; then # another rank count: listed among the changes
    grep -q "^    ranks: $1 in the checkpoint, $3 now" "$WORK/$n/log" || { tail -20 "$WORK/$n/log"; fail "$n: ranks not listed"; }
  fi
  same A "$n"
}

go A 1 seq 0
if [ -n "${UM_RESTART_PAIRS:-}" ]; then # e.g. "1:cuda:1:seq 1:seq:1:cuda" (the GPU runs)
  for p in $UM_RESTART_PAIRS; do
    IFS=: read -r a b c d <<< "$p"
    pair "$a" "$b" "$c" "$d"
  done
elif [ -n "$MPIEXEC" ]; then
  pair 1 seq 3 openmp
  pair 3 openmp 1 seq
  pair 2 seq 4 seq
else
  pair 1 seq 1 openmp
fi
echo "restart bit for bit: PASS"
