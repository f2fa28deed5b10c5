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


def test_kernels_default_to_um_data_file(outputs, capsys, tmp_path, monkeypatch):
    """Without the kernels argument the script reads apps/airfoil/airfoil_kernels.h where um.data_file finds it:
    UM_PREFIX's share/um before the checkout's (a copy there, with a comment added, is the one found)."""
    from conftest import KERNELS

    with open(um.data_file("apps/airfoil/airfoil_kernels.h")) as f, open(KERNELS) as g:  # the build's or checkout's
        assert f.read() == g.read()
    share = tmp_path / "share" / "um" / "apps" / "airfoil"
    share.mkdir(parents=True)
    with open(KERNELS) as f:
        (share / "airfoil_kernels.h").write_text("/* installed copy */\n" + f.read())
    monkeypatch.setenv("UM_PREFIX", str(tmp_path))
    assert um.data_file("apps/airfoil/airfoil_kernels.h") == str(share / "airfoil_kernels.h")
    airfoil.main([str(outputs["dir"] / "seq" / "airfoil.h5"), "--backend", "seq", "--iterations", "100"])
    line = capsys.readouterr().out.rstrip("\n")
    assert line == " %5d  %.17e" % (100, metrics(outputs["seq"])["rms_100"])


def test_a_library_found_by_name_has_its_file():
    """libum.so found by name alone (find_library: a Debian or ldconfig install) is known by the file the loader
    opened, so data_file can look beside it; here the library this process loaded."""
    import os
    import um._lib

    got = um._lib._mapped_path("libum.so")
    assert os.path.isabs(got) and os.path.samefile(got, um._lib.path), (got, um._lib.path)


def test_data_file_refuses_and_names_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.setenv("UM_PREFIX", str(tmp_path))
    with pytest.raises(FileNotFoundError) as e:
        um.data_file("apps/airfoil/no_such_kernels.h")
    assert str(tmp_path / "share" / "um" / "apps" / "airfoil" / "no_such_kernels.h") in str(e.value)
    assert "(the repository)" in str(e.value)
    for bad in ("/etc/passwd", "../outside.h"):
        with pytest.raises(ValueError):
            um.data_file(bad)


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


def test_atomics_on_openmp_say_that_per_index_increments_ran_coloured(outputs, kernel_source, caplog):
    """run.strategy atomics on OpenMP, whose atomics take vector increments only: res_calc and bres_calc
    (res(INC, pecell[0]), res(INC, pecell[1])) run on their plans, by colours, with the bits of the coloured run.
    The run's strategy stays "atomics"; each loop's statistics say what it ran, and a warning says it once per loop."""
    import logging

    mesh = airfoil.read_mesh(outputs["dir"] / "seq" / "airfoil.h5")
    runs = {}
    for strategy in ("coloured", "atomics"):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="um"):
            with um.Context(backend="openmp", threads=2, options={"run.strategy": strategy,
                                                                  "openmp.parallel_threshold": 0}) as ctx:
                rms = airfoil.Airfoil(ctx, mesh, kernel_source).run(20, every=20)[20]
                runs[strategy] = (ctx.strategy, {s["name"]: s for s in ctx.loop_stats()}, rms,
                                  [r.getMessage() for r in caplog.records])
    ran, stats, rms, said = runs["atomics"]
    assert ran == "atomics"  # the run's
    for loop in ("res_calc", "bres_calc"):
        assert stats[loop]["strategy"] == "coloured", stats[loop]
        assert stats[loop]["has_plan"] == 1
        assert stats[loop]["nblock_colours"] == runs["coloured"][1][loop]["nblock_colours"]
        assert sum("loop '%s' runs coloured, not by atomics" % loop in m for m in said) == 1, said
    for loop in ("adt_calc", "update"):
        assert stats[loop]["strategy"] is None, stats[loop]  # nothing written through a map: none needed
    assert rms == runs["coloured"][2], "the same plan, the same order of additions: the same bits"
    assert not any("runs coloured" in m for m in runs["coloured"][3])
