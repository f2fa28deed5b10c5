#!/usr/bin/env bash
# CPU ranks side by side (issue 23): for each rank count, the memory bandwidth the ranks get together
# (um_stream_mpi), then each um variant, then (optionally) an external reference command, all in one call
# on one machine, ranks bound to cores. Writes a JSON per run, a log per run and table.md.
#
#   RANKS="1 2 4 8 16" ITER=100 bash bench/mpi_cpu.sh
#
# CASE       umrun arguments of the case (default: Airfoil 2.88M, seq per rank, no output, no reference)
# VARIANTS   names of um variants to run, each a set of --set options (default "fused unfused cells"):
#              fused    the defaults (update + adt_calc in one pass)
#              unfused  params.fused=false (upstream OP2's five loops)
#              cells    params.scheme=cells (one loop over the cells a stage)
#              openmp   run.backend=openmp (threads per rank from OMP_NUM_THREADS)
#              simd_on, simd_off  hostc.compile_simd=on|off (the SIMD ranges always / never, not chosen by timing)
#              other    the defaults with the umrun binary $UM_OTHER (another commit's build, for an A/B)
# REF_CMD    optional: a command run as `$REF_CMD P ITER` that prints "main_loop_s=<seconds>" (and
#            optionally "rms=<value>"): e.g. a reference code built outside the repository; its time goes in
#            the table beside um's
# (two untimed iterations of each variant on one rank first fill the compiled-loop cache)
# BUILD      1 (default): build umrun and um_stream_mpi into $UM_BUILD (scripts/build-offline.sh when .debs
#            exists, else cmake) first; 0: use what is there
# REPEAT     rounds per rank count, each every variant then the reference (default 1; the table shows the fastest)
# BUDGET_S   runs that would start after this many seconds are skipped and listed (default 560)
# WORK       output folder (default out/mpi_cpu); RESULT: a folder to copy table.md and a tarball of the
#            logs into (the device tool brings back few files)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
T0=$(date +%s)
WORK=$(realpath -m "${WORK:-out/mpi_cpu}")
mkdir -p "$WORK/runs"
RANKS=${RANKS:-1 2 4 8 16}
ITER=${ITER:-100}
VARIANTS=${VARIANTS:-fused unfused cells}
REPEAT=${REPEAT:-1}
BUDGET_S=${BUDGET_S:-560}
UM_BUILD=${UM_BUILD:-build}
CASE=${CASE:-apps/airfoil/configs/airfoil_2880k.yaml --set output.hdf5=false --set output.dir= --set validation.reference= --set run.backend=seq --set hostc.compile=wait}
MPI=(mpirun --allow-run-as-root --oversubscribe --bind-to core --map-by core)
left() { echo $((BUDGET_S - ($(date +%s) - T0))); }
finish() {
  tar czf "$WORK/mpi_cpu.tar.gz" -C "$WORK" runs table.md build.log 2>/dev/null
  if [ -n "${RESULT:-}" ]; then
    mkdir -p "$RESULT"
    cp "$WORK/mpi_cpu.tar.gz" "$RESULT/"
    [ -f "$WORK/table.md" ] && cp "$WORK/table.md" "$RESULT/"
  fi
  exit "${1:-0}"
}
variant_args() {
  case $1 in
  fused) echo "" ;;
  unfused) echo "--set params.fused=false" ;;
  cells) echo "--set params.scheme=cells" ;;
  openmp) echo "--set run.backend=openmp" ;;
  simd_on) echo "--set hostc.compile_simd=on" ;;
  simd_off) echo "--set hostc.compile_simd=off" ;;
  other) if [ -x "${UM_OTHER:-}" ]; then echo ""; else echo "bad"; fi ;;
  *) echo "bad" ;;
  esac
}
for v in $VARIANTS; do
  [ "$(variant_args "$v")" != bad ] || { echo "mpi_cpu: unknown variant '$v' (fused, unfused, cells, openmp, simd_on, simd_off; other needs UM_OTHER, an umrun binary)" >&2; exit 2; }
done

