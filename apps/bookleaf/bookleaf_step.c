/* BookLeaf on um: the step (upstream's lagstep: viscosity, time step, forces, state, acceleration)
 * and the ALE remap of Eulerian decks (alestep), as loops over elements and nodes. The kernels
 * are defined here (bookleaf_kernels.h, bookleaf_ale_kernels.h); bookleaf.c publishes their constants. */
#include "bookleaf_internal.h"

#include "bookleaf_ale_kernels.h"

extern const char bookleaf_kernels_source[], bookleaf_ale_kernels_source[];
#define BL_KERNEL(fn, n) UM_KERNEL_DEFINE(fn, n, bookleaf_kernels_source, "bookleaf_kernels.h")
#define BL_ALE_KERNEL(fn, n) UM_KERNEL_DEFINE(fn, n, bookleaf_ale_kernels_source, "bookleaf_ale_kernels.h")
BL_KERNEL(bl_visc_init, 9);
BL_KERNEL(bl_visc_limit, 18);
BL_KERNEL(bl_visc_force, 10);
BL_KERNEL(bl_visc, 23);
BL_KERNEL(bl_dt_cfl, 9);
BL_KERNEL(bl_dt_div, 8);
BL_KERNEL(bl_argfind, 4);
BL_KERNEL(bl_force, 4);
BL_KERNEL(bl_force_hg, 12);
BL_KERNEL(bl_force_sp, 19);
BL_KERNEL(bl_copy, 2);
BL_KERNEL(bl_corners, 5);
BL_KERNEL(bl_move, 3);
BL_KERNEL(bl_geom, 10);
BL_KERNEL(bl_energy, 8);
BL_KERNEL(bl_eos, 5);
BL_KERNEL(bl_zero4, 1);
BL_KERNEL(bl_scatter, 8);
BL_KERNEL(bl_scatter_corner, 6);
BL_KERNEL(bl_accel, 5);
BL_ALE_KERNEL(bl_ale_move, 4);
BL_ALE_KERNEL(bl_ale_fluxvol, 9);
BL_ALE_KERNEL(bl_ale_massflux, 13);
BL_ALE_KERNEL(bl_ale_update_basis, 15);
BL_ALE_KERNEL(bl_ale_energyflux, 13);
BL_ALE_KERNEL(bl_ale_update_energy, 9);
BL_ALE_KERNEL(bl_ale_node_basis, 8);
BL_ALE_KERNEL(bl_ale_corner_flux, 13);
BL_ALE_KERNEL(bl_ale_corner_mass, 6);
BL_ALE_KERNEL(bl_ale_corner_u, 5);
BL_ALE_KERNEL(bl_ale_momflux, 13);
BL_ALE_KERNEL(bl_ale_node_flux, 5);
BL_ALE_KERNEL(bl_zero2, 1);
BL_ALE_KERNEL(bl_ale_update_u, 4);
BL_KERNEL(bl_state_predictor, 21);
BL_KERNEL(bl_state_corrector, 21);
BL_KERNEL(bl_gather_accel, 21);

/* ---- the step ------------------------------------------------------------- */

#define NODES(dat, acc) D(dat, 0, S->elnd, 2, acc), D(dat, 1, S->elnd, 2, acc), D(dat, 2, S->elnd, 2, acc), \
                        D(dat, 3, S->elnd, 2, acc)
#define NBRS(dat, dim) D(dat, 0, S->elel, dim, UM_READ), D(dat, 1, S->elel, dim, UM_READ), \
                       D(dat, 2, S->elel, dim, UM_READ), D(dat, 3, S->elel, dim, UM_READ)

/* The four corners of nodal (x or u) of each element into cnvisc, 8 a row, for the tables by blocks: cnvisc is free
 * between steps (getdt writes it before any loop reads it). */
int bl_corners_into_cnvisc(bl_solver *S, um_dat *nodal) {
  return UM_PAR_LOOP(S->ctx, bl_corners_kernel, "report_corners", S->el, NODES(nodal, UM_READ),
                     D(S->cnvisc, -1, UM_ID, 8, UM_WRITE));
}

