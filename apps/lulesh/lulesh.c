/* LULESH 2.0 on um: the state on the mesh of lulesh_mesh.c, the time step as loops, and the end-of-run
 * checks.
 *
 * Loops of one time step (upstream function in brackets):
 *   nodal phase    force_zero, integrate_stress [IntegrateStressForElems],
 *                  hourglass [CalcHourglassControlForElems] (INC through elem_nodes)
 *                  -- or, with forces: gather, stress_corners, hourglass_corners
 *                  (WRITE through elem_corners) and gather_forces (READ through
 *                  node_corners), upstream's threaded scheme --
 *                  acceleration, symm_x/y/z [ApplyAccelerationBoundaryConditions],
 *                  velocity, position
 *   element phase  kinematics [CalcKinematicsForElems + CalcLagrangeElements],
 *                  monoq_gradients, monoq [CalcMonotonicQ*], eos_r<k> per region
 *                  [EvalEOSForElems], update_volume
 *   constraints    time_constraints [CalcCourant/HydroConstraintForElems]: MIN
 *                  reductions read back for the next TimeIncrement (host).
 * With params.fused (the default) neighbouring loops over the same set are
 * fused, as upstream's GPU port does: volume_force (stress + hourglass, INC;
 * or volume_force_corners + gather_force), nodal_update (the symmetry
 * planes, each node's as bits in node_symm, acceleration, velocity,
 * position), kinematics_gradients, monoq, eos_r<k>, volume_constraints; with params.eos: merged the last
 * two are one loop, eos_constraints, over every region's elements grouped by their repetition count; with
 * merged_q the last three are one, q_eos_constraints (each element's Q kept in registers for its EOS).
 * The monotonic Q and the time constraints run over all elements at once:
 * upstream loops over regions there, but every region runs the same code, and
 * a minimum does not depend on the order, so the results are the same.
 */
#include "lulesh.h"
#include "lulesh_internal.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "um/app.h"
#include "lulesh_kernels.h"
#include "um/distributed.h"
#include "um/reorder.h"

extern const char lulesh_kernels_source[];
#define LULESH_KERNEL(fn, n) UM_KERNEL_DEFINE(fn, n, lulesh_kernels_source, "lulesh_kernels.h")
LULESH_KERNEL(lu_zero_force, 1);
LULESH_KERNEL(lu_integrate_stress, 18);
LULESH_KERNEL(lu_hourglass, 28);
LULESH_KERNEL(lu_stress_corners, 18);
LULESH_KERNEL(lu_hourglass_corners, 28);
LULESH_KERNEL(lu_gather_forces, 18);
LULESH_KERNEL(lu_acceleration, 3);
LULESH_KERNEL(lu_symm_x, 1);
LULESH_KERNEL(lu_symm_y, 1);
LULESH_KERNEL(lu_symm_z, 1);
LULESH_KERNEL(lu_velocity, 3);
LULESH_KERNEL(lu_position, 3);
LULESH_KERNEL(lu_kinematics, 23);
LULESH_KERNEL(lu_monoq_gradients, 22);
LULESH_KERNEL(lu_monoq, 17);
LULESH_KERNEL(lu_eos, 9);
LULESH_KERNEL(lu_update_volume, 2);
LULESH_KERNEL(lu_time_constraints, 8);
LULESH_KERNEL(lu_volume_force, 30);
LULESH_KERNEL(lu_volume_force_corners, 30);
LULESH_KERNEL(lu_gather_force, 10);
LULESH_KERNEL(lu_nodal_update, 6);
LULESH_KERNEL(lu_kinematics_gradients, 13);
LULESH_KERNEL(lu_kinematics_gradients_q, 11);
LULESH_KERNEL(lu_volume_constraints, 9);
LULESH_KERNEL(lu_eos_constraints, 15);
LULESH_KERNEL(lu_q_eos_constraints, 25);

UM_CONST_DEFINE(double, lu_e_cut);
UM_CONST_DEFINE(double, lu_p_cut);
UM_CONST_DEFINE(double, lu_q_cut);
UM_CONST_DEFINE(double, lu_v_cut);
UM_CONST_DEFINE(double, lu_u_cut);
UM_CONST_DEFINE(double, lu_hgcoef);
UM_CONST_DEFINE(double, lu_ss4o3);
UM_CONST_DEFINE(double, lu_qstop);
UM_CONST_DEFINE(double, lu_monoq_max_slope);
UM_CONST_DEFINE(double, lu_monoq_limiter_mult);
UM_CONST_DEFINE(double, lu_qlc_monoq);
UM_CONST_DEFINE(double, lu_qqc_monoq);
UM_CONST_DEFINE(double, lu_qqc);
UM_CONST_DEFINE(double, lu_eosvmax);
UM_CONST_DEFINE(double, lu_eosvmin);
UM_CONST_DEFINE(double, lu_pmin);
UM_CONST_DEFINE(double, lu_emin);
UM_CONST_DEFINE(double, lu_dvovmax);
UM_CONST_DEFINE(double, lu_refdens);

