/* SIAC: Smoothness-Increasing Accuracy-Conserving filtering of a discontinuous
 * Galerkin solution on a triangle mesh of the periodic unit square, after King &
 * Kirby, "A Scalable, Efficient Scheme for Evaluation of Stencil Computations over
 * Unstructured Meshes" (SC'13).
 *
 * The dG solution u_h is, on each triangle, a polynomial of degree k in an
 * orthonormal modal basis (by default the L2 projection of sin(2 pi x) sin(2 pi y),
 * or read from an HDF5 file). The filtered value at a point is the convolution of
 * u_h with the tensor product of the B-spline kernel K^{2k+1,k+1} scaled by h,
 * integrated exactly over the pieces of every triangle the stencil (a square of
 * side (3k+1)h) covers. It is evaluated at the quadrature points of every
 * triangle in two ways, both par_loops over the cells through one neighbourhood
 * map passed whole to the kernel (a vector argument):
 *   per_point   - each cell gathers from its neighbours and writes its own points;
 *   per_element - each cell reads its own data once and increments the points of
 *                 its neighbours (conflicting writes: colouring or atomics).
 * With params.search: grid they run as King & Kirby's own schemes instead: the hash-grid
 * searches inside the loops, per point a thread per point, per element adding to any point
 * (whole-dat arguments: siac_grid.c).
 * The errors of the unfiltered and filtered solutions against the exact function
 * are metrics (the filter should raise the order from k+1 to about 2k+1).
 *
 * Config: params: {degree: 1..3, mesh: uniform|low_variance|high_variance|file, n: 16,
 *                  size: 4 (k triangles of a generated Delaunay mesh), scheme: both|per_point|per_element}
 * (docs/options.md lists every key). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "um/app.h"
#include "siac_internal.h"

#define CHOICES(...) ((const char *const[]){__VA_ARGS__, NULL})
static const um_option siac_options[] = {
    {.key = "params.degree", .type = UM_OPT_INT, .def = "1", .min = 1, .max = 3, .flags = UM_OPT_RANGE,
     .range_hint = "use 1, 2 or 3", .help = "k: the polynomial degree of the dG solution (the kernel is K^{2k+1,k+1})"},
    {.key = "params.mesh", .type = UM_OPT_CHOICE, .def = "uniform",
     .choices = CHOICES("uniform", "low_variance", "high_variance", "file"),
     .help = "the triangle mesh: uniform (params.n), a Delaunay mesh of low or high element-size\n"
             "variance made by scripts/siac-meshes.sh (params.size), or mesh.file"},
    {.key = "params.n", .type = UM_OPT_INT, .def = "16", .min = 2, .max = 8192, .flags = UM_OPT_RANGE,
     .range_hint = "use 2..8192", .help = "uniform mesh: squares per side (two triangles each)"},
    {.key = "params.size", .type = UM_OPT_INT, .def = "4", .min = 1, .max = 1048576, .flags = UM_OPT_RANGE,
     .range_hint = "a size scripts/siac-meshes.sh made: 4, 16, 64, 256 or 1024",
     .help = "low_variance / high_variance: thousands of triangles (the file siac_<low|high>_<size>k.msh)"},
    {.key = "mesh.dir", .type = UM_OPT_STRING, .def = "build/siac-meshes", .flags = UM_OPT_PATH,
     .help = "where scripts/siac-meshes.sh wrote the Delaunay meshes (the default: in the current folder)"},
    {.key = "mesh.file", .type = UM_OPT_STRING, .def = "", .flags = UM_OPT_PATH | UM_OPT_EMPTY_OK,
     .help = "params.mesh: file: a Gmsh ASCII (format 2) triangle mesh tiling the unit square; empty: none"},
    {.key = "params.refine", .type = UM_OPT_INT, .def = "0", .min = 0, .max = 8, .flags = UM_OPT_RANGE,
     .range_hint = "use 0..8", .help = "split every triangle into 4 this many times before filtering"},
    {.key = "params.scheme", .type = UM_OPT_CHOICE, .def = "both", .choices = CHOICES("both", "per_point", "per_element"),
     .help = "how the filter runs: per_point (gather), per_element (scatter), or both (and compare them)"},
    {.key = "params.solution", .type = UM_OPT_STRING, .def = "", .flags = UM_OPT_EMPTY_OK,
     .help = "an HDF5 file holding the dG solution to filter (the layout this app writes with output.hdf5:\n"
             "set cells, set nodes, map cell_nodes, dat x on nodes, dat coef on cells of (k+1)(k+2)/2 values);\n"
             "empty: the L2 projection of sin(2 pi x) sin(2 pi y)"},
    {.key = "params.point_threads", .type = UM_OPT_CHOICE, .def = "cell", .choices = CHOICES("cell", "point"),
     .help = "per_point's parallel unit: cell (a thread per cell computes its (k+1)^2 points, loading each\n"
             "neighbour once for all of them) or point (a thread per point, as King & Kirby's per-point scheme:\n"
             "each point loads every neighbour itself; the map is (k+1)^2 times larger)"},
    {.key = "params.search", .type = UM_OPT_CHOICE, .def = "map", .choices = CHOICES("map", "grid"),
     .help = "how each scheme finds what its stencils meet: map (a neighbourhood map built once on the host,\n"
             "passed to both loops: they test the same pairs) or grid (King & Kirby's own schemes: a uniform hash\n"
             "grid searched inside the loops, per point for the triangles near each point, a thread per point,\n"
             "per element for the points near each triangle, adding to any point: their Table 1 test counts)"},
    {.key = "params.bins", .type = UM_OPT_INT, .def = "0", .min = 0, .max = 4096, .flags = UM_OPT_RANGE,
     .range_hint = "use 0 (1/h) or 1..4096",
     .help = "params.search: grid: bins per side of the search grid (0: 1/h, bins about as wide as the largest\n"
             "triangle)"},
    {.key = "params.element_threads", .type = UM_OPT_INT, .def = "1", .min = 1, .max = 64, .flags = UM_OPT_RANGE,
     .range_hint = "use 1..64",
     .help = "params.search: grid: threads per cell for per element (1: a thread per element, as King & Kirby;\n"
             "T: T threads share a cell, each walking its list of (point, piece) and clipping and integrating\n"
             "every T-th: on a GPU 2 (k+1)^2 is fastest; on a CPU use 1)"},
    {.key = "params.point_split", .type = UM_OPT_INT, .def = "1", .min = 1, .max = 64, .flags = UM_OPT_RANGE,
     .range_hint = "use 1..64",
     .help = "params.search: grid: threads per point for per point (1: a thread per point, as King & Kirby; T:\n"
             "T threads share a point, each walking its list of (triangle, piece) and clipping and integrating\n"
             "every T-th, their sums added to the point; on a CPU use 1)"},
    {.key = "params.repeat", .type = UM_OPT_INT, .def = "1", .min = 1, .max = 1000, .flags = UM_OPT_RANGE,
     .range_hint = "use 1..1000", .help = "run each scheme this many times (the time metrics are the fastest run)"},
};

static const char *scheme_loop[2] = {"per_point", "per_element"};

/* Seconds the engine measured inside the loops of a scheme so far (device time on a GPU, JIT
 * compilation excluded; wall time inside the loop on the host). */
