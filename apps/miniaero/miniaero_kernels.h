/* miniAero on um: the 3D compressible Navier-Stokes equations, cell-centred
 * finite volumes on hex8 cells, explicit 4-stage Runge-Kutta (Mantevo's
 * miniAero). Kernels are written once, valid C and CUDA device code.
 *
 * Conserved state per cell U = (rho, rho u, rho v, rho w, rho E); the kernels
 * work in primitives V = (rho, u, v, w, T) of a calorically perfect gas
 * (gamma 1.4, R 287.05). Gradients are of the primitives, stored [var][dir]
 * (15 values). Faces carry their area vector A (normal, |A| = area, pointing
 * from the face's left cell to its right cell, or out of the domain); the
 * tangent and binormal the Roe flux needs are rebuilt from A in the kernel.
 *
 * The constants are upstream's, including its two heat capacities (1004 in
 * the Roe flux's enthalpy, 1006 in the conductivity), so results agree with
 * its gold files.
 *
 * Two ways to collect face contributions into cells, chosen per run:
 *   INC kernels (ma_*_inc):  add through the face -> cell map (the engine's
 *                            strategies: colouring, atomics, staging)
 *   slot kernels (ma_*_slot): write one slot per (cell, local face) through the
 *                            face -> slot map; a cell loop sums the six slots
 *                            (upstream's gather-sum scheme)
 */
#ifndef MINIAERO_KERNELS_H
#define MINIAERO_KERNELS_H
#include "um/kernel.h"

UM_CONST double ma_dt;          /* time step                                  */
UM_CONST double ma_inflow[5];   /* conserved inflow state (flat plate, ramp)  */

#define MA_GAMMA 1.4
#define MA_RGAS 287.05
#define MA_CP_FLUX 1004.0       /* heat capacity in the Roe flux's enthalpy   */
#define MA_CP_COND 1006.0       /* heat capacity in the thermal conductivity  */
#define MA_PRANDTL 0.71
#define MA_SUTH_C1 1.458e-6     /* Sutherland's law: mu = C1 T^1.5 / (T + S)  */
#define MA_SUTH_S 110.4

/* ---- gas model -------------------------------------------------------- */

UM_KERNEL void ma_prim(const double *U, double *V) {
  const double rho = U[0], rinv = 1.0 / rho;
  const double u = U[1] * rinv, v = U[2] * rinv, w = U[3] * rinv;
  const double kinetic = 0.5 * (u * u + v * v + w * w);
  const double internal = U[4] * rinv - kinetic;
  V[0] = rho;
  V[1] = u;
  V[2] = v;
  V[3] = w;
  V[4] = internal * (MA_GAMMA - 1.0) / MA_RGAS;
}

UM_KERNEL double ma_norm3(const double *a) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* Unit tangent and binormal of a face from its area vector: the tangent lies in
 * the plane of A's largest component k and the next-but-one k+2 (mod 3); the
 * binormal is A x t (length |A|; the flux only uses its direction). */
UM_KERNEL void ma_face_frame(const double *A, double *t, double *b) {
  int k = 0;
  if (fabs(A[1]) > fabs(A[k])) k = 1;
  if (fabs(A[2]) > fabs(A[k])) k = 2;
  const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
  const double len = sqrt(A[k] * A[k] + A[k2] * A[k2]);
  t[k1] = 0.0;
  t[k] = A[k2] / len;
  t[k2] = -A[k] / len;
  b[0] = A[1] * t[2] - t[1] * A[2];
  b[1] = -A[0] * t[2] + t[0] * A[2];
  b[2] = A[0] * t[1] - t[0] * A[1];
}

/* ---- Roe's approximate Riemann flux through a face (area vector A) --------- */