void lulesh_params_default(lulesh_params *p) {
  p->size = 30;
  p->regions = 11;
  p->balance = 1;
  p->cost = 1;
  p->max_cycles = 0;
  p->forces = LULESH_FORCES_INC;
  p->fused = 1;
  p->eos_merged = 0;
  p->strips = 0;
  p->by_blocks = 0;
  p->threads = 0; /* the context's (um_context_host_threads) */
  p->rows64 = 0;
  p->declare_halo = 0;
}

/* ---- state and loops ------------------------------------------------------- */


static int set_constants(um_context *ctx) {
  lu_e_cut = 1.0e-7;
  lu_p_cut = 1.0e-7;
  lu_q_cut = 1.0e-7;
  lu_v_cut = 1.0e-10;
  lu_u_cut = 1.0e-7;
  lu_hgcoef = 3.0;
  lu_ss4o3 = 4.0 / 3.0;
  lu_qstop = 1.0e+12;
  lu_monoq_max_slope = 1.0;
  lu_monoq_limiter_mult = 2.0;
  lu_qlc_monoq = 0.5;
  lu_qqc_monoq = 2.0 / 3.0;
  lu_qqc = 2.0;
  lu_eosvmax = 1.0e+9;
  lu_eosvmin = 1.0e-9;
  lu_pmin = 0.;
  lu_emin = -1.0e+15;
  lu_dvovmax = 0.1;
  lu_refdens = 1.0;
#define LU_DECL(name) UM_APP_TRY(um_decl_const(ctx, #name, 1, UM_DOUBLE, &name))
  LU_DECL(lu_e_cut);
  LU_DECL(lu_p_cut);
  LU_DECL(lu_q_cut);
  LU_DECL(lu_v_cut);
  LU_DECL(lu_u_cut);
  LU_DECL(lu_hgcoef);
  LU_DECL(lu_ss4o3);
  LU_DECL(lu_qstop);
  LU_DECL(lu_monoq_max_slope);
  LU_DECL(lu_monoq_limiter_mult);
  LU_DECL(lu_qlc_monoq);
  LU_DECL(lu_qqc_monoq);
  LU_DECL(lu_qqc);
  LU_DECL(lu_eosvmax);
  LU_DECL(lu_eosvmin);
  LU_DECL(lu_pmin);
  LU_DECL(lu_emin);
  LU_DECL(lu_dvovmax);
  LU_DECL(lu_refdens);
#undef LU_DECL
  return UM_SUCCESS;
}

void lulesh_state_free(lulesh_state **s) {
  if (!s || !*s) return;
  free((*s)->region_rep);
  free((*s)->regions);
  free((*s)->region_map);
  free(*s);
  *s = NULL;
}

/* The new -> old order of a set mapped one to one onto the elements by `map` (eos_elems, a region): its rows by
 * their elements' new numbers (old_to_new), within runs of one key (eos_rep's repetition counts, kept in their
 * order; key NULL: one run). */
static int sorted_rows(um_context *ctx, const um_set *set, const um_map *map, const um_dat *key, const int *old_to_new,
                       int ne, um_reordering *r) {
  const int n = um_set_size(set), *md = um_map_data(map);
  int *owner = malloc(sizeof(int) * (size_t)(ne ? ne : 1)), *out = malloc(sizeof(int) * (size_t)(n ? n : 1));
  int *k = key ? malloc(sizeof(int) * (size_t)(n ? n : 1)) : NULL;
  int rc = owner && out && (k || !key) ? UM_SUCCESS : UM_ERR_ALLOC;
  if (!rc && key) rc = um_dat_fetch(ctx, key, k, sizeof(int) * (size_t)n);
  if (!rc) {
    for (int e = 0; e < ne; e++) owner[e] = -1;
    for (int i = 0; i < n; i++) owner[old_to_new[md[i]]] = i;
    int done = 0;
    for (int start = 0; start < n; start = done) { /* one run of equal keys, its rows in new element order */
      const int kv = k ? k[start] : 0;
      int end = start;
      while (end < n && (!k || k[end] == kv)) end++;
      for (int e = 0; e < ne; e++)
        if (owner[e] >= start && owner[e] < end) out[done++] = owner[e];
    }
    rc = um_reordering_set_perm(ctx, r, set, out, n);
  }
  free(owner), free(out), free(k);
  return rc;
}

/* params.numbering: strips -- the elements renumbered in strips two rows high: (i, j, k), (i, j + 1, k),
 * (i + 1, j, k), ... (an odd last row alone), so the 32 elements of a warp are 16 x 2 and share their nodes in x
 * and y (cuda.warp_combine pairs both: one atomic where up to four elements of a plane add to a node). The sets
 * mapped one to one onto the elements follow, so their gathers stay in order. Results are those of upstream's
 * numbering to rounding; fields and metrics are read in upstream's order (um_dat_fetch_original_order). */
