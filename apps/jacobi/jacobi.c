/* Jacobi: solve Laplace's equation on a square grid seen as an unstructured
 * graph (nodes and edges, renumbered at random so that nothing but the maps
 * knows the structure). Boundary nodes hold u = x^2 - y^2 + xy/2, which is
 * harmonic for the 5-point Laplacian, so the converged interior equals it
 * exactly: the app measures its own error against that closed form.
 *
 * With outputs on, or when the reference compares it, the app writes the
 * field u (jacobi_u.txt: "x y u" per node in grid order) for validation.
 *
 * Under mpirun (mpi.mesh: blocks, the default) each rank declares only its block of the nodes and edges
 * (jacobi_grid_generate); the shuffles are global permutations, which every rank draws whole (4 bytes per node
 * and per edge) to find its rows.
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
#include "jacobi.h"
#include "um/distributed.h"

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

/* The grid graph of N x N cells, numbered at random: grid node (i, j) (of (N+1)^2, j fastest) gets number
 * perm[i * (N+1) + j], and the k-th grid edge (in the order (i, j) -> (i+1, j), (i, j) -> (i, j+1) over the
 * nodes) number eperm[k], both Fisher-Yates shuffles of one splitmix64 stream. A shuffle is a global permutation:
 * no number's grid node is known without drawing the whole of it, so a block (nranks > 1) draws both permutations
 * whole (4 bytes per node and per edge) and keeps only its rows: the block partitioner's ranges of the node and the
 * edge numbers (um_block_range), the same code for the whole grid (rank 0 of 1). */
int jacobi_grid_generate(int N, uint64_t seed, int rank, int nranks, jacobi_grid *g, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  const long long W = N + 1;
  g->nnode = W * W;
  g->nedge = 2 * (long long)N * W;
  if (um_block_range(g->nnode, rank, nranks, &g->node_first, &g->node_count) ||
      um_block_range(g->nedge, rank, nranks, &g->edge_first, &g->edge_count))
    return um_format_error(err, errlen, UM_ERR_ARG, "rank %d of %d: no block", rank, nranks);
  const size_t nc = (size_t)g->node_count, ec = (size_t)g->edge_count;
  int *perm = malloc(sizeof(int) * (size_t)g->nnode), *eperm = malloc(sizeof(int) * (size_t)g->nedge);
  g->x = malloc(sizeof(double) * 2 * (nc ? nc : 1));
  g->u = malloc(sizeof(double) * (nc ? nc : 1));
  g->bnd = malloc(sizeof(int) * (nc ? nc : 1));
  g->edge = malloc(sizeof(long long) * 2 * (ec ? ec : 1));
  if (!perm || !eperm || !g->x || !g->u || !g->bnd || !g->edge) {
    free(perm), free(eperm), jacobi_grid_free(g);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory for a %d x %d grid", N, N);
  }
  uint64_t s = seed;
  shuffle(perm, (int)g->nnode, &s);
  shuffle(eperm, (int)g->nedge, &s);
  for (int i = 0; i <= N; i++)
    for (int j = 0; j <= N; j++) {
      const long long n = perm[i * W + j] - g->node_first;
      if (n < 0 || n >= g->node_count) continue;
      const double xx = (double)i / N, yy = (double)j / N;
      g->x[2 * n] = xx;
      g->x[2 * n + 1] = yy;
      g->bnd[n] = (i == 0 || j == 0 || i == N || j == N);
      g->u[n] = g->bnd[n] ? xx * xx - yy * yy + 0.5 * xx * yy : 0.0;
    }
  long long k = 0;
  for (int i = 0; i <= N; i++)
    for (int j = 0; j <= N; j++)
      for (int d = 0; d < 2; d++) {
        if (d == 0 ? i == N : j == N) continue;
        const long long e = eperm[k++] - g->edge_first;
        if (e < 0 || e >= g->edge_count) continue;
        g->edge[2 * e] = perm[i * W + j];
        g->edge[2 * e + 1] = d == 0 ? perm[(i + 1) * W + j] : perm[i * W + j + 1];
      }
  free(perm), free(eperm);
  return 0;
}

void jacobi_grid_free(jacobi_grid *g) {
  free(g->x), free(g->u), free(g->bnd), free(g->edge);
  memset(g, 0, sizeof *g);
}

