#!/usr/bin/env python3
"""Executes the lab's notebooks as CI does (ctest teaching.notebooks, through teaching/run-notebooks.sh): every
Solution notebook whole, with its assertions; every Begin notebook up to and including its first exercise cell
(tagged `exercise`), which must raise NotImplementedError (the exercise left to do) while every cell before it
runs cleanly. First checks the notebooks are what teaching/build.py makes from teaching/src.

    python3 teaching/run-notebooks.py [NAME-PATTERN ...]   (e.g. 03 or Solution; default: all)

The notebooks share a fresh folder for what they make (UM_TEACHING_WORK, removed at the end): notebook 7's suite
runs once for its Begin and Solution. Nothing is written into the notebooks; a failing cell's output is printed."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from importlib.util import find_spec

#: what the notebooks and this runner import; without one of them the run is skipped (exit status 77, ctest's skip)
MODULES = ("numpy", "pandas", "h5py", "matplotlib", "cffi", "nbformat", "nbclient", "ipykernel")
_missing = [m for m in MODULES if find_spec(m) is None]
if _missing:
    print("teaching/run-notebooks.py: %s lacks %s: run scripts/install-deps.sh (Debian's python3-* packages); the "
          "notebooks are not run" % (sys.executable, " ".join(_missing)), file=sys.stderr)
    sys.exit(77)

import nbformat  # noqa: E402
from nbclient import NotebookClient  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import build  # noqa: E402


def needs_mpi_missing():
    """Why notebook 5 (3 ranks under mpirun) cannot run here, or None: it needs mpirun and a libum.so with MPI."""
    if not shutil.which("mpirun"):
        return "no mpirun on PATH (Debian: openmpi-bin)"
    r = subprocess.run([sys.executable, "-c", "from um.core import lib; print(lib.um_mpi_built())"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        return "the package um does not load: " + (r.stderr.strip().splitlines() or ["?"])[-1]
    return None if r.stdout.strip() == "1" else "libum.so was built without MPI (-DUM_ENABLE_MPI=ON)"


#: notebooks that need more than the package: name prefix -> a function returning why they cannot run, or None
NEEDS = {"05_": needs_mpi_missing}


def errors(nb):
    """(cell index, cell) of every code cell whose outputs hold an error."""
    return [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"
            and any(o.get("output_type") == "error" for o in c.get("outputs", []))]


def show(cell):
    out = [cell.source, "--- output:"]
    for o in cell.get("outputs", []):
        if o.get("output_type") == "error":
            out.append("%s: %s" % (o["ename"], o["evalue"]))
            out.extend(o.get("traceback", [])[-6:])
        elif "text" in o:
            out.append(o["text"][-3000:])
    return "\n".join(out)


def run(path):
    nb = nbformat.read(path, as_version=4)
    begin = path.endswith("_Begin.ipynb")
    if begin:
        ex = [i for i, c in enumerate(nb.cells) if "exercise" in c.metadata.get("tags", [])]
        if not ex:
            return "a Begin notebook without a cell tagged 'exercise'"
        nb.cells = nb.cells[:ex[0] + 1]
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=begin,
                   resources={"metadata": {"path": HERE}}).execute()
    if begin:
        bad = errors(nb)
        last = len(nb.cells) - 1
        if not bad or bad[0][0] != last:
            return ("the exercise cell did not raise NotImplementedError" if not bad else
                    "cell %d, before the exercise, failed:\n%s" % (bad[0][0], show(bad[0][1])))
        ename = next(o["ename"] for o in nb.cells[last].outputs if o.get("output_type") == "error")
        if ename != "NotImplementedError":
            return "the exercise cell raised %s, not NotImplementedError:\n%s" % (ename, show(nb.cells[last]))
    return None


def main(argv):
    if "-h" in argv or "--help" in argv:
        print(__doc__)
        return 0
    if build.main(["--check"]):
        return 1
    paths = sorted(glob.glob(os.path.join(HERE, "[0-9]*_*.ipynb")))
    if argv:
        paths = [p for p in paths if any(a in os.path.basename(p) for a in argv)]
    if not paths:
        print("run-notebooks: no notebook matches %s" % " ".join(argv), file=sys.stderr)
        return 1
    failed = 0
    work = tempfile.TemporaryDirectory(prefix="um-teaching-")  # what the notebooks make: fresh, removed at the end
    os.environ["UM_TEACHING_WORK"] = work.name
    for p in paths:
        t = time.time()
        missing = next((f() for k, f in NEEDS.items() if os.path.basename(p).startswith(k)), None)
        if missing:
            print("%-40s skipped: %s" % (os.path.basename(p), missing), flush=True)
            continue
        try:
            why = run(p)
        except Exception as e:  # nbclient's CellExecutionError names the cell and its traceback
            why = "%s: %s" % (type(e).__name__, e)
        print("%-40s %s (%.1f s)" % (os.path.basename(p), "ok" if why is None else "FAILED", time.time() - t),
              flush=True)
        if why:
            failed += 1
            why = re.sub(r"\x1b\[[0-9;]*m", "", why)  # the traceback's colours
            print("  " + why.replace("\n", "\n  "), flush=True)
    print("%d notebooks, %d failed" % (len(paths), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