static int renumber_strips(um_context *ctx, lulesh_state *s, int nx) {
  const int ne = um_set_size(s->elems); /* the whole mesh (strips never run by blocks): at most INT_MAX */
  int *perm = malloc(sizeof(int) * (size_t)(ne ? ne : 1)), *inv = malloc(sizeof(int) * (size_t)(ne ? ne : 1));
  um_reordering *r = NULL;
  int rc = perm && inv ? um_reordering_create(ctx, &r) : UM_ERR_ALLOC;
  if (!rc) {
    int n = 0;
    for (int k = 0; k < nx; k++)
      for (int j = 0; j < nx; j += 2)
        for (int i = 0; i < nx; i++)
          for (int dj = 0; dj < 2 && j + dj < nx; dj++) perm[n++] = i + nx * (j + dj) + nx * nx * k;
    for (int e = 0; e < ne; e++) inv[perm[e]] = e;
    rc = um_reordering_set_perm(ctx, r, s->elems, perm, ne);
  }
  if (!rc && s->eos_elems) rc = sorted_rows(ctx, s->eos_elems, s->eos_map, s->eos_rep, inv, ne, r);
  for (int g = 0; !rc && s->regions && g < s->nregions; g++)
    if (s->regions[g]) rc = sorted_rows(ctx, s->regions[g], s->region_map[g], NULL, inv, ne, r);
  if (!rc) rc = um_reorder_apply(ctx, r, NULL);
  um_reordering_free(&r);
  free(perm), free(inv);
  return rc;
}

int lulesh_setup(um_context *ctx, const lulesh_params *p, lulesh_state **out, char *err, size_t errlen) {
  *out = NULL;
  if (p->eos_merged && !p->fused)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                           "params.eos = %s runs the EOS with the volume constraints (a fused loop): it needs "
                           "params.fused = true; or use params.eos = regions",
                           p->eos_merged == LULESH_EOS_MERGED_Q ? "merged_q" : "merged");
  if (p->forces == LULESH_FORCES_GATHER && 8.0 * (double)p->size * p->size * p->size > 2147483647.0)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                           "params.forces = gather with params.size = %d: the 8 size^3 element corners do not fit a "
                           "32-bit index; use size <= 644, or forces: inc",
                           p->size);
  if (p->by_blocks && p->strips)
    return um_format_error(err, errlen, UM_ERR_CONFIG, "params.numbering = strips renumbers the whole mesh: declare "
                                                       "it whole (by_blocks 0)");
  lulesh_state *s = calloc(1, sizeof *s);
  if (!s) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory");
  s->p = *p;
  int rc = set_constants(ctx);
  if (rc) {
    lulesh_state_free(&s);
    return um_format_error(err, errlen, rc, "%s", um_error_message(ctx));
  }
  double dt_init = 0;
  if (p->by_blocks) { /* this rank's rows only */
    lulesh_block b;
    lulesh_params q = *p;
    if (q.threads <= 0) q.threads = um_context_host_threads(ctx);
    rc = lulesh_block_build(&q, um_mpi_rank(), um_mpi_size(), &b, err, errlen);
    if (rc) {
      lulesh_state_free(&s);
      return rc;
    }
    rc = lulesh_decl_block(ctx, s, &b);
    dt_init = b.dt_init;
    lulesh_block_free(&b);
  } else {
    lulesh_mesh m;
    lulesh_params q = *p;
    if (q.threads <= 0) q.threads = um_context_host_threads(ctx);
    rc = lulesh_mesh_build(&q, &m, err, errlen);
    if (rc) {
      lulesh_state_free(&s);
      return rc;
    }
    rc = lulesh_decl_whole(ctx, s, &m);
    if (!rc && p->strips) rc = renumber_strips(ctx, s, m.nx);
    dt_init = m.dt_init;
    lulesh_mesh_free(&m);
  }
  /* the face maps are only read (monoq's gradients): on several ranks the exec halo follows the element-node map
   * alone, a plane of elements a side rather than two */
  if (!rc) rc = um_map_set_read_only(s->elem_faces);
  if (!rc && s->eos_faces) rc = um_map_set_read_only(s->eos_faces);
  if (!rc) rc = um_decl_reduction(ctx, 1, UM_DOUBLE, UM_MIN, "dtcourant", &s->r_courant);
  if (!rc) rc = um_decl_reduction(ctx, 1, UM_DOUBLE, UM_MIN, "dthydro", &s->r_hydro);
  if (!rc) rc = um_decl_reduction(ctx, 1, UM_DOUBLE, UM_MAX, "errcode", &s->r_err);
  s->dtfixed = -1.0e-6; /* negative: use the Courant condition */
  s->stoptime = 1.0e-2;
  s->deltatimemultlb = 1.1;
  s->deltatimemultub = 1.2;
  s->dtcourant = 1.0e+20;
  s->dthydro = 1.0e+20;
  s->dtmax = 1.0e-2;
  s->time = 0.;
  s->cycle = 0;
  s->deltatime = dt_init;
  if (rc) {
    lulesh_state_free(&s);
    if (rc == UM_ERR_ALLOC && !um_error_message(ctx)[0])
      return um_format_error(err, errlen, rc, "out of memory declaring the LULESH mesh");
    return um_format_error(err, errlen, rc, "%s", um_error_message(ctx));
  }
  *out = s;
  return UM_SUCCESS;
}

/* TimeIncrement: the next dt from the Courant and hydro limits, growing by at
 * most deltatimemultub, landing exactly on the stop time. */
