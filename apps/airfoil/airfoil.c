/* Airfoil on um: sets, maps and dats as in OP2's Airfoil, its five loops, and
 * the rms of the update printed every 100 iterations.
 *
 * Config:
 *   mesh: {generator: naca0012, I: 400, J: 600, round6: true}   or   {file: new_grid.dat | new_grid.h5}
 *   run.iterations: 1000
 *   output: {dir: out/airfoil, hdf5: true}   final fields as HDF5 (OP2 layout) + XDMF for ParaView
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "um/app.h"
#include "airfoil.h"
#include "airfoil_kernels.h"
#include "um/hdf5io.h"
#ifdef _OPENMP
#include <omp.h>
#endif

extern const char airfoil_kernels_source[];
#define AIRFOIL_KERNEL(fn, n) UM_KERNEL_DEFINE(fn, n, airfoil_kernels_source, "airfoil_kernels.h")
AIRFOIL_KERNEL(save_soln, 2);
AIRFOIL_KERNEL(adt_calc, 6);
AIRFOIL_KERNEL(res_calc, 8);
AIRFOIL_KERNEL(bres_calc, 6);
AIRFOIL_KERNEL(update, 5);
AIRFOIL_KERNEL(update_adt, 8);
AIRFOIL_KERNEL(update_save_adt, 9);
AIRFOIL_KERNEL(update_save_adt_no_rms, 8);
AIRFOIL_KERNEL(cells_stage1, 17);
AIRFOIL_KERNEL(cells_stage2, 18);
AIRFOIL_KERNEL(cells_stage2_no_rms, 17);
AIRFOIL_KERNEL(cells_stage2_last, 18);

/* The kernels' constants (UM_CONST in airfoil_kernels.h), set in set_constants(). */
UM_CONST_DEFINE(double, gam);
UM_CONST_DEFINE(double, gm1);
UM_CONST_DEFINE(double, cfl);
UM_CONST_DEFINE(double, eps);
UM_CONST_DEFINE(double, qinf[4]);

/* Free-stream state and scheme constants. Upstream computes them from
 * single-precision literals (1.4f, 0.9f, ...); the published residuals depend
 * on that, so we do the same. */
int airfoil_set_constants(um_context *ctx) {
  gam = 1.4f;
  gm1 = gam - 1.0f;
  cfl = 0.9f;
  eps = 0.05f;
  const double mach = 0.4f, p = 1.0f, r = 1.0f;
  const double u = sqrt(gam * p / r) * mach;
  const double e = p / (r * gm1) + 0.5f * u * u;
  qinf[0] = r;
  qinf[1] = r * u;
  qinf[2] = 0.0f;
  qinf[3] = r * e;
  UM_APP_TRY(um_decl_const(ctx, "gam", 1, UM_DOUBLE, &gam));
  UM_APP_TRY(um_decl_const(ctx, "gm1", 1, UM_DOUBLE, &gm1));
  UM_APP_TRY(um_decl_const(ctx, "cfl", 1, UM_DOUBLE, &cfl));
  UM_APP_TRY(um_decl_const(ctx, "eps", 1, UM_DOUBLE, &eps));
  UM_APP_TRY(um_decl_const(ctx, "qinf", 4, UM_DOUBLE, qinf));
  return UM_SUCCESS;
}

/* Flow dats on cells: q = free stream, res = 0. */
int airfoil_decl_flow(um_context *ctx, airfoil *a) {
  const int n = um_set_decl_rows(a->cells); /* this rank's block when declared by blocks */
  const um_layout layout = um_context_options(ctx)->layout; /* q made in the layout its dat takes, handed over */
  const int soa = layout != UM_AOS;
  double *q = malloc(sizeof(double) * 4 * (size_t)(n ? n : 1));
  if (!q) return UM_ERR_ALLOC;
#pragma omp parallel for schedule(static) num_threads(um_context_host_threads(ctx))
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 4; k++) q[soa ? (size_t)k * (size_t)n + (size_t)i : 4 * (size_t)i + (size_t)k] = qinf[k];
  UM_APP_TRY(um_decl_dat_take(ctx, a->cells, 4, UM_DOUBLE, q, layout, "p_q", &a->p_q));
  UM_APP_TRY(um_decl_dat(ctx, a->cells, 4, UM_DOUBLE, NULL, "p_qold", &a->p_qold));
  UM_APP_TRY(um_decl_dat(ctx, a->cells, 4, UM_DOUBLE, NULL, "p_res", &a->p_res));
  UM_APP_TRY(um_decl_dat(ctx, a->cells, 1, UM_DOUBLE, NULL, "p_adt", &a->p_adt));
  UM_APP_TRY(um_decl_reduction(ctx, 1, UM_DOUBLE, UM_INC, "rms", &a->rms));
  return UM_SUCCESS;
}

/* The four sets of a whole mesh, for both declarations. */
static int decl_sets(um_context *ctx, const airfoil_mesh *m, airfoil *a) {
  UM_APP_TRY(um_decl_set(ctx, m->nnode, "nodes", &a->nodes));
  UM_APP_TRY(um_decl_set(ctx, m->nedge, "edges", &a->edges));
  UM_APP_TRY(um_decl_set(ctx, m->nbedge, "bedges", &a->bedges));
  UM_APP_TRY(um_decl_set(ctx, m->ncell, "cells", &a->cells));
  return UM_SUCCESS;
}

int airfoil_decl_mesh(um_context *ctx, const airfoil_mesh *m, airfoil *a) {
  UM_APP_TRY(decl_sets(ctx, m, a));
  UM_APP_TRY(um_decl_map(ctx, a->edges, a->nodes, 2, m->edge, "pedge", &a->pedge));
  UM_APP_TRY(um_decl_map(ctx, a->edges, a->cells, 2, m->ecell, "pecell", &a->pecell));
  UM_APP_TRY(um_decl_map(ctx, a->bedges, a->nodes, 2, m->bedge, "pbedge", &a->pbedge));
  UM_APP_TRY(um_decl_map(ctx, a->bedges, a->cells, 1, m->becell, "pbecell", &a->pbecell));
  UM_APP_TRY(um_decl_map(ctx, a->cells, a->nodes, 4, m->cell, "pcell", &a->pcell));
  UM_APP_TRY(um_decl_dat(ctx, a->nodes, 2, UM_DOUBLE, m->x, "p_x", &a->p_x));
  UM_APP_TRY(um_decl_dat(ctx, a->bedges, 1, UM_INT, m->bound, "p_bound", &a->p_bound));
  return UM_SUCCESS;
}

