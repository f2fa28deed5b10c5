/* LULESH 2.0 on um: Lagrangian shock hydrodynamics (the Sedov blast) on a hex8 mesh. Kernels are written once,
 * valid C and CUDA device code; each is one element (or node) of a loop of the upstream code. The arithmetic
 * follows upstream operation for operation, except the fused kinematics_gradients' velocity gradient at the half
 * step (from the element's mid-plane differences: lu_kinematics_planes); results agree to rounding.
 *
 * Nodes carry coordinates, velocities, accelerations, forces (dim 3 each) and
 * a mass; elements carry the thermodynamic state (e, p, q, ...) and volumes.
 * Every access from an element to its nodes goes through the map elem -> 8 nodes;
 * the monotonic Q reads its six face neighbours through the map elem -> 6 elems.
 */
#ifndef LULESH_KERNELS_H
#define LULESH_KERNELS_H
#include "um/kernel.h"

/* Physics and cut-off constants (values set in lulesh.c, as upstream's Domain). */
UM_CONST double lu_e_cut, lu_p_cut, lu_q_cut, lu_v_cut, lu_u_cut, lu_hgcoef, lu_ss4o3, lu_qstop,
    lu_monoq_max_slope, lu_monoq_limiter_mult, lu_qlc_monoq, lu_qqc_monoq, lu_qqc, lu_eosvmax, lu_eosvmin,
    lu_pmin, lu_emin, lu_dvovmax, lu_refdens;

/* Element boundary-condition bits (elem_bc): per face, symmetry plane or free
 * surface; neither means "read the neighbour". The same bit values as upstream. */
#define LU_XI_M 0x00007
#define LU_XI_M_SYMM 0x00001
#define LU_XI_M_FREE 0x00002
#define LU_XI_P 0x00038
#define LU_XI_P_SYMM 0x00008
#define LU_XI_P_FREE 0x00010
#define LU_ETA_M 0x001c0
#define LU_ETA_M_SYMM 0x00040
#define LU_ETA_M_FREE 0x00080
#define LU_ETA_P 0x00e00
#define LU_ETA_P_SYMM 0x00200
#define LU_ETA_P_FREE 0x00400
#define LU_ZETA_M 0x07000
#define LU_ZETA_M_SYMM 0x01000
#define LU_ZETA_M_FREE 0x02000
#define LU_ZETA_P 0x38000
#define LU_ZETA_P_SYMM 0x08000
#define LU_ZETA_P_FREE 0x10000

/* Error codes raised through the time-constraint loop's reduction. */
#define LU_ERR_VOLUME 1.0
#define LU_ERR_QSTOP 2.0

/* ---- element helpers ---------------------------------------------------- */

