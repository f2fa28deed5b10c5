"""The binding's edges: what it refuses and how, and what the engine's errors look like from Python."""
import gc
import re
import shutil

import numpy as np
import pytest

import um
from um import INC, READ, WRITE

SCALE = um.Kernel('#include "um/kernel.h"\nUM_KERNEL void scale(const double *x, double *y) { y[0] = 3.0 * x[0]; }\n',
                  "scale")
GATHER = um.Kernel('#include "um/kernel.h"\n'
                   "UM_KERNEL void gather(const double *a, const double *b, double *s) { s[0] += a[0] - b[0]; }\n",
                   "gather")


@pytest.fixture(params=["seq", "openmp"])
def ctx(request):
    with um.Context(backend=request.param, threads=2) as c:
        yield c


def test_wrong_dtype_refused(ctx):
    s = ctx.set(4, "s")
    with pytest.raises(TypeError, match=r"dat 'x': dtype int64 .*float64 \(double\)"):
        ctx.dat(s, np.arange(4, dtype=np.int64), "x")
    with pytest.raises(TypeError, match="map 'm': its data must be integers"):
        ctx.map(s, s, np.zeros((4, 1)), "m")


def test_wrong_argument_types_refused(ctx):
    for size in (2.5, True, "4"):
        with pytest.raises(TypeError, match="Context.set: size must be a whole number"):
            ctx.set(size, "s")
    s = ctx.set(np.int64(4), "s")  # a numpy integer is a whole number
    x = ctx.dat(s, np.arange(4.0), "x")
    y = ctx.dat(s, None, "y", dim=1)
    with pytest.raises(TypeError, match="par_loop: the kernel is a str, not a um.Kernel"):
        um.par_loop("scale", s, x(READ), y(WRITE))
    with pytest.raises(TypeError, match="par_loop: the set is a Dat, not a um.Set"):
        um.par_loop(SCALE, x, x(READ), y(WRITE))


def test_a_dat_of_another_type_than_the_kernel_parameter_is_refused(ctx):
    s = ctx.set(4, "s")
    xf = ctx.dat(s, np.arange(4.0, dtype=np.float32), "xf")
    y = ctx.dat(s, None, "y", dim=1)
    with pytest.raises(um.UmError, match="incompatible"):  # float data to a const double *: the compile refuses it
        um.par_loop(SCALE, s, xf(READ), y(WRITE))


def test_a_kernel_called_again_after_its_compile_failed(ctx):
    s = ctx.set(4, "s")
    y = ctx.dat(s, None, "y", dim=1)
    bad = um.Kernel('#include "um/kernel.h"\nUM_KERNEL void k(double *y) { y[0] = 2.0 }\n', "k")
    for _ in range(2):  # the second call: the same error, not a crash
        with pytest.raises(um.UmError):
            um.par_loop(bad, s, y(WRITE))
    good = um.Kernel('#include "um/kernel.h"\nUM_KERNEL void k(double *y) { y[0] = 2.0; }\n', "k")
    um.par_loop(good, s, y(WRITE))
    assert list(y.fetch()) == [2.0] * 4


def test_wrong_shape_refused(ctx):
    s = ctx.set(4, "s")
    with pytest.raises(ValueError, match=r"dat 'x': 3 rows, but set 's' has 4 elements"):
        ctx.dat(s, np.zeros((3, 2)), "x")
    with pytest.raises(ValueError, match="dim=3 given, but the array has 2 values per element"):
        ctx.dat(s, np.zeros((4, 2)), "x", dim=3)
    with pytest.raises(ValueError, match=r"map 'm': data of shape \(5, 2\); expected \(4, arity\)"):
        ctx.map(s, s, np.zeros((5, 2), dtype=np.int32), "m")


def test_non_contiguous_array_declared_as_its_values(ctx):
    s = ctx.set(5, "s")
    whole = np.arange(20.0).reshape(5, 4)
    view = whole[:, ::2]  # every other column: not contiguous
    assert not view.flags.c_contiguous
    x = ctx.dat(s, view, "x")
    np.testing.assert_array_equal(x.fetch(), view)
    y = ctx.dat(s, None, "y", dim=1)
    um.par_loop(SCALE, s, ctx.dat(s, whole[:, 1], "c")(READ), y(WRITE))  # a column of a 2-D array: strided
    np.testing.assert_array_equal(y.fetch(), 3.0 * whole[:, 1])