static void time_increment(lulesh_state *s) {
  double targetdt = s->stoptime - s->time;
  if (s->dtfixed <= 0.0 && s->cycle != 0) {
    const double olddt = s->deltatime;
    double newdt = 1.0e+20;
    if (s->dtcourant < newdt) newdt = s->dtcourant / 2.0;
    if (s->dthydro < newdt) newdt = s->dthydro * 2.0 / 3.0;
    const double ratio = newdt / olddt;
    if (ratio >= 1.0) {
      if (ratio < s->deltatimemultlb) newdt = olddt;
      else if (ratio > s->deltatimemultub) newdt = olddt * s->deltatimemultub;
    }
    if (newdt > s->dtmax) newdt = s->dtmax;
    s->deltatime = newdt;
  }
  /* try to prevent very small scaling on the next cycle */
  if (targetdt > s->deltatime && targetdt < 4.0 * s->deltatime / 3.0) targetdt = 2.0 * s->deltatime / 3.0;
  if (targetdt < s->deltatime) s->deltatime = targetdt;
  s->time += s->deltatime;
  ++s->cycle;
}

#define ARG(dat, idx, map, dim, acc) um_arg_dat((dat), (idx), (map), (dim), UM_DOUBLE, (acc))
#define NODES8(dat, acc)                                                                                  \
  ARG(dat, 0, s->elem_nodes, 3, acc), ARG(dat, 1, s->elem_nodes, 3, acc), ARG(dat, 2, s->elem_nodes, 3, acc), \
      ARG(dat, 3, s->elem_nodes, 3, acc), ARG(dat, 4, s->elem_nodes, 3, acc), ARG(dat, 5, s->elem_nodes, 3, acc), \
      ARG(dat, 6, s->elem_nodes, 3, acc), ARG(dat, 7, s->elem_nodes, 3, acc)
#define CORNERS8(dat, map, acc)                                                                           \
  ARG(dat, 0, map, 3, acc), ARG(dat, 1, map, 3, acc), ARG(dat, 2, map, 3, acc), ARG(dat, 3, map, 3, acc), \
      ARG(dat, 4, map, 3, acc), ARG(dat, 5, map, 3, acc), ARG(dat, 6, map, 3, acc), ARG(dat, 7, map, 3, acc)
#define DIRECT(dat, acc) ARG(dat, -1, UM_ID, 1, acc)

static int nodal_forces(um_context *ctx, lulesh_state *s) {
  if (s->p.fused && s->p.forces == LULESH_FORCES_GATHER) {
    UM_APP_TRY(UM_PAR_LOOP(ctx, lu_volume_force_corners_kernel, "volume_force_corners", s->elems,
                           NODES8(s->coord, UM_READ), NODES8(s->vel, UM_READ), DIRECT(s->p_, UM_READ),
                           DIRECT(s->q, UM_READ), DIRECT(s->volo, UM_READ), DIRECT(s->v, UM_READ),
                           DIRECT(s->ss, UM_READ), DIRECT(s->elem_mass, UM_READ),
                           CORNERS8(s->fc_stress, s->elem_corners, UM_WRITE)));
    return UM_PAR_LOOP(ctx, lu_gather_force_kernel, "gather_force", s->nodes,
                       CORNERS8(s->fc_stress, s->node_corners, UM_READ),
                       um_arg_dat(s->node_ncorner, -1, UM_ID, 1, UM_INT, UM_READ), ARG(s->force, -1, UM_ID, 3, UM_WRITE));
  }
  if (s->p.fused) /* the force is zero here: nodal_update cleared it */
    return UM_PAR_LOOP(ctx, lu_volume_force_kernel, "volume_force", s->elems, NODES8(s->coord, UM_READ),
                       NODES8(s->vel, UM_READ), DIRECT(s->p_, UM_READ), DIRECT(s->q, UM_READ), DIRECT(s->volo, UM_READ),
                       DIRECT(s->v, UM_READ), DIRECT(s->ss, UM_READ), DIRECT(s->elem_mass, UM_READ),
                       NODES8(s->force, UM_INC));
  if (s->p.forces == LULESH_FORCES_GATHER) {
    UM_APP_TRY(UM_PAR_LOOP(ctx, lu_stress_corners_kernel, "stress_corners", s->elems, NODES8(s->coord, UM_READ),
                           DIRECT(s->p_, UM_READ), DIRECT(s->q, UM_READ),
                           CORNERS8(s->fc_stress, s->elem_corners, UM_WRITE)));
    UM_APP_TRY(UM_PAR_LOOP(ctx, lu_hourglass_corners_kernel, "hourglass_corners", s->elems, NODES8(s->coord, UM_READ),
                           NODES8(s->vel, UM_READ), DIRECT(s->volo, UM_READ), DIRECT(s->v, UM_READ),
                           DIRECT(s->ss, UM_READ), DIRECT(s->elem_mass, UM_READ),
                           CORNERS8(s->fc_hourglass, s->elem_corners, UM_WRITE)));
    return UM_PAR_LOOP(ctx, lu_gather_forces_kernel, "gather_forces", s->nodes,
                       CORNERS8(s->fc_stress, s->node_corners, UM_READ),
                       CORNERS8(s->fc_hourglass, s->node_corners, UM_READ),
                       um_arg_dat(s->node_ncorner, -1, UM_ID, 1, UM_INT, UM_READ), ARG(s->force, -1, UM_ID, 3, UM_WRITE));
  }
  UM_APP_TRY(UM_PAR_LOOP(ctx, lu_zero_force_kernel, "force_zero", s->nodes, ARG(s->force, -1, UM_ID, 3, UM_WRITE)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, lu_integrate_stress_kernel, "integrate_stress", s->elems, NODES8(s->coord, UM_READ),
                         DIRECT(s->p_, UM_READ), DIRECT(s->q, UM_READ), NODES8(s->force, UM_INC)));
  return UM_PAR_LOOP(ctx, lu_hourglass_kernel, "hourglass", s->elems, NODES8(s->coord, UM_READ), NODES8(s->vel, UM_READ),
                     DIRECT(s->volo, UM_READ), DIRECT(s->v, UM_READ), DIRECT(s->ss, UM_READ),
                     DIRECT(s->elem_mass, UM_READ), NODES8(s->force, UM_INC));
}

