/* SIAC host-side setup (see siac_setup.h): the kernel's coefficients and
 * pieces, Gauss rules, the constants of siac_kernels.h and the L2 projection. */
#include "siac_setup.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "siac_kernels.h" /* siac_basis_k: one copy of the basis, host and device */

static const double siac_pi = 3.14159265358979323846;

/* ---- the filter kernel ------------------------------------------------------ */

/* Moments mu[i] = int psi^{(l)}(u) u^i du, i = 0..imax, of the central B-spline
 * of order l (degree l-1), exactly: psi^{(l)} is the l-fold convolution of the
 * box chi_[-1/2,1/2], i.e. the density of a sum of l independent uniform
 * variables on [-1/2,1/2], so its moments follow from the binomial theorem:
 *   mu^{(l)}_i = sum_j C(i,j) mu^{(l-1)}_j beta_{i-j},
 *   beta_i = int_{-1/2}^{1/2} u^i du = (1/2)^i / (i+1) for i even, 0 for i odd.
 * All values are small dyadic-over-integer rationals, exact to round-off. */
static void bspline_moments(int l, int imax, double *mu) {
  double box[16], cur[16], nxt[16], binom[16][16];
  for (int i = 0; i <= imax; i++) {
    box[i] = (i % 2) ? 0.0 : pow(0.5, i) / (i + 1);
    binom[i][0] = binom[i][i] = 1.0;
    for (int j = 1; j < i; j++) binom[i][j] = binom[i - 1][j - 1] + binom[i - 1][j];
    cur[i] = box[i];
  }
  for (int c = 2; c <= l; c++) {
    for (int i = 0; i <= imax; i++) {
      nxt[i] = 0.0;
      for (int j = 0; j <= i; j++) nxt[i] += binom[i][j] * cur[j] * box[i - j];
    }
    memcpy(cur, nxt, sizeof(double) * (size_t)(imax + 1));
  }
  memcpy(mu, cur, sizeof(double) * (size_t)(imax + 1));
}

/* Solves the dense n x n system A x = b (row-major, n <= 8) by Gaussian
 * elimination with partial pivoting; A and b are overwritten. */
static void solve_dense(int n, double *A, double *b, double *x) {
  for (int c = 0; c < n; c++) {
    int piv = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(A[r * n + c]) > fabs(A[piv * n + c])) piv = r;
    if (piv != c) {
      for (int j = 0; j < n; j++) {
        const double t = A[c * n + j];
        A[c * n + j] = A[piv * n + j];
        A[piv * n + j] = t;
      }
      const double t = b[c];
      b[c] = b[piv];
      b[piv] = t;
    }
    for (int r = c + 1; r < n; r++) {
      const double f = A[r * n + c] / A[c * n + c];
      for (int j = c; j < n; j++) A[r * n + j] -= f * A[c * n + j];
      b[r] -= f * b[c];
    }
  }
  for (int r = n - 1; r >= 0; r--) {
    double v = b[r];
    for (int j = r + 1; j < n; j++) v -= A[r * n + j] * x[j];
    x[r] = v / A[r * n + r];
  }
}

/* The moment conditions: int K t^m = sum_g c_g int psi(u) (u+g)^m du
 *                                 = sum_g c_g sum_i C(m,i) g^{m-i} mu_i = delta_{m0},
 * m = 0..2k: 2k+1 equations for the 2k+1 unknowns c_g (a Vandermonde-like
 * system, well conditioned for k <= 3). K then reproduces polynomials of degree
 * 2k by convolution; being symmetric (c_{-g} = c_g), its moment 2k+1 vanishes too. */
int siac_kernel_coeffs(int k, double *c) {
  if (k < 1 || k > SIAC_KMAX) return 1;
  const int n = 2 * k + 1;
  double mu[16], A[64], b[8], binom[16][16];
  bspline_moments(k + 1, 2 * k, mu);
  for (int i = 0; i <= 2 * k; i++) {
    binom[i][0] = binom[i][i] = 1.0;
    for (int j = 1; j < i; j++) binom[i][j] = binom[i - 1][j - 1] + binom[i - 1][j];
  }
  for (int m = 0; m < n; m++) {
    b[m] = (m == 0) ? 1.0 : 0.0;
    for (int g = -k; g <= k; g++) {
      double v = 0.0;
      for (int i = 0; i <= m; i++) v += binom[m][i] * pow((double)g, m - i) * mu[i];
      A[m * n + (g + k)] = v;
    }
  }
  solve_dense(n, A, b, c);
  return 0;
}

/* The pieces by the truncated-power form of the central B-spline of order
 * l = k+1:
 *   psi(u) = 1/k! sum_{j=0}^{k+1} (-1)^j C(k+1,j) (u + (k+1)/2 - j)_+^k.
 * On piece m, t = -(3k+1)/2 + m + s with s in [0,1), so for the shift g
 *   u + (k+1)/2 - j = t - g + (k+1)/2 - j = d + s,   d = m - k - g - j (an integer),
 * and (d+s)_+^k is 0 for d < 0 and sum_p C(k,p) d^{k-p} s^p for d >= 0. Every
 * term before the factor c_g / k! is an integer, so the cancellation of the
 * truncated powers beyond a B-spline's support is exact. */
