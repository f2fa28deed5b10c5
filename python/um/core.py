"""The engine from Python: contexts, sets, maps, dats, kernels given as C source, and par_loops.

Every call goes to the C API of libum.so (um/um.h); an error of the engine is raised as :class:`UmError` with the
engine's own message (um_error_message), which names what was wrong and what to do.
"""
import enum
import functools
import logging
import operator
import sys
import threading
import weakref

import numpy as np

from . import _lib
from ._lib import ffi, lib


class UmError(RuntimeError):
    """An error of the engine: ``code`` is its um_error code, ``name`` the code's name ("UM_ERR_ARG", ...), and the
    message the engine's (um_error_message), with the file:line trail through which it propagated."""

    def __init__(self, code, message):
        self.code = int(code)
        self.name = ffi.string(lib.um_error_name(self.code)).decode()
        super().__init__("%s: %s" % (self.name, message))


class Access(enum.IntEnum):
    """The access mode of a loop argument (OP2's): how the kernel uses the values."""

    READ = lib.UM_READ  #: read only
    WRITE = lib.UM_WRITE  #: written only: every element's value is overwritten
    RW = lib.UM_RW  #: read and written
    INC = lib.UM_INC  #: incremented (through a map: contributions summed; a global: a sum)
    MIN = lib.UM_MIN  #: a global reduced to its minimum
    MAX = lib.UM_MAX  #: a global reduced to its maximum


READ, WRITE, RW, INC, MIN, MAX = Access.READ, Access.WRITE, Access.RW, Access.INC, Access.MIN, Access.MAX

#: numpy dtype -> the engine's type, and back
_TYPES = {np.dtype(np.float64): lib.UM_DOUBLE, np.dtype(np.float32): lib.UM_FLOAT, np.dtype(np.int32): lib.UM_INT}
_DTYPES = {v: k for k, v in _TYPES.items()}


def _um_type(dtype, what):
    dt = np.dtype(dtype)
    if dt not in _TYPES:
        raise TypeError("%s: dtype %s is not one of the engine's types: float64 (double), float32 (float) or int32 "
                        "(int); convert it first, e.g. a.astype(np.float64)" % (what, dt))
    return _TYPES[dt]


def _text(s, what="a name"):
    """s as bytes for the C API: a str (or bytes); None and other types refused naming what."""
    if isinstance(s, str):
        return s.encode()
    if isinstance(s, bytes):
        return s
    raise TypeError("%s must be a str, not %r (%s)" % (what, s, type(s).__name__))


def _option_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_MPI = {"started": False}
_LOG_LEVELS = {lib.UM_LOG_WARNING: logging.WARNING, lib.UM_LOG_INFO: logging.INFO, lib.UM_LOG_DEBUG: logging.DEBUG}


@ffi.callback("void(void *, um_log_level, const char *)")
def _log(user, level, message):
    """The engine's messages (um_options.log) to the logger "um": warnings reach stderr as Python's logging
    shows them; info and debug (options verbose=1, 2) where the application's logging configuration says."""
    logging.getLogger("um").log(_LOG_LEVELS.get(level, logging.INFO), "%s", ffi.string(message).decode())


def mpi_start():
    """Join the ranks of mpirun (um_mpi_start): MPI initialised here unless mpi4py (or another library) did it,
    and then finalised at exit by whoever initialised it. Returns (rank, nranks); (0, 1) in a process not started
    by mpirun. Call it before making the contexts that are to be distributed (:meth:`Context.distribute`)."""
    import atexit
    import sys

    rank, n = ffi.new("int *"), ffi.new("int *")
    already = "mpi4py" in sys.modules and sys.modules["mpi4py"].__dict__.get("MPI") is not None
    rc = lib.um_mpi_start(ffi.NULL, ffi.NULL, rank, n)
    if rc != 0:
        raise UmError(rc, "um_mpi_start: MPI could not be started")
    if not _MPI["started"] and not already and n[0] > 1:
        atexit.register(lib.um_mpi_finish)
    _MPI["started"] = True
    return rank[0], n[0]


def mpi_launched():
    """True when the process was started by mpirun with more than one rank (um_mpi_launched)."""
    return bool(lib.um_mpi_launched())


def block_range(gsize, rank=None, nranks=None):
    """(begin, count): the block of a set of ``gsize`` elements that rank ``rank`` of ``nranks`` (default: this
    process's) declares by blocks (um_block_range: element i on rank floor(i * nranks / gsize))."""
    rank = lib.um_mpi_rank() if rank is None else rank
    nranks = lib.um_mpi_size() if nranks is None else nranks
    b, c = ffi.new("long long *"), ffi.new("int *")
    rc = lib.um_block_range(_whole(gsize, "block_range: gsize", 64), _whole(rank, "block_range: rank"),
                            _whole(nranks, "block_range: nranks"), b, c)
    if rc != 0:
        raise ValueError("block_range(%d, %d, %d): not a block of a set (gsize >= 0, 0 <= rank < nranks)"
                         % (gsize, rank, nranks))
    return b[0], c[0]


def backend_available(name):
    """(True, "") if the named backend can run here, else (False, why): not built into this libum.so and how to
    build it, or no usable device with the runtime's reason (um_backend_status)."""
    why = ffi.new("char[1024]")
    ok = lib.um_backend_status(_text(name), why, 1024)
    return bool(ok), ffi.string(why).decode()