static double scheme_seconds(um_context *ctx, int which) {
  double t = 0;
  for (int i = 0, n = um_loop_stats_count(ctx); i < n; i++) {
    um_loop_stats st;
    if (um_loop_stats_get(ctx, i, &st)) continue;
    if (!strcmp(st.name, scheme_loop[which]) ||
        (which == 1 && (!strcmp(st.name, "zero") || !strcmp(st.name, "zero_points"))) ||
        (which == 0 && !strcmp(st.name, "zero_points_pp")))
      t += st.seconds;
  }
  return t;
}

/* One scheme, `repeat` times: the fastest time, the tests and sub-triangles of one run. */
static int run_scheme(um_app_run *r, siac *s, int which, int repeat, double *best, double stats[2]) {
  *best = INFINITY;
  for (int it = 0; it < repeat; it++) {
    stats[0] = stats[1] = 0;
    UM_APP_TRY(um_sync(r->ctx));
    const double t0 = scheme_seconds(r->ctx, which);
    if (s->grid && which == 0 && s->pparts) {
      UM_APP_TRY(UM_PAR_LOOP(r->ctx, siac_zero1_kernel, "zero_points_pp", s->points,
                             um_arg_dat(s->p_pval, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE)));
      UM_APP_TRY(UM_PAR_LOOP(r->ctx, siac_per_point_grid_items_kernel, "per_point", s->pparts,
                             um_arg_dat(s->p_pxy, 0, s->part_point, 2, UM_DOUBLE, UM_READ),
                             um_arg_dat(s->p_ppart, -1, UM_ID, 1, UM_INT, UM_READ),
                             um_arg_whole(s->p_xy, 6, UM_DOUBLE, UM_READ),
                             um_arg_whole(s->p_coef, s->nb, UM_DOUBLE, UM_READ),
                             um_arg_whole(s->p_tstart, 1, UM_INT, UM_READ), um_arg_whole(s->p_tlist, 1, UM_INT, UM_READ),
                             um_arg_dat(s->p_pval, 0, s->part_point, 1, UM_DOUBLE, UM_INC),
                             um_arg_gbl(stats, 2, UM_DOUBLE, UM_INC)));
    } else if (s->grid && which == 0) {
      UM_APP_TRY(UM_PAR_LOOP(r->ctx, siac_per_point_grid_kernel, "per_point", s->points,
                             um_arg_dat(s->p_pxy, -1, UM_ID, 2, UM_DOUBLE, UM_READ),
                             um_arg_whole(s->p_xy, 6, UM_DOUBLE, UM_READ),
                             um_arg_whole(s->p_coef, s->nb, UM_DOUBLE, UM_READ),
                             um_arg_whole(s->p_tstart, 1, UM_INT, UM_READ), um_arg_whole(s->p_tlist, 1, UM_INT, UM_READ),
                             um_arg_dat(s->p_pval, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE),
                             um_arg_gbl(stats, 2, UM_DOUBLE, UM_INC)));
    } else if (s->grid) {
      UM_APP_TRY(UM_PAR_LOOP(r->ctx, siac_zero1_kernel, "zero_points", s->points,
                             um_arg_dat(s->p_pval_e, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE)));
      UM_APP_TRY(UM_PAR_LOOP(r->ctx, siac_per_element_grid_kernel, "per_element", s->eparts,
                             um_arg_dat(s->p_xy, 0, s->part_cell, 6, UM_DOUBLE, UM_READ),
                             um_arg_dat(s->p_coef, 0, s->part_cell, s->nb, UM_DOUBLE, UM_READ),
                             um_arg_dat(s->p_part, -1, UM_ID, 1, UM_INT, UM_READ),
                             um_arg_whole(s->p_pxy, 2, UM_DOUBLE, UM_READ),
                             um_arg_whole(s->p_pstart, 1, UM_INT, UM_READ), um_arg_whole(s->p_plist, 1, UM_INT, UM_READ),
                             um_arg_whole(s->p_pval_e, 1, UM_DOUBLE, UM_INC), um_arg_gbl(stats, 2, UM_DOUBLE, UM_INC)));
    } else if (which == 0 && s->points) {
      UM_APP_TRY(UM_PAR_LOOP(r->ctx, siac_per_point_single_kernel, "per_point", s->points,
                             um_arg_dat(s->p_xy, 0, s->pcell, 6, UM_DOUBLE, UM_READ),
                             um_arg_dat(s->p_pq, -1, UM_ID, 1, UM_INT, UM_READ),
                             um_arg_dat(s->p_pnn, -1, UM_ID, 1, UM_INT, UM_READ),
                             um_arg_vec(s->p_xy, s->pnbr, 6, UM_DOUBLE, UM_READ),
                             um_arg_vec(s->p_coef, s->pnbr, s->nb, UM_DOUBLE, UM_READ),
                             um_arg_dat(s->p_pval, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE),
                             um_arg_gbl(stats, 2, UM_DOUBLE, UM_INC)));
    } else if (which == 0) {
      UM_APP_TRY(UM_PAR_LOOP(r->ctx, siac_per_point_kernel, "per_point", s->cells,
                             um_arg_dat(s->p_xy, -1, UM_ID, 6, UM_DOUBLE, UM_READ),
                             um_arg_dat(s->p_nn, -1, UM_ID, 1, UM_INT, UM_READ),
                             um_arg_vec(s->p_xy, s->nbr, 6, UM_DOUBLE, UM_READ),
                             um_arg_vec(s->p_coef, s->nbr, s->nb, UM_DOUBLE, UM_READ),
                             um_arg_dat(s->p_pp, -1, UM_ID, s->nq, UM_DOUBLE, UM_WRITE),
                             um_arg_gbl(stats, 2, UM_DOUBLE, UM_INC)));
    } else {
      UM_APP_TRY(UM_PAR_LOOP(r->ctx, siac_zero_kernel, "zero", s->cells,
                             um_arg_dat(s->p_pe, -1, UM_ID, s->nq, UM_DOUBLE, UM_WRITE)));
      UM_APP_TRY(UM_PAR_LOOP(r->ctx, siac_per_element_kernel, "per_element", s->cells,
                             um_arg_dat(s->p_xy, -1, UM_ID, 6, UM_DOUBLE, UM_READ),
                             um_arg_dat(s->p_coef, -1, UM_ID, s->nb, UM_DOUBLE, UM_READ),
                             um_arg_dat(s->p_nn, -1, UM_ID, 1, UM_INT, UM_READ),
                             um_arg_vec(s->p_xy, s->nbr, 6, UM_DOUBLE, UM_READ),
                             um_arg_vec(s->p_pe, s->nbr, s->nq, UM_DOUBLE, UM_INC),
                             um_arg_gbl(stats, 2, UM_DOUBLE, UM_INC)));
    }
    UM_APP_TRY(um_sync(r->ctx));
    const double t = scheme_seconds(r->ctx, which) - t0;
    if (s->points && (which == 0 || s->grid)) /* each cell's values in one row, as the map's schemes leave them */
      UM_APP_TRY(UM_PAR_LOOP(r->ctx, siac_points_to_cell_kernel, which ? "points_to_cells_pe" : "points_to_cells",
                             s->cells, um_arg_vec(which ? s->p_pval_e : s->p_pval, s->cpts, 1, UM_DOUBLE, UM_READ),
                             um_arg_dat(which ? s->p_pe : s->p_pp, -1, UM_ID, s->nq, UM_DOUBLE, UM_WRITE)));
    if (t < *best) *best = t;
    um_app_progress(r, scheme_loop[which], it + 1, repeat);
  }
  um_app_progress_clear(r);
  return UM_SUCCESS;
}