/* LagrangeNodal after the forces (which need no dt: lulesh_step queues them before it knows dt) */
static int lagrange_nodal(um_context *ctx, lulesh_state *s) {
  double dt = s->deltatime;
  if (s->p.fused)
    return UM_PAR_LOOP(ctx, lu_nodal_update_kernel, "nodal_update", s->nodes, ARG(s->force, -1, UM_ID, 3, UM_RW),
                       DIRECT(s->nodal_mass, UM_READ), um_arg_dat(s->node_symm, -1, UM_ID, 1, UM_INT, UM_READ),
                       ARG(s->vel, -1, UM_ID, 3, UM_RW),
                       ARG(s->coord, -1, UM_ID, 3, UM_RW), um_arg_gbl(&dt, 1, UM_DOUBLE, UM_READ));
  UM_APP_TRY(UM_PAR_LOOP(ctx, lu_acceleration_kernel, "acceleration", s->nodes, ARG(s->force, -1, UM_ID, 3, UM_READ),
                         DIRECT(s->nodal_mass, UM_READ), ARG(s->acc, -1, UM_ID, 3, UM_WRITE)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, lu_symm_x_kernel, "symm_x", s->symm[0], ARG(s->acc, 0, s->symm_map[0], 3, UM_RW)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, lu_symm_y_kernel, "symm_y", s->symm[1], ARG(s->acc, 0, s->symm_map[1], 3, UM_RW)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, lu_symm_z_kernel, "symm_z", s->symm[2], ARG(s->acc, 0, s->symm_map[2], 3, UM_RW)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, lu_velocity_kernel, "velocity", s->nodes, ARG(s->acc, -1, UM_ID, 3, UM_READ),
                         ARG(s->vel, -1, UM_ID, 3, UM_RW), um_arg_gbl(&dt, 1, UM_DOUBLE, UM_READ)));
  return UM_PAR_LOOP(ctx, lu_position_kernel, "position", s->nodes, ARG(s->vel, -1, UM_ID, 3, UM_READ),
                     ARG(s->coord, -1, UM_ID, 3, UM_RW), um_arg_gbl(&dt, 1, UM_DOUBLE, UM_READ));
}