def data_file(relpath):
    """The path of one of um's data files, named as in the source tree (``apps/airfoil/airfoil_kernels.h``,
    ``configs/airfoil.yaml``): looked for under ``$UM_PREFIX/share/um``, under the share/um of the prefix that holds
    the loaded libum.so (an installed um), under the share/um of the usual prefixes (Python's, /usr/local, /usr),
    and in the repository this package runs from (a checkout), in that order. Raises FileNotFoundError naming every place looked in."""
    import os

    rel = os.path.normpath(str(relpath))
    if os.path.isabs(rel) or rel.startswith(".."):
        raise ValueError("data_file(%r): give a path inside um's tree, as apps/airfoil/airfoil_kernels.h" % relpath)
    places = []
    if os.environ.get("UM_PREFIX"):
        places.append((os.path.join(os.environ["UM_PREFIX"], "share", "um"), "UM_PREFIX"))
    if os.path.isabs(_lib.path):
        d = os.path.dirname(_lib.path)
        for _ in range(3):  # PREFIX/lib, PREFIX/lib64 or PREFIX/lib/<multiarch>
            d = os.path.dirname(d)
            places.append((os.path.join(d, "share", "um"), "the prefix of " + _lib.path))
    for prefix in (sys.prefix, "/usr/local", "/usr"):
        places.append((os.path.join(prefix, "share", "um"), "prefix " + prefix))
    places.append((os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."), "the repository"))
    for root, _origin in places:
        path = os.path.normpath(os.path.join(root, rel))
        if os.path.isfile(path):
            return path
    raise FileNotFoundError("um: no %s in any of: %s. Install um (cmake --install build --prefix P; data go to "
                            "P/share/um) and set UM_PREFIX=P, or run from a checkout"
                            % (rel, "; ".join("%s (%s)" % (os.path.normpath(os.path.join(r, rel)), o)
                                              for r, o in places)))


def _locked(method):
    """A method that calls the engine on its context: one call at a time per context, its error read with it (the
    engine's calls release the GIL, and a context's state, its compiled loops and its message are not for two
    threads at once; a close waits for a running loop)."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with (self if isinstance(self, Context) else self.ctx)._lock:
            return method(self, *args, **kwargs)
    return run


class Context:
    """A context (um_init): everything of a run hangs off it, and it is freed by :meth:`close` (or when the last
    reference to it goes). Calls on one context from several threads run one at a time (a close waits for a
    running loop).

    :param backend: "seq", "openmp", "cuda" or "auto" (the available backend of highest priority)
    :param options: the engine's options by their keys, e.g. ``{"run.strategy": "atomics", "hostc.cflags": "-O2"}``
        (``umrun --help`` and docs/options.md list them)
    :param verbose: 0 warnings only, 1 also the engine's progress and choices (INFO), 2 also details (DEBUG);
        the engine's messages go to the logger "um" (``logging.getLogger("um")``)
    :param settings: the same for the run.* keys, by their short name: ``threads=2``, ``reproducible=True``,
        ``layout="soa"``, ``block_size=128``, ``split="gather"``
    """

    def __init__(self, backend="auto", options=None, verbose=0, **settings):
        self._lock = threading.RLock()
        self._keep = []  # the option texts the um_options point into, alive as long as the context
        self._ptr = ffi.NULL
        opts = ffi.new("um_options *")
        lib.um_options_default(opts)
        opts.log = _log  # the engine's warnings and progress to logging.getLogger("um")
        opts.verbose = int(verbose)
        if options is not None and not isinstance(options, dict):
            raise TypeError("um.Context: options must be a dict of the engine's keys, e.g. {'run.strategy': "
                            "'atomics'}, not a %s" % type(options).__name__)
        merged = {}  # the key as it is now -> (value, where it was given, given by default, its declaration)

        def put(key, value, where, weak=False):  # a setting given twice, differently: which one was meant?
            key, decl = _option_now(key)
            if key in merged and not merged[key][2] and _option_text(merged[key][0]) != _option_text(value):
                raise ValueError("um.Context: %s = %r and %s = %r disagree: give it once" % (
                    merged[key][1], merged[key][0], where, value))
            merged[key] = (value, where, weak, decl)

        put("run.backend", backend, "backend", weak=backend == "auto")
        for key, value in settings.items():
            put("run." + key, value, key)
        for key, value in (options or {}).items():
            put(key, value, "options[%r]" % key)
        later = []
        for key, (value, _, _, decl) in merged.items():
            if decl.to_options == ffi.NULL:
                later.append((key, value))
                continue
            self._apply(opts, ffi.NULL, key, value)
        ctx = ffi.new("um_context **")
        rc = lib.um_init(ctx, opts)
        self._ptr = ctx[0]
        self._opts = opts
        if rc != 0:
            message = ffi.string(lib.um_error_message(self._ptr)).decode() if self._ptr != ffi.NULL else ""
            self.close()
            raise UmError(rc, message)
        self._kernels = {}
        self._finalizer = weakref.finalize(self, Context._free, ctx)  # before anything else can fail
        for key, value in later:
            self._apply(ffi.NULL, self._ptr, key, value)

    @staticmethod
    def _free(holder):
        if holder[0] != ffi.NULL:
            lib.um_finalize(holder)

    def _apply(self, opts, ctx, key, value):
        text = ffi.new("char[]", _text(_option_text(value)))
        self._keep.append(text)
        err = ffi.new("char[1024]")
        rc = lib.um_option_apply(opts, ctx, _text(key), text, err, 1024)
        if rc != 0:
            why = ffi.string(err).decode()
            if "fixed at um_init" in why:  # the C API's remedy, in Python's words
                why = "%s is fixed when the context is made: give it to um.Context(..., options={%r: %r})" % (
                    key, key, value)
            raise ValueError("um.Context: %s = %s: %s" % (key, value, why))

    @_locked
    def close(self):
        """Free the context and everything declared on it (um_finalize); its sets, maps and dats are unusable
        afterwards."""
        fin = getattr(self, "_finalizer", None)
        if fin is not None:
            fin()
        elif self._ptr != ffi.NULL:
            lib.um_finalize(ffi.new("um_context **", self._ptr))
        self._ptr = ffi.NULL

    def __enter__(self):
        return self

    def __repr__(self):
        if self._ptr == ffi.NULL:
            return "<um.Context closed>"
        return "<um.Context %s>" % ffi.string(lib.um_context_backend(self._ptr)).decode()

    def __exit__(self, *exc):
        self.close()

    @property
    def ptr(self):
        """The um_context pointer (raises if the context is closed)."""
        if self._ptr == ffi.NULL or not getattr(self, "_finalizer", None) or not self._finalizer.alive:
            raise UmError(lib.UM_ERR_ARG, "the context is closed: make a new um.Context")
        return self._ptr

    def check(self, rc):
        """Raise :class:`UmError` with the engine's message when rc is an error code."""
        if rc != 0:
            message = ffi.string(lib.um_error_message(self._ptr)).decode()
            lib.um_error_clear(self._ptr)
            raise UmError(rc, message)

    # ---- what it runs on --------------------------------------------------------------------------------------
    @property
    @_locked
    def backend(self):
        """The backend in use after auto resolution ("seq", "openmp", "cuda")."""
        return ffi.string(lib.um_context_backend(self.ptr)).decode()

    @property
    @_locked
    def strategy(self):
        """The run's strategy: the options' strategy as the backend resolved it ("coloured", "atomics", ...). Not
        necessarily what each loop ran: :meth:`loop_stats` has each loop's ``strategy`` (on OpenMP, atomics apply
        only to loops whose increments through maps are all vector ones; the others run coloured)."""
        return ffi.string(lib.um_strategy_name(lib.um_context_strategy(self.ptr))).decode()

    @property
    def reproducible(self):
        """run.reproducible: reductions and increments with the same bits on every backend and rank count."""
        return bool(lib.um_context_reproducible(self.ptr))

    @reproducible.setter
    @_locked
    def reproducible(self, on):
        if isinstance(on, str):  # as the option's text: "false" is off
            words = {"true": 1, "on": 1, "yes": 1, "1": 1, "false": 0, "off": 0, "no": 0, "0": 0}
            if on.strip().lower() not in words:
                raise ValueError("um.Context.reproducible: '%s' is not true or false" % on)
            on = words[on.strip().lower()]
        self.check(lib.um_context_set_reproducible(self.ptr, 1 if on else 0))

    @_locked
    def set_option(self, key, value):
        """Apply one of the context's settings after it was made (um_option_apply on the context), e.g.
        ``ctx.set_option("run.split", "gather")``."""
        self._apply(ffi.NULL, self.ptr, key, value)

    # ---- declarations -------------------------------------------------------------------------------------------
    @_locked
    def set(self, size, name):
        """Declare a set of ``size`` elements (um_decl_set)."""
        out = ffi.new("um_set **")
        self.check(lib.um_decl_set(self.ptr, _whole(size, "Context.set: size"), _text(name, "a set's name"), out))
        return Set(self, out[0], name)

    @_locked
    def set_block(self, gsize, name, begin=None, count=None):
        """Declare set ``name`` of ``gsize`` elements over all ranks, of which this rank declares the block
        [begin, begin + count) (um_decl_set_block; default: :func:`block_range`'s). Every set of a context is
        declared by blocks or none is; maps then by :meth:`map_block`, dats with the block's rows; then
        :meth:`distribute`. On one process the block is the whole set."""
        gsize = _whole(gsize, "Context.set_block: gsize", 64)
        if begin is None or count is None:
            begin, count = block_range(gsize)
        out = ffi.new("um_set **")
        self.check(lib.um_decl_set_block(self.ptr, gsize, _whole(begin, "Context.set_block: begin", 64),
                                         _whole(count, "Context.set_block: count"), _text(name, "a set's name"), out))
        return Set(self, out[0], name)

    @_locked
    def map_block(self, frm, to, rows, name):
        """Declare a map from a set declared by blocks (um_decl_map_block): ``rows`` holds this rank's block of
        rows, (count, arity), each entry a 0-based global number of an element of ``to``."""
        _want(frm, Set, "map '%s': its from-set" % name), _want(to, Set, "map '%s': its to-set" % name)
        a = np.asarray(rows)
        if a.dtype.kind not in "iu":
            raise TypeError("map '%s': its rows must be integers (global numbers in '%s'), not %s" % (name, to.name,
                                                                                                   a.dtype))
        a = a.reshape(a.shape[0], -1) if a.ndim == 1 else a
        if a.ndim != 2 or a.shape[0] != frm.decl_rows:
            raise ValueError("map '%s': rows of shape %s; expected (%d, arity): this rank's block of set '%s'"
                             % (name, a.shape, frm.decl_rows, frm.name))
        if a.size and a.dtype.kind == "u" and int(a.max()) > np.iinfo(np.int64).max:
            raise ValueError("map '%s': a global number does not fit a 64-bit integer (%d)" % (name, a.max()))
        rows64 = np.ascontiguousarray(a, dtype=np.int64)
        out = ffi.new("um_map **")
        self.check(lib.um_decl_map_block(self.ptr, frm._p, to._p, rows64.shape[1],
                                         ffi.from_buffer("long long[]", rows64), _text(name, "a map's name"), out))
        return Map(self, out[0], name, frm, to, rows64.shape[1])

    @_locked
    def distribute(self, primary_set, partitioner="auto"):
        """Partition the sets over the ranks and migrate (um_distribute; collective, after every set and map is
        declared and before the first loop): ``primary_set`` is partitioned by ``partitioner`` ("auto", "block",
        "metis", "rcb", "sfc", "ptscotch"), the others follow; "ranges" keeps every set in ranges of its own
        numbering (each rank what it declared by blocks), nothing partitioned. A no-op on one process. Returns the
        partition's facts (partitioner, edge cut, imbalance, seconds) as a dict."""
        if not isinstance(primary_set, Set) or primary_set.ctx is not self:
            raise TypeError("Context.distribute: the primary set must be a um.Set of this context, not %r"
                            % (primary_set,))
        self.check(lib.um_distribute(self.ptr, _text(primary_set.name), _text(partitioner, "the partitioner")))
        if lib.um_mpi_size() < 2:  # one process: the partitioner's name checked, nothing to partition
            return {}
        info = ffi.new("um_partition_info *")
        if lib.um_partition_info_get(self.ptr, info) != 0:
            return {}
        return {"nranks": info.nranks, "partitioner": ffi.string(info.partitioner).decode(),
                "edge_cut": info.edge_cut, "imbalance": info.imbalance, "seconds": info.seconds}

    @_locked
    def map(self, frm, to, data, name):
        """Declare a map from set ``frm`` to set ``to`` (um_decl_map): ``data`` is an integer array of shape
        (frm.size, arity), 0-based indices into ``to``, checked by the engine to lie in range."""
        _want(frm, Set, "map '%s': its from-set" % name), _want(to, Set, "map '%s': its to-set" % name)
        a = np.asarray(data)
        if a.dtype.kind not in "iu":
            raise TypeError("map '%s': its data must be integers (indices into '%s'), not %s" % (name, to.name, a.dtype))
        if a.ndim == 1:
            a = a.reshape(-1, 1)
        if a.ndim != 2 or a.shape[0] != frm.size:
            raise ValueError("map '%s': data of shape %s; expected (%d, arity): one row per element of set '%s'"
                             % (name, a.shape, frm.size, frm.name))
        if a.size and (a.min() < np.iinfo(np.int32).min or a.max() > np.iinfo(np.int32).max):
            raise ValueError("map '%s': an index does not fit a C int" % name)
        rows = np.ascontiguousarray(a, dtype=np.int32)  # a copy only where the layout or dtype differ
        out = ffi.new("um_map **")
        self.check(lib.um_decl_map(self.ptr, frm._p, to._p, rows.shape[1], ffi.from_buffer("int[]", rows),
                                   _text(name, "a map's name"), out))
        return Map(self, out[0], name, frm, to, rows.shape[1])

    @_locked
    def dat(self, set, data=None, name=None, dim=None, dtype=None):
        """Declare a dat on ``set`` (um_decl_dat). ``data``: an array of shape (set.size, dim), or (set.size,) for
        dim 1, of float64, float32 or int32; or None for zeros of ``dim`` values of ``dtype`` (default float64) per
        element. With ``dtype`` and data of another type, the data is converted where every value is kept exactly
        (a list of Python ints as int32, say), else refused.

        A C-contiguous array of the dat's dtype goes to the engine as it is (no copy on the Python side); another
        layout is made contiguous first. The engine copies the values into its own storage (which it may pad,
        reorder and distribute), so the array may be changed or freed afterwards: :meth:`Dat.update` changes the
        dat's values, :meth:`Dat.fetch` reads them."""
        if name is None:
            raise ValueError("um.Context.dat: a dat needs a name (statistics and outputs use it)")
        _want(set, Set, "dat '%s': its set" % name)
        if data is None:
            if dim is None:
                raise ValueError("dat '%s': give its data, or dim (and dtype) for zeros" % name)
            t = _um_type(np.float64 if dtype is None else dtype, "dat '%s'" % name)
            buf, dim = ffi.NULL, _whole(dim, "dat '%s': dim" % name)
        else:
            a = np.asarray(data)
            if dtype is not None and np.dtype(dtype) != a.dtype:
                a = _converted(a, dtype, "dat '%s'" % name)
            t = _um_type(a.dtype, "dat '%s'" % name)
            dim = _check_rows(a, set, dim, "dat '%s'" % name, set.decl_rows)
            a = np.ascontiguousarray(a)
            buf = ffi.from_buffer(a)
        out = ffi.new("um_dat **")
        self.check(lib.um_decl_dat(self.ptr, set._p, dim, t, buf, _text(name), out))
        return Dat(self, out[0], name, set, dim, _DTYPES[t])

    @_locked
    def decl_const(self, name, value, dtype=np.float64):
        """Publish a constant the kernels read (um_decl_const; declared UM_CONST in the kernel source): a number
        or a 1-D array. Call again to change it."""
        a = np.ascontiguousarray(np.atleast_1d(_exact(value, dtype, "constant '%s'" % name)))
        if a.ndim != 1:
            raise ValueError("constant '%s': a number or a 1-D array, not an array of shape %s" % (name, a.shape))
        t = _um_type(a.dtype, "constant '%s'" % name)
        self.check(lib.um_decl_const(self.ptr, _text(name, "a constant's name"), a.size, t, ffi.from_buffer(a)))

    @_locked
    def reorder(self, method, map):
        """Renumber every set from ``map`` (um_reorder): method "gps" (Scotch) or "partition" (METIS). Dats keep
        their values, moved with their elements; :meth:`Dat.fetch` (original_order=True) reads them in the
        declared order. Returns the reordering's statistics as a dict."""
        _want(map, Map, "Context.reorder: the map to renumber from")
        m = ffi.new("um_reorder_method *")
        if lib.um_reorder_method_parse(_text(method), m) != 0:
            raise ValueError("um.Context.reorder: method '%s': use 'none', 'gps' or 'partition'" % method)
        ro = ffi.new("um_reorder_options *")
        lib.um_reorder_options_default(ro)
        st = ffi.new("um_reorder_stats *")
        self.check(lib.um_reorder(self.ptr, m[0], map._p, ro, st))
        return {k: getattr(st, k) for k in ("compute_seconds", "apply_seconds", "nparts", "max_part_size", "edgecut")}

    # ---- statistics ---------------------------------------------------------------------------------------------
    @_locked
    def loop_stats(self):
        """The engine's statistics of every loop by name (um_loop_stats_get): a list of dicts with calls, seconds,
        bytes (useful bytes per call), the strategy its last call ran with, plan statistics, split variant and the
        backend's counters. ``strategy`` is how the loop's writes through maps were kept from racing, which
        :attr:`strategy` (the run's) may not say: on OpenMP a loop that increments through a map per index runs
        ``"coloured"`` under ``run.strategy: atomics`` (its atomics take vector increments only); None where
        nothing could race (direct loops, a split's gathers)."""
        out = []
        st = ffi.new("um_loop_stats *")
        for i in range(lib.um_loop_stats_count(self.ptr)):
            self.check(lib.um_loop_stats_get(self.ptr, i, st))
            row = {"name": ffi.string(st.name).decode(),  # strategy None: nothing could race, none needed
                   "strategy": None if st.strategy == lib.UM_STRATEGY_AUTO else
                   ffi.string(lib.um_strategy_name(st.strategy)).decode()}
            for key in ("calls", "compiled_calls", "simd_calls", "seconds", "host_seconds", "bytes", "set_size",
                        "indirect", "has_plan", "block_size", "nblocks", "nblock_colours", "max_thread_colours",
                        "nplans", "plan_seconds", "first_call_seconds", "device_timed", "halo_exchanges",
                        "halo_bytes", "halo_seconds"):
                row[key] = getattr(st, key)
            row["split"] = ffi.string(st.split).decode() if st.split != ffi.NULL else None
            row["split_reason"] = ffi.string(st.split_reason).decode() if st.split_reason != ffi.NULL else None
            row["parent"] = ffi.string(st.parent).decode() if st.parent != ffi.NULL else None
            row["gbs"] = st.bytes * st.calls / st.seconds / 1e9 if st.seconds > 0 else 0.0
            for c in range(st.ncounters):
                row[ffi.string(st.counter_names[c]).decode()] = st.counters[c]
            out.append(row)
        return out

    @_locked
    def reset_stats(self):
        """Reset the loops' counters (um_loop_stats_reset; plans are kept)."""
        lib.um_loop_stats_reset(self.ptr)

    @_locked
    def sync(self):
        """Wait for all outstanding device work (um_sync; nothing to wait for on the host backends)."""
        self.check(lib.um_sync(self.ptr))

    # ---- kernels ------------------------------------------------------------------------------------------------
    @_locked
    def _kernel(self, kernel, nargs):
        key = (kernel.name, kernel.source, kernel.source_name, nargs)  # a new Kernel of the same text: the same
        hit = self._kernels.get(key)
        if hit is not None:
            return hit[1]
        k = ffi.new("um_kernel *")
        # the strings held here through the call (a struct field does not keep them alive); the engine copies them
        strings = [ffi.new("char[]", _text(t)) for t in (kernel.name, kernel.source, kernel.source_name)]
        k.name, k.source, k.source_name = strings
        k.nargs = nargs
        out = ffi.new("const um_kernel **")
        self.check(lib.um_decl_kernel(self.ptr, k, out))
        self._kernels[key] = (kernel, out[0])
        return out[0]


def _check_rows(a, set, dim, what, rows=None):
    if a.ndim == 1:
        got = 1
    elif a.ndim == 2:
        got = a.shape[1]
    else:
        raise ValueError("%s: an array of %d dimensions; expected (%d, dim) or (%d,)" % (what, a.ndim, set.size,
                                                                                       set.size))
    rows = set.size if rows is None else rows
    if a.shape[0] != rows:
        raise ValueError("%s: %d rows, but set '%s' has %d elements%s; expected shape (%d, dim)" % (
            what, a.shape[0], set.name, rows, " in this rank's block" if rows != set.size else "", rows))
    if dim is not None and int(dim) != got:
        raise ValueError("%s: dim=%d given, but the array has %d values per element" % (what, dim, got))
    return got


class _Object:
    """What sets, maps and dats share: their context and handle."""

    def __init__(self, ctx, p, name):
        self.ctx, self._handle, self.name = ctx, p, name

    @property
    def _p(self):
        self.ctx.ptr  # raises when the context is closed
        return self._handle

    def __repr__(self):
        return "<um.%s '%s'>" % (type(self).__name__, self.name)


class Set(_Object):
    """A set of mesh entities (um_set), declared with :meth:`Context.set`."""

    @property
    def size(self):
        """Elements of the set (over every rank when distributed)."""
        return lib.um_set_size(self._p)

    @property
    def decl_rows(self):
        """The rows a dat declared on the set takes now (um_set_decl_rows): this rank's block when the set is
        declared by blocks and not yet distributed, else :attr:`size`."""
        return lib.um_set_decl_rows(self._p)


class Map(_Object):
    """A map (um_map) from one set to ``arity`` elements of another, declared with :meth:`Context.map`. Index it
    to name one target for a loop argument: ``q(READ, pecell[0])``; ``q(READ, pecell[:])`` passes every target of
    the row as one vector argument (the kernel's parameter a ``const um_vec *``, read with UM_VEC_D)."""

    def __init__(self, ctx, p, name, frm, to, arity):
        super().__init__(ctx, p, name)
        self.frm, self.to, self.arity = frm, to, arity

    def __getitem__(self, idx):
        if isinstance(idx, slice):  # map[:]: every target of the row, one vector argument (um_arg_vec)
            if idx != slice(None):
                raise TypeError("map '%s': index a map with an int, or with [:] for every target of its row "
                                "(a vector argument), not %r" % (self.name, idx))
            return (self, lib.UM_PY_ALL)
        if isinstance(idx, bool):
            raise TypeError("map '%s': index a map with an int, not %r" % (self.name, idx))
        try:
            idx = operator.index(idx)  # ints and numpy integers; 0.0 is not an index
        except TypeError:
            raise TypeError("map '%s': index a map with an int, not %r" % (self.name, idx)) from None
        if not -self.arity <= idx < self.arity:
            raise IndexError("map '%s' has arity %d: index %d is out of range" % (self.name, self.arity, idx))
        return (self, idx % self.arity)

    @_locked
    def set_read_only(self):
        """Declare that every loop argument through this map READs (um_map_set_read_only): on several ranks the
        exec halo then does not follow it. A loop that writes or increments through it is refused (UmError).
        Before :meth:`Context.distribute`. Returns the map."""
        self.ctx.check(lib.um_map_set_read_only(self._p))
        return self

    @_locked
    def fetch(self):
        """The map's rows as an int32 array (frm.size, arity), in the current numbering."""
        out = np.empty((self.frm.size, self.arity), dtype=np.int32)
        self.ctx.check(lib.um_map_fetch(self.ctx.ptr, self._p, ffi.from_buffer("int[]", out), out.nbytes))
        return out


class Dat(_Object):
    """A dat (um_dat): ``dim`` values of one type per element of a set, declared with :meth:`Context.dat`. Call it
    to make a loop argument: ``q(READ)`` directly, ``q(INC, pecell[1])`` through a map, and
    ``res(INC, pecell[1], minus=0)`` for an increment that is exactly minus the one at ``pecell[0]`` (um_arg_minus:
    a loop split with gathers then stores one of the two)."""

    def __init__(self, ctx, p, name, set, dim, dtype):
        super().__init__(ctx, p, name)
        self.set, self.dim, self.dtype = set, dim, dtype
        self._type = _TYPES[np.dtype(dtype)]

    def __call__(self, access, via=None, minus=None):
        return _DatArg(self, Access(access), via, minus)

    @_locked
    def fetch(self, original_order=False):
        """The dat's values as a new array (set.size, dim), or (set.size,) for dim 1 (um_dat_fetch: from the device
        where the backend keeps them there). original_order: in the declared numbering after a reordering."""
        out = np.empty((self.set.size, self.dim), dtype=self.dtype)
        fn = lib.um_dat_fetch_original_order if original_order else lib.um_dat_fetch
        self.ctx.check(fn(self.ctx.ptr, self._p, ffi.from_buffer(out), out.nbytes))
        return out[:, 0] if self.dim == 1 else out

    @_locked
    def update(self, data):
        """Replace the dat's values (um_dat_update) from an array of its shape and dtype, in the current numbering:
        after :meth:`Context.reorder`, rows in the reordered order (as :meth:`fetch` without original_order gives
        them)."""
        a = np.asarray(data)
        if np.dtype(a.dtype) != np.dtype(self.dtype):
            raise TypeError("dat '%s' holds %s: got %s (convert it with .astype)" % (self.name, self.dtype, a.dtype))
        _check_rows(a, self.set, self.dim, "dat '%s'" % self.name)
        a = np.ascontiguousarray(a)
        self.ctx.check(lib.um_dat_update(self.ctx.ptr, self._p, ffi.from_buffer(a), a.nbytes))

    @property
    def layout(self):
        """The dat's storage layout: "aos", "soa" or "auto" (until its first loop decides)."""
        return ffi.string(lib.um_layout_name(lib.um_dat_layout(self._p))).decode()


class Global:
    """A global argument: ``dim`` values read by a loop (READ) or reduced into (INC, MIN, MAX). After the loop,
    :attr:`value` holds the result (the loop's return value too). An INC global starts from its current value,
    as in OP2: ``Global(0.0, INC)`` for a sum."""

    def __init__(self, value, access, dtype=np.float64):
        self.data = np.ascontiguousarray(np.atleast_1d(_exact(value, dtype, "um.Global")))
        if self.data.ndim != 1:
            raise ValueError("um.Global: a number or a 1-D array of values")
        self.access = Access(access)
        self.type = _um_type(self.data.dtype, "global")

    def __repr__(self):
        return "<um.Global %s %s %s>" % (self.access.name, self.data.dtype, self.value)

    @property
    def value(self):
        """The values: a number when there is one, else the array."""
        return self.data[0].item() if self.data.size == 1 else self.data.copy()


class _Whole:
    """``x(READ, um.WHOLE)``: every row of the dat for every element (um_arg_whole), the kernel's parameter a
    ``const um_vec *`` whose ``n`` is the dat's set size; the kernel picks its rows (a lookup table, a search)."""

    def __repr__(self):
        return "um.WHOLE"


WHOLE = _Whole()


class _DatArg:
    __slots__ = ("dat", "access", "via", "minus")

    def __init__(self, dat, access, via, minus=None):
        if via is WHOLE:
            if minus is not None:
                raise TypeError("dat '%s': minus= names a map index; a whole-dat argument has none" % dat.name)
        elif via is not None and not (isinstance(via, tuple) and len(via) == 2 and isinstance(via[0], Map)):
            raise TypeError("dat '%s': the argument's map is given as map[idx], e.g. pecell[0], or map[:] for every "
                            "target of the row (um.WHOLE: every row of the dat)" % dat.name)
        if minus is not None:
            if via is None or isinstance(minus, bool):
                raise TypeError("dat '%s': minus= names the map index of the partner increment (an int), through a "
                                "map" % dat.name)
            minus = operator.index(minus)  # numpy integers too
            m = via[0] if isinstance(via, tuple) else None
            if m is not None and -m.arity <= minus < 0:  # as map[-1]: counted from the row's end
                minus %= m.arity
        self.dat, self.access, self.via, self.minus = dat, access, via, minus


class Kernel:
    """A kernel given as C source: the text of a kernel header (``#include "um/kernel.h"``, UM_KERNEL functions,
    UM_CONST constants), the same text an app's kernel header holds, and the name of the function to run.

    The engine compiles it for each loop's arguments: on seq and openmp with the host C compiler (the compiled host
    loops, hostc.*), on cuda with NVRTC. A compile error is raised by the first par_loop that uses it, with the
    compiler's message."""

    def __init__(self, source, name, source_name=None):
        def text(v, what):  # a str, or bytes (a file read in binary) as UTF-8
            if isinstance(v, bytes):
                return v.decode()
            if not isinstance(v, str):
                raise TypeError("um.Kernel: its %s must be a str, not %r (%s)" % (what, v, type(v).__name__))
            return v
        source, name = text(source, "source"), text(name, "name")
        source_name = None if source_name is None else text(source_name, "source_name")
        self.source, self.name = source, name
        self.source_name = source_name or (name + ".h")

    def __repr__(self):
        return "<um.Kernel '%s' from %s>" % (self.name, self.source_name)


def kernels(source, *names, source_name="kernels.h"):
    """The kernels ``names`` of one kernel header's text, as :class:`Kernel` objects (a tuple, in order)."""
    return tuple(Kernel(source, n, source_name) for n in names)


_ARG_DAT, _ARG_GBL = lib.UM_ARG_DAT, lib.UM_ARG_GBL


def _fill(c, a, ctx, keep):
    """Argument a into the um_arg c (its public fields, as um_arg_dat and um_arg_gbl fill them; c starts zeroed)."""
    if isinstance(a, _DatArg):
        d = a.dat
        if d.ctx is not ctx:
            raise ValueError("par_loop: dat '%s' belongs to another context" % d.name)
        c.kind, c.dat, c.dim, c.type, c.acc = _ARG_DAT, d._handle, d.dim, d._type, a.access
        if a.via is None:
            c.idx = -1
        elif a.via is WHOLE:  # as um_arg_whole: no map, the engine's own over the dat's set
            c.idx = lib.UM_PY_WHOLE
        else:
            m, c.idx = a.via
            if m.ctx is not ctx:
                raise ValueError("par_loop: map '%s' belongs to another context" % m.name)
            c.map = m._handle
            if a.minus is not None:  # as um_arg_minus; um_par_loop checks it
                c.minus = a.minus + 1 if a.minus >= 0 else -1
    elif isinstance(a, Global):
        buf = ffi.from_buffer(a.data)
        keep.append(buf)
        c.kind, c.gbl, c.idx, c.dim, c.type, c.acc = _ARG_GBL, buf, -1, a.data.size, a.type, a.access
    else:
        raise TypeError("par_loop: an argument must be dat(access[, map[idx]]) or um.Global(...), not %r" % (a,))


def _exact(value, dtype, what):
    """value as an array of dtype, refused where an integer type would wrap or cut it (2**31 into int32, 2.9)."""
    dtype = np.dtype(dtype)
    try:
        given = np.asarray(value)
    except (TypeError, ValueError) as e:  # a ragged list
        raise TypeError("%s: %r is not a number or an array of numbers (%s)" % (what, value, e)) from None
    if given.dtype.kind not in "biuf":  # None, a str, an object: never NaN or a parsed number in its place
        raise TypeError("%s: %r is not a number or an array of numbers" % (what, value))
    if dtype.kind in "iu":
        if given.dtype.kind == "f" and not np.all(np.isfinite(given) & (given == np.floor(given))):
            raise ValueError("%s: %r is not a whole number, and the type is %s" % (what, value, dtype))
        if given.dtype.kind in "iuf" and given.size:
            info = np.iinfo(dtype)
            if given.min() < info.min or given.max() > info.max:
                raise ValueError("%s: %r does not fit %s (%d .. %d)" % (what, value, dtype, info.min, info.max))
    return np.array(value, dtype=dtype)


def _converted(a, dtype, what):
    """array a as dtype where every value is kept exactly (ints into int32, floats into float32), else ValueError."""
    dtype = np.dtype(dtype)
    _um_type(dtype, what)
    out = _exact(a, dtype, what) if dtype.kind in "iu" else a.astype(dtype)
    back = out.astype(a.dtype) if a.dtype.kind in "iuf" else None
    if back is None or not np.array_equal(back, a, equal_nan=a.dtype.kind == "f"):
        raise ValueError("%s: its %s values are not all exactly %s: convert them first (.astype)" % (what, a.dtype,
                                                                                                    dtype))
    return out


def _option_now(key):
    """(key, its declaration) as the key is spelled now: an earlier spelling (run.cflags) followed to its key
    (hostc.cflags), with a warning; an unknown key refused with the nearest known one."""
    decl = lib.um_option_find(_text(key, "an option's key"))
    if decl == ffi.NULL:
        near = ffi.new("char[160]")
        hint = lib.um_option_nearest(_text(key), near, 160)
        raise ValueError("um.Context: unknown option '%s'%s" % (
            key, " (did you mean '%s'?)" % ffi.string(hint).decode() if hint != ffi.NULL else ""))
    if decl.renamed_to != ffi.NULL:
        now = ffi.string(decl.renamed_to).decode()
        logging.getLogger("um").warning("um.Context: %s is now %s (read as it)", key, now)
        return now, lib.um_option_find(_text(now))
    return key, decl


def _want(obj, cls, what):
    """TypeError naming what unless obj is a cls (a um.Set, a um.Map)."""
    if not isinstance(obj, cls):
        raise TypeError("%s is a %s, not a um.%s" % (what, type(obj).__name__, cls.__name__))


def _whole(v, what, bits=32):
    """v as an int when it is a whole number (an int, a numpy integer) that a C int (bits 64: a long long) holds;
    else TypeError or ValueError naming what."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what} must be a whole number, not {v!r} ({type(v).__name__})")
    top = 2 ** (bits - 1)
    if not -top <= int(v) < top:
        raise ValueError(f"{what} = {int(v)} does not fit the engine's {bits}-bit integer ({-top} .. {top - 1})")
    return int(v)


def par_loop(kernel, set, *args, name=None):
    """Run ``kernel`` over every element of ``set`` (um_par_loop), one argument per kernel parameter:
    ``dat(access)`` directly, ``dat(access, map[idx])`` through a map (``map[:]``: every target of the row as one
    vector argument; ``um.WHOLE``: every row of the dat), ``Global(value, access)`` for a global.

    Returns the reductions' results: None without a reduced global, the value of the one (a number, or an array
    for dim > 1), or a tuple of them in argument order. ``name`` (default: the kernel's) names the loop in the
    statistics and per-loop settings."""
    if not isinstance(kernel, Kernel):
        raise TypeError(f"par_loop: the kernel is a {type(kernel).__name__}, not a um.Kernel "
                        "(um.Kernel(source, name) or um.kernels(source, *names))")
    if not isinstance(set, Set):
        raise TypeError(f"par_loop: the set is a {type(set).__name__}, not a um.Set (Context.set)")
    ctx = set.ctx
    globals_ = [a for a in args if isinstance(a, Global)]
    if len({id(g) for g in globals_}) != len(globals_):
        raise ValueError("par_loop: one um.Global is passed twice; each argument needs its own (for two results, two "
                         "Globals)")
    with ctx._lock:
        p = ctx.ptr  # raises when the context is closed
        cargs = ffi.new("um_arg[]", len(args))
        keep = []
        for i, a in enumerate(args):
            _fill(cargs[i], a, ctx, keep)
        k = ctx._kernel(kernel, len(args))
        ctx.check(lib.um_par_loop(p, k, _text(name or kernel.name), set._handle, len(args), cargs))
    out = [a.value for a in args if isinstance(a, Global) and a.access != READ]
    return None if not out else out[0] if len(out) == 1 else tuple(out)