int siac_kernel_pieces(int k, double *poly) {
  double c[8];
  if (siac_kernel_coeffs(k, c)) return 1;
  double binom[8][8];
  for (int i = 0; i < 8; i++) {
    binom[i][0] = binom[i][i] = 1.0;
    for (int j = 1; j < i; j++) binom[i][j] = binom[i - 1][j - 1] + binom[i - 1][j];
  }
  double kfact = 1.0;
  for (int i = 2; i <= k; i++) kfact *= i;
  for (int m = 0; m < 10; m++)
    for (int p = 0; p < 4; p++) poly[4 * m + p] = 0.0;
  for (int m = 0; m <= 3 * k; m++)
    for (int g = -k; g <= k; g++) {
      double mono[4] = {0.0, 0.0, 0.0, 0.0}; /* psi(t - g) on piece m, times k! */
      for (int j = 0; j <= k + 1; j++) {
        const int d = m - k - g - j;
        if (d < 0) continue;
        const double sg = (j % 2) ? -1.0 : 1.0;
        for (int p = 0; p <= k; p++) mono[p] += sg * binom[k + 1][j] * binom[k][p] * pow((double)d, k - p);
      }
      for (int p = 0; p <= k; p++) poly[4 * m + p] += c[g + k] / kfact * mono[p];
    }
  return 0;
}

/* ---- Gauss rules ---------------------------------------------------------------- */

/* P_n^{(a,b)}(x) and its derivative by the three-term recurrence
 *   2n(n+a+b)(2n+a+b-2) P_n = (2n+a+b-1)((2n+a+b)(2n+a+b-2) x + a^2 - b^2) P_{n-1}
 *                            - 2(n+a-1)(n+b-1)(2n+a+b) P_{n-2},
 * P_0 = 1, P_1 = ((a+b+2) x + a - b)/2, differentiated term by term. */
static void jacobi_eval(int n, double a, double b, double x, double *p, double *dp) {
  double p0 = 1.0, d0 = 0.0;
  double p1 = 0.5 * ((a + b + 2.0) * x + a - b), d1 = 0.5 * (a + b + 2.0);
  if (n == 0) {
    *p = p0;
    *dp = d0;
    return;
  }
  for (int m = 2; m <= n; m++) {
    const double ab = a + b, c = 2.0 * m + ab;
    const double a1 = 2.0 * m * (m + ab) * (c - 2.0);
    const double a2 = (c - 1.0) * (c * (c - 2.0) * x + a * a - b * b);
    const double a2x = (c - 1.0) * c * (c - 2.0);
    const double a3 = 2.0 * (m + a - 1.0) * (m + b - 1.0) * c;
    const double p2 = (a2 * p1 - a3 * p0) / a1;
    const double d2 = (a2x * p1 + a2 * d1 - a3 * d0) / a1;
    p0 = p1;
    d0 = d1;
    p1 = p2;
    d1 = d2;
  }
  *p = p1;
  *dp = d1;
}

/* The zeros by Newton's method with deflation (each new zero is sought in
 * P_n / prod_{j<i} (x - x_j), so converged zeros repel the iterate), starting
 * from the Chebyshev points; then the Gauss-Jacobi weights
 *   w_i = 2^{a+b+1} G(n+a+1) G(n+b+1) / (G(n+a+b+1) n!) / ((1 - x_i^2) P_n'(x_i)^2). */
int siac_gauss_jacobi(int n, double alpha, double beta, double *x, double *w) {
  if (n < 1 || n > SIAC_GAUSS_NMAX || !(alpha > -1.0) || !(beta > -1.0)) return 1;
  for (int i = 0; i < n; i++) {
    double z = -cos((2.0 * i + 1.0) * siac_pi / (2.0 * n));
    if (i > 0) z = 0.5 * (z + x[i - 1]);
    for (int it = 0; it < 100; it++) {
      double p, dp, s = 0.0;
      jacobi_eval(n, alpha, beta, z, &p, &dp);
      for (int j = 0; j < i; j++) s += 1.0 / (z - x[j]);
      const double delta = -p / (dp - s * p);
      z += delta;
      if (fabs(delta) < 1e-16) break;
    }
    x[i] = z;
  }
  const double lc = (alpha + beta + 1.0) * log(2.0) + lgamma(n + alpha + 1.0) + lgamma(n + beta + 1.0) -
                    lgamma(n + alpha + beta + 1.0) - lgamma(n + 1.0);
  for (int i = 0; i < n; i++) {
    double p, dp;
    jacobi_eval(n, alpha, beta, x[i], &p, &dp);
    w[i] = exp(lc) / ((1.0 - x[i] * x[i]) * dp * dp);
  }
  return 0;
}

int siac_gauss_legendre(int n, double *x, double *w) { return siac_gauss_jacobi(n, 0.0, 0.0, x, w); }