def test_kernel_that_does_not_compile(ctx):
    s = ctx.set(3, "s")
    x = ctx.dat(s, None, "x", dim=1)
    bad = um.Kernel('#include "um/kernel.h"\nUM_KERNEL void broken(double *x) { x[0] = undeclared_name; }\n', "broken")
    with pytest.raises(um.UmError) as e:
        um.par_loop(bad, s, x(WRITE))
    assert e.value.name == "UM_ERR_BACKEND"
    assert "undeclared_name" in str(e.value) and "loop 'broken'" in str(e.value)  # the compiler's own message
    # the context stays usable after the failed loop
    um.par_loop(SCALE, s, ctx.dat(s, np.ones(3), "one")(READ), x(WRITE))
    np.testing.assert_array_equal(x.fetch(), [3.0, 3.0, 3.0])


def test_a_kernel_writing_through_a_read_argument_is_refused(ctx):
    """A write through a parameter the loop passes as READ changed the dat on the CPU (a GPU stages a copy): the
    compiler's error now, naming the parameter; a READ parameter declared without const that is only read runs."""
    s = ctx.set(4, "s")
    x = ctx.dat(s, np.arange(4.0), "x")
    y = ctx.dat(s, None, "y", dim=1)
    k = um.Kernel('#include "um/kernel.h"\nUM_KERNEL void k(double *a, double *b) { a[0] = 1; b[0] = a[0]; }', "k")
    with pytest.raises(um.UmError) as e:
        um.par_loop(k, s, x(READ), y(WRITE))
    assert "writes through a (argument 0), which its loop passes as READ" in str(e.value)
    assert "k.h: k with its READ parameters const:2:" in str(e.value)  # the kernel's own line
    np.testing.assert_array_equal(x.fetch(), np.arange(4.0))
    um.par_loop(k, s, x(um.RW), y(WRITE))  # what it means: RW
    np.testing.assert_array_equal(x.fetch(), np.ones(4))
    np.testing.assert_array_equal(y.fetch(), np.ones(4))
    reads = um.Kernel('#include "um/kernel.h"\nUM_KERNEL void r(double *a, double *b) { b[0] = 2.0 * a[0]; }', "r")
    um.par_loop(reads, s, x(READ), y(WRITE))
    np.testing.assert_array_equal(y.fetch(), 2.0 * np.ones(4))


def _read_check(ctx):
    s = ctx.set(4, "s")
    x = ctx.dat(s, np.arange(4.0), "x")
    y = ctx.dat(s, None, "y", dim=1)
    bad = um.Kernel('#include "um/kernel.h"\nUM_KERNEL void k(double *a, double *b) { b[0] = a[0] + undeclared; }',
                    "k")
    with pytest.raises(um.UmError) as e:
        um.par_loop(bad, s, x(READ), y(WRITE))
    msg = str(e.value)
    assert "writes through" not in msg and "k.h:2:56: error:" in msg and "undeclared" in msg, msg
    w = um.Kernel('#include "um/kernel.h"\nUM_KERNEL void k(double *a, double *b) { b[0] = a[0]; a[0] = 1; }', "k")
    with pytest.raises(um.UmError) as e:
        um.par_loop(w, s, x(READ), y(WRITE))
    msg = str(e.value)  # the column of the `=` in the kernel as written (the copy's const moves nothing)
    assert "writes through a (argument 0)" in msg and "k.h: k with its READ parameters const:2:60:" in msg, msg
    h = um.Kernel('#include "um/kernel.h"\nstatic void h(double **p) { (void)p; }\n'
                  'UM_KERNEL void k(double *a, double *b) { h(&a); b[0] = a[0]; }', "k")
    um.par_loop(h, s, x(READ), y(WRITE))
    np.testing.assert_array_equal(y.fetch(), np.arange(4.0))
    return s, x, y


