"""Finding and loading libum.so, the engine as one shared library, and its declarations.

The library carries the C API's declarations itself (``um_python_cdef``: the public headers preprocessed when it
was built), so the package declares exactly what the library it loads was built with.
"""
import ctypes
import ctypes.util
import os
import shutil
import subprocess
import sys
import sysconfig

import cffi

_NAMES = ("libum.so",)
# a prefix's library folders: lib, and the multiarch one of this machine (lib/x86_64-linux-gnu, lib/aarch64-linux-gnu)
_LIB_DIRS = ("lib",) + tuple(os.path.join("lib", m) for m in dict.fromkeys(
    (sysconfig.get_config_var("MULTIARCH") or "", "x86_64-linux-gnu")) if m)


def _chosen():
    """The places the environment names (UM_LIBRARY, else UM_PREFIX's library folders): when it names any, only
    those are tried, so a mistyped path is an error rather than another build loaded in its place."""
    env = os.environ.get("UM_LIBRARY")
    if env:
        return [(env, "UM_LIBRARY")]
    prefix = os.environ.get("UM_PREFIX")
    if prefix:
        return [(os.path.join(prefix, sub, "libum.so"), "UM_PREFIX") for sub in _LIB_DIRS + ("lib64",)]
    return []


def _candidates():
    """Where libum.so is looked for, in order, with where each place comes from (each place once)."""
    chosen = _chosen()
    if chosen:
        yield from chosen
        return
    seen = set()
    for path, origin in _searched():
        key = os.path.normpath(path) if os.sep in path else path
        if key not in seen:
            seen.add(key)
            yield path, origin


def _searched():
    """The places searched when the environment names none."""
    here = os.path.dirname(os.path.abspath(__file__))
    # the package run from the repository itself (python/um): the build folder beside it
    yield os.path.join(here, "..", "..", "build", "lib", "libum.so"), "the repository's build folder"
    found = ctypes.util.find_library("um")
    if found:
        yield found, "the system's library path"
    if shutil.which("pkg-config"):
        try:
            libdir = subprocess.run(["pkg-config", "--variable=libdir", "um"], capture_output=True, text=True,
                                    timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            libdir = ""
        if libdir:
            yield os.path.join(libdir, "libum.so"), "pkg-config um"
    for prefix in (sys.prefix, "/usr/local", "/usr"):
        for sub in _LIB_DIRS:
            yield os.path.join(prefix, sub, "libum.so"), "prefix " + prefix


def _mapped_path(name):
    """The file the dynamic loader opened for a library it found by name alone (``libum.so`` from the system's
    library path): its absolute path from /proc/self/maps, or ``name`` where that cannot be read."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                p = line.split(None, 5)[-1].strip() if line.count(" ") >= 5 else ""
                base = os.path.basename(p)
                if p.startswith("/") and (base == name or base.startswith(name + ".")):
                    return p
    except OSError:
        pass
    return name


class LibraryNotFound(ImportError):
    """libum.so could not be found or loaded; the message names the places looked in and the fix."""


def _load():
    tried = []
    for path, origin in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append("%s (%s): not there" % (path, origin))
            continue
        try:
            ffi = cffi.FFI()
            lib = ffi.dlopen(path)
        except OSError as e:
            tried.append("%s (%s): %s" % (path, origin, e))
            continue
        try:
            ffi.cdef("extern const char um_python_cdef[];")
            cdef = ffi.string(lib.um_python_cdef).decode()
        except (AttributeError, KeyError, cffi.CDefError, cffi.FFIError) as e:
            tried.append("%s (%s): not um's Python library (no um_python_cdef: %s)" % (path, origin, e))
            continue
        ffi.cdef(cdef)
        return ffi, lib, path if os.sep in path else _mapped_path(os.path.basename(path))
    if _chosen():
        var = "UM_LIBRARY" if os.environ.get("UM_LIBRARY") else "UM_PREFIX"
        raise LibraryNotFound(
            "um: %s=%s does not give a libum.so that loads, so nothing else was tried (unset it to search the usual "
            "places; the library a build makes is build/lib/libum.so, an install's P/lib/libum.so):\n  %s"
            % (var, os.environ[var], "\n  ".join(tried)))
    raise LibraryNotFound(
        "um: cannot load libum.so, the engine's shared library. Build it (cmake -S . -B build && cmake --build build "
        "makes build/lib/libum.so; the CMake option UM_BUILD_PYTHON_LIB must be ON, its default) and set "
        "UM_LIBRARY=/path/to/build/lib/libum.so, or install um (cmake --install build --prefix P) and set UM_PREFIX=P "
        "or add P/lib to LD_LIBRARY_PATH. Looked in:\n  " + "\n  ".join(tried))


ffi, lib, path = _load()
