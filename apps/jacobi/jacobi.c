/* Jacobi: solve Laplace's equation on a square grid seen as an unstructured
 * graph (nodes and edges, renumbered at random so that nothing but the maps
 * knows the structure). Boundary nodes hold u = x^2 - y^2 + xy/2, which is
 * harmonic for the 5-point Laplacian, so the converged interior equals it
 * exactly: the app measures its own error against that closed form.
 *
 * With outputs on, or when the reference compares it, the app writes the
 * field u (jacobi_u.txt: "x y u" per node in grid order) for validation.
 *
 * Config: mesh: {generator: grid, N: 32, seed: 1}   (N x N cells)
 *         run.iterations: maximum sweeps; params.tolerance: stop when max |du| is below. */
#include "um/safe_file.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "um/app.h"
#include "jacobi_kernels.h"

extern const char jacobi_kernels_source[];
UM_KERNEL_DEFINE(degree, 2, jacobi_kernels_source, "jacobi_kernels.h");
UM_KERNEL_DEFINE(gather, 4, jacobi_kernels_source, "jacobi_kernels.h");
UM_KERNEL_DEFINE(relax, 6, jacobi_kernels_source, "jacobi_kernels.h");
UM_KERNEL_DEFINE(max_error, 3, jacobi_kernels_source, "jacobi_kernels.h");

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void shuffle(int *p, int n, uint64_t *s) {
  for (int i = 0; i < n; i++) p[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(splitmix(s) % (uint64_t)(i + 1)), t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
}

/* The field "u" as text for validation: one line "x y u" per node, in grid
 * order (i along x, then j along y) whatever the numbering, so that the file
 * compares with one written from the closed form. */
static int write_u(um_app_run *r, um_dat *p_x, um_dat *p_u, int N) {
  const int nn = (N + 1) * (N + 1);
  char path[UM_APP_FIELD_PATH_MAX];
  if (snprintf(path, sizeof path, "%s/jacobi_u.txt", um_app_field_dir(r)) >= (int)sizeof path)
    return um_app_fail(r, UM_ERR_ARG, "field u: output folder name too long");
  double *x = malloc(sizeof(double) * 2 * (size_t)nn), *u = malloc(sizeof(double) * (size_t)nn);
  double *grid = malloc(sizeof(double) * (size_t)nn);
  int rc = !x || !u || !grid ? um_app_fail(r, UM_ERR_ALLOC, "field u: out of memory") : UM_SUCCESS;
  if (!rc) rc = um_dat_fetch(r->ctx, p_x, x, sizeof(double) * 2 * (size_t)nn);
  if (!rc) rc = um_dat_fetch(r->ctx, p_u, u, sizeof(double) * (size_t)nn);
  for (int n = 0; !rc && n < nn; n++) {
    long i = lround(x[2 * n] * N), j = lround(x[2 * n + 1] * N);
    if (i < 0 || i > N || j < 0 || j > N) rc = um_app_fail(r, UM_ERR_INTERNAL, "field u: node %d is off the grid", n);
    else grid[i * (N + 1) + j] = u[n];
  }
  um_safe_file sf; /* like every output: a temporary renamed into place (util/safe_file.h) */
  char why[1200];
  if (!rc && !um_app_writes(r)) { /* under mpirun rank 0 writes it */
  } else if (!rc && um_safe_open(&sf, path, why, sizeof why)) rc = um_app_fail(r, UM_ERR_IO, "field u: %s", why);
  else if (!rc) {
    for (int i = 0; i <= N; i++)
      for (int j = 0; j <= N; j++)
        fprintf(sf.f, "%.10g %.10g %.10g\n", (double)i / N, (double)j / N, grid[i * (N + 1) + j]);
    if (um_safe_commit(&sf, why, sizeof why)) rc = um_app_fail(r, UM_ERR_IO, "field u: %s", why);
  }
  free(x);
  free(u);
  free(grid);
  rc = um_app_output_done(r, rc); /* every rank: one outcome */
  return rc ? rc : um_app_field(r, "u", path);
}

#define CHOICES(...) ((const char *const[]){__VA_ARGS__, NULL})
/* jacobi's options, declared once (read with um_app_int etc.; --list-apps, docs/options.md). */
static const um_option jacobi_options[] = {
    {.key = "mesh.generator", .type = UM_OPT_CHOICE, .def = "grid", .choices = CHOICES("grid"),
     .help = "the mesh: an N x N grid graph"},
    {.key = "mesh.N", .type = UM_OPT_INT, .def = "32", .min = 2, .max = 4000, .flags = UM_OPT_RANGE,
     .range_hint = "use 2..4000 cells per side", .help = "cells per side"},
    {.key = "mesh.seed", .type = UM_OPT_INT, .def = "1", .help = "seed of the shuffled numbering"},
    {.key = "run.iterations", .type = UM_OPT_INT, .def = "5000", .min = 1, .max = 2147483647, .flags = UM_OPT_RANGE,
     .range_hint = "must be >= 1", .help = "maximum sweeps"},
    {.key = "params.tolerance", .type = UM_OPT_DOUBLE, .def = "1e-12",
     .help = "stop when max |du| is below (0: run all run.iterations)"},
};

static int jacobi_run(um_app_run *r) {
  int N, seed, iters;
  double tol;
  UM_APP_TRY(um_app_choice(r, "mesh.generator", NULL, NULL));
  UM_APP_TRY(um_app_int(r, "mesh.N", &N));
  UM_APP_TRY(um_app_int(r, "mesh.seed", &seed));
  UM_APP_TRY(um_app_int(r, "run.iterations", &iters));
  UM_APP_TRY(um_app_double(r, "params.tolerance", &tol));
  if (!(tol >= 0) || !isfinite(tol)) /* nan or negative: the test below would never (or always) stop the sweeps */
    return um_app_fail(r, UM_ERR_CONFIG, "params.tolerance = %g: use a finite number >= 0 (0: run all run.iterations)",
                       tol);

  const int nn = (N + 1) * (N + 1), ne = 2 * N * (N + 1);
  int *perm = malloc(sizeof(int) * (size_t)nn), *eperm = malloc(sizeof(int) * (size_t)ne);
  int *edge = malloc(sizeof(int) * 2 * (size_t)ne), *bnd = malloc(sizeof(int) * (size_t)nn);
  double *x = malloc(sizeof(double) * 2 * (size_t)nn), *u = malloc(sizeof(double) * (size_t)nn);
  if (!perm || !eperm || !edge || !bnd || !x || !u) {
    free(perm); free(eperm); free(edge); free(bnd); free(x); free(u);
    return um_app_fail(r, UM_ERR_ALLOC, "out of memory for a %d x %d grid", N, N);
  }
  uint64_t s = (uint64_t)seed;
  shuffle(perm, nn, &s);  /* node (i,j) gets number perm[i*(N+1)+j] */
  shuffle(eperm, ne, &s); /* edge k gets number eperm[k] */
  for (int i = 0; i <= N; i++)
    for (int j = 0; j <= N; j++) {
      int n = perm[i * (N + 1) + j];
      double xx = (double)i / N, yy = (double)j / N;
      x[2 * n] = xx;
      x[2 * n + 1] = yy;
      bnd[n] = (i == 0 || j == 0 || i == N || j == N);
      u[n] = bnd[n] ? xx * xx - yy * yy + 0.5 * xx * yy : 0.0;
    }
  int k = 0;
  for (int i = 0; i <= N; i++)
    for (int j = 0; j <= N; j++) {
      int a = perm[i * (N + 1) + j];
      if (i < N) { edge[2 * eperm[k]] = a; edge[2 * eperm[k] + 1] = perm[(i + 1) * (N + 1) + j]; k++; }
      if (j < N) { edge[2 * eperm[k]] = a; edge[2 * eperm[k] + 1] = perm[i * (N + 1) + j + 1]; k++; }
    }
  um_context *ctx = r->ctx;
  um_set *nodes, *edges;
  um_map *pedge;
  um_dat *p_x, *p_u, *p_s, *p_deg, *p_bnd;
  int rc = um_decl_set(ctx, nn, "nodes", &nodes);
  if (!rc) rc = um_decl_set(ctx, ne, "edges", &edges);
  if (!rc) rc = um_decl_map(ctx, edges, nodes, 2, edge, "pedge", &pedge);
  if (!rc) rc = um_decl_dat(ctx, nodes, 2, UM_DOUBLE, x, "x", &p_x);
  if (!rc) rc = um_decl_dat(ctx, nodes, 1, UM_DOUBLE, u, "u", &p_u);
  if (!rc) rc = um_decl_dat(ctx, nodes, 1, UM_DOUBLE, NULL, "s", &p_s);
  if (!rc) rc = um_decl_dat(ctx, nodes, 1, UM_INT, NULL, "deg", &p_deg);
  if (!rc) rc = um_decl_dat(ctx, nodes, 1, UM_INT, bnd, "boundary", &p_bnd);
  free(perm); free(eperm); free(edge); free(bnd); free(x); free(u);
  if (rc) return rc;
  UM_APP_TRY(um_app_prepare(r, "pedge"));
  fprintf(r->log, "jacobi: %d x %d grid, %d nodes, %d edges, numbering shuffled (seed %d)\n", N, N, nn, ne, seed);

  r->setup_seconds = 0;
  UM_APP_TRY(UM_PAR_LOOP(ctx, degree_kernel, "degree", edges, um_arg_dat(p_deg, 0, pedge, 1, UM_INT, UM_INC),
                         um_arg_dat(p_deg, 1, pedge, 1, UM_INT, UM_INC)));
  double maxdu = 0, sumdu2 = 0;
  int it;
  for (it = 1; it <= iters; it++) {
    UM_APP_TRY(UM_PAR_LOOP(ctx, gather_kernel, "gather", edges, um_arg_dat(p_u, 0, pedge, 1, UM_DOUBLE, UM_READ),
                           um_arg_dat(p_u, 1, pedge, 1, UM_DOUBLE, UM_READ),
                           um_arg_dat(p_s, 0, pedge, 1, UM_DOUBLE, UM_INC),
                           um_arg_dat(p_s, 1, pedge, 1, UM_DOUBLE, UM_INC)));
    maxdu = 0;
    sumdu2 = 0;
    UM_APP_TRY(UM_PAR_LOOP(ctx, relax_kernel, "relax", nodes, um_arg_dat(p_deg, -1, UM_ID, 1, UM_INT, UM_READ),
                           um_arg_dat(p_bnd, -1, UM_ID, 1, UM_INT, UM_READ),
                           um_arg_dat(p_s, -1, UM_ID, 1, UM_DOUBLE, UM_RW),
                           um_arg_dat(p_u, -1, UM_ID, 1, UM_DOUBLE, UM_RW), um_arg_gbl(&maxdu, 1, UM_DOUBLE, UM_MAX),
                           um_arg_gbl(&sumdu2, 1, UM_DOUBLE, UM_INC)));
    if (it % 500 == 0) fprintf(r->log, "  iteration %5d  max|du| %.6e  |du| %.6e\n", it, maxdu, sqrt(sumdu2));
    um_app_progress(r, "jacobi", it, iters);
    if (maxdu < tol) break;
  }
  if (it > iters) it = iters;
  um_app_progress(r, "jacobi", iters, iters);
  double maxerr = 0;
  UM_APP_TRY(UM_PAR_LOOP(ctx, max_error_kernel, "max_error", nodes, um_arg_dat(p_x, -1, UM_ID, 2, UM_DOUBLE, UM_READ),
                         um_arg_dat(p_u, -1, UM_ID, 1, UM_DOUBLE, UM_READ), um_arg_gbl(&maxerr, 1, UM_DOUBLE, UM_MAX)));
  fprintf(r->log, "jacobi: %d iterations, last max|du| %.3e, max error against the exact solution %.3e\n", it, maxdu,
          maxerr);
  UM_APP_TRY(um_app_metric(r, "nodes", nn));
  UM_APP_TRY(um_app_metric(r, "edges", ne));
  UM_APP_TRY(um_app_metric(r, "max_error", maxerr));
  UM_APP_TRY(um_app_metric(r, "iterations", it));
  if (um_app_wants_field(r, "u")) UM_APP_TRY(write_u(r, p_x, p_u, N));
  return UM_SUCCESS;
}

const um_app um_app_jacobi = {
    .name = "jacobi",
    .description = "Jacobi iteration for Laplace's equation on a shuffled grid graph (teaching example)",
    .run = jacobi_run,
    .options = jacobi_options,
    .noptions = (int)(sizeof jacobi_options / sizeof jacobi_options[0]),
    /* what makes it different (umrun --report) */
    .report_note =
        "Jacobi is OP2's small teaching example: a sparse matrix stored on edges, an iteration that increments node "
        "values through the edge-to-node map, and a direct update with a reduction. Small enough to read whole."};