/* p_x and p_bound from arrays handed over (*x and *bound NULL once taken; x copied where the layout is not AoS). */
static int take_x_bound(um_context *ctx, airfoil *a, double **x, int **bound) {
  int rc;
  if (um_context_options(ctx)->layout == UM_AOS) /* x's pairs are AoS rows: handed over as they stand */
    rc = um_decl_dat_take(ctx, a->nodes, 2, UM_DOUBLE, *x, UM_AOS, "p_x", &a->p_x), *x = NULL;
  else
    rc = um_decl_dat(ctx, a->nodes, 2, UM_DOUBLE, *x, "p_x", &a->p_x);
  const um_layout layout = um_context_options(ctx)->layout; /* one value a row: any layout's storage */
  if (!rc) rc = um_decl_dat_take(ctx, a->bedges, 1, UM_INT, *bound, layout, "p_bound", &a->p_bound), *bound = NULL;
  return rc;
}

/* Airfoil's five maps, each from src's array of that name followed by sfx (an airfoil_mesh's int rows, an
 * airfoil_block's 64-bit global rows, or with sfx 32 its 32-bit ones) handed over by take (um_decl_map_take,
 * um_decl_map_block_take, um_decl_map_block_take_i32): src's pointer then NULL (on an earlier failure it stays
 * src's); rc: the outcome so far. */
#define TAKE_MAP(take, src, from, to, arity, field, name, out)                                   \
  do {                                                                                         \
    if (!rc) rc = take(ctx, a->from, a->to, arity, (src)->field, name, out), (src)->field = NULL; \
  } while (0)
