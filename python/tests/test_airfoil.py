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


def _cuda():
    ok, why = um.backend_available("cuda")
    return pytest.mark.skipif(not ok, reason="no usable cuda backend here: " + why)


def _rel_tol(metric):
    """The app's tolerance of a metric, from validation/airfoil/small.ref.yaml (Airfoil's small case)."""
    import os
    import re

    from conftest import REPO

    with open(os.path.join(REPO, "validation", "airfoil", "small.ref.yaml")) as f:
        return float(re.search(r"name: %s, value: [^,]+, rel_tol: ([0-9.eE+-]+)" % metric, f.read()).group(1))


@_cuda()
def test_cuda_within_the_apps_tolerance(outputs, kernel_source):
    ref = metrics(outputs["seq"])
    with um.Context(backend="cuda") as ctx:
        rms = airfoil.Airfoil(ctx, airfoil.read_mesh(outputs["dir"] / "seq" / "airfoil.h5"), kernel_source).run(200)
    for it, value in rms.items():
        assert abs(value - ref["rms_%d" % it]) <= _rel_tol("rms_%d" % it) * abs(ref["rms_%d" % it])


@_cuda()
def test_cuda_reproducible_bit_for_bit(outputs, kernel_source, tmp_path):
    from conftest import AIRFOIL, umrun

    umrun("configs/airfoil_small.yaml", "--quiet", *AIRFOIL, "--set", "run.backend=cuda", "--set",
          "run.reproducible=true", "--set", "output.dir=", "--json", tmp_path / "cuda.json")
    ref = metrics(tmp_path / "cuda.json")
    with um.Context(backend="cuda", reproducible=True) as ctx:
        rms = airfoil.Airfoil(ctx, airfoil.read_mesh(outputs["dir"] / "seq" / "airfoil.h5"), kernel_source).run(200)
    for it, value in rms.items():
        assert value == ref["rms_%d" % it], "iteration %d: Python %r, C %r" % (it, value, ref["rms_%d" % it])


def test_reproducible_mode_bit_for_bit(outputs, kernel_source, tmp_path):
    """run.reproducible from Python (exact sums, gathered increments) gives the C app's bits in that mode, on
    OpenMP as on seq."""
    from conftest import AIRFOIL, umrun

    umrun("configs/airfoil_small.yaml", "--quiet", *AIRFOIL, "--set", "run.backend=seq", "--set",
          "run.reproducible=true", "--set", "output.dir=", "--json", tmp_path / "repro.json")
    ref = metrics(tmp_path / "repro.json")
    for backend in ("seq", "openmp"):
        with um.Context(backend=backend, threads=2, reproducible=True) as ctx:
            app = airfoil.Airfoil(ctx, airfoil.read_mesh(outputs["dir"] / "seq" / "airfoil.h5"), kernel_source)
            rms = app.run(200)
            split = {s["name"]: (s["split"], s["split_reason"]) for s in ctx.loop_stats()}
        assert split["res_calc"][0] == "gather", split
        assert "arg 7 read as minus arg 6's (um_arg_minus)" in split["res_calc"][1], split  # res(INC, minus=0)
        for it, value in rms.items():
            assert value == ref["rms_%d" % it], "%s, iteration %d: Python %r, C %r" % (backend, it, value,
                                                                                       ref["rms_%d" % it])