def test_the_read_check_blames_only_a_write(ctx):
    """The READ check compiles a copy of the kernel with its READ pointers const, which repeats the kernel's own
    errors: an error that is not a write is reported as itself, from the kernel's own line; a write is reported at the
    kernel's own column; a READ pointer's address handed to a helper compiles (-Werror=incompatible-pointer-types is
    in the default flags); a long list of READ parameters ends "and N more"."""
    s, x, y = _read_check(ctx)
    names = ["a_parameter_with_a_rather_long_name_number_%d" % i for i in range(8)]
    many = um.Kernel('#include "um/kernel.h"\nUM_KERNEL void k(%s, double *b) {\n  b[0] = 0;\n  %s[0] = 1;\n}'
                     % (", ".join("double *" + n for n in names), names[0]), "k")
    with pytest.raises(um.UmError) as e:
        um.par_loop(many, s, *[x(READ)] * 8, y(WRITE))
    msg = str(e.value)
    assert re.search(r"writes through one of %s \(argument 0\), .* and \d more, which its loop" % names[0], msg), msg


@pytest.mark.skipif(not shutil.which("clang"), reason="no clang")
def test_the_read_check_with_clang():
    """clang's words for a write through const ("read-only variable is not assignable") are a write too."""
    with um.Context(backend="seq", options={"hostc.cc": shutil.which("clang")}) as c:
        _read_check(c)


def test_map_index_out_of_range(ctx):
    a, b = ctx.set(3, "a"), ctx.set(2, "b")
    with pytest.raises(um.UmError) as e:
        ctx.map(a, b, np.array([[0], [1], [2]]), "ab")
    assert e.value.name == "UM_ERR_ARG" and "ab" in str(e.value)


def test_array_freed_while_declared(ctx):
    s = ctx.set(1000, "s")
    a = np.random.default_rng(1).random(1000)
    expected = a.copy()
    x = ctx.dat(s, a, "x")
    del a  # the engine copied the values when the dat was declared: nothing of the array is used after
    gc.collect()
    np.full(1000, -1.0)  # memory reused by numpy
    y = ctx.dat(s, None, "y", dim=1)
    um.par_loop(SCALE, s, x(READ), y(WRITE))
    np.testing.assert_array_equal(y.fetch(), 3.0 * expected)


def test_set_of_size_zero(ctx):
    s, t = ctx.set(0, "empty"), ctx.set(3, "t")
    x = ctx.dat(s, np.zeros((0, 1)), "x")
    st = ctx.dat(t, np.arange(3.0), "st")
    m = ctx.map(s, t, np.zeros((0, 2), dtype=np.int32), "m")
    assert s.size == 0 and x.fetch().shape == (0,)
    total = um.par_loop(GATHER, s, st(READ, m[0]), st(READ, m[1]), um.Global(0.0, INC))
    assert total == 0.0
    assert ctx.loop_stats()[0]["calls"] == 1


def test_reduction_min_max_and_arg_count(ctx):
    k = um.Kernel('#include "um/kernel.h"\n'
                  "UM_KERNEL void mm(const double *x, double *lo, double *hi) {"
                  " if (x[0] < lo[0]) lo[0] = x[0]; if (x[0] > hi[0]) hi[0] = x[0]; }\n", "mm")
    s = ctx.set(100, "s")
    v = np.random.default_rng(2).random(100)
    x = ctx.dat(s, v, "x")
    lo, hi = um.par_loop(k, s, x(READ), um.Global(np.inf, um.MIN), um.Global(-np.inf, um.MAX))
    assert (lo, hi) == (v.min(), v.max())
    with pytest.raises(um.UmError, match="argument"):
        um.par_loop(SCALE, s, x(READ))  # scale takes two: the compiler says so


def test_indirect_increment_through_a_map(ctx):
    inc = um.Kernel('#include "um/kernel.h"\nUM_KERNEL void add(const double *w, double *a, double *b) {'
                    " a[0] += w[0]; b[0] += w[0]; }\n", "add")
    nodes, edges = ctx.set(6, "nodes"), ctx.set(6, "edges")
    ring = np.array([[i, (i + 1) % 6] for i in range(6)], dtype=np.int32)
    e = ctx.map(edges, nodes, ring, "ring")
    w = ctx.dat(edges, np.arange(1.0, 7.0), "w")
    acc = ctx.dat(nodes, None, "acc", dim=1)
    um.par_loop(inc, edges, w(READ), acc(INC, e[0]), acc(INC, e[1]))
    expected = np.zeros(6)
    np.add.at(expected, ring[:, 0], np.arange(1.0, 7.0))
    np.add.at(expected, ring[:, 1], np.arange(1.0, 7.0))
    np.testing.assert_array_equal(acc.fetch(), expected)
    with pytest.raises(IndexError, match="arity 2"):
        e[2]


