"""Shared fixtures: the repository, umrun (UM_UMRUN, or the build folder's), and the outputs umrun writes for the
tests to compare against (made once per session, in a temporary folder)."""
import json
import os
import subprocess

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KERNELS = os.path.join(REPO, "apps", "airfoil", "airfoil_kernels.h")
# Airfoil's small mesh, cut down for seconds: the generator's I=20, J=30 C-mesh (1800 cells), 200 iterations
AIRFOIL = ["--set", "mesh.I=20", "--set", "mesh.J=30", "--set", "run.iterations=200", "--set", "params.fused=false",
           "--set", "validation.reference=", "--set", "run.threads=2"]


def umrun_path():
    p = os.path.abspath(os.environ.get("UM_UMRUN") or os.path.join(REPO, "build", "bin", "umrun"))
    if not os.access(p, os.X_OK):
        pytest.fail("umrun not found at %s: build it (cmake --build build) or set UM_UMRUN" % p)
    return p


def umrun(*args, cwd=REPO, check=True):
    r = subprocess.run([umrun_path(), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, OMP_WAIT_POLICY="passive"))
    if check and r.returncode != 0:
        raise AssertionError("umrun %s failed (%d):\n%s\n%s" % (" ".join(map(str, args)), r.returncode, r.stdout,
                                                               r.stderr))
    return r


@pytest.fixture(scope="session")
def outputs(tmp_path_factory):
    """umrun's outputs: Airfoil's run JSON, CSV rows and HDF5/XDMF fields on seq and openmp; a two-case suite's
    results.json; the compare file of that suite against itself."""
    d = tmp_path_factory.mktemp("umrun")
    out = {"dir": d}
    for b in ("seq", "openmp"):
        umrun("configs/airfoil_small.yaml", "--quiet", *AIRFOIL, "--set", "run.backend=" + b,
              "--set", "output.dir=%s/%s" % (d, b), "--json", d / ("%s.json" % b), "--csv", d / "loops.csv")
        out[b] = d / ("%s.json" % b)
    suite = d / "suite.yaml"
    suite.write_text("suite: python tests\ncases:\n  - name: jacobi\n    config: configs/jacobi.yaml\n"
                     "    tags: [py]\n    matrix: {backend: [seq, openmp]}\n")
    umrun("--suite", suite, "--tags", "py", "--out", d / "suite")
    out["suite"] = d / "suite" / "results.json"
    umrun("--compare", out["suite"], out["suite"], "--json", d / "compare.json", check=False)
    out["compare"] = d / "compare.json"
    return out


@pytest.fixture(scope="session")
def kernel_source():
    with open(KERNELS) as f:
        return f.read()


def metrics(path):
    with open(path) as f:
        return json.load(f)["metrics"]
