/* The SIAC app's setup and results: the mesh (generated, read or refined), the dG
 * solution (projected or read from HDF5), the neighbourhoods, the kernel's
 * constants, the declarations; then the errors, the fields and the outputs. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "um/distributed.h"
#include "um/hdf5io.h"
#include "um/safe_file.h"
#include "siac_internal.h"
#include "siac_kernels.h"
#include "siac_mesh.h"
#include "siac_setup.h"

extern const char siac_kernels_source[];
UM_KERNEL_DEFINE(siac_per_point, 6, siac_kernels_source, "siac_kernels.h");
UM_KERNEL_DEFINE(siac_per_element, 6, siac_kernels_source, "siac_kernels.h");
UM_KERNEL_DEFINE(siac_zero, 1, siac_kernels_source, "siac_kernels.h");
UM_KERNEL_DEFINE(siac_errors, 6, siac_kernels_source, "siac_kernels.h");
UM_KERNEL_DEFINE(siac_diff, 3, siac_kernels_source, "siac_kernels.h");
UM_KERNEL_DEFINE(siac_per_point_single, 7, siac_kernels_source, "siac_kernels.h");
UM_KERNEL_DEFINE(siac_points_to_cell, 2, siac_kernels_source, "siac_kernels.h");
UM_KERNEL_DEFINE(siac_per_point_grid, 7, siac_kernels_source, "siac_kernels.h");
UM_KERNEL_DEFINE(siac_per_element_grid, 8, siac_kernels_source, "siac_kernels.h");
UM_KERNEL_DEFINE(siac_point_xy, 3, siac_kernels_source, "siac_kernels.h");
UM_KERNEL_DEFINE(siac_zero1, 1, siac_kernels_source, "siac_kernels.h");
UM_KERNEL_DEFINE(siac_per_point_grid_items, 8, siac_kernels_source, "siac_kernels.h");

UM_CONST_DEFINE(int, siac_k);
UM_CONST_DEFINE(int, siac_nb);
UM_CONST_DEFINE(int, siac_nq);
UM_CONST_DEFINE(int, siac_ns);
UM_CONST_DEFINE(double, siac_h);
UM_CONST_DEFINE(double, siac_kpoly[40]);
UM_CONST_DEFINE(double, siac_qr[16]);
UM_CONST_DEFINE(double, siac_qs[16]);
UM_CONST_DEFINE(double, siac_qw[16]);
UM_CONST_DEFINE(double, siac_sr[25]);
UM_CONST_DEFINE(double, siac_ss[25]);
UM_CONST_DEFINE(double, siac_sw[25]);

/* Publish the filter's constants for degree k and scale h (host copies and every backend's). */
static int publish_constants(um_app_run *r, int k, double h) {
  siac_consts c;
  if (siac_consts_fill(k, h, &c)) return um_app_fail(r, UM_ERR_CONFIG, "%s", c.error);
  siac_k = c.k;
  siac_nb = c.nb;
  siac_nq = c.nq;
  siac_ns = c.ns;
  siac_h = c.h;
  memcpy(siac_kpoly, c.kpoly, sizeof siac_kpoly);
  memcpy(siac_qr, c.qr, sizeof siac_qr);
  memcpy(siac_qs, c.qs, sizeof siac_qs);
  memcpy(siac_qw, c.qw, sizeof siac_qw);
  memcpy(siac_sr, c.sr, sizeof siac_sr);
  memcpy(siac_ss, c.ss, sizeof siac_ss);
  memcpy(siac_sw, c.sw, sizeof siac_sw);
  um_context *ctx = r->ctx;
  UM_APP_TRY(um_decl_const(ctx, "siac_k", 1, UM_INT, &siac_k));
  UM_APP_TRY(um_decl_const(ctx, "siac_nb", 1, UM_INT, &siac_nb));
  UM_APP_TRY(um_decl_const(ctx, "siac_nq", 1, UM_INT, &siac_nq));
  UM_APP_TRY(um_decl_const(ctx, "siac_ns", 1, UM_INT, &siac_ns));
  UM_APP_TRY(um_decl_const(ctx, "siac_h", 1, UM_DOUBLE, &siac_h));
  UM_APP_TRY(um_decl_const(ctx, "siac_kpoly", 40, UM_DOUBLE, siac_kpoly));
  UM_APP_TRY(um_decl_const(ctx, "siac_qr", 16, UM_DOUBLE, siac_qr));
  UM_APP_TRY(um_decl_const(ctx, "siac_qs", 16, UM_DOUBLE, siac_qs));
  UM_APP_TRY(um_decl_const(ctx, "siac_qw", 16, UM_DOUBLE, siac_qw));
  UM_APP_TRY(um_decl_const(ctx, "siac_sr", 25, UM_DOUBLE, siac_sr));
  UM_APP_TRY(um_decl_const(ctx, "siac_ss", 25, UM_DOUBLE, siac_ss));
  UM_APP_TRY(um_decl_const(ctx, "siac_sw", 25, UM_DOUBLE, siac_sw));
  /* the grid search's (siac_grid.c sets them when params.search is grid): published in every run, as every
   * constant of the kernel header must be for its loops to be compiled on the host */
  UM_APP_TRY(um_decl_const(ctx, "siac_nbin", 1, UM_INT, &siac_nbin));
  UM_APP_TRY(um_decl_const(ctx, "siac_reach_t", 1, UM_DOUBLE, &siac_reach_t));
  UM_APP_TRY(um_decl_const(ctx, "siac_eparts", 1, UM_INT, &siac_eparts));
  UM_APP_TRY(um_decl_const(ctx, "siac_pparts", 1, UM_INT, &siac_pparts));
  return UM_SUCCESS;
}

