/* BookLeaf on um: mixed-material cells (upstream BookLeaf_F90 2.0.1's multi-material Lagrangian step).
 *
 * A cell that a material shape cuts holds components, one per material in it, each with its fixed volume fraction,
 * its mass (constant), density, specific internal energy, pressure and sound speed. Sets: `components` (each reaches
 * its cell through component_element and its cell's nodes through component_nodes) and `mixed_cells` (each reaches
 * its cell through mixed_element and its components through mixed_components, K a row, a vector argument; the row's
 * count in mixed_count). Declared in that order, each set follows its cells' owners under MPI (their first map).
 *
 * What upstream does with them, step by step (and so the port):
 *   - the cell itself keeps the region's state (its mass, density and energy from the region's initial condition)
 *     and is void for the EOS (pressure 0, sound speed squared ccut: bl_eos with material -1);
 *   - getdt: the cell's sound speed for the CFL limit is its components' mass-weighted, without a viscous term
 *     (bl_mix_cs2); its edge viscosity is computed as any cell's;
 *   - each half step: the components' forces, their pressure on the cell's geometry (bl_mix_force), then after the
 *     cell's geometry their volume (fraction x cell), density, energy from their forces' work at their fraction of
 *     the corner velocities, and EOS (bl_mix_state). The energy is not restored at the corrector (upstream copies
 *     the cells' energy back only): the components' energy takes the predictor's half step and the corrector's step;
 *   - corrector: before the acceleration the cell's corner forces become its components' by volume fraction
 *     (bl_mix_cnf), in place of its own (its viscous and hourglass forces with them);
 *   - the region table counts the cell's own state, Table 2 the pure cells of each material and the components.
 * Upstream's remap does not take components: an Eulerian deck with mixed cells is refused (bookleaf.c). */
#include "bookleaf_internal.h"
#include "bookleaf_mesh.h"

extern const char bookleaf_kernels_source[];
#define BL_KERNEL(fn, n) UM_KERNEL_DEFINE(fn, n, bookleaf_kernels_source, "bookleaf_kernels.h")
BL_KERNEL(bl_mix_eos, 5);
BL_KERNEL(bl_mix_force, 3);
BL_KERNEL(bl_mix_state, 15);
BL_KERNEL(bl_mix_cs2, 5);
BL_KERNEL(bl_mix_cnf, 4);

#define DCP(dat, dim, acc) D(dat, -1, UM_ID, dim, acc)

int bl_mix_declare(um_app_run *r, bl_solver *S, const bl_mesh *m, const double *vol, const double *mass) {
  if (!m || !m->ncp) return UM_SUCCESS;
  um_context *ctx = r->ctx;
  const int ncp = m->ncp, nmx = m->nmx;
  int K = 1;
  for (int i = 0; i < nmx; i++)
    if (m->mxfirst[i + 1] - m->mxfirst[i] > K) K = m->mxfirst[i + 1] - m->mxfirst[i];
  int *cpel = malloc(sizeof(int) * (size_t)ncp), *cpnd = malloc(sizeof(int) * 4 * (size_t)ncp);
  int *cpmat = malloc(sizeof(int) * (size_t)ncp), *mxcp = malloc(sizeof(int) * (size_t)K * (size_t)nmx);
  int *mxn = malloc(sizeof(int) * (size_t)nmx);
  double *buf = malloc(sizeof(double) * 6 * (size_t)ncp);
  S->cpel_orig = cpel, S->cpmat_orig = cpmat; /* kept for the report (bl_mix_free) */
  if (!cpel || !cpnd || !cpmat || !mxcp || !mxn || !buf) {
    free(cpnd), free(mxcp), free(mxn), free(buf);
    return um_app_fail(r, UM_ERR_ALLOC, "out of memory for %d mixed-cell components", ncp);
  }
  double *fr = buf, *frm = buf + ncp, *cmass = buf + 2 * (size_t)ncp, *ce = buf + 3 * (size_t)ncp,
         *crho = buf + 4 * (size_t)ncp, *cvol = buf + 5 * (size_t)ncp;
  for (int i = 0; i < nmx; i++) {
    const int e = m->mxel[i], first = m->mxfirst[i], n = m->mxfirst[i + 1] - first;
    mxn[i] = n;
    for (int j = 0; j < K; j++) mxcp[(size_t)K * i + j] = first + (j < n ? j : 0); /* padding: never read */
    for (int c = first; c < first + n; c++) {
      const bl_component *q = &m->cp[c];
      cpel[c] = e, cpmat[c] = q->mat;
      for (int k = 0; k < 4; k++) cpnd[4 * c + k] = m->elnd[4 * e + k];
      /* upstream's setup: volume fraction x cell volume, mass = density x volume, mass fraction of the cell's mass */
      fr[c] = q->fr, cvol[c] = q->fr * vol[e], crho[c] = q->density, ce[c] = q->energy;
      cmass[c] = crho[c] * cvol[c];
      frm[c] = cmass[c] / mass[e];
    }
  }
  S->nmx = nmx, S->ncp = ncp;
  int rc = um_decl_set(ctx, ncp, "components", &S->cp);
  if (!rc) rc = um_decl_set(ctx, nmx, "mixed_cells", &S->mx);
  if (!rc) rc = um_decl_map(ctx, S->cp, S->el, 1, cpel, "component_element", &S->cpel);
  if (!rc) rc = um_decl_map(ctx, S->cp, S->nd, 4, cpnd, "component_nodes", &S->cpnd);
  if (!rc) rc = um_decl_map(ctx, S->mx, S->el, 1, m->mxel, "mixed_element", &S->mxel);
  if (!rc) rc = um_decl_map(ctx, S->mx, S->cp, K, mxcp, "mixed_components", &S->mxcp);
  DAT(S->mx, 1, UM_INT, mxn, "mixed_count", &S->mxn);
  DAT(S->cp, 1, UM_INT, cpmat, "component_material", &S->cpmat);
  DAT(S->cp, 1, UM_DOUBLE, fr, "component_fraction", &S->cpfr);
  DAT(S->cp, 1, UM_DOUBLE, frm, "component_mass_fraction", &S->cpfrm);
  DAT(S->cp, 1, UM_DOUBLE, cmass, "component_mass", &S->cpmass);
  DAT(S->cp, 1, UM_DOUBLE, ce, "component_energy", &S->cpe);
  DAT(S->cp, 1, UM_DOUBLE, crho, "component_density", &S->cprho);
  DAT(S->cp, 1, UM_DOUBLE, cvol, "component_volume", &S->cpvol);
  DAT(S->cp, 1, UM_DOUBLE, NULL, "component_pressure", &S->cpp);
  DAT(S->cp, 1, UM_DOUBLE, NULL, "component_cs2", &S->cpcs2);
  DAT(S->cp, 8, UM_DOUBLE, NULL, "component_force", &S->cpf);
  free(cpnd), free(mxcp), free(mxn), free(buf);
  return rc;
}

