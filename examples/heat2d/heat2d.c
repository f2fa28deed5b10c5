/* heat2d: the heat equation on an unstructured triangle mesh, the example app
 * built against an installed um (docs/library.md; the commands in examples/heat2d/CMakeLists.txt).
 *
 * The unit square is cut into N x N squares, each into two triangles, and the
 * nodes and triangles are numbered at random: only the map "corners" (cell ->
 * its 3 nodes) knows the mesh. Linear finite elements with a lumped mass give,
 * on this mesh, exactly the 5-point Laplacian, whose eigenvector
 * sin(pi x) sin(pi y) (zero on the boundary) decays under explicit Euler steps
 * by g = 1 - dt kappa (8/h^2) sin^2(pi h / 2) per step. So the app knows the
 * exact discrete solution u_n = g^n sin(pi x) sin(pi y) and measures its own
 * error against it; the energy sum m u^2 is g^(2n) / 4 for even N.
 *
 * Config: mesh: {N: 32, seed: 7}; params: {kappa: 1.0, cfl: 0.5}
 *         (dt = cfl * h^2 / (4 kappa); cfl <= 1 is stable); run.iterations: steps. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "um/app.h"
#include "heat2d_kernels.h"

extern const char heat2d_kernels_source[]; /* the kernels' text (um_add_kernels / um-embed) */
UM_KERNEL_DEFINE(lumped_mass, 6, heat2d_kernels_source, "heat2d_kernels.h");
UM_KERNEL_DEFINE(stiffness, 9, heat2d_kernels_source, "heat2d_kernels.h");
UM_KERNEL_DEFINE(update, 5, heat2d_kernels_source, "heat2d_kernels.h");
UM_KERNEL_DEFINE(measure, 6, heat2d_kernels_source, "heat2d_kernels.h");

/* A random permutation of 0..n-1 (splitmix64: the same on every machine). */
static void shuffle(int *p, int n, uint64_t *s) {
  for (int i = 0; i < n; i++) p[i] = i;
  for (int i = n - 1; i > 0; i--) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    int j = (int)((z ^ (z >> 31)) % (uint64_t)(i + 1)), t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
}

/* heat2d's options, declared once: the reads below take their defaults and ranges from here, and
 * `heat2d --list-apps` prints them. */
static const um_option heat2d_options[] = {
    {.key = "mesh.N", .type = UM_OPT_INT, .def = "32", .min = 2, .max = 4000, .flags = UM_OPT_RANGE,
     .range_hint = "use an even 2..4000", .help = "squares per side (even), each cut into two triangles"},
    {.key = "mesh.seed", .type = UM_OPT_INT, .def = "7", .help = "seed of the shuffled numbering"},
    {.key = "params.kappa", .type = UM_OPT_DOUBLE, .def = "1.0", .min = 1e-300, .max = 1e300, .flags = UM_OPT_RANGE,
     .range_hint = "must be > 0", .help = "diffusivity"},
    {.key = "params.cfl", .type = UM_OPT_DOUBLE, .def = "0.5", .min = 1e-300, .max = 1, .flags = UM_OPT_RANGE,
     .range_hint = "use 0 < cfl <= 1 (stability)", .help = "time step dt = cfl h^2 / (4 kappa)"},
    {.key = "run.iterations", .type = UM_OPT_INT, .def = "200", .min = 1, .max = 2147483647, .flags = UM_OPT_RANGE,
     .range_hint = "must be >= 1", .help = "time steps"},
};