UM_KERNEL void ma_roe(const double *VL, const double *VR, const double *A, double *F) {
  const double gm1 = MA_GAMMA - 1.0, fix = 0.1;
  double t[3], b[3];
  ma_face_frame(A, t, b);
  const double pL = VL[0] * MA_RGAS * VL[4], pR = VR[0] * MA_RGAS * VR[4];
  const double hL = MA_CP_FLUX * VL[4], hR = MA_CP_FLUX * VR[4];
  const double HL = hL + 0.5 * (VL[1] * VL[1] + VL[2] * VL[2] + VL[3] * VL[3]);
  const double HR = hR + 0.5 * (VR[1] * VR[1] + VR[2] * VR[2] + VR[3] * VR[3]);
  const double mL = VL[0] * (A[0] * VL[1] + A[1] * VL[2] + A[2] * VL[3]);
  const double mR = VR[0] * (A[0] * VR[1] + A[1] * VR[2] + A[2] * VR[3]);
  const double psum = pL + pR;
  /* central part */
  F[0] = 0.5 * (mL + mR);
  for (int d = 0; d < 3; d++) F[1 + d] = 0.5 * (mL * VL[1 + d] + mR * VR[1 + d] + A[d] * psum);
  F[4] = 0.5 * (mL * HL + mR * HR);

  const double an = ma_norm3(A), tn = ma_norm3(t), bn = ma_norm3(b);
  const double n[3] = {A[0] / an, A[1] / an, A[2] / an};
  const double tu[3] = {t[0] / tn, t[1] / tn, t[2] / tn};
  const double bu[3] = {b[0] / bn, b[1] / bn, b[2] / bn};
  /* Roe averages (the enthalpy average is of the static enthalpy plus the jump term) */
  const double wl = sqrt(VL[0]) * (1.0 / (sqrt(VL[0]) + sqrt(VR[0]))), wr = 1.0 - wl;
  double vel[3], jump2 = 0.0;
  for (int d = 0; d < 3; d++) {
    vel[d] = wl * VL[1 + d] + wr * VR[1 + d];
    const double dv = VR[1 + d] - VL[1 + d];
    jump2 += dv * dv;
  }
  const double h = wl * hL + wr * hR + 0.5 * wl * wr * jump2;
  const double c = sqrt(gm1 * h);
  const double vn = vel[0] * n[0] + vel[1] * n[1] + vel[2] * n[2];
  const double vt = vel[0] * tu[0] + vel[1] * tu[1] + vel[2] * tu[2];
  const double vb = vel[0] * bu[0] + vel[1] * bu[1] + vel[2] * bu[2];
  const double ke = 0.5 * (vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2]);
  const double ic2 = 1.0 / (c * c), hic2 = 0.5 * ic2;
  /* jump of the conserved state */
  const double dU[5] = {VR[0] - VL[0], VR[0] * VR[1] - VL[0] * VL[1], VR[0] * VR[2] - VL[0] * VL[2],
                        VR[0] * VR[3] - VL[0] * VL[3], (VR[0] * HR - pR) - (VL[0] * HL - pL)};
  /* wave speeds through the face, with the entropy fix */
  const double cA = c * an, uA = vel[0] * A[0] + vel[1] * A[1] + vel[2] * A[2];
  const double limit = fix * (fabs(uA) + cA);
  const double lam[3] = {uA + cA, uA - cA, uA};
  double alam[5];
  for (int k = 0; k < 3; k++) {
    double a = fabs(lam[k]);
    if (a < limit) a = 0.5 * (lam[k] * lam[k] + limit * limit) / limit;
    alam[k] = 0.5 * (lam[k] + a) - 0.5 * (lam[k] - a); /* |lambda+| - lambda-, as upstream splits it */
  }
  alam[3] = alam[4] = alam[2];
  /* characteristic jumps (left eigenvectors), scaled by |lambda| */
  const double base = gm1 * (ke - h);
  const double L[5][5] = {
      {base + c * (c - vn), c * n[0] - gm1 * vel[0], c * n[1] - gm1 * vel[1], c * n[2] - gm1 * vel[2], gm1},
      {base + c * (c + vn), -c * n[0] - gm1 * vel[0], -c * n[1] - gm1 * vel[1], -c * n[2] - gm1 * vel[2], gm1},
      {ke - h, -vel[0], -vel[1], -vel[2], 1.0},
      {-vt, tu[0], tu[1], tu[2], 0.0},
      {-vb, bu[0], bu[1], bu[2], 0.0}};
  double w[5];
  for (int i = 0; i < 5; i++) {
    double s = 0.0;
    for (int j = 0; j < 5; j++) s += L[i][j] * dU[j];
    w[i] = alam[i] * s;
  }
  /* back to conserved variables (right eigenvectors): F -= R w / 2 */
  const double R[5][5] = {
      {hic2, hic2, -gm1 * ic2, 0.0, 0.0},
      {(vel[0] + n[0] * c) * hic2, (vel[0] - n[0] * c) * hic2, -gm1 * vel[0] * ic2, tu[0], bu[0]},
      {(vel[1] + n[1] * c) * hic2, (vel[1] - n[1] * c) * hic2, -gm1 * vel[1] * ic2, tu[1], bu[1]},
      {(vel[2] + n[2] * c) * hic2, (vel[2] - n[2] * c) * hic2, -gm1 * vel[2] * ic2, tu[2], bu[2]},
      {(h + ke + c * vn) * hic2, (h + ke - c * vn) * hic2, (c * c - gm1 * (h + ke)) * ic2, vt, vb}};
  for (int i = 0; i < 5; i++) {
    double s = 0.0;
    for (int j = 0; j < 5; j++) s += R[i][j] * w[j];
    F[i] -= 0.5 * s;
  }
}

