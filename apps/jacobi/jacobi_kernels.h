/* Jacobi iteration for the graph Laplacian, the teaching example of um.
 * Kernels are written once: valid C and valid CUDA device code. */
#ifndef JACOBI_KERNELS_H
#define JACOBI_KERNELS_H
#include "um/kernel.h"

/* Over edges: count the neighbours of both end nodes. */
UM_KERNEL void degree(int *deg1, int *deg2) {
  deg1[0] += 1;
  deg2[0] += 1;
}

/* Over edges: each end node gathers the value at the other end. */
UM_KERNEL void gather(const double *u1, const double *u2, double *s1, double *s2) {
  s1[0] += u2[0];
  s2[0] += u1[0];
}

/* Over nodes: interior nodes take the mean of their neighbours; boundary nodes
 * keep their value. Reports the largest change and the sum of squared changes. */
UM_KERNEL void relax(const int *deg, const int *boundary, double *s, double *u, double *maxdu, double *sumdu2) {
  if (!boundary[0]) {
    double unew = s[0] / (double)deg[0];
    double du = unew - u[0];
    u[0] = unew;
    double a = du < 0 ? -du : du;
    if (a > maxdu[0]) maxdu[0] = a;
    sumdu2[0] += du * du;
  }
  s[0] = 0.0;
}

/* Over nodes: the largest deviation from the exact (harmonic) solution. */
UM_KERNEL void max_error(const double *x, const double *u, double *maxerr) {
  double exact = x[0] * x[0] - x[1] * x[1] + 0.5 * x[0] * x[1];
  double e = u[0] - exact;
  if (e < 0) e = -e;
  if (e > maxerr[0]) maxerr[0] = e;
}

#endif
