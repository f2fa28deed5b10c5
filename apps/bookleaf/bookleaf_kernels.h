/* BookLeaf on um: the kernels of the Lagrangian step (BookLeaf 2.0's
 * compatible finite-element hydrodynamics on quadrilaterals), written once,
 * valid C and CUDA device code.
 *
 * Elements have four corners (counter-clockwise, reached through el_nodes)
 * and four faces (face f joins corners f and f+1; its neighbour is reached
 * through el_el, the element itself on a boundary). Per-element corner data
 * are stored [4] (or [8] = x[4], y[4]); node coordinates and velocities are
 * [2] = (x, y), (u, v).
 *
 * Constants (upstream's &CUTOFF and per-material/region tables) are
 * published with um_decl_const before the first loop. */
#ifndef BOOKLEAF_KERNELS_H
#define BOOKLEAF_KERNELS_H
#include "um/kernel.h"

#define BL_NMAT_MAX 16
UM_CONST double bl_cut[6];                  /* zcut, zerocut, dencut, accut, pcut, ccut */
UM_CONST double bl_visc_coef[2];            /* cvisc1, cvisc2                           */
UM_CONST int bl_eos_type[BL_NMAT_MAX];      /* 0 void, 1 ideal gas                      */
UM_CONST double bl_eos_param[BL_NMAT_MAX];  /* gamma (ideal gas) or pressure (void)     */
UM_CONST double bl_kappa[BL_NMAT_MAX];      /* hourglass coefficient per region         */

/* ---- artificial viscosity (upstream's edge viscosity with the limiter) --- */

/* Edge differences of velocity and position: edge[0..3] du, [4..7] dv, [8..11] dx, [12..15] dy. */
UM_KERNEL void bl_visc_init(const double *x0, const double *x1, const double *x2, const double *x3,
                            const double *u0, const double *u1, const double *u2, const double *u3, double *edge) {
  const double *x[4] = {x0, x1, x2, x3}, *u[4] = {u0, u1, u2, u3};
  for (int f = 0; f < 4; f++) {
    const int g = (f + 1) % 4;
    edge[f] = u[g][0] - u[f][0];
    edge[4 + f] = u[g][1] - u[f][1];
    edge[8 + f] = x[g][0] - x[f][0];
    edge[12 + f] = x[g][1] - x[f][1];
  }
}

UM_KERNEL double bl_sgnmax(double den, double cut) {
  const double a = fabs(den) > cut ? fabs(den) : cut;
  return copysign(a, den); /* Fortran SIGN(MAX(ABS(den), cut), den), signed zeros as gfortran */
}

/* The ratio of a neighbour's velocity gradient along (xhat, yhat) to ours. */
UM_KERNEL double bl_ratio(const double *e, int f, double uhat, double vhat, double xhat, double yhat, double cut) {
  const double den = e[8 + f] * xhat + e[12 + f] * yhat;
  return (e[f] * uhat + e[4 + f] * vhat) / bl_sgnmax(den, cut);
}

/* The limited edge viscosity coefficient of faces 0..3 (evisc) and the
 * element's viscous sound speed term (visc), from the element's own edges and
 * those of its four neighbours. nbr[0..3]: the neighbour's face that faces
 * back; nbr[4..7]: 1 if face f is on the boundary (neighbour = self), +2 if
 * both its nodes are boundary nodes. */
