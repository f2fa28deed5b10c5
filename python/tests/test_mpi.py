"""The same Python script on 2 ranks under mpirun, with mpi4py: Airfoil declared by blocks (each rank reads its
rows of the mesh) and distributed by the block partitioner gets the C app's rms bit for bit on 2 ranks (the same
partition), and in reproducible mode the bits of the C app on one process."""
import os
import shutil
import subprocess
import sys

import pytest

import um
import um.core
from conftest import AIRFOIL, KERNELS, REPO, metrics, umrun_path

mpirun = shutil.which("mpirun")
have_mpi4py = subprocess.run([sys.executable, "-c", "import mpi4py"], capture_output=True).returncode == 0
pytestmark = pytest.mark.skipif(not mpirun or not have_mpi4py or not um.core.lib.um_mpi_built(),
                                reason="needs mpirun, mpi4py (python3-mpi4py) and a build with MPI")
# the ranks import the package these tests import (installed, or the source folder pytest runs from)
_PKG = os.path.dirname(os.path.dirname(os.path.abspath(um.__file__)))
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1",
           OMP_WAIT_POLICY="passive", PYTHONPATH=os.pathsep.join(p for p in (_PKG, os.environ.get("PYTHONPATH")) if p))


def on_two_ranks(*cmd):
    r = subprocess.run([mpirun, "--oversubscribe", "-np", "2", *map(str, cmd)], capture_output=True, text=True,
                       env=ENV, cwd=REPO, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def python_lines(mesh, *extra):
    out = on_two_ranks(sys.executable, "-m", "um.examples.airfoil", mesh, KERNELS, "--backend", "seq",
                       "--iterations", "200", *extra)
    return [l for l in out.splitlines() if l.startswith(" ")]


def c_lines(path):
    m = metrics(path)
    return [" %5d  %.17e" % (it, m["rms_%d" % it]) for it in (100, 200)]


def test_two_ranks_by_blocks_bit_for_bit(outputs, tmp_path):
    mesh = outputs["dir"] / "seq" / "airfoil.h5"
    on_two_ranks(umrun_path(), "configs/airfoil_small.yaml", "--quiet", *AIRFOIL, "--set", "mesh.file=%s" % mesh,
                 "--set", "run.backend=seq", "--set", "mpi.partitioner=block", "--set", "mpi.mesh=blocks",
                 "--set", "output.dir=", "--json", tmp_path / "c2.json")
    assert python_lines(mesh) == c_lines(tmp_path / "c2.json")


def test_two_ranks_reproducible_as_one_process(outputs, tmp_path):
    subprocess.run([umrun_path(), "configs/airfoil_small.yaml", "--quiet", *AIRFOIL, "--set", "run.backend=seq",
                    "--set", "run.reproducible=true", "--set", "output.dir=", "--json", tmp_path / "c1.json"],
                   cwd=REPO, env=ENV, check=True, capture_output=True)
    assert python_lines(outputs["dir"] / "seq" / "airfoil.h5", "--reproducible") == c_lines(tmp_path / "c1.json")
