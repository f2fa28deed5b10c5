/* Airfoil: 2D inviscid Euler equations, cell-centred finite volumes on a
 * quadrilateral mesh, explicit pseudo-time stepping with local time steps
 * (the OP2 benchmark). Kernels are written once, valid C and CUDA device code.
 *
 * q = (rho, rho u, rho v, rho E) per cell; p = (gamma - 1)(rho E - |rho u|^2 / (2 rho)).
 */
#ifndef AIRFOIL_KERNELS_H
#define AIRFOIL_KERNELS_H
#include "um/kernel.h"

UM_CONST double gam, gm1, cfl, eps, qinf[4];

/* Keep the solution at the start of the step. */
UM_KERNEL void save_soln(const double *q, double *qold) {
  for (int n = 0; n < 4; n++) qold[n] = q[n];
}

/* Local time step: the cell's spectral radius summed over its four faces, over cfl. */
UM_KERNEL void adt_calc(const double *x1, const double *x2, const double *x3, const double *x4, const double *q,
                        double *adt) {
  const double rinv = 1.0 / q[0];
  const double uu = rinv * q[1], vv = rinv * q[2];
  const double c = sqrt(gam * gm1 * (rinv * q[3] - 0.5 * (uu * uu + vv * vv)));
  const double *corner[5] = {x1, x2, x3, x4, x1};
  double sum = 0.0;
  for (int f = 0; f < 4; f++) {
    const double dx = corner[f + 1][0] - corner[f][0];
    const double dy = corner[f + 1][1] - corner[f][1];
    sum += fabs(uu * dy - vv * dx) + c * sqrt(dx * dx + dy * dy);
  }
  adt[0] = sum / cfl;
}

/* 1/rho and the pressure of a cell's state, as the fluxes use them. */
UM_KERNEL void flow_state(const double *q, double *rinv, double *p) {
  rinv[0] = 1.0 / q[0];
  p[0] = gm1 * (q[3] - 0.5 * rinv[0] * (q[1] * q[1] + q[2] * q[2]));
}

/* The central flux with scalar artificial dissipation across an interior edge from x1 to x2, from the two cells'
 * states and their flow_state (r: 1/rho, p: pressure): what res_calc adds to cell 1 and subtracts from cell 2. */
UM_KERNEL void edge_flux_of(const double *x1, const double *x2, const double *q1, double r1, double p1,
                            const double *q2, double r2, double p2, const double *adt1, const double *adt2,
                            double *f) {
  const double dx = x1[0] - x2[0], dy = x1[1] - x2[1];
  const double vol1 = r1 * (q1[1] * dy - q1[2] * dx);
  const double vol2 = r2 * (q2[1] * dy - q2[2] * dx);
  const double mu = 0.5 * (adt1[0] + adt2[0]) * eps;
  f[0] = 0.5 * (vol1 * q1[0] + vol2 * q2[0]) + mu * (q1[0] - q2[0]);
  f[1] = 0.5 * (vol1 * q1[1] + p1 * dy + vol2 * q2[1] + p2 * dy) + mu * (q1[1] - q2[1]);
  f[2] = 0.5 * (vol1 * q1[2] - p1 * dx + vol2 * q2[2] - p2 * dx) + mu * (q1[2] - q2[2]);
  f[3] = 0.5 * (vol1 * (q1[3] + p1) + vol2 * (q2[3] + p2)) + mu * (q1[3] - q2[3]);
}

/* edge_flux_of with both states' 1/rho and pressure computed here. */
UM_KERNEL void edge_flux(const double *x1, const double *x2, const double *q1, const double *q2, const double *adt1,
                         const double *adt2, double *f) {
  double r1, p1, r2, p2;
  flow_state(q1, &r1, &p1);
  flow_state(q2, &r2, &p2);
  edge_flux_of(x1, x2, q1, r1, p1, q2, r2, p2, adt1, adt2, f);
}

