/* BookLeaf on um: the kernels of the Lagrangian step (BookLeaf 2.0's
 * compatible finite-element hydrodynamics on quadrilaterals), written once,
 * valid C and CUDA device code.
 *
 * Elements have four corners (counter-clockwise, reached through el_nodes)
 * and four faces (face f joins corners f and f+1; its neighbour is reached
 * through el_el, the element itself on a boundary). Per-element corner data
 * are stored [4] (or [8] = x[4], y[4]); node coordinates and velocities are
 * [2] = (x, y), (u, v). Mixed-material cells' components (bookleaf_mix.c) at the end; the ALE remap's kernels
 * are in bookleaf_ale_kernels.h.
 *
 * Constants (upstream's &CUTOFF and per-material/region tables) are
 * published with um_decl_const before the first loop. */
#ifndef BOOKLEAF_KERNELS_H
#define BOOKLEAF_KERNELS_H
#include "um/kernel.h"

#define BL_NMAT_MAX 16
UM_CONST double bl_cut[6];                  /* zcut, zerocut, dencut, accut, pcut, ccut */
UM_CONST double bl_visc_coef[2];            /* cvisc1, cvisc2                           */
#define BL_EOS_NP 6                         /* parameters of one equation of state      */
#define BL_HUGE 1.7976931348623157e308      /* Fortran HUGE(1.0d0)                      */
UM_CONST int bl_eos_type[BL_NMAT_MAX];      /* 0 void, 1 ideal gas, 2 Tait, 3 JWL       */
UM_CONST double bl_eos_param[BL_NMAT_MAX * BL_EOS_NP]; /* eos_param(1..6, material)     */
UM_CONST double bl_kappa[BL_NMAT_MAX];      /* hourglass coefficient per region         */
UM_CONST double bl_pmerit[BL_NMAT_MAX];     /* sub-zonal pressure coefficient per region */
UM_CONST int bl_dtreg[BL_NMAT_MAX];         /* per region: 1 zdtnotreg, 2 zmidlength     */

/* ---- artificial viscosity (upstream's edge viscosity with the limiter) --- */

/* Edge differences of velocity and position, face by face: edge[4f..4f+3] = du, dv, dx, dy of face f
 * (a neighbour's face is then one 32-byte sector of its row). */
UM_KERNEL void bl_visc_init(const double *x0, const double *x1, const double *x2, const double *x3,
                            const double *u0, const double *u1, const double *u2, const double *u3, double *edge) {
  const double *x[4] = {x0, x1, x2, x3}, *u[4] = {u0, u1, u2, u3};
  for (int f = 0; f < 4; f++) {
    const int g = (f + 1) % 4;
    edge[4 * f] = u[g][0] - u[f][0], edge[4 * f + 1] = u[g][1] - u[f][1];
    edge[4 * f + 2] = x[g][0] - x[f][0], edge[4 * f + 3] = x[g][1] - x[f][1];
  }
}

UM_KERNEL double bl_sgnmax(double den, double cut) {
  const double a = fabs(den) > cut ? fabs(den) : cut;
  return copysign(a, den); /* Fortran SIGN(MAX(ABS(den), cut), den), signed zeros as gfortran */
}

/* The ratio of a neighbour's velocity gradient along (xhat, yhat) to ours. */
UM_KERNEL double bl_ratio(const double *q, double uhat, double vhat, double xhat, double yhat, double cut) {
  const double den = q[2] * xhat + q[3] * yhat;
  return (q[0] * uhat + q[1] * vhat) / bl_sgnmax(den, cut);
}

/* What the limiter reads: edges from bl_visc_init's rows (e own, ne[f] the neighbour across face f, nbr[f] its
 * face b facing back) or, fused, from the nodes (own x, u; the neighbours' far corners b+2, b+3 through
 * visc_nodes: vx, vu entries 2f, 2f+1): the same values, the same bits. Read where used: never all live. */
typedef struct {
  int fused;
  const double *e, *ne[4];
  const int *nbr;
  const double *x[4], *u[4];
  const um_vec *vx, *vu;
  const double *rho, *nr[4], *cs2, *nc[4];
} bl_edges;

/* Own edge (face) f: du, dv, dx, dy. */
UM_KERNEL void bl_own_edge(const bl_edges *s, int f, double *w) {
  const int g = (f + 1) % 4;
  for (int c = 0; c < 4; c++) /* as bl_visc_init */
    w[c] = !s->fused ? s->e[4 * f + c] : c < 2 ? s->u[g][c] - s->u[f][c] : s->x[g][c - 2] - s->x[f][c - 2];
}

/* Face (b+1+2w)%4 of the neighbour across face f: corner b+1 to b+2 (w = 0), b+3 to b (w = 1); its b+1, b are the
 * element's f, f+1, or f+3, f+2 on a boundary (neighbour = self, b = f+2; bookleaf.c checks both). */
