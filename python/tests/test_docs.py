"""docs/python.md's API reference is the package's docstrings (python/gen-api.py writes it)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_api_reference_up_to_date():
    r = subprocess.run([sys.executable, os.path.join(HERE, "..", "gen-api.py"), "--check"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout + r.stderr
