#!/usr/bin/env bash
# bash tests/check_mpi_inputs.sh <umrun> <mpiexec> <work dir>   (run from the source root)
# Bad mesh input under mpirun on 3 ranks, each rank reading its block (mpi.mesh: blocks): every rank stops with one
# clear message and the same exit status, at once (each run under `timeout`: a hang fails the check, status 124).
# The HDF5 mesh is Airfoil's, written by umrun itself (output.hdf5, OP2's layout); the bad files are made from it:
#   truncated   its first half (HDF5 sees the end of file before the one its superblock records)
#   header      its first 8 bytes overwritten (not an HDF5 file)
#   folder      a folder where the file should be (root reads any file whatever its mode, so chmod 000 is no test)
#   one rank    a path that differs by rank ($OMPI_COMM_WORLD_RANK, or $PMI_RANK under MPICH): rank 0's file is good,
#               the others' are not HDF5 (only they fail, as they read: the ranks agree after reading)
#   missing     a path that exists for rank 0 only (checked before the run)
# A bad deck value in other ranks' blocks only: their message is printed (BookLeaf, below).
# Volna's Gmsh deck read on rank 0 alone (a degenerate triangle) and a block declaration that does not tile the
# set are tested elsewhere (umrun.mpi_bad_mesh, BlocksErrors in um_mpi_tests), and so are sizes that disagree with
# the datasets and a map entry out of range in one rank's rows (BlocksHdf5 and BlocksHdf5Errors there).
set -u
UMRUN=$1 MPIEXEC=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK/good"
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
T="timeout -k 10 120"
CFG=apps/airfoil/configs/airfoil_small.yaml
$T "$UMRUN" $CFG --quiet --set run.backend=seq --set run.iterations=1 --set validation.reference= \
  --set output.dir="$WORK/good" --set output.hdf5=true > "$WORK/good.log" 2>&1 \
  || { cat "$WORK/good.log"; fail "writing the mesh file: exit $?"; }
good=$WORK/good/airfoil.h5
size=$(stat -c %s "$good")
head -c $((size / 2)) "$good" > "$WORK/truncated.h5"
cp "$good" "$WORK/header.h5" && printf 'NOTHDF5!' | dd of="$WORK/header.h5" conv=notrunc status=none
mkdir "$WORK/folder.h5"
cp "$good" "$WORK/rank0.h5" && for r in 1 2; do cp "$WORK/header.h5" "$WORK/rank$r.h5"; done
cp "$good" "$WORK/only0_0.h5"

# run <name> <mesh.file, may name ${RANK}> <expected exit> <regex of the one message>
run() {
  local name=$1 file=$2 want=$3 regex=$4 log=$WORK/$1.log
  $T "$MPIEXEC" --oversubscribe -np 3 sh -c 'RANK=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}; eval "f=$0"; "$1" "$2" --quiet \
    --set run.backend=seq --set validation.reference= --set output.dir= --set mpi.deadline_s=600 \
    --set mesh.file="$f"; echo "rank $RANK exit $?"' "$file" "$UMRUN" $CFG > "$log" 2>&1
  local rc=$?
  [ $rc = 124 ] || [ $rc = 137 ] && { cat "$log"; fail "$name: a hang (timeout)"; }
  local statuses
  statuses=$(grep -o '^rank [0-9] exit [0-9]*' "$log" | sort)
  [ "$(echo "$statuses" | wc -l)" = 3 ] || { cat "$log"; fail "$name: not every rank said how it ended"; }
  [ "$(echo "$statuses" | awk '{print $4}' | sort -u)" = "$want" ] \
    || { cat "$log"; fail "$name: exit statuses $(echo $statuses), expected $want on every rank"; }
  grep -Eq "$regex" "$log" || { cat "$log"; fail "$name: the message does not say why ($regex)"; }
  echo "$name: every rank exits $want: $(grep -Eo "$regex" "$log" | head -1)"
}
run truncated "$WORK/truncated.h5" 2 "cannot open HDF5 file '[^']*truncated.h5' .*truncated file"
run header "$WORK/header.h5" 2 "header.h5' exists but is not an HDF5 file"
run folder "$WORK/folder.h5" 1 "mesh.file '[^']*folder.h5' is not a regular file"
run one_rank "$WORK/rank\${RANK}.h5" 2 "rank 1 of 3 could not read its block of [^:]*: cannot read set 'nodes': '[^']*rank1.h5' exists but is not an HDF5 file"
run missing "$WORK/only0_\${RANK}.h5" 1 "only0_[12].h5' not found"
# bad values in the last rank's block of a good file (h5py: python3-h5py, scripts/install-deps.sh): each rank checks
# its block as the generator's are checked, so 3 ranks refuse what one process refuses, with its element number
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
$PY - "$good" "$WORK" <<'EOF2' || fail "making the files with bad values (python3-h5py)"
import shutil, sys
import h5py
good, work = sys.argv[1], sys.argv[2]
for name, dset, value in (("bound", "p_bound", 7), ("selfedge", "pedge", None), ("nan", "p_x", float("nan"))):
    shutil.copy(good, "%s/%s.h5" % (work, name))
    with h5py.File("%s/%s.h5" % (work, name), "r+") as f:
        d = f[dset]
        row = d[d.shape[0] - 1]
        if dset == "pedge":
            row[1] = row[0]
        else:
            row[0] = value
        d[d.shape[0] - 1] = row