def test_vector_arguments_read_every_target_of_the_row(ctx):
    vsum = um.Kernel('#include "um/kernel.h"\nUM_KERNEL void vsum(const um_vec *x, double *s) {'
                     " s[0] = 0; for (int j = 0; j < x->n; j++) s[0] += (j + 1) * UM_VEC_D(x, j, 0); }\n", "vsum")
    psum = um.Kernel('#include "um/kernel.h"\nUM_KERNEL void psum(const double *a, const double *b, const double *c,'
                     " double *s) { s[0] = 0; s[0] += 1 * a[0]; s[0] += 2 * b[0]; s[0] += 3 * c[0]; }\n", "psum")
    nodes, cells = ctx.set(7, "nodes"), ctx.set(5, "cells")
    rows = np.array([[i, (i + 2) % 7, (3 * i + 1) % 7] for i in range(5)], dtype=np.int32)
    m = ctx.map(cells, nodes, rows, "m")
    x = ctx.dat(nodes, np.arange(1.0, 8.0) ** 2, "x")
    v, p = ctx.dat(cells, None, "v", dim=1), ctx.dat(cells, None, "p", dim=1)
    um.par_loop(vsum, cells, x(READ, m[:]), v(WRITE))
    um.par_loop(psum, cells, x(READ, m[0]), x(READ, m[1]), x(READ, m[2]), p(WRITE))
    np.testing.assert_array_equal(v.fetch(), p.fetch())
    np.testing.assert_array_equal(v.fetch(), ((np.arange(1.0, 8.0) ** 2)[rows] * [1, 2, 3]).sum(axis=1))
    spread = um.Kernel('#include "um/kernel.h"\nUM_KERNEL void spread(const double *w, const um_vec *a) {'
                       " for (int j = 0; j < a->n; j++) um_vec_inc_d(a, j, 0, w[0]); }\n", "spread")
    acc = ctx.dat(nodes, None, "acc", dim=1)
    um.par_loop(spread, cells, v(READ), acc(INC, m[:]))
    expected = np.zeros(7)
    for j in range(3):
        np.add.at(expected, rows[:, j], v.fetch())
    np.testing.assert_array_equal(acc.fetch(), expected)
    with pytest.raises(TypeError, match=r"\[:\]"):
        m[0:2]


def test_whole_dat_arguments_let_the_kernel_pick_its_rows(ctx):
    pick = um.Kernel('#include "um/kernel.h"\nUM_KERNEL void pick(const int *p, const um_vec *t, double *o) {'
                     " o[0] = UM_VEC_D(t, p[0], 1) + t->n; }\n", "pick")
    count = um.Kernel('#include "um/kernel.h"\nUM_KERNEL void count(const int *p, const um_vec *t) {'
                      " um_vec_inc_d(t, p[0], 0, 1.0); }\n", "count")
    cells, rows = ctx.set(6, "cells"), ctx.set(4, "rows")
    p = ctx.dat(cells, np.array([3, 0, 3, 1, 2, 3], dtype=np.int32), "p")
    table = ctx.dat(rows, np.array([[0.0, 10.0], [0.0, 11.0], [0.0, 12.0], [0.0, 13.0]]), "table")
    o = ctx.dat(cells, None, "o", dim=1)
    um.par_loop(pick, cells, p(READ), table(READ, um.WHOLE), o(WRITE))
    np.testing.assert_array_equal(o.fetch(), [13 + 4, 10 + 4, 13 + 4, 11 + 4, 12 + 4, 13 + 4])
    um.par_loop(count, cells, p(READ), table(INC, um.WHOLE))  # increments to rows the kernel picks: atomic
    np.testing.assert_array_equal(table.fetch()[:, 0], [1, 1, 1, 3])
    with pytest.raises(TypeError, match="minus"):
        table(INC, um.WHOLE, minus=0)


