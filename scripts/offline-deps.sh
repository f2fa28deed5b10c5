#!/usr/bin/env bash
# Downloads, on a machine with package access, the Debian packages that an
# offline GPU host lacks (libyaml, METIS, Scotch, GoogleTest) into .debs/
# (git-ignored). scripts/build-offline.sh unpacks them there and builds.
#
#   bash scripts/offline-deps.sh [DIR]        (default: .debs)
#
# The packages come from this machine's apt sources (Debian 12 here); their
# libraries need only glibc, zlib, bzip2 and xz at run time, which every
# Debian or Ubuntu host has, so they also serve e.g. an Ubuntu 24.04 GPU host.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-.debs}
PACKAGES=(
  libyaml-dev libyaml-0-2        # run configs
  libmetis-dev libmetis5         # METIS
  libscotch-dev libscotch-7.0    # Scotch
  libptscotch-dev libptscotch-7.0  # PT-Scotch (mpi.partitioner ptscotch; links the host's libmpi.so.40)
  libgtest-dev                   # GoogleTest (static libraries and headers)
)
mkdir -p "$DIR"
cd "$DIR"
if ! apt-get download "${PACKAGES[@]}"; then
  echo "offline-deps: apt-get download failed; run 'apt-get update' first (as root), then try again" >&2
  exit 1
fi
echo "offline-deps: $(ls -1 *.deb | wc -l) packages in $(pwd):"
ls -1 *.deb