/* Interior edges: the flux into the first cell, out of the second. */
UM_KERNEL void res_calc(const double *x1, const double *x2, const double *q1, const double *q2, const double *adt1,
                        const double *adt2, double *res1, double *res2) {
  double f[4];
  edge_flux(x1, x2, q1, q2, adt1, adt2, f);
  for (int n = 0; n < 4; n++) {
    res1[n] += f[n];
    res2[n] -= f[n];
  }
}

/* What a boundary edge from x1 to x2 adds to its cell (state q1, its 1/rho r1 and pressure p1): on the wall
 * (wall != 0) the pressure, f[1] and f[2] only; else the flux against the free stream. */
UM_KERNEL void bedge_flux(const double *x1, const double *x2, const double *q1, double r1, double p1,
                          const double *adt1, int wall, double *f) {
  const double dx = x1[0] - x2[0], dy = x1[1] - x2[1];
  if (wall) {
    f[1] = +p1 * dy;
    f[2] = -p1 * dx;
    return;
  }
  const double vol1 = r1 * (q1[1] * dy - q1[2] * dx);
  double rinv, p2;
  flow_state(qinf, &rinv, &p2);
  const double vol2 = rinv * (qinf[1] * dy - qinf[2] * dx);
  const double mu = adt1[0] * eps;
  f[0] = 0.5 * (vol1 * q1[0] + vol2 * qinf[0]) + mu * (q1[0] - qinf[0]);
  f[1] = 0.5 * (vol1 * q1[1] + p1 * dy + vol2 * qinf[1] + p2 * dy) + mu * (q1[1] - qinf[1]);
  f[2] = 0.5 * (vol1 * q1[2] - p1 * dx + vol2 * qinf[2] - p2 * dx) + mu * (q1[2] - qinf[2]);
  f[3] = 0.5 * (vol1 * (q1[3] + p1) + vol2 * (qinf[3] + p2)) + mu * (q1[3] - qinf[3]);
}

/* Adds what a boundary edge contributes to res (the wall: momentum only). */
UM_KERNEL void add_bedge(const double *x1, const double *x2, const double *q1, double r1, double p1,
                         const double *adt1, int wall, double *res) {
  double f[4];
  bedge_flux(x1, x2, q1, r1, p1, adt1, wall, f);
  if (wall) { /* constant indices only: a run-time bound would put res and f in a GPU's local memory */
    res[1] += f[1];
    res[2] += f[2];
  } else
    for (int n = 0; n < 4; n++) res[n] += f[n];
}

/* Boundary edges: pressure only on the wall (bound == 1), far field otherwise. */
UM_KERNEL void bres_calc(const double *x1, const double *x2, const double *q1, const double *adt1, double *res1,
                         const int *bound) {
  double r1, p1;
  flow_state(q1, &r1, &p1);
  add_bedge(x1, x2, q1, r1, p1, adt1, bound[0] == 1, res1);
}

/* Explicit update from the saved solution; clears the residual, sums the squared change. */
UM_KERNEL void update(const double *qold, double *q, double *res, const double *adt, double *rms) {
  const double adti = 1.0 / adt[0];
  for (int n = 0; n < 4; n++) {
    const double del = adti * res[n];
    q[n] = qold[n] - del;
    res[n] = 0.0;
    rms[0] += del * del;
  }
}

/* The fused pair (params.fused): the first stage's update, then the second stage's adt_calc on the new q, in
 * one pass over the cells (q stays in registers; adt is read for the update, then written for the next stage).
 * No rms: upstream sets rms to 0 before each update, so only the second stage's sum is ever read. */
UM_KERNEL void update_adt(const double *x1, const double *x2, const double *x3, const double *x4, const double *qold,
                          double *q, double *res, double *adt) {
  const double adti = 1.0 / adt[0];
  for (int n = 0; n < 4; n++) {
    const double del = adti * res[n];
    q[n] = qold[n] - del;
    res[n] = 0.0;
  }
  adt_calc(x1, x2, x3, x4, q, adt);
}