void bl_mix_free(bl_solver *S) {
  free(S->cpel_orig), free(S->cpmat_orig);
  S->cpel_orig = S->cpmat_orig = NULL;
}

int bl_mix_geteos(bl_solver *S) {
  if (!S->cp) return UM_SUCCESS;
  return UM_PAR_LOOP(S->ctx, bl_mix_eos_kernel, "mix_eos", S->cp, I(S->cpmat, -1, UM_ID, 1, UM_READ),
                     DCP(S->cprho, 1, UM_READ), DCP(S->cpe, 1, UM_READ), DCP(S->cpp, 1, UM_WRITE),
                     DCP(S->cpcs2, 1, UM_WRITE));
}

int bl_mix_getcs2(bl_solver *S) {
  if (!S->mx) return UM_SUCCESS;
  return UM_PAR_LOOP(S->ctx, bl_mix_cs2_kernel, "mix_cs2", S->mx, I(S->mxn, -1, UM_ID, 1, UM_READ),
                     um_arg_vec(S->cpfrm, S->mxcp, 1, UM_DOUBLE, UM_READ),
                     um_arg_vec(S->cpcs2, S->mxcp, 1, UM_DOUBLE, UM_READ), D(S->cs2, 0, S->mxel, 1, UM_WRITE),
                     D(S->visc, 0, S->mxel, 1, UM_WRITE));
}

/* The components' forces; at the corrector, then the mixed cells' corner forces from them. */
int bl_mix_getforce(bl_solver *S, int corrector) {
  if (!S->cp) return UM_SUCCESS;
  UM_APP_TRY(UM_PAR_LOOP(S->ctx, bl_mix_force_kernel, corrector ? "mix_force_corrector" : "mix_force", S->cp,
                         DCP(S->cpp, 1, UM_READ), D(S->iso, 0, S->cpel, 4, UM_READ), DCP(S->cpf, 8, UM_WRITE)));
  if (!corrector) return UM_SUCCESS;
  return UM_PAR_LOOP(S->ctx, bl_mix_cnf_kernel, "mix_cnf", S->mx, I(S->mxn, -1, UM_ID, 1, UM_READ),
                     um_arg_vec(S->cpfr, S->mxcp, 1, UM_DOUBLE, UM_READ),
                     um_arg_vec(S->cpf, S->mxcp, 8, UM_DOUBLE, UM_READ), D(S->cnf, 0, S->mxel, 8, UM_WRITE));
}

