/* The per-call cost of a par_loop from C, for python/bench/overhead.py: the loop the Python side runs, with the
 * same kernel declared from its source (um_decl_kernel without a range: the same compiled host code), timed over
 * `calls` calls in each of `rounds` rounds; prints each round's microseconds per call.
 *   overhead N CALLS ROUNDS BACKEND < kernel-source */
#include <stdio.h>
#include <stdlib.h>
#include "um/um.h"

#define TRY(x)                                                                     \
  do {                                                                             \
    if ((x) != UM_SUCCESS) {                                                       \
      fprintf(stderr, "%s: %s\n", #x, ctx ? um_error_message(ctx) : "no context"); \
      return 1;                                                                    \
    }                                                                              \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s N CALLS ROUNDS BACKEND < kernel-source\n", argv[0]);
    return 2;
  }
  const int n = atoi(argv[1]), calls = atoi(argv[2]), rounds = atoi(argv[3]);
  static char src[1 << 16];
  const size_t len = fread(src, 1, sizeof src - 1, stdin);
  src[len] = '\0';
  um_context *ctx = NULL;
  um_options o;
  um_options_default(&o);
  o.backend = argv[4];
  TRY(um_init(&ctx, &o));
  um_set *s;
  um_dat *x, *y;
  TRY(um_decl_set(ctx, n, "s", &s));
  double *v = calloc((size_t)n + 1, sizeof *v);
  for (int i = 0; i < n; i++) v[i] = i;
  TRY(um_decl_dat(ctx, s, 1, UM_DOUBLE, v, "x", &x));
  TRY(um_decl_dat(ctx, s, 1, UM_DOUBLE, NULL, "y", &y));
  const um_kernel k = {.name = "axpy", .nargs = 3, .source = src, .source_name = "axpy.h"};
  const um_kernel *kd;
  TRY(um_decl_kernel(ctx, &k, &kd));
  for (int r = 0; r <= rounds; r++) { /* round 0: warm-up (the compile, the first call) */
    const double t0 = um_wtime();
    for (int c = 0; c < calls; c++) {
      double sum = 0;
      TRY(UM_PAR_LOOP(ctx, *kd, "axpy", s, um_arg_dat(x, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                      um_arg_dat(y, -1, UM_ID, 1, UM_DOUBLE, UM_RW), um_arg_gbl(&sum, 1, UM_DOUBLE, UM_INC)));
    }
    if (r) printf("%.4f\n", 1e6 * (um_wtime() - t0) / calls);
  }
  free(v);
  um_finalize(&ctx);
  return 0;
}
