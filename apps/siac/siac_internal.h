/* The SIAC app's pieces (siac.c: options and the run; siac_app.c: mesh, solution,
 * declarations, errors and outputs). */
#ifndef SIAC_INTERNAL_H
#define SIAC_INTERNAL_H
#include "um/app.h"
#include "um/um.h"

typedef struct {
  int k, nb, nq;      /* degree, modal basis functions, evaluation points per cell */
  long long ncells, nnodes; /* the mesh, over every rank (global counts: 64-bit; a rank's block stays an int) */
  int arity;          /* the neighbourhood map's (padded) arity */
  int nmin, nmax;     /* fewest and most neighbours of a cell */
  double nmean;       /* mean neighbours */
  double h;           /* the kernel scale */
  int exact;          /* 1: the solution is the projection of the built-in function (errors measured) */
  um_set *cells, *nodes;
  um_map *cell_nodes, *nbr;
  um_dat *p_x, *p_xy, *p_coef, *p_nn, *p_pp, *p_pe, *p_mean;
  /* params.point_threads: point: a thread per point (NULL otherwise) */
  um_set *points;
  um_map *pcell, *pnbr, *cpts; /* point -> its cell, point -> its cell's neighbourhood, cell -> its points */
  um_dat *p_pq, *p_pnn, *p_pval; /* the point's index in its cell, its neighbours in use, its filtered value */
  /* params.search: grid (siac_grid.c): the points' coordinates and per element's values on them; the grids */
  int grid;
  um_dat *p_pxy, *p_pval_e;
  um_set *gbins, *gtri, *gpts;
  um_dat *p_tstart, *p_tlist, *p_pstart, *p_plist;
  um_set *eparts;     /* per element's threads: params.element_threads per cell */
  um_map *part_cell;
  um_dat *p_part;
  um_set *pparts;     /* per point's threads: params.point_split per point (NULL: a thread per point) */
  um_map *part_point;
  um_dat *p_ppart;
} siac;

extern const um_kernel siac_per_point_kernel, siac_per_element_kernel, siac_zero_kernel, siac_diff_kernel,
    siac_per_point_single_kernel, siac_points_to_cell_kernel, siac_per_point_grid_kernel,
    siac_per_element_grid_kernel, siac_point_xy_kernel, siac_zero1_kernel, siac_per_point_grid_items_kernel;

/* Mesh (or solution file), projection, neighbourhoods, constants and declarations. */
int siac_build(um_app_run *r, siac *s);
/* Errors against the exact function (when known), the fields for ParaView and validation. */
int siac_finish(um_app_run *r, siac *s, um_dat *filtered);
void siac_free(siac *s);
/* The evaluation points as a set (points, point_cell, cell_points, q, point_value), before um_app_prepare; `what`
 * names the setting that asks for them in messages. */
int siac_decl_point_set(um_app_run *r, siac *s, const char *what);
/* params.search: grid (siac_grid.c): the evaluation points and per element's and per point's threads
 * (params.element_threads, params.point_split) as sets (before um_app_prepare), then the search grids of triangles
 * and points (params.bins per side, 0: 1/h), built from the data as the engine numbers it. */
int siac_grid_points(um_app_run *r, siac *s);
int siac_grid_build(um_app_run *r, siac *s, int bins);
/* Floating-point operations of a filter run with that many intersection tests and sub-triangles
 * (counted from the kernels' code: docs/apps.md, SIAC). */
double siac_flops(int k, double tests, double nsub);
#endif