def test_context_errors():
    with pytest.raises(ValueError, match="unknown option 'run.thread'.*run.threads"):
        um.Context(backend="seq", thread=2)
    with pytest.raises(ValueError, match="run.backend = 'no_such_backend': use one of auto, .*seq"):
        um.Context(backend="no_such_backend")
    with pytest.raises(ValueError, match="run.split = 'nonsense': use one of off, .*gather"):
        um.Context(backend="seq", split="nonsense")  # a setting of the live context, applied after um_init
    ctx = um.Context(backend="seq")
    s = ctx.set(2, "s")
    ctx.close()
    with pytest.raises(um.UmError, match="context is closed"):
        s.size


def test_reproducible_and_reorder(ctx):
    ctx.reproducible = True
    assert ctx.reproducible
    n = 50
    nodes, edges = ctx.set(n, "nodes"), ctx.set(n, "edges")
    rng = np.random.default_rng(3)
    pairs = np.stack([np.arange(n), rng.permutation(n)], axis=1).astype(np.int32)
    e = ctx.map(edges, nodes, pairs, "e")
    vals = rng.random(n)
    st = ctx.dat(nodes, vals, "st")
    stats = ctx.reorder("gps", e)
    assert stats["compute_seconds"] >= 0
    np.testing.assert_array_equal(st.fetch(original_order=True), vals)
    total = um.par_loop(GATHER, edges, st(READ, e[0]), st(READ, e[1]), um.Global(0.0, INC))
    assert total == pytest.approx(vals.sum() - vals[pairs[:, 1]].sum(), abs=1e-12)


def test_engine_messages_reach_logging(caplog, tmp_path):
    import logging

    with caplog.at_level(logging.DEBUG, logger="um"):  # a new cache: the loop is compiled, which is said at INFO
        with um.Context(backend="seq", verbose=1, options={"run.cache": str(tmp_path)}) as ctx:
            s = ctx.set(4, "s")
            um.par_loop(SCALE, s, ctx.dat(s, np.ones(4), "x")(READ), ctx.dat(s, None, "y", dim=1)(WRITE))
    assert any(r.name == "um" and "scale" in r.getMessage() for r in caplog.records), caplog.text


def test_minus_declaration_checked(ctx):
    """res(INC, m[1], minus=0): the engine checks the declaration (um_arg_minus) and names the loop and arg."""
    edges, cells = ctx.set(3, "edges"), ctx.set(4, "cells")
    m = ctx.map(edges, cells, np.array([[0, 1], [1, 2], [2, 3]], dtype=np.int32), "m")
    r = ctx.dat(cells, None, "r", dim=1)
    with pytest.raises(TypeError, match="minus= names the map index"):
        r(INC, minus=0)
    with pytest.raises(TypeError, match="minus= names the map index"):
        r(INC, m[1], minus=True)  # not index 1
    assert r(INC, m[1], minus=np.int64(0)).minus == 0  # numpy integers are indices
    assert r(INC, m[0], minus=-1).minus == 1  # counted from the row's end, as m[-1]
    with pytest.raises(um.UmError) as e:
        um.par_loop(GATHER, edges, ctx.dat(edges, np.ones(3), "a")(READ), ctx.dat(edges, np.ones(3), "b")(READ),
                    r(INC, m[1], minus=0))
    assert e.value.name == "UM_ERR_ARG"
    assert "loop 'gather', arg 2: um_arg_minus(..., 0)" in str(e.value) and "the loop has none" in str(e.value)


SLOW = um.Kernel('#include "um/kernel.h"\n'
                 "UM_KERNEL void slow(double *a) { for (int i = 0; i < 100; i++) a[0] = a[0] * 0.5 + 1.0; }\n", "slow")


def test_close_from_another_thread_waits_for_the_running_loop():
    import threading
    import time
    c = um.Context("seq")
    s = c.set(1_000_000, "s")
    d = c.dat(s, np.zeros(1_000_000), "d")
    um.par_loop(SLOW, s, d(um.RW))  # compiled once
    out = []
    t = threading.Thread(target=lambda: out.append(um.par_loop(SLOW, s, d(um.RW)) or "returned"))
    t.start()
    time.sleep(0.01)
    c.close()  # crashed the process (the loop ran on a freed context): now it waits for the loop
    t.join()
    assert out == ["returned"]
    with pytest.raises(um.UmError, match="closed"):
        um.par_loop(SLOW, s, d(um.RW))