int bl_mix_getstate(bl_solver *S, int corrector) {
  if (!S->cp) return UM_SUCCESS;
  const double dts = corrector ? S->dt : 0.5 * S->dt;
  um_dat *vel = corrector ? S->ubar : S->u; /* as the cells' energy: u^n over half a step, then the mean velocity */
  return UM_PAR_LOOP(S->ctx, bl_mix_state_kernel, corrector ? "mix_state_corrector" : "mix_state_predictor", S->cp,
                     D(S->vol, 0, S->cpel, 1, UM_READ), D(vel, 0, S->cpnd, 2, UM_READ), D(vel, 1, S->cpnd, 2, UM_READ),
                     D(vel, 2, S->cpnd, 2, UM_READ), D(vel, 3, S->cpnd, 2, UM_READ), DCP(S->cpfr, 1, UM_READ),
                     DCP(S->cpmass, 1, UM_READ), DCP(S->cpf, 8, UM_READ), G(&dts, 1, UM_DOUBLE, UM_READ),
                     I(S->cpmat, -1, UM_ID, 1, UM_READ), DCP(S->cpvol, 1, UM_WRITE), DCP(S->cprho, 1, UM_WRITE),
                     DCP(S->cpe, 1, UM_RW), DCP(S->cpp, 1, UM_WRITE), DCP(S->cpcs2, 1, UM_WRITE));
}

/* ---- Table 2: per material, the pure cells (upstream's element loop), then the components ---- */

int bl_mix_table(um_app_run *r, bl_solver *S, bl_table *t) {
  const double dencut = S->cfg->deck.dencut;
  for (int k = 0; k < S->nmat && !t->blocks; k++) { /* by blocks the pure cells came with the regions */
    bl_row *w = &t->mat[k];
    memset(w, 0, sizeof *w);
    w->pmax = w->rmax = -DBL_MAX;
    w->pmin = w->rmin = DBL_MAX;
  }
  for (int e = 0; e < S->nel && !t->blocks; e++)
    if (S->elmat_orig[e] >= 0)
      bl_row_add(&t->mat[S->elmat_orig[e]], dencut, t->vol[e], t->mass[e], t->e[e], t->p[e], t->rho[e],
                 t->cnwt + 4 * (size_t)e, S->elnd_orig + 4 * (size_t)e, t->u);
  if (S->cp) { /* (a deck with components is declared whole: t holds the whole fields) */
    const size_t n = (size_t)S->ncp;
    double *h = t->cp = malloc(sizeof(double) * BL_CP_NCOL * n); /* kept for the outputs (bl_table_free) */
    if (!h) return um_app_fail(r, UM_ERR_ALLOC, "out of memory for the report's %zu components", n);
    um_dat *d[BL_CP_NCOL];
    d[BL_CP_FRACTION] = S->cpfr, d[BL_CP_VOLUME] = S->cpvol, d[BL_CP_MASS] = S->cpmass, d[BL_CP_DENSITY] = S->cprho;
    d[BL_CP_ENERGY] = S->cpe, d[BL_CP_PRESSURE] = S->cpp;
    for (int i = 0; i < BL_CP_NCOL; i++)
      UM_APP_TRY(um_dat_fetch_original_order(r->ctx, d[i], h + i * n, sizeof(double) * n));
    const double *vol = h + BL_CP_VOLUME * n, *mass = h + BL_CP_MASS * n, *e = h + BL_CP_ENERGY * n,
                 *p = h + BL_CP_PRESSURE * n, *rho = h + BL_CP_DENSITY * n;
    for (size_t c = 0; c < n; c++) { /* a component counts its cell's corner volumes at its own density */
      const int el = S->cpel_orig[c];
      bl_row_add(&t->mat[S->cpmat_orig[c]], dencut, vol[c], mass[c], e[c], p[c], rho[c], t->cnwt + 4 * (size_t)el,
                 S->elnd_orig + 4 * (size_t)el, t->u);
    }
  }
  for (int k = 0; k < S->nmat; k++) {
    bl_row *w = &t->mat[k];
    if (w->vol > 0.0) w->rho = w->mass / w->vol;
    if (w->mass > dencut * w->vol) w->p /= w->mass;
  }
  return UM_SUCCESS;
}

int bl_material_metrics(um_app_run *r, const bl_solver *S, const bl_table *t) {
  for (int k = 0; k < S->nmat; k++) {
    char prefix[16 + BL_SLEN]; /* distinct for each material (bl_ic_prepare refuses a deck where two would meet) */
    bl_material_key(S->material_name[k], prefix, sizeof prefix);
    UM_APP_TRY(bl_row_metrics(r, prefix, &t->mat[k]));
  }
  /* whether the materials tile the mesh: their volumes (the pure cells' and the components') against the regions' */
  double vm = 0.0, vr = 0.0;
  for (int k = 0; k < S->nmat; k++) vm += t->mat[k].vol;
  for (int k = 0; k < S->nreg; k++) vr += t->reg[k].vol;
  return um_app_metric(r, "material_volume_gap", vm / vr - 1.0);
}
