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

/* The names of a set of threads per element of another set, as a setting asks for them. */
typedef struct {
  const char *option, *of, *set, *map, *dat, *cname; /* the setting, what the elements are, the declarations' names */
} parts_names;

/* `parts` threads for each of the n elements of set `of` (per element's per cell, per point's per point): a set, a map
 * to the element, each one's number, and the count as the kernels' constant *cvar. */
static int decl_parts(um_app_run *r, um_set *of, long long n_of, int parts, const parts_names *nm, int *cvar,
                      um_set **set, um_map **map, um_dat **dat) {
  const size_t n = (size_t)n_of * (size_t)parts;
  if (n > (size_t)INT32_MAX)
    return um_app_fail(r, UM_ERR_CONFIG, "%s: %d threads for each of %lld %s: too many; use fewer", nm->option,
                       parts, n_of, nm->of);
  int *to = malloc(sizeof(int) * (n ? n : 1)), *part = malloc(sizeof(int) * (n ? n : 1));
  int rc = !to || !part ? um_app_fail(r, UM_ERR_ALLOC, "%s: out of memory", nm->option) : UM_SUCCESS;
  for (size_t i = 0; !rc && i < n; i++) {
    to[i] = (int)(i / (size_t)parts);
    part[i] = (int)(i % (size_t)parts);
  }
  um_context *ctx = r->ctx;
  if (!rc) rc = um_decl_set(ctx, (int)n, nm->set, set);
  if (!rc) rc = um_decl_map(ctx, *set, of, 1, to, nm->map, map);
  if (!rc) rc = um_decl_dat(ctx, *set, 1, UM_INT, part, nm->dat, dat);
  if (!rc) {
    *cvar = parts;
    rc = um_decl_const(ctx, nm->cname, 1, UM_INT, cvar);
  }
  free(to);
  free(part);
  return rc;
}

int siac_grid_points(um_app_run *r, siac *s) {
  int parts, split;
  UM_APP_TRY(um_app_int(r, "params.element_threads", &parts));
  UM_APP_TRY(um_app_int(r, "params.point_split", &split));
  static const parts_names per_cell = {"params.element_threads", "cells", "element_parts", "part_cell", "part",
                                       "siac_eparts"},
                           per_point = {"params.point_split", "points", "point_parts", "part_point", "point_part",
                                        "siac_pparts"};
  UM_APP_TRY(decl_parts(r, s->cells, s->ncells, parts, &per_cell, &siac_eparts, &s->eparts, &s->part_cell, &s->p_part));
  UM_APP_TRY(siac_decl_point_set(r, s, "params.search: grid"));
  if (split > 1)
    UM_APP_TRY(decl_parts(r, s->points, um_set_size(s->points), split, &per_point, &siac_pparts, &s->pparts,
                          &s->part_point, &s->p_ppart));
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