/* ---- Newtonian viscous flux (Sutherland viscosity, constant Prandtl number) - */

UM_KERNEL void ma_viscous(const double G[15], const double *V, const double *A, double *F) {
  const double T = V[4];
  const double mu = MA_SUTH_C1 * T * sqrt(T) / (T + MA_SUTH_S);
  const double kappa = mu * MA_CP_COND / MA_PRANDTL;
  const double div = G[1 * 3 + 0] + G[2 * 3 + 1] + G[3 * 3 + 2];
  for (int k = 0; k < 5; k++) F[k] = 0.0;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      const double strain = 0.5 * (G[(i + 1) * 3 + j] + G[(j + 1) * 3 + i]);
      const double tau = 2.0 * mu * (strain - (i == j ? div / 3.0 : 0.0));
      F[1 + i] += tau * A[j];
      F[4] += tau * V[1 + i] * A[j];
    }
    F[4] += kappa * G[4 * 3 + i] * A[i];
  }
}

/* ---- interior face flux: reconstruction, Roe, viscous part ---------------- */

/* Second-order reconstruction: V += lim * (grad V . (x_face - x_cell)). */
UM_KERNEL void ma_reconstruct(double *V, const double *G, const double *lim, const double *xc, const double *xf) {
  for (int k = 0; k < 5; k++) {
    double d = 0.0;
    for (int j = 0; j < 3; j++) d += (xf[j] - xc[j]) * G[k * 3 + j];
    V[k] += d * lim[k];
  }
}

/* F: the flux from left to right through the face. order2: reconstruct with
 * gradients and limiters; viscous: subtract the viscous flux at the face
 * (average of the two sides' states and gradients). G and lim may be NULL when
 * unused. */
UM_KERNEL void ma_face_flux(const double *UL, const double *UR, const double *A, const double *xf,
                            const double *xl, const double *xr, const double *GL, const double *GR,
                            const double *limL, const double *limR, int order2, int viscous, double *F) {
  double VL[5], VR[5];
  ma_prim(UL, VL);
  ma_prim(UR, VR);
  if (order2) {
    ma_reconstruct(VL, GL, limL, xl, xf);
    ma_reconstruct(VR, GR, limR, xr, xf);
  }
  ma_roe(VL, VR, A, F);
  if (viscous) {
    double Vf[5], Gf[15], Fv[5];
    for (int k = 0; k < 5; k++) Vf[k] = 0.5 * (VL[k] + VR[k]);
    for (int k = 0; k < 15; k++) Gf[k] = 0.5 * (GL[k] + GR[k]);
    ma_viscous(Gf, Vf, A, Fv);
    for (int k = 0; k < 5; k++) F[k] -= Fv[k];
  }
}

