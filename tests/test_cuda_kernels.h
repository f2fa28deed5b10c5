/* Kernels of the CUDA backend's and the compiled host loops' tests: every access mode, direct and through
 * maps, double / float / int, global READ and SUM (INC) / MIN / MAX. Written
 * once: compiled as C here and by NVRTC from the embedded text of this file. */
#ifndef UM_TEST_CUDA_KERNELS_H
#define UM_TEST_CUDA_KERNELS_H
#include "um/kernel.h"

UM_CONST double tk_scale;

/* a: dim 3 READ, b: dim 3 WRITE, c: dim 2 RW, k: int READ, s: dim 2 INC (direct);
 * sum: gbl dim 2 INC, mn: gbl MIN, mx: gbl MAX, isum: gbl int INC */
UM_KERNEL void tk_direct(const double *a, double *b, double *c, const int *k, double *s, double *sum, double *mn,
                         double *mx, int *isum) {
  for (int i = 0; i < 3; i++) b[i] = 2.0 * a[i] + k[0];
  c[0] = 0.5 * c[0] + a[0];
  c[1] = c[1] * a[2] - a[1];
  s[0] += a[0];
  s[1] += tk_scale * a[1];
  sum[0] += a[0] * a[1];
  sum[1] += c[1];
  if (a[2] < mn[0]) mn[0] = a[2];
  if (a[1] - a[0] > mx[0]) mx[0] = a[1] - a[0];
  isum[0] += k[0];
}

/* Over edges: w direct READ, u1/u2 dim 2 READ through the map, r1/r2 dim 2 INC,
 * f1 float INC at the first end, sum gbl INC, cnt gbl int INC, g gbl READ. */
UM_KERNEL void tk_edge(const double *w, const double *u1, const double *u2, double *r1, double *r2, float *f1,
                       double *sum, int *cnt, const double *g) {
  for (int i = 0; i < 2; i++) {
    double d = w[0] * (u2[i] - u1[i]) * g[i];
    r1[i] += d;
    r2[i] -= d;
  }
  f1[0] += (float)w[0];
  sum[0] += w[0] * u1[0];
  cnt[0] += 1;
}

/* Over cells: q dim 3 direct READ; n0..n3 dim 3 INC at the four corners; qmax gbl MAX;
 * fmin gbl float MIN. */
UM_KERNEL void tk_cell(const double *q, double *n0, double *n1, double *n2, double *n3, double *qmax, float *fmin) {
  for (int i = 0; i < 3; i++) {
    n0[i] += 0.25 * q[i];
    n1[i] += 0.5 * q[i];
    n2[i] -= 0.125 * q[i];
    n3[i] += q[i] * q[i];
  }
  if (q[0] > qmax[0]) qmax[0] = q[0];
  if ((float)q[1] < fmin[0]) fmin[0] = (float)q[1];
}

/* RW through a map with repeats (the update commutes, so any order gives the same sum). */
UM_KERNEL void tk_indirect_rw(double *v, const double *a) {
  v[0] = v[0] + a[0] * a[0];
  v[1] = v[1] - a[0];
}

/* WRITE through an injective map. */
UM_KERNEL void tk_indirect_write(double *v, const double *a) {
  v[0] = 3.0 * a[0];
  v[1] = -a[0];
  v[2] = a[0] * a[0];
}

/* Over edges: READ and INC of two different dats through two maps of one set. */
UM_KERNEL void tk_gather(const double *x1, const double *x2, const int *m, double *acc) {
  acc[0] += (x1[0] - x2[0]) * m[0];
  acc[1] += x1[1] * x2[1];
}

/* Over edges, for the compiled hosts' SIMD range: two dim-2 gathers, a direct
 * READ, a direct dim-2 WRITE and a direct INC, with a square root and a
 * division (what vectorises), and the constant. */
UM_KERNEL void tk_simd(const double *x1, const double *x2, const double *w, double *out, double *acc) {
  const double dx = x2[0] - x1[0], dy = x2[1] - x1[1];
  out[0] = sqrt(dx * dx + dy * dy) / (w[0] + tk_scale);
  out[1] = fabs(dx) - 0.25 * dy;
  acc[0] += out[0] * w[0];
}

/* MIN, MAX and SUM that keep a NaN once seen (issue 15: the backends' combining
 * must then keep it across threads, blocks and launches) */