int jacobi_decl(um_context *ctx, const jacobi_grid *g, int blocks, jacobi_mesh *m) {
  memset(m, 0, sizeof *m);
  int rc = UM_SUCCESS;
  if (blocks) {
    rc = um_decl_set_block(ctx, g->nnode, g->node_first, g->node_count, "nodes", &m->nodes);
    if (!rc) rc = um_decl_set_block(ctx, g->nedge, g->edge_first, g->edge_count, "edges", &m->edges);
    if (!rc) rc = um_decl_map_block(ctx, m->edges, m->nodes, 2, g->edge, "pedge", &m->pedge);
  } else { /* the whole grid (g: rank 0 of 1) */
    int *edge = malloc(sizeof(int) * 2 * (size_t)(g->nedge ? g->nedge : 1));
    for (size_t k = 0; edge && k < 2 * (size_t)g->nedge; k++) edge[k] = (int)g->edge[k];
    rc = edge ? um_decl_set(ctx, (int)g->nnode, "nodes", &m->nodes) : UM_ERR_ALLOC;
    if (!rc) rc = um_decl_set(ctx, (int)g->nedge, "edges", &m->edges);
    if (!rc) rc = um_decl_map(ctx, m->edges, m->nodes, 2, edge, "pedge", &m->pedge);
    free(edge);
  }
  if (!rc) rc = um_decl_dat(ctx, m->nodes, 2, UM_DOUBLE, g->x, "x", &m->x);
  if (!rc) rc = um_decl_dat(ctx, m->nodes, 1, UM_DOUBLE, g->u, "u", &m->u);
  if (!rc) rc = um_decl_dat(ctx, m->nodes, 1, UM_DOUBLE, NULL, "s", &m->s);
  if (!rc) rc = um_decl_dat(ctx, m->nodes, 1, UM_INT, NULL, "deg", &m->deg);
  if (!rc) rc = um_decl_dat(ctx, m->nodes, 1, UM_INT, g->bnd, "boundary", &m->bnd);
  return rc;
}

int jacobi_degree(um_context *ctx, const jacobi_mesh *m) {
  return UM_PAR_LOOP(ctx, degree_kernel, "degree", m->edges, um_arg_dat(m->deg, 0, m->pedge, 1, UM_INT, UM_INC),
                     um_arg_dat(m->deg, 1, m->pedge, 1, UM_INT, UM_INC));
}

int jacobi_sweep(um_context *ctx, const jacobi_mesh *m, double *maxdu, double *sumdu2) {
  *maxdu = 0;
  *sumdu2 = 0;
  UM_APP_TRY(UM_PAR_LOOP(ctx, gather_kernel, "gather", m->edges, um_arg_dat(m->u, 0, m->pedge, 1, UM_DOUBLE, UM_READ),
                         um_arg_dat(m->u, 1, m->pedge, 1, UM_DOUBLE, UM_READ),
                         um_arg_dat(m->s, 0, m->pedge, 1, UM_DOUBLE, UM_INC),
                         um_arg_dat(m->s, 1, m->pedge, 1, UM_DOUBLE, UM_INC)));
  return UM_PAR_LOOP(ctx, relax_kernel, "relax", m->nodes, um_arg_dat(m->deg, -1, UM_ID, 1, UM_INT, UM_READ),
                     um_arg_dat(m->bnd, -1, UM_ID, 1, UM_INT, UM_READ),
                     um_arg_dat(m->s, -1, UM_ID, 1, UM_DOUBLE, UM_RW), um_arg_dat(m->u, -1, UM_ID, 1, UM_DOUBLE, UM_RW),
                     um_arg_gbl(maxdu, 1, UM_DOUBLE, UM_MAX), um_arg_gbl(sumdu2, 1, UM_DOUBLE, UM_INC));
}

/* The field "u" as text for validation: one line "x y u" per node, in grid
 * order (i along x, then j along y) whatever the numbering, so that the file
 * compares with one written from the closed form. Written by blocks: each rank
 * fetches its block of the nodes, sends each value to the block of the grid
 * order that holds its grid point (um_rows_to_blocks), formats that block's
 * lines, and the ranks write them one after the other (um_app_write_blocks):
 * the one process's file, with no rank holding the whole field. */
