/* Kernels of the vector-argument tests (um_arg_vec: every target of a map row as one
 * `const um_vec *`), each beside the same kernel written with one pointer per map index.
 * Compiled as C here and by NVRTC from the embedded text of this file. */
#ifndef UM_TEST_VEC_KERNELS_H
#define UM_TEST_VEC_KERNELS_H
#include "um/kernel.h"

/* out = sum over the row's targets j of (j + 1) * nb[j] (dim 2) */
UM_KERNEL void tv_sum_vec(const um_vec *nb, double *out) {
  for (int c = 0; c < 2; c++) {
    double s = 0;
    for (int j = 0; j < nb->n; j++) s += (j + 1) * UM_VEC_D(nb, j, c);
    out[c] = s;
  }
}
UM_KERNEL void tv_sum3(const double *n0, const double *n1, const double *n2, double *out) {
  for (int c = 0; c < 2; c++) out[c] = 1 * n0[c] + 2 * n1[c] + 3 * n2[c];
}
/* one map index at a time: out += w * nb (the per-index form of tv_sum_vec for arity > 48) */
UM_KERNEL void tv_sum1(const double *nb, double *out, const double *w) {
  for (int c = 0; c < 2; c++) out[c] += w[0] * nb[c];
}

/* every target of the row gets (j + 1) * q (dim 2) */
UM_KERNEL void tv_scatter_vec(const double *q, const um_vec *acc) {
  for (int j = 0; j < acc->n; j++)
    for (int c = 0; c < 2; c++) um_vec_inc_d(acc, j, c, (j + 1) * q[c]);
}
UM_KERNEL void tv_scatter3(const double *q, double *a0, double *a1, double *a2) {
  for (int c = 0; c < 2; c++) {
    a0[c] += 1 * q[c];
    a1[c] += 2 * q[c];
    a2[c] += 3 * q[c];
  }
}

/* int and float increments: every target counts its references and sums 0.5f per reference */
UM_KERNEL void tv_count_vec(const um_vec *cnt, const um_vec *half) {
  for (int j = 0; j < cnt->n; j++) {
    um_vec_inc_i(cnt, j, 0, 1);
    um_vec_inc_f(half, j, 0, 0.5f);
  }
}
UM_KERNEL void tv_count3(int *c0, int *c1, int *c2, float *h0, float *h1, float *h2) {
  c0[0] += 1, c1[0] += 1, c2[0] += 1;
  h0[0] += 0.5f, h1[0] += 0.5f, h2[0] += 0.5f;
}

/* a vector READ, a vector INC and a per-index INC of another dat in one loop (a stencil:
 * every neighbour's value into res, the row's first target counts the element) */
UM_KERNEL void tv_mixed_vec(const double *q, const um_vec *nb, const um_vec *res, double *r0) {
  double s = 0;
  for (int j = 0; j < nb->n; j++) s += UM_VEC_D(nb, j, 0) - UM_VEC_D(nb, j, 1);
  for (int j = 0; j < res->n; j++) {
    um_vec_inc_d(res, j, 0, q[0] * s);
    um_vec_inc_d(res, j, 1, q[1]);
  }
  r0[0] += 1.0;
}
UM_KERNEL void tv_mixed3(const double *q, const double *n0, const double *n1, const double *n2, double *s0,
                         double *s1, double *s2, double *r0) {
  const double s = (n0[0] - n0[1]) + (n1[0] - n1[1]) + (n2[0] - n2[1]);
  s0[0] += q[0] * s, s0[1] += q[1];
  s1[0] += q[0] * s, s1[1] += q[1];
  s2[0] += q[0] * s, s2[1] += q[1];
  r0[0] += 1.0;
}

/* Whole-dat arguments (um_arg_whole): rows the element picks itself (pick[0..4), any row of the table),
 * read from and added to; tab->n is the table's size, the same for every element. */
UM_KERNEL void tv_gather_whole(const int *pick, const um_vec *tab, double *out) {
  for (int c = 0; c < 2; c++) {
    double s = 0;
    for (int j = 0; j < 4; j++) s += (j + 1) * UM_VEC_D(tab, pick[j], c);
    out[c] = s;
  }
  out[2] = tab->n;
}
UM_KERNEL void tv_scatter_whole(const int *pick, const double *q, const um_vec *tab) {
  for (int j = 0; j < 4; j++)
    for (int c = 0; c < 2; c++) um_vec_inc_d(tab, pick[j], c, (j + 1) * q[c]);
}
#endif