static double exact_fn(double x, double y, void *user) {
  (void)user;
  return siac_exact(x, y);
}

/* Whether the config's `key` was given beside the config file (--set, UM_OPTIONS, a suite case's or a sweep's
 * settings): a request the run cannot honour is then refused; a config file's own value is noted and left. */
static int given_beside_file(um_app_run *r, const char *key) {
  char where[1024];
  return um_config_origin(r->cfg, key, where, sizeof where) == UM_SUCCESS && strncmp(where, "file ", 5) != 0;
}

/* mesh.file is read with params.mesh: file only, and never with params.solution (whose file brings the mesh):
 * given beside the config file where it is not read, it is refused; the config file's own is noted as unused. */
static int mesh_file_used(um_app_run *r, int kind, const char *file, const char *solution) {
  static const char *const kinds[] = {"uniform", "low_variance", "high_variance", "file"};
  if (!file || !*file || (kind == 3 && !(solution && *solution))) return UM_SUCCESS;
  char why[4400];
  if (solution && *solution)
    snprintf(why, sizeof why, "params.solution (%s) brings its own mesh; leave mesh.file out (and params.mesh: file), "
             "or leave params.solution out to filter the projection on mesh.file", solution);
  else
    snprintf(why, sizeof why, "it is read only with params.mesh: file, and params.mesh is %s: set params.mesh: file to "
             "filter on it, or leave mesh.file out", kinds[kind]);
  if (given_beside_file(r, "mesh.file"))
    return um_app_fail(r, UM_ERR_CONFIG, "mesh.file (%s) is not read: %s", file, why);
  fprintf(r->log, "siac: note: the config's mesh.file (%s) is not read: %s\n", file, why);
  return UM_SUCCESS;
}

/* The mesh the config names: uniform, a generated Delaunay mesh, or a file; refined params.refine times.
 * With keys_only, the keys are read (a solution file brings its own mesh) and nothing is made; solution: the
 * params.solution file, or NULL. */
static int load_mesh(um_app_run *r, int keys_only, const char *solution, siac_mesh *m, char *what, size_t wlen) {
  int kind, n, size, refine;
  const char *dir, *file;
  char err[1024], path[4096];
  UM_APP_TRY(um_app_choice(r, "params.mesh", &kind, NULL));
  UM_APP_TRY(um_app_int(r, "params.n", &n));
  UM_APP_TRY(um_app_int(r, "params.size", &size));
  UM_APP_TRY(um_app_string(r, "mesh.dir", &dir));
  UM_APP_TRY(um_app_string(r, "mesh.file", &file));
  UM_APP_TRY(um_app_int(r, "params.refine", &refine));
  UM_APP_TRY(mesh_file_used(r, kind, file, solution));
  if (keys_only) return UM_SUCCESS;
  int rc;
  if (kind == 0) {
    rc = siac_mesh_uniform(n, m, err, sizeof err);
    snprintf(what, wlen, "uniform %d x %d", n, n);
  } else if (kind == 3) {
    if (!file || !*file)
      return um_app_fail(r, UM_ERR_CONFIG, "params.mesh: file needs mesh.file (a Gmsh format-2 triangle mesh)");
    snprintf(path, sizeof path, "%s", file);
    rc = siac_mesh_read(path, m, err, sizeof err);
    snprintf(what, wlen, "%s", path);
  } else {
    snprintf(path, sizeof path, "%s/siac_%s_%dk.msh", dir, kind == 1 ? "low" : "high", size);
    FILE *f = fopen(path, "rb");
    if (!f)
      return um_app_fail(r, UM_ERR_CONFIG,
                         "params.mesh: %s needs %s, which does not exist: make it with "
                         "`bash scripts/siac-meshes.sh -o %s -k %s %d` (needs the Debian package gmsh), or set mesh.dir",
                         kind == 1 ? "low_variance" : "high_variance", path, dir, kind == 1 ? "low" : "high", size);
    fclose(f);
    rc = siac_mesh_read(path, m, err, sizeof err);
    um_app_input(r, path); /* found under mesh.dir, named by no option: the run's JSON lists it with its hash */
    snprintf(what, wlen, "%s-variance Delaunay %s", kind == 1 ? "low" : "high", path);
  }
  if (rc) return um_app_fail(r, UM_ERR_CONFIG, "mesh: %s", err);
  for (int i = 0; i < refine; i++) {
    siac_mesh fine;
    if (siac_mesh_refine(m, &fine, err, sizeof err)) {
      siac_mesh_free(m);
      return um_app_fail(r, UM_ERR_ALLOC, "params.refine: %s", err);
    }
    siac_mesh_free(m);
    *m = fine;
  }
  if (refine) snprintf(what + strlen(what), wlen - strlen(what), ", refined %d times", refine);
  return UM_SUCCESS;
}