UM_KERNEL void bl_visc_limit(const double *e, const double *n0, const double *n1, const double *n2, const double *n3,
                             const int *nbr, const double *rho, const double *r0, const double *r1, const double *r2,
                             const double *r3, const double *cs2, const double *c0, const double *c1,
                             const double *c2, const double *c3, double *evisc, double *visc) {
  const double *ne[4] = {n0, n1, n2, n3}, *nr[4] = {r0, r1, r2, r3}, *nc[4] = {c0, c1, c2, c3};
  const double cut = bl_cut[1], cv1 = bl_visc_coef[0], cv2 = bl_visc_coef[1];
  double v = 0.0;
  for (int iside = 0; iside < 2; iside++) {
    const int is1 = (iside + 3) % 4, is2 = iside + 1, f1 = iside, f2 = iside + 2;
    double sc[4];
    for (int h = 0; h < 2; h++) { /* h = 0: edge is1, h = 1: edge is2 */
      const int is = h ? is2 : is1;
      double w1 = e[is], w2 = e[4 + is], w3 = e[8 + is], w4 = e[12 + is];
      double den = sqrt(w1 * w1 + w2 * w2);
      den = 1.0 / (den > cut ? den : cut);
      const double uhat = w1 * den, vhat = w2 * den;
      den = sqrt(w3 * w3 + w4 * w4);
      den = 1.0 / (den > cut ? den : cut);
      const double xhat = w3 * den, yhat = w4 * den;
      den = w3 * xhat + w4 * yhat;
      w1 = (w1 * uhat + w2 * vhat) / bl_sgnmax(den, cut);
      w1 = 1.0 / bl_sgnmax(w1, cut);
      const int a1 = h ? (nbr[f1] + 3) % 4 : (nbr[f1] + 1) % 4;
      const int a2 = h ? (nbr[f2] + 1) % 4 : (nbr[f2] + 3) % 4;
      sc[2 * h] = bl_ratio(ne[f1], a1, uhat, vhat, xhat, yhat, cut) * w1;
      sc[2 * h + 1] = bl_ratio(ne[f2], a2, uhat, vhat, xhat, yhat, cut) * w1;
    }
    const int self1 = nbr[4 + f1] & 1, self2 = nbr[4 + f2] & 1;
    if (self1) sc[0] = sc[2] = ((nbr[4 + f1] & 2) && !self2) ? 1.0 : 0.0;
    if (self2) sc[1] = sc[3] = ((nbr[4 + f2] & 2) && !self1) ? 1.0 : 0.0;
    for (int h = 0; h < 2; h++) {
      const int is = h ? is2 : is1;
      const double w1 = cv1 * sqrt(0.5 * (cs2[0] + nc[is][0]));
      double w2 = sc[2 * h], w3 = sc[2 * h + 1];
      double lim = 0.5 * (w2 + w3);
      if (2.0 * w2 < lim) lim = 2.0 * w2;
      if (2.0 * w3 < lim) lim = 2.0 * w3;
      if (1.0 < lim) lim = 1.0;
      if (lim < 0.0) lim = 0.0;
      double w4 = sqrt(e[is] * e[is] + e[4 + is] * e[4 + is]);
      w3 = 0.5 * (1.0 - lim) * (rho[0] + nr[is][0]) * (w1 + cv2 * w4);
      evisc[is] = w3;
      w4 = 2.0 * w4 / (rho[0] > cut ? rho[0] : cut);
      if (w3 * w4 > v) v = w3 * w4;
    }
  }
  visc[0] = v;
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

/* CFL: the squared length over the sound speed squared (with the viscous term). */
UM_KERNEL void bl_dt_cfl(const double *x0, const double *x1, const double *x2, const double *x3, const double *cs2,
                         const double *visc, const int *mid, double *scratch, double *wmin) {
  const double w = bl_min_length2(x0, x1, x2, x3, mid[0]) / (cs2[0] + visc[0]);
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

/* The corrector's force adds the hourglass filter (kappa per region). */
UM_KERNEL void bl_force_hg(const double *p, const double *iso, const double *cnvisc, const int *reg,
                           const double *rho, const double *vol, const double *u0, const double *u1,
                           const double *u2, const double *u3, const double *dt, double *cnf) {
  bl_force(p, iso, cnvisc, cnf);
  const double w2 = u0[0] - u1[0] + u2[0] - u3[0], w3 = u0[1] - u1[1] + u2[1] - u3[1];
  const double w1 = -bl_kappa[reg[0]] * rho[0] * vol[0] * (1.0 / dt[0]);
  const double hx = w1 * w2, hy = w1 * w3;
  cnf[0] += hx, cnf[1] -= hx, cnf[2] += hx, cnf[3] -= hx;
  cnf[4] += hy, cnf[5] -= hy, cnf[6] += hy, cnf[7] -= hy;
}

/* ---- state ---------------------------------------------------------------- */

UM_KERNEL void bl_copy(const double *a, double *b) { b[0] = a[0]; }

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

/* Equation of state: pressure and sound speed squared. */
UM_KERNEL void bl_eos(const int *mat, const double *rho, const double *e, double *p, double *cs2) {
  const int m = mat[0] > 0 ? mat[0] : 0;
  const double pcut = bl_cut[4], ccut = bl_cut[5], g = bl_eos_param[m];
  double pr, c;
  if (bl_eos_type[m] == 1) {
    pr = e[0] * rho[0] * (g - 1.0);
    c = g * (g - 1.0) * e[0];
  } else if (bl_eos_type[m] == 0) {
    pr = g;
    c = ccut;
  } else {
    pr = -1.0;
    c = ccut;
  }
  if (fabs(pr) < pcut) pr = 0.0;
  p[0] = pr;
  cs2[0] = c > ccut ? c : ccut;
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

#endif