int bl_step_eos(bl_solver *S) {
  return UM_PAR_LOOP(S->ctx, bl_eos_kernel, "geteos", S->el, I(S->mat, -1, UM_ID, 1, UM_READ),
                     D(S->rho, -1, UM_ID, 1, UM_READ), D(S->e, -1, UM_ID, 1, UM_READ),
                     D(S->p, -1, UM_ID, 1, UM_WRITE), D(S->cs2, -1, UM_ID, 1, UM_WRITE));
}

static int controlling_element(bl_solver *S, const char *name, um_dat *scratch, double value) {
  int first = 2147483647;
  int rc = UM_PAR_LOOP(S->ctx, bl_argfind_kernel, name, S->el, D(scratch, -1, UM_ID, 1, UM_READ),
                       I(S->id, -1, UM_ID, 1, UM_READ), G(&value, 1, UM_DOUBLE, UM_READ),
                       G(&first, 1, UM_INT, UM_MIN));
  return rc ? -rc : first;
}

int bl_dt_element(bl_solver *S, dt_choice *c) {
  if (c->reason != DT_CFL && c->reason != DT_DIV) return UM_SUCCESS; /* el stays -1 */
  if (c->reason == DT_DIV && !(S->wmax_value > DBL_MIN)) return UM_SUCCESS; /* el 0, as upstream */
  const int el = c->reason == DT_CFL ? controlling_element(S, "getdt_cfl_element", S->scratch, S->wmin_value)
                                     : controlling_element(S, "getdt_div_element", S->scratch_div, S->wmax_value);
  if (el < 0) return -el;
  c->el = el;
  return UM_SUCCESS;
}

/* getdt: viscosity, then the minimum of the maximum, growth, initial, CFL and divergence limits (the controlling
 * element of the last two is looked for only where it is wanted: bl_dt_element). */