static int lagrange_elements(um_context *ctx, lulesh_state *s) {
  double dt = s->deltatime;
  if (s->p.fused && s->p.eos_merged == LULESH_EOS_MERGED_Q) { /* no delv: q_eos_constraints takes vnew - v */
    UM_APP_TRY(UM_PAR_LOOP(ctx, lu_kinematics_gradients_q_kernel, "kinematics_gradients", s->elems,
                           um_arg_vec(s->coord, s->elem_nodes, 3, UM_DOUBLE, UM_READ),
                           um_arg_vec(s->vel, s->elem_nodes, 3, UM_DOUBLE, UM_READ), DIRECT(s->volo, UM_READ),
                           DIRECT(s->vnew, UM_WRITE), DIRECT(s->arealg, UM_WRITE), DIRECT(s->vdov, UM_WRITE),
                           ARG(s->delx, -1, UM_ID, 3, UM_WRITE), DIRECT(s->delv_xi, UM_WRITE),
                           DIRECT(s->delv_eta, UM_WRITE), DIRECT(s->delv_zeta, UM_WRITE),
                           um_arg_gbl(&dt, 1, UM_DOUBLE, UM_READ)));
  } else if (s->p.fused) {
    UM_APP_TRY(UM_PAR_LOOP(ctx, lu_kinematics_gradients_kernel, "kinematics_gradients", s->elems,
                           um_arg_vec(s->coord, s->elem_nodes, 3, UM_DOUBLE, UM_READ),
                           um_arg_vec(s->vel, s->elem_nodes, 3, UM_DOUBLE, UM_READ), DIRECT(s->volo, UM_READ),
                           DIRECT(s->v, UM_READ), DIRECT(s->vnew, UM_WRITE), DIRECT(s->delv, UM_WRITE),
                           DIRECT(s->arealg, UM_WRITE), DIRECT(s->vdov, UM_WRITE), ARG(s->delx, -1, UM_ID, 3, UM_WRITE),
                           DIRECT(s->delv_xi, UM_WRITE), DIRECT(s->delv_eta, UM_WRITE), DIRECT(s->delv_zeta, UM_WRITE),
                           um_arg_gbl(&dt, 1, UM_DOUBLE, UM_READ)));
  } else {
    UM_APP_TRY(UM_PAR_LOOP(ctx, lu_kinematics_kernel, "kinematics", s->elems, NODES8(s->coord, UM_READ),
                           NODES8(s->vel, UM_READ), DIRECT(s->volo, UM_READ), DIRECT(s->v, UM_READ),
                           DIRECT(s->vnew, UM_WRITE), DIRECT(s->delv, UM_WRITE), DIRECT(s->arealg, UM_WRITE),
                           DIRECT(s->vdov, UM_WRITE), um_arg_gbl(&dt, 1, UM_DOUBLE, UM_READ)));
    UM_APP_TRY(UM_PAR_LOOP(ctx, lu_monoq_gradients_kernel, "monoq_gradients", s->elems, NODES8(s->coord, UM_READ),
                           NODES8(s->vel, UM_READ), DIRECT(s->volo, UM_READ), DIRECT(s->vnew, UM_READ),
                           ARG(s->delx, -1, UM_ID, 3, UM_WRITE), DIRECT(s->delv_xi, UM_WRITE),
                           DIRECT(s->delv_eta, UM_WRITE), DIRECT(s->delv_zeta, UM_WRITE)));
  }
  um_map *f = s->elem_faces;
  if (s->p.eos_merged != LULESH_EOS_MERGED_Q) /* merged_q: each element's Q in q_eos_constraints (lulesh_step) */
    UM_APP_TRY(UM_PAR_LOOP(ctx, lu_monoq_kernel, "monoq", s->elems, ARG(s->delv_xi, 0, f, 1, UM_READ),
                           ARG(s->delv_xi, 1, f, 1, UM_READ), ARG(s->delv_eta, 2, f, 1, UM_READ),
                           ARG(s->delv_eta, 3, f, 1, UM_READ), ARG(s->delv_zeta, 4, f, 1, UM_READ),
                           ARG(s->delv_zeta, 5, f, 1, UM_READ), DIRECT(s->delv_xi, UM_READ),
                           DIRECT(s->delv_eta, UM_READ), DIRECT(s->delv_zeta, UM_READ),
                           ARG(s->delx, -1, UM_ID, 3, UM_READ), um_arg_dat(s->elem_bc, -1, UM_ID, 1, UM_INT, UM_READ),
                           DIRECT(s->vdov, UM_READ), DIRECT(s->elem_mass, UM_READ), DIRECT(s->volo, UM_READ),
                           DIRECT(s->vnew, UM_READ), DIRECT(s->qq, UM_WRITE), DIRECT(s->ql, UM_WRITE)));
  for (int r = 0; r < s->nregions && !s->p.eos_merged; r++) { /* merged: with the constraints (lulesh_step) */
    if (um_set_gsize(s->regions[r]) == 0) continue;
    char name[32];
    snprintf(name, sizeof name, "eos_r%d", r + 1);
    um_map *m = s->region_map[r];
    UM_APP_TRY(UM_PAR_LOOP(ctx, lu_eos_kernel, name, s->regions[r], ARG(s->e, 0, m, 1, UM_RW),
                           ARG(s->delv, 0, m, 1, UM_READ), ARG(s->p_, 0, m, 1, UM_RW), ARG(s->q, 0, m, 1, UM_RW),
                           ARG(s->qq, 0, m, 1, UM_READ), ARG(s->ql, 0, m, 1, UM_READ), ARG(s->vnew, 0, m, 1, UM_READ),
                           ARG(s->ss, 0, m, 1, UM_WRITE), um_arg_gbl(&s->region_rep[r], 1, UM_INT, UM_READ)));
  }
  if (s->p.fused) return UM_SUCCESS; /* volumes are updated with the constraints */
  return UM_PAR_LOOP(ctx, lu_update_volume_kernel, "update_volume", s->elems, DIRECT(s->vnew, UM_READ),
                     DIRECT(s->v, UM_WRITE));
}

/* The last constraints' results (CalcTimeConstraints' minima, the error code), checked as upstream does at
 * the end of the cycle that made them. min(1e20, .) and max(0, .) as upstream's starting values give. */
static int read_constraints(um_context *ctx, lulesh_state *s, char *err, size_t errlen) {
  if (!s->pending) return UM_SUCCESS;
  s->pending = 0;
  double dtcourant = 0, dthydro = 0, errcode = 0;
  int rc = um_reduction_get(ctx, s->r_courant, &dtcourant, sizeof dtcourant);
  if (!rc) rc = um_reduction_get(ctx, s->r_hydro, &dthydro, sizeof dthydro);
  if (!rc) rc = um_reduction_get(ctx, s->r_err, &errcode, sizeof errcode);
  if (rc) return um_format_error(err, errlen, rc, "%s", um_error_message(ctx));
  if (errcode >= LU_ERR_QSTOP)
    return um_format_error(err, errlen, UM_ERR_VALIDATION,
                           "lulesh: cycle %d (t = %.6e): artificial viscosity q above qstop = %g in some element "
                           "(upstream stops with QStopError); the run is unstable",
                           s->cycle, s->time, lu_qstop);
  if (errcode >= LU_ERR_VOLUME)
    return um_format_error(err, errlen, UM_ERR_VALIDATION,
                           "lulesh: cycle %d (t = %.6e): an element's volume became zero or negative (upstream "
                           "stops with VolumeError); the mesh tangled",
                           s->cycle, s->time);
  s->dtcourant = dtcourant < 1.0e+20 ? dtcourant : 1.0e+20;
  s->dthydro = dthydro < 1.0e+20 ? dthydro : 1.0e+20;
  return UM_SUCCESS;
}