static int record_scheme(um_app_run *r, const siac *s, int which, double t, const double stats[2]) {
  char name[64];
  const double flops = siac_flops(s->k, stats[0], stats[1]);
  fprintf(r->log, "siac: %-11s %10.4f s  %.0f intersection tests (%.1f per point), %.0f sub-triangles, "
                  "%.3g GFLOP/s\n",
          scheme_loop[which], t, stats[0], stats[0] / ((double)s->ncells * s->nq), stats[1], flops / t * 1e-9);
  snprintf(name, sizeof name, "seconds_%s", scheme_loop[which]);
  UM_APP_TRY(um_app_metric(r, name, t));
  snprintf(name, sizeof name, "tests_%s", scheme_loop[which]);
  UM_APP_TRY(um_app_metric(r, name, stats[0]));
  snprintf(name, sizeof name, "subtriangles_%s", scheme_loop[which]);
  UM_APP_TRY(um_app_metric(r, name, stats[1]));
  snprintf(name, sizeof name, "gflops_%s", scheme_loop[which]);
  UM_APP_TRY(um_app_metric(r, name, flops / t * 1e-9));
  return UM_SUCCESS;
}

static int siac_run(um_app_run *r) {
  siac s;
  memset(&s, 0, sizeof s);
  int scheme, repeat;
  UM_APP_TRY(um_app_choice(r, "params.scheme", &scheme, NULL));
  UM_APP_TRY(um_app_int(r, "params.repeat", &repeat));
  const double t0 = um_wtime();
  int bins;
  UM_APP_TRY(um_app_int(r, "params.bins", &bins));
  int rc = siac_build(r, &s);
  if (!rc) rc = um_app_prepare(r, "cell_nodes");
  if (!rc && s.grid) rc = siac_grid_build(r, &s, bins);
  if (rc) {
    siac_free(&s);
    return rc;
  }
  um_app_setup_done(r, t0);
  const double t1 = um_wtime();
  double t[2] = {0, 0}, st[2][2] = {{0, 0}, {0, 0}};
  const int use[2] = {scheme != 2, scheme != 1};
  for (int w = 0; w < 2 && !rc; w++)
    if (use[w]) rc = run_scheme(r, &s, w, repeat, &t[w], st[w]);
  r->run_seconds = um_wtime() - t1;
  for (int w = 0; w < 2 && !rc; w++)
    if (use[w]) rc = record_scheme(r, &s, w, t[w], st[w]);
  if (!rc && use[0] && use[1]) {
    double diff = 0;
    rc = UM_PAR_LOOP(r->ctx, siac_diff_kernel, "compare", s.cells,
                     um_arg_dat(s.p_pp, -1, UM_ID, s.nq, UM_DOUBLE, UM_READ),
                     um_arg_dat(s.p_pe, -1, UM_ID, s.nq, UM_DOUBLE, UM_READ), um_arg_gbl(&diff, 1, UM_DOUBLE, UM_MAX));
    if (!rc) {
      fprintf(r->log, "siac: per_point and per_element differ by at most %.3g; per_element / per_point time %.3f\n",
              diff, t[1] / t[0]);
      rc = um_app_metric(r, "scheme_difference", diff);
    }
    if (!rc) rc = um_app_metric(r, "speedup_per_element", t[0] / t[1]);
  }
  if (!rc) rc = siac_finish(r, &s, use[0] ? s.p_pp : s.p_pe);
  siac_free(&s);
  return rc;
}

