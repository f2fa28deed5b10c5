/* params.search: grid -- King & Kirby's own schemes: the searches run inside the timed loops, through a uniform
 * hash grid (siac_kernels.h, "the paper's schemes"). Here: the set of evaluation points (a thread each for per
 * point), and, once the engine has numbered the mesh for good (after um_app_prepare), the two grids (triangles by
 * their first vertex, points by their position) as whole dats the kernels search. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "siac_internal.h"
#include "siac_kernels.h"

UM_CONST_DEFINE(int, siac_nbin);
UM_CONST_DEFINE(double, siac_reach_t);
UM_CONST_DEFINE(int, siac_eparts);
UM_CONST_DEFINE(int, siac_pparts);

/* The bin of a coordinate in [0, 1] (1 itself in the last bin). */
static int bin_of(double x, int n) {
  const int b = (int)floor(x * n);
  return b < 0 ? 0 : b >= n ? n - 1 : b;
}

/* CSR lists of nitems over nbins bins: start[nbins + 1], list[nitems] (items of a bin in ascending order). */
static int csr(const int *bin, int nitems, int nbins, int **start, int **list) {
  *start = calloc((size_t)nbins + 1, sizeof(int));
  *list = malloc(sizeof(int) * (size_t)(nitems > 0 ? nitems : 1));
  if (!*start || !*list) return 1;
  for (int i = 0; i < nitems; i++) (*start)[bin[i] + 1]++;
  for (int b = 0; b < nbins; b++) (*start)[b + 1] += (*start)[b];
  int *fill = malloc(sizeof(int) * (size_t)nbins);
  if (!fill) return 1;
  memcpy(fill, *start, sizeof(int) * (size_t)nbins);
  for (int i = 0; i < nitems; i++) (*list)[fill[bin[i]]++] = i;
  free(fill);
  return 0;
}

/* Per element's threads: `parts` per cell, each a map to its cell and its number. */
static int grid_parts(um_app_run *r, siac *s, int parts) {
  const size_t n = (size_t)s->ncells * (size_t)parts;
  if (n > (size_t)INT32_MAX)
    return um_app_fail(r, UM_ERR_CONFIG,
                       "params.element_threads: %d threads for each of %lld cells: too many; use fewer", parts,
                       s->ncells);
  int *cell = malloc(sizeof(int) * n), *part = malloc(sizeof(int) * n);
  int rc = !cell || !part ? um_app_fail(r, UM_ERR_ALLOC, "params.element_threads: out of memory") : UM_SUCCESS;
  for (size_t i = 0; !rc && i < n; i++) {
    cell[i] = (int)(i / (size_t)parts);
    part[i] = (int)(i % (size_t)parts);
  }
  um_context *ctx = r->ctx;
  if (!rc) rc = um_decl_set(ctx, (int)n, "element_parts", &s->eparts);
  if (!rc) rc = um_decl_map(ctx, s->eparts, s->cells, 1, cell, "part_cell", &s->part_cell);
  if (!rc) rc = um_decl_dat(ctx, s->eparts, 1, UM_INT, part, "part", &s->p_part);
  if (!rc) {
    siac_eparts = parts;
    rc = um_decl_const(ctx, "siac_eparts", 1, UM_INT, &siac_eparts);
  }
  free(cell);
  free(part);
  return rc;
}

/* Per point's threads (params.point_split T > 1): T per point, each a map to its point and its number. */
static int point_parts(um_app_run *r, siac *s, int parts) {
  const int np = um_set_size(s->points);
  const size_t n = (size_t)np * (size_t)parts;
  if (n > (size_t)INT32_MAX)
    return um_app_fail(r, UM_ERR_CONFIG, "params.point_split: %d threads for each of %d points: too many; use fewer",
                       parts, np);
  int *point = malloc(sizeof(int) * n), *part = malloc(sizeof(int) * n);
  int rc = !point || !part ? um_app_fail(r, UM_ERR_ALLOC, "params.point_split: out of memory") : UM_SUCCESS;
  for (size_t i = 0; !rc && i < n; i++) {
    point[i] = (int)(i / (size_t)parts);
    part[i] = (int)(i % (size_t)parts);
  }
  um_context *ctx = r->ctx;
  if (!rc) rc = um_decl_set(ctx, (int)n, "point_parts", &s->pparts);
  if (!rc) rc = um_decl_map(ctx, s->pparts, s->points, 1, point, "part_point", &s->part_point);
  if (!rc) rc = um_decl_dat(ctx, s->pparts, 1, UM_INT, part, "point_part", &s->p_ppart);
  if (!rc) {
    siac_pparts = parts;
    rc = um_decl_const(ctx, "siac_pparts", 1, UM_INT, &siac_pparts);
  }
  free(point);
  free(part);
  return rc;
}

int siac_grid_points(um_app_run *r, siac *s) {
  int parts, split;
  UM_APP_TRY(um_app_int(r, "params.element_threads", &parts));
  UM_APP_TRY(um_app_int(r, "params.point_split", &split));
  UM_APP_TRY(grid_parts(r, s, parts));
  UM_APP_TRY(siac_decl_point_set(r, s, "params.search: grid"));
  if (split > 1) UM_APP_TRY(point_parts(r, s, split));
  UM_APP_TRY(um_decl_dat(r->ctx, s->points, 2, UM_DOUBLE, NULL, "point_xy", &s->p_pxy));
  return um_decl_dat(r->ctx, s->points, 1, UM_DOUBLE, NULL, "point_value_pe", &s->p_pval_e);
}