static int heat2d_run(um_app_run *r) {
  int N, seed, steps;
  double kappa, cfl;
  UM_APP_TRY(um_app_int(r, "mesh.N", &N));
  UM_APP_TRY(um_app_int(r, "mesh.seed", &seed));
  UM_APP_TRY(um_app_int(r, "run.iterations", &steps));
  UM_APP_TRY(um_app_double(r, "params.kappa", &kappa));
  UM_APP_TRY(um_app_double(r, "params.cfl", &cfl));
  if (N % 2) return um_app_fail(r, UM_ERR_CONFIG, "mesh.N = %d: use an even 2..4000", N);

  const int nn = (N + 1) * (N + 1), nc = 2 * N * N;
  const double h = 1.0 / N, dt_kappa = cfl * h * h / 4.0;
  int *perm = malloc(sizeof(int) * (size_t)nn), *cperm = malloc(sizeof(int) * (size_t)nc);
  int *corners = malloc(sizeof(int) * 3 * (size_t)nc), *bnd = malloc(sizeof(int) * (size_t)nn);
  double *x = malloc(sizeof(double) * 2 * (size_t)nn), *u = malloc(sizeof(double) * (size_t)nn);
  if (!perm || !cperm || !corners || !bnd || !x || !u) {
    free(perm), free(cperm), free(corners), free(bnd), free(x), free(u);
    return um_app_fail(r, UM_ERR_ALLOC, "out of memory for a %d x %d mesh", N, N);
  }
  uint64_t s = (uint64_t)seed;
  shuffle(perm, nn, &s);  /* node (i,j) is perm[i*(N+1)+j] */
  shuffle(cperm, nc, &s); /* triangle k is cperm[k] */
  const double pi = 3.14159265358979323846;
  for (int i = 0; i <= N; i++)
    for (int j = 0; j <= N; j++) {
      const int n = perm[i * (N + 1) + j];
      x[2 * n] = i * h;
      x[2 * n + 1] = j * h;
      bnd[n] = i == 0 || j == 0 || i == N || j == N;
      u[n] = bnd[n] ? 0.0 : sin(pi * i * h) * sin(pi * j * h);
    }
  for (int i = 0, k = 0; i < N; i++)
    for (int j = 0; j < N; j++) { /* the square's two triangles, counter-clockwise */
      const int a = perm[i * (N + 1) + j], b = perm[(i + 1) * (N + 1) + j];
      const int c = perm[(i + 1) * (N + 1) + j + 1], d = perm[i * (N + 1) + j + 1];
      int *t = corners + 3 * cperm[k++];
      t[0] = a, t[1] = b, t[2] = c;
      t = corners + 3 * cperm[k++];
      t[0] = a, t[1] = c, t[2] = d;
    }
  um_context *ctx = r->ctx;
  um_set *nodes, *cells;
  um_map *corner;
  um_dat *p_x, *p_u, *p_r, *p_m, *p_bnd;
  int rc = um_decl_set(ctx, nn, "nodes", &nodes);
  if (!rc) rc = um_decl_set(ctx, nc, "cells", &cells);
  if (!rc) rc = um_decl_map(ctx, cells, nodes, 3, corners, "corners", &corner);
  if (!rc) rc = um_decl_dat(ctx, nodes, 2, UM_DOUBLE, x, "x", &p_x);
  if (!rc) rc = um_decl_dat(ctx, nodes, 1, UM_DOUBLE, u, "u", &p_u);
  if (!rc) rc = um_decl_dat(ctx, nodes, 1, UM_DOUBLE, NULL, "r", &p_r);
  if (!rc) rc = um_decl_dat(ctx, nodes, 1, UM_DOUBLE, NULL, "mass", &p_m);
  if (!rc) rc = um_decl_dat(ctx, nodes, 1, UM_INT, bnd, "boundary", &p_bnd);
  free(perm), free(cperm), free(corners), free(bnd), free(x), free(u);
  if (rc) return rc;
  UM_APP_TRY(um_app_prepare(r, "corners")); /* reordering, MPI partitioning, unknown-key check */
  fprintf(r->log, "heat2d: %d x %d squares, %d nodes, %d triangles, numbering shuffled (seed %d)\n", N, N, nn, nc,
          seed);

  UM_APP_TRY(UM_PAR_LOOP(ctx, lumped_mass_kernel, "lumped_mass", cells,
                         um_arg_dat(p_x, 0, corner, 2, UM_DOUBLE, UM_READ),
                         um_arg_dat(p_x, 1, corner, 2, UM_DOUBLE, UM_READ),
                         um_arg_dat(p_x, 2, corner, 2, UM_DOUBLE, UM_READ),
                         um_arg_dat(p_m, 0, corner, 1, UM_DOUBLE, UM_INC),
                         um_arg_dat(p_m, 1, corner, 1, UM_DOUBLE, UM_INC),
                         um_arg_dat(p_m, 2, corner, 1, UM_DOUBLE, UM_INC)));
  for (int n = 1; n <= steps; n++) {
    UM_APP_TRY(UM_PAR_LOOP(ctx, stiffness_kernel, "stiffness", cells,
                           um_arg_dat(p_x, 0, corner, 2, UM_DOUBLE, UM_READ),
                           um_arg_dat(p_x, 1, corner, 2, UM_DOUBLE, UM_READ),
                           um_arg_dat(p_x, 2, corner, 2, UM_DOUBLE, UM_READ),
                           um_arg_dat(p_u, 0, corner, 1, UM_DOUBLE, UM_READ),
                           um_arg_dat(p_u, 1, corner, 1, UM_DOUBLE, UM_READ),
                           um_arg_dat(p_u, 2, corner, 1, UM_DOUBLE, UM_READ),
                           um_arg_dat(p_r, 0, corner, 1, UM_DOUBLE, UM_INC),
                           um_arg_dat(p_r, 1, corner, 1, UM_DOUBLE, UM_INC),
                           um_arg_dat(p_r, 2, corner, 1, UM_DOUBLE, UM_INC)));
    double dk = dt_kappa;
    UM_APP_TRY(UM_PAR_LOOP(ctx, update_kernel, "update", nodes, um_arg_dat(p_m, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                           um_arg_dat(p_bnd, -1, UM_ID, 1, UM_INT, UM_READ), um_arg_gbl(&dk, 1, UM_DOUBLE, UM_READ),
                           um_arg_dat(p_r, -1, UM_ID, 1, UM_DOUBLE, UM_RW),
                           um_arg_dat(p_u, -1, UM_ID, 1, UM_DOUBLE, UM_RW)));
    um_app_progress(r, "heat2d", n, steps);
  }
  const double s2 = sin(pi * h / 2), g = 1.0 - dt_kappa * 8.0 / (h * h) * s2 * s2;
  double amplitude = pow(g, steps), maxerr = 0, energy = 0;
  UM_APP_TRY(UM_PAR_LOOP(ctx, measure_kernel, "measure", nodes, um_arg_dat(p_x, -1, UM_ID, 2, UM_DOUBLE, UM_READ),
                         um_arg_dat(p_m, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                         um_arg_dat(p_u, -1, UM_ID, 1, UM_DOUBLE, UM_READ), um_arg_gbl(&amplitude, 1, UM_DOUBLE, UM_READ),
                         um_arg_gbl(&maxerr, 1, UM_DOUBLE, UM_MAX), um_arg_gbl(&energy, 1, UM_DOUBLE, UM_INC)));
  fprintf(r->log, "heat2d: %d steps of dt = %.4e, amplitude %.12f, max error against the exact solution %.3e\n", steps,
          dt_kappa / kappa, amplitude, maxerr);
  UM_APP_TRY(um_app_metric(r, "nodes", nn));
  UM_APP_TRY(um_app_metric(r, "cells", nc));
  UM_APP_TRY(um_app_metric(r, "energy", energy));
  UM_APP_TRY(um_app_metric(r, "max_error", maxerr));
  return UM_SUCCESS;
}

const um_app um_app_heat2d = {
    .name = "heat2d",
    .description = "the heat equation on a shuffled triangle mesh (the installed-library example)",
    .run = heat2d_run,
    .options = heat2d_options,
    .noptions = (int)(sizeof heat2d_options / sizeof heat2d_options[0])};
