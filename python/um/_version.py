"""The package's version: um's one version number, the repository's VERSION file (docs/release.md), read from the
repository when the package runs from it (and when pip builds it), else as the installed package recorded it."""
import os

_here = os.path.dirname(os.path.abspath(__file__))
_repo = os.path.join(_here, "..", "..")
if os.path.exists(os.path.join(_repo, "python", "pyproject.toml")) and os.path.exists(os.path.join(_repo, "VERSION")):
    with open(os.path.join(_repo, "VERSION")) as _f:
        version = _f.read().strip()
else:
    from importlib.metadata import version as _v

    version = _v("um")
