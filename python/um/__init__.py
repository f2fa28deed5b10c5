"""um from Python: par_loops over numpy arrays through the engine's own backends, and readers of every result um
writes. The guide is docs/python.md.

The engine (libum.so, found as docs/python.md says): :class:`Context`, :meth:`Context.set`, :meth:`Context.map`,
:meth:`Context.dat`, :class:`Kernel` (C source), :func:`par_loop` with the access modes READ, WRITE, RW, INC, MIN,
MAX and :class:`Global` reductions; :func:`data_file` finds um's data files (kernel headers, configs). The results: :mod:`um.results` (run JSON, suite results, compare files ->
pandas), :mod:`um.fields` (HDF5/XDMF -> xarray), :mod:`um.plots` (the report's figures with matplotlib); these need
only numpy, pandas, h5py, xarray and matplotlib, not the library.
"""
import importlib


def __getattr__(name):
    # the engine's names load libum.so on first use, so the readers work without it
    if name in _ENGINE:
        core = importlib.import_module(".core", __name__)
        globals().update({n: getattr(core, n) for n in _ENGINE})  # found directly from now on
        return globals()[name]
    if name in ("results", "fields", "plots", "examples"):
        return importlib.import_module("." + name, __name__)
    if name == "__version__":
        from ._version import version
        return version
    raise AttributeError("module 'um' has no attribute '%s'" % name)


_ENGINE = ("mpi_start", "mpi_launched", "block_range", "backend_available", "data_file", "Context", "Set", "Map", "Dat", "Global", "Kernel", "kernels", "par_loop", "UmError", "Access", "READ",
           "WRITE", "RW", "INC", "MIN", "MAX", "WHOLE")
__all__ = list(_ENGINE) + ["results", "fields", "plots"]
