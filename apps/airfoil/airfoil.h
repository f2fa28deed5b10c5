/* Airfoil's sets, maps, dats and loops, for the app (airfoil.c) and its tests. */
#ifndef UM_APPS_AIRFOIL_H
#define UM_APPS_AIRFOIL_H
#include "naca0012.h"
#include "um/um.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  um_set *nodes, *edges, *bedges, *cells;
  um_map *pedge, *pecell, *pbedge, *pbecell, *pcell;
  um_dat *p_x, *p_q, *p_qold, *p_adt, *p_res, *p_bound;
  /* params.scheme: cells (airfoil_decl_cells): the neighbour across each side of a cell (itself where none), the
   * sides (kernels' cell_res), the stage-1 buffers of q and adt */
  um_map *pcnb;
  um_dat *p_side, *p_q1, *p_adt1;
  um_reduction *rms; /* the squared update of the last update, read lazily (airfoil_rms) */
  int primed;        /* airfoil_step_fused: qold and adt of the next iteration are computed already */
  int rms_unread;    /* airfoil_step_fused: nobody reads this iteration's rms: no sum (no reduction) */
} airfoil;

/* gam, gm1, cfl, eps and the free stream qinf, as upstream sets them. */
int airfoil_set_constants(um_context *ctx);
/* Sets, maps, p_x and p_bound from mesh arrays (OP2's names), or from an OP2 new_grid.h5. */
int airfoil_decl_mesh(um_context *ctx, const airfoil_mesh *m, airfoil *a);
/* The same, handing m's arrays over to the context (no copy: m's pointers NULL once taken; free m as usual). */
int airfoil_decl_mesh_take(um_context *ctx, airfoil_mesh *m, airfoil *a);
int airfoil_decl_mesh_hdf5(um_context *ctx, const char *file, int blocks, airfoil *a);
/* The same from this rank's block of the generated mesh (um_decl_set_block: declared by blocks), handing b's arrays
 * over (b's pointers NULL once taken; free b as usual). */
int airfoil_decl_mesh_block(um_context *ctx, airfoil_block *b, airfoil *a);
/* What a block can check alone: finite coordinates, boundary codes 1 or 2, no edge from a node to itself
 * (cell areas and duplicated edges need other ranks' rows: airfoil_check_mesh checks them on a whole mesh). */
int airfoil_check_block(um_context *ctx, const airfoil_block *b);
/* The mesh's geometry, once after reading (generator, text or HDF5): finite
 * coordinates, cells of non-zero area, boundary codes 1 (wall) or 2 (far
 * field), no edge twice; UM_ERR_IO naming the element otherwise. */
int airfoil_check_mesh(um_context *ctx, const airfoil *a);
/* The mesh's coordinates (pairs) and boundary codes on the host, fetched once for the set-up's passes that read
 * them (the check, the cells scheme); airfoil_host_mesh_free frees them. */
typedef struct {
  double *x;
  int *bound;
} airfoil_host_mesh;
int airfoil_host_mesh_fetch(um_context *ctx, const airfoil *a, airfoil_host_mesh *h);
void airfoil_host_mesh_free(airfoil_host_mesh *h);
/* airfoil_check_mesh with the fetched coordinates and codes. */
int airfoil_check_mesh_host(um_context *ctx, const airfoil *a, const airfoil_host_mesh *h);
/* Its edge check: the first fault among the edges (nodes e[2 i], e[2 i + 1], i < ne) and the boundary edges (b,
 * numbered ne + i) in the order of (lower node, upper node, number): an edge joining a node to itself (*second =
 * -1), or the first of two joining the same nodes (*second: the other's number); -1 when none, -2 out of memory.
 * Over nthreads threads, the same answer for any count (mesh_check.c). */
int airfoil_first_bad_edge(const int *e, int ne, const int *b, int nb, int nn, int nthreads, int *second);
/* p_q = free stream, p_qold, p_res = 0, p_adt; the rms reduction. Call after airfoil_set_constants. */
int airfoil_decl_flow(um_context *ctx, airfoil *a);

/* The five loops, with OP2's argument lists and access modes. */
int airfoil_save_soln(um_context *ctx, const airfoil *a);
int airfoil_adt_calc(um_context *ctx, const airfoil *a);
int airfoil_res_calc(um_context *ctx, const airfoil *a);
int airfoil_bres_calc(um_context *ctx, const airfoil *a);
/* Adds the squared update to *rms. */
int airfoil_update(um_context *ctx, const airfoil *a, double *rms);
/* One iteration: save_soln, then twice adt_calc, res_calc, bres_calc, update, each update reducing into
 * a->rms without waiting for it (a GPU runs on: the rms is read when wanted, airfoil_rms). */
int airfoil_step(um_context *ctx, const airfoil *a);
/* The same iteration with each update fused with the adt_calc after it: res_calc, bres_calc, update_adt (without
 * the rms: upstream resets it before each update, so only the second stage's is read),
 * res_calc, bres_calc, then (unless last) update_save_adt, which also saves q and computes the next
 * iteration's first adt (a->primed); the first call (or the one after a last) runs save_soln and adt_calc
 * first. The same arithmetic as airfoil_step, so the same results; last: end with a plain update, so adt
 * is the second stage's, as upstream leaves it. With a->rms_unread set (and not last), the second update
 * does not sum the rms (update_save_adt_no_rms: no reduction, a SIMD range on CPUs, no second kernel on a
 * GPU), leaving a->rms as the last iteration that summed it left it; q, qold, res and adt are the same. */
int airfoil_step_fused(um_context *ctx, airfoil *a, int last);
/* params.scheme: cells. Each cell's four sides from the edge maps (pcnb, p_side) and the stage-1 buffers; call
 * after airfoil_decl_flow. UM_ERR_IO naming the edge where an edge is not a side of its cell (the scheme needs a
 * conforming quadrilateral mesh) or a cell has more than four edges. */
int airfoil_decl_cells(um_context *ctx, airfoil *a);
/* The same with the fetched coordinates and codes. */
int airfoil_decl_cells_host(um_context *ctx, airfoil *a, const airfoil_host_mesh *h);
/* One iteration of the cells scheme: two loops over the cells, each gathering the fluxes of its sides (no
 * increments), updating into the other buffer of q and computing the next stage's adt (cells_stage1, then
 * cells_stage2[_no_rms|_last]). q and adt ping-pong between p_q / p_adt and p_q1 / p_adt1 within an iteration:
 * after it they are in p_q and p_adt. On one thread the same bits of q, adt and the rms as airfoil_step_fused
 * (the sides are added in the edge loops' order); p_qold and p_res are not used. last: as airfoil_step_fused. */
int airfoil_step_cells(um_context *ctx, airfoil *a, int last);
/* rms = sqrt(sum / ncell) of the last update (waits for it). */
int airfoil_rms(um_context *ctx, const airfoil *a, double *rms);
/* airfoil_step, then airfoil_rms. */
int airfoil_iteration(um_context *ctx, const airfoil *a, double *rms);

#ifdef __cplusplus
}
#endif
#endif