/* The grids, from the data as the engine numbers it now. */
int siac_grid_build(um_app_run *r, siac *s, int bins) {
  um_context *ctx = r->ctx;
  const double t0 = um_wtime();
  UM_APP_TRY(UM_PAR_LOOP(ctx, siac_point_xy_kernel, "point_xy", s->points,
                         um_arg_dat(s->p_xy, 0, s->pcell, 6, UM_DOUBLE, UM_READ),
                         um_arg_dat(s->p_pq, -1, UM_ID, 1, UM_INT, UM_READ),
                         um_arg_dat(s->p_pxy, -1, UM_ID, 2, UM_DOUBLE, UM_WRITE)));
  const int nc = (int)s->ncells, np = um_set_size(s->points); /* the whole mesh (a thread per point): an int */
  double *cxy = malloc(sizeof(double) * 6 * (size_t)nc), *pxy = malloc(sizeof(double) * 2 * (size_t)np);
  int *tbin = malloc(sizeof(int) * (size_t)nc), *pbin = malloc(sizeof(int) * (size_t)np);
  int *tstart = NULL, *tlist = NULL, *pstart = NULL, *plist = NULL;
  int rc = !cxy || !pxy || !tbin || !pbin ? um_app_fail(r, UM_ERR_ALLOC, "params.search: grid: out of memory") : 0;
  if (!rc) rc = um_dat_fetch(ctx, s->p_xy, cxy, sizeof(double) * 6 * (size_t)nc);
  if (!rc) rc = um_dat_fetch(ctx, s->p_pxy, pxy, sizeof(double) * 2 * (size_t)np);
  /* how far a triangle reaches from its first vertex, along either axis */
  double reach = 0;
  for (int c = 0; !rc && c < nc; c++)
    for (int v = 1; v < 3; v++) {
      const double dx = fabs(cxy[6 * (size_t)c + 2 * v] - cxy[6 * (size_t)c]);
      const double dy = fabs(cxy[6 * (size_t)c + 2 * v + 1] - cxy[6 * (size_t)c + 1]);
      reach = dx > reach ? dx : reach;
      reach = dy > reach ? dy : reach;
    }
  reach = reach * (1 + 1e-12) + 1e-12;
  const double half = 0.5 * (3 * s->k + 1) * s->h;
  int n = bins > 0 ? bins : (int)floor(1.0 / s->h);
  if (n < 1) n = 1;
  if (n > 4096) n = 4096;
  /* a search must meet each bin once: the widest square it visits spans fewer bins than there are */
  const double span = 2 * (half + reach);
  if (!rc && span * n + 2 > n)
    rc = um_app_fail(r, UM_ERR_CONFIG,
                     "params.search: grid: a stencil (%.4g wide, triangles reaching %.4g) spans %.0f of the %d bins "
                     "per side, so a search would meet a bin twice; use a finer mesh (params.n, params.refine) or "
                     "params.search: map",
                     2 * half, reach, ceil(span * n) + 1, n);
  for (int c = 0; !rc && c < nc; c++) tbin[c] = bin_of(cxy[6 * (size_t)c], n) + n * bin_of(cxy[6 * (size_t)c + 1], n);
  for (int p = 0; !rc && p < np; p++) {
    /* a point's wrapped position (the rule's points lie inside their triangles, so inside the square) */
    pbin[p] = bin_of(pxy[2 * (size_t)p], n) + n * bin_of(pxy[2 * (size_t)p + 1], n);
  }
  const int nbins = n * n;
  if (!rc && (csr(tbin, nc, nbins, &tstart, &tlist) || csr(pbin, np, nbins, &pstart, &plist)))
    rc = um_app_fail(r, UM_ERR_ALLOC, "params.search: grid: out of memory for %d bins", nbins);
  if (!rc) rc = um_decl_set(ctx, nbins + 1, "grid_bins", &s->gbins);
  if (!rc) rc = um_decl_set(ctx, nc, "grid_triangles", &s->gtri);
  if (!rc) rc = um_decl_set(ctx, np, "grid_points", &s->gpts);
  if (!rc) rc = um_decl_dat(ctx, s->gbins, 1, UM_INT, tstart, "grid_triangle_start", &s->p_tstart);
  if (!rc) rc = um_decl_dat(ctx, s->gtri, 1, UM_INT, tlist, "grid_triangle_list", &s->p_tlist);
  if (!rc) rc = um_decl_dat(ctx, s->gbins, 1, UM_INT, pstart, "grid_point_start", &s->p_pstart);
  if (!rc) rc = um_decl_dat(ctx, s->gpts, 1, UM_INT, plist, "grid_point_list", &s->p_plist);
  if (!rc) {
    siac_nbin = n;
    siac_reach_t = reach;
    rc = um_decl_const(ctx, "siac_nbin", 1, UM_INT, &siac_nbin);
  }
  if (!rc) rc = um_decl_const(ctx, "siac_reach_t", 1, UM_DOUBLE, &siac_reach_t);
  if (!rc) {
    int most_t = 0, most_p = 0;
    for (int b = 0; b < nbins; b++) {
      most_t = tstart[b + 1] - tstart[b] > most_t ? tstart[b + 1] - tstart[b] : most_t;
      most_p = pstart[b + 1] - pstart[b] > most_p ? pstart[b + 1] - pstart[b] : most_p;
    }
    fprintf(r->log,
            "siac: search grid %d x %d bins (side %.4g) in %.2f s: up to %d triangles (by first vertex, which "
            "they reach %.4g from) and %d points a bin\n",
            n, n, 1.0 / n, um_wtime() - t0, most_t, reach, most_p);
  }
  free(cxy);
  free(pxy);
  free(tbin);
  free(pbin);
  free(tstart);
  free(tlist);
  free(pstart);
  free(plist);
  return rc;
}