def test_threads_compiling_loops_on_one_context_at_once(ctx):
    import threading
    s = ctx.set(64, "s")
    dats = [ctx.dat(s, np.ones(64), "d%d" % i) for i in range(4)]
    # each thread its own kernel text (so each compiles), run together: a compile failed naming another thread's loop
    ks = [um.Kernel('#include "um/kernel.h"\nUM_KERNEL void t%d(double *a) { a[0] += %d.0; }\n' % (i, i + 1),
                    "t%d" % i) for i in range(4)]
    errors = []

    def work(i):
        try:
            for _ in range(3):
                um.par_loop(ks[i], s, dats[i](um.RW))
        except Exception as e:  # noqa: BLE001 -- the test reports any
            errors.append(e)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for i, d in enumerate(dats):
        assert (d.fetch() == 1.0 + 3 * (i + 1)).all()


def test_a_global_passed_twice_and_values_that_do_not_fit(ctx):
    s = ctx.set(10, "s")
    x = ctx.dat(s, np.ones(10), "x")
    g = um.Global(0.0, INC)
    with pytest.raises(ValueError, match="passed twice"):  # both results came back as their sum
        um.par_loop(um.Kernel('#include "um/kernel.h"\nUM_KERNEL void two(const double *x, double *a, double *b)'
                              ' { a[0] += x[0]; b[0] += 1.0; }\n', "two"), s, x(READ), g, g)
    with pytest.raises(ValueError, match="does not fit int32"):  # wrapped to -2**31
        um.Global(2**31, um.MIN, np.int32)
    with pytest.raises(ValueError, match="not a whole number"):  # cut to 2
        um.Global(2.9, INC, np.int32)
    with pytest.raises(ValueError, match="does not fit int32"):  # published as 5
        ctx.decl_const("big", 2**32 + 5, np.int32)
    assert um.Global(-7, um.MIN, np.int32).value == -7


def test_kernels_of_the_same_text_are_declared_once_and_small_misuses(ctx):
    s = ctx.set(8, "s")
    x, y = ctx.dat(s, np.arange(8.0), "x"), ctx.dat(s, None, "y", dim=1)
    for _ in range(50):  # a notebook cell run again makes a new Kernel of the same text each time
        um.par_loop(um.Kernel(SCALE.source, "scale"), s, x(READ), y(WRITE))
    assert sum(1 for k in ctx._kernels if k[0] == "scale") == 1
    assert (y.fetch() == 3.0 * np.arange(8.0)).all()
    ctx.reproducible = "false"  # the option's text: off (it was turned on: a non-empty string is true)
    assert ctx.reproducible is False
    ctx.reproducible = "true"
    assert ctx.reproducible is True
    with pytest.raises(ValueError, match="not true or false"):
        ctx.reproducible = "maybe"
    m = ctx.map(s, s, np.arange(8).reshape(8, 1), "self")
    with pytest.raises(TypeError, match="index a map with an int"):
        m[0.0]
    assert m[np.int64(0)] == (m, 0)
    assert "um.Context" in repr(ctx) and "INC" in repr(um.Global(0.0, INC))