/* Collapsed coordinates: (a,b) in [-1,1]^2 -> r = (1+a)(1-b)/4, s = (1+b)/2,
 * dr ds = (1-b)/8 da db. Gauss-Legendre in a and Gauss-Jacobi(1,0) in b (which
 * absorbs the factor 1-b): a polynomial of total degree D in (r,s) becomes one
 * of degree <= D in a and in b separately, so n points per direction integrate
 * total degree 2n-1 exactly (r^{2n} and s^{2n} are not: degree 2n in a, resp. b). */
int siac_tri_rule(int n, double *r, double *s, double *w) {
  double xa[SIAC_GAUSS_NMAX], wa[SIAC_GAUSS_NMAX], xb[SIAC_GAUSS_NMAX], wb[SIAC_GAUSS_NMAX];
  if (siac_gauss_legendre(n, xa, wa) || siac_gauss_jacobi(n, 1.0, 0.0, xb, wb)) return 1;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      const int q = j * n + i;
      r[q] = 0.25 * (1.0 + xa[i]) * (1.0 - xb[j]);
      s[q] = 0.5 * (1.0 + xb[j]);
      w[q] = 0.125 * wa[i] * wb[j];
    }
  return 0;
}

/* ---- the constants ---------------------------------------------------------------- */

/* Rule sizes: the evaluation rule (k+1 per direction, degree 2k+1) integrates
 * |u_h - p|^2 exactly for p of degree k, and is the usual dG rule; the
 * sub-triangle rule must integrate u_T (degree k) times K_x (degree k in xi)
 * times K_y (degree k in eta), total degree 3k: 2n-1 >= 3k, n = ceil((3k+1)/2). */
int siac_consts_fill(int k, double h, siac_consts *out) {
  memset(out, 0, sizeof *out);
  if (k < 1 || k > SIAC_KMAX) {
    snprintf(out->error, sizeof out->error, "siac: degree k = %d is not supported; use 1, 2 or 3", k);
    return 1;
  }
  if (!(h > 0.0) || !isfinite(h)) {
    snprintf(out->error, sizeof out->error,
             "siac: kernel scaling h = %g must be positive and finite (usually the mesh spacing)", h);
    return 1;
  }
  out->k = k;
  out->nb = (k + 1) * (k + 2) / 2;
  out->h = h;
  const int nq1 = k + 1, ns1 = (3 * k + 2) / 2;
  out->nq = nq1 * nq1;
  out->ns = ns1 * ns1;
  if (siac_kernel_pieces(k, out->kpoly) || siac_tri_rule(nq1, out->qr, out->qs, out->qw) ||
      siac_tri_rule(ns1, out->sr, out->ss, out->sw)) {
    snprintf(out->error, sizeof out->error, "siac: internal error building the rules for k = %d", k);
    return 1;
  }
  return 0;
}

void siac_basis_host(int k, double r, double s, double *phi) { siac_basis_k(k, r, s, phi); }

/* ---- projection ----------------------------------------------------------------- */

/* f o F_T is smooth, not a polynomial: the rule's degree 2k+9 (n = k+5) makes
 * the quadrature error of the projection far below the projection error
 * itself, and is exact when f is a polynomial of degree <= 9. */
int siac_project(int ncells, const double *cellxy, int k, double (*f)(double, double, void *), void *user,
                 double *coef) {
  if (k < 1 || k > SIAC_KMAX) return 1;
  const int n = k + 5, nq = n * n, nb = (k + 1) * (k + 2) / 2;
  double r[SIAC_GAUSS_NMAX * SIAC_GAUSS_NMAX], s[SIAC_GAUSS_NMAX * SIAC_GAUSS_NMAX];
  double w[SIAC_GAUSS_NMAX * SIAC_GAUSS_NMAX], phi[SIAC_GAUSS_NMAX * SIAC_GAUSS_NMAX][10];
  if (siac_tri_rule(n, r, s, w)) return 1;
  for (int q = 0; q < nq; q++) siac_basis_k(k, r[q], s[q], phi[q]);
  /* cells apart on the OpenMP threads (the same values for any number): f(x, y) for 1M cells at k = 3 is 64M
   * calls */
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
  for (int c = 0; c < ncells; c++) {
    const double *v = cellxy + 6 * (size_t)c;
    double *cc = coef + (size_t)nb * c;
    for (int i = 0; i < nb; i++) cc[i] = 0.0;
    for (int q = 0; q < nq; q++) {
      const double x = v[0] + r[q] * (v[2] - v[0]) + s[q] * (v[4] - v[0]);
      const double y = v[1] + r[q] * (v[3] - v[1]) + s[q] * (v[5] - v[1]);
      const double fw = w[q] * f(x, y, user);
      for (int i = 0; i < nb; i++) cc[i] += fw * phi[q][i];
    }
  }
  return 0;
}

double siac_test_f(double x, double y, void *user) {
  (void)user;
  return sin(2.0 * siac_pi * x) * sin(2.0 * siac_pi * y);
}