#define TAKE_MAPS(take, src, sfx)                                                      \
  do {                                                                                 \
    TAKE_MAP(take, src, edges, nodes, 2, edge##sfx, "pedge", &a->pedge);               \
    TAKE_MAP(take, src, edges, cells, 2, ecell##sfx, "pecell", &a->pecell);            \
    TAKE_MAP(take, src, bedges, nodes, 2, bedge##sfx, "pbedge", &a->pbedge);           \
    TAKE_MAP(take, src, bedges, cells, 1, becell##sfx, "pbecell", &a->pbecell);        \
    TAKE_MAP(take, src, cells, nodes, 4, cell##sfx, "pcell", &a->pcell);               \
  } while (0)

int airfoil_decl_mesh_take(um_context *ctx, airfoil_mesh *m, airfoil *a) {
  UM_APP_TRY(decl_sets(ctx, m, a));
  int rc = UM_SUCCESS;
  TAKE_MAPS(um_decl_map_take, m, );
  return rc ? rc : take_x_bound(ctx, a, &m->x, &m->bound);
}

/* This rank's block of the generated mesh (naca0012.h: airfoil_block), declared by blocks (um/distributed.h), its
 * arrays handed over. */
int airfoil_decl_mesh_block(um_context *ctx, airfoil_block *b, airfoil *a) {
  UM_APP_TRY(um_decl_set_block(ctx, b->gsize[0], b->first[0], b->count[0], "nodes", &a->nodes));
  UM_APP_TRY(um_decl_set_block(ctx, b->gsize[2], b->first[2], b->count[2], "edges", &a->edges));
  UM_APP_TRY(um_decl_set_block(ctx, b->gsize[3], b->first[3], b->count[3], "bedges", &a->bedges));
  UM_APP_TRY(um_decl_set_block(ctx, b->gsize[1], b->first[1], b->count[1], "cells", &a->cells));
  int rc = UM_SUCCESS;
  if (b->cell32) /* the 32-bit rows (airfoil_block_generate's rows32) */
    TAKE_MAPS(um_decl_map_block_take_i32, b, 32);
  else
    TAKE_MAPS(um_decl_map_block_take, b, );
  return rc ? rc : take_x_bound(ctx, a, &b->x, &b->bound);
}

int airfoil_check_block(um_context *ctx, const airfoil_block *b) {
  for (int i = 0; i < b->count[0]; i++)
    if (!isfinite(b->x[2 * (size_t)i]) || !isfinite(b->x[2 * (size_t)i + 1]))
      return um_error_set(ctx, UM_ERR_IO, "mesh: node %lld has coordinates (%g, %g), which are not finite",
                          b->first[0] + i, b->x[2 * (size_t)i], b->x[2 * (size_t)i + 1]);
  for (int i = 0; i < b->count[3]; i++)
    if (b->bound[i] != 1 && b->bound[i] != 2)
      return um_error_set(ctx, UM_ERR_IO, "mesh: boundary edge %lld has boundary code %d, neither 1 (wall) nor 2 (far "
                          "field)", b->first[3] + i, b->bound[i]);
  for (int k = 0; k < 2; k++) {
    const long long *e = k ? b->bedge : b->edge;
    const int *e32 = k ? b->bedge32 : b->edge32;
    for (int i = 0; i < b->count[k ? 3 : 2]; i++) {
      const long long n0 = e ? e[2 * (size_t)i] : e32[2 * (size_t)i], n1 = e ? e[2 * (size_t)i + 1] : e32[2 * (size_t)i + 1];
      if (n0 == n1)
        return um_error_set(ctx, UM_ERR_IO, "mesh: %s %lld joins node %lld to itself", k ? "boundary edge" : "edge",
                            b->first[k ? 3 : 2] + i, n0);
    }
  }
  return UM_SUCCESS;
}

/* OP2's new_grid.h5 layout: the same names as above. */
static int decl_mesh_hdf5(um_context *ctx, const char *file, int blocks, airfoil *a) {
  int (*set)(um_context *, const char *, const char *, um_set **) = blocks ? um_hdf5_read_set_block : um_hdf5_read_set;
  UM_APP_TRY(set(ctx, file, "nodes", &a->nodes));
  UM_APP_TRY(set(ctx, file, "edges", &a->edges));
  UM_APP_TRY(set(ctx, file, "bedges", &a->bedges));
  UM_APP_TRY(set(ctx, file, "cells", &a->cells));
  UM_APP_TRY(um_hdf5_read_map_expect(ctx, file, a->edges, a->nodes, 2, "pedge", &a->pedge));
  UM_APP_TRY(um_hdf5_read_map_expect(ctx, file, a->edges, a->cells, 2, "pecell", &a->pecell));
  UM_APP_TRY(um_hdf5_read_map_expect(ctx, file, a->bedges, a->nodes, 2, "pbedge", &a->pbedge));
  UM_APP_TRY(um_hdf5_read_map_expect(ctx, file, a->bedges, a->cells, 1, "pbecell", &a->pbecell));
  UM_APP_TRY(um_hdf5_read_map_expect(ctx, file, a->cells, a->nodes, 4, "pcell", &a->pcell));
  UM_APP_TRY(um_hdf5_read_dat_expect(ctx, file, a->nodes, 2, UM_DOUBLE, "p_x", &a->p_x));
  UM_APP_TRY(um_hdf5_read_dat_expect(ctx, file, a->bedges, 1, UM_INT, "p_bound", &a->p_bound));
  return UM_SUCCESS;
}

/* blocks: each rank reads only its block's rows, and what only some ranks' rows show (a map entry out of range, a
 * file one rank cannot open or read) fails every rank at once: the ranks agree on the outcome after reading. */
int airfoil_decl_mesh_hdf5(um_context *ctx, const char *file, int blocks, airfoil *a) {
  const int rc = decl_mesh_hdf5(ctx, file, blocks, a);
  return blocks ? um_hdf5_read_agree(ctx, rc, file) : rc;
}

int airfoil_save_soln(um_context *ctx, const airfoil *a) {
  return UM_PAR_LOOP(ctx, save_soln_kernel, "save_soln", a->cells,
                     um_arg_dat(a->p_q, -1, UM_ID, 4, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_qold, -1, UM_ID, 4, UM_DOUBLE, UM_WRITE));
}

int airfoil_adt_calc(um_context *ctx, const airfoil *a) {
  return UM_PAR_LOOP(ctx, adt_calc_kernel, "adt_calc", a->cells,
                     um_arg_dat(a->p_x, 0, a->pcell, 2, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_x, 1, a->pcell, 2, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_x, 2, a->pcell, 2, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_x, 3, a->pcell, 2, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_q, -1, UM_ID, 4, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_adt, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE));
}

int airfoil_res_calc(um_context *ctx, const airfoil *a) {
  return UM_PAR_LOOP(ctx, res_calc_kernel, "res_calc", a->edges,
                     um_arg_dat(a->p_x, 0, a->pedge, 2, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_x, 1, a->pedge, 2, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_q, 0, a->pecell, 4, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_q, 1, a->pecell, 4, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_adt, 0, a->pecell, 1, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_adt, 1, a->pecell, 1, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_res, 0, a->pecell, 4, UM_DOUBLE, UM_INC),
                     /* minus the first cell's flux: a split loop stores it once */
                     um_arg_minus(um_arg_dat(a->p_res, 1, a->pecell, 4, UM_DOUBLE, UM_INC), 0));
}

int airfoil_bres_calc(um_context *ctx, const airfoil *a) {
  return UM_PAR_LOOP(ctx, bres_calc_kernel, "bres_calc", a->bedges,
                     um_arg_dat(a->p_x, 0, a->pbedge, 2, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_x, 1, a->pbedge, 2, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_q, 0, a->pbecell, 4, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_adt, 0, a->pbecell, 1, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_res, 0, a->pbecell, 4, UM_DOUBLE, UM_INC),
                     um_arg_dat(a->p_bound, -1, UM_ID, 1, UM_INT, UM_READ));
}

static int update_into(um_context *ctx, const airfoil *a, um_arg rms) {
  return UM_PAR_LOOP(ctx, update_kernel, "update", a->cells, um_arg_dat(a->p_qold, -1, UM_ID, 4, UM_DOUBLE, UM_READ),
                     um_arg_dat(a->p_q, -1, UM_ID, 4, UM_DOUBLE, UM_WRITE),
                     um_arg_dat(a->p_res, -1, UM_ID, 4, UM_DOUBLE, UM_RW),
                     um_arg_dat(a->p_adt, -1, UM_ID, 1, UM_DOUBLE, UM_READ), rms);
}

int airfoil_update(um_context *ctx, const airfoil *a, double *rms) {
  return update_into(ctx, a, um_arg_gbl(rms, 1, UM_DOUBLE, UM_INC));
}

int airfoil_step(um_context *ctx, const airfoil *a) {
  UM_APP_TRY(airfoil_save_soln(ctx, a));
  for (int k = 0; k < 2; k++) { /* two-stage predictor/corrector */
    UM_APP_TRY(airfoil_adt_calc(ctx, a));
    UM_APP_TRY(airfoil_res_calc(ctx, a));
    UM_APP_TRY(airfoil_bres_calc(ctx, a));
    UM_APP_TRY(update_into(ctx, a, um_arg_reduction(a->rms))); /* each call's sum starts from 0 */
  }
  return UM_SUCCESS;
}

/* update fused with the adt_calc after it: the first stage's (no rms: never read), or (save) the second stage's,
 * also with the next iteration's save_soln */
static int update_fused(um_context *ctx, const airfoil *a, int save) {
  const um_arg x[4] = {um_arg_dat(a->p_x, 0, a->pcell, 2, UM_DOUBLE, UM_READ),
                       um_arg_dat(a->p_x, 1, a->pcell, 2, UM_DOUBLE, UM_READ),
                       um_arg_dat(a->p_x, 2, a->pcell, 2, UM_DOUBLE, UM_READ),
                       um_arg_dat(a->p_x, 3, a->pcell, 2, UM_DOUBLE, UM_READ)};
  const um_arg q = um_arg_dat(a->p_q, -1, UM_ID, 4, UM_DOUBLE, UM_WRITE),
               res = um_arg_dat(a->p_res, -1, UM_ID, 4, UM_DOUBLE, UM_RW),
               adt = um_arg_dat(a->p_adt, -1, UM_ID, 1, UM_DOUBLE, UM_RW);
  if (!save)
    return UM_PAR_LOOP(ctx, update_adt_kernel, "update_adt", a->cells, x[0], x[1], x[2], x[3],
                       um_arg_dat(a->p_qold, -1, UM_ID, 4, UM_DOUBLE, UM_READ), q, res, adt);
  const um_arg qold = um_arg_dat(a->p_qold, -1, UM_ID, 4, UM_DOUBLE, UM_RW);
  if (a->rms_unread)
    return UM_PAR_LOOP(ctx, update_save_adt_no_rms_kernel, "update_save_adt_no_rms", a->cells, x[0], x[1], x[2],
                       x[3], qold, q, res, adt);
  return UM_PAR_LOOP(ctx, update_save_adt_kernel, "update_save_adt", a->cells, x[0], x[1], x[2], x[3], qold, q, res,
                     adt, um_arg_reduction(a->rms));
}

int airfoil_step_fused(um_context *ctx, airfoil *a, int last) {
  if (!a->primed) {
    UM_APP_TRY(airfoil_save_soln(ctx, a));
    UM_APP_TRY(airfoil_adt_calc(ctx, a));
  }
  a->primed = 0;
  UM_APP_TRY(airfoil_res_calc(ctx, a));
  UM_APP_TRY(airfoil_bres_calc(ctx, a));
  UM_APP_TRY(update_fused(ctx, a, 0));
  UM_APP_TRY(airfoil_res_calc(ctx, a));
  UM_APP_TRY(airfoil_bres_calc(ctx, a));
  if (last) return update_into(ctx, a, um_arg_reduction(a->rms));
  UM_APP_TRY(update_fused(ctx, a, 1));
  a->primed = 1;
  return UM_SUCCESS;
}

/* ---- params.scheme: cells ---- */

/* The corner of cell c at node n: by number, else (a node duplicated along a cut, as the C-mesh's wake) the corner
 * with the same coordinates, bit for bit; -1 if none. */
static int cell_corner_of(const int *pc, const double *x, int c, int n) {
  for (int k = 0; k < 4; k++)
    if (pc[4 * (size_t)c + k] == n) return k;
  for (int k = 0; k < 4; k++) {
    const double *y = x + 2 * (size_t)pc[4 * (size_t)c + k];
    if (y[0] == x[2 * (size_t)n] && y[1] == x[2 * (size_t)n + 1]) return k;
  }
  return -1;
}

/* Adds to cell c the side from node n1 to n2 of kind (airfoil_kernels.h, cell_res) with neighbour nb: 0, or 1
 * where it is not a side of c, 2 where c has four sides already. */
static int side_add(const int *pc, const double *x, int *side, int *nbr, int *count, int c, int n1, int n2, int kind,
                    int nb) {
  const int k1 = cell_corner_of(pc, x, c, n1), k2 = cell_corner_of(pc, x, c, n2);
  if (k1 < 0 || k2 < 0) return 1;
  if (count[c] == 4) return 2;
  side[c] |= (k1 | k2 << 2 | kind << 4) << (8 * count[c]);
  nbr[4 * (size_t)c + count[c]++] = nb;
  return 0;
}

/* What the cells scheme's sides are made from. */
typedef struct {
  const int *pe, *ec, *pb, *bc, *pc, *bound;
  const double *x;
  int nc, ne, nb;
} cells_mesh;

/* side_add of edge e's side w (its cells' first, then second) and of boundary edge b (ne + b). */
static int add_edge_side(const cells_mesh *in, int *side, int *nbr, int *count, int e, int w) {
  const size_t i = 2 * (size_t)e;
  return side_add(in->pc, in->x, side, nbr, count, in->ec[i + (size_t)w], in->pe[i], in->pe[i + 1], 1 + w,
                  in->ec[i + 1 - (size_t)w]);
}
static int add_bedge_side(const cells_mesh *in, int *side, int *nbr, int *count, int b) {
  return side_add(in->pc, in->x, side, nbr, count, in->bc[b], in->pb[2 * (size_t)b], in->pb[2 * (size_t)b + 1],
                  in->bound[b] == 1 ? 3 : 4, in->bc[b]);
}

/* The sides in the edge loops' order (edges by number, first cell then second, then boundary edges), one pass;
 * the first failure named. */
static int sides_serial(um_context *ctx, const cells_mesh *in, int *side, int *nbr, int *count) {
  for (int k = 0; k < 2 * in->ne + in->nb; k++) {
    const int edge = k < 2 * in->ne, id = edge ? k / 2 : k - 2 * in->ne;
    const int f = edge ? add_edge_side(in, side, nbr, count, id, k % 2) : add_bedge_side(in, side, nbr, count, id);
    const int c = edge ? in->ec[2 * (size_t)id + (size_t)(k % 2)] : in->bc[id];
    const int n1 = edge ? in->pe[2 * (size_t)id] : in->pb[2 * (size_t)id];
    const int n2 = edge ? in->pe[2 * (size_t)id + 1] : in->pb[2 * (size_t)id + 1];
    const char *what = edge ? "edge" : "boundary edge";
    const int *q = in->pc + 4 * (size_t)c;
    if (f == 1)
      return um_error_set(ctx, UM_ERR_IO,
                          "params.scheme=cells: %s %d (nodes %d %d) is not a side of its cell %d (nodes %d %d %d %d, "
                          "none at the same coordinates): the scheme needs a conforming quadrilateral mesh; use "
                          "params.scheme=edges", what, id, n1, n2, c, q[0], q[1], q[2], q[3]);
    if (f == 2)
      return um_error_set(ctx, UM_ERR_IO,
                          "params.scheme=cells: cell %d has more than four edges (%s %d is its fifth); fix the mesh or "
                          "use params.scheme=edges", c, what, id);
  }
  return UM_SUCCESS;
}

/* The same over nthreads threads: each thread its range of cells, reading every edge in order (each cell's sides
 * those of the one pass, for any count); 1 where some side failed (sides_serial then names the first). */
static int sides_threads(const cells_mesh *in, int *side, int *nbr, int *count, int nthreads) {
  (void)nthreads; /* unused in a build without OpenMP */
  int failed = 0;
#pragma omp parallel num_threads(nthreads) reduction(| : failed)
  {
    int t = 0, nt = 1;
#ifdef _OPENMP
    t = omp_get_thread_num(), nt = omp_get_num_threads();
#endif
    const int c0 = (int)((long long)in->nc * t / nt), c1 = (int)((long long)in->nc * (t + 1) / nt);
    for (int e = 0; e < in->ne && !failed; e++)
      for (int w = 0; w < 2 && !failed; w++) {
        const int c = in->ec[2 * (size_t)e + (size_t)w];
        if (c >= c0 && c < c1) failed = add_edge_side(in, side, nbr, count, e, w) != 0;
      }
    for (int b = 0; b < in->nb && !failed; b++)
      if (in->bc[b] >= c0 && in->bc[b] < c1) failed = add_bedge_side(in, side, nbr, count, b) != 0;
  }
  return failed;
}

int airfoil_decl_cells(um_context *ctx, airfoil *a) {
  airfoil_host_mesh h = {NULL, NULL};
  int rc = airfoil_host_mesh_fetch(ctx, a, &h);
  if (!rc) rc = airfoil_decl_cells_host(ctx, a, &h);
  airfoil_host_mesh_free(&h);
  return rc;
}

int airfoil_decl_cells_host(um_context *ctx, airfoil *a, const airfoil_host_mesh *h) {
  const int nc = um_set_size(a->cells), ne = um_set_size(a->edges), nb = um_set_size(a->bedges);
  const int nthreads = um_context_host_threads(ctx);
  int *nbr = malloc(sizeof(int) * 4 * (size_t)(nc ? nc : 1)), *side = calloc((size_t)(nc ? nc : 1), sizeof(int)),
      *count = calloc((size_t)(nc ? nc : 1), sizeof(int));
  int rc = !nbr || !side || !count ? um_error_set(ctx, UM_ERR_ALLOC, "out of memory for the cells scheme") : UM_SUCCESS;
  const cells_mesh in = {um_map_data(a->pedge), um_map_data(a->pecell), um_map_data(a->pbedge),
                         um_map_data(a->pbecell), um_map_data(a->pcell), h->bound, h->x, nc, ne, nb};
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (size_t i = 0; i < (rc ? 0 : 4 * (size_t)nc); i++) nbr[i] = (int)(i / 4); /* none across: the cell itself */
  if (!rc && (nthreads < 2 || sides_threads(&in, side, nbr, count, nthreads))) {
    if (nthreads > 1) { /* a failure: made again in one pass, which names the first */
      for (size_t i = 0; i < 4 * (size_t)nc; i++) nbr[i] = (int)(i / 4);
      memset(side, 0, sizeof(int) * (size_t)nc), memset(count, 0, sizeof(int) * (size_t)nc);
    }
    rc = sides_serial(ctx, &in, side, nbr, count);
  }
  if (!rc) rc = um_decl_map_take(ctx, a->cells, a->cells, 4, nbr, "pcnb", &a->pcnb), nbr = NULL;
  if (!rc)
    rc = um_decl_dat_take(ctx, a->cells, 1, UM_INT, side, um_context_options(ctx)->layout, "p_side", &a->p_side),
    side = NULL;
  if (!rc) rc = um_decl_dat(ctx, a->cells, 4, UM_DOUBLE, NULL, "p_q1", &a->p_q1);
  if (!rc) rc = um_decl_dat(ctx, a->cells, 1, UM_DOUBLE, NULL, "p_adt1", &a->p_adt1);
  free(nbr);
  free(side);
  free(count);
  return rc;
}

/* One stage of the cells scheme: the residual of q / adt (read on the cell and across its sides), the update of
 * the saved solution qs (stage 1: q itself) and adt_calc into adts (kernel: cells_stage1 / cells_stage2*). */
static int cells_stage(um_context *ctx, const airfoil *a, const um_kernel *kernel, const char *name, um_dat *q,
                       um_dat *adt, um_arg qs, um_dat *adts, const um_arg *rms) {
  um_arg args[18];
  int n = 0;
  for (int k = 0; k < 4; k++) args[n++] = um_arg_dat(a->p_x, k, a->pcell, 2, UM_DOUBLE, UM_READ);
  args[n++] = um_arg_dat(q, -1, UM_ID, 4, UM_DOUBLE, UM_READ);
  args[n++] = um_arg_dat(adt, -1, UM_ID, 1, UM_DOUBLE, UM_READ);
  for (int k = 0; k < 4; k++) args[n++] = um_arg_dat(q, k, a->pcnb, 4, UM_DOUBLE, UM_READ);
  for (int k = 0; k < 4; k++) args[n++] = um_arg_dat(adt, k, a->pcnb, 1, UM_DOUBLE, UM_READ);
  args[n++] = um_arg_dat(a->p_side, -1, UM_ID, 1, UM_INT, UM_READ);
  args[n++] = qs;
  args[n++] = um_arg_dat(adts, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE);
  if (rms) args[n++] = *rms;
  return um_par_loop(ctx, kernel, name, a->cells, n, args);
}

int airfoil_step_cells(um_context *ctx, airfoil *a, int last) {
  if (!a->primed) UM_APP_TRY(airfoil_adt_calc(ctx, a));
  a->primed = 0;
  UM_APP_TRY(cells_stage(ctx, a, &cells_stage1_kernel, "cells_stage1", a->p_q, a->p_adt,
                         um_arg_dat(a->p_q1, -1, UM_ID, 4, UM_DOUBLE, UM_WRITE), a->p_adt1, NULL));
  const um_arg qs = um_arg_dat(a->p_q, -1, UM_ID, 4, UM_DOUBLE, UM_RW), rms = um_arg_reduction(a->rms);
  if (last)
    return cells_stage(ctx, a, &cells_stage2_last_kernel, "cells_stage2_last", a->p_q1, a->p_adt1, qs, a->p_adt, &rms);
  if (a->rms_unread)
    UM_APP_TRY(cells_stage(ctx, a, &cells_stage2_no_rms_kernel, "cells_stage2_no_rms", a->p_q1, a->p_adt1, qs, a->p_adt,
                           NULL));
  else
    UM_APP_TRY(cells_stage(ctx, a, &cells_stage2_kernel, "cells_stage2", a->p_q1, a->p_adt1, qs, a->p_adt, &rms));
  a->primed = 1;
  return UM_SUCCESS;
}

int airfoil_rms(um_context *ctx, const airfoil *a, double *rms) {
  double sum = 0;
  UM_APP_TRY(um_reduction_get(ctx, a->rms, &sum, sizeof sum));
  *rms = sqrt(sum / (double)um_set_gsize(a->cells)); /* 64-bit: a mesh by blocks may pass INT_MAX cells */
  return UM_SUCCESS;
}

int airfoil_iteration(um_context *ctx, const airfoil *a, double *rms) {
  UM_APP_TRY(airfoil_step(ctx, a));
  return airfoil_rms(ctx, a, rms);
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

#define CHOICES(...) ((const char *const[]){__VA_ARGS__, NULL})
/* airfoil's options, declared once (read with um_app_int etc.; --list-apps, docs/options.md). */
static const um_option airfoil_options[] = {
    {.key = "mesh.file", .type = UM_OPT_STRING, .flags = UM_OPT_PATH,
     .help = "an OP2 mesh: new_grid.dat (text) or new_grid.h5 (HDF5); unset: generate the mesh\n"
             "(mesh.generator, I, J, round6 are then ignored)"},
    {.key = "mesh.generator", .type = UM_OPT_CHOICE, .def = "naca0012", .choices = CHOICES("naca0012"),
     .help = "the generated mesh: a C-mesh around a NACA0012 aerofoil (with I, J)"},
    {.key = "mesh.I", .type = UM_OPT_INT, .def = "400",
     .help = "generator: cells per third of the i-direction (the aerofoil surface, and the wake cut\n"
             "on each side, are I cells long)"},
    {.key = "mesh.J", .type = UM_OPT_INT, .def = "600",
     .help = "generator: cells in the j-direction (wall to far field)"},
    {.key = "mesh.round6", .type = UM_OPT_BOOL, .def = "true",
     .help = "generator: round the coordinates to 6 decimals (as OP2's new_grid.dat)"},
    {.key = "params.fused", .type = UM_OPT_BOOL, .def = "true",
     .help = "true: each update runs in one pass with the adt_calc after it (and the last one of an iteration\n"
             "with the next iteration's save_soln): q is read once instead of three times, three loops fewer an\n"
             "iteration, the same arithmetic and results (faster on the GPUs and CPUs measured: docs/benchmarks.md);\n"
             "false: upstream OP2's five loops"},
    {.key = "params.scheme", .type = UM_OPT_CHOICE, .def = "edges", .choices = CHOICES("edges", "cells"),
     .help = "edges: upstream's loops over edges (res_calc, bres_calc) incrementing both cells' residuals, then the\n"
             "cell updates; cells: one loop over the cells a stage: each cell gathers the fluxes of its four sides\n"
             "(through a cell -> cell map, so each interior flux is computed twice), updates its q into a second\n"
             "buffer and computes the next stage's adt: no increments, no colouring or atomics, two passes an\n"
             "iteration; the same bits as edges on one thread (sides added in the edge loops' order); 2.0x edges a\n"
             "step on an H100, about 2x slower on CPUs, where the doubled flux arithmetic is the cost\n"
             "(docs/benchmarks.md); needs params.fused (it is a fused step) and a conforming quadrilateral mesh"},
    {.key = "run.iterations", .type = UM_OPT_INT, .def = "1000", .min = 1, .max = 2147483647, .flags = UM_OPT_RANGE,
     .range_hint = "must be >= 1",
     .help = "iterations; with output: {dir: ..., hdf5: true} the final fields go to\n"
             "airfoil.h5 (OP2's layout) + airfoil.xmf"},
};

/* The generated mesh: this rank's block of it when the run declares its mesh by blocks (*checked: the block's
 * own checks were made), else the whole of it. */
static int generate_mesh(um_app_run *r, airfoil *a, int blocks, int *checked) {
  char err[1024] = "";
  int I, J, round6;
  UM_APP_TRY(um_app_choice(r, "mesh.generator", NULL, NULL));
  UM_APP_TRY(um_app_int(r, "mesh.I", &I));
  UM_APP_TRY(um_app_int(r, "mesh.J", &J));
  UM_APP_TRY(um_app_bool(r, "mesh.round6", &round6));
  const double t0 = um_wtime();
  long long gsize[4], first[4], count[4];
  if (blocks && airfoil_mesh_counts(I, J, gsize) == 0) {
    for (int s = 0; s < 4; s++) {
      int n = 0;
      UM_APP_TRY(um_app_block(r, gsize[s], &first[s], &n));
      count[s] = n;
    }
    airfoil_block b;
    int rows32 = 0;
    UM_APP_TRY(um_app_rows32(r, &rows32));
    if (airfoil_block_generate(I, J, round6, first, count, rows32, &b, err, sizeof err))
      return um_app_fail(r, UM_ERR_CONFIG, "mesh generator naca0012 (I=%d, J=%d): %s", I, J, err);
    fprintf(r->log, "airfoil: NACA0012 C-mesh I=%d J=%d%s, this rank's block of it (%d of %lld cells) generated in "
                    "%.2f s\n", I, J, round6 ? " (coordinates rounded to 6 decimals)" : "", b.count[1], b.gsize[1],
            um_wtime() - t0);
    int rc = airfoil_check_block(r->ctx, &b);
    if (!rc) rc = airfoil_decl_mesh_block(r->ctx, &b, a);
    airfoil_block_free(&b);
    *checked = 1;
    return rc;
  }
  airfoil_mesh m;
  if (airfoil_mesh_generate_threads(I, J, round6, um_context_host_threads(r->ctx), &m, err, sizeof err))
    return um_app_fail(r, UM_ERR_CONFIG, "mesh generator naca0012 (I=%d, J=%d): %s", I, J, err);
  fprintf(r->log, "airfoil: NACA0012 C-mesh I=%d J=%d%s generated in %.2f s\n", I, J,
          round6 ? " (coordinates rounded to 6 decimals)" : "", um_wtime() - t0);
  int rc = airfoil_decl_mesh_take(r->ctx, &m, a);
  airfoil_mesh_free(&m);
  return rc;
}

/* A text new_grid.dat by blocks: read whole on rank 0 alone and sent out, each rank its block (a file rank 0
 * cannot read stops every rank with its message); each block checked as the generator's are. */
static int text_by_blocks(um_app_run *r, const char *file, airfoil *a, int *checked) {
  char err[1024] = "";
  airfoil_mesh m;
  memset(&m, 0, sizeof m);
  int rc = um_mpi_rank() == 0 && airfoil_mesh_read_text(file, &m, err, sizeof err)
               ? um_app_fail(r, UM_ERR_IO, "mesh.file: %s", err) : UM_SUCCESS;
  UM_APP_TRY(um_app_agree(r, rc, "read the mesh file"));
  const double bytes = 16.0 * m.nnode + 16.0 * m.ncell + 16.0 * m.nedge + 12.0 * m.nbedge;
  airfoil_block b;
  if (airfoil_block_scatter(&m, &b, err, sizeof err)) return um_app_fail(r, UM_ERR_ALLOC, "airfoil: %s", err);
  fprintf(r->log, "airfoil: %s read whole on rank 0 (%.1f MB there while it was sent) and sent out by blocks: this "
                  "rank holds %d of %lld cells; the geometry checks of a whole mesh (cell areas, duplicated edges) "
                  "are not made (mpi.mesh: whole makes them)\n", file, um_mpi_rank() == 0 ? bytes / 1e6 : 0.0,
          b.count[1], b.gsize[1]);
  rc = airfoil_check_block(r->ctx, &b);
  if (!rc) rc = airfoil_decl_mesh_block(r->ctx, &b, a);
  airfoil_block_free(&b);
  *checked = 1;
  return um_app_agree(r, rc ? um_app_fail(r, rc, "%s", um_error_message(r->ctx)) : rc, "check its block of the mesh");
}

/* A mesh read by blocks (HDF5), checked once distributed: each rank fetches its block of the coordinates, the
 * boundary codes and the edges in the declared numbering and checks it as the generator's blocks are checked
 * (finite coordinates, codes 1 or 2, no edge from a node to itself), so that a file one rank refuses is refused on
 * any number of ranks, with the same element numbers (collective; the ranks agree on the outcome). */
static int check_read_blocks(um_app_run *r, airfoil *a) {
  um_context *ctx = r->ctx;
  airfoil_block b;
  memset(&b, 0, sizeof b);
  um_set *const sets[4] = {a->nodes, a->cells, a->edges, a->bedges};
  int rc = UM_SUCCESS;
  for (int k = 0; k < 4 && !rc; k++) {
    rc = um_set_block(ctx, sets[k], &b.first[k], &b.count[k]);
    b.gsize[k] = um_set_gsize(sets[k]);
    if (rc) rc = um_error_set(ctx, rc, "set '%s': no block of it for this rank to check", um_set_name(sets[k]));
  }
  const size_t nx = 2 * (size_t)b.count[0], ne = 2 * (size_t)b.count[2], nb = (size_t)b.count[3];
  b.x = malloc((nx ? nx : 1) * sizeof *b.x);
  b.edge = malloc((ne ? ne : 1) * sizeof *b.edge);
  b.bedge = malloc((nb ? 2 * nb : 1) * sizeof *b.bedge);
  b.bound = malloc((nb ? nb : 1) * sizeof *b.bound);
  if (!rc && (!b.x || !b.edge || !b.bedge || !b.bound))
    rc = um_error_set(ctx, UM_ERR_ALLOC, "out of memory checking this rank's block of the mesh");
  rc = um_app_agree(r, rc, "check its block of the mesh"); /* the fetches below are collective */
  if (!rc) rc = um_dat_fetch_block_original_order(ctx, a->p_x, b.x, nx * sizeof *b.x);
  if (!rc) rc = um_dat_fetch_block_original_order(ctx, a->p_bound, b.bound, nb * sizeof *b.bound);
  if (!rc) rc = um_map_fetch_block_original_order64(ctx, a->pedge, b.edge, ne * sizeof *b.edge);
  if (!rc) rc = um_map_fetch_block_original_order64(ctx, a->pbedge, b.bedge, 2 * nb * sizeof *b.bedge);
  if (!rc && (rc = airfoil_check_block(ctx, &b)) != UM_SUCCESS) rc = um_app_fail(r, rc, "%s", um_error_message(ctx));
  free(b.x), free(b.edge), free(b.bedge), free(b.bound);
  return um_app_agree(r, rc, "check its block of the mesh");
}

/* The mesh from mesh.file or the generator. Under mpirun with mpi.mesh: blocks the generator makes each rank's
 * block only, each rank reads its block of an HDF5 file, rank 0 reads a text file and sends each rank its block;
 * params.scheme: cells is declared whole, said on the log.
 * *checked: 1 the mesh was checked as it was made (a block); 2 each rank checks its block of it once it is distributed
 * (check_read_blocks); 0 airfoil_check_mesh checks the whole of it. */
static int load_mesh(um_app_run *r, airfoil *a, int cells, int *checked) {
  char err[1024] = "";
  const char *file = NULL;
  int blocks = 0;
  *checked = 0;
  UM_APP_TRY(um_app_string(r, "mesh.file", &file));
  UM_APP_TRY(um_app_by_blocks(r, &blocks));
  if (file) {
    /* the generator's settings (e.g. from the config that mesh.file overrides) are known keys, not used */
    static const char *const gen_keys[] = {"mesh.generator", "mesh.I", "mesh.J", "mesh.round6"};
    for (int k = 0; k < 4; k++) {
      int present = 0;
      UM_APP_TRY(um_app_has(r, gen_keys[k], &present));
      if (present) {
        fprintf(r->log, "airfoil: %s is a setting of the generator; mesh.file is read instead\n", gen_keys[k]);
        um_config_mark_read(r->cfg, gen_keys[k], NULL, 0);
      }
    }
    fprintf(r->log, "airfoil: reading mesh %s\n", file);
    const int h5 = ends_with(file, ".h5") || ends_with(file, ".hdf5");
    if (h5 && blocks && cells) um_app_whole_note(r, "params.scheme: cells builds its cell neighbours from the whole mesh");
    if (h5 && blocks && !cells) { /* by blocks: every rank reads its rows; sizes and ranges checked as read */
      fprintf(r->log, "airfoil: each rank reads its block of %s; the geometry checks of a whole mesh (cell areas, "
                      "duplicated edges) are not made (mpi.mesh: whole makes them)\n", file);
      *checked = 2; /* each block checked once distributed (check_read_blocks) */
    }
    if (h5) return airfoil_decl_mesh_hdf5(r->ctx, file, blocks && !cells, a);
    if (blocks && !cells) return text_by_blocks(r, file, a, checked);
    airfoil_mesh m;
    if (airfoil_mesh_read_text(file, &m, err, sizeof err))
      return um_app_fail(r, UM_ERR_IO, "mesh.file: %s", err);
    int rc = airfoil_decl_mesh_take(r->ctx, &m, a);
    airfoil_mesh_free(&m);
    return rc;
  }
  if (blocks && cells) /* its cell -> cell map is built from the whole mesh */
    um_app_whole_note(r, "params.scheme: cells builds its cell neighbours from the whole mesh");
  return generate_mesh(r, a, blocks && !cells, checked);
}

static int write_output(um_app_run *r) {
  const char *fields[] = {"p_q", "p_adt"};
  const int dims[] = {4, 1};
  return um_app_write_mesh_xdmf(r, "airfoil", "p_x", 2, "pcell", fields, dims, 2);
}

static int airfoil_run(um_app_run *r) {
  int niter, fused, cells;
  UM_APP_TRY(um_app_int(r, "run.iterations", &niter));
  UM_APP_TRY(um_app_bool(r, "params.fused", &fused));
  UM_APP_TRY(um_app_choice(r, "params.scheme", &cells, NULL));
  if (cells && !fused)
    return um_app_fail(r, UM_ERR_CONFIG,
                       "params.scheme=cells is a fused step (one pass over the cells a stage): params.fused=false "
                       "applies to the edge scheme only; drop it or set params.scheme=edges");
  um_context *ctx = r->ctx;
  airfoil a;
  memset(&a, 0, sizeof a);
  double t0 = um_wtime();
  UM_APP_TRY(airfoil_set_constants(ctx));
  int checked = 0;
  UM_APP_TRY(load_mesh(r, &a, cells, &checked));
  /* the maps to the nodes are only read (the coordinates): the exec halo follows pecell and pbecell alone */
  UM_APP_TRY(um_map_set_read_only(a.pedge));
  UM_APP_TRY(um_map_set_read_only(a.pbedge));
  UM_APP_TRY(um_map_set_read_only(a.pcell));
  airfoil_host_mesh h = {NULL, NULL}; /* fetched once for the check and the cells scheme */
  int rc = !checked || cells ? airfoil_host_mesh_fetch(ctx, &a, &h) : UM_SUCCESS;
  /* every reader: degenerate cells are not "the run diverged" */
  if (!rc && !checked) rc = airfoil_check_mesh_host(ctx, &a, &h);
  if (!rc) rc = airfoil_decl_flow(ctx, &a);
  if (!rc && cells) rc = airfoil_decl_cells_host(ctx, &a, &h);
  airfoil_host_mesh_free(&h);
  UM_APP_TRY(rc);
  UM_APP_TRY(um_app_prepare(r, "pecell")); /* reordering, if the config asks for one */
  if (checked == 2) UM_APP_TRY(check_read_blocks(r, &a));
  const long long ncell = um_set_gsize(a.cells);
  fprintf(r->log, "airfoil: %lld nodes, %lld cells, %lld edges, %lld boundary edges; %d iterations%s\n",
          um_set_gsize(a.nodes), ncell, um_set_gsize(a.edges), um_set_gsize(a.bedges), niter,
          cells   ? " (cells: each stage one pass over the cells gathering its sides' fluxes)"
          : fused ? " (fused: update + adt_calc, update + save_soln + adt_calc)"
                  : "");
  UM_APP_TRY(um_app_metric(r, "nodes", (double)um_set_gsize(a.nodes)));
  UM_APP_TRY(um_app_metric(r, "cells", (double)ncell));
  UM_APP_TRY(um_app_metric(r, "edges", (double)um_set_gsize(a.edges)));
  UM_APP_TRY(um_app_metric(r, "bedges", (double)um_set_gsize(a.bedges)));
  const double t_run = um_app_setup_done(r, t0); /* the main loop starts */

  double rms = 0.0, t_first = 0.0;
  long done = 0; /* iterations done: a restart continues after the checkpoint's */
  UM_APP_TRY(um_app_state(r, "rms", &rms, sizeof rms));
  UM_APP_TRY(um_app_resume(r, &done));
  for (int iter = (int)done + 1; iter <= niter; iter++) {
    const int read_rms = iter % 100 == 0 || iter == niter; /* printed or last: the only iterations it is read */
    a.rms_unread = !read_rms;
    UM_APP_TRY(cells   ? airfoil_step_cells(ctx, &a, iter == niter)
               : fused ? airfoil_step_fused(ctx, &a, iter == niter)
                       : airfoil_step(ctx, &a));
    if (iter == done + 1) { /* the first iteration also uploads data, builds plans, compiles kernels */
      UM_APP_TRY(um_sync(ctx));
      t_first = um_wtime() - t_run;
    }
    if (read_rms) { /* the rms is read (and the GPU waited for) only when printed */
      UM_APP_TRY(airfoil_rms(ctx, &a, &rms));
      if (iter % 100 == 0) {
        char name[32];
        snprintf(name, sizeof name, "rms_%d", iter);
        /* a metric every 100 iterations up to 10,000, then every 100 * ceil(niter / 10,000): at most 100 of them */
        const int every = 100 * ((niter + 9999) / 10000);
        if (iter % every == 0) UM_APP_TRY(um_app_metric(r, name, rms));
        um_app_progress_clear(r);
        fprintf(r->log, " %5d  %.17e\n", iter, rms);
        fflush(r->log);
      }
      if (!isfinite(rms))
        return um_app_fail(r, UM_ERR_DIVERGED, "airfoil: the residual became %g at iteration %d: the run diverged",
                           rms, iter);
    }
    um_app_progress(r, "airfoil", iter, niter);
    UM_APP_TRY(um_app_step_end_last(r, iter, iter == niter));
  }
  UM_APP_TRY(um_app_loop_done(r));
  UM_APP_TRY(um_app_metric(r, "rms_final", rms));
  r->run_seconds = um_wtime() - t_run;
  r->steps = niter - done; /* the steps this run timed (a restart continues after done) */
  r->first_step_seconds = t_first;
  return write_output(r);
}

const um_app um_app_airfoil = {
    .name = "airfoil",
    .description = "2D Euler flow around a NACA0012 aerofoil (OP2's benchmark): 5 loops, 4 sets, 5 maps",
    .run = airfoil_run,
    .options = airfoil_options,
    .noptions = (int)(sizeof airfoil_options / sizeof airfoil_options[0]),
    /* what makes it different (umrun --report) */
    .report_note =
        "Airfoil is OP2's classic benchmark: a 2D inviscid (Euler) finite-volume solver on a quadrilateral mesh around an "
        "aerofoil. Its cost is two loops over edges: <code>res_calc</code> reads the two nodes and two cells of each edge "
        "and <em>increments</em> the residual of both cells, so every strategy for indirect increments (colouring, "
        "atomics, shared-memory staging) shows in it; the cell loops (<code>adt_calc</code>, <code>update</code>) are "
        "direct or read through a map only, and <code>update</code> carries the RMS reduction. Arithmetic per byte is "
        "low: it is a bandwidth code."};
