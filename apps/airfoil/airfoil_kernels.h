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

/* Central flux with scalar artificial dissipation across an interior edge. */
UM_KERNEL void res_calc(const double *x1, const double *x2, const double *q1, const double *q2, const double *adt1,
                        const double *adt2, double *res1, double *res2) {
  const double dx = x1[0] - x2[0], dy = x1[1] - x2[1];
  double rinv = 1.0 / q1[0];
  const double p1 = gm1 * (q1[3] - 0.5 * rinv * (q1[1] * q1[1] + q1[2] * q1[2]));
  const double vol1 = rinv * (q1[1] * dy - q1[2] * dx);
  rinv = 1.0 / q2[0];
  const double p2 = gm1 * (q2[3] - 0.5 * rinv * (q2[1] * q2[1] + q2[2] * q2[2]));
  const double vol2 = rinv * (q2[1] * dy - q2[2] * dx);
  const double mu = 0.5 * (adt1[0] + adt2[0]) * eps;
  double f;
  f = 0.5 * (vol1 * q1[0] + vol2 * q2[0]) + mu * (q1[0] - q2[0]);
  res1[0] += f;
  res2[0] -= f;
  f = 0.5 * (vol1 * q1[1] + p1 * dy + vol2 * q2[1] + p2 * dy) + mu * (q1[1] - q2[1]);
  res1[1] += f;
  res2[1] -= f;
  f = 0.5 * (vol1 * q1[2] - p1 * dx + vol2 * q2[2] - p2 * dx) + mu * (q1[2] - q2[2]);
  res1[2] += f;
  res2[2] -= f;
  f = 0.5 * (vol1 * (q1[3] + p1) + vol2 * (q2[3] + p2)) + mu * (q1[3] - q2[3]);
  res1[3] += f;
  res2[3] -= f;
}

/* Boundary edges: pressure only on the wall (bound == 1), far field otherwise. */
UM_KERNEL void bres_calc(const double *x1, const double *x2, const double *q1, const double *adt1, double *res1,
                         const int *bound) {
  const double dx = x1[0] - x2[0], dy = x1[1] - x2[1];
  double rinv = 1.0 / q1[0];
  const double p1 = gm1 * (q1[3] - 0.5 * rinv * (q1[1] * q1[1] + q1[2] * q1[2]));
  if (bound[0] == 1) {
    res1[1] += +p1 * dy;
    res1[2] += -p1 * dx;
    return;
  }
  const double vol1 = rinv * (q1[1] * dy - q1[2] * dx);
  rinv = 1.0 / qinf[0];
  const double p2 = gm1 * (qinf[3] - 0.5 * rinv * (qinf[1] * qinf[1] + qinf[2] * qinf[2]));
  const double vol2 = rinv * (qinf[1] * dy - qinf[2] * dx);
  const double mu = adt1[0] * eps;
  double f;
  f = 0.5 * (vol1 * q1[0] + vol2 * qinf[0]) + mu * (q1[0] - qinf[0]);
  res1[0] += f;
  f = 0.5 * (vol1 * q1[1] + p1 * dy + vol2 * qinf[1] + p2 * dy) + mu * (q1[1] - qinf[1]);
  res1[1] += f;
  f = 0.5 * (vol1 * q1[2] - p1 * dx + vol2 * qinf[2] - p2 * dx) + mu * (q1[2] - qinf[2]);
  res1[2] += f;
  f = 0.5 * (vol1 * (q1[3] + p1) + vol2 * (qinf[3] + p2)) + mu * (q1[3] - qinf[3]);
  res1[3] += f;
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

#endif