/* A solution from an HDF5 file: its sets, map cell_nodes, dats x and coef become the run's. */
static int read_solution(um_app_run *r, siac *s, const char *file, siac_mesh *m) {
  um_context *ctx = r->ctx;
  UM_APP_TRY(um_hdf5_read_set(ctx, file, "nodes", &s->nodes));
  UM_APP_TRY(um_hdf5_read_set(ctx, file, "cells", &s->cells));
  UM_APP_TRY(um_hdf5_read_map_expect(ctx, file, s->cells, s->nodes, 3, "cell_nodes", &s->cell_nodes));
  UM_APP_TRY(um_hdf5_read_dat_expect(ctx, file, s->nodes, 2, UM_DOUBLE, "x", &s->p_x));
  UM_APP_TRY(um_hdf5_read_dat(ctx, file, s->cells, "coef", &s->p_coef));
  const int nb = um_dat_dim(s->p_coef);
  int k = 0;
  for (int d = 1; d <= 3; d++)
    if ((d + 1) * (d + 2) / 2 == nb) k = d;
  if (!k || um_dat_type(s->p_coef) != UM_DOUBLE)
    return um_app_fail(r, UM_ERR_CONFIG,
                       "params.solution %s: dat coef holds %d %s values per cell; a dG solution of degree 1, 2 or 3 "
                       "holds 3, 6 or 10 doubles (the orthonormal modal coefficients)",
                       file, nb, um_type_name(um_dat_type(s->p_coef)));
  int degree = 0; /* the file's degree wins over the config file's; one given beside it must agree */
  UM_APP_TRY(um_app_int(r, "params.degree", &degree));
  if (given_beside_file(r, "params.degree") && degree != k)
    return um_app_fail(r, UM_ERR_CONFIG, "params.degree is %d, but the solution in params.solution %s is of degree %d "
                       "(%d coefficients per cell): give params.degree=%d, or leave it out (the file's degree is "
                       "used)", degree, file, k, nb, k);
  s->k = k;
  m->nnodes = um_set_size(s->nodes);
  m->ncells = um_set_size(s->cells);
  m->xy = malloc(sizeof(double) * 2 * ((size_t)m->nnodes + 1));
  m->tri = malloc(sizeof(int) * 3 * ((size_t)m->ncells + 1));
  double *coef = malloc(sizeof(double) * (size_t)nb * ((size_t)m->ncells + 1));
  int rc = m->xy && m->tri && coef ? UM_SUCCESS : um_app_fail(r, UM_ERR_ALLOC, "params.solution %s: out of memory", file);
  if (!rc) rc = um_dat_fetch(ctx, s->p_x, m->xy, sizeof(double) * 2 * (size_t)m->nnodes);
  if (!rc) rc = um_dat_fetch(ctx, s->p_coef, coef, sizeof(double) * (size_t)nb * (size_t)m->ncells);
  if (!rc && m->ncells) memcpy(m->tri, um_map_data(s->cell_nodes), sizeof(int) * 3 * (size_t)m->ncells);
  for (size_t i = 0; !rc && i < (size_t)nb * (size_t)m->ncells; i++)
    if (!isfinite(coef[i]))
      rc = um_app_fail(r, UM_ERR_CONFIG, "params.solution %s: dat coef, cell %zu, coefficient %zu is %g: a solution "
                       "to filter holds finite numbers", file, i / (size_t)nb, i % (size_t)nb, coef[i]);
  free(coef);
  char err[1024], what[4200];
  snprintf(what, sizeof what, "params.solution %s", file);
  if (!rc && siac_mesh_check(m, what, err, sizeof err)) rc = um_app_fail(r, UM_ERR_CONFIG, "%s", err);
  return rc;
}

int siac_decl_point_set(um_app_run *r, siac *s, const char *what) {
  const size_t np = (size_t)s->ncells * (size_t)s->nq;
  if (np > (size_t)INT32_MAX)
    return um_app_fail(r, UM_ERR_CONFIG, "%s needs %zu evaluation points: too many for one set", what, np);
  int *pcell = malloc(sizeof(int) * np), *pq = malloc(sizeof(int) * np), *cpts = malloc(sizeof(int) * np);
  int rc = !pcell || !pq || !cpts ? um_app_fail(r, UM_ERR_ALLOC, "%s: out of memory for %zu points", what, np)
                                  : UM_SUCCESS;
  for (size_t p = 0; !rc && p < np; p++) {
    pcell[p] = (int)(p / (size_t)s->nq);
    pq[p] = (int)(p % (size_t)s->nq);
    cpts[p] = (int)p;
  }
  um_context *ctx = r->ctx;
  if (!rc) rc = um_decl_set(ctx, (int)np, "points", &s->points);
  if (!rc) rc = um_decl_map(ctx, s->points, s->cells, 1, pcell, "point_cell", &s->pcell);
  if (!rc) rc = um_decl_map(ctx, s->cells, s->points, s->nq, cpts, "cell_points", &s->cpts);
  if (!rc) rc = um_decl_dat(ctx, s->points, 1, UM_INT, pq, "q", &s->p_pq);
  if (!rc) rc = um_decl_dat(ctx, s->points, 1, UM_DOUBLE, NULL, "point_value", &s->p_pval);
  free(pcell);
  free(pq);
  free(cpts);
  return rc;
}