UM_KERNEL void ma_add_pair(const double *F, double *fl, double *fr) {
  for (int k = 0; k < 5; k++) {
    fl[k] -= F[k];
    fr[k] += F[k];
  }
}
UM_KERNEL void ma_put_pair(const double *F, double *sl, double *sr) {
  for (int k = 0; k < 5; k++) {
    sl[k] = -F[k];
    sr[k] = F[k];
  }
}

/* first order, inviscid */
UM_KERNEL void ma_flux1_inc(const double *UL, const double *UR, const double *A, double *fl, double *fr) {
  double F[5];
  ma_face_flux(UL, UR, A, 0, 0, 0, 0, 0, 0, 0, 0, 0, F);
  ma_add_pair(F, fl, fr);
}
UM_KERNEL void ma_flux1_slot(const double *UL, const double *UR, const double *A, double *sl, double *sr) {
  double F[5];
  ma_face_flux(UL, UR, A, 0, 0, 0, 0, 0, 0, 0, 0, 0, F);
  ma_put_pair(F, sl, sr);
}
/* first order, viscous (gradients for the viscous part) */
UM_KERNEL void ma_flux1v_inc(const double *UL, const double *UR, const double *A, const double *GL,
                             const double *GR, double *fl, double *fr) {
  double F[5];
  ma_face_flux(UL, UR, A, 0, 0, 0, GL, GR, 0, 0, 0, 1, F);
  ma_add_pair(F, fl, fr);
}
UM_KERNEL void ma_flux1v_slot(const double *UL, const double *UR, const double *A, const double *GL,
                              const double *GR, double *sl, double *sr) {
  double F[5];
  ma_face_flux(UL, UR, A, 0, 0, 0, GL, GR, 0, 0, 0, 1, F);
  ma_put_pair(F, sl, sr);
}
/* second order, inviscid and viscous: two kernels, so that each compiles only its own part of
 * ma_face_flux (a run-time flag kept the viscous arrays of the inviscid case alive: on the GPU they
 * went to local memory) */
UM_KERNEL void ma_flux2_inc(const double *UL, const double *UR, const double *A, const double *xf,
                            const double *xl, const double *xr, const double *GL, const double *GR,
                            const double *limL, const double *limR, double *fl, double *fr) {
  double F[5];
  ma_face_flux(UL, UR, A, xf, xl, xr, GL, GR, limL, limR, 1, 0, F);
  ma_add_pair(F, fl, fr);
}
UM_KERNEL void ma_flux2_slot(const double *UL, const double *UR, const double *A, const double *xf,
                             const double *xl, const double *xr, const double *GL, const double *GR,
                             const double *limL, const double *limR, double *sl, double *sr) {
  double F[5];
  ma_face_flux(UL, UR, A, xf, xl, xr, GL, GR, limL, limR, 1, 0, F);
  ma_put_pair(F, sl, sr);
}
UM_KERNEL void ma_flux2v_inc(const double *UL, const double *UR, const double *A, const double *xf,
                             const double *xl, const double *xr, const double *GL, const double *GR,
                             const double *limL, const double *limR, double *fl, double *fr) {
  double F[5];
  ma_face_flux(UL, UR, A, xf, xl, xr, GL, GR, limL, limR, 1, 1, F);
  ma_add_pair(F, fl, fr);
}
UM_KERNEL void ma_flux2v_slot(const double *UL, const double *UR, const double *A, const double *xf,
                              const double *xl, const double *xr, const double *GL, const double *GR,
                              const double *limL, const double *limR, double *sl, double *sr) {
  double F[5];
  ma_face_flux(UL, UR, A, xf, xl, xr, GL, GR, limL, limR, 1, 1, F);
  ma_put_pair(F, sl, sr);
}

/* ---- boundary face fluxes (the face's only cell is on its left) ----------- */

/* Mirror the velocity in the face: V_ghost = V - 2 (u . n) n. */
UM_KERNEL void ma_mirror(const double *V, const double *A, double *Vg) {
  const double an = ma_norm3(A);
  double un = 0.0;
  for (int d = 0; d < 3; d++) un += V[1 + d] * A[d] / an;
  Vg[0] = V[0];
  for (int d = 0; d < 3; d++) Vg[1 + d] = V[1 + d] - 2 * un * A[d] / an;
  Vg[4] = V[4];
}

