/* BookLeaf on um: the kernels of the ALE remap (Eulerian decks), written once, valid C and CUDA device code:
 * a kernel header of its own beside bookleaf_kernels.h (the Lagrangian step's), whose conventions it shares
 * (corners, faces, the neighbours' faces in nbr). Its constant, bl_cut, is bookleaf_kernels.h's (published by
 * bookleaf.c). */
#ifndef BOOKLEAF_ALE_KERNELS_H
#define BOOKLEAF_ALE_KERNELS_H
#include "um/kernel.h"

UM_CONST double bl_cut[6]; /* zcut, zerocut, dencut, accut, pcut, ccut */
/* ---- ALE remap (Eulerian decks): the mesh returns to where it was and the
 * state is advected across the faces (upstream's ale_kn_* with adv_type 1,
 * both directions at once). Faces f = 0..3 join corners f and f+1; nbr[f] is
 * the neighbour's face facing back, nbr[4 + f] & 1 says the neighbour is the
 * element itself (boundary). The limited-gradient flux functions keep
 * upstream's 1-based index arithmetic (F = f + 1) to stay recognisable. */

/* Nodes: keep the Lagrangian position, move back by the step's mean velocity (mesh velocity -ubar). */
UM_KERNEL void bl_ale_move(const double *ubar, const double *dt, double *x0, double *x) {
  x0[0] = x[0];
  x0[1] = x[1];
  x[0] += dt[0] * (-ubar[0]);
  x[1] += dt[0] * (-ubar[1]);
}

/* Volume swept by each face from the Lagrangian (x0) to the new (x) mesh, kept where positive. */
UM_KERNEL void bl_ale_fluxvol(const double *p0, const double *p1, const double *p2, const double *p3,
                              const double *q0, const double *q1, const double *q2, const double *q3,
                              double *fcdv) {
  const double *o[4] = {p0, p1, p2, p3}, *n[4] = {q0, q1, q2, q3};
  for (int f = 0; f < 4; f++) {
    const int g = (f + 1) % 4;
    const double x1 = o[f][0], x2 = o[g][0], y1 = o[f][1], y2 = o[g][1];
    const double x3 = n[g][0], x4 = n[f][0], y3 = n[g][1], y4 = n[f][1];
    const double a1 = (-x1 - x4) + (x3 + x2), a3 = (-x1 + x4) + (x3 - x2);
    const double b1 = (-y1 - y4) + (y3 + y2), b3 = (-y1 + y4) + (y3 - y2);
    double v = 0.25 * (a1 * b3 - a3 * b1);
    if (v < bl_cut[1]) v = 0.0;
    fcdv[f] = v;
  }
}

/* Sum of the flux through the element's faces: out through its own, in through its neighbours' (ale_kn_sumflux). */
UM_KERNEL double bl_ale_sumflux(const double *fc, const double *const *nfc, const int *nbr) {
  double s = 0.0;
  for (int i1 = 0; i1 < 2; i1++) {
    const int i2 = i1 + 2;
    const double w1 = (nbr[4 + i1] & 1) ? 0.0 : nfc[i1][nbr[i1]];
    const double w2 = (nbr[4 + i2] & 1) ? 0.0 : nfc[i2][nbr[i2]];
    s = s - fc[i1] - fc[i2] + w1 + w2;
  }
  return s;
}

/* Limited face fluxes of an element variable (ale_kn_fluxelvl): basis per corner (own and
 * neighbours'), face basis flux fcd, variable (own and neighbours'). */