/* Gather the coordinates (or velocities) of an element's 8 nodes. */
UM_KERNEL void lu_collect(const double *n0, const double *n1, const double *n2, const double *n3,
                          const double *n4, const double *n5, const double *n6, const double *n7, double x[8],
                          double y[8], double z[8]) {
  const double *n[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
  for (int i = 0; i < 8; i++) {
    x[i] = n[i][0];
    y[i] = n[i][1];
    z[i] = n[i][2];
  }
}
/* The same from a vector argument (the element's 8 nodes). */
UM_KERNEL void lu_collect_vec(const um_vec *n, double x[8], double y[8], double z[8]) {
  for (int i = 0; i < 8; i++) x[i] = UM_VEC_D(n, i, 0), y[i] = UM_VEC_D(n, i, 1), z[i] = UM_VEC_D(n, i, 2);
}

/* Hand an element's 8 nodal (or corner) vectors f[.][i] to the 8 targets:
 * added (INC) or stored (WRITE). */
UM_KERNEL void lu_put8(double *o0, double *o1, double *o2, double *o3, double *o4, double *o5, double *o6,
                       double *o7, const double f[3][8], int add) {
  double *o[8] = {o0, o1, o2, o3, o4, o5, o6, o7};
  for (int i = 0; i < 8; i++)
    for (int d = 0; d < 3; d++) o[i][d] = add ? o[i][d] + f[d][i] : f[d][i];
}

/* f += g, element by element (stress + hourglass). */
UM_KERNEL void lu_add_forces(double f[3][8], const double g[3][8]) {
  for (int d = 0; d < 3; d++)
    for (int i = 0; i < 8; i++) f[d][i] += g[d][i];
}

/* The cofactors, by column, of the Jacobian of columns fxi, fet, fze; returns 8 times its determinant. */
UM_KERNEL double lu_jacobian_cofactors(const double fxi[3], const double fet[3], const double fze[3], double cxi[3],
                                       double cet[3], double cze[3]) {
  cxi[0] = (fet[1] * fze[2]) - (fet[2] * fze[1]);
  cet[0] = -(fxi[1] * fze[2]) + (fxi[2] * fze[1]);
  cze[0] = (fxi[1] * fet[2]) - (fxi[2] * fet[1]);
  cxi[1] = -(fet[0] * fze[2]) + (fet[2] * fze[0]);
  cet[1] = (fxi[0] * fze[2]) - (fxi[2] * fze[0]);
  cze[1] = -(fxi[0] * fet[2]) + (fxi[2] * fet[0]);
  cxi[2] = (fet[0] * fze[1]) - (fet[1] * fze[0]);
  cet[2] = -(fxi[0] * fze[1]) + (fxi[1] * fze[0]);
  cze[2] = (fxi[0] * fet[1]) - (fxi[1] * fet[0]);
  return 8. * (fet[0] * cet[0] + fet[1] * cet[1] + fet[2] * cet[2]);
}

/* Shape-function derivatives b[3][8] and the Jacobian determinant (volume). */
UM_KERNEL void lu_shape_derivatives(const double x[8], const double y[8], const double z[8], double b[3][8],
                                    double *volume) {
  const double fjxxi = .125 * ((x[6] - x[0]) + (x[5] - x[3]) - (x[7] - x[1]) - (x[4] - x[2]));
  const double fjxet = .125 * ((x[6] - x[0]) - (x[5] - x[3]) + (x[7] - x[1]) - (x[4] - x[2]));
  const double fjxze = .125 * ((x[6] - x[0]) + (x[5] - x[3]) + (x[7] - x[1]) + (x[4] - x[2]));
  const double fjyxi = .125 * ((y[6] - y[0]) + (y[5] - y[3]) - (y[7] - y[1]) - (y[4] - y[2]));
  const double fjyet = .125 * ((y[6] - y[0]) - (y[5] - y[3]) + (y[7] - y[1]) - (y[4] - y[2]));
  const double fjyze = .125 * ((y[6] - y[0]) + (y[5] - y[3]) + (y[7] - y[1]) + (y[4] - y[2]));
  const double fjzxi = .125 * ((z[6] - z[0]) + (z[5] - z[3]) - (z[7] - z[1]) - (z[4] - z[2]));
  const double fjzet = .125 * ((z[6] - z[0]) - (z[5] - z[3]) + (z[7] - z[1]) - (z[4] - z[2]));
  const double fjzze = .125 * ((z[6] - z[0]) + (z[5] - z[3]) + (z[7] - z[1]) + (z[4] - z[2]));
  const double fxi[3] = {fjxxi, fjyxi, fjzxi}, fet[3] = {fjxet, fjyet, fjzet}, fze[3] = {fjxze, fjyze, fjzze};
  double cxi[3], cet[3], cze[3];
  *volume = lu_jacobian_cofactors(fxi, fet, fze, cxi, cet, cze);
  /* partials for nodes 0..3; by symmetry (6,7,4,5) = -(0,1,2,3) */
  for (int d = 0; d < 3; d++) {
    b[d][0] = -cxi[d] - cet[d] - cze[d];
    b[d][1] = cxi[d] - cet[d] - cze[d];
    b[d][2] = cxi[d] + cet[d] - cze[d];
    b[d][3] = -cxi[d] + cet[d] - cze[d];
    b[d][4] = -b[d][2];
    b[d][5] = -b[d][3];
    b[d][6] = -b[d][0];
    b[d][7] = -b[d][1];
  }
}

/* One face's area vector, a quarter added to each of its four nodes. */
UM_KERNEL void lu_face_normal(double pf[3][8], int a, int b, int c, int d, const double x[8], const double y[8],
                              const double z[8]) {
  const double bisectX0 = 0.5 * (x[d] + x[c] - x[b] - x[a]);
  const double bisectY0 = 0.5 * (y[d] + y[c] - y[b] - y[a]);
  const double bisectZ0 = 0.5 * (z[d] + z[c] - z[b] - z[a]);
  const double bisectX1 = 0.5 * (x[c] + x[b] - x[d] - x[a]);
  const double bisectY1 = 0.5 * (y[c] + y[b] - y[d] - y[a]);
  const double bisectZ1 = 0.5 * (z[c] + z[b] - z[d] - z[a]);
  const double areaX = 0.25 * (bisectY0 * bisectZ1 - bisectZ0 * bisectY1);
  const double areaY = 0.25 * (bisectZ0 * bisectX1 - bisectX0 * bisectZ1);
  const double areaZ = 0.25 * (bisectX0 * bisectY1 - bisectY0 * bisectX1);
  const int n[4] = {a, b, c, d};
  for (int k = 0; k < 4; k++) {
    pf[0][n[k]] += areaX;
    pf[1][n[k]] += areaY;
    pf[2][n[k]] += areaZ;
  }
}

/* Node normals of a hexahedron: the sum over its six faces. */
UM_KERNEL void lu_node_normals(double pf[3][8], const double x[8], const double y[8], const double z[8]) {
  for (int i = 0; i < 8; i++) pf[0][i] = pf[1][i] = pf[2][i] = 0.0;
  lu_face_normal(pf, 0, 1, 2, 3, x, y, z);
  lu_face_normal(pf, 0, 4, 5, 1, x, y, z);
  lu_face_normal(pf, 1, 5, 6, 2, x, y, z);
  lu_face_normal(pf, 2, 6, 7, 3, x, y, z);
  lu_face_normal(pf, 3, 7, 4, 0, x, y, z);
  lu_face_normal(pf, 4, 7, 6, 5, x, y, z);
}

/* Stress integration of one element: nodal forces from the isotropic stress. */
UM_KERNEL void lu_stress_forces(const double x[8], const double y[8], const double z[8], double p, double q,
                                double f[3][8]) {
  double b[3][8], volume;
  lu_shape_derivatives(x, y, z, b, &volume);
  lu_node_normals(b, x, y, z);
  const double sig = -p - q;
  for (int i = 0; i < 8; i++) {
    f[0][i] = -(sig * b[0][i]);
    f[1][i] = -(sig * b[1][i]);
    f[2][i] = -(sig * b[2][i]);
  }
}

/* Derivative of the volume with respect to one node's position. */
UM_KERNEL void lu_volu_der(const double x[8], const double y[8], const double z[8], int i0, int i1, int i2,
                           int i3, int i4, int i5, double *dvdx, double *dvdy, double *dvdz) {
  const double twelfth = 1.0 / 12.0;
  const double x0 = x[i0], x1 = x[i1], x2 = x[i2], x3 = x[i3], x4 = x[i4], x5 = x[i5];
  const double y0 = y[i0], y1 = y[i1], y2 = y[i2], y3 = y[i3], y4 = y[i4], y5 = y[i5];
  const double z0 = z[i0], z1 = z[i1], z2 = z[i2], z3 = z[i3], z4 = z[i4], z5 = z[i5];
  *dvdx = (y1 + y2) * (z0 + z1) - (y0 + y1) * (z1 + z2) + (y0 + y4) * (z3 + z4) - (y3 + y4) * (z0 + z4) -
          (y2 + y5) * (z3 + z5) + (y3 + y5) * (z2 + z5);
  *dvdy = -(x1 + x2) * (z0 + z1) + (x0 + x1) * (z1 + z2) - (x0 + x4) * (z3 + z4) + (x3 + x4) * (z0 + z4) +
          (x2 + x5) * (z3 + z5) - (x3 + x5) * (z2 + z5);
  *dvdz = -(y1 + y2) * (x0 + x1) + (y0 + y1) * (x1 + x2) - (y0 + y4) * (x3 + x4) + (y3 + y4) * (x0 + x4) +
          (y2 + y5) * (x3 + x5) - (y3 + y5) * (x2 + x5);
  *dvdx *= twelfth;
  *dvdy *= twelfth;
  *dvdz *= twelfth;
}

/* Flanagan-Belytschko hourglass-control forces of one element. */
UM_KERNEL void lu_hourglass_forces(const double x[8], const double y[8], const double z[8], const double xd[8],
                                   const double yd[8], const double zd[8], double determ, double ss,
                                   double mass, double f[3][8]) {
  const double gamma[4][8] = {{1., 1., -1., -1., -1., -1., 1., 1.},
                              {1., -1., -1., 1., -1., 1., 1., -1.},
                              {1., -1., 1., -1., 1., -1., 1., -1.},
                              {-1., 1., -1., 1., 1., -1., 1., -1.}};
  /* node n's volume derivative uses the five nodes listed (upstream's VoluDer order) */
  const int vd[8][6] = {{1, 2, 3, 4, 5, 7}, {2, 3, 0, 5, 6, 4}, {3, 0, 1, 6, 7, 5}, {0, 1, 2, 7, 4, 6},
                        {7, 6, 5, 0, 3, 1}, {4, 7, 6, 1, 0, 2}, {5, 4, 7, 2, 1, 3}, {6, 5, 4, 3, 2, 0}};
  double dvdx[8], dvdy[8], dvdz[8];
  for (int n = 0; n < 8; n++)
    lu_volu_der(x, y, z, vd[n][0], vd[n][1], vd[n][2], vd[n][3], vd[n][4], vd[n][5], &dvdx[n], &dvdy[n], &dvdz[n]);
  double hourgam[8][4];
  const double volinv = 1.0 / determ;
  for (int i1 = 0; i1 < 4; ++i1) {
    double hourmodx = x[0] * gamma[i1][0], hourmody = y[0] * gamma[i1][0], hourmodz = z[0] * gamma[i1][0];
    for (int k = 1; k < 8; k++) {
      hourmodx += x[k] * gamma[i1][k];
      hourmody += y[k] * gamma[i1][k];
      hourmodz += z[k] * gamma[i1][k];
    }
    for (int n = 0; n < 8; n++)
      hourgam[n][i1] = gamma[i1][n] - volinv * (dvdx[n] * hourmodx + dvdy[n] * hourmody + dvdz[n] * hourmodz);
  }
  const double volume13 = um_cbrt(determ); /* cbrt; in reproducible mode the same bits on host and GPU (um/kernel.h) */
  const double coefficient = -lu_hgcoef * 0.01 * ss * mass / volume13;
  const double *vel[3] = {xd, yd, zd};
  for (int d = 0; d < 3; d++) {
    double h[4];
    for (int i = 0; i < 4; i++) {
      h[i] = hourgam[0][i] * vel[d][0];
      for (int k = 1; k < 8; k++) h[i] += hourgam[k][i] * vel[d][k];
    }
    for (int n = 0; n < 8; n++)
      f[d][n] = coefficient * (hourgam[n][0] * h[0] + hourgam[n][1] * h[1] + hourgam[n][2] * h[2] +
                               hourgam[n][3] * h[3]);
  }
}

/* Volume of a hexahedron from its corner coordinates. */
UM_KERNEL double lu_elem_volume(const double x[8], const double y[8], const double z[8]) {
  const double twelveth = 1.0 / 12.0;
  const double dx61 = x[6] - x[1], dy61 = y[6] - y[1], dz61 = z[6] - z[1];
  const double dx70 = x[7] - x[0], dy70 = y[7] - y[0], dz70 = z[7] - z[0];
  const double dx63 = x[6] - x[3], dy63 = y[6] - y[3], dz63 = z[6] - z[3];
  const double dx20 = x[2] - x[0], dy20 = y[2] - y[0], dz20 = z[2] - z[0];
  const double dx50 = x[5] - x[0], dy50 = y[5] - y[0], dz50 = z[5] - z[0];
  const double dx64 = x[6] - x[4], dy64 = y[6] - y[4], dz64 = z[6] - z[4];
  const double dx31 = x[3] - x[1], dy31 = y[3] - y[1], dz31 = z[3] - z[1];
  const double dx72 = x[7] - x[2], dy72 = y[7] - y[2], dz72 = z[7] - z[2];
  const double dx43 = x[4] - x[3], dy43 = y[4] - y[3], dz43 = z[4] - z[3];
  const double dx57 = x[5] - x[7], dy57 = y[5] - y[7], dz57 = z[5] - z[7];
  const double dx14 = x[1] - x[4], dy14 = y[1] - y[4], dz14 = z[1] - z[4];
  const double dx25 = x[2] - x[5], dy25 = y[2] - y[5], dz25 = z[2] - z[5];
#define LU_TRIPLE(x1, y1, z1, x2, y2, z2, x3, y3, z3) \
  ((x1) * ((y2) * (z3) - (z2) * (y3)) + (x2) * ((z1) * (y3) - (y1) * (z3)) + (x3) * ((y1) * (z2) - (z1) * (y2)))
  double volume = LU_TRIPLE(dx31 + dx72, dx63, dx20, dy31 + dy72, dy63, dy20, dz31 + dz72, dz63, dz20) +
                  LU_TRIPLE(dx43 + dx57, dx64, dx70, dy43 + dy57, dy64, dy70, dz43 + dz57, dz64, dz70) +
                  LU_TRIPLE(dx14 + dx25, dx61, dx50, dy14 + dy25, dy61, dy50, dz14 + dz25, dz61, dz50);
#undef LU_TRIPLE
  volume *= twelveth;
  return volume;
}

UM_KERNEL double lu_area_face(const double x[8], const double y[8], const double z[8], int a, int b, int c,
                              int d) {
  const double fx = (x[c] - x[a]) - (x[d] - x[b]);
  const double fy = (y[c] - y[a]) - (y[d] - y[b]);
  const double fz = (z[c] - z[a]) - (z[d] - z[b]);
  const double gx = (x[c] - x[a]) + (x[d] - x[b]);
  const double gy = (y[c] - y[a]) + (y[d] - y[b]);
  const double gz = (z[c] - z[a]) + (z[d] - z[b]);
  return (fx * fx + fy * fy + fz * fz) * (gx * gx + gy * gy + gz * gz) -
         (fx * gx + fy * gy + fz * gz) * (fx * gx + fy * gy + fz * gz);
}

/* Characteristic length: 4 V / sqrt(largest face's area measure). */
UM_KERNEL double lu_char_length(const double x[8], const double y[8], const double z[8], double volume) {
  const int face[6][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  double charLength = 0.0;
  for (int f = 0; f < 6; f++) {
    const double a = lu_area_face(x, y, z, face[f][0], face[f][1], face[f][2], face[f][3]);
    charLength = a > charLength ? a : charLength; /* std::max(a, charLength) */
  }
  return 4.0 * volume / sqrt(charLength);
}

/* ---- nodal phase ---------------------------------------------------------- */

UM_KERNEL void lu_zero_force(double *f) { f[0] = f[1] = f[2] = 0.0; }

/* IntegrateStressForElems, forces added to the element's nodes (INC). */
UM_KERNEL void lu_integrate_stress(const double *x0, const double *x1, const double *x2, const double *x3,
                                   const double *x4, const double *x5, const double *x6, const double *x7,
                                   const double *p, const double *q, double *f0, double *f1, double *f2,
                                   double *f3, double *f4, double *f5, double *f6, double *f7) {
  double x[8], y[8], z[8], f[3][8];
  lu_collect(x0, x1, x2, x3, x4, x5, x6, x7, x, y, z);
  lu_stress_forces(x, y, z, p[0], q[0], f);
  lu_put8(f0, f1, f2, f3, f4, f5, f6, f7, f, 1);
}

/* CalcHourglassControlForElems + CalcFBHourglassForceForElems, forces added to
 * the element's nodes (INC). determ = volo * v, as upstream. */
UM_KERNEL void lu_hourglass(const double *x0, const double *x1, const double *x2, const double *x3,
                            const double *x4, const double *x5, const double *x6, const double *x7,
                            const double *u0, const double *u1, const double *u2, const double *u3,
                            const double *u4, const double *u5, const double *u6, const double *u7,
                            const double *volo, const double *v, const double *ss, const double *mass, double *f0,
                            double *f1, double *f2, double *f3, double *f4, double *f5, double *f6, double *f7) {
  double x[8], y[8], z[8], xd[8], yd[8], zd[8], f[3][8];
  lu_collect(x0, x1, x2, x3, x4, x5, x6, x7, x, y, z);
  lu_collect(u0, u1, u2, u3, u4, u5, u6, u7, xd, yd, zd);
  lu_hourglass_forces(x, y, z, xd, yd, zd, volo[0] * v[0], ss[0], mass[0], f);
  lu_put8(f0, f1, f2, f3, f4, f5, f6, f7, f, 1);
}

/* The "gather" variant (upstream's threaded scheme): each element writes its 8
 * corner forces to its own slots (WRITE through elem -> corners), then each
 * node sums its corners (READ through node -> corners). */
UM_KERNEL void lu_stress_corners(const double *x0, const double *x1, const double *x2, const double *x3,
                                 const double *x4, const double *x5, const double *x6, const double *x7,
                                 const double *p, const double *q, double *c0, double *c1, double *c2, double *c3,
                                 double *c4, double *c5, double *c6, double *c7) {
  double x[8], y[8], z[8], f[3][8];
  lu_collect(x0, x1, x2, x3, x4, x5, x6, x7, x, y, z);
  lu_stress_forces(x, y, z, p[0], q[0], f);
  lu_put8(c0, c1, c2, c3, c4, c5, c6, c7, f, 0);
}

UM_KERNEL void lu_hourglass_corners(const double *x0, const double *x1, const double *x2, const double *x3,
                                    const double *x4, const double *x5, const double *x6, const double *x7,
                                    const double *u0, const double *u1, const double *u2, const double *u3,
                                    const double *u4, const double *u5, const double *u6, const double *u7,
                                    const double *volo, const double *v, const double *ss, const double *mass,
                                    double *c0, double *c1, double *c2, double *c3, double *c4, double *c5,
                                    double *c6, double *c7) {
  double x[8], y[8], z[8], xd[8], yd[8], zd[8], f[3][8];
  lu_collect(x0, x1, x2, x3, x4, x5, x6, x7, x, y, z);
  lu_collect(u0, u1, u2, u3, u4, u5, u6, u7, xd, yd, zd);
  lu_hourglass_forces(x, y, z, xd, yd, zd, volo[0] * v[0], ss[0], mass[0], f);
  lu_put8(c0, c1, c2, c3, c4, c5, c6, c7, f, 0);
}

/* A node's force: the sum of its stress corners, plus the sum of its hourglass
 * corners (in element order, as upstream). Only the first ncorner of the 8
 * map entries are real (the rest repeat the first). */
UM_KERNEL void lu_gather_forces(const double *s0, const double *s1, const double *s2, const double *s3,
                                const double *s4, const double *s5, const double *s6, const double *s7,
                                const double *h0, const double *h1, const double *h2, const double *h3,
                                const double *h4, const double *h5, const double *h6, const double *h7,
                                const int *ncorner, double *f) {
  const double *s[8] = {s0, s1, s2, s3, s4, s5, s6, s7}, *h[8] = {h0, h1, h2, h3, h4, h5, h6, h7};
  for (int d = 0; d < 3; d++) {
    double fs = 0.0, fh = 0.0;
    for (int k = 0; k < ncorner[0]; k++) {
      fs += s[k][d];
      fh += h[k][d];
    }
    f[d] = fs + fh;
  }
}

UM_KERNEL void lu_acceleration(const double *f, const double *mass, double *acc) {
  acc[0] = f[0] / mass[0];
  acc[1] = f[1] / mass[0];
  acc[2] = f[2] / mass[0];
}

/* Symmetry planes: no acceleration normal to the plane (nodes through the
 * plane's node list). */
UM_KERNEL void lu_symm_x(double *acc) { acc[0] = 0.0; }
UM_KERNEL void lu_symm_y(double *acc) { acc[1] = 0.0; }
UM_KERNEL void lu_symm_z(double *acc) { acc[2] = 0.0; }

UM_KERNEL void lu_velocity(const double *acc, double *vel, const double *dt) {
  for (int d = 0; d < 3; d++) {
    double tmp = vel[d] + acc[d] * dt[0];
    if (fabs(tmp) < lu_u_cut) tmp = 0.0;
    vel[d] = tmp;
  }
}

UM_KERNEL void lu_position(const double *vel, double *x, const double *dt) {
  x[0] += vel[0] * dt[0];
  x[1] += vel[1] * dt[0];
  x[2] += vel[2] * dt[0];
}

/* ---- element phase -------------------------------------------------------- */

/* CalcKinematicsForElems and the deviatoric split of CalcLagrangeElements for
 * one element: new relative volume, its change, characteristic length, and
 * vdov (the trace of the velocity gradient at the half step). */
UM_KERNEL void lu_kinematics_elem(const double xn[8], const double yn[8], const double zn[8], const double xd[8],
                                  const double yd[8], const double zd[8], double volo, double v, double dt,
                                  double *vnew, double *delv, double *arealg, double *vdov) {
  double x[8], y[8], z[8], b[3][8], detJ = 0.0;
  const double volume = lu_elem_volume(xn, yn, zn);
  const double relativeVolume = volume / volo;
  *vnew = relativeVolume;
  *delv = relativeVolume - v;
  *arealg = lu_char_length(xn, yn, zn, volume);
  const double dt2 = 0.5 * dt;
  for (int j = 0; j < 8; ++j) {
    x[j] = xn[j] - dt2 * xd[j];
    y[j] = yn[j] - dt2 * yd[j];
    z[j] = zn[j] - dt2 * zd[j];
  }
  lu_shape_derivatives(x, y, z, b, &detJ);
  /* diagonal of the velocity gradient (CalcElemVelocityGradient's d[0..2]) */
  const double inv_detJ = 1.0 / detJ;
  const double d0 = inv_detJ * (b[0][0] * (xd[0] - xd[6]) + b[0][1] * (xd[1] - xd[7]) + b[0][2] * (xd[2] - xd[4]) +
                                b[0][3] * (xd[3] - xd[5]));
  const double d1 = inv_detJ * (b[1][0] * (yd[0] - yd[6]) + b[1][1] * (yd[1] - yd[7]) + b[1][2] * (yd[2] - yd[4]) +
                                b[1][3] * (yd[3] - yd[5]));
  const double d2 = inv_detJ * (b[2][0] * (zd[0] - zd[6]) + b[2][1] * (zd[1] - zd[7]) + b[2][2] * (zd[2] - zd[4]) +
                                b[2][3] * (zd[3] - zd[5]));
  *vdov = d0 + d1 + d2;
}

UM_KERNEL void lu_kinematics(const double *x0, const double *x1, const double *x2, const double *x3,
                             const double *x4, const double *x5, const double *x6, const double *x7,
                             const double *u0, const double *u1, const double *u2, const double *u3,
                             const double *u4, const double *u5, const double *u6, const double *u7,
                             const double *volo, const double *v, double *vnew, double *delv, double *arealg,
                             double *vdov, const double *dt) {
  double x[8], y[8], z[8], xd[8], yd[8], zd[8];
  lu_collect(x0, x1, x2, x3, x4, x5, x6, x7, x, y, z);
  lu_collect(u0, u1, u2, u3, u4, u5, u6, u7, xd, yd, zd);
  lu_kinematics_elem(x, y, z, xd, yd, zd, volo[0], v[0], dt[0], vnew, delv, arealg, vdov);
}

/* 0.25 (v[a] + v[b] + v[c] + v[d] - (v[e] + v[f] + v[g] + v[h])) times sign:
 * the difference of two opposite faces' mean (of coordinates or velocities). */
UM_KERNEL double lu_face_diff(const double v[8], double sign, int a, int b, int c, int d, int e, int f, int g,
                              int h) {
  return sign * 0.25 * ((v[a] + v[b] + v[c] + v[d]) - (v[e] + v[f] + v[g] + v[h]));
}

/* The element's mid-plane differences of a nodal vector along xi (di), eta (dj) and zeta (dk). */
UM_KERNEL void lu_mid_planes(const double x[8], const double y[8], const double z[8], double di[3], double dj[3],
                             double dk[3]) {
  const double *c[3] = {x, y, z};
  for (int d = 0; d < 3; d++) {
    dj[d] = lu_face_diff(c[d], -1.0, 0, 1, 5, 4, 3, 2, 6, 7);
    di[d] = lu_face_diff(c[d], 1.0, 1, 2, 6, 5, 0, 3, 7, 4);
    dk[d] = lu_face_diff(c[d], 1.0, 4, 5, 6, 7, 0, 1, 2, 3);
  }
}

/* lu_kinematics_elem's vnew (the same bits) and vdov (to rounding) from the volume and the mid-plane differences
 * of coordinates (di, dj, dk) and velocities (dvi, ...): the half step's Jacobian is half the former less dt/4
 * times the latter (the shape functions are linear in the nodes); vdov its cofactors against the latter over its
 * determinant. */
UM_KERNEL void lu_kinematics_planes(const double di[3], const double dj[3], const double dk[3], const double dvi[3],
                                    const double dvj[3], const double dvk[3], double volume, double volo, double dt,
                                    double *vnew, double *vdov) {
  *vnew = volume / volo;
  const double dt2 = 0.5 * dt;
  double fxi[3], fet[3], fze[3]; /* the Jacobian's columns: d(x, y, z) / d(xi, eta, zeta) */
  for (int d = 0; d < 3; d++) {
    fxi[d] = 0.5 * (di[d] - dt2 * dvi[d]);
    fet[d] = 0.5 * (dj[d] - dt2 * dvj[d]);
    fze[d] = 0.5 * (dk[d] - dt2 * dvk[d]);
  }
  double cxi[3], cet[3], cze[3];
  const double inv_detJ = 1.0 / lu_jacobian_cofactors(fxi, fet, fze, cxi, cet, cze);
  double trace = 0.0;
  for (int d = 0; d < 3; d++) trace += inv_detJ * 4.0 * (cxi[d] * dvi[d] + cet[d] * dvj[d] + cze[d] * dvk[d]);
  *vdov = trace;
}

/* One direction of the Q gradients: the area vector a = p x q of the mid-plane
 * gives the length scale vol / |a|, and a / vol the velocity gradient a . dv. */
UM_KERNEL void lu_gradient_dir(const double p[3], const double q[3], double vol, double norm, const double dv[3],
                               double *delx, double *delv) {
  const double ptiny = 1.e-36;
  double ax = p[1] * q[2] - p[2] * q[1];
  double ay = p[2] * q[0] - p[0] * q[2];
  double az = p[0] * q[1] - p[1] * q[0];
  *delx = vol / sqrt(ax * ax + ay * ay + az * az + ptiny);
  ax *= norm;
  ay *= norm;
  az *= norm;
  *delv = ax * dv[0] + ay * dv[1] + az * dv[2];
}

/* CalcMonotonicQGradientsForElems for one element, from the mid-plane differences of its coordinates and
 * velocities: length scales (delx: xi, eta, zeta) and velocity gradients (delv_xi, delv_eta, delv_zeta). */
UM_KERNEL void lu_gradients_elem(const double di[3], const double dj[3], const double dk[3], const double dvi[3],
                                 const double dvj[3], const double dvk[3], double volo, double vnew, double *delx,
                                 double *delv_xi, double *delv_eta, double *delv_zeta) {
  const double ptiny = 1.e-36;
  const double vol = volo * vnew;
  const double norm = 1.0 / (vol + ptiny);
  lu_gradient_dir(di, dj, vol, norm, dvk, &delx[2], delv_zeta); /* zeta: i cross j */
  lu_gradient_dir(dj, dk, vol, norm, dvi, &delx[0], delv_xi);   /* xi: j cross k */
  lu_gradient_dir(dk, di, vol, norm, dvj, &delx[1], delv_eta);  /* eta: k cross i */
}

UM_KERNEL void lu_monoq_gradients(const double *x0, const double *x1, const double *x2, const double *x3,
                                  const double *x4, const double *x5, const double *x6, const double *x7,
                                  const double *u0, const double *u1, const double *u2, const double *u3,
                                  const double *u4, const double *u5, const double *u6, const double *u7,
                                  const double *volo, const double *vnew, double *delx, double *delv_xi,
                                  double *delv_eta, double *delv_zeta) {
  double x[8], y[8], z[8], xv[8], yv[8], zv[8], di[3], dj[3], dk[3], dvi[3], dvj[3], dvk[3];
  lu_collect(x0, x1, x2, x3, x4, x5, x6, x7, x, y, z);
  lu_collect(u0, u1, u2, u3, u4, u5, u6, u7, xv, yv, zv);
  lu_mid_planes(x, y, z, di, dj, dk);
  lu_mid_planes(xv, yv, zv, dvi, dvj, dvk);
  lu_gradients_elem(di, dj, dk, dvi, dvj, dvk, volo[0], vnew[0], delx, delv_xi, delv_eta, delv_zeta);
}

/* The limiter of one direction: phi from the gradients of the element and its
 * two neighbours (or the boundary's stand-in). */
UM_KERNEL double lu_monoq_phi(double own, double minus, double plus, int bc, int m_mask, int m_symm, int m_free,
                              int p_mask, int p_symm, int p_free) {
  const double ptiny = 1.e-36;
  const double norm = 1. / (own + ptiny);
  double delvm = (bc & m_mask) == m_symm ? own : (bc & m_mask) == m_free ? 0.0 : minus;
  double delvp = (bc & p_mask) == p_symm ? own : (bc & p_mask) == p_free ? 0.0 : plus;
  delvm = delvm * norm;
  delvp = delvp * norm;
  double phi = .5 * (delvm + delvp);
  delvm *= lu_monoq_limiter_mult;
  delvp *= lu_monoq_limiter_mult;
  if (delvm < phi) phi = delvm;
  if (delvp < phi) phi = delvp;
  if (phi < 0.) phi = 0.;
  if (phi > lu_monoq_max_slope) phi = lu_monoq_max_slope;
  return phi;
}

/* CalcMonotonicQRegionForElems: linear and quadratic artificial viscosity
 * terms. The neighbours' gradients come through the face map
 * (xi-, xi+, eta-, eta+, zeta-, zeta+). */
UM_KERNEL void lu_monoq(const double *xi_m, const double *xi_p, const double *eta_m, const double *eta_p,
                        const double *zeta_m, const double *zeta_p, const double *delv_xi, const double *delv_eta,
                        const double *delv_zeta, const double *delx, const int *bc, const double *vdov,
                        const double *mass, const double *volo, const double *vnew, double *qq, double *ql) {
  const int m = bc[0];
  const double phixi = lu_monoq_phi(delv_xi[0], xi_m[0], xi_p[0], m, LU_XI_M, LU_XI_M_SYMM, LU_XI_M_FREE, LU_XI_P,
                                    LU_XI_P_SYMM, LU_XI_P_FREE);
  const double phieta = lu_monoq_phi(delv_eta[0], eta_m[0], eta_p[0], m, LU_ETA_M, LU_ETA_M_SYMM, LU_ETA_M_FREE,
                                     LU_ETA_P, LU_ETA_P_SYMM, LU_ETA_P_FREE);
  const double phizeta = lu_monoq_phi(delv_zeta[0], zeta_m[0], zeta_p[0], m, LU_ZETA_M, LU_ZETA_M_SYMM,
                                      LU_ZETA_M_FREE, LU_ZETA_P, LU_ZETA_P_SYMM, LU_ZETA_P_FREE);
  double qlin, qquad;
  if (vdov[0] > 0.) {
    qlin = 0.;
    qquad = 0.;
  } else {
    double delvxxi = delv_xi[0] * delx[0];
    double delvxeta = delv_eta[0] * delx[1];
    double delvxzeta = delv_zeta[0] * delx[2];
    if (delvxxi > 0.) delvxxi = 0.;
    if (delvxeta > 0.) delvxeta = 0.;
    if (delvxzeta > 0.) delvxzeta = 0.;
    const double rho = mass[0] / (volo[0] * vnew[0]);
    qlin = -lu_qlc_monoq * rho *
           (delvxxi * (1. - phixi) + delvxeta * (1. - phieta) + delvxzeta * (1. - phizeta));
    qquad = lu_qqc_monoq * rho *
            (delvxxi * delvxxi * (1. - phixi * phixi) + delvxeta * delvxeta * (1. - phieta * phieta) +
             delvxzeta * delvxzeta * (1. - phizeta * phizeta));
  }
  qq[0] = qquad;
  ql[0] = qlin;
}

/* CalcPressureForElems for one element. */
UM_KERNEL double lu_pressure(double *bvc, double *pbvc, double e, double compression, double vnewc) {
  const double c1s = 2.0 / 3.0;
  *bvc = c1s * (compression + 1.);
  *pbvc = c1s;
  double p = *bvc * e;
  if (fabs(p) < lu_p_cut) p = 0.0;
  if (vnewc >= lu_eosvmax) p = 0.0; /* impossible condition here? (upstream) */
  if (p < lu_pmin) p = lu_pmin;
  return p;
}

/* The division by the reference density is skipped when it is 1 (every LULESH run): x / 1 is x exactly, so the
 * bits are the same, and the EOS's repetitions (lu_eos) lose three FP64 divisions each of their six costly
 * operations (the other three are this function's square roots). */
UM_KERNEL double lu_sound_speed2(double pbvc, double e, double vfac, double bvc, double p) {
  double ssc = pbvc * e + vfac * vfac * bvc * p;
  if (lu_refdens != 1.0) ssc /= lu_refdens;
  if (ssc <= .1111111e-36) ssc = .3333333e-18;
  else ssc = sqrt(ssc);
  return ssc;
}

/* EvalEOSForElems (+ CalcEnergyForElems, CalcSoundSpeedForElems) for one
 * element of a region, through the region's element list. `rep` repeats the
 * evaluation (upstream's cost model for expensive regions: -c, -r); the result
 * does not depend on it. */
UM_KERNEL void lu_eos(double *e, const double *delv, double *p, double *q, const double *qq, const double *ql,
                      const double *vnew, double *ss, const int *rep) {
  double vnewc = vnew[0];
  if (lu_eosvmin != 0. && vnewc < lu_eosvmin) vnewc = lu_eosvmin;
  if (lu_eosvmax != 0. && vnewc > lu_eosvmax) vnewc = lu_eosvmax;
  double p_new = 0., e_new = 0., q_new = 0., bvc = 0., pbvc = 0.;
  for (int j = 0; j < rep[0]; j++) {
    const double e_old = e[0], delvc = delv[0], q_old = q[0], qq_old = qq[0], ql_old = ql[0];
    double p_old = p[0];
    double compression = 1. / vnewc - 1.;
    const double vchalf = vnewc - delvc * .5;
    double compHalfStep = 1. / vchalf - 1.;
    if (lu_eosvmin != 0. && vnewc <= lu_eosvmin) compHalfStep = compression;
    if (lu_eosvmax != 0. && vnewc >= lu_eosvmax) {
      p_old = 0.;
      compression = 0.;
      compHalfStep = 0.;
    }
    const double work = 0.;

    /* CalcEnergyForElems */
    e_new = e_old - 0.5 * delvc * (p_old + q_old) + 0.5 * work;
    if (e_new < lu_emin) e_new = lu_emin;
    const double pHalfStep = lu_pressure(&bvc, &pbvc, e_new, compHalfStep, vnewc);
    const double vhalf = 1. / (1. + compHalfStep);
    if (delvc > 0.) q_new = 0.;
    else q_new = lu_sound_speed2(pbvc, e_new, vhalf, bvc, pHalfStep) * ql_old + qq_old;
    e_new = e_new + 0.5 * delvc * (3.0 * (p_old + q_old) - 4.0 * (pHalfStep + q_new));
    e_new += 0.5 * work;
    if (fabs(e_new) < lu_e_cut) e_new = 0.;
    if (e_new < lu_emin) e_new = lu_emin;
    p_new = lu_pressure(&bvc, &pbvc, e_new, compression, vnewc);
    const double sixth = 1.0 / 6.0;
    double q_tilde;
    if (delvc > 0.) q_tilde = 0.;
    else q_tilde = lu_sound_speed2(pbvc, e_new, vnewc, bvc, p_new) * ql_old + qq_old;
    e_new = e_new - (7.0 * (p_old + q_old) - 8.0 * (pHalfStep + q_new) + (p_new + q_tilde)) * delvc * sixth;
    if (fabs(e_new) < lu_e_cut) e_new = 0.;
    if (e_new < lu_emin) e_new = lu_emin;
    p_new = lu_pressure(&bvc, &pbvc, e_new, compression, vnewc);
    if (delvc <= 0.) {
      q_new = lu_sound_speed2(pbvc, e_new, vnewc, bvc, p_new) * ql_old + qq_old;
      if (fabs(q_new) < lu_q_cut) q_new = 0.;
    }
  }
  p[0] = p_new;
  e[0] = e_new;
  q[0] = q_new;
  ss[0] = lu_sound_speed2(pbvc, e_new, vnewc, bvc, p_new);
}

/* UpdateVolumesForElems. */
UM_KERNEL double lu_updated_volume(double vnew) {
  double tmpV = vnew;
  if (fabs(tmpV - 1.0) < lu_v_cut) tmpV = 1.0;
  return tmpV;
}

UM_KERNEL void lu_update_volume(const double *vnew, double *v) { v[0] = lu_updated_volume(vnew[0]); }

/* CalcCourantConstraintForElems and CalcHydroConstraintForElems for one element
 * (into MIN reductions), and the checks upstream aborts on (MAX of an error
 * code): a non-positive new volume (VolumeError) or q above qstop (QStopError). */
UM_KERNEL void lu_constraints_elem(double ss, double vdov, double arealg, double vnew, double q, double *dtcourant,
                                   double *dthydro, double *err) {
  const double qqc2 = 64.0 * lu_qqc * lu_qqc;
  double dtf = ss * ss;
  if (vdov < 0.) dtf = dtf + qqc2 * arealg * arealg * vdov * vdov;
  dtf = sqrt(dtf);
  dtf = arealg / dtf;
  if (vdov != 0.) {
    if (dtf < dtcourant[0]) dtcourant[0] = dtf;
    const double dtdvov = lu_dvovmax / (fabs(vdov) + 1.e-20);
    if (dthydro[0] > dtdvov) dthydro[0] = dtdvov;
  }
  if (!(vnew > 0.) && err[0] < LU_ERR_VOLUME) err[0] = LU_ERR_VOLUME;
  if (q > lu_qstop && err[0] < LU_ERR_QSTOP) err[0] = LU_ERR_QSTOP;
}

UM_KERNEL void lu_time_constraints(const double *ss, const double *vdov, const double *arealg, const double *vnew,
                                   const double *q, double *dtcourant, double *dthydro, double *err) {
  lu_constraints_elem(ss[0], vdov[0], arealg[0], vnew[0], q[0], dtcourant, dthydro, err);
}

/* ---- fused loops (params.fused: true) ------------------------------------------
 * The same arithmetic as the loops above, fewer passes over memory: what
 * upstream's GPU port does too. */

/* Stress + hourglass forces of one element at its 8 nodes (the fused loops). */
UM_KERNEL void lu_volume_force_elem(const double *x0, const double *x1, const double *x2, const double *x3,
                                    const double *x4, const double *x5, const double *x6, const double *x7,
                                    const double *u0, const double *u1, const double *u2, const double *u3,
                                    const double *u4, const double *u5, const double *u6, const double *u7,
                                    const double *p, const double *q, const double *volo, const double *v,
                                    const double *ss, const double *mass, double fs[3][8]) {
  double x[8], y[8], z[8], xd[8], yd[8], zd[8], fh[3][8];
  lu_collect(x0, x1, x2, x3, x4, x5, x6, x7, x, y, z);
  lu_collect(u0, u1, u2, u3, u4, u5, u6, u7, xd, yd, zd);
  lu_stress_forces(x, y, z, p[0], q[0], fs);
  lu_hourglass_forces(x, y, z, xd, yd, zd, volo[0] * v[0], ss[0], mass[0], fh);
  lu_add_forces(fs, fh);
}

/* IntegrateStressForElems + hourglass control: one INC of each node's force. */
UM_KERNEL void lu_volume_force(const double *x0, const double *x1, const double *x2, const double *x3,
                               const double *x4, const double *x5, const double *x6, const double *x7,
                               const double *u0, const double *u1, const double *u2, const double *u3,
                               const double *u4, const double *u5, const double *u6, const double *u7,
                               const double *p, const double *q, const double *volo, const double *v, const double *ss,
                               const double *mass, double *f0, double *f1, double *f2, double *f3, double *f4,
                               double *f5, double *f6, double *f7) {
  double fs[3][8];
  lu_volume_force_elem(x0, x1, x2, x3, x4, x5, x6, x7, u0, u1, u2, u3, u4, u5, u6, u7, p, q, volo, v, ss, mass, fs);
  lu_put8(f0, f1, f2, f3, f4, f5, f6, f7, fs, 1);
}

/* The gather scheme fused as upstream's GPU port: each corner's stress +
 * hourglass force, then one gather per node. */
UM_KERNEL void lu_volume_force_corners(const double *x0, const double *x1, const double *x2, const double *x3,
                                       const double *x4, const double *x5, const double *x6, const double *x7,
                                       const double *u0, const double *u1, const double *u2, const double *u3,
                                       const double *u4, const double *u5, const double *u6, const double *u7,
                                       const double *p, const double *q, const double *volo, const double *v,
                                       const double *ss, const double *mass, double *c0, double *c1, double *c2,
                                       double *c3, double *c4, double *c5, double *c6, double *c7) {
  double fs[3][8];
  lu_volume_force_elem(x0, x1, x2, x3, x4, x5, x6, x7, u0, u1, u2, u3, u4, u5, u6, u7, p, q, volo, v, ss, mass, fs);
  lu_put8(c0, c1, c2, c3, c4, c5, c6, c7, fs, 0);
}

UM_KERNEL void lu_gather_force(const double *c0, const double *c1, const double *c2, const double *c3,
                               const double *c4, const double *c5, const double *c6, const double *c7,
                               const int *ncorner, double *f) {
  const double *c[8] = {c0, c1, c2, c3, c4, c5, c6, c7};
  for (int d = 0; d < 3; d++) {
    double sum = 0.0;
    for (int k = 0; k < ncorner[0]; k++) sum += c[k][d];
    f[d] = sum;
  }
}

/* Acceleration (its force taken as zero across each symmetry plane the node lies on: bit d of symm, plane d = 0;
 * 0 / m = 0 gives ApplyAccelerationBoundaryConditions' zero exactly), velocity and position of a node; the force
 * is then cleared for the next step's INC loop. */
UM_KERNEL void lu_nodal_update(double *f, const double *mass, const int *symm, double *vel, double *x,
                               const double *dt) {
  for (int d = 0; d < 3; d++) {
    const double acc = (symm[0] >> d & 1 ? 0.0 : f[d]) / mass[0];
    double tmp = vel[d] + acc * dt[0];
    if (fabs(tmp) < lu_u_cut) tmp = 0.0;
    vel[d] = tmp;
    x[d] += tmp * dt[0];
    f[d] = 0.0;
  }
}

/* CalcKinematicsForElems + CalcMonotonicQGradientsForElems in two phases (vector arguments, read where needed):
 * the coordinates' volume, characteristic length and mid-plane differences, then the velocities'; all else is of
 * the 18 differences. No delv: params.eos merged_q's loop, the one that needs it, takes vnew - v. */
UM_KERNEL void lu_kinematics_gradients_q(const um_vec *xn, const um_vec *un, const double *volo, double *vnew,
                                         double *arealg, double *vdov, double *delx, double *delv_xi,
                                         double *delv_eta, double *delv_zeta, const double *dt) {
  double x[8], y[8], z[8], di[3], dj[3], dk[3], dvi[3], dvj[3], dvk[3];
  lu_collect_vec(xn, x, y, z);
  const double volume = lu_elem_volume(x, y, z);
  *arealg = lu_char_length(x, y, z, volume);
  lu_mid_planes(x, y, z, di, dj, dk);
  um_phase(); /* the coordinates are dead before the velocities are read: half the nodal values live at once */
  lu_collect_vec(un, x, y, z);
  lu_mid_planes(x, y, z, dvi, dvj, dvk);
  double vn;
  lu_kinematics_planes(di, dj, dk, dvi, dvj, dvk, volume, volo[0], dt[0], &vn, vdov);
  vnew[0] = vn;
  lu_gradients_elem(di, dj, dk, dvi, dvj, dvk, volo[0], vn, delx, delv_xi, delv_eta, delv_zeta);
}

/* The same with delv, the change of the relative volume (the EOS loops of params.eos regions and merged). */
UM_KERNEL void lu_kinematics_gradients(const um_vec *xn, const um_vec *un, const double *volo, const double *v,
                                       double *vnew, double *delv, double *arealg, double *vdov, double *delx,
                                       double *delv_xi, double *delv_eta, double *delv_zeta, const double *dt) {
  lu_kinematics_gradients_q(xn, un, volo, vnew, arealg, vdov, delx, delv_xi, delv_eta, delv_zeta, dt);
  delv[0] = vnew[0] - v[0];
}

/* UpdateVolumesForElems + the time constraints. */
UM_KERNEL void lu_volume_constraints(const double *ss, const double *vdov, const double *arealg, const double *vnew,
                                     const double *q, double *v, double *dtcourant, double *dthydro, double *err) {
  v[0] = lu_updated_volume(vnew[0]);
  lu_constraints_elem(ss[0], vdov[0], arealg[0], vnew[0], q[0], dtcourant, dthydro, err);
}

/* params.eos: merged -- an element's EOS (its region's repetitions in rep) and then its volume update and time
 * constraints, in one pass: what eos_r<k> and volume_constraints do to it, q and ss as the EOS leaves them. */
UM_KERNEL void lu_eos_constraints(double *e, const double *delv, double *p, double *q, const double *qq,
                                  const double *ql, const double *vnew, double *ss, const int *rep, const double *vdov,
                                  const double *arealg, double *v, double *dtcourant, double *dthydro, double *err) {
  lu_eos(e, delv, p, q, qq, ql, vnew, ss, rep);
  lu_volume_constraints(ss, vdov, arealg, vnew, q, v, dtcourant, dthydro, err);
}

/* params.eos: merged_q -- eos_constraints with the element's monotonic Q terms computed first in the same pass
 * (its neighbours' gradients through eos_faces, its own through eos_elems_map): qq and ql stay in registers
 * instead of a write by monoq and a read here. The same arithmetic as monoq then eos_constraints. */
UM_KERNEL void lu_q_eos_constraints(const double *xi_m, const double *xi_p, const double *eta_m, const double *eta_p,
                                    const double *zeta_m, const double *zeta_p, const double *delv_xi,
                                    const double *delv_eta, const double *delv_zeta, const double *delx, const int *bc,
                                    const double *vdov, const double *mass, const double *volo, const double *vnew,
                                    double *e, double *p, double *q, double *ss, const int *rep, const double *arealg,
                                    double *v, double *dtcourant, double *dthydro, double *err) {
  double qq, ql;
  lu_monoq(xi_m, xi_p, eta_m, eta_p, zeta_m, zeta_p, delv_xi, delv_eta, delv_zeta, delx, bc, vdov, mass, volo, vnew,
           &qq, &ql);
  const double delv = vnew[0] - v[0]; /* lu_kinematics_gradients' delv, the same bits */
  lu_eos_constraints(e, &delv, p, q, &qq, &ql, vnew, ss, rep, vdov, arealg, v, dtcourant, dthydro, err);
}

#endif