/* The last update of an iteration fused with the next one's save_soln and first adt_calc. */
UM_KERNEL void update_save_adt(const double *x1, const double *x2, const double *x3, const double *x4, double *qold,
                               double *q, double *res, double *adt, double *rms) {
  update(qold, q, res, adt, rms);
  save_soln(q, qold);
  adt_calc(x1, x2, x3, x4, q, adt);
}

/* update_save_adt on an iteration whose rms nobody reads (umrun prints it every 100 iterations): the sum goes
 * to a local the compiler drops, so the loop has no reduction; q, qold, res and adt as update_save_adt. */
UM_KERNEL void update_save_adt_no_rms(const double *x1, const double *x2, const double *x3, const double *x4,
                                      double *qold, double *q, double *res, double *adt) {
  double unread = 0.0;
  update(qold, q, res, adt, &unread);
  save_soln(q, qold);
  adt_calc(x1, x2, x3, x4, q, adt);
}

/* ---- params.scheme: cells -- each cell gathers the fluxes of its four sides; one pass a stage, no increments ----
 * A cell's sides are 8 bits each in side[0] (side s at bits 8s..8s+7): bits 0-1 and 2-3 the corners (x1..x4) of
 * the edge's first and second node, bits 4-6 the kind: 0 no side, 1 an interior edge whose first cell this is,
 * 2 one whose second cell it is, 3 a wall, 4 a far-field boundary edge; the neighbour across side s is the s-th
 * q and adt argument (the cell itself where there is none). The sides come in the edge loops' order (edges by
 * number, then boundary edges), so on one thread a cell adds the same fluxes in the same order as res_calc and
 * bres_calc do: the same bits. */
/* Component c of the cell's corner k, chosen by value: no corner is addressed with a run-time index, so on a GPU
 * the corners the engine staged stay in registers (a pointer chosen at run time put them in local memory). */
UM_KERNEL double cell_corner(int k, int c, const double *x1, const double *x2, const double *x3, const double *x4) {
  return k == 0 ? x1[c] : k == 1 ? x2[c] : k == 2 ? x3[c] : x4[c];
}

UM_KERNEL void add_side(int b, const double *x1, const double *x2, const double *x3, const double *x4,
                        const double *q, double r, double p, const double *adt, const double *qn, const double *adtn,
                        double *res) {
  const int kind = b >> 4;
  if (kind == 0) return;
  const int ka = b & 3, kb = (b >> 2) & 3;
  const double xa[2] = {cell_corner(ka, 0, x1, x2, x3, x4), cell_corner(ka, 1, x1, x2, x3, x4)};
  const double xb[2] = {cell_corner(kb, 0, x1, x2, x3, x4), cell_corner(kb, 1, x1, x2, x3, x4)};
  if (kind >= 3) {
    add_bedge(xa, xb, q, r, p, adt, kind == 3, res);
    return;
  }
  /* the edge's first cell's state and the second's, chosen by value (as cell_corner: no run-time pointer) */
  double rn, pn, q1[4], q2[4], f[4];
  flow_state(qn, &rn, &pn);
  const int first = kind == 1;
  for (int n = 0; n < 4; n++) {
    q1[n] = first ? q[n] : qn[n];
    q2[n] = first ? qn[n] : q[n];
  }
  const double a1 = first ? adt[0] : adtn[0], a2 = first ? adtn[0] : adt[0];
  edge_flux_of(xa, xb, q1, first ? r : rn, first ? p : pn, q2, first ? rn : r, first ? pn : p, &a1, &a2, f);
  for (int n = 0; n < 4; n++) res[n] += first ? f[n] : -f[n]; /* res - f is res + (-f), bit for bit */
}