UM_KERNEL void bl_ale_fluxel(const double *cb, const double *const *ncb, const double *fcd, const int *nbr,
                             double var, const double *const *nvar, double *flux) {
  for (int i1 = 0; i1 < 2; i1++) {
    const int i2 = i1 + 2;
    /* F: 1-based faces and corners as upstream */
    const int I1 = i1 + 1, I2 = i2 + 1;
    int J2 = nbr[i2] + 1, J1 = I2 % 4 + 1;
    const double r3 = cb[I2 - 1] + cb[J1 - 1];
    J1 = J2 % 4 + 1;
    const double w5 = r3 + ncb[i2][J2 - 1] + ncb[i2][J1 - 1];
    J2 = nbr[i1] + 1;
    J1 = I1 + 1;
    const double r4 = cb[I1 - 1] + cb[J1 - 1];
    J1 = J2 % 4 + 1;
    const double w6 = r4 + ncb[i1][J2 - 1] + ncb[i1][J1 - 1];
    const double rv = var;
    double r1 = fcd[i1], r2 = fcd[i2];
    const double w1 = rv - nvar[i2][0], w2 = nvar[i1][0] - rv;
    const double w3 = fabs(w1), w4 = fabs(w2), w7 = copysign(1.0, w2);
    const double w8 = (w1 * w6 * w6 + w2 * w5 * w5) / (w5 * w6 * (w5 + w6));
    double m = fabs(w8);
    if (w3 / w5 < m) m = w3 / w5;
    if (w4 / w6 < m) m = w4 / w6;
    double grad = w7 * m;
    if (w1 * w2 <= 0.0) grad = 0.0;
    r1 = r1 * (rv + grad * (r3 - 0.5 * r1));
    r2 = r2 * (rv - grad * (r4 - 0.5 * r2));
    flux[i1] = r1;
    flux[i2] = r2;
  }
}

/* Mass flux of each face: the volume flux times the limited density (basis: corner weights). */
UM_KERNEL void bl_ale_massflux(const double *cnwt, const double *w0, const double *w1, const double *w2,
                               const double *w3, const double *fcdv, const int *nbr, const double *rho,
                               const double *r0, const double *r1, const double *r2, const double *r3,
                               double *fcdm) {
  const double *nw[4] = {w0, w1, w2, w3}, *nr[4] = {r0, r1, r2, r3};
  bl_ale_fluxel(cnwt, nw, fcdv, nbr, rho[0], nr, fcdm);
}

/* Element volume, mass and density after the remap; the old volume and mass kept (vm0 = {vol, mass}). */
UM_KERNEL void bl_ale_update_basis(const double *fcdv, const double *v0, const double *v1, const double *v2,
                                   const double *v3, const double *fcdm, const double *m0, const double *m1,
                                   const double *m2, const double *m3, const int *nbr, double *vm0, double *vol,
                                   double *mass, double *rho) {
  const double *nv[4] = {v0, v1, v2, v3}, *nm[4] = {m0, m1, m2, m3};
  const double totv = bl_ale_sumflux(fcdv, nv, nbr), totm = bl_ale_sumflux(fcdm, nm, nbr);
  vm0[0] = vol[0];
  vm0[1] = mass[0];
  vol[0] = vol[0] + totv;
  mass[0] = mass[0] + totm;
  rho[0] = mass[0] / vol[0];
}

/* Energy flux of each face (basis: corner masses, face mass flux). */
UM_KERNEL void bl_ale_energyflux(const double *cnmass, const double *c0, const double *c1, const double *c2,
                                 const double *c3, const double *fcdm, const int *nbr, const double *e,
                                 const double *e0, const double *e1, const double *e2, const double *e3,
                                 double *flux) {
  const double *nc[4] = {c0, c1, c2, c3}, *ne[4] = {e0, e1, e2, e3};
  bl_ale_fluxel(cnmass, nc, fcdm, nbr, e[0], ne, flux);
}

/* Specific internal energy after the remap (ale_kn_updateel). */
UM_KERNEL void bl_ale_update_energy(const double *flux, const double *f0, const double *f1, const double *f2,
                                    const double *f3, const int *nbr, const double *vm0, const double *mass,
                                    double *e) {
  const double *nf[4] = {f0, f1, f2, f3};
  const double elflux = bl_ale_sumflux(flux, nf, nbr);
  if (mass[0] > vm0[0] * bl_cut[2]) e[0] = (e[0] * vm0[1] + elflux) / mass[0];
}

/* Nodal basis before the momentum remap: nb = {volume before, volume after, mass before, mass after},
 * incremented from the corners; cnm0 keeps the corner masses. */
