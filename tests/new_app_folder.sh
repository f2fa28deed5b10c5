#!/usr/bin/env bash
# An app is one folder: this writes a throw-away app ("hello": one set, one dat,
# one loop with a reduction, one metric, a config and a validation reference)
# into a temporary directory, builds umrun from this source tree with that
# folder added through -DUM_EXTRA_APP_DIRS, and runs the app's config. It edits
# no file of the source tree (and checks that with git when it can).
#
#   bash tests/new_app_folder.sh [SOURCE_DIR]     (ctest: umrun.new_app_folder, label slow)
#
# Environment: CMAKE (default cmake), UM_NEW_APP_JOBS (build jobs, default 2),
# CMAKE_GENERATOR, CC and CXX (used by cmake as usual), TMPDIR. docs/apps.md
# walks through the same steps.
set -euo pipefail

SRC=$(cd "${1:-$(dirname "$0")/..}" && pwd)
CMAKE=${CMAKE:-cmake}
JOBS=${UM_NEW_APP_JOBS:-2}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/um_new_app.XXXXXX")
APP=$WORK/hello
BUILD=$WORK/build
ok=0
cleanup() {
  if [ "$ok" = 1 ]; then rm -rf "$WORK"; else echo "new_app_folder: FAILED; the app and its build are kept in $WORK"; fi
}
trap cleanup EXIT

tree_state() { # what git sees of the source tree (modified and untracked files)
  if command -v git >/dev/null 2>&1 && git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$SRC" status --porcelain --untracked-files=all
  else
    echo "(not a git work tree: not checked)"
  fi
}
before=$(tree_state)

# ---- 1. the app folder: CMakeLists.txt, kernels header, app, config, reference
mkdir -p "$APP"
cat > "$APP/CMakeLists.txt" <<'EOF'
um_add_app(NAME hello
  SOURCES hello.c
  KERNELS hello_kernels.h)
EOF

cat > "$APP/hello_kernels.h" <<'EOF'
/* hello's kernel: written once, valid C and valid CUDA device code. */
#ifndef HELLO_KERNELS_H
#define HELLO_KERNELS_H
#include "um/kernel.h"

/* Over points: the sum of the squares of x. */
UM_KERNEL void square_sum(const double *x, double *sum) { sum[0] += x[0] * x[0]; }

#endif
EOF

cat > "$APP/hello.c" <<'EOF'
/* hello: a set of N points, a dat x = 0, 1, ..., N-1, and one loop summing x^2
 * (a global INC reduction). The sum is reported as a metric and validated
 * against N(N-1)(2N-1)/6. */
#include <stdlib.h>
#include "um/app.h"
#include "hello_kernels.h"

extern const char hello_kernels_source[]; /* embedded by um_add_app(KERNELS hello_kernels.h) */
UM_KERNEL_DEFINE(square_sum, 2, hello_kernels_source, "hello_kernels.h");

static const um_option hello_options[] = {
    {.key = "mesh.N", .type = UM_OPT_INT, .def = "100", .min = 1, .max = 1000000, .flags = UM_OPT_RANGE,
     .range_hint = "use 1..1000000 points", .help = "points"},
};

static int hello_run(um_app_run *r) {
  int n;
  UM_APP_TRY(um_app_int(r, "mesh.N", &n));
  double *x = malloc(sizeof(double) * (size_t)n);
  if (!x) return um_app_fail(r, UM_ERR_ALLOC, "out of memory for %d points", n);
  for (int i = 0; i < n; i++) x[i] = i;
  um_set *points;
  um_dat *p_x;
  int rc = um_decl_set(r->ctx, n, "points", &points);
  if (!rc) rc = um_decl_dat(r->ctx, points, 1, UM_DOUBLE, x, "x", &p_x);
  free(x);
  UM_APP_TRY(rc);
  UM_APP_TRY(um_app_prepare(r, NULL));
  double sum = 0.0;
  UM_APP_TRY(UM_PAR_LOOP(r->ctx, square_sum_kernel, "square_sum", points,
                         um_arg_dat(p_x, -1, UM_ID, 1, UM_DOUBLE, UM_READ), um_arg_gbl(&sum, 1, UM_DOUBLE, UM_INC)));
  fprintf(r->log, "hello: %d points, sum of x^2 = %.17g\n", n, sum);
  UM_APP_TRY(um_app_metric(r, "points", n));
  return um_app_metric(r, "sum_of_squares", sum);
}

const um_app um_app_hello = {.name = "hello",
                             .description = "A throw-away app: one set, one dat, one loop, one metric",
                             .run = hello_run,
                             .options = hello_options,
                             .noptions = sizeof hello_options / sizeof hello_options[0]};
EOF

cat > "$APP/hello.yaml" <<EOF
app: hello
mesh: {N: 100}
run: {backend: auto, block_size: 64}
validation: {reference: $APP/hello.ref.yaml}
EOF

cat > "$APP/hello.ref.yaml" <<'EOF'
app: hello
case: n100
description: The sum of x^2 over 100 points holding 0..99.
provenance:
  code: analytic (no upstream code)
  command: umrun hello.yaml
  notes: N(N-1)(2N-1)/6 = 328350 for N = 100, exact in double precision.
metrics:
  - {name: points, value: 100, abs_tol: 0}
  - {name: sum_of_squares, value: 328350, abs_tol: 0}
EOF

# ---- 2. a fresh build of this source tree with the extra app folder (CMAKE_BUILD_TYPE None: no optimisation, which
# compiles in a third of a Release build's time; hello's run is tiny)
"$CMAKE" -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=None -DUM_EXTRA_APP_DIRS="$APP" \
  -DUM_ENABLE_CUDA=OFF -DUM_BUILD_TESTS=OFF
"$CMAKE" --build "$BUILD" --target umrun --parallel "$JOBS" 2>&1 | tee "$WORK/build.log"
# the app compiles cleanly: a warning in its files (an option table of the wrong type) is an error elsewhere
if grep -E "hello[^/ ]*\.[ch]:[0-9]+:[0-9]+: warning" "$WORK/build.log"; then
  echo "new_app_folder: hello's sources compile with warnings (above)"; exit 1
fi

# ---- 3. umrun knows the app and runs its config
list=$("$BUILD/bin/umrun" --list-apps)
echo "$list"
grep -Eq '^  hello +A throw-away app' <<<"$list" || { echo "new_app_folder: umrun --list-apps does not list hello"; exit 1; }
grep -Eq '^  airfoil ' <<<"$list" || { echo "new_app_folder: umrun --list-apps lost the apps of the tree"; exit 1; }
out=$(cd "$WORK" && "$BUILD/bin/umrun" "$APP/hello.yaml" 2>&1) || { echo "$out"; echo "new_app_folder: umrun failed"; exit 1; }
echo "$out"
grep -q "VALIDATION PASS" <<<"$out" || { echo "new_app_folder: no VALIDATION PASS"; exit 1; }

# ---- 4. the source tree is as it was
after=$(tree_state)
if [ "$before" != "$after" ]; then
  echo "new_app_folder: the source tree changed:"
  diff <(echo "$before") <(echo "$after") || true
  exit 1
fi
ok=1
echo "new_app_folder: hello was added as one folder outside the tree, built and validated (no shared file edited)"