# p_bound as 64-bit integers (numpy's default): read by blocks as on one process; one too large for a C int fails
for name, last in (("i64", None), ("i64big", 2 ** 40)):
    shutil.copy(good, "%s/%s.h5" % (work, name))
    with h5py.File("%s/%s.h5" % (work, name), "r+") as f:
        v = f["p_bound"][...].astype("int64")
        if last is not None:
            v[-1] = last
        del f["p_bound"]
        f.create_dataset("p_bound", data=v)
EOF2
run bound "$WORK/bound.h5" 2 "rank 2 of 3: airfoil failed: mesh: boundary edge [0-9]+ has boundary code 7"
run selfedge "$WORK/selfedge.h5" 2 "rank 2 of 3: airfoil failed: mesh: edge [0-9]+ joins node [0-9]+ to itself"
run i64big "$WORK/i64big.h5" 2 "rank 2 of 3 could not read its block .*value 1099511627776 in row [0-9]+ of dataset 'p_bound'"
cp "$good" "$WORK/good.h5"
for f in good i64; do # the same rows read as from the 32-bit file: the same residual, to the bit
  $T "$MPIEXEC" --oversubscribe -np 3 "$UMRUN" $CFG --quiet --set run.backend=seq --set run.iterations=100 \
    --set run.reproducible=true --set validation.reference= --set output.dir= --set mesh.file="$WORK/$f.h5" \
    > "$WORK/$f.log" 2>&1 || { rc=$?; cat "$WORK/$f.log"; fail "$f.h5 read by blocks: exit $rc"; }
done
r32=$(grep -Eo '^ +100 +[0-9.e+-]+' "$WORK/good.log") r64=$(grep -Eo '^ +100 +[0-9.e+-]+' "$WORK/i64.log")
[ -n "$r32" ] && [ "$r32" = "$r64" ] || fail "p_bound as 64-bit integers: rms '$r64', from 32-bit ones '$r32'"
echo "i64: p_bound as 64-bit integers read by blocks on 3 ranks, the 32-bit file's rms ($r64)"
run nan "$WORK/nan.h5" 2 "rank 2 of 3: airfoil failed: mesh: node [0-9]+ has coordinates \(nan, [^)]*\), which are not finite"
# a bad value of a deck in elements of other ranks' blocks only (BookLeaf's region 2, the right half, on ranks 1 and
# 2 of 3): their message naming the deck's line is printed, not only rank 0's "another rank could not ..."
sed 's/density(2)=0.125/density(2)=-0.125/' validation/bookleaf/decks/sod_sm_lag_small > "$WORK/negrho"
grep -q 'density(2)=-0.125' "$WORK/negrho" || fail "the deck has no density(2)=0.125 to change"
$T "$MPIEXEC" --oversubscribe -np 3 "$UMRUN" configs/bookleaf_sod_sm_lag_small.yaml --quiet --set run.backend=seq \
  --set validation.reference= --set output.dir= --set mesh.file="$WORK/negrho" > "$WORK/negrho.log" 2>&1
rc=$?
msg="rank [12] of 3: bookleaf failed: [^ ]*negrho:46: density: element [0-9]+ \(region 2\) has density -0.125"
[ $rc = 1 ] && grep -Eq "$msg" "$WORK/negrho.log" || { cat "$WORK/negrho.log"; fail "deck value on other ranks: exit $rc"; }
echo "other ranks' deck error: exit 1, $(grep -Eo "$msg" "$WORK/negrho.log" | head -1)"
