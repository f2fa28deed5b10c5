#!/usr/bin/env python3
"""No option is read around its declaration (issue 27): the runner's, nor an app's.

The runner's keys (app, run.*, mpi.*, validation.*, output.*, split, sweep) are
declared once in umrun/options.c and read through its typed reads (umrun_opt_*),
which take the default, choices and range from the table and refuse a key that is
not declared. This check fails when a file of umrun/ calls um_config_get_*,
um_config_has or um_config_kind on such a key written as a literal, outside the
options module. The apps' keys (mesh.*, params.*, run.iterations, ...) are declared
in each app's table (um_app.options) and read with um_app_int and the other reads of
um/app.h: the check fails when a file of apps/*/ or examples/*/ calls
um_config_get_*, um_config_has or um_config_kind on a literal key at all.

    python3 tests/check_options_declared.py SOURCE_DIR
"""
import os
import re
import sys

# Files of umrun/ not checked, each with its reason.
EXEMPT_FILES = {
    "options.c": "the options module itself: the typed reads call um_config_* on the declared keys",
    "suite.c": "reads suite files (validation/suite.yaml), whose keys are the suite's, not a run config's",
    "suite_file.c": "the suite file's reader (split from suite.c): suite keys (app, config, ...), not a run config's",
    "suite_run.c": "the suite's runs (split from suite.c): suite keys, not a run config's",
}

# Single calls allowed outside the module: (file, key) -> reason. Empty today; add an entry
# (with its reason) only for a read that cannot go through umrun_opt_*.
EXEMPT_CALLS = {}

KEY = r'"((?:run|mpi|validation|output)\.[^"]*|app|sweep|split)"'
CALL = re.compile(r'\bum_config_(get_\w+|has|kind)\s*\(\s*[^,()]+(?:\([^()]*\))?\s*,\s*' + KEY)
# in an app, any literal key: its options are all its own
APP_CALL = re.compile(r'\bum_config_(get_\w+|has|kind)\s*\(\s*[^,()]+(?:\([^()]*\))?\s*,\s*"([^"]*)"')


def app_sources(src):
    for top in ("apps", "examples"):
        root = os.path.join(src, top)
        for app in sorted(os.listdir(root)):
            folder = os.path.join(root, app)
            if not os.path.isdir(folder):
                continue
            for name in sorted(os.listdir(folder)):
                if name.endswith(".c"):
                    yield f"{top}/{app}/{name}", os.path.join(folder, name)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    folder = os.path.join(src, "umrun")
    bad = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".c") or name in EXEMPT_FILES:
            continue
        text = open(os.path.join(folder, name), encoding="utf-8").read()
        for m in CALL.finditer(text):
            if (name, m.group(2)) in EXEMPT_CALLS:
                continue
            line = text.count("\n", 0, m.start()) + 1
            bad.append(f"umrun/{name}:{line}: um_config_{m.group(1)}(..., \"{m.group(2)}\") reads a runner option "
                       f"around its declaration")
    for shown, path in app_sources(src):
        text = open(path, encoding="utf-8").read()
        for m in APP_CALL.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            bad.append(f"{shown}:{line}: um_config_{m.group(1)}(..., \"{m.group(2)}\") reads an app option around "
                       f"its declaration: declare it in the app's um_app.options and read it with um_app_int, ...")
    if bad:
        print("\n".join(bad))
        print(f"{len(bad)} direct read(s) of options: declare a runner key in umrun/options.c (type, default, "
              "allowed values, help) and read it with umrun_opt_string/_int/_long/_double/_bool/_choice/_kind; an "
              "app's in its um_app.options, read with um_app_string/_int/_long/_double/_bool/_choice/_has")
        return 1
    print("every runner option in umrun/ is read through the option table (umrun/options.c), and every app "
          "option in apps/ and examples/ through its app's table (um_app.options)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
