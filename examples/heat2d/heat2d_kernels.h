/* heat2d's kernels: the heat equation u_t = kappa * laplace(u) with linear
 * finite elements on triangles, lumped mass, explicit Euler steps. Written
 * once: valid C for the CPU backends and valid CUDA for the GPU one (um/kernel.h). */
#ifndef HEAT2D_KERNELS_H
#define HEAT2D_KERNELS_H
#include "um/kernel.h"

/* Over cells: each corner's lumped mass gets a third of the triangle's area. */
UM_KERNEL void lumped_mass(const double *x0, const double *x1, const double *x2, double *m0, double *m1, double *m2) {
  double area = 0.5 * fabs((x1[0] - x0[0]) * (x2[1] - x0[1]) - (x2[0] - x0[0]) * (x1[1] - x0[1]));
  m0[0] += area / 3.0;
  m1[0] += area / 3.0;
  m2[0] += area / 3.0;
}

/* Over cells: r_i -= sum_j K_ij u_j with the P1 stiffness matrix
 * K_ij = (b_i b_j + c_i c_j) / (4 |T|), b and c the edge vectors' components. */
UM_KERNEL void stiffness(const double *x0, const double *x1, const double *x2, const double *u0, const double *u1,
                         const double *u2, double *r0, double *r1, double *r2) {
  double b[3], c[3];
  b[0] = x1[1] - x2[1];
  b[1] = x2[1] - x0[1];
  b[2] = x0[1] - x1[1];
  c[0] = x2[0] - x1[0];
  c[1] = x0[0] - x2[0];
  c[2] = x1[0] - x0[0];
  double area = 0.5 * fabs(b[1] * c[2] - b[2] * c[1]);
  double u[3];
  u[0] = u0[0];
  u[1] = u1[0];
  u[2] = u2[0];
  double r[3];
  for (int i = 0; i < 3; i++) {
    r[i] = 0.0;
    for (int j = 0; j < 3; j++) r[i] -= (b[i] * b[j] + c[i] * c[j]) / (4.0 * area) * u[j];
  }
  r0[0] += r[0];
  r1[0] += r[1];
  r2[0] += r[2];
}

/* Over nodes: one explicit Euler step where u is free (Dirichlet nodes keep
 * their value); the residual is cleared for the next step. */
UM_KERNEL void update(const double *mass, const int *boundary, const double *dt_kappa, double *r, double *u) {
  if (!boundary[0]) u[0] += dt_kappa[0] * r[0] / mass[0];
  r[0] = 0.0;
}

/* Over nodes: the largest |u - exact| and the energy sum m u^2, where the
 * exact discrete solution is amplitude * sin(pi x) sin(pi y). */
UM_KERNEL void measure(const double *x, const double *mass, const double *u, const double *amplitude, double *maxerr,
                       double *energy) {
  const double pi = 3.14159265358979323846;
  double e = u[0] - amplitude[0] * sin(pi * x[0]) * sin(pi * x[1]);
  if (e < 0) e = -e;
  if (e > maxerr[0]) maxerr[0] = e;
  energy[0] += mass[0] * u[0] * u[0];
}
#endif