UM_KERNEL void bl_ale_node_basis(const double *vm0, const double *vol, const double *cnmass, double *cnm0,
                                 double *n0, double *n1, double *n2, double *n3) {
  double *nb[4] = {n0, n1, n2, n3};
  const double w1 = 0.25 * vm0[0], w2 = 0.25 * vol[0];
  for (int c = 0; c < 4; c++) {
    cnm0[c] = cnmass[c];
    nb[c][0] += w1;
    nb[c][1] += w2;
    nb[c][2] += cnmass[c];
    nb[c][3] += cnmass[c];
  }
}

/* Corner volume and mass fluxes across the element's two median lines, and the corner mass change
 * (ale_kn_fluxbasisnd). */
UM_KERNEL void bl_ale_corner_flux(const double *fcdv, const double *v0, const double *v1, const double *v2,
                                  const double *v3, const double *fcdm, const double *m0, const double *m1,
                                  const double *m2, const double *m3, const int *nbr, double *cnd,
                                  double *cnflux) {
  const double *nv[4] = {v0, v1, v2, v3}, *nm[4] = {m0, m1, m2, m3};
  for (int c = 0; c < 4; c++) cnflux[c] = 0.0;
  for (int i1 = 0; i1 < 2; i1++) {
    const int i2 = i1 + 2;
    double w1 = nv[i1][nbr[i1]], w2 = nv[i2][nbr[i2]], w3 = nm[i1][nbr[i1]], w4 = nm[i2][nbr[i2]];
    if (nbr[4 + i1] & 1) w1 = 0.0, w3 = 0.0;
    if (nbr[4 + i2] & 1) w2 = 0.0, w4 = 0.0;
    w1 = w1 - fcdv[i1];
    w2 = w2 - fcdv[i2];
    w1 = 0.25 * (w1 - w2);
    cnd[i1] = w1; /* cndv */
    cnd[i2] = w1;
    w1 = w3 - fcdm[i1];
    w2 = w4 - fcdm[i2];
    w3 = 0.25 * (w1 - w2);
    cnd[4 + i1] = w3; /* cndm */
    cnd[4 + i2] = w3;
    w3 = 0.25 * (w1 + w2);
    cnflux[0] += w3;
    cnflux[1] += w3;
    cnflux[2] += w3;
    cnflux[3] += w3;
  }
}

/* Corner masses after the remap, and the nodes' new mass (nb[3]). */
UM_KERNEL void bl_ale_corner_mass(const double *cnflux, double *cnmass, double *n0, double *n1, double *n2,
                                  double *n3) {
  double *nb[4] = {n0, n1, n2, n3};
  for (int c = 0; c < 4; c++) {
    cnmass[c] = cnmass[c] + cnflux[c];
    nb[c][3] += cnflux[c];
  }
}

/* Element corner velocities (u[0..3], v[0..3]) for the momentum fluxes. */
UM_KERNEL void bl_ale_corner_u(const double *u0, const double *u1, const double *u2, const double *u3, double *cnu) {
  const double *u[4] = {u0, u1, u2, u3};
  for (int c = 0; c < 4; c++) cnu[c] = u[c][0], cnu[4 + c] = u[c][1];
}

/* One component of upstream's nodal flux (ale_kn_fluxndvl). cv: corner values of the element
 * (stride 1), ncv: of its neighbours. */
