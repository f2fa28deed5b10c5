"""The package's version: um's one version number, the repository's VERSION file (docs/release.md). setuptools gives
it to the distribution (pyproject.toml reads python/VERSION, which links it; an sdist holds its text); the package
reads it from that file when it runs from the repository or an unpacked sdist, else as the installed package
recorded it."""
import os

_root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")  # python/ in the repository
if os.path.exists(os.path.join(_root, "pyproject.toml")) and os.path.exists(os.path.join(_root, "VERSION")):
    with open(os.path.join(_root, "VERSION")) as _f:
        version = _f.read().strip()
else:
    from importlib.metadata import version as _v

    version = _v("um")