UM_KERNEL void bl_nbr_edge(const bl_edges *s, int f, int w, double *q) {
  const int self = s->nbr[4 + f] & 1, a = w ? (f + 1) % 4 : f, sa = w ? (f + 2) % 4 : (f + 3) % 4, j = 2 * f + w;
  const double *r = s->fused ? 0 : s->ne[f] + 4 * ((s->nbr[f] + 1 + 2 * w) % 4);
  for (int c = 0; c < 2 && s->fused; c++) { /* the own corner by value, not by pointer (it sits in registers) */
    const double ou = self ? s->u[sa][c] : s->u[a][c], ox = self ? s->x[sa][c] : s->x[a][c];
    const double fu = UM_VEC_D(s->vu, j, c), fx = UM_VEC_D(s->vx, j, c);
    q[c] = w ? ou - fu : fu - ou; /* to minus from */
    q[2 + c] = w ? ox - fx : fx - ox;
  }
  for (int c = 0; c < 4 && !s->fused; c++) q[c] = r[c];
}

/* One side of the limiter (iside 0: faces 0, 2 and edges 3, 1; 1: faces 1, 3, edges 0, 2; a constant, so no
 * array goes to local memory): its edges' evisc, v the largest viscous sound speed term. nbr[4 + f]: 1 on a
 * boundary (neighbour = self), +2 if both nodes are boundary nodes. */
UM_KERNEL void bl_visc_side(const bl_edges *s, int iside, double *evisc, double *v) {
  const int *nbr = s->nbr;
  const double cut = bl_cut[1], cv1 = bl_visc_coef[0], cv2 = bl_visc_coef[1];
  const int is1 = (iside + 3) % 4, is2 = iside + 1, f1 = iside, f2 = iside + 2;
  double sc[4];
  for (int h = 0; h < 2; h++) { /* h = 0: edge is1, h = 1: edge is2 */
    double ow[4], q[4];
    bl_own_edge(s, h ? is2 : is1, ow);
    double w1 = ow[0], w2 = ow[1], w3 = ow[2], w4 = ow[3];
    double den = sqrt(w1 * w1 + w2 * w2);
    den = 1.0 / (den > cut ? den : cut);
    const double uhat = w1 * den, vhat = w2 * den;
    den = sqrt(w3 * w3 + w4 * w4);
    den = 1.0 / (den > cut ? den : cut);
    const double xhat = w3 * den, yhat = w4 * den;
    den = w3 * xhat + w4 * yhat;
    w1 = (w1 * uhat + w2 * vhat) / bl_sgnmax(den, cut);
    w1 = 1.0 / bl_sgnmax(w1, cut);
    /* face f1's neighbour: its face b+1 for edge is1, b+3 for is2; face f2's: the other way round */
    bl_nbr_edge(s, f1, h, q);
    sc[2 * h] = bl_ratio(q, uhat, vhat, xhat, yhat, cut) * w1;
    bl_nbr_edge(s, f2, 1 - h, q);
    sc[2 * h + 1] = bl_ratio(q, uhat, vhat, xhat, yhat, cut) * w1;
  }
  const int self1 = nbr[4 + f1] & 1, self2 = nbr[4 + f2] & 1;
  if (self1) sc[0] = sc[2] = ((nbr[4 + f1] & 2) && !self2) ? 1.0 : 0.0;
  if (self2) sc[1] = sc[3] = ((nbr[4 + f2] & 2) && !self1) ? 1.0 : 0.0;
  for (int h = 0; h < 2; h++) {
    const int is = h ? is2 : is1;
    double ow[4];
    bl_own_edge(s, is, ow);
    const double w1 = cv1 * sqrt(0.5 * (s->cs2[0] + s->nc[is][0]));
    double w2 = sc[2 * h], w3 = sc[2 * h + 1];
    double lim = 0.5 * (w2 + w3);
    if (2.0 * w2 < lim) lim = 2.0 * w2;
    if (2.0 * w3 < lim) lim = 2.0 * w3;
    if (1.0 < lim) lim = 1.0;
    if (lim < 0.0) lim = 0.0;
    double w4 = sqrt(ow[0] * ow[0] + ow[1] * ow[1]);
    w3 = 0.5 * (1.0 - lim) * (s->rho[0] + s->nr[is][0]) * (w1 + cv2 * w4);
    evisc[is] = w3;
    w4 = 2.0 * w4 / (s->rho[0] > cut ? s->rho[0] : cut);
    if (w3 * w4 > *v) *v = w3 * w4;
  }
}

/* The limited edge viscosity coefficient of faces 0..3 (evisc) and the element's viscous sound speed term
 * (visc), from the element's edges and two edges of each of its four neighbours (s's). */
UM_KERNEL void bl_visc_limit_edges(const bl_edges *s, double *evisc, double *visc) {
  double v = 0.0; /* a local: through visc, each update would be a store the evisc stores may alias */
  bl_visc_side(s, 0, evisc, &v), bl_visc_side(s, 1, evisc, &v);
  visc[0] = v;
}