int bl_getdt(um_app_run *r, bl_solver *S, dt_choice *out) {
  um_context *ctx = S->ctx;
  const bl_deck *d = &S->cfg->deck;
  if (S->viscnd) /* the edge viscosity in one pass (params.visc) */
    UM_APP_TRY(UM_PAR_LOOP(ctx, bl_visc_kernel, "getdt_visc", S->el, NODES(S->x, UM_READ), NODES(S->u, UM_READ),
                           um_arg_vec(S->x, S->viscnd, 2, UM_DOUBLE, UM_READ),
                           um_arg_vec(S->u, S->viscnd, 2, UM_DOUBLE, UM_READ), I(S->nbr, -1, UM_ID, 8, UM_READ),
                           D(S->rho, -1, UM_ID, 1, UM_READ), NBRS(S->rho, 1), D(S->cs2, -1, UM_ID, 1, UM_READ),
                           NBRS(S->cs2, 1), D(S->visc, -1, UM_ID, 1, UM_WRITE), D(S->cnvisc, -1, UM_ID, 8, UM_WRITE)));
  else if (!S->cfg->ztq) { /* the edge viscosity (TENSOR: none, as upstream) */
    UM_APP_TRY(UM_PAR_LOOP(ctx, bl_visc_init_kernel, "getdt_visc_init", S->el, NODES(S->x, UM_READ),
                           NODES(S->u, UM_READ), D(S->edge, -1, UM_ID, 16, UM_WRITE)));
    UM_APP_TRY(UM_PAR_LOOP(ctx, bl_visc_limit_kernel, "getdt_visc_limit", S->el, D(S->edge, -1, UM_ID, 16, UM_READ),
                           NBRS(S->edge, 16), I(S->nbr, -1, UM_ID, 8, UM_READ), D(S->rho, -1, UM_ID, 1, UM_READ),
                           NBRS(S->rho, 1), D(S->cs2, -1, UM_ID, 1, UM_READ), NBRS(S->cs2, 1),
                           D(S->evisc, -1, UM_ID, 4, UM_WRITE), D(S->visc, -1, UM_ID, 1, UM_WRITE)));
    UM_APP_TRY(UM_PAR_LOOP(ctx, bl_visc_force_kernel, "getdt_visc_force", S->el, NODES(S->x, UM_READ),
                           NODES(S->u, UM_READ), D(S->evisc, -1, UM_ID, 4, UM_READ),
                           D(S->cnvisc, -1, UM_ID, 8, UM_WRITE)));
  }
  dt_choice c[5];
  int n = 0;
  c[n++] = (dt_choice){d->dt_max, -1, " MAXIMUM", DT_MAXIMUM};
  c[n++] = (dt_choice){d->dt_g * S->dt, -1, "  GROWTH", DT_GROWTH};
  if (S->nstep == 0) c[n++] = (dt_choice){d->dt_initial, -1, " INITIAL", DT_INITIAL};
  UM_APP_TRY(bl_mix_getcs2(S)); /* mixed cells: their components' sound speed */
  /* both limits queued, then read: on a GPU the read of the first waits for its loop only */
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_dt_cfl_kernel, "getdt_cfl", S->el, NODES(S->x, UM_READ),
                         D(S->cs2, -1, UM_ID, 1, UM_READ), D(S->visc, -1, UM_ID, 1, UM_READ), I(S->reg, -1, UM_ID, 1, UM_READ),
                         D(S->scratch, -1, UM_ID, 1, UM_WRITE), um_arg_reduction(S->wmin)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_dt_div_kernel, "getdt_div", S->el, NODES(S->u, UM_READ),
                         D(S->iso, -1, UM_ID, 4, UM_READ), D(S->vol, -1, UM_ID, 1, UM_READ),
                         D(S->scratch_div, -1, UM_ID, 1, UM_WRITE), um_arg_reduction(S->wmax)));
  double wmin = 0, wmax = 0;
  UM_APP_TRY(um_reduction_get(ctx, S->wmin, &wmin, sizeof wmin));
  UM_APP_TRY(um_reduction_get(ctx, S->wmax, &wmax, sizeof wmax));
  wmin = wmin < DBL_MAX ? wmin : DBL_MAX; /* upstream's starting values */
  wmax = wmax > DBL_MIN ? wmax : DBL_MIN;
  S->wmin_value = wmin, S->wmax_value = wmax;
  if (wmin < 0.0) return um_app_fail(r, UM_ERR_DIVERGED, "negative CFL condition at step %d", S->nstep + 1);
  c[n++] = (dt_choice){d->cfl_sf * sqrt(wmin), 0, "     CFL", DT_CFL};
  c[n++] = (dt_choice){d->div_sf / wmax, 0, "     DIV", DT_DIV};
  *out = c[0];
  for (int i = 1; i < n; i++)
    if (c[i].dt < out->dt) *out = c[i];
  return UM_SUCCESS;
}

static int getforce(bl_solver *S, int corrector) {
  if (S->cfg->zsp) {
    /* {dt, the predictor's sound speed has this step's viscous term, hourglass filter} */
    const double par[3] = {S->dt, corrector ? 0.0 : 1.0, corrector && S->cfg->zhg ? 1.0 : 0.0};
    return UM_PAR_LOOP(S->ctx, bl_force_sp_kernel, corrector ? "getforce_sp_corrector" : "getforce_sp", S->el,
                       D(S->p, -1, UM_ID, 1, UM_READ), D(S->iso, -1, UM_ID, 4, UM_READ),
                       D(S->cnvisc, -1, UM_ID, 8, UM_READ), I(S->reg, -1, UM_ID, 1, UM_READ),
                       D(S->rho, -1, UM_ID, 1, UM_READ), D(S->cs2, -1, UM_ID, 1, UM_READ),
                       D(S->visc, -1, UM_ID, 1, UM_READ), D(S->spmass, -1, UM_ID, 4, UM_READ), NODES(S->x, UM_READ),
                       D(S->vol, -1, UM_ID, 1, UM_READ), NODES(S->u, UM_READ), G(par, 3, UM_DOUBLE, UM_READ),
                       D(S->cnf, -1, UM_ID, 8, UM_WRITE));
  }
  if (corrector && S->cfg->zhg)
    return UM_PAR_LOOP(S->ctx, bl_force_hg_kernel, "getforce_hg", S->el, D(S->p, -1, UM_ID, 1, UM_READ),
                       D(S->iso, -1, UM_ID, 4, UM_READ), D(S->cnvisc, -1, UM_ID, 8, UM_READ),
                       I(S->reg, -1, UM_ID, 1, UM_READ), D(S->rho, -1, UM_ID, 1, UM_READ),
                       D(S->vol, -1, UM_ID, 1, UM_READ), NODES(S->u, UM_READ), G(&S->dt, 1, UM_DOUBLE, UM_READ),
                       D(S->cnf, -1, UM_ID, 8, UM_WRITE));
  return UM_PAR_LOOP(S->ctx, bl_force_kernel, "getforce", S->el, D(S->p, -1, UM_ID, 1, UM_READ),
                     D(S->iso, -1, UM_ID, 4, UM_READ), D(S->cnvisc, -1, UM_ID, 8, UM_READ),
                     D(S->cnf, -1, UM_ID, 8, UM_WRITE));
}

