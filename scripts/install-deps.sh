#!/usr/bin/env bash
# Installs the Debian packages um needs to build and test (run as root, or with sudo).
# The CUDA toolkit is not installed here: NVIDIA's packages or the base image provide it.
set -euo pipefail
PACKAGES=(
  build-essential cmake            # C11/C++17 compilers, CMake >= 3.24 (Debian 12: 3.25)
  libhdf5-dev                      # HDF5 (serial) mesh and result files
  libyaml-dev                      # run configs
  libmetis-dev                     # METIS k-way partitioning (reordering)
  libscotch-dev                    # Scotch graph ordering (GPS reordering)
  libopenmpi-dev openmpi-bin       # MPI: distributed memory (mpirun -np P umrun ...)
  libptscotch-dev                  # PT-Scotch: mpi.partitioner ptscotch (parallel k-way)
  libgtest-dev                     # GoogleTest (tests)
  pkg-config                       # the installed package's um.pc (tests/install: the example built with cc)
  man-db                           # man umrun: the test umrun.man_completion renders the generated page
  dpkg-dev                         # cpack -G DEB's dependency list (dpkg-shlibdeps; test package.deb)
  gnuplot-nox                      # umrun --sweep plots
  clang                            # libFuzzer harnesses (fuzz/, scripts/fuzz.sh): clang-14 on Debian 12
  chromium                         # umrun --report: the tests render the HTML page headless
  doxygen                          # the API reference (cmake --build build --target um_docs; test docs.doxygen)
  python3                          # test scripts (SIAC's convergence orders, the options and API checkers)
  python3-jsonschema               # the tests validate the JSON they write against docs/schema (tests/check_schema.py)
  gmsh                             # SIAC's unstructured meshes (scripts/siac-meshes.sh; test siac.meshes_script)
  python3-venv python3-setuptools  # the Python package (python/): pip install ./python into a venv (test python.pytest)
  python3-wheel                    # ... its wheel built from its sdist (test python.dist)
  python3-cffi python3-numpy       # ... its binding of libum.so and its arrays
  python3-pandas python3-h5py python3-xarray python3-matplotlib  # ... its results and fields readers, its plots
  python3-pytest                   # ... its tests (python/tests)
  python3-mpi4py                   # ... the same script on P ranks under mpirun (python/tests/test_mpi.py)
  python3-nbformat python3-nbclient python3-ipykernel  # the lab's notebooks, executed (teaching/run-notebooks.sh)
)
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
missing=()
for p in "${PACKAGES[@]}"; do
  [[ "$p" == \#* ]] && continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