/* The limiter from bl_visc_init's rows: the element's own (e) and its four neighbours' (n0..n3, el_el). */
UM_KERNEL void bl_visc_limit(const double *e, const double *n0, const double *n1, const double *n2, const double *n3,
                             const int *nbr, const double *rho, const double *r0, const double *r1, const double *r2,
                             const double *r3, const double *cs2, const double *c0, const double *c1,
                             const double *c2, const double *c3, double *evisc, double *visc) {
  const bl_edges s = {0, e, {n0, n1, n2, n3}, nbr, {0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0, rho, {r0, r1, r2, r3}, cs2,
                      {c0, c1, c2, c3}};
  bl_visc_limit_edges(&s, evisc, visc);
}

/* Corner viscous forces from the edge coefficients (upstream's geteviscosity). */
UM_KERNEL void bl_visc_force(const double *x0, const double *x1, const double *x2, const double *x3,
                             const double *u0, const double *u1, const double *u2, const double *u3,
                             const double *evisc, double *cnvisc) {
  const double *x[4] = {x0, x1, x2, x3}, *u[4] = {u0, u1, u2, u3};
  const double cut = bl_cut[1];
  double ex[4], ey[4];
  const double xc = 0.25 * (x0[0] + x1[0] + x2[0] + x3[0]), yc = 0.25 * (x0[1] + x1[1] + x2[1] + x3[1]);
  for (int f = 0; f < 4; f++) {
    const int g = (f + 1) % 4;
    double w1 = x[f][0], w2 = x[g][0];
    const double w3 = 0.5 * (w1 + w2);
    w1 = w2 - w1;
    double w4 = x[f][1], w5 = x[g][1];
    const double w6 = 0.5 * (w4 + w5);
    w4 = w5 - w4;
    const double w7 = sqrt((xc - w3) * (xc - w3) + (yc - w6) * (yc - w6));
    const double w8 = sqrt(w1 * w1 + w4 * w4);
    double den = 1.0 / w7;
    double xhat = (yc - w6) * den, yhat = (w3 - xc) * den;
    den = 1.0 / w8;
    const double t = xhat * (w1 * den) + yhat * (w4 * den);
    den = -copysign(1.0, t) * w7;
    xhat *= den;
    yhat *= den;
    const double uhat = u[g][0] - u[f][0], vhat = u[g][1] - u[f][1];
    const double m = sqrt(uhat * uhat + vhat * vhat), p = uhat * xhat + vhat * yhat;
    den = p / (m > cut ? m : cut);
    ex[f] = evisc[f] * uhat * den;
    ey[f] = evisc[f] * vhat * den;
    if (m <= cut || p <= cut || w7 <= cut || w8 <= cut) ex[f] = ey[f] = 0.0;
  }
  for (int c = 0; c < 4; c++) {
    const int b = (c + 3) % 4;
    cnvisc[c] = ex[c] - ex[b];
    cnvisc[4 + c] = ey[c] - ey[b];
  }
}

/* The edge viscosity in one pass (params.visc: fused): bl_visc_init, bl_visc_limit and bl_visc_force, edges from
 * the nodes (bl_edges), coefficients in registers: visc and cnvisc, the three loops' bits. */
UM_KERNEL void bl_visc(const double *x0, const double *x1, const double *x2, const double *x3, const double *u0,
                       const double *u1, const double *u2, const double *u3, const um_vec *vx, const um_vec *vu,
                       const int *nbr, const double *rho, const double *r0, const double *r1, const double *r2,
                       const double *r3, const double *cs2, const double *c0, const double *c1, const double *c2,
                       const double *c3, double *visc, double *cnvisc) {
  const bl_edges s = {1, 0, {0, 0, 0, 0}, nbr, {x0, x1, x2, x3}, {u0, u1, u2, u3}, vx, vu, rho, {r0, r1, r2, r3},
                      cs2, {c0, c1, c2, c3}};
  double evisc[4];
  bl_visc_limit_edges(&s, evisc, visc);
  bl_visc_force(x0, x1, x2, x3, u0, u1, u2, u3, evisc, cnvisc);
}

/* ---- time step ------------------------------------------------------------ */

/* Upstream's length scales of a quadrilateral (geometry_kn_dln / dlm). */
UM_KERNEL double bl_min_length2(const double *x0, const double *x1, const double *x2, const double *x3, int mid) {
  const double X[4] = {x0[0], x1[0], x2[0], x3[0]}, Y[4] = {x0[1], x1[1], x2[1], x3[1]};
  double r = 0.0;
  if (mid) {
    double a = 0.5 * ((X[0] + X[1]) - (X[2] + X[3])), b = 0.5 * ((Y[0] + Y[1]) - (Y[2] + Y[3]));
    const double r1 = a * a + b * b;
    a = 0.5 * ((X[2] + X[1]) - (X[0] + X[3]));
    b = 0.5 * ((Y[2] + Y[1]) - (Y[0] + Y[3]));
    const double r2 = a * a + b * b;
    return r1 < r2 ? r1 : r2;
  }
  for (int i = 0; i < 4; i++) {
    const int p = i, q = (i + 1) % 4, s = (i + 2) % 4, t = (i + 3) % 4;
    const double dy = Y[s] - Y[t], dx = X[s] - X[t], w1 = dy * dy + dx * dx;
    double d;
    if (w1 < bl_cut[0]) {
      const double a = 0.5 * (X[p] + X[q]) - X[s], b = 0.5 * (Y[p] + Y[q]) - Y[s];
      d = a * a + b * b;
    } else {
      d = 0.5 * (Y[s] - Y[t]) * (X[p] + X[q]) + 0.5 * (Y[p] + Y[q]) * (X[t] - X[s]) + Y[t] * X[s] - Y[s] * X[t];
      d = d * d / w1;
    }
    if (i == 0 || d < r) r = d;
  }
  return r;
}

/* CFL: the squared length over the sound speed squared (with the viscous term);
 * regions with zdtnotreg take no part (HUGE), zmidlength regions use the median lengths. */
UM_KERNEL void bl_dt_cfl(const double *x0, const double *x1, const double *x2, const double *x3, const double *cs2,
                         const double *visc, const int *reg, double *scratch, double *wmin) {
  const int f = bl_dtreg[reg[0]];
  const double w = (f & 1) ? BL_HUGE : bl_min_length2(x0, x1, x2, x3, f & 2) / (cs2[0] + visc[0]);
  scratch[0] = w;
  if (w < wmin[0]) wmin[0] = w;
}

/* Divergence: |div u| / volume. */
UM_KERNEL void bl_dt_div(const double *u0, const double *u1, const double *u2, const double *u3, const double *iso,
                         const double *vol, double *scratch, double *wmax) {
  const double a1 = iso[0], a3 = iso[1], b1 = iso[2], b3 = iso[3];
  double w = u0[0] * (-b3 + b1) + u0[1] * (a3 - a1) + u1[0] * (b3 + b1) + u1[1] * (-a3 - a1) + u2[0] * (b3 - b1) +
             u2[1] * (-a3 + a1) + u3[0] * (-b3 - b1) + u3[1] * (a3 + a1);
  w = fabs(w) / vol[0];
  scratch[0] = w;
  if (w > wmax[0]) wmax[0] = w;
}

/* The lowest element number holding `value` (the first controlling element, as upstream picks it). */
UM_KERNEL void bl_argfind(const double *scratch, const int *id, const double *value, int *first) {
  if (scratch[0] == value[0] && id[0] < first[0]) first[0] = id[0];
}

/* ---- forces ----------------------------------------------------------------- */

UM_KERNEL void bl_force(const double *p, const double *iso, const double *cnvisc, double *cnf) {
  const double w = p[0], a1 = iso[0], a3 = iso[1], b1 = iso[2], b3 = iso[3];
  cnf[0] = w * (-b3 + b1) + cnvisc[0];
  cnf[1] = w * (b3 + b1) + cnvisc[1];
  cnf[2] = w * (b3 - b1) + cnvisc[2];
  cnf[3] = w * (-b3 - b1) + cnvisc[3];
  cnf[4] = w * (a3 - a1) + cnvisc[4];
  cnf[5] = w * (-a3 - a1) + cnvisc[5];
  cnf[6] = w * (-a3 + a1) + cnvisc[6];
  cnf[7] = w * (a3 + a1) + cnvisc[7];
}

/* The hourglass filter (upstream's getforcehg): kappa of the region, corrector only. */
UM_KERNEL void bl_hg(const int *reg, const double *rho, const double *vol, const double *u0, const double *u1,
                     const double *u2, const double *u3, double dt, double *cnf) {
  const double w2 = u0[0] - u1[0] + u2[0] - u3[0], w3 = u0[1] - u1[1] + u2[1] - u3[1];
  const double w1 = -bl_kappa[reg[0]] * rho[0] * vol[0] * (1.0 / dt);
  const double hx = w1 * w2, hy = w1 * w3;
  cnf[0] += hx, cnf[1] -= hx, cnf[2] += hx, cnf[3] -= hx;
  cnf[4] += hy, cnf[5] -= hy, cnf[6] += hy, cnf[7] -= hy;
}

/* The corrector's force adds the hourglass filter (kappa per region). */
UM_KERNEL void bl_force_hg(const double *p, const double *iso, const double *cnvisc, const int *reg,
                           const double *rho, const double *vol, const double *u0, const double *u1,
                           const double *u2, const double *u3, const double *dt, double *cnf) {
  bl_force(p, iso, cnvisc, cnf);
  bl_hg(reg, rho, vol, u0, u1, u2, u3, dt[0], cnf);
}

/* The iso-parametric terms {a1, a3, b1, b3} of sub-zone j (corner j, the midpoints of its two edges,
 * the centroid xc, yc); the sub-zone's volume is 4 (a1 b3 - a3 b1). */
UM_KERNEL void bl_subzone(const double *cx, const double *cy, double xc, double yc, int j, double *w) {
  const double xa = cx[j], ya = cy[j];
  const int n = (j + 1) % 4, b = (j + 3) % 4;
  const double xb = 0.5 * (xa + cx[n]), yb = 0.5 * (ya + cy[n]);
  const double xd = 0.5 * (xa + cx[b]), yd = 0.5 * (ya + cy[b]);
  w[0] = 0.25 * (-xa + xb + xc - xd), w[1] = 0.25 * (-xa - xb + xc + xd);
  w[2] = 0.25 * (-ya + yb + yc - yd), w[3] = 0.25 * (-ya - yb + yc + yd);
}

/* Mass of each of the four sub-zones at the initial density (upstream's spmassinit; run on the host). */
UM_KERNEL void bl_subzones(const double *cx, const double *cy, double rho, double *spmass) {
  const double xc = 0.25 * (cx[0] + cx[1] + cx[2] + cx[3]), yc = 0.25 * (cy[0] + cy[1] + cy[2] + cy[3]);
  for (int j = 0; j < 4; j++) {
    double w[4];
    bl_subzone(cx, cy, xc, yc, j, w);
    spmass[j] = 4.0 * rho * (w[0] * w[3] - w[1] * w[2]);
  }
}

/* The force with sub-zonal pressures (upstream's getforcesp, pmerit per region):
 * each sub-zone's density against the element's, times the sound speed squared
 * (par[1] = 1: with this step's viscous term, as upstream's predictor sees it),
 * distributed to the corners; then the hourglass filter where par[2] = 1
 * (par[0] = dt). */
UM_KERNEL void bl_force_sp(const double *p, const double *iso, const double *cnvisc, const int *reg,
                           const double *rho, const double *cs2, const double *visc, const double *spmass,
                           const double *x0, const double *x1, const double *x2, const double *x3,
                           const double *vol, const double *u0, const double *u1, const double *u2, const double *u3,
                           const double *par, double *cnf) {
  bl_force(p, iso, cnvisc, cnf);
  const double cx[4] = {x0[0], x1[0], x2[0], x3[0]}, cy[4] = {x0[1], x1[1], x2[1], x3[1]};
  const double c2 = par[1] != 0.0 ? cs2[0] + visc[0] : cs2[0], pm = bl_pmerit[reg[0]];
  const double xc = 0.25 * (cx[0] + cx[1] + cx[2] + cx[3]), yc = 0.25 * (cy[0] + cy[1] + cy[2] + cy[3]);
  double lfx[4][4], lfy[4][4];
  for (int j = 0; j < 4; j++) {
    double w[4];
    bl_subzone(cx, cy, xc, yc, j, w);
    const double w3 = w[0], w4 = w[1], w5 = w[2], w6 = w[3];
    double w2 = 4.0 * (w3 * w6 - w4 * w5);
    w2 = spmass[j] / w2;
    w2 = w2 - rho[0];
    w2 = c2 * w2;
    lfx[j][0] = w2 * (w5 - w6), lfx[j][1] = w2 * (w5 + w6), lfx[j][2] = w2 * (-w5 + w6), lfx[j][3] = w2 * (-w5 - w6);
    lfy[j][0] = w2 * (-w3 + w4), lfy[j][1] = w2 * (-w3 - w4), lfy[j][2] = w2 * (w3 - w4), lfy[j][3] = w2 * (w3 + w4);
  }
  for (int k = 0; k < 2; k++) {
    double (*l)[4] = k ? lfy : lfx;
    double *f = cnf + 4 * k;
    const double w2 = 0.5 * (l[0][3] + l[3][1]), w3 = 0.5 * (l[0][1] + l[1][3]);
    const double w4 = 0.5 * (l[1][1] + l[2][3]), w5 = 0.5 * (l[3][3] + l[2][1]);
    const double w6 = 0.25 * (l[0][2] + l[1][2] + l[2][2] + l[3][2]);
    f[0] = f[0] + pm * (l[0][0] + w2 + w3 + w6);
    f[1] = f[1] + pm * (l[1][0] + w4 + w3 + w6);
    f[2] = f[2] + pm * (l[2][0] + w4 + w5 + w6);
    f[3] = f[3] + pm * (l[3][0] + w2 + w5 + w6);
  }
  if (par[2] != 0.0) bl_hg(reg, rho, vol, u0, u1, u2, u3, par[0], cnf);
}

/* ---- state ---------------------------------------------------------------- */

UM_KERNEL void bl_copy(const double *a, double *b) { b[0] = a[0]; }

/* An element's four corners of a nodal 2-vector, in its node order (the tables by blocks read them per element). */
UM_KERNEL void bl_corners(const double *n0, const double *n1, const double *n2, const double *n3, double *out) {
  out[0] = n0[0], out[1] = n0[1], out[2] = n1[0], out[3] = n1[1];
  out[4] = n2[0], out[5] = n2[1], out[6] = n3[0], out[7] = n3[1];
}

/* Nodes move by half a step at the node velocity (predictor: u^n, corrector: u^n+1). */
UM_KERNEL void bl_move(const double *u, const double *half_dt, double *x) {
  x[0] += half_dt[0] * u[0];
  x[1] += half_dt[0] * u[1];
}

/* Geometry (iso-parametric terms, corner weights, volume) and density; vmin: smallest volume. */
UM_KERNEL void bl_geom(const double *x0, const double *x1, const double *x2, const double *x3, const double *mass,
                       double *iso, double *cnwt, double *vol, double *rho, double *vmin) {
  const double cx[4] = {x0[0], x1[0], x2[0], x3[0]}, cy[4] = {x0[1], x1[1], x2[1], x3[1]};
  const double a1 = 0.25 * (-cx[0] + cx[1] + cx[2] - cx[3]), a2 = 0.25 * (cx[0] - cx[1] + cx[2] - cx[3]);
  const double a3 = 0.25 * (-cx[0] - cx[1] + cx[2] + cx[3]), b1 = 0.25 * (-cy[0] + cy[1] + cy[2] - cy[3]);
  const double b2 = 0.25 * (cy[0] - cy[1] + cy[2] - cy[3]), b3 = 0.25 * (-cy[0] - cy[1] + cy[2] + cy[3]);
  const double n9 = 1.0 / 9.0;
  iso[0] = a1, iso[1] = a3, iso[2] = b1, iso[3] = b3;
  cnwt[0] = n9 * ((3.0 * b3 - b2) * (3.0 * a1 - a2) - (3.0 * a3 - a2) * (3.0 * b1 - b2));
  cnwt[1] = n9 * ((3.0 * b3 + b2) * (3.0 * a1 - a2) - (3.0 * a3 + a2) * (3.0 * b1 - b2));
  cnwt[2] = n9 * ((3.0 * b3 + b2) * (3.0 * a1 + a2) - (3.0 * a3 + a2) * (3.0 * b1 + b2));
  cnwt[3] = n9 * ((3.0 * b3 - b2) * (3.0 * a1 + a2) - (3.0 * a3 - a2) * (3.0 * b1 + b2));
  const double v = 4.0 * (a1 * b3 - a3 * b1);
  vol[0] = v;
  rho[0] = mass[0] / v;
  if (v < vmin[0]) vmin[0] = v;
}

/* Internal energy from the work of the corner forces (dts: half a step in the predictor). */
UM_KERNEL void bl_energy(const double *cnf, const double *u0, const double *u1, const double *u2, const double *u3,
                         const double *mass, const double *dts, double *e) {
  double w = cnf[0] * u0[0] + cnf[4] * u0[1] + cnf[1] * u1[0] + cnf[5] * u1[1] + cnf[2] * u2[0] + cnf[6] * u2[1] +
             cnf[3] * u3[0] + cnf[7] * u3[1];
  w = -w / (mass[0] > bl_cut[1] ? mass[0] : bl_cut[1]);
  e[0] += w * dts[0];
}

/* Equations of state (upstream's eos_kn_getpressure / getcs2): P = eos_param(1..6, m). */
UM_KERNEL double bl_eos_pressure(int m, double rho, double e) {
  const double *P = bl_eos_param + BL_EOS_NP * m;
  double pr;
  if (bl_eos_type[m] == 0) pr = P[0]; /* void */
  else if (bl_eos_type[m] == 1) pr = e * rho * (P[0] - 1.0); /* ideal gas */
  else if (bl_eos_type[m] == 2) { /* Tait: a ((rho/rho0)^b - 1), at least pmin */
    const double t1 = rho / P[2];
    pr = P[0] * (pow(t1, P[1]) - 1.0);
    pr = pr > P[3] ? pr : P[3];
  } else if (bl_eos_type[m] == 3) { /* JWL: omega, A, B, R1, R2, rho0 */
    const double t1 = P[3] * P[5] / rho, t2 = P[4] * P[5] / rho, t3 = P[0] * rho * e;
    const double t4 = (1.0 - P[0] / t1) * P[1] * exp(-t1), t5 = (1.0 - P[0] / t2) * P[2] * exp(-t2);
    pr = t3 + t4 + t5;
  } else pr = -1.0;
  if (fabs(pr) < bl_cut[4]) pr = 0.0;
  return pr;
}

UM_KERNEL double bl_eos_cs2(int m, double rho, double e) {
  const double *P = bl_eos_param + BL_EOS_NP * m;
  const double ccut = bl_cut[5];
  double c;
  if (bl_eos_type[m] == 1) c = P[0] * (P[0] - 1.0) * e;
  else if (bl_eos_type[m] == 2) {
    const double t1 = rho / P[2], t2 = P[1] - 1.0;
    c = (P[0] * P[1]) / P[2];
    c = c * pow(t1, t2);
  } else if (bl_eos_type[m] == 3) {
    const double t1 = P[5] / rho, t2 = bl_eos_pressure(m, rho, e);
    double t3 = P[3] * t1, t4 = P[0] / P[3] + P[0] * t1 - t3 * t1;
    t4 = t4 * P[1] * exp(-t3);
    t3 = P[4] * t1;
    double t5 = P[0] / P[4] + P[0] * t1 - t3 * t1;
    t5 = t5 * P[2] * exp(-t3);
    c = P[0] * t2 / rho + P[0] * e - t4 - t5;
  } else c = ccut; /* void, unknown */
  return c > ccut ? c : ccut;
}

/* Pressure and sound speed squared of each element. */
UM_KERNEL void bl_eos(const int *mat, const double *rho, const double *e, double *p, double *cs2) {
  if (mat[0] < 0) { /* a mixed cell: upstream's material 0, void of pressure 0 (its components carry the EOS) */
    p[0] = 0.0;
    cs2[0] = bl_cut[5];
    return;
  }
  p[0] = bl_eos_pressure(mat[0], rho[0], e[0]);
  cs2[0] = bl_eos_cs2(mat[0], rho[0], e[0]);
}

/* ---- acceleration: the corner -> node increments (getacc_scatter) ------------ */

UM_KERNEL void bl_zero4(double *a) { a[0] = a[1] = a[2] = a[3] = 0.0; }

/* The contribution of corner c of an element: mass, area, force. */
UM_KERNEL void bl_corner(const double *rho, const double *cnwt, const double *cnmass, const double *cnf, int c,
                         double *acc) {
  const double cut = bl_cut[1];
  double m;
  if (cnmass[c] > cut) m = cnmass[c];
  else {
    const int b = (c + 3) % 4;
    m = cnmass[b] > cut ? cnmass[b] : rho[0] * cnwt[c];
  }
  acc[0] += m;
  acc[1] += cnwt[c];
  acc[2] += cnf[c];
  acc[3] += cnf[4 + c];
}

/* All four corners of an element in one loop, incremented through el_nodes. */
UM_KERNEL void bl_scatter(const double *rho, const double *cnwt, const double *cnmass, const double *cnf, double *a0,
                          double *a1, double *a2, double *a3) {
  bl_corner(rho, cnwt, cnmass, cnf, 0, a0);
  bl_corner(rho, cnwt, cnmass, cnf, 1, a1);
  bl_corner(rho, cnwt, cnmass, cnf, 2, a2);
  bl_corner(rho, cnwt, cnmass, cnf, 3, a3);
}

/* Upstream's scheme: one pass per corner (corner 1 of every element, then corner 2, ...). */
UM_KERNEL void bl_scatter_corner(const double *rho, const double *cnwt, const double *cnmass, const double *cnf,
                                 const int *corner, double *a) {
  bl_corner(rho, cnwt, cnmass, cnf, corner[0], a);
}

/* Node accelerations, boundary conditions, new velocity u and the step's mean velocity ubar. */
UM_KERNEL void bl_accel(const double *acc, const int *type, const double *dt, double *u, double *ubar) {
  const double w1 = bl_cut[2] * acc[1];
  double ax = 0.0, ay = 0.0;
  if (acc[0] > w1) {
    ax = acc[2] / acc[0];
    ay = acc[3] / acc[0];
  }
  const int t = type[0];
  if (t == -1 || t == -3) ax = 0.0;
  if (t == -2 || t == -3) ay = 0.0;
  if (ax * ax + ay * ay < bl_cut[3] * bl_cut[3]) ax = ay = 0.0;
  const double u0 = u[0], v0 = u[1];
  u[0] = u0 + dt[0] * ax;
  u[1] = v0 + dt[0] * ay;
  ubar[0] = u0 + 0.5 * dt[0] * ax;
  ubar[1] = v0 + 0.5 * dt[0] * ay;
}

/* params.scheme=gather: a node adds the corners of its elements (slot order = element order, as the inc
 * scheme's increments arrive on seq; corner[s] < 0: an empty slot) and applies its acceleration in the same
 * pass: no increments. */
UM_KERNEL void bl_gather_accel(const double *r0, const double *r1, const double *r2, const double *r3,
                               const double *w0, const double *w1, const double *w2, const double *w3,
                               const double *m0, const double *m1, const double *m2, const double *m3,
                               const double *f0, const double *f1, const double *f2, const double *f3,
                               const int *corner, const int *type, const double *dt, double *u, double *ubar) {
  const double *r[4] = {r0, r1, r2, r3}, *w[4] = {w0, w1, w2, w3}, *m[4] = {m0, m1, m2, m3}, *f[4] = {f0, f1, f2, f3};
  double acc[4] = {0.0, 0.0, 0.0, 0.0};
  for (int s = 0; s < 4; s++)
    if (corner[s] >= 0) bl_corner(r[s], w[s], m[s], f[s], corner[s], acc);
  bl_accel(acc, type, dt, u, ubar);
}

/* ---- fused loops (params.fused): the loops they replace, called in the same order in one pass ----------- */

/* The predictor after the nodes moved: the corner forces of the step's start (old p and iso, kept in
 * registers), the geometry at the moved nodes, the energy (e0 keeps the step's start: energy_save) and the EOS. */
UM_KERNEL void bl_state_predictor(const double *cnvisc, const double *x0, const double *x1, const double *x2,
                                  const double *x3, const double *u0, const double *u1, const double *u2,
                                  const double *u3, const double *mass, const double *dts, const int *mat, double *p,
                                  double *iso, double *cnwt, double *vol, double *rho, double *e, double *e0,
                                  double *cs2, double *vmin) {
  double cnf[8];
  bl_force(p, iso, cnvisc, cnf);
  bl_geom(x0, x1, x2, x3, mass, iso, cnwt, vol, rho, vmin);
  e0[0] = e[0];
  bl_energy(cnf, u0, u1, u2, u3, mass, dts, e);
  bl_eos(mat, rho, e, p, cs2);
}

/* The corrector after the nodes moved: geometry, the energy from the step's start (energy_restore) and the EOS. */
UM_KERNEL void bl_state_corrector(const double *x0, const double *x1, const double *x2, const double *x3,
                                  const double *u0, const double *u1, const double *u2, const double *u3,
                                  const double *mass, const double *dts, const int *mat, const double *cnf,
                                  const double *e0, double *iso, double *cnwt, double *vol, double *rho, double *e,
                                  double *p, double *cs2, double *vmin) {
  bl_geom(x0, x1, x2, x3, mass, iso, cnwt, vol, rho, vmin);
  e[0] = e0[0];
  bl_energy(cnf, u0, u1, u2, u3, mass, dts, e);
  bl_eos(mat, rho, e, p, cs2);
}

/* ---- mixed-material cells (bookleaf_mix.c): components, upstream's cp* arrays --------------------------- */

/* A component's pressure and sound speed squared (its material's EOS). */
UM_KERNEL void bl_mix_eos(const int *mat, const double *rho, const double *e, double *p, double *cs2) {
  bl_eos(mat, rho, e, p, cs2);
}

/* A component's corner forces: its pressure on its cell's geometry (upstream's getforcep on the cell's iso terms;
 * a component has no viscous force: upstream 2.0.1's component viscosity is commented out). */
UM_KERNEL void bl_mix_force(const double *p, const double *iso, double *cpf) {
  const double none[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  bl_force(p, iso, none, cpf);
}

/* A component after its cell's geometry: volume (its fixed fraction of the cell's), density, energy from the work of
 * its forces at its fraction of the corner velocities (not restored at the corrector, as upstream), EOS. */
UM_KERNEL void bl_mix_state(const double *vol, const double *u0, const double *u1, const double *u2, const double *u3,
                            const double *fr, const double *mass, const double *cpf, const double *dts,
                            const int *mat, double *cpvol, double *rho, double *e, double *p, double *cs2) {
  const double f = fr[0], v = f * vol[0];
  const double w0[2] = {f * u0[0], f * u0[1]}, w1[2] = {f * u1[0], f * u1[1]}, w2[2] = {f * u2[0], f * u2[1]},
               w3[2] = {f * u3[0], f * u3[1]};
  cpvol[0] = v;
  rho[0] = mass[0] / v;
  bl_energy(cpf, w0, w1, w2, w3, mass, dts, e);
  bl_eos(mat, rho, e, p, cs2);
}

/* A mixed cell's sound speed for the CFL limit: its components' mass-weighted (upstream's getcs2; no viscous term). */
UM_KERNEL void bl_mix_cs2(const int *n, const um_vec *frm, const um_vec *cpcs2, double *cs2, double *visc) {
  double w = 0.0;
  for (int j = 0; j < n[0]; j++) w += UM_VEC_D(frm, j, 0) * UM_VEC_D(cpcs2, j, 0);
  cs2[0] = w;
  visc[0] = 0.0;
}

/* A mixed cell's corner forces: its components' by volume fraction (upstream's initacceleration), in place of its own. */
UM_KERNEL void bl_mix_cnf(const int *n, const um_vec *fr, const um_vec *cpf, double *cnf) {
  for (int c = 0; c < 8; c++) {
    double w = 0.0;
    for (int j = 0; j < n[0]; j++) w += UM_VEC_D(fr, j, 0) * UM_VEC_D(cpf, j, c);
    cnf[c] = w;
  }
}

#endif