static int write_u(um_app_run *r, um_dat *p_x, um_dat *p_u, int N) {
  const int nn = (N + 1) * (N + 1);
  char path[UM_APP_FIELD_PATH_MAX];
  if (snprintf(path, sizeof path, "%s/jacobi_u.txt", um_app_field_dir(r)) >= (int)sizeof path)
    return um_app_fail(r, UM_ERR_ARG, "field u: output folder name too long");
  long long b = 0, gb = 0;
  int n = 0, gn = 0;
  UM_APP_TRY(um_set_block(r->ctx, um_dat_set(p_u), &b, &n));
  UM_APP_TRY(um_block_range(nn, um_context_rank(r->ctx), um_context_nranks(r->ctx), &gb, &gn));
  double *x = malloc(sizeof(double) * 2 * (size_t)(n + 1)), *u = malloc(sizeof(double) * (size_t)(n + 1));
  double *grid = malloc(sizeof(double) * (size_t)(gn + 1));
  int *key = malloc(sizeof(int) * (size_t)(n + 1));
  char *text = malloc((size_t)gn * 72 + 1); /* three %.10g of at most 17 characters and separators per line */
  int rc = !x || !u || !grid || !key || !text ? um_app_fail(r, UM_ERR_ALLOC, "field u: out of memory") : UM_SUCCESS;
  rc = um_app_agree(r, rc, "allocate its block of field u");
  if (!rc) rc = um_dat_fetch_block(r->ctx, p_x, x, sizeof(double) * 2 * (size_t)n);
  if (!rc) rc = um_dat_fetch_block(r->ctx, p_u, u, sizeof(double) * (size_t)n);
  for (int k = 0; !rc && k < n; k++) {
    long i = lround(x[2 * k] * N), j = lround(x[2 * k + 1] * N);
    if (i < 0 || i > N || j < 0 || j > N)
      rc = um_app_fail(r, UM_ERR_INTERNAL, "field u: node %lld is off the grid", b + k);
    else
      key[k] = (int)(i * (N + 1) + j);
  }
  rc = um_app_agree(r, rc, "place its nodes of field u on the grid");
  if (!rc) rc = um_rows_to_blocks(r->ctx, n, key, u, sizeof(double), nn, grid, sizeof(double) * (size_t)gn);
  size_t len = 0;
  for (int k = 0; !rc && k < gn; k++) {
    const long long g = gb + k;
    len += (size_t)sprintf(text + len, "%.10g %.10g %.10g\n", (double)(g / (N + 1)) / N, (double)(g % (N + 1)) / N,
                           grid[k]);
  }
  if (!rc) rc = um_app_write_blocks(r, path, NULL, text, len, "field u");
  free(x);
  free(u);
  free(grid);
  free(key);
  free(text);
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
     .range_hint = "must be >= 1",
     .help = "maximum sweeps; with output: {dir: ..., hdf5: true} the mesh and its dats go to jacobi.h5 + "
             "jacobi.xmf (the edges)"},
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

  um_context *ctx = r->ctx;
  int blocks = 0;
  UM_APP_TRY(um_app_by_blocks(r, &blocks));
  jacobi_grid g;
  char err[256];
  const double t0 = um_wtime();
  const int grc = jacobi_grid_generate(N, (uint64_t)seed, blocks ? um_mpi_rank() : 0, blocks ? um_mpi_size() : 1,
                                       &g, err, sizeof err);
  if (grc) return um_app_fail(r, grc, "mesh generator grid (N = %d): %s", N, err);
  const int nn = (int)g.nnode, ne = (int)g.nedge;
  jacobi_mesh jm;
  const int rc = jacobi_decl(ctx, &g, blocks, &jm);
  jacobi_grid_free(&g);
  um_set *nodes = jm.nodes;
  um_dat *p_x = jm.x, *p_u = jm.u;
  if (rc) return rc;
  if (blocks)
    fprintf(r->log, "jacobi: this rank's block of the grid generated in %.2f s (the shuffles are global: each rank "
                    "draws both permutations whole, %zu bytes, and keeps its rows); blocks of a shuffled numbering are "
                    "a random partition, so partition it with mpi.partitioner: ptscotch (metis and block keep the "
                    "blocks) or declare it whole (mpi.mesh: whole)\n",
            um_wtime() - t0, sizeof(int) * (size_t)(nn + ne));
  UM_APP_TRY(um_app_prepare(r, "pedge"));
  fprintf(r->log, "jacobi: %d x %d grid, %d nodes, %d edges, numbering shuffled (seed %d)\n", N, N, nn, ne, seed);

  um_app_setup_done(r, t0);
  UM_APP_TRY(jacobi_degree(ctx, &jm));
  double maxdu = 0, sumdu2 = 0;
  long done = 0; /* sweeps done: a restart continues after the checkpoint's */
  UM_APP_TRY(um_app_state(r, "maxdu", &maxdu, sizeof maxdu));
  UM_APP_TRY(um_app_state(r, "sumdu2", &sumdu2, sizeof sumdu2));
  UM_APP_TRY(um_app_resume(r, &done));
  int it;
  const int converged = done > 0 && maxdu < tol; /* a restart from the sweep that met the tolerance */
  for (it = (int)done + 1; it <= iters && !converged; it++) {
    UM_APP_TRY(jacobi_sweep(ctx, &jm, &maxdu, &sumdu2));
    if (it % 500 == 0) fprintf(r->log, "  iteration %5d  max|du| %.6e  |du| %.6e\n", it, maxdu, sqrt(sumdu2));
    um_app_progress(r, "jacobi", it, iters);
    UM_APP_TRY(um_app_step_end_last(r, it, it == iters || maxdu < tol));
    if (maxdu < tol) break;
  }
  UM_APP_TRY(um_app_loop_done(r));
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
  /* output.hdf5: the mesh and every dat (u among them: node-centred, in the .h5 only); the edges as polylines */
  return um_app_write_mesh_xdmf(r, "jacobi", "x", 2, "pedge", NULL, NULL, 0);
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
