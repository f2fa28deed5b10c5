#!/usr/bin/env python3
"""No runner option is read around its declaration (issue 27).

The runner's keys (app, run.*, mpi.*, validation.*, output.*, split, sweep) are
declared once in umrun/options.c and read through its typed reads (umrun_opt_*),
which take the default, choices and range from the table and refuse a key that is
not declared. This check fails when a file of umrun/ calls um_config_get_*,
um_config_has or um_config_kind on such a key written as a literal, outside the
options module.

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
    if bad:
        print("\n".join(bad))
        print(f"{len(bad)} direct read(s) of runner options: declare the key in umrun/options.c (type, default, "
              "allowed values, help) and read it with umrun_opt_string/_int/_long/_double/_bool/_choice/_kind")
        return 1
    print("every runner option in umrun/ is read through the option table (umrun/options.c)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