/* A thread per point (params.point_threads: point): the set of points, each with its cell's neighbourhood as its
 * own row (nq copies of the cell's). */
static int decl_points(um_app_run *r, siac *s, const int *nbr, const int *count) {
  const size_t np = (size_t)s->ncells * (size_t)s->nq, a = (size_t)s->arity;
  if (np > (size_t)INT32_MAX || np * a > (size_t)INT32_MAX * (size_t)8)
    return um_app_fail(r, UM_ERR_CONFIG,
                       "params.point_threads: point needs %zu points x %zu neighbours: too many; use "
                       "params.point_threads: cell (the same filter, a thread per cell)", np, a);
  UM_APP_TRY(siac_decl_point_set(r, s, "params.point_threads: point"));
  int *pnn = malloc(sizeof(int) * np), *pnbr = malloc(sizeof(int) * np * a);
  int rc = !pnn || !pnbr
               ? um_app_fail(r, UM_ERR_ALLOC, "params.point_threads: point: out of memory for %zu x %zu neighbours", np, a)
               : UM_SUCCESS;
  for (size_t p = 0; !rc && p < np; p++) {
    const size_t c = p / (size_t)s->nq;
    pnn[p] = count[c];
    memcpy(pnbr + p * a, nbr + c * a, sizeof(int) * a);
  }
  um_context *ctx = r->ctx;
  if (!rc) rc = um_decl_map(ctx, s->points, s->cells, s->arity, pnbr, "point_nbr", &s->pnbr);
  if (!rc) rc = um_decl_dat(ctx, s->points, 1, UM_INT, pnn, "point_nn", &s->p_pnn);
  if (!rc) fprintf(r->log, "siac: a thread per point: %zu points, each with its cell's %d-cell row\n", np, s->arity);
  free(pnn);
  free(pnbr);
  return rc;
}

/* The uniform mesh by blocks (mpi.mesh: blocks under mpirun): this rank's nodes and cells (siac_uniform_block_make:
 * coordinates, triangles, the neighbourhoods of its cells), the map's arity and the neighbour counts' statistics
 * over every rank, its cells' projection; declared by blocks in the order of siac_build's whole declaration. */
static int build_uniform_blocks(um_app_run *r, siac *s, int n) {
  um_context *ctx = r->ctx;
  char err[1024];
  s->exact = 1;
  s->nb = (s->k + 1) * (s->k + 2) / 2;
  s->nnodes = (n + 1LL) * (n + 1);
  s->ncells = 2LL * n * n;
  s->h = siac_uniform_h(n);
  UM_APP_TRY(publish_constants(r, s->k, s->h));
  s->nq = siac_nq;
  long long first[2];
  int count[2];
  UM_APP_TRY(um_app_block(r, s->nnodes, &first[0], &count[0]));
  UM_APP_TRY(um_app_block(r, s->ncells, &first[1], &count[1]));
  const double reach = 0.5 * (3 * s->k + 1) * s->h, tn = um_wtime();
  fprintf(r->log, "siac: uniform %d x %d: %lld triangles, %lld nodes; degree %d (%d modal coefficients, %d points per "
          "triangle), h %.5g, stencil %.5g wide; this rank's block of %d triangles\n", n, n, s->ncells, s->nnodes, s->k,
          s->nb, s->nq, s->h, (3 * s->k + 1) * s->h, count[1]);
  siac_uniform_block b;
  if (siac_uniform_block_make(n, reach, first, count, &b, err, sizeof err))
    return um_app_fail(r, UM_ERR_CONFIG, "%s (degree %d, h %.4g)", err, s->k, s->h);
  siac_nbr_stats ns;
  siac_neighbour_stats(b.count, b.cell_count, &ns);
  const int P = um_mpi_size();
  double *all = malloc(sizeof(double) * 3 * (size_t)P), *coef = malloc(sizeof(double) * (size_t)s->nb *
                                                                          (size_t)(count[1] ? count[1] : 1));
  int rc = all && coef ? UM_SUCCESS : um_app_fail(r, UM_ERR_ALLOC, "out of memory for %d cells", count[1]);
  if (!rc) rc = um_mpi_allgather_double(b.cell_count ? ns.max : 0, all);
  if (!rc) rc = um_mpi_allgather_double(b.cell_count ? ns.min : INT_MAX, all + P);
  if (!rc) rc = um_mpi_allgather_double((double)ns.total, all + 2 * P);
  long long total = 0;
  for (int q = 0; !rc && q < P; q++) {
    s->nmax = q == 0 || all[q] > s->nmax ? (int)all[q] : s->nmax;
    s->nmin = q == 0 || all[P + q] < s->nmin ? (int)all[P + q] : s->nmin;
    total += (long long)all[2 * P + q];
  }
  s->arity = s->nmax;
  s->nmean = (double)total / s->ncells;
  if (!rc) {
    siac_uniform_block_pad(&b, s->arity);
    fprintf(r->log, "siac: neighbourhoods in %.2f s: %d..%d cells (mean %.1f), map arity %d\n", um_wtime() - tn,
            s->nmin, s->nmax, s->nmean, s->arity);
    siac_project(count[1], b.cellxy, s->k, exact_fn, NULL, coef);
  }
  if (!rc) rc = um_decl_set_block(ctx, s->nnodes, first[0], count[0], "nodes", &s->nodes);
  if (!rc) rc = um_decl_set_block(ctx, s->ncells, first[1], count[1], "cells", &s->cells);
  if (!rc) rc = um_decl_map_block(ctx, s->cells, s->nodes, 3, b.tri, "cell_nodes", &s->cell_nodes);
  if (!rc) rc = um_decl_dat(ctx, s->nodes, 2, UM_DOUBLE, b.xy, "x", &s->p_x);
  if (!rc) rc = um_decl_dat(ctx, s->cells, s->nb, UM_DOUBLE, coef, "coef", &s->p_coef);
  if (!rc) rc = um_decl_map_block(ctx, s->cells, s->cells, s->arity, b.nbr, "nbr", &s->nbr);
  if (!rc) rc = um_decl_dat(ctx, s->cells, 6, UM_DOUBLE, b.cellxy, "xy", &s->p_xy);
  if (!rc) rc = um_decl_dat(ctx, s->cells, 1, UM_INT, b.count, "nn", &s->p_nn);
  if (!rc) rc = um_decl_dat(ctx, s->cells, s->nq, UM_DOUBLE, NULL, "filtered", &s->p_pp);
  if (!rc) rc = um_decl_dat(ctx, s->cells, s->nq, UM_DOUBLE, NULL, "filtered_pe", &s->p_pe);
  if (!rc) rc = um_decl_dat(ctx, s->cells, 2, UM_DOUBLE, NULL, "mean", &s->p_mean);
  free(all), free(coef);
  siac_uniform_block_free(&b);
  return rc;
}

