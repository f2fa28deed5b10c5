/* Kernels for the engine tests: every access mode, direct and indirect,
 * double/float/int, and global SUM (INC), MIN and MAX. */
#include "um/kernel.h"
#include "test_kernels.h"

/* a: dim 3 READ, b: dim 3 WRITE, c: dim 2 RW, k: int READ;
 * sum: gbl dim 2 INC, mn: gbl MIN, mx: gbl MAX, isum: gbl int INC */
UM_KERNEL void direct_ops(const double *a, double *b, double *c, const int *k, double *sum, double *mn, double *mx,
                          int *isum) {
  for (int i = 0; i < 3; i++) b[i] = 2.0 * a[i] + k[0];
  c[0] = 0.5 * c[0] + a[0];
  c[1] = c[1] * a[2] - a[1];
  sum[0] += a[0] * a[1];
  sum[1] += c[1];
  if (a[2] < mn[0]) mn[0] = a[2];
  if (a[1] - a[0] > mx[0]) mx[0] = a[1] - a[0];
  isum[0] += k[0];
}

/* Over edges: w direct READ, u1/u2 dim 2 READ through the map, r1/r2 dim 2 INC,
 * f1 float INC at the first end, sum gbl INC. */
UM_KERNEL void edge_inc(const double *w, const double *u1, const double *u2, double *r1, double *r2, float *f1,
                        double *sum, int *cnt) {
  for (int i = 0; i < 2; i++) {
    double d = w[0] * (u2[i] - u1[i]);
    r1[i] += d;
    r2[i] -= d;
  }
  f1[0] += (float)w[0];
  sum[0] += w[0] * u1[0];
  cnt[0] += 1;
}

/* RW through a map (the update commutes, so any order gives the same sum). */
UM_KERNEL void indirect_rw(double *v, const double *a) {
  v[0] = v[0] + a[0] * a[0];
  v[1] = v[1] - a[0];
}

/* WRITE through an injective map. */
UM_KERNEL void indirect_write(double *v, const double *a) {
  v[0] = 3.0 * a[0];
  v[1] = -a[0];
  v[2] = a[0] * a[0];
}

/* Over cells: q dim 3 direct READ; n0..n3 dim 3 INC at the four corners; qmax gbl MAX. */
UM_KERNEL void cell_inc(const double *q, double *n0, double *n1, double *n2, double *n3, double *qmax) {
  for (int i = 0; i < 3; i++) {
    n0[i] += 0.25 * q[i];
    n1[i] += 0.5 * q[i];
    n2[i] -= 0.125 * q[i];
    n3[i] += q[i] * q[i];
  }
  if (q[0] > qmax[0]) qmax[0] = q[0];
}

/* MIN, MAX and SUM of a that keep a NaN once seen (the kernel's part); the
 * engine must then keep it across blocks, threads and partials (issue 15). */
UM_KERNEL void nan_minmax(const double *a, double *mn, double *mx, double *sum) {
  if (a[0] < mn[0] || a[0] != a[0]) mn[0] = a[0];
  if (a[0] > mx[0] || a[0] != a[0]) mx[0] = a[0];
  sum[0] += a[0];
}

UM_KERNEL_DEFINE(direct_ops, 8, 0, "test_kernels.c");
UM_KERNEL_DEFINE(nan_minmax, 4, 0, "test_kernels.c");
UM_KERNEL_DEFINE(edge_inc, 8, 0, "test_kernels.c");
UM_KERNEL_DEFINE(indirect_rw, 2, 0, "test_kernels.c");
UM_KERNEL_DEFINE(indirect_write, 2, 0, "test_kernels.c");
UM_KERNEL_DEFINE(cell_inc, 6, 0, "test_kernels.c");

/* b = cbrt(a): um_cbrt, the portable version in reproducible mode (um/kernel.h). */
UM_KERNEL void cbrt_of(const double *a, double *b) { b[0] = um_cbrt(a[0]); }
UM_KERNEL_DEFINE(cbrt_of, 2, 0, "test_kernels.c");