/* kind: 0 extrapolate (ghost = cell), 1 tangent (slip wall), 2 inflow (ghost =
 * ma_inflow), 3 no-slip wall (slip-wall Roe flux plus the viscous wall flux
 * from a one-sided gradient). F is the flux out of the cell, viscous part
 * included. */
UM_KERNEL void ma_bc_flux(int kind, const double *U, const double *A, const double *xf, const double *xc,
                          double *F) {
  double V[5], Vg[5];
  ma_prim(U, V);
  if (kind == 0) {
    ma_roe(V, V, A, F);
    return;
  }
  if (kind == 2) {
    ma_prim(ma_inflow, Vg);
  } else {
    ma_mirror(V, A, Vg);
  }
  ma_roe(V, Vg, A, F);
  if (kind == 3) {
    const double an = ma_norm3(A);
    double d2 = 0.0, nu[3];
    for (int d = 0; d < 3; d++) {
      const double dx = xf[d] - xc[d];
      d2 += dx * dx;
      nu[d] = A[d] / an;
    }
    const double inv = 1.0 / sqrt(d2);
    const double Vw[5] = {V[0], 0.0, 0.0, 0.0, V[4]};
    double G[15], Fv[5];
    for (int k = 0; k < 5; k++)
      for (int d = 0; d < 3; d++) G[k * 3 + d] = (Vw[k] - V[k]) * nu[d] * inv;
    ma_viscous(G, Vw, A, Fv);
    for (int k = 0; k < 5; k++) F[k] -= Fv[k];
  }
}

/* extrapolate, tangent and inflow faces (kind 0..2) */
UM_KERNEL void ma_bc_inc(const double *U, const double *A, const int *kind, double *f) {
  double F[5];
  ma_bc_flux(kind[0], U, A, 0, 0, F);
  for (int k = 0; k < 5; k++) f[k] -= F[k];
}
UM_KERNEL void ma_bc_slot(const double *U, const double *A, const int *kind, double *s) {
  double F[5];
  ma_bc_flux(kind[0], U, A, 0, 0, F);
  for (int k = 0; k < 5; k++) s[k] = -F[k];
}
/* no-slip walls: also the face and cell centres, for the wall-normal gradient */
UM_KERNEL void ma_wall_inc(const double *U, const double *A, const double *xf, const double *xc, double *f) {
  double F[5];
  ma_bc_flux(3, U, A, xf, xc, F);
  for (int k = 0; k < 5; k++) f[k] -= F[k];
}
UM_KERNEL void ma_wall_slot(const double *U, const double *A, const double *xf, const double *xc, double *s) {
  double F[5];
  ma_bc_flux(3, U, A, xf, xc, F);
  for (int k = 0; k < 5; k++) s[k] = -F[k];
}

/* ---- Green-Gauss gradients of the primitives ------------------------------ */