/* Whether this run generates its mesh by blocks: under mpirun with mpi.mesh: blocks, the uniform mesh unrefined,
 * a thread per cell; every other source is declared whole, said on the log. */
static int by_blocks(um_app_run *r, const siac *s, int from_file, int *blocks) {
  int kind, refine, threads;
  UM_APP_TRY(um_app_by_blocks(r, blocks));
  UM_APP_TRY(um_app_choice(r, "params.mesh", &kind, NULL));
  UM_APP_TRY(um_app_int(r, "params.refine", &refine));
  UM_APP_TRY(um_app_choice(r, "params.point_threads", &threads, NULL));
  if (!*blocks) return UM_SUCCESS;
  const char *why = from_file ? "params.solution is an HDF5 file, read whole"
                    : kind != 0 ? "siac reads a Gmsh mesh whole"
                    : refine ? "params.refine refines the whole mesh"
                    : threads == 1 ? "params.point_threads: point copies every cell's row whole"
                    : s->grid ? "params.search: grid needs the whole mesh" : NULL;
  if (why) um_app_whole_note(r, why);
  *blocks = !why;
  return UM_SUCCESS;
}

int siac_build(um_app_run *r, siac *s) {
  um_context *ctx = r->ctx;
  const char *solution;
  char what[4400] = "", err[1024];
  int k;
  UM_APP_TRY(um_app_int(r, "params.degree", &k));
  UM_APP_TRY(um_app_string(r, "params.solution", &solution));
  UM_APP_TRY(um_app_choice(r, "params.search", &s->grid, NULL));
  static const char *const grid_only[] = {"params.bins", "params.element_threads", "params.point_split"};
  for (int i = 0; i < 3 && !s->grid; i++) { /* the grid search's settings in a run that does not search by grid */
    int given = 0;
    UM_APP_TRY(um_app_has(r, grid_only[i], &given));
    if (given)
      return um_app_fail(r, UM_ERR_CONFIG, "%s applies to params.search: grid only, and this run searches by map "
                         "(the default): set params.search: grid, or leave %s out", grid_only[i], grid_only[i]);
  }
  if (s->grid && um_mpi_size() > 1)
    return um_app_fail(r, UM_ERR_CONFIG,
                       "params.search: grid searches the whole mesh from every element (whole-dat arguments), which "
                       "a run over %d ranks does not hold; use params.search: map there, or run on one rank",
                       um_mpi_size());
  siac_mesh m;
  memset(&m, 0, sizeof m);
  int rc, from_file = solution && *solution, blocks = 0;
  UM_APP_TRY(by_blocks(r, s, from_file, &blocks));
  if (blocks) { /* the uniform mesh, this rank's block of it */
    int n;
    s->k = k;
    UM_APP_TRY(load_mesh(r, 1, NULL, NULL, NULL, 0)); /* the mesh keys (read, as on the whole path) */
    UM_APP_TRY(um_app_int(r, "params.n", &n));
    return build_uniform_blocks(r, s, n);
  }
  if (from_file) {
    rc = load_mesh(r, 1, solution, NULL, NULL, 0); /* params.mesh and the other mesh keys do not apply */
    if (!rc) fprintf(r->log, "siac: the mesh and the solution come from %s (params.mesh, params.degree and "
                             "params.refine do not apply)\n", solution);
    if (!rc) rc = read_solution(r, s, solution, &m);
    snprintf(what, sizeof what, "%s", solution);
  } else {
    s->k = k;
    rc = load_mesh(r, 0, NULL, &m, what, sizeof what);
  }
  if (rc) {
    siac_mesh_free(&m);
    return rc;
  }
  s->exact = !from_file;
  s->nb = (s->k + 1) * (s->k + 2) / 2;
  s->ncells = m.ncells;
  s->nnodes = m.nnodes;
  s->h = siac_mesh_h(&m);
  double *cellxy = malloc(sizeof(double) * 6 * (size_t)m.ncells), *coef = NULL;
  if (!cellxy) rc = um_app_fail(r, UM_ERR_ALLOC, "out of memory for %d cells", m.ncells);
  if (!rc) {
    siac_mesh_cellxy(&m, cellxy);
    rc = publish_constants(r, s->k, s->h);
  }
  s->nq = siac_nq;
  /* the neighbourhoods: every cell a stencil of one of this cell's points can reach */
  int *nbr = NULL, *count = NULL;
  siac_nbr_stats ns;
  const double reach = 0.5 * (3 * s->k + 1) * s->h, tn = um_wtime();
  if (!rc)
    fprintf(r->log,
            "siac: %s: %d triangles, %d nodes; degree %d (%d modal coefficients, %d points per triangle), h %.5g, "
            "stencil %.5g wide%s\n",
            what, m.ncells, m.nnodes, s->k, s->nb, s->nq, s->h, (3 * s->k + 1) * s->h,
            s->grid ? "; the searches run in the loops (params.search: grid)" : "");
  /* with the grid, no neighbourhoods (the grid checks the mesh's size) */
  if (!rc && !s->grid && siac_neighbours(&m, reach, 0, &s->arity, &nbr, &count, err, sizeof err))
    rc = um_app_fail(r, UM_ERR_CONFIG, "%s (degree %d, h %.4g)", err, s->k, s->h);
  if (!rc && !s->grid) {
    siac_neighbour_stats(count, m.ncells, &ns);
    s->nmin = ns.min;
    s->nmax = ns.max;
    s->nmean = ns.mean;
    fprintf(r->log, "siac: neighbourhoods in %.2f s: %d..%d cells (mean %.1f), map arity %d\n", um_wtime() - tn,
            ns.min, ns.max, ns.mean, s->arity);
  }
  if (!rc && !from_file) {
    coef = malloc(sizeof(double) * (size_t)s->nb * (size_t)m.ncells);
    if (!coef) rc = um_app_fail(r, UM_ERR_ALLOC, "out of memory for the solution of %d cells", m.ncells);
    else {
      const double tp = um_wtime();
      siac_project(m.ncells, cellxy, s->k, exact_fn, NULL, coef);
      fprintf(r->log, "siac: the solution (L2 projection of sin(2 pi x) sin(2 pi y)) in %.2f s\n", um_wtime() - tp);
    }
  }
  if (!rc && !from_file) rc = um_decl_set(ctx, m.nnodes, "nodes", &s->nodes);
  if (!rc && !from_file) rc = um_decl_set(ctx, m.ncells, "cells", &s->cells);
  if (!rc && !from_file) rc = um_decl_map(ctx, s->cells, s->nodes, 3, m.tri, "cell_nodes", &s->cell_nodes);
  if (!rc && !from_file) rc = um_decl_dat(ctx, s->nodes, 2, UM_DOUBLE, m.xy, "x", &s->p_x);
  if (!rc && !from_file) rc = um_decl_dat(ctx, s->cells, s->nb, UM_DOUBLE, coef, "coef", &s->p_coef);
  if (!rc && !s->grid) rc = um_decl_map(ctx, s->cells, s->cells, s->arity, nbr, "nbr", &s->nbr);
  if (!rc) rc = um_decl_dat(ctx, s->cells, 6, UM_DOUBLE, cellxy, "xy", &s->p_xy);
  if (!rc && !s->grid) rc = um_decl_dat(ctx, s->cells, 1, UM_INT, count, "nn", &s->p_nn);
  if (!rc) rc = um_decl_dat(ctx, s->cells, s->nq, UM_DOUBLE, NULL, "filtered", &s->p_pp);
  if (!rc) rc = um_decl_dat(ctx, s->cells, s->nq, UM_DOUBLE, NULL, "filtered_pe", &s->p_pe);
  if (!rc) rc = um_decl_dat(ctx, s->cells, 2, UM_DOUBLE, NULL, "mean", &s->p_mean);
  int threads = 0;
  if (!rc) rc = um_app_choice(r, "params.point_threads", &threads, NULL);
  if (!rc && s->grid) {
    if (threads == 1) fprintf(r->log, "siac: params.search: grid: per point runs a thread per point anyway\n");
    rc = siac_grid_points(r, s);
  } else if (!rc && threads == 1)
    rc = decl_points(r, s, nbr, count);
  free(nbr);
  free(count);
  free(coef);
  free(cellxy);
  siac_mesh_free(&m);
  return rc;
}