/* The residual of a cell: what res_calc and bres_calc leave in its res (from zero). The cell's 1/rho and pressure
 * once, each neighbour's once (the edge loops compute them on every edge). */
UM_KERNEL void cell_res(const double *x1, const double *x2, const double *x3, const double *x4, const double *q,
                        const double *adt, const double *q1, const double *q2, const double *q3, const double *q4,
                        const double *adt1, const double *adt2, const double *adt3, const double *adt4, int side,
                        double *res) {
  double r, p;
  flow_state(q, &r, &p);
  for (int n = 0; n < 4; n++) res[n] = 0.0;
  add_side(side & 255, x1, x2, x3, x4, q, r, p, adt, q1, adt1, res);
  add_side((side >> 8) & 255, x1, x2, x3, x4, q, r, p, adt, q2, adt2, res);
  add_side((side >> 16) & 255, x1, x2, x3, x4, q, r, p, adt, q3, adt3, res);
  add_side((side >> 24) & 255, x1, x2, x3, x4, q, r, p, adt, q4, adt4, res);
}

/* Stage 1: the residual of q (the saved solution), the update into the other buffer qs, its adt into adts. */
UM_KERNEL void cells_stage1(const double *x1, const double *x2, const double *x3, const double *x4, const double *q,
                            const double *adt, const double *q1, const double *q2, const double *q3, const double *q4,
                            const double *adt1, const double *adt2, const double *adt3, const double *adt4,
                            const int *side, double *qs, double *adts) {
  double res[4], unread = 0.0;
  cell_res(x1, x2, x3, x4, q, adt, q1, q2, q3, q4, adt1, adt2, adt3, adt4, side[0], res);
  update(q, qs, res, adt, &unread);
  adt_calc(x1, x2, x3, x4, qs, adts);
}

/* Stage 2: the residual of q (stage 1's), the update of the saved solution qs in place (it is the next
 * iteration's saved solution), the rms, and the next iteration's first adt into adts. */
UM_KERNEL void cells_stage2(const double *x1, const double *x2, const double *x3, const double *x4, const double *q,
                            const double *adt, const double *q1, const double *q2, const double *q3, const double *q4,
                            const double *adt1, const double *adt2, const double *adt3, const double *adt4,
                            const int *side, double *qs, double *adts, double *rms) {
  double res[4];
  cell_res(x1, x2, x3, x4, q, adt, q1, q2, q3, q4, adt1, adt2, adt3, adt4, side[0], res);
  update(qs, qs, res, adt, rms);
  adt_calc(x1, x2, x3, x4, qs, adts);
}

/* cells_stage2 on an iteration whose rms nobody reads: no sum, no reduction. */
UM_KERNEL void cells_stage2_no_rms(const double *x1, const double *x2, const double *x3, const double *x4,
                                   const double *q, const double *adt, const double *q1, const double *q2,
                                   const double *q3, const double *q4, const double *adt1, const double *adt2,
                                   const double *adt3, const double *adt4, const int *side, double *qs, double *adts) {
  double unread = 0.0;
  cells_stage2(x1, x2, x3, x4, q, adt, q1, q2, q3, q4, adt1, adt2, adt3, adt4, side, qs, adts, &unread);
}

/* The last stage 2 of a run: adts keeps the second stage's adt (stage 1's, as upstream leaves it), no adt_calc. */
UM_KERNEL void cells_stage2_last(const double *x1, const double *x2, const double *x3, const double *x4,
                                 const double *q, const double *adt, const double *q1, const double *q2,
                                 const double *q3, const double *q4, const double *adt1, const double *adt2,
                                 const double *adt3, const double *adt4, const int *side, double *qs, double *adts,
                                 double *rms) {
  double res[4];
  cell_res(x1, x2, x3, x4, q, adt, q1, q2, q3, q4, adt1, adt2, adt3, adt4, side[0], res);
  update(qs, qs, res, adt, rms);
  adts[0] = adt[0];
}

#endif