UM_KERNEL void ma_grad_face_values(const double *UL, const double *UR, const double *A, const double *volL,
                                   const double *volR, double *gl, double *gr) {
  double VL[5], VR[5];
  ma_prim(UL, VL);
  ma_prim(UR, VR);
  for (int d = 0; d < 3; d++)
    for (int k = 0; k < 5; k++) {
      const double g = 0.5 * (VL[k] + VR[k]) * A[d];
      gl[k * 3 + d] = g / volL[0];
      gr[k * 3 + d] = -g / volR[0];
    }
}
UM_KERNEL void ma_grad_face_inc(const double *UL, const double *UR, const double *A, const double *volL,
                                const double *volR, double *GL, double *GR) {
  double gl[15], gr[15];
  ma_grad_face_values(UL, UR, A, volL, volR, gl, gr);
  for (int k = 0; k < 15; k++) {
    GL[k] += gl[k];
    GR[k] += gr[k];
  }
}
UM_KERNEL void ma_grad_face_slot(const double *UL, const double *UR, const double *A, const double *volL,
                                 const double *volR, double *SL, double *SR) {
  ma_grad_face_values(UL, UR, A, volL, volR, SL, SR);
}
UM_KERNEL void ma_grad_bface_values(const double *U, const double *A, const double *vol, double *g) {
  double V[5];
  ma_prim(U, V);
  for (int k = 0; k < 5; k++)
    for (int d = 0; d < 3; d++) g[k * 3 + d] = V[k] * A[d] / vol[0];
}
UM_KERNEL void ma_grad_bface_inc(const double *U, const double *A, const double *vol, double *G) {
  double g[15];
  ma_grad_bface_values(U, A, vol, g);
  for (int k = 0; k < 15; k++) G[k] += g[k];
}
UM_KERNEL void ma_grad_bface_slot(const double *U, const double *A, const double *vol, double *S) {
  ma_grad_bface_values(U, A, vol, S);
}
/* slot scheme: a cell's gradient is the sum of its six faces' slots, in local face order */
UM_KERNEL void ma_grad_gather(const double *s0, const double *s1, const double *s2, const double *s3,
                              const double *s4, const double *s5, double *G) {
  const double *s[6] = {s0, s1, s2, s3, s4, s5};
  for (int k = 0; k < 15; k++) {
    double sum = 0.0;
    for (int f = 0; f < 6; f++) sum += s[f][k];
    G[k] = sum;
  }
}

/* Gathered by cells (no increments): the same face terms, each seen from the
 * cell with its area vector pointing out of the cell (A[3f..3f+2]); on a
 * boundary face the neighbour is the cell itself, and 0.5 (V + V) = V. */
UM_KERNEL void ma_grad_cell(const double *U, const double *n0, const double *n1, const double *n2, const double *n3,
                            const double *n4, const double *n5, const double *A, const double *vol, double *G) {
  const double *nb[6] = {n0, n1, n2, n3, n4, n5};
  double V[5], sum[15];
  ma_prim(U, V);
  for (int k = 0; k < 15; k++) sum[k] = 0.0;
  for (int f = 0; f < 6; f++) {
    double W[5];
    ma_prim(nb[f], W);
    for (int d = 0; d < 3; d++)
      for (int k = 0; k < 5; k++) sum[k * 3 + d] += 0.5 * (V[k] + W[k]) * A[3 * f + d];
  }
  const double rv = 1.0 / vol[0]; /* one division (upstream divides each face's share: rounding apart) */
  for (int k = 0; k < 15; k++) G[k] = sum[k] * rv;
}

/* ---- Venkatakrishnan's limiter over each cell's stencil -------------------- */

/* Smallest and largest primitive over the cell and its face neighbours (a
 * boundary face's neighbour is the cell itself). */
UM_KERNEL void ma_minmax(const double *U, const double *n0, const double *n1, const double *n2, const double *n3,
                         const double *n4, const double *n5, double *vmin, double *vmax) {
  const double *nb[6] = {n0, n1, n2, n3, n4, n5};
  double V[5];
  ma_prim(U, V);
  for (int k = 0; k < 5; k++) vmin[k] = vmax[k] = V[k];
  for (int f = 0; f < 6; f++) {
    double W[5];
    ma_prim(nb[f], W);
    for (int k = 0; k < 5; k++) {
      if (W[k] < vmin[k]) vmin[k] = W[k];
      if (W[k] > vmax[k]) vmax[k] = W[k];
    }
  }
}

UM_KERNEL double ma_venkat(double dmax, double dmin, double du, double eps2) {
  if (du > 1e-40) return ((dmax * dmax + eps2) * du + 2 * du * du * dmax) / (du * (dmax * dmax + 2 * du * du + dmax * du + eps2));
  if (du < -1e-40) return ((dmin * dmin + eps2) * du + 2 * du * du * dmin) / (du * (dmin * dmin + 2 * du * du + dmin * du + eps2));
  return 1.0;
}

/* lim = min(1, min over the cell's six faces of the limiter for the
 * extrapolation to that face's centre xf[3f..3f+2]); the epsilon is the squared
 * distance from the cell centre to the face centre. */