def test_dtype_names_options_and_result_files_given_loosely(tmp_path):
    with pytest.raises(ValueError, match="disagree: give it once"):  # options= won, backend= was dropped
        um.Context(backend="openmp", options={"run.backend": "seq"})
    with pytest.raises(ValueError, match="disagree: give it once"):
        um.Context(threads=2, options={"run.threads": 3})
    ctx = um.Context(backend="seq", options={"run.backend": "seq"})  # the same twice: fine
    s = ctx.set(4, "s")
    d = ctx.dat(s, [1, 2, 3, 4], "ints", dtype=np.int32)  # Python ints as asked (were refused as int64)
    assert d.dtype == np.int32 and (d.fetch().ravel() == [1, 2, 3, 4]).all()
    f = ctx.dat(s, np.arange(4.0), "f32", dtype=np.float32)  # the dtype asked for, not the array's (was ignored)
    assert f.dtype == np.float32
    with pytest.raises(ValueError, match="not a whole number"):
        ctx.dat(s, [0.5, 1, 2, 3], "halves", dtype=np.int32)
    with pytest.raises(ValueError, match="not all exactly float32"):
        ctx.dat(s, [0.1, 1, 2, 3], "tenth", dtype=np.float32)
    with pytest.raises(TypeError, match="a set's name must be a str, not None"):  # was cffi's TypeError
        ctx.set(3, None)
    with pytest.raises(TypeError, match="must be a whole number"):  # was cut to 10
        ctx.set_block(10.9, "b")
    with pytest.raises(ValueError, match="does not fit a 64-bit integer"):  # wrapped negative
        ctx.map_block(s, s, np.full((4, 1), 2**63, dtype=np.uint64), "huge")
    ctx.close()
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ValueError, match="empty"):  # was pandas' EmptyDataError
        um.results.load(empty)
    upper = tmp_path / "LOOPS.CSV"
    upper.write_text("variant,loop,calls,seconds\nrun,relax,3,0.5\n")
    assert list(um.results.load(upper).loops["loop"]) == ["relax"]  # was read as JSON and refused