/* params.fused: the predictor's state pass also takes the forces of the step's start (plain forces only: not
 * with the sub-zonal pressures) and energy_save; the corrector's takes energy_restore. */
static int bl_fused_state(const bl_config *c, int corrector) { return c->fused && (corrector || !c->zsp); }

static int getstate(um_app_run *r, bl_solver *S, int corrector) {
  um_context *ctx = S->ctx;
  const double half = 0.5 * S->dt, dts = corrector ? S->dt : 0.5 * S->dt;
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_move_kernel, "getstate_move", S->nd, D(S->u, -1, UM_ID, 2, UM_READ),
                         G(&half, 1, UM_DOUBLE, UM_READ), D(S->x, -1, UM_ID, 2, UM_RW)));
  double vmin = DBL_MAX;
  /* predictor: work at u^n over half a step; corrector: at the step's mean velocity over the whole step */
  um_dat *vel = corrector ? S->ubar : S->u;
  const um_arg mass = D(S->mass, -1, UM_ID, 1, UM_READ), mat = I(S->mat, -1, UM_ID, 1, UM_READ),
               cs2 = D(S->cs2, -1, UM_ID, 1, UM_WRITE), least = G(&vmin, 1, UM_DOUBLE, UM_MIN);
  if (bl_fused_state(S->cfg, corrector)) { /* geometry, energy and EOS in one pass (see bl_lagstep) */
    if (corrector)
      UM_APP_TRY(UM_PAR_LOOP(ctx, bl_state_corrector_kernel, "state_corrector", S->el, NODES(S->x, UM_READ),
                             NODES(vel, UM_READ), mass, G(&dts, 1, UM_DOUBLE, UM_READ), mat,
                             D(S->cnf, -1, UM_ID, 8, UM_READ), D(S->e0, -1, UM_ID, 1, UM_READ),
                             D(S->iso, -1, UM_ID, 4, UM_WRITE), D(S->cnwt, -1, UM_ID, 4, UM_WRITE),
                             D(S->vol, -1, UM_ID, 1, UM_WRITE), D(S->rho, -1, UM_ID, 1, UM_WRITE),
                             D(S->e, -1, UM_ID, 1, UM_WRITE), D(S->p, -1, UM_ID, 1, UM_WRITE), cs2, least));
    else
      UM_APP_TRY(UM_PAR_LOOP(ctx, bl_state_predictor_kernel, "state_predictor", S->el,
                             D(S->cnvisc, -1, UM_ID, 8, UM_READ), NODES(S->x, UM_READ), NODES(vel, UM_READ), mass,
                             G(&dts, 1, UM_DOUBLE, UM_READ), mat, D(S->p, -1, UM_ID, 1, UM_RW),
                             D(S->iso, -1, UM_ID, 4, UM_RW), D(S->cnwt, -1, UM_ID, 4, UM_WRITE),
                             D(S->vol, -1, UM_ID, 1, UM_WRITE), D(S->rho, -1, UM_ID, 1, UM_WRITE),
                             D(S->e, -1, UM_ID, 1, UM_RW), D(S->e0, -1, UM_ID, 1, UM_WRITE), cs2, least));
  } else
    UM_APP_TRY(UM_PAR_LOOP(ctx, bl_geom_kernel, "getstate_geometry", S->el, NODES(S->x, UM_READ), mass,
                           D(S->iso, -1, UM_ID, 4, UM_WRITE), D(S->cnwt, -1, UM_ID, 4, UM_WRITE),
                           D(S->vol, -1, UM_ID, 1, UM_WRITE), D(S->rho, -1, UM_ID, 1, UM_WRITE), least));
  if (vmin < 0.0)
    return um_app_fail(r, UM_ERR_DIVERGED, "negative volume (%g) at step %d, t = %.9e: the mesh tangled", vmin,
                       S->nstep, S->time);
  if (bl_fused_state(S->cfg, corrector)) return UM_SUCCESS;
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_energy_kernel, corrector ? "getenergy_corrector" : "getenergy_predictor", S->el,
                         D(S->cnf, -1, UM_ID, 8, UM_READ), NODES(vel, UM_READ), mass, G(&dts, 1, UM_DOUBLE, UM_READ),
                         D(S->e, -1, UM_ID, 1, UM_RW)));
  return bl_step_eos(S);
}