/* One cycle. The nodal forces need no dt, so they are queued first; then the previous cycle's constraints are
 * read (on a GPU the read waits only for them, while the forces run), TimeIncrement, the rest of the leapfrog and
 * this cycle's constraints, read now where that costs no wait (host backends) and in the next call otherwise. */
int lulesh_step(um_context *ctx, lulesh_state *s, int *done, char *err, size_t errlen) {
  *done = 0;
  if (!(s->time < s->stoptime) || (s->p.max_cycles > 0 && s->cycle >= s->p.max_cycles)) {
    *done = 1;
    return read_constraints(ctx, s, err, errlen);
  }
  int rc = nodal_forces(ctx, s);
  if (rc) return um_format_error(err, errlen, rc, "%s", um_error_message(ctx));
  UM_APP_TRY(read_constraints(ctx, s, err, errlen));
  const double t_before = s->time, dt_before = s->cycle ? s->deltatime : 0;
  time_increment(s);
  rc = um_step_check("lulesh", s->cycle, t_before, s->deltatime, dt_before, s->stoptime, s->p.max_cycles, err,
                     errlen); /* the stall rule (umrun/include/um/app.h) */
  if (rc) return rc;
  rc = lagrange_nodal(ctx, s);
  if (!rc) rc = lagrange_elements(ctx, s);
  const um_arg courant = um_arg_reduction(s->r_courant), hydro = um_arg_reduction(s->r_hydro),
               code = um_arg_reduction(s->r_err);
  um_map *em = s->eos_map, *ef = s->eos_faces;
  if (!rc && s->p.eos_merged == LULESH_EOS_MERGED_Q)
    rc = UM_PAR_LOOP(ctx, lu_q_eos_constraints_kernel, "q_eos_constraints", s->eos_elems,
                     ARG(s->delv_xi, 0, ef, 1, UM_READ), ARG(s->delv_xi, 1, ef, 1, UM_READ),
                     ARG(s->delv_eta, 2, ef, 1, UM_READ), ARG(s->delv_eta, 3, ef, 1, UM_READ),
                     ARG(s->delv_zeta, 4, ef, 1, UM_READ), ARG(s->delv_zeta, 5, ef, 1, UM_READ),
                     ARG(s->delv_xi, 0, em, 1, UM_READ), ARG(s->delv_eta, 0, em, 1, UM_READ),
                     ARG(s->delv_zeta, 0, em, 1, UM_READ), ARG(s->delx, 0, em, 3, UM_READ),
                     um_arg_dat(s->elem_bc, 0, em, 1, UM_INT, UM_READ), ARG(s->vdov, 0, em, 1, UM_READ),
                     ARG(s->volo, 0, em, 1, UM_READ) /* the element's mass: its initial volume (unit density) */,
                     ARG(s->volo, 0, em, 1, UM_READ), ARG(s->vnew, 0, em, 1, UM_READ), ARG(s->e, 0, em, 1, UM_RW),
                     ARG(s->p_, 0, em, 1, UM_RW), ARG(s->q, 0, em, 1, UM_RW), ARG(s->ss, 0, em, 1, UM_WRITE),
                     um_arg_dat(s->eos_rep, -1, UM_ID, 1, UM_INT, UM_READ), ARG(s->arealg, 0, em, 1, UM_READ),
                     ARG(s->v, 0, em, 1, UM_RW), courant, hydro, code);
  else if (!rc && s->p.eos_merged)
    rc = UM_PAR_LOOP(ctx, lu_eos_constraints_kernel, "eos_constraints", s->eos_elems, ARG(s->e, 0, em, 1, UM_RW),
                     ARG(s->delv, 0, em, 1, UM_READ), ARG(s->p_, 0, em, 1, UM_RW), ARG(s->q, 0, em, 1, UM_RW),
                     ARG(s->qq, 0, em, 1, UM_READ), ARG(s->ql, 0, em, 1, UM_READ), ARG(s->vnew, 0, em, 1, UM_READ),
                     ARG(s->ss, 0, em, 1, UM_WRITE), um_arg_dat(s->eos_rep, -1, UM_ID, 1, UM_INT, UM_READ),
                     ARG(s->vdov, 0, em, 1, UM_READ), ARG(s->arealg, 0, em, 1, UM_READ), ARG(s->v, 0, em, 1, UM_WRITE),
                     courant, hydro, code);
  else if (!rc && s->p.fused)
    rc = UM_PAR_LOOP(ctx, lu_volume_constraints_kernel, "volume_constraints", s->elems, DIRECT(s->ss, UM_READ),
                     DIRECT(s->vdov, UM_READ), DIRECT(s->arealg, UM_READ), DIRECT(s->vnew, UM_READ),
                     DIRECT(s->q, UM_READ), DIRECT(s->v, UM_WRITE), courant, hydro, code);
  else if (!rc)
    rc = UM_PAR_LOOP(ctx, lu_time_constraints_kernel, "time_constraints", s->elems, DIRECT(s->ss, UM_READ),
                     DIRECT(s->vdov, UM_READ), DIRECT(s->arealg, UM_READ), DIRECT(s->vnew, UM_READ),
                     DIRECT(s->q, UM_READ), courant, hydro, code);
  if (rc) return um_format_error(err, errlen, rc, "%s", um_error_message(ctx));
  s->pending = 1;
  if (um_reduction_pending(s->r_courant)) return UM_SUCCESS;
  return read_constraints(ctx, s, err, errlen);
}