UM_KERNEL void ma_limiter(const double *U, const double *vmin, const double *vmax, const double *G,
                          const double *xc, const double *xf, double *lim) {
  double V[5];
  ma_prim(U, V);
  for (int k = 0; k < 5; k++) lim[k] = 1.0;
  for (int f = 0; f < 6; f++) {
    double dx[3], d2 = 0.0;
    for (int j = 0; j < 3; j++) {
      dx[j] = xf[3 * f + j] - xc[j];
      d2 += dx[j] * dx[j];
    }
    for (int k = 0; k < 5; k++) {
      double du = 0.0;
      for (int j = 0; j < 3; j++) du += dx[j] * G[k * 3 + j];
      const double phi = ma_venkat(vmax[k] - V[k], vmin[k] - V[k], du, d2);
      if (phi < lim[k]) lim[k] = phi;
    }
  }
}

/* ---- Runge-Kutta stages ------------------------------------------------- */

/* Stage start: the stage state from the step's start and the last residual,
 * and the face contributions reset. */
UM_KERNEL void ma_stage(const double *U0, const double *res, const double *alpha, double *Us, double *flux) {
  for (int k = 0; k < 5; k++) {
    Us[k] = U0[k] + alpha[0] * res[k];
    flux[k] = 0.0;
  }
}
UM_KERNEL void ma_stage_g(const double *U0, const double *res, const double *alpha, double *Us, double *flux,
                          double *G) {
  ma_stage(U0, res, alpha, Us, flux);
  for (int k = 0; k < 15; k++) G[k] = 0.0;
}
/* slot scheme: nothing to reset (every slot is written each stage) */
UM_KERNEL void ma_stage_s(const double *U0, const double *res, const double *alpha, double *Us) {
  for (int k = 0; k < 5; k++) Us[k] = U0[k] + alpha[0] * res[k];
}

/* Stage end: residual dt/V * (sum of face fluxes), accumulated into the new
 * state with the stage weight; after the last stage the new state also becomes
 * the step's start (the _last kernels). */
UM_KERNEL void ma_update(const double *flux, const double *vol, const double *beta, double *res, double *Unew) {
  const double s = ma_dt / vol[0];
  for (int k = 0; k < 5; k++) {
    res[k] = s * flux[k];
    Unew[k] += beta[0] * res[k];
  }
}
UM_KERNEL void ma_update_last(const double *flux, const double *vol, const double *beta, double *res, double *Unew,
                              double *U0) {
  ma_update(flux, vol, beta, res, Unew);
  for (int k = 0; k < 5; k++) U0[k] = Unew[k];
}
/* slot scheme: the six slots of the cell, summed in local face order */
UM_KERNEL void ma_update_slots(const double *s0, const double *s1, const double *s2, const double *s3,
                               const double *s4, const double *s5, const double *vol, const double *beta,
                               double *res, double *Unew) {
  const double *s[6] = {s0, s1, s2, s3, s4, s5};
  const double r = ma_dt / vol[0];
  for (int k = 0; k < 5; k++) {
    double sum = 0.0;
    for (int f = 0; f < 6; f++) sum += r * s[f][k];
    res[k] = sum;
    Unew[k] += beta[0] * res[k];
  }
}
UM_KERNEL void ma_update_slots_last(const double *s0, const double *s1, const double *s2, const double *s3,
                                    const double *s4, const double *s5, const double *vol, const double *beta,
                                    double *res, double *Unew, double *U0) {
  ma_update_slots(s0, s1, s2, s3, s4, s5, vol, beta, res, Unew);
  for (int k = 0; k < 5; k++) U0[k] = Unew[k];
}

/* ---- metrics ------------------------------------------------------------ */

UM_KERNEL void ma_metrics(const double *U, const double *vol, double *sum, double *vmin, double *vmax,
                          double *total) {
  for (int k = 0; k < 5; k++) {
    sum[k] += U[k];
    if (U[k] < vmin[k]) vmin[k] = U[k];
    if (U[k] > vmax[k]) vmax[k] = U[k];
    total[k] += U[k] * vol[0];
  }
}

#endif
