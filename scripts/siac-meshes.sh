#!/usr/bin/env bash
# Unstructured Delaunay triangle meshes of the unit square for SIAC, like King & Kirby's (SC'13):
#   low variance   near-uniform element size (one characteristic length)
#   high variance  element size from a smooth, periodic size field,
#                  size(x, y) = lc (1 + 2 sin^2(pi x) sin^2(pi y)): 3x larger in the middle than along the sides
#                  (a ratio of 10 made the neighbourhoods of the small cells 100x those of the large: h is
#                  the largest cell's, so the stencil covers ~(3k+1)^2 r^2 small cells; 3 keeps a 64k mesh at k = 3 in memory)
# written as Gmsh ASCII format 2 (-format msh22), siac_<low|high>_<N>k.msh, for N in the sizes given.
#
#   scripts/siac-meshes.sh [-o DIR] [-k low|high|both] [SIZE...]
#     SIZE   target triangle counts in thousands (default: the paper's 4 16 64 256 1024); "tiny" = ~500 triangles
#     -o DIR output folder (default build/siac-meshes)
#     -k     which kinds (default both)
#
# The characteristic length is calibrated: a small mesh gives the constant c = triangles x lc^2 of each kind,
# lc = sqrt(c / target) is tried and corrected (at most 3 tries) until the count is within 5% of the target.
# Each file is written under a temporary name and renamed when complete; each line printed says the file,
# its triangles (and the target), its nodes, its size and the seconds it took.
set -euo pipefail

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }
out=build/siac-meshes
kinds="low high"
while getopts "o:k:h" opt; do
  case $opt in
    o) out=$OPTARG ;;
    k) case $OPTARG in low|high) kinds=$OPTARG ;; both) kinds="low high" ;;
         *) echo "siac-meshes: -k $OPTARG: take low, high or both" >&2; exit 2 ;; esac ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(4 16 64 256 1024)
for s in "${sizes[@]}"; do
  [[ $s == tiny || $s =~ ^[1-9][0-9]*$ ]] || { echo "siac-meshes: size '$s': a whole number of thousands (4, 16, ...) or 'tiny'" >&2; exit 2; }
done
if ! command -v gmsh > /dev/null 2>&1; then
  echo "siac-meshes: gmsh not found: install the Debian package 'gmsh' (apt-get install -y gmsh) and run again" >&2
  exit 1
fi
mkdir -p "$out" || { echo "siac-meshes: cannot make the output folder '$out'" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/siac-meshes.XXXXXX")
tmp=
trap 'rm -rf "$work"; [ -z "$tmp" ] || rm -f "$tmp"' EXIT

# the geometry: the unit square; lc and high (0/1) set on the command line
cat > "$work/square.geo" <<'EOF'
DefineConstant[ lc = 0.05, high = 0 ];
Point(1) = {0, 0, 0, lc}; Point(2) = {1, 0, 0, lc}; Point(3) = {1, 1, 0, lc}; Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Surface(1) = {1};
Mesh.Algorithm = 5; // Delaunay
If (high)
  Field[1] = MathEval;
  Field[1].F = Sprintf("%.17g * (1 + 2 * (Sin(Pi * x) * Sin(Pi * y))^2)", lc);
  Background Field = 1;
  Mesh.MeshSizeExtendFromBoundary = 0;
  Mesh.MeshSizeFromPoints = 0;
  Mesh.MeshSizeFromCurvature = 0;
EndIf
EOF

# mesh KIND LC FILE: writes FILE (format 2, ASCII), prints its triangle count
mesh() {
  local high=0
  [ "$1" = high ] && high=1
  if ! gmsh -2 "$work/square.geo" -setnumber lc "$2" -setnumber high $high -format msh22 -o "$3" -v 1 \
       > "$work/gmsh.log" 2>&1; then
    echo "siac-meshes: gmsh failed for the $1 variance mesh (lc $2):" >&2
    cat "$work/gmsh.log" >&2
    exit 1
  fi
  triangles "$3"
}
# the triangles (Gmsh type 2) of a format 2 file
triangles() { awk '/^\$Elements/{e=1; getline; next} /^\$EndElements/{e=0} e && $2 == 2 {n++} END{print n+0}' "$1"; }
nodes() { awk '/^\$Nodes/{getline; print; exit}' "$1"; }

declare -A const
for kind in $kinds; do
  # the constant c = triangles x lc^2 from a mesh of ~20k triangles (boundary effects small, quick)
  lc0=$([ "$kind" = low ] && echo 0.0108 || echo 0.0048)
  n0=$(mesh "$kind" "$lc0" "$work/calib.msh")
  const[$kind]=$(awk -v n="$n0" -v lc="$lc0" 'BEGIN{printf "%.10g", n * lc * lc}')
done

for kind in $kinds; do
  for s in "${sizes[@]}"; do
    if [ "$s" = tiny ]; then target=500; name=siac_${kind}_tiny.msh; else target=$((s * 1000)); name=siac_${kind}_${s}k.msh; fi
    start=$(date +%s.%N)
    lc=$(awk -v c="${const[$kind]}" -v t="$target" 'BEGIN{printf "%.10g", sqrt(c / t)}')
    tmp="$out/.$name.tmp.$$"
    for try in 1 2 3; do
      n=$(mesh "$kind" "$lc" "$tmp")
      ok=$(awk -v n="$n" -v t="$target" 'BEGIN{print (n > 0.95 * t && n < 1.05 * t) ? 1 : 0}')
      [ "$ok" = 1 ] && break
      lc=$(awk -v lc="$lc" -v n="$n" -v t="$target" 'BEGIN{printf "%.10g", lc * sqrt(n / t)}')
    done
    mv -f "$tmp" "$out/$name"
    tmp=
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}')
    bytes=$(wc -c < "$out/$name")
    pct=$(awk -v n="$n" -v t="$target" 'BEGIN{printf "%+.1f", 100 * (n - t) / t}')
    echo "$out/$name: $n triangles (target $target, $pct%), $(nodes "$out/$name") nodes, $bytes bytes," \
         "lc $lc, $secs s ($try tries)"
  done
done