/* One line "x y value" per evaluation point, sorted by (x, y): independent of the numbering. Whole on every rank:
 * the order is a sort over the whole field (no distributed sort; docs/apps.md, outputs under mpirun). */
typedef struct { double x, y, v; } point_value;
static int cmp_point(const void *a, const void *b) {
  const point_value *p = a, *q = b;
  if (p->x != q->x) return p->x < q->x ? -1 : 1;
  return p->y < q->y ? -1 : p->y > q->y;
}

static int write_field(um_app_run *r, siac *s, um_dat *filtered) {
  char path[UM_APP_FIELD_PATH_MAX], why[1200];
  if (snprintf(path, sizeof path, "%s/siac_filtered.txt", um_app_field_dir(r)) >= (int)sizeof path)
    return um_app_fail(r, UM_ERR_ARG, "field filtered: output folder name too long");
  const size_t n = (size_t)s->ncells * (size_t)s->nq;
  double *xy = malloc(sizeof(double) * 6 * (size_t)s->ncells), *u = malloc(sizeof(double) * n);
  point_value *pv = malloc(sizeof(point_value) * n);
  int rc = !xy || !u || !pv ? um_app_fail(r, UM_ERR_ALLOC, "field filtered: out of memory") : UM_SUCCESS;
  if (!rc) rc = um_dat_fetch(r->ctx, s->p_xy, xy, sizeof(double) * 6 * (size_t)s->ncells);
  if (!rc) rc = um_dat_fetch(r->ctx, filtered, u, sizeof(double) * n);
  for (int c = 0; !rc && c < s->ncells; c++)
    for (int q = 0; q < s->nq; q++) {
      point_value *p = &pv[(size_t)c * s->nq + q];
      siac_point(xy + 6 * (size_t)c, q, &p->x, &p->y);
      p->v = u[(size_t)c * s->nq + q];
    }
  um_safe_file sf;
  const int writes = um_app_writes(r); /* under mpirun rank 0 writes it */
  if (!rc && writes) {
    qsort(pv, n, sizeof *pv, cmp_point);
    if (um_safe_open(&sf, path, why, sizeof why)) rc = um_app_fail(r, UM_ERR_IO, "field filtered: %s", why);
  }
  if (!rc && writes) {
    for (size_t i = 0; i < n; i++) fprintf(sf.f, "%.12g %.12g %.15g\n", pv[i].x, pv[i].y, pv[i].v);
    if (um_safe_commit(&sf, why, sizeof why)) rc = um_app_fail(r, UM_ERR_IO, "field filtered: %s", why);
  }
  free(xy);
  free(u);
  free(pv);
  rc = um_app_output_done(r, rc); /* every rank: one outcome */
  return rc ? rc : um_app_field(r, "filtered", path);
}

