"""Airfoil written in Python (um.examples.airfoil: OP2's five loops, the kernels of apps/airfoil/airfoil_kernels.h,
the mesh the C app wrote) gets the C app's rms bit for bit on seq and on OpenMP (2 threads both)."""
import pytest

import um
from um.examples import airfoil

from conftest import metrics


@pytest.mark.parametrize("backend", ["seq", "openmp"])
def test_rms_bit_for_bit(outputs, kernel_source, backend):
    ref = metrics(outputs[backend])
    mesh = airfoil.read_mesh(outputs["dir"] / backend / "airfoil.h5")
    with um.Context(backend=backend, threads=2) as ctx:
        app = airfoil.Airfoil(ctx, mesh, kernel_source)
        rms = app.run(200)
        stats = {s["name"]: s for s in ctx.loop_stats()}
    assert set(rms) == {100, 200}
    for it, value in rms.items():
        assert value == ref["rms_%d" % it], "iteration %d: Python %r, C %r" % (it, value, ref["rms_%d" % it])
    # every loop ran its compiled host code (the only range a kernel from source has)
    for name in airfoil.LOOPS:
        assert stats[name]["calls"] > 0 and stats[name]["compiled_calls"] == stats[name]["calls"]



def test_command_line_prints_the_c_apps_lines(outputs, capsys):
    """python3 -m um.examples.airfoil prints the rms lines as the C app does ("  %5d  %.17e")."""
    from conftest import KERNELS

    airfoil.main([str(outputs["dir"] / "seq" / "airfoil.h5"), KERNELS, "--backend", "seq", "--iterations", "100"])
    line = capsys.readouterr().out.rstrip("\n")
    assert line == " %5d  %.17e" % (100, metrics(outputs["seq"])["rms_100"])