@pytest.mark.parametrize("value, why", [("/nonexistent/libum.so", "not there"), ("libm.so.6", "no um_python_cdef")])
def test_a_library_named_in_the_environment_that_does_not_load_is_an_error_not_another_build(value, why):
    """UM_LIBRARY names the one place looked in: a mistyped path or another library fails the import with the
    reason, rather than loading the checkout's or an installed build in its place."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, UM_LIBRARY=value, PYTHONPATH=os.path.dirname(os.path.dirname(um.__file__)))
    r = subprocess.run([sys.executable, "-c", "import um; um.Context"], env=env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode != 0
    assert "LibraryNotFound: um: UM_LIBRARY=%s does not give a libum.so that loads" % value in r.stderr
    assert why in r.stderr


def test_a_loop_run_before_its_constants_are_published_runs_once_they_are(ctx):
    """A loop whose kernel reads UM_CONST constants not yet published fails, saying so; once ctx.decl_const has
    published them, the same kernel (the same loop, a new um.Kernel, another loop name) runs: no new Context."""
    src = ('#include "um/kernel.h"\nUM_CONST double gam;\nUM_CONST double arr[3];\n'
           "UM_KERNEL void kc(const double *a, double *b) { b[0] = a[0] * gam + arr[2]; }\n")
    s = ctx.set(4, "s")
    x = ctx.dat(s, np.arange(4.0), "x")
    y = ctx.dat(s, None, "y", dim=1)
    for _ in range(2):  # the second call: still waiting, and said so
        with pytest.raises(um.UmError, match="UM_CONST constants.*ctx.decl_const"):
            um.par_loop(um.Kernel(src, "kc"), s, x(READ), y(WRITE))
    ctx.decl_const("gam", 2.0)
    with pytest.raises(um.UmError, match="not those the app declared"):  # arr still missing
        um.par_loop(um.Kernel(src, "kc"), s, x(READ), y(WRITE))
    ctx.decl_const("arr", [0.0, 0.0, 5.0])
    um.par_loop(um.Kernel(src, "kc"), s, x(READ), y(WRITE))
    np.testing.assert_array_equal(y.fetch().ravel(), 2.0 * np.arange(4.0) + 5.0)
    um.par_loop(um.Kernel(src, "kc"), s, x(READ), y(WRITE), name="kc2")
    np.testing.assert_array_equal(y.fetch().ravel(), 2.0 * np.arange(4.0) + 5.0)


def test_earlier_spellings_of_options_are_read_as_their_keys_now(caplog):
    """run.cflags and run.compile (hostc.cflags, hostc.compile now) given to um.Context, as keywords or in
    options, are read as the keys they are now, with a warning; a key fixed at um_init, set on a live context,
    is refused with the Python remedy."""
    with caplog.at_level("WARNING", logger="um"):
        with um.Context(backend="seq", cflags="-O1", options={"run.compile": "wait"}) as c:
            with pytest.raises(ValueError, match=r"fixed when the context is made: give it to um.Context\(\.\.\., "
                                                 r"options=\{'run.threads': 2\}\)"):
                c.set_option("run.threads", 2)
    said = caplog.text
    assert "run.cflags is now hostc.cflags" in said and "run.compile is now hostc.compile" in said
    with pytest.raises(ValueError, match=r"cflags = '-O1' and options\['hostc.cflags'\] = '-O2' disagree"):
        um.Context(backend="seq", cflags="-O1", options={"hostc.cflags": "-O2"})  # one key, spelt two ways


@pytest.mark.parametrize("value", [None, "1", "abc", object(), [1.0, [2.0, 3.0]]])
def test_a_value_that_is_not_numbers_is_refused_for_globals_and_constants(ctx, value):
    """None, text or objects are never read as NaN or a parsed number."""
    with pytest.raises(TypeError, match="um.Global: .* is not a number or an array of numbers"):
        um.Global(value, INC)
    with pytest.raises(TypeError, match="constant 'c': .* is not a number or an array of numbers"):
        ctx.decl_const("c", value)


def test_arguments_of_the_wrong_kind_are_refused_naming_them(ctx):
    s = ctx.set(3, "s")
    x = ctx.dat(s, np.zeros(3), "x")
    with pytest.raises(ValueError, match="Context.set: size = 2147483648 does not fit the engine's 32-bit integer"):
        ctx.set(2 ** 31, "big")
    with pytest.raises(ValueError, match="dat 'd': dim = 2147483648 does not fit"):
        ctx.dat(s, None, "d", dim=2 ** 31)
    with pytest.raises(TypeError, match="dat 'd': its set is a str, not a um.Set"):
        ctx.dat("s", None, "d", dim=1)
    with pytest.raises(TypeError, match="map 'm': its from-set is a str, not a um.Set"):
        ctx.map("s", s, np.zeros((3, 1), dtype=np.int32), "m")
    with pytest.raises(TypeError, match="Context.reorder: the map to renumber from is a Dat, not a um.Map"):
        ctx.reorder("gps", x)
    with pytest.raises(TypeError, match="um.Kernel: its name must be a str, not None"):
        um.Kernel("UM_KERNEL void k(double *y) {}", None)
    with pytest.raises(TypeError, match="um.Kernel: its source must be a str, not 123"):
        um.Kernel(123, "k")
    assert um.Kernel(b"UM_KERNEL void k(double *y) {}", b"k").name == "k"  # a file read in binary mode
    with pytest.raises(TypeError, match="block_range: gsize must be a whole number, not 10.5"):
        um.block_range(10.5)
    with pytest.raises(TypeError, match="options must be a dict"):
        um.Context(backend="seq", options=[("run.threads", 1)])


def test_distribute_checks_its_arguments_on_one_process_too(ctx):
    """A partitioner's name that several ranks refuse is refused on one process; a set of another context too."""
    s = ctx.set_block(10, "t")
    with pytest.raises(um.UmError, match="mpi.partitioner = 'nope'"):
        ctx.distribute(s, "nope")
    with um.Context(backend="seq") as other:
        with pytest.raises(TypeError, match="the primary set must be a um.Set of this context"):
            ctx.distribute(other.set(3, "x"), "block")
    assert ctx.distribute(s, "block") == {}


def test_a_write_through_a_read_only_map_is_refused(ctx):
    """Map.set_read_only: a loop that increments through the map is refused, naming it; one that reads runs."""
    s, t = ctx.set(3, "s"), ctx.set(4, "t")
    m = ctx.map(s, t, np.array([[0, 1], [1, 2], [2, 3]]), "m").set_read_only()
    a = ctx.dat(t, np.arange(4.0), "a")
    acc = ctx.dat(t, None, "acc", dim=1)
    out = ctx.dat(s, None, "out", dim=1)
    with pytest.raises(um.UmError, match="INC through map 'm', which was declared read-only"):
        um.par_loop(GATHER, s, a(READ, m[0]), a(READ, m[1]), acc(INC, m[0]))
    um.par_loop(GATHER, s, a(READ, m[0]), a(READ, m[1]), out(INC))
    np.testing.assert_array_equal(out.fetch(), [-1.0, -1.0, -1.0])