const um_app um_app_siac = {
    .name = "siac",
    .description = "SIAC filtering of a dG solution on triangles: per point (gather) against per element (scatter)",
    .run = siac_run,
    .options = siac_options,
    .noptions = (int)(sizeof siac_options / sizeof siac_options[0]),
    .report_note =
        "SIAC is a post-processor, not a solver: it convolves a discontinuous Galerkin solution (a polynomial of "
        "degree k on each triangle) with a B-spline kernel whose stencil is a square of (3k+1)h, integrating exactly "
        "over every piece of every triangle the stencil covers. Unlike the other apps, a cell's neighbourhood is not "
        "its few mesh neighbours but tens to thousands of cells, of varying number: the loops pass the whole "
        "neighbourhood map to the kernel as one <em>vector argument</em> (<code>um_arg_vec</code>) instead of one "
        "argument per neighbour. <code>per_point</code> gathers (each cell reads its neighbours and writes its own "
        "points); <code>per_element</code> scatters (each cell reads itself once and increments its neighbours' "
        "points: colouring or atomics). With <code>params.search: grid</code> the two run as King &amp; Kirby wrote them: each "
        "searches a hash grid inside the loop (the grid passed whole, <code>um_arg_whole</code>), per element adding to "
        "any point by atomics. Clipping and the quadrature make it compute-bound, more so as k grows: "
        "thousands of operations per byte, the opposite end of the suite from Airfoil."};