#define NODE_ELS(dat, dim) D(dat, 0, S->ndel, dim, UM_READ), D(dat, 1, S->ndel, dim, UM_READ), \
                           D(dat, 2, S->ndel, dim, UM_READ), D(dat, 3, S->ndel, dim, UM_READ)

static int getacceleration(bl_solver *S) {
  um_context *ctx = S->ctx;
  if (S->cfg->scheme == SCHEME_GATHER) /* one pass over the nodes, no increments */
    return UM_PAR_LOOP(ctx, bl_gather_accel_kernel, "getacc_gather", S->nd, NODE_ELS(S->rho, 1), NODE_ELS(S->cnwt, 4),
                       NODE_ELS(S->cnmass, 4), NODE_ELS(S->cnf, 8), I(S->ndcorner, -1, UM_ID, 4, UM_READ),
                       I(S->type, -1, UM_ID, 1, UM_READ), G(&S->dt, 1, UM_DOUBLE, UM_READ),
                       D(S->u, -1, UM_ID, 2, UM_RW), D(S->ubar, -1, UM_ID, 2, UM_WRITE));
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_zero4_kernel, "getacc_zero", S->nd, D(S->acc, -1, UM_ID, 4, UM_WRITE)));
  const um_arg rho = D(S->rho, -1, UM_ID, 1, UM_READ), w = D(S->cnwt, -1, UM_ID, 4, UM_READ),
               cm = D(S->cnmass, -1, UM_ID, 4, UM_READ), f = D(S->cnf, -1, UM_ID, 8, UM_READ);
  if (S->cfg->scheme == SCHEME_UPSTREAM) {
    static const int corners[4] = {0, 1, 2, 3};
    for (int c = 0; c < 4; c++)
      UM_APP_TRY(UM_PAR_LOOP(ctx, bl_scatter_corner_kernel, "getacc_scatter_upstream", S->el, rho, w, cm, f,
                             G(&corners[c], 1, UM_INT, UM_READ), D(S->acc, c, S->elnd, 4, UM_INC)));
  } else {
    UM_APP_TRY(UM_PAR_LOOP(ctx, bl_scatter_kernel, "getacc_scatter", S->el, rho, w, cm, f,
                           D(S->acc, 0, S->elnd, 4, UM_INC), D(S->acc, 1, S->elnd, 4, UM_INC),
                           D(S->acc, 2, S->elnd, 4, UM_INC), D(S->acc, 3, S->elnd, 4, UM_INC)));
  }
  return UM_PAR_LOOP(ctx, bl_accel_kernel, "getacc_apply", S->nd, D(S->acc, -1, UM_ID, 4, UM_READ),
                     I(S->type, -1, UM_ID, 1, UM_READ), G(&S->dt, 1, UM_DOUBLE, UM_READ),
                     D(S->u, -1, UM_ID, 2, UM_RW), D(S->ubar, -1, UM_ID, 2, UM_WRITE));
}