UM_KERNEL void tk_nan_minmax(const double *a, double *mn, double *mx, double *sum, float *fmx) {
  if (a[0] < mn[0] || a[0] != a[0]) mn[0] = a[0];
  if (a[0] > mx[0] || a[0] != a[0]) mx[0] = a[0];
  if ((float)a[0] > fmx[0] || a[0] != a[0]) fmx[0] = (float)a[0];
  sum[0] += a[0];
}

/* MIN and MAX of every type, a row of 3 (one component's values reach -0.0 and 0.0) and one of 20 */
UM_KERNEL void tk_minmax_types(const double *a, double *dmn, double *dmx, float *fmn, float *fmx, int *imn, int *imx,
                               double *wmx) {
  for (int c = 0; c < 3; c++) {
    const double v = c == 0 ? a[0] : c == 1 ? -a[0] : (a[0] > 0 ? 0.0 : -0.0);
    if (v < dmn[c]) dmn[c] = v;
    if (v > dmx[c]) dmx[c] = v;
  }
  if ((float)a[0] < fmn[0]) fmn[0] = (float)a[0];
  if ((float)a[0] > fmx[0]) fmx[0] = (float)a[0];
  const int i = (int)floor(a[0]);
  if (i < imn[0]) imn[0] = i;
  if (i > imx[0]) imx[0] = i;
  for (int c = 0; c < 20; c++)
    if (a[0] - 3.0 * c > wmx[c]) wmx[c] = a[0] - 3.0 * c;
}

/* ---- automatic loop splitting (test_split.cpp) ---- */

/* Over edges: increments through two maps of one set into two dats: n0/n1 dim 2 at the edge's two
 * nodes, c0/c1 dim 1 (float at the second cell) at its two cells; x0/x1 dim 2 READ at the nodes. */
UM_KERNEL void tk_split_two_maps(const double *w, const double *x0, const double *x1, double *n0, double *n1,
                                 double *c0, float *c1) {
  const double d0 = w[0] * (x1[0] - x0[0]), d1 = w[0] * x0[1] * x1[1];
  n0[0] += d0;
  n0[1] += d1;
  n1[0] -= d0;
  n1[1] += 0.5 * d1;
  c0[0] += w[0] * w[0];
  c1[0] += (float)(d0 - d1);
}

/* Over edges: r0/r1 dim 2 INC through the edge's nodes and v dim 2 RW through its first node
 * (another dat; the update adds, so with exact values any order gives the same bits). */
UM_KERNEL void tk_split_inc_rw(const double *w, double *r0, double *r1, double *v) {
  r0[0] += w[0];
  r0[1] -= 2.0 * w[0];
  r1[0] += 3.0 * w[0];
  r1[1] += w[0] * w[0];
  v[0] = v[0] + w[0];
  v[1] = v[1] - 0.5 * w[0];
}

/* Over edges: r INC at the first node and READ at the second (the same dat): kept whole. */
UM_KERNEL void tk_split_inc_read(const double *r1, double *r0) {
  r0[0] += 0.5 * r1[0];
}

/* Over edges: increments through a map with a global MIN and MAX of the edge's difference. */
UM_KERNEL void tk_split_minmax(const double *x0, const double *x1, double *r0, double *r1, double *mn,
                               double *mx) {
  const double d = x1[0] - x0[0];
  r0[0] += d;
  r1[0] -= d;
  if (d < mn[0]) mn[0] = d;
  if (d > mx[0]) mx[0] = d;
}

/* Over edges: increments written on some paths only (w's sign decides). */
UM_KERNEL void tk_split_some_paths(const double *w, double *r0, double *r1) {
  if (w[0] > 0) r0[0] += w[0];
  if (w[0] < -0.5) r1[0] += w[0] * w[0];
}

/* Direct: a global double and float sum of a. */
UM_KERNEL void tk_split_sum(const double *a, double *sum, float *fsum) {
  sum[0] += a[0];
  fsum[0] += (float)a[0];
}

/* Direct: a global double sum of a (values beyond the float range). */
UM_KERNEL void tk_split_dsum(const double *a, double *sum) { sum[0] += a[0]; }

/* Over edges, signed zeros: r0 dim 2 INC at the first node adds w and subtracts it, r1 dim 2 INC at the
 * second node adds only where w > 0 (never for a zero), f1 float INC at the second node adds w. */
UM_KERNEL void tk_split_signed_zero(const double *w, double *r0, double *r1, float *f1) {
  r0[0] += w[0];
  r0[1] -= w[0];
  if (w[0] > 0) {
    r1[0] += w[0];
    r1[1] += 2.0 * w[0];
  }
  f1[0] += (float)w[0];
}

#endif