/* siac.h5 in the solution's layout (read back with params.solution), from each rank's block of the nodes and the
 * cells, in one write (um_hdf5_write_blocks64: a temporary renamed into place, so a failing run leaves the old file
 * or none, never a part of a new one). */
static int write_hdf5(um_app_run *r, siac *s, um_dat *filtered, const char *h5) {
  long long nb0 = 0, cb0 = 0;
  int nn = 0, nc = 0;
  UM_APP_TRY(um_set_block(r->ctx, s->nodes, &nb0, &nn));
  UM_APP_TRY(um_set_block(r->ctx, s->cells, &cb0, &nc));
  const size_t n1 = (size_t)nn + 1, c1 = (size_t)nc + 1;
  double *x = malloc(sizeof(double) * 2 * n1), *coef = malloc(sizeof(double) * (size_t)s->nb * c1);
  double *val = malloc(sizeof(double) * (size_t)s->nq * c1), *mean = malloc(sizeof(double) * 2 * c1);
  int *cn = malloc(sizeof(int) * 3 * c1);
  int rc = um_app_agree(r, x && coef && val && mean && cn ? UM_SUCCESS
                                                          : um_app_fail(r, UM_ERR_ALLOC, "out of memory for siac.h5"),
                        "allocate its block of siac.h5");
  if (!rc) rc = um_dat_fetch_block_original_order(r->ctx, s->p_x, x, sizeof(double) * 2 * (size_t)nn);
  if (!rc) rc = um_map_fetch_block_original_order(r->ctx, s->cell_nodes, cn, sizeof(int) * 3 * (size_t)nc);
  if (!rc) rc = um_dat_fetch_block_original_order(r->ctx, s->p_coef, coef, sizeof(double) * s->nb * (size_t)nc);
  if (!rc) rc = um_dat_fetch_block_original_order(r->ctx, filtered, val, sizeof(double) * s->nq * (size_t)nc);
  if (!rc) rc = um_dat_fetch_block_original_order(r->ctx, s->p_mean, mean, sizeof(double) * 2 * (size_t)nc);
  const char *sets[] = {"nodes", "cells"};
  const long long sizes[] = {s->nnodes, s->ncells};
  const um_hdf5_rows rows[] = {{"cell_nodes", s->ncells, 3, UM_INT, 1, cn},
                               {"x", s->nnodes, 2, UM_DOUBLE, 0, x},
                               {"coef", s->ncells, s->nb, UM_DOUBLE, 0, coef},
                               {um_dat_name(filtered), s->ncells, s->nq, UM_DOUBLE, 0, val},
                               {"mean", s->ncells, 2, UM_DOUBLE, 0, mean}};
  if (!rc) rc = um_hdf5_write_blocks64(r->ctx, h5, 2, sets, sizes, 5, rows);
  free(x), free(coef), free(val), free(mean), free(cn);
  return rc;
}