UM_KERNEL void bl_ale_fluxnd(const double *cb, const double *const *ncb, const double *cndm, const int *nbr,
                             const double *cv, const double *const *ncv, double *cnflux) {
  for (int c = 0; c < 4; c++) cnflux[c] = 0.0;
  for (int ilfcl = 1; ilfcl <= 2; ilfcl++) {
    const int ilfcr = ilfcl + 2;
    for (int icn = 1; icn <= 2; icn++) {
      const int ilndl = ilfcl + icn - 1, ilndr = (ilfcr - icn + 1) % 4 + 1;
      const int ifcl = nbr[ilfcl - 1] + 1, ifcr = nbr[ilfcr - 1] + 1;
      const double *cbl = ncb[ilfcl - 1], *cbr = ncb[ilfcr - 1], *cvl = ncv[ilfcl - 1], *cvr = ncv[ilfcr - 1];
      const int ii = ilfcl + 2 * (icn - 1);
      const double d = cndm[ii - 1];
      double rd = 0.0;
      if (d > 0.0) {
        const int ilnndl = (ifcl + icn) % 4 + 1, ilnndr = (ifcl - icn + 1) % 4 + 1;
        const double rv = cv[ilndl - 1];
        rd = cb[ilndl - 1] - 0.5 * d;
        const double w5 = cb[ilndl - 1] + cb[ilndr - 1], w6 = cbl[ilnndl - 1] + cbl[ilnndr - 1];
        const double w1 = rv - cvl[ilnndl - 1], w2 = cv[ilndr - 1] - rv;
        const double w3 = fabs(w1), w4 = fabs(w2), w7 = copysign(1.0, w2);
        const double w8 = (w2 * w6 * w6 + w1 * w5 * w5) / (w5 * w6 * (w5 + w6));
        double m = fabs(w8);
        if (w3 / w6 < m) m = w3 / w6;
        if (w4 / w5 < m) m = w4 / w5;
        double grad = w7 * m;
        if (w1 * w2 <= 0.0) grad = 0.0;
        rd = d * (rv + grad * rd);
      }
      if (d < 0.0) {
        const int ilnndl = (ifcr + icn - 2) % 4 + 1, ilnndr = ((ifcr - icn - 1) % 4 + 4) % 4 + 1;
        const double rv = cv[ilndr - 1];
        rd = cb[ilndr - 1] + 0.5 * d;
        const double w5 = cb[ilndl - 1] + cb[ilndr - 1], w6 = cbr[ilnndl - 1] + cbr[ilnndr - 1];
        const double w1 = rv - cv[ilndl - 1], w2 = cvr[ilnndr - 1] - rv;
        const double w3 = fabs(w1), w4 = fabs(w2), w7 = copysign(1.0, w2);
        const double w8 = (w1 * w6 * w6 + w2 * w5 * w5) / (w5 * w6 * (w5 + w6));
        double m = fabs(w8);
        if (w3 / w5 < m) m = w3 / w5;
        if (w4 / w6 < m) m = w4 / w6;
        double grad = -w7 * m;
        if (w1 * w2 <= 0.0) grad = 0.0;
        rd = d * (rv + grad * rd);
      }
      cnflux[ilndl - 1] = cnflux[ilndl - 1] - rd;
      cnflux[ilndr - 1] = cnflux[ilndr - 1] + rd;
    }
  }
}

/* Momentum fluxes of both components: flux[0..3] for u, [4..7] for v. */
UM_KERNEL void bl_ale_momflux(const double *cnm0, const double *b0, const double *b1, const double *b2,
                              const double *b3, const double *cnd, const int *nbr, const double *cnu,
                              const double *c0, const double *c1, const double *c2, const double *c3,
                              double *flux) {
  const double *nb[4] = {b0, b1, b2, b3};
  const double *nu[4] = {c0, c1, c2, c3}, *nv[4] = {c0 + 4, c1 + 4, c2 + 4, c3 + 4};
  bl_ale_fluxnd(cnm0, nb, cnd + 4, nbr, cnu, nu, flux);
  bl_ale_fluxnd(cnm0, nb, cnd + 4, nbr, cnu + 4, nv, flux + 4);
}

/* Corner momentum fluxes summed at the nodes (nf = {u, v}). */
UM_KERNEL void bl_ale_node_flux(const double *flux, double *n0, double *n1, double *n2, double *n3) {
  double *nf[4] = {n0, n1, n2, n3};
  for (int c = 0; c < 4; c++) {
    nf[c][0] += flux[c];
    nf[c][1] += flux[4 + c];
  }
}

UM_KERNEL void bl_zero2(double *a) { a[0] = a[1] = 0.0; }

/* Node velocities after the remap, except where a boundary fixes the component (ale_kn_updatend). */
UM_KERNEL void bl_ale_update_u(const double *nb, const double *nf, const int *type, double *u) {
  const int t = type[0];
  const int ok = nb[3] > bl_cut[2] * nb[0];
  if (ok && t != -1 && t != -3) u[0] = (u[0] * nb[2] + nf[0]) / nb[3];
  if (ok && t != -2 && t != -3) u[1] = (u[1] * nb[2] + nf[1]) / nb[3];
}

#endif