int bl_lagstep(um_app_run *r, bl_solver *S) {
  um_context *ctx = S->ctx;
  if (!bl_fused_state(S->cfg, 0)) {
    UM_APP_TRY(UM_PAR_LOOP(ctx, bl_copy_kernel, "energy_save", S->el, D(S->e, -1, UM_ID, 1, UM_READ),
                           D(S->e0, -1, UM_ID, 1, UM_WRITE)));
    UM_APP_TRY(getforce(S, 0));
  }
  UM_APP_TRY(bl_mix_getforce(S, 0)); /* mixed cells: the components (no-ops without) */
  UM_APP_TRY(getstate(r, S, 0));
  UM_APP_TRY(bl_mix_getstate(S, 0));
  if (!bl_fused_state(S->cfg, 1))
    UM_APP_TRY(UM_PAR_LOOP(ctx, bl_copy_kernel, "energy_restore", S->el, D(S->e0, -1, UM_ID, 1, UM_READ),
                           D(S->e, -1, UM_ID, 1, UM_WRITE)));
  UM_APP_TRY(getforce(S, 1));
  UM_APP_TRY(bl_mix_getforce(S, 1)); /* and the mixed cells' corner forces from theirs */
  UM_APP_TRY(getacceleration(S));
  UM_APP_TRY(getstate(r, S, 1));
  return bl_mix_getstate(S, 1);
}


/* ---- the ALE remap (Eulerian decks: upstream's alestep with zeul, adv_type 1) ---- */

static int geometry_eos(um_app_run *r, bl_solver *S, const char *name) {
  double vmin = DBL_MAX;
  UM_APP_TRY(UM_PAR_LOOP(S->ctx, bl_geom_kernel, name, S->el, NODES(S->x, UM_READ),
                         D(S->mass, -1, UM_ID, 1, UM_READ), D(S->iso, -1, UM_ID, 4, UM_WRITE),
                         D(S->cnwt, -1, UM_ID, 4, UM_WRITE), D(S->vol, -1, UM_ID, 1, UM_WRITE),
                         D(S->rho, -1, UM_ID, 1, UM_WRITE), G(&vmin, 1, UM_DOUBLE, UM_MIN)));
  if (vmin < 0.0)
    return um_app_fail(r, UM_ERR_DIVERGED, "negative volume (%g) after the remap at step %d, t = %.9e", vmin,
                       S->nstep, S->time);
  return bl_step_eos(S);
}