if [ "${BUILD:-1}" = 1 ]; then
  if ls .debs/*.deb >/dev/null 2>&1; then
    UM_TARGETS="umrun um_stream_mpi" bash scripts/build-offline.sh "$UM_BUILD" -DUM_ENABLE_CUDA=OFF \
      > "$WORK/build.log" 2>&1
  else
    { cmake -S . -B "$UM_BUILD" -DCMAKE_BUILD_TYPE=Release && cmake --build "$UM_BUILD" -j "$(nproc)" \
        --target umrun um_stream_mpi; } > "$WORK/build.log" 2>&1
  fi || { tail -30 "$WORK/build.log"; finish 1; }
  echo "built in $(($(date +%s) - T0)) s"
fi
U=$UM_BUILD/bin/umrun
S=$UM_BUILD/bin/um_stream_mpi
[ -x "$U" ] || { echo "mpi_cpu: $U missing (BUILD=1 builds it)" >&2; exit 1; }
lscpu | grep -E "^Model name|^CPU\(s\)|^Socket|^Core|^Thread|^L2|^L3|^NUMA" > "$WORK/cpu.txt"
cat "$WORK/cpu.txt"

# the smallest of the times given (none: empty)
fastest() { python3 -c "import sys; a=[float(x) for x in sys.argv[1:] if x]; print(min(a) if a else '')" "$@"; }
# one umrun of variant v: v, iterations, a JSON file (or empty), then the command that runs it (timeout, mpirun ...)
um_run() {
  local v=$1 it=$2 json=$3 bin=$U extra cargs
  shift 3
  read -r -a extra <<< "$(variant_args "$v")"
  read -r -a cargs <<< "$CASE"
  [ "$v" != other ] || bin=$UM_OTHER
  "$@" "$bin" "${cargs[@]}" --set run.iterations="$it" "${extra[@]}" ${json:+--json "$json"}
}
# field of a umrun JSON: file, then a python expression over d
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }

# warm the compiled-loop cache (hostc.compile): two iterations of each variant on one rank (the second runs the
# loops only a later iteration has), not timed
for v in $VARIANTS; do
  um_run "$v" 2 "" timeout 300 > "$WORK/runs/warm_$v.log" 2>&1 ||
    { echo "mpi_cpu: the warm-up run of $v failed:"; tail -20 "$WORK/runs/warm_$v.log"; finish 1; }
done
echo "warm-up done ($(left) s left)"

rows=()
skipped=()
for np in $RANKS; do
  copy=""
  if [ -x "$S" ]; then
    copy=$(timeout 120 "${MPI[@]}" -np "$np" "$S" 1024 5 2>&1 | grep -oE "copy +[0-9.]+" | awk '{print $2}')
  fi
  # rounds alternate: every um variant, then the reference, REPEAT times; the table keeps the fastest of each
  declare -A all=()
  refs=""
  for r in $(seq 1 "$REPEAT"); do
    for v in $VARIANTS; do
      [ "$(left)" -gt 0 ] || { skipped+=("$v@$np#$r"); continue; }
      name=${v}_np${np}_r$r
      um_run "$v" "$ITER" "$WORK/runs/$name.json" timeout 900 "${MPI[@]}" -np "$np" > "$WORK/runs/$name.log" 2>&1
      rc=$?
      t=$(jget "$WORK/runs/$name.json" 'd["run_seconds"]')
      rms=$(jget "$WORK/runs/$name.json" 'd["metrics"].get("rms_final", "")')
      echo "$name: exit $rc run_seconds=$t rms=$rms ($(left) s left)"
      if [ $rc = 0 ] && [ -n "$t" ]; then all[$v]="${all[$v]:-} $t"; fi
    done
    if [ -n "${REF_CMD:-}" ]; then
      [ "$(left)" -gt 0 ] || { skipped+=("ref@$np#$r"); continue; }
      $REF_CMD "$np" "$ITER" > "$WORK/runs/ref_np${np}_r$r.log" 2>&1
      t=$(grep -oE "main_loop_s=[0-9.eE+-]+" "$WORK/runs/ref_np${np}_r$r.log" | tail -1 | cut -d= -f2)
      echo "ref_np${np}_r$r: $(grep -oE "main_loop_s=[^ ]+ rms=[^ ]+" "$WORK/runs/ref_np${np}_r$r.log" | tail -1)"
      refs="$refs $t"
    fi
  done
  row="| $np | ${copy:--} |"
  declare -A best=()
  # (unquoted: each list splits into its times)
  for v in $VARIANTS; do best[$v]=$(fastest ${all[$v]:-}); row="$row ${best[$v]:--} |"; done
  if [ -n "${REF_CMD:-}" ]; then
    ref=$(fastest $refs)
    row="$row ${ref:--} |"
    for v in $VARIANTS; do
      b=${best[$v]}
      if [ -n "$ref" ] && [ -n "$b" ]; then # best / best, and the means' ratio
        row="$row $(python3 -c "import sys; r=[float(x) for x in sys.argv[1].split()]; u=[float(x) for x in sys.argv[2].split()]
print(f'{$ref/$b:.2f}x ({sum(r)/len(r)/(sum(u)/len(u)):.2f}x)')" "$refs" "${all[$v]}") |"
      else
        row="$row - |"
      fi
    done
  fi
  rows+=("$row")
done

{
  echo "ranks bound to cores; $ITER iterations; um: run_seconds (run less set-up), fastest of $REPEAT rounds;"
  echo "ratios: reference / um, fastest against fastest (means against means)"
  echo "case: $CASE"
  echo
  hdr="| ranks | copy GB/s |"
  sep="|---:|---:|"
  for v in $VARIANTS; do hdr="$hdr um $v (s) |"; sep="$sep---:|"; done
  if [ -n "${REF_CMD:-}" ]; then
    hdr="$hdr reference (s) |"
    sep="$sep---:|"
    for v in $VARIANTS; do hdr="$hdr ref / um $v |"; sep="$sep---:|"; done
  fi
  echo "$hdr"
  echo "$sep"
  printf '%s\n' "${rows[@]}"
  [ ${#skipped[@]} = 0 ] || echo "skipped (budget): ${skipped[*]}"
} > "$WORK/table.md"
cat "$WORK/table.md"
finish 0
