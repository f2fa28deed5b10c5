"""The package's version: the one of um (the repository's VERSION file, recorded when the package was installed)."""
try:
    from importlib.metadata import version as _v

    version = _v("um")
except Exception:  # run from the repository without installing
    import os

    with open(os.path.join(os.path.dirname(__file__), "..", "..", "VERSION")) as _f:
        version = _f.read().strip()