int bl_alestep(um_app_run *r, bl_solver *S) {
  um_context *ctx = S->ctx;
  const um_arg nbr = I(S->nbr, -1, UM_ID, 8, UM_READ);
  /* getfluxvolume: back to the Eulerian mesh; the volume each face sweeps */
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_ale_move_kernel, "ale_move", S->nd, D(S->ubar, -1, UM_ID, 2, UM_READ),
                         G(&S->dt, 1, UM_DOUBLE, UM_READ), D(S->x0, -1, UM_ID, 2, UM_WRITE),
                         D(S->x, -1, UM_ID, 2, UM_RW)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_ale_fluxvol_kernel, "ale_flux_volume", S->el, NODES(S->x0, UM_READ),
                         NODES(S->x, UM_READ), D(S->fcdv, -1, UM_ID, 4, UM_WRITE)));
  /* element advection: mass, then internal energy */
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_ale_massflux_kernel, "ale_mass_flux", S->el, D(S->cnwt, -1, UM_ID, 4, UM_READ),
                         NBRS(S->cnwt, 4), D(S->fcdv, -1, UM_ID, 4, UM_READ), nbr, D(S->rho, -1, UM_ID, 1, UM_READ),
                         NBRS(S->rho, 1), D(S->fcdm, -1, UM_ID, 4, UM_WRITE)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_ale_update_basis_kernel, "ale_update_mass", S->el,
                         D(S->fcdv, -1, UM_ID, 4, UM_READ), NBRS(S->fcdv, 4), D(S->fcdm, -1, UM_ID, 4, UM_READ),
                         NBRS(S->fcdm, 4), nbr, D(S->vm0, -1, UM_ID, 2, UM_WRITE), D(S->vol, -1, UM_ID, 1, UM_RW),
                         D(S->mass, -1, UM_ID, 1, UM_RW), D(S->rho, -1, UM_ID, 1, UM_WRITE)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_ale_energyflux_kernel, "ale_energy_flux", S->el,
                         D(S->cnmass, -1, UM_ID, 4, UM_READ), NBRS(S->cnmass, 4), D(S->fcdm, -1, UM_ID, 4, UM_READ),
                         nbr, D(S->e, -1, UM_ID, 1, UM_READ), NBRS(S->e, 1), D(S->eflux, -1, UM_ID, 4, UM_WRITE)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_ale_update_energy_kernel, "ale_update_energy", S->el,
                         D(S->eflux, -1, UM_ID, 4, UM_READ), NBRS(S->eflux, 4), nbr, D(S->vm0, -1, UM_ID, 2, UM_READ),
                         D(S->mass, -1, UM_ID, 1, UM_READ), D(S->e, -1, UM_ID, 1, UM_RW)));
  /* nodal advection: corner and node masses, then momentum */
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_zero4_kernel, "ale_node_basis_zero", S->nd, D(S->nbasis, -1, UM_ID, 4, UM_WRITE)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_ale_node_basis_kernel, "ale_node_basis", S->el, D(S->vm0, -1, UM_ID, 2, UM_READ),
                         D(S->vol, -1, UM_ID, 1, UM_READ), D(S->cnmass, -1, UM_ID, 4, UM_READ),
                         D(S->cnm0, -1, UM_ID, 4, UM_WRITE), D(S->nbasis, 0, S->elnd, 4, UM_INC),
                         D(S->nbasis, 1, S->elnd, 4, UM_INC), D(S->nbasis, 2, S->elnd, 4, UM_INC),
                         D(S->nbasis, 3, S->elnd, 4, UM_INC)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_ale_corner_flux_kernel, "ale_corner_flux", S->el, D(S->fcdv, -1, UM_ID, 4, UM_READ),
                         NBRS(S->fcdv, 4), D(S->fcdm, -1, UM_ID, 4, UM_READ), NBRS(S->fcdm, 4), nbr,
                         D(S->cnd, -1, UM_ID, 8, UM_WRITE), D(S->cnflux, -1, UM_ID, 4, UM_WRITE)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_ale_corner_mass_kernel, "ale_corner_mass", S->el,
                         D(S->cnflux, -1, UM_ID, 4, UM_READ), D(S->cnmass, -1, UM_ID, 4, UM_RW),
                         D(S->nbasis, 0, S->elnd, 4, UM_INC), D(S->nbasis, 1, S->elnd, 4, UM_INC),
                         D(S->nbasis, 2, S->elnd, 4, UM_INC), D(S->nbasis, 3, S->elnd, 4, UM_INC)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_ale_corner_u_kernel, "ale_corner_velocity", S->el, NODES(S->u, UM_READ),
                         D(S->cnu, -1, UM_ID, 8, UM_WRITE)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_ale_momflux_kernel, "ale_momentum_flux", S->el, D(S->cnm0, -1, UM_ID, 4, UM_READ),
                         NBRS(S->cnm0, 4), D(S->cnd, -1, UM_ID, 8, UM_READ), nbr, D(S->cnu, -1, UM_ID, 8, UM_READ),
                         NBRS(S->cnu, 8), D(S->mflux, -1, UM_ID, 8, UM_WRITE)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_zero2_kernel, "ale_node_flux_zero", S->nd, D(S->nflux, -1, UM_ID, 2, UM_WRITE)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_ale_node_flux_kernel, "ale_node_flux", S->el, D(S->mflux, -1, UM_ID, 8, UM_READ),
                         D(S->nflux, 0, S->elnd, 2, UM_INC), D(S->nflux, 1, S->elnd, 2, UM_INC),
                         D(S->nflux, 2, S->elnd, 2, UM_INC), D(S->nflux, 3, S->elnd, 2, UM_INC)));
  UM_APP_TRY(UM_PAR_LOOP(ctx, bl_ale_update_u_kernel, "ale_update_velocity", S->nd,
                         D(S->nbasis, -1, UM_ID, 4, UM_READ), D(S->nflux, -1, UM_ID, 2, UM_READ),
                         I(S->type, -1, UM_ID, 1, UM_READ), D(S->u, -1, UM_ID, 2, UM_RW)));
  /* aleupdate: geometry, density and EOS on the new mesh */
  return geometry_eos(r, S, "ale_geometry");
}