int lulesh_state_value(lulesh_state *s, int i, const char **name, void **p, size_t *bytes) {
#define LU_VALUE(field) {#field, &s->field, sizeof s->field}
  const struct {
    const char *name;
    void *p;
    size_t bytes;
  } v[] = {LU_VALUE(time),    LU_VALUE(deltatime), LU_VALUE(stoptime),        LU_VALUE(dtfixed),
           LU_VALUE(dtcourant), LU_VALUE(dthydro), LU_VALUE(dtmax),           LU_VALUE(deltatimemultlb),
           LU_VALUE(deltatimemultub), LU_VALUE(cycle)};
#undef LU_VALUE
  if (i < 0 || i >= (int)(sizeof v / sizeof v[0])) return 0;
  *name = v[i].name, *p = v[i].p, *bytes = v[i].bytes;
  return 1;
}

int lulesh_settle(um_context *ctx, lulesh_state *s, char *err, size_t errlen) {
  return read_constraints(ctx, s, err, errlen);
}

void lulesh_state_progress(const lulesh_state *s, int *cycle, double *time, double *stoptime) {
  *cycle = s->cycle;
  *time = s->time;
  *stoptime = s->stoptime;
}

/* VerifyAndWriteFinalOutput: origin energy and the symmetry of plane 0's energy (e(j, k) against e(k, j)), in
 * the mesh's original numbering, from plane 0 alone: rank 0's block of the elements (um_set_block) whenever it
 * holds the plane (nx^2 of the nx^3 elements: up to nx ranks), its figures then shared with every rank, so no
 * rank fetches the whole energy; with more ranks than that (a mesh of very few elements per rank), the whole. */
int lulesh_finish(um_context *ctx, lulesh_state *s, lulesh_result *res, char *err, size_t errlen) {
  memset(res, 0, sizeof *res);
  UM_APP_TRY(read_constraints(ctx, s, err, errlen)); /* the last cycle's, if a GPU left them for later */
  const long long ne = um_set_gsize(s->elems); /* over every rank: 64-bit (a mesh declared by blocks) */
  const int nx = s->p.size, P = um_context_nranks(ctx);
  long long b0 = 0, b = 0;
  int n0 = 0, n = 0;
  um_block_range(ne, 0, P, &b0, &n0);
  const int by_block = n0 >= nx * nx; /* the same on every rank */
  if (!by_block && ne > INT_MAX) /* a whole fetch holds at most INT_MAX rows */
    return um_format_error(err, errlen, UM_ERR_UNSUPPORTED,
                           "the final energy of %lld elements on %d ranks: rank 0's block must hold plane 0 (%d "
                           "elements); run on fewer ranks",
                           ne, P, nx * nx);
  if (by_block)
    um_set_block(ctx, s->elems, &b, &n);
  else
    n = (int)ne;
  double *e = malloc(sizeof(double) * (size_t)(n + 1));
  if (!e) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory");
  int rc = by_block ? um_dat_fetch_block_original_order(ctx, s->e, e, sizeof(double) * (size_t)n)
                    : um_dat_fetch_original_order(ctx, s->e, e, sizeof(double) * (size_t)n);
  if (rc) {
    free(e);
    return um_format_error(err, errlen, rc, "%s", um_error_message(ctx));
  }
  res->cycles = s->cycle;
  res->time = s->time;
  res->dt = s->deltatime;
  double v[4] = {0, 0, 0, 0}; /* origin energy, total, largest and largest relative asymmetry */
  if (!by_block || um_context_rank(ctx) == 0) {
    v[0] = e[0];
    for (int j = 0; j < nx; ++j)
      for (int k = j + 1; k < nx; ++k) {
        const double d = fabs(e[j * nx + k] - e[k * nx + j]);
        v[1] += d;
        if (v[2] < d) v[2] = d;
        const double rel = d / e[k * nx + j];
        if (v[3] < rel) v[3] = rel;
      }
  }
  free(e);
  double *all = by_block && P > 1 ? malloc(sizeof(double) * (size_t)P) : NULL;
  if (by_block && P > 1 && !all) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory");
  for (int i = 0; all && i < 4; i++) { /* rank 0's figures on every rank */
    if (um_mpi_allgather_double(v[i], all)) {
      free(all);
      return um_format_error(err, errlen, UM_ERR_BACKEND, "sharing the final energy's figures across ranks failed");
    }
    v[i] = all[0];
  }
  free(all);
  res->origin_energy = v[0], res->sym_total_abs = v[1], res->sym_max_abs = v[2], res->sym_max_rel = v[3];
  return UM_SUCCESS;
}
