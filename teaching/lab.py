"""What the lab's notebooks share: where the repository, umrun and the app kernels are, Airfoil's mesh made by umrun
(cached), the engine's per-loop statistics as a table, and a check that stops a notebook with a clear message.

The notebooks import it from the folder they are in (teaching/); the package `um` (python/) and its library
libum.so must be importable: docs/python.md says how (or run teaching/run-notebooks.sh, which sets everything)."""
import os
import shutil
import subprocess
import tempfile

import numpy as np
import pandas as pd

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# where the notebooks keep what they make (meshes, umrun's results): UM_TEACHING_WORK (run-notebooks.py sets a fresh
# one), else a folder of this user's under the temporary directory, kept between sessions
WORK = os.environ.get("UM_TEACHING_WORK") or os.path.join(tempfile.gettempdir(), "um-teaching-%d" % os.getuid())
ENV = dict(os.environ, OMP_WAIT_POLICY="passive", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def umrun_path():
    """umrun: UM_UMRUN, else the repository's build/bin/umrun, else the one on PATH."""
    for p in (os.environ.get("UM_UMRUN"), os.path.join(REPO, "build", "bin", "umrun"), shutil.which("umrun")):
        if p and os.access(p, os.X_OK):
            return p
    raise RuntimeError("umrun not found: build it (cmake --build build) or set UM_UMRUN to its path")


def umrun(*args, mpi_ranks=0):
    """Run umrun with these arguments from the repository's root (under mpirun on mpi_ranks ranks if > 0);
    returns its standard output, raises with its messages if it fails."""
    cmd = [umrun_path(), *map(str, args)]
    if mpi_ranks:
        cmd = ["mpirun", "--oversubscribe", "-np", str(mpi_ranks), *cmd]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=ENV, timeout=600)
    if r.returncode != 0:
        raise RuntimeError("%s failed (exit %d):\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
    return r.stdout


def kernels(app="airfoil"):
    """The text of an app's kernel header (apps/<app>/<app>_kernels.h): what um.Kernel compiles."""
    with open(os.path.join(REPO, "apps", app, "%s_kernels.h" % app)) as f:
        return f.read()


def airfoil_mesh(I=20, J=30):
    """Airfoil's NACA0012 C-mesh of I x J cells, written by umrun as an OP2 HDF5 file (made once, then reused):
    returns the file's path. I=20, J=30: 1800 cells, 3530 edges."""
    d = os.path.join(WORK, "airfoil_%dx%d" % (I, J))
    path = os.path.join(d, "airfoil.h5")
    if not os.path.exists(path):
        umrun("configs/airfoil_small.yaml", "--quiet", "--set", "mesh.I=%d" % I, "--set", "mesh.J=%d" % J,
              "--set", "run.iterations=1", "--set", "validation.reference=", "--set", "run.backend=seq",
              "--set", "output.dir=" + d)
    return path


def loop_table(ctx):
    """The context's per-loop statistics (Context.loop_stats) as a DataFrame indexed by loop name."""
    return pd.DataFrame(ctx.loop_stats()).set_index("name")


def check(condition, message):
    """Stop the notebook with `message` unless `condition` holds (what a Solution notebook asserts)."""
    if not condition:
        raise AssertionError(message)
    print("ok:", message)


def todo(what):
    """An exercise cell left to the student: raises NotImplementedError saying what to write."""
    raise NotImplementedError("exercise: " + what)


def distinct(a):
    """How many distinct values an integer array holds."""
    return int(np.unique(np.asarray(a)).size)


def six_apps():
    """The six apps' small cases on OpenMP (teaching/six_apps.yaml, umrun --suite; run once, then reused): returns
    the path of the suite's results.json."""
    out = os.path.join(WORK, "six_apps")
    path = os.path.join(out, "results.json")
    if not os.path.exists(path):
        umrun("--suite", os.path.join(REPO, "teaching", "six_apps.yaml"), "--tags", "all", "--out", out)
    return path
