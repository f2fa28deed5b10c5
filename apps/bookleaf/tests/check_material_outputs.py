"""check_material_outputs.py UMRUN MM_CONFIG SM_CONFIG WORK

BookLeaf's outputs of a deck of several materials carry the materials: components.txt (one line per mixed-cell
component: cell, material, volume fraction, volume, mass, density, specific internal energy, pressure) agrees with
the run's own metrics and with itself, bookleaf.xmf shows a `material` cell field and bookleaf.h5 holds it with the
components; a deck of one material writes the files it always wrote (no components.txt, no material field)."""
import json
import os
import re
import shutil
import subprocess
import sys


def h5_names(path):
    """The names of the file's datasets: by h5py where it is installed, else the names stored in the file (each a
    whole name: "material" is not found inside "component_material")."""
    try:
        import h5py
    except ImportError:
        return {m.decode() for m in re.findall(rb"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)\x00", open(path, "rb").read())}
    with h5py.File(path, "r") as f:
        names = []
        f.visit(names.append)
        return set(names)


def run(umrun, cfg, out, *extra):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [umrun, cfg, "--quiet", "--set", "output.dir=" + out, "--set", "run.backend=seq", "--set",
           "run.iterations=20", "--set", "validation.reference=", "--json", out + ".json"] + list(extra)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        sys.exit("FAIL: %s exited %d\n%s" % (" ".join(cmd), p.returncode, p.stdout))
    return json.load(open(out + ".json"))["metrics"]


def fail(msg):
    sys.exit("FAIL: " + msg)


def main():
    umrun, mm, sm, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "mm")
    m = run(umrun, mm, out)
    path = os.path.join(out, "components.txt")
    if not os.path.exists(path):
        fail("no components.txt in " + out)
    rows = [[float(v) for v in line.split()] for line in open(path)]
    if len(rows) != m["components"] or any(len(r) != 8 for r in rows):
        fail("components.txt: %d rows (of 8 columns?), the run has %d components" % (len(rows), m["components"]))
    cells = {}
    for r in rows:
        cell, mat, fr, vol, mass, rho = r[:6]
        if mat not in (1.0, 2.0) or not 0.0 < fr < 1.0 or cell != int(cell) or cell < 1:
            fail("components.txt: bad row %s" % r)
        if abs(rho - mass / vol) > 1e-14 * rho:
            fail("components.txt: density %r is not mass / volume %r" % (rho, mass / vol))
        cells.setdefault(cell, []).append((mat, fr))
    if len(cells) != m["mixed_cells"]:
        fail("components.txt names %d cells, the run has %d mixed cells" % (len(cells), m["mixed_cells"]))
    for cell, cps in cells.items():
        if abs(sum(fr for _, fr in cps) - 1.0) > 1e-14 or len({mat for mat, _ in cps}) != len(cps):
            fail("cell %d: components %s do not tile it with distinct materials" % (cell, cps))
    xmf = open(os.path.join(out, "bookleaf.xmf")).read()
    if 'Name="material"' not in xmf:
        fail("bookleaf.xmf has no material field")
    names = ("material", "component_cell", "component_material", "component_fraction", "component_density",
             "component_energy", "component_pressure")
    for name in names:
        if name not in h5_names(os.path.join(out, "bookleaf.h5")):
            fail("bookleaf.h5 has no %s" % name)
    out1 = os.path.join(work, "sm")
    run(umrun, sm, out1)
    if os.path.exists(os.path.join(out1, "components.txt")) or "material" in open(os.path.join(out1, "bookleaf.xmf")).read():
        fail("a deck of one material wrote components.txt or a material field")
    print("materials in the outputs: %d components of %d mixed cells, material field, HDF5 components" %
          (len(rows), len(cells)))


main()