/* HDF5 (the solution's layout: read back with params.solution) and XDMF for ParaView. */
static int write_outputs(um_app_run *r, siac *s, um_dat *filtered) {
  char h5[4096], xmf[4096], err[1024];
  UM_APP_TRY(um_app_output_path(r, "siac", ".h5", h5, sizeof h5));
  UM_APP_TRY(um_app_output_path(r, "siac", ".xmf", xmf, sizeof xmf));
  um_app_h5_pair pair; /* the earlier siac.h5 kept until siac.xmf is written */
  um_app_h5_pair_begin(r, h5, &pair);
  int rc = write_hdf5(r, s, filtered, h5); /* the HDF5 write agrees across the ranks; the XDMF file is rank 0's */
  const char *fields[] = {"mean"};
  const int dims[] = {2};
  if (!rc && um_app_writes(r) &&
      um_xdmf_write(xmf, "siac.h5", "x", s->nnodes, 2, "cell_nodes", s->ncells, 3, fields, dims, 1, err, sizeof err))
    rc = um_app_h5_pair_end(r, &pair, err); /* the earlier .h5 put back (or the new one removed), said */
  else
    um_app_h5_pair_end(r, &pair, NULL);
  UM_APP_TRY(um_app_output_done(r, rc));
  fprintf(r->log, "siac: wrote %s and %s (open the .xmf in ParaView: 'mean' holds each triangle's mean unfiltered "
                  "and filtered values)\n", h5, xmf);
  return UM_SUCCESS;
}

int siac_finish(um_app_run *r, siac *s, um_dat *filtered) {
  double sq[2] = {0, 0}, mx[2] = {0, 0};
  UM_APP_TRY(UM_PAR_LOOP(r->ctx, siac_errors_kernel, "errors", s->cells,
                         um_arg_dat(s->p_xy, -1, UM_ID, 6, UM_DOUBLE, UM_READ),
                         um_arg_dat(s->p_coef, -1, UM_ID, s->nb, UM_DOUBLE, UM_READ),
                         um_arg_dat(filtered, -1, UM_ID, s->nq, UM_DOUBLE, UM_READ),
                         um_arg_dat(s->p_mean, -1, UM_ID, 2, UM_DOUBLE, UM_WRITE), um_arg_gbl(sq, 2, UM_DOUBLE, UM_INC),
                         um_arg_gbl(mx, 2, UM_DOUBLE, UM_MAX)));
  UM_APP_TRY(um_app_metric(r, "cells", (double)um_set_gsize(s->cells))); /* over every rank: 64-bit */
  UM_APP_TRY(um_app_metric(r, "degree", s->k));
  if (!s->grid) {
    UM_APP_TRY(um_app_metric(r, "neighbours_max", s->nmax));
    UM_APP_TRY(um_app_metric(r, "neighbours_mean", s->nmean));
  }
  if (s->exact) {
    fprintf(r->log, "siac: errors against sin(2 pi x) sin(2 pi y): unfiltered L2 %.4e Linf %.4e, filtered L2 %.4e "
                    "Linf %.4e\n", sqrt(sq[0]), mx[0], sqrt(sq[1]), mx[1]);
    UM_APP_TRY(um_app_metric(r, "unfiltered_l2", sqrt(sq[0])));
    UM_APP_TRY(um_app_metric(r, "unfiltered_linf", mx[0]));
    UM_APP_TRY(um_app_metric(r, "filtered_l2", sqrt(sq[1])));
    UM_APP_TRY(um_app_metric(r, "filtered_linf", mx[1]));
  }
  if (um_app_wants_field(r, "filtered")) UM_APP_TRY(write_field(r, s, filtered));
  if (r->output_dir && *r->output_dir && r->write_hdf5) UM_APP_TRY(write_outputs(r, s, filtered));
  return UM_SUCCESS;
}

void siac_free(siac *s) { (void)s; /* everything declared belongs to the context */ }

/* Floating-point operations (adds and multiplies) of the kernels' arithmetic, counted from
 * siac_kernels.h: 4 per intersection test (the stencil square's sides); per sub-triangle 17 (its
 * Jacobian, the edge differences, the sum) plus, at each of its ns rule points, 16 (the four
 * interpolated coordinates), 2(k+1) for each of the two kernel pieces (Horner), 3 + (k+1)(k+2)
 * + c_k for u_T (siac_u_value; c_k = 2, 9, 18 combines the Horner sums) and 4 for the weighted
 * product. The clipping and the per-vertex maps are not counted: a lower bound. */
double siac_flops(int k, double tests, double nsub) {
  static const int ns[4] = {0, 4, 16, 25}, comb[4] = {0, 2, 9, 18};
  if (k < 1 || k > 3) return 0;
  const double per_point = 16 + 4.0 * (k + 1) + 3 + (k + 1) * (k + 2) + comb[k] + 4;
  return 4 * tests + nsub * (17 + ns[k] * per_point);
}
