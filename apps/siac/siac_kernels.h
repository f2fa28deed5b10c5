/* SIAC: Smoothness-Increasing Accuracy-Conserving filtering of a discontinuous
 * Galerkin (dG) solution on a 2D triangle mesh (Ryan, Cockburn et al.; King &
 * Kirby SC'13). The math core, written once, valid C and CUDA device code
 * (NVRTC): only UM_KERNEL functions, UM_CONST constants and math.h.
 *
 * The dG solution on triangle T is u_T(x) = sum_i c_i phi_i(F_T^{-1}(x)), with
 * F_T the affine map from the reference triangle {(0,0),(1,0),(0,1)} to T and
 * phi_i the orthonormal modal (Dubiner) basis of degree k. The filtered value at
 * a point (px, py) is the convolution with the tensor-product kernel
 *
 *   u*(px,py) = (1/h^2) sum_T int_T K((px-xi)/h) K((py-eta)/h) u_T(xi,eta) dxi deta,
 *
 * K(t) = sum_{g=-k..k} c_g psi^{(k+1)}(t - g), psi^{(k+1)} the central B-spline
 * of degree k. K is a piecewise polynomial of degree k on the 3k+1 unit
 * intervals of its support [-(3k+1)/2, (3k+1)/2]. Inside one x-piece and one
 * y-piece of the kernel and one triangle, the integrand is a polynomial, so
 * the integral is done EXACTLY by cutting T along the kernel's breaks (the
 * lines xi = px - W/2 + m h, eta = py - W/2 + m h, W = (3k+1) h), triangulating
 * each piece and applying a rule exact for the integrand's total degree:
 * u_T has degree k, each kernel factor degree k in its variable, so 3k.
 *
 * The constants are filled on the host by siac_consts_fill (siac_setup.h) and
 * published by the app with um_decl_const. Sizes are fixed by the maximum
 * degree k = 3.
 */
#ifndef SIAC_KERNELS_H
#define SIAC_KERNELS_H
#include "um/kernel.h"

UM_CONST int siac_k;  /* polynomial degree of the dG solution, 1..3 */
UM_CONST int siac_nb; /* (k+1)(k+2)/2 modal basis functions */
UM_CONST int siac_nq; /* points of the evaluation rule, (k+1)^2 */
UM_CONST int siac_ns; /* points of the sub-triangle rule, ceil((3k+1)/2)^2 */
UM_CONST double siac_h; /* kernel scaling: the filter's support is (3k+1) h wide */
/* the kernel's 3k+1 pieces: piece m covers t in [-(3k+1)/2 + m, -(3k+1)/2 + m + 1),
 * K(t) = sum_p siac_kpoly[m*4 + p] s^p with s = t - (-(3k+1)/2 + m) in [0,1) */
UM_CONST double siac_kpoly[10 * 4];
/* evaluation rule on the reference triangle (collapsed Gauss, k+1 points per
 * direction: exact for total degree 2k+1, so for |u_h - u|^2 of degree 2k
 * polynomials, the L2 errors are measured with it too); weights sum to 1/2 */
UM_CONST double siac_qr[16], siac_qs[16], siac_qw[16];
/* sub-triangle rule (collapsed Gauss, ceil((3k+1)/2) points per direction:
 * exact for total degree >= 3k); weights sum to 1/2 */
UM_CONST double siac_sr[25], siac_ss[25], siac_sw[25];

/* Orthonormal Dubiner basis on the reference triangle, phi[0 .. nb), ordered by
 * total degree d = p + q, then q = 0..d:
 *
 *   phi_pq(r,s) = N_pq P_p(a) (1-s)^p P_q^{(2p+1,0)}(2s-1),   a = 2r/(1-s) - 1,
 *   N_pq = sqrt(2 (2p+1) (p+q+1)),
 *
 * (collapsed coordinates: the triangle is the image of the square (a,b) in
 * [-1,1]^2, b = 2s - 1, dr ds = (1-b)/8 da db; Legendre orthogonality in a and
 * Jacobi(2p+1,0) orthogonality in b give int_ref phi_pq^2 = 1/N_pq^2.) The
 * singular factor P_p(a) (1-s)^p is evaluated without division as Q_p(x, y),
 * x = 2r - (1 - s) = a y, y = 1 - s, from Legendre's recurrence multiplied by
 * y^{p+1}: (p+1) Q_{p+1} = (2p+1) x Q_p - p y^2 Q_{p-1}.
 * siac_basis_k takes the degree k (1..3) as an argument, so host setup code
 * can use it before the constants exist. */
UM_KERNEL void siac_basis_k(int k, double r, double s, double *phi) {
  const double y = 1.0 - s, x = 2.0 * r - y, b = 2.0 * s - 1.0;
  double Q[4];
  Q[0] = 1.0;
  Q[1] = x;
  for (int p = 1; p < 3; p++) Q[p + 1] = ((2 * p + 1) * x * Q[p] - p * y * y * Q[p - 1]) / (p + 1);
  /* J[p][q] = P_q^{(2p+1,0)}(b) by the three-term Jacobi recurrence (beta = 0):
   * 2n(n+al)(2n+al-2) P_n = (2n+al-1)((2n+al)(2n+al-2) b + al^2) P_{n-1}
   *                        - 2(n+al-1)(n-1)(2n+al) P_{n-2} */
  double J[4][4];
  for (int p = 0; p <= k; p++) {
    const double al = 2 * p + 1;
    J[p][0] = 1.0;
    if (p + 1 <= k) J[p][1] = 0.5 * ((al + 2.0) * b + al);
    for (int n = 2; n + p <= k; n++) {
      const double a1 = 2.0 * n * (n + al) * (2 * n + al - 2);
      const double a2 = (2 * n + al - 1) * ((2 * n + al) * (2 * n + al - 2) * b + al * al);
      const double a3 = 2.0 * (n + al - 1) * (n - 1) * (2 * n + al);
      J[p][n] = (a2 * J[p][n - 1] - a3 * J[p][n - 2]) / a1;
    }
  }
  int i = 0;
  for (int d = 0; d <= k; d++)
    for (int q = 0; q <= d; q++) {
      const int p = d - q;
      phi[i++] = sqrt(2.0 * (2 * p + 1) * (p + q + 1)) * Q[p] * J[p][q];
    }
}

/* The basis of degree siac_k (the interface the loops use). */
UM_KERNEL void siac_basis(double r, double s, double *phi) { siac_basis_k(siac_k, r, s, phi); }

/* One kernel piece m (0..3k) as a polynomial in its local variable s (Horner);
 * used outside [0,1) too, as the polynomial's extension. */
UM_KERNEL double siac_kernel_piece(int m, double s) {
  const double *c = siac_kpoly + 4 * m;
  double v = 0.0;
  for (int p = siac_k; p >= 0; p--) v = v * s + c[p];
  return v;
}

/* K(t): 0 outside the support [-(3k+1)/2, (3k+1)/2]. */
UM_KERNEL double siac_kernel_eval(double t) {
  const int npiece = 3 * siac_k + 1;
  const double t0 = -0.5 * npiece;
  if (!(t >= t0 && t < -t0)) return 0.0;
  int m = (int)floor(t - t0);
  if (m > npiece - 1) m = npiece - 1; /* round-off at the right end */
  return siac_kernel_piece(m, t - (t0 + m));
}

/* Sutherland-Hodgman clipping of the convex polygon in[0..2n) (x,y pairs) by
 * the axis-aligned half-plane  coord_axis <= c  (keep_below != 0) or
 * coord_axis >= c  (keep_below == 0); writes out (at most n + 1 vertices) and
 * returns their number (< 3: nothing left with area).
 *
 * Vertices on the line are kept on both sides and an intersection is made only
 * where an edge crosses strictly, so there are no duplicated vertices. The
 * intersection of an edge depends only on its two end points in the order the
 * edge is walked (clipping keeps the orientation), so the two complementary
 * clips of a polygon share their new vertices bit for bit: the pieces tile the
 * polygon exactly (up to the round-off of the area formula). */
UM_KERNEL int siac_clip(const double *in, int n, int axis, double c, int keep_below, double *out) {
  int nout = 0;
  const double sg = keep_below ? -1.0 : 1.0; /* inside: sg * (coord - c) >= 0 */
  for (int i = 0; i < n; i++) {
    const int j = (i + 1 == n) ? 0 : i + 1;
    const double *a = in + 2 * i, *b = in + 2 * j;
    const double da = a[axis] - c, db = b[axis] - c; /* the same numbers for either side */
    if (sg * da >= 0.0) {
      out[2 * nout] = a[0];
      out[2 * nout + 1] = a[1];
      nout++;
    }
    if ((da < 0.0 && db > 0.0) || (da > 0.0 && db < 0.0)) {
      const double t = da / (da - db);
      const int o = 1 - axis;
      out[2 * nout + axis] = c;
      out[2 * nout + o] = a[o] + t * (b[o] - a[o]);
      nout++;
    }
  }
  return nout;
}

/* The solution of a triangle at the reference point (r,s): sum_i c_i phi_i. */
UM_KERNEL double siac_eval_ref(const double *tcoef, double r, double s) {
  double phi[10];
  siac_basis(r, s, phi);
  double u = 0.0;
  for (int i = 0; i < siac_nb; i++) u += tcoef[i] * phi[i];
  return u;
}

/* The same solution in a form that is cheap to evaluate many times (the hot
 * loop evaluates u_T at every rule point of every sub-triangle): grouping the
 * basis by p,
 *   u(r,s) = sum_p Q_p(x,y) g_p(s),   g_p(s) = sum_q c_pq N_pq P_q^{(2p+1,0)}(2s-1),
 * with x = 2r - 1 + s, y = 1 - s. siac_u_prepare expands each g_p (degree k-p)
 * into monomials in s once per triangle, running the Jacobi recurrence on
 * coefficient vectors (multiplying by b = 2s - 1 shifts and scales them);
 * siac_u_value then costs k+1 Horner evaluations and the Q_p, with no square
 * root and no division. G[p*4 + j] is the coefficient of s^j in g_p. */
UM_KERNEL void siac_u_prepare(const double *tcoef, double *G) {
  const int k = siac_k;
  for (int v = 0; v < 16; v++) G[v] = 0.0;
  for (int p = 0; p <= k; p++) {
    const double al = 2 * p + 1;
    double J[4][4]; /* J[q][j]: coefficient of s^j in P_q^{(al,0)}(2s-1) */
    for (int q = 0; q < 4; q++)
      for (int j = 0; j < 4; j++) J[q][j] = 0.0;
    J[0][0] = 1.0;
    if (p + 1 <= k) { /* P_1 = ((al+2) b + al)/2 = (al+2) s - 1 */
      J[1][0] = -1.0;
      J[1][1] = al + 2.0;
    }
    for (int n = 2; n + p <= k; n++) {
      const double a1 = 2.0 * n * (n + al) * (2 * n + al - 2);
      const double a2b = (2 * n + al - 1) * (2 * n + al) * (2 * n + al - 2), a2c = (2 * n + al - 1) * al * al;
      const double a3 = 2.0 * (n + al - 1) * (n - 1) * (2 * n + al);
      /* (a2b (2s - 1) + a2c) J_{n-1} - a3 J_{n-2}, over a1 */
      for (int j = 0; j <= n; j++) {
        double v = (a2c - a2b) * (j < n ? J[n - 1][j] : 0.0) - a3 * (j < n - 1 ? J[n - 2][j] : 0.0);
        if (j > 0) v += 2.0 * a2b * J[n - 1][j - 1];
        J[n][j] = v / a1;
      }
    }
    for (int q = 0; p + q <= k; q++) {
      const int d = p + q;
      const double c = tcoef[d * (d + 1) / 2 + q] * sqrt(2.0 * (2 * p + 1) * (p + q + 1));
      for (int j = 0; j <= q; j++) G[4 * p + j] += c * J[q][j];
    }
  }
}

/* u at the reference point (r,s) from siac_u_prepare's G; Q_p = P_p(a) y^p as
 * in siac_basis_k, written out: Q_2 = (3 x^2 - y^2)/2, Q_3 = (5 x Q_2 - 2 y^2 x)/3. */
UM_KERNEL double siac_u_value(const double *G, double r, double s) {
  const int k = siac_k;
  const double x = 2.0 * r - 1.0 + s, y = 1.0 - s;
  double g[4] = {0.0, 0.0, 0.0, 0.0};
  for (int p = 0; p <= k; p++) {
    double v = 0.0;
    for (int j = k - p; j >= 0; j--) v = v * s + G[4 * p + j];
    g[p] = v;
  }
  double u = g[0] + x * g[1];
  if (k >= 2) {
    const double q2 = 1.5 * x * x - 0.5 * y * y;
    u += q2 * g[2];
    if (k >= 3) u += (x * (5.0 * q2 - 2.0 * y * y) * (1.0 / 3.0)) * g[3];
  }
  return u;
}

/* u_T at a physical point: (r,s) = F_T^{-1}(x,y) by Cramer's rule on
 * (x,y) - v0 = r (v1 - v0) + s (v2 - v0). */
UM_KERNEL double siac_eval(const double *txy, const double *tcoef, double x, double y) {
  const double ax = txy[2] - txy[0], ay = txy[3] - txy[1];
  const double bx = txy[4] - txy[0], by = txy[5] - txy[1];
  const double idet = 1.0 / (ax * by - ay * bx);
  const double dx = x - txy[0], dy = y - txy[1];
  return siac_eval_ref(tcoef, (dx * by - dy * bx) * idet, (ax * dy - ay * dx) * idet);
}

/* Integrates over the convex polygon poly[0..n) (already cut to one x-piece ix
 * and one y-piece iy of the kernel; G: T's solution from siac_u_prepare) the integrand
 *   K_ix((px-xi)/h) K_iy((py-eta)/h) u_T(xi,eta)      (mode 0)
 *   1                                                  (mode 1: its area)
 * by a fan of sub-triangles, each with the sub-triangle rule mapped onto it
 * (weight * |det|: the rule's weights sum to 1/2, the sub-triangle's area is
 * |det|/2). Everything the integrand needs at a point is an affine function of
 * the point: T's reference coordinates (r,s) = F_T^{-1}(xi,eta) and the kernel
 * pieces' local variables s_x = (px-xi)/h - (t0+ix), s_y likewise. They are
 * computed at the sub-triangle's three vertices and interpolated with the
 * rule's barycentric coordinates. The pieces are evaluated as polynomials, so
 * a point a round-off outside its piece uses the same polynomial. */
UM_KERNEL double siac_poly_integral(const double *poly, int n, const double *txy, const double *G, double px,
                                    double py, int ix, int iy, int mode, double *nsub) {
  const double ih = 1.0 / siac_h;
  const double t0 = -0.5 * (3 * siac_k + 1);
  const double sx0 = px * ih - (t0 + ix), sy0 = py * ih - (t0 + iy); /* s = s0 - xi/h */
  /* the inverse affine map of T, as in siac_eval */
  const double ax = txy[2] - txy[0], ay = txy[3] - txy[1];
  const double bx = txy[4] - txy[0], by = txy[5] - txy[1];
  const double idet = 1.0 / (ax * by - ay * bx);
  /* (r, s, s_x, s_y) at the polygon's vertices */
  double V[8][4];
  for (int v = 0; v < n; v++) {
    const double dx = poly[2 * v] - txy[0], dy = poly[2 * v + 1] - txy[1];
    V[v][0] = (dx * by - dy * bx) * idet;
    V[v][1] = (ax * dy - ay * dx) * idet;
    V[v][2] = sx0 - poly[2 * v] * ih;
    V[v][3] = sy0 - poly[2 * v + 1] * ih;
  }
  double sum = 0.0;
  for (int f = 1; f + 1 < n; f++) {
    const double ex = poly[2 * f] - poly[0], ey = poly[2 * f + 1] - poly[1];
    const double gx = poly[2 * f + 2] - poly[0], gy = poly[2 * f + 3] - poly[1];
    const double jac = fabs(ex * gy - ey * gx);
    *nsub += 1.0;
    if (mode == 1) {
      sum += 0.5 * jac;
      continue;
    }
    double E[4], F[4]; /* edge differences of the interpolated quantities */
    for (int c = 0; c < 4; c++) {
      E[c] = V[f][c] - V[0][c];
      F[c] = V[f + 1][c] - V[0][c];
    }
    double part = 0.0;
    for (int q = 0; q < siac_ns; q++) {
      const double a = siac_sr[q], b = siac_ss[q];
      const double kx = siac_kernel_piece(ix, V[0][2] + a * E[2] + b * F[2]);
      const double ky = siac_kernel_piece(iy, V[0][3] + a * E[3] + b * F[3]);
      const double u = siac_u_value(G, V[0][0] + a * E[0] + b * F[0], V[0][1] + a * E[1] + b * F[1]);
      part += siac_sw[q] * kx * ky * u;
    }
    sum += jac * part;
  }
  return sum;
}

/* One step of cutting a polygon into strips along `axis`: with split, the part of rest[] below
 * `cut` goes to out[] (its vertex count returned) and rest[] keeps the part above it; without
 * split (the last strip), all of rest[] goes to out[] and rest[] is left empty. tmp: scratch. */
UM_KERNEL int siac_peel(double *rest, int *nrest, int axis, double cut, int split, double *out, double *tmp) {
  int n;
  if (split) {
    n = siac_clip(rest, *nrest, axis, cut, 1, out);
    *nrest = siac_clip(rest, *nrest, axis, cut, 0, tmp);
    for (int v = 0; v < 2 * *nrest; v++) rest[v] = tmp[v];
  } else {
    n = *nrest;
    for (int v = 0; v < 2 * n; v++) out[v] = rest[v];
    *nrest = 0;
  }
  return n;
}

/* Triangle t's bounding box: {xmin, xmax, ymin, ymax} (not fmin/fmax: on the host they are libm calls). */
UM_KERNEL void siac_tri_box(const double *t, double *box) {
  box[0] = box[1] = t[0];
  box[2] = box[3] = t[1];
  for (int v = 1; v < 3; v++) {
    const double x = t[2 * v], y = t[2 * v + 1];
    box[0] = x < box[0] ? x : box[0];
    box[1] = x > box[1] ? x : box[1];
    box[2] = y < box[2] ? y : box[2];
    box[3] = y > box[3] ? y : box[3];
  }
}

/* The stencil's strips [*m0, *m1] (strip m between first + m h and first + (m+1) h, m in 0..3k) that the stretch
 * [lo, hi] of one axis meets (clamped as doubles: a huge triangle must not overflow the int conversion). */
UM_KERNEL void siac_strips_met(double lo, double hi, double first, int *m0, int *m1) {
  *m0 = (int)fmax(0.0, floor((lo - first) / siac_h));
  *m1 = (int)fmin(3.0 * siac_k, floor((hi - first) / siac_h));
}

/* The stencil's pieces (strip m0 + k / *nj along x, j0 + k % *nj along y, k below the count returned) that the
 * bounding box box[4] meets, the stencil's first breaks at (X0, Y0): the items of a (triangle, point) pair. */
UM_KERNEL int siac_pieces_met(const double *box, double X0, double Y0, int *m0, int *j0, int *nj) {
  int m1, j1;
  siac_strips_met(box[0], box[1], X0, m0, &m1);
  siac_strips_met(box[2], box[3], Y0, j0, &j1);
  *nj = j1 - *j0 + 1;
  return (m1 - *m0 + 1) * *nj;
}

/* siac_contrib for u_T prepared by siac_u_prepare (the loops prepare it once per
 * triangle and apply it to many points), with a mode: 0 the filter's integrand (what siac_contrib
 * returns), 1 u == 1 and K == 1 without the 1/h^2 factor, i.e. the area of T
 * inside the stencil square as the sum of the sub-triangles' areas (a test
 * hook for the clipping). */
UM_KERNEL double siac_contrib_prepared(const double *txy, const double *G, double px, double py, int mode,
                                       double *ntests, double *nsub) {
  const int npiece = 3 * siac_k + 1;
  const double h = siac_h, half = 0.5 * npiece * h;
  const double X0 = px - half, Y0 = py - half; /* the first breaks */
  double box[4];
  siac_tri_box(txy, box);
  const double xmin = box[0], xmax = box[1], ymin = box[2], ymax = box[3];
  *ntests += 1.0;
  if (xmax <= X0 || xmin >= px + half || ymax <= Y0 || ymin >= py + half) return 0.0;

  int m0, m1; /* the x-strips that T's bounding box meets */
  siac_strips_met(xmin, xmax, X0, &m0, &m1);
  double rest[16], strip[16], tmp[16], piece[16];
  int nrest = 3;
  for (int v = 0; v < 6; v++) rest[v] = txy[v];
  if (m0 == 0 && xmin < X0) { /* only the breaks that cut T are clipped against */
    nrest = siac_clip(txy, 3, 0, X0, 0, tmp);
    for (int v = 0; v < 2 * nrest; v++) rest[v] = tmp[v];
  }
  double sum = 0.0;
  for (int mx = m0; mx <= m1 && nrest >= 3; mx++) {
    const double xr = X0 + (mx + 1) * h;
    int nstrip = siac_peel(rest, &nrest, 0, xr, mx < m1 || (mx == npiece - 1 && xr < xmax), strip, tmp);
    if (nstrip < 3) continue;
    /* the same inside the strip, along y */
    double smin = strip[1], smax = strip[1];
    for (int v = 1; v < nstrip; v++) {
      const double y = strip[2 * v + 1];
      smin = y < smin ? y : smin;
      smax = y > smax ? y : smax;
    }
    if (smax <= Y0 || smin >= py + half) continue;
    int j0, j1;
    siac_strips_met(smin, smax, Y0, &j0, &j1);
    if (j0 == 0 && smin < Y0) {
      nstrip = siac_clip(strip, nstrip, 1, Y0, 0, tmp);
      for (int v = 0; v < 2 * nstrip; v++) strip[v] = tmp[v];
    }
    /* t = (px - xi)/h decreases with xi: x-strip mx is kernel piece npiece-1-mx */
    const int ix = npiece - 1 - mx;
    for (int my = j0; my <= j1 && nstrip >= 3; my++) {
      const double yr = Y0 + (my + 1) * h;
      const int np = siac_peel(strip, &nstrip, 1, yr, my < j1 || (my == npiece - 1 && yr < smax), piece, tmp);
      if (np < 3) continue;
      sum += siac_poly_integral(piece, np, txy, G, px, py, ix, npiece - 1 - my, mode, nsub);
    }
  }
  return mode == 1 ? sum : sum / (h * h);
}

/* siac_contrib_prepared with u_T given by its coefficients (prepared here). */
UM_KERNEL double siac_contrib_mode(const double *txy, const double *tcoef, double px, double py, int mode,
                                   double *ntests, double *nsub) {
  double G[16]; /* u_T in the cheap form */
  siac_u_prepare(tcoef, G);
  return siac_contrib_prepared(txy, G, px, py, mode, ntests, nsub);
}

/* The contribution of one triangle T (vertices txy[6] counter-clockwise, in the
 * periodic image the caller chose; dG coefficients tcoef[nb]) to the filtered
 * value at (px,py):
 *   (1/h^2) int_T K((px-xi)/h) K((py-eta)/h) u_T(xi,eta) dxi deta,
 * exact up to round-off. *ntests counts bounding-box tests, *nsub the
 * sub-triangles integrated. */
UM_KERNEL double siac_contrib(const double *txy, const double *tcoef, double px, double py, double *ntests,
                              double *nsub) {
  return siac_contrib_mode(txy, tcoef, px, py, 0, ntests, nsub);
}

/* ---- the loops: per point (gather) and per element (scatter) ---------------------------
 * Both iterate over the cells. A cell's evaluation points are siac_point(cell, q), q < siac_nq.
 * The neighbourhood of a cell (the map "nbr", padded to a fixed arity; *nn entries in use)
 * holds every cell whose nearest periodic image can touch the stencil of one of its points;
 * the relation is symmetric, so the same map serves the gather and the scatter. */

/* The image of triangle t (6 values) nearest to (cx, cy): shifted by whole periods. */
UM_KERNEL void siac_image(const double *t, double cx, double cy, double *out) {
  const double tx = (t[0] + t[2] + t[4]) / 3.0, ty = (t[1] + t[3] + t[5]) / 3.0;
  const double sx = floor(cx - tx + 0.5), sy = floor(cy - ty + 0.5);
  for (int i = 0; i < 3; i++) {
    out[2 * i] = t[2 * i] + sx;
    out[2 * i + 1] = t[2 * i + 1] + sy;
  }
}

/* Evaluation point q of the cell with vertices c (the affine image of siac_qr/qs[q]). */
UM_KERNEL void siac_point(const double *c, int q, double *px, double *py) {
  *px = c[0] + (c[2] - c[0]) * siac_qr[q] + (c[4] - c[0]) * siac_qs[q];
  *py = c[1] + (c[3] - c[1]) * siac_qr[q] + (c[5] - c[1]) * siac_qs[q];
}

/* Per point: the cell gathers, for each of its points, the contributions of every
 * neighbour (its vertices and coefficients read through the map), and writes the
 * filtered values of its own points. stats: [intersection tests, sub-triangles]. */
UM_KERNEL void siac_per_point(const double *xy, const int *nn, const um_vec *nxy, const um_vec *ncoef,
                              double *ustar, double *stats) {
  const double cx = (xy[0] + xy[2] + xy[4]) / 3.0, cy = (xy[1] + xy[3] + xy[5]) / 3.0;
  double acc[16], tests = 0, nsub = 0;
  for (int q = 0; q < siac_nq; q++) acc[q] = 0;
  for (int j = 0; j < *nn; j++) {
    double t[6], ti[6], tc[10], G[16];
    for (int i = 0; i < 6; i++) t[i] = UM_VEC_D(nxy, j, i);
    for (int i = 0; i < siac_nb; i++) tc[i] = UM_VEC_D(ncoef, j, i);
    siac_image(t, cx, cy, ti);
    siac_u_prepare(tc, G);
    for (int q = 0; q < siac_nq; q++) {
      double px, py;
      siac_point(xy, q, &px, &py);
      acc[q] += siac_contrib_prepared(ti, G, px, py, 0, &tests, &nsub);
    }
  }
  for (int q = 0; q < siac_nq; q++) ustar[q] = acc[q];
  stats[0] += tests;
  stats[1] += nsub;
}

/* Per point, a thread per point (params.point_threads: point), as King & Kirby's per-point scheme:
 * the point (index *q of the cell with vertices cxy) loads every neighbour of its cell itself,
 * prepares its polynomial and adds its contribution: no reuse across the cell's points. */
UM_KERNEL void siac_per_point_single(const double *cxy, const int *q, const int *nn, const um_vec *nxy,
                                     const um_vec *ncoef, double *u, double *stats) {
  const double cx = (cxy[0] + cxy[2] + cxy[4]) / 3.0, cy = (cxy[1] + cxy[3] + cxy[5]) / 3.0;
  double px, py, acc = 0, tests = 0, nsub = 0;
  siac_point(cxy, *q, &px, &py);
  for (int j = 0; j < *nn; j++) {
    double t[6], ti[6], tc[10], G[16];
    for (int i = 0; i < 6; i++) t[i] = UM_VEC_D(nxy, j, i);
    for (int i = 0; i < siac_nb; i++) tc[i] = UM_VEC_D(ncoef, j, i);
    siac_image(t, cx, cy, ti);
    siac_u_prepare(tc, G);
    acc += siac_contrib_prepared(ti, G, px, py, 0, &tests, &nsub);
  }
  *u = acc;
  stats[0] += tests;
  stats[1] += nsub;
}

/* A cell's values gathered from its points (after the thread-per-point loop). */
UM_KERNEL void siac_points_to_cell(const um_vec *pv, double *ustar) {
  for (int q = 0; q < siac_nq; q++) ustar[q] = UM_VEC_D(pv, q, 0);
}

/* Per element: the cell reads its own data once and adds its contribution to the
 * points of every neighbour whose stencils reach it (increments through the map). */
UM_KERNEL void siac_per_element(const double *xy, const double *coef, const int *nn, const um_vec *nxy,
                                const um_vec *nout, double *stats) {
  double tests = 0, nsub = 0, G[16];
  siac_u_prepare(coef, G); /* once: the cell's own solution serves every neighbour's points */
  for (int j = 0; j < *nn; j++) {
    double c[6], ti[6];
    for (int i = 0; i < 6; i++) c[i] = UM_VEC_D(nxy, j, i);
    siac_image(xy, (c[0] + c[2] + c[4]) / 3.0, (c[1] + c[3] + c[5]) / 3.0, ti);
    for (int q = 0; q < siac_nq; q++) {
      double px, py;
      siac_point(c, q, &px, &py);
      const double v = siac_contrib_prepared(ti, G, px, py, 0, &tests, &nsub);
      if (v != 0.0) um_vec_inc_d(nout, j, q, v);
    }
  }
  stats[0] += tests;
  stats[1] += nsub;
}

/* ---- the paper's schemes, searching a uniform hash grid inside the loop (params.search: grid) -------------
 * The periodic unit square is cut into siac_nbin x siac_nbin bins, bin (i, j) = i + siac_nbin j, each a list
 * (CSR: start[b] .. start[b+1] of list) of what lies in it: the triangles, each in the one bin of its first
 * vertex, or the evaluation points. Bin b' = b + period shifts covers the periodic images. A search visits every
 * bin a square meets, each once (the squares span fewer than siac_nbin bins: checked when the grid is built);
 * every entry it visits is an intersection test, as in King & Kirby's Table 1. */
UM_CONST int siac_nbin;       /* bins per side */
UM_CONST double siac_reach_t; /* how far a triangle reaches from its first vertex, at most (plus a margin) */
UM_CONST int siac_eparts;     /* per element: threads per cell (params.element_threads) */
UM_CONST int siac_pparts;     /* per point: threads per point (params.point_split) */

/* Does triangle t's bounding box meet the stencil square of the point (px, py)? (siac_contrib_prepared's test) */
UM_KERNEL int siac_meets(const double *t, double px, double py) {
  const double half = 0.5 * (3 * siac_k + 1) * siac_h;
  double b[4];
  siac_tri_box(t, b);
  return !(b[1] <= px - half || b[0] >= px + half || b[3] <= py - half || b[2] >= py + half);
}

/* The bins [b0, b1] (unwrapped: any integers) a stretch [lo, hi] of one axis meets. */
UM_KERNEL void siac_bin_range(double lo, double hi, int *b0, int *b1) {
  *b0 = (int)floor(lo * siac_nbin);
  *b1 = (int)floor(hi * siac_nbin);
}

/* An unwrapped bin index b as the bin in [0, nbin) and the period shift (whole periods). */
UM_KERNEL int siac_bin_wrap(int b, double *shift) {
  const int n = siac_nbin, w = ((b % n) + n) % n;
  *shift = (double)((b - w) / n);
  return w;
}

/* Per point, searching (params.search: grid): the point finds, through the grid of triangles, every triangle that
 * may meet its stencil (those whose first vertex lies in a bin the stencil square, widened by siac_reach_t,
 * meets), loads its vertices and coefficients, prepares its polynomial and adds its contribution. */
UM_KERNEL void siac_per_point_grid(const double *p, const um_vec *cxy, const um_vec *ccoef, const um_vec *start,
                                   const um_vec *list, double *u, double *stats) {
  const double half = 0.5 * (3 * siac_k + 1) * siac_h + siac_reach_t;
  int bx0, bx1, by0, by1;
  siac_bin_range(p[0] - half, p[0] + half, &bx0, &bx1);
  siac_bin_range(p[1] - half, p[1] + half, &by0, &by1);
  double acc = 0, tests = 0, nsub = 0, dummy = 0;
  for (int by = by0; by <= by1; by++) {
    double sy;
    const int wy = siac_bin_wrap(by, &sy);
    for (int bx = bx0; bx <= bx1; bx++) {
      double sx;
      const int b = siac_bin_wrap(bx, &sx) + siac_nbin * wy;
      for (int e = UM_VEC_I(start, b, 0); e < UM_VEC_I(start, b + 1, 0); e++) {
        const int c = UM_VEC_I(list, e, 0);
        double t[6], tc[10], G[16];
        for (int v = 0; v < 3; v++) {
          t[2 * v] = UM_VEC_D(cxy, c, 2 * v) + sx;
          t[2 * v + 1] = UM_VEC_D(cxy, c, 2 * v + 1) + sy;
        }
        tests += 1.0;
        if (!siac_meets(t, p[0], p[1])) continue; /* the test: only a triangle that meets the stencil is loaded whole */
        for (int i = 0; i < siac_nb; i++) tc[i] = UM_VEC_D(ccoef, c, i);
        siac_u_prepare(tc, G);
        acc += siac_contrib_prepared(t, G, p[0], p[1], 0, &dummy, &nsub);
      }
    }
  }
  *u = acc;
  stats[0] += tests;
  stats[1] += nsub;
}

/* The next entry of the bins (bx0 + i % nbx, by0 + i / nbx), i < nbins, walked bin by bin ([*e, *end): the bin *i's
 * entries left; (*sx, *sy): its period shift): the entry's value in list, or -1 when every bin is done. */
UM_KERNEL int siac_bins_next(const um_vec *start, const um_vec *list, int bx0, int by0, int nbx, int nbins, int *i,
                             int *e, int *end, double *sx, double *sy) {
  while (*e >= *end) {
    if (++*i >= nbins) return -1;
    const int b = siac_bin_wrap(bx0 + *i % nbx, sx) + siac_nbin * siac_bin_wrap(by0 + *i / nbx, sy);
    *e = UM_VEC_I(start, b, 0), *end = UM_VEC_I(start, b + 1, 0);
  }
  return UM_VEC_I(list, (*e)++, 0);
}

/* Piece (mx, my) of triangle txy against the stencil square whose first breaks are (X0, Y0): the triangle clipped to
 * the piece's square, only against the sides that cut it, into out (tmp: scratch); its vertex count (< 3: empty). */
UM_KERNEL int siac_piece(const double *txy, double X0, double Y0, int mx, int my, double *out, double *tmp) {
  const double h = siac_h;
  const double cut[4] = {X0 + mx * h, X0 + (mx + 1) * h, Y0 + my * h, Y0 + (my + 1) * h};
  int n = 3;
  for (int v = 0; v < 6; v++) out[v] = txy[v];
  for (int s = 0; s < 4 && n >= 3; s++) {
    const int axis = s >> 1, below = s & 1;
    double lo = out[axis], hi = out[axis];
    for (int v = 1; v < n; v++) {
      const double c = out[2 * v + axis];
      lo = c < lo ? c : lo;
      hi = c > hi ? c : hi;
    }
    if (below ? hi <= cut[s] : lo >= cut[s]) continue; /* this side does not cut it */
    n = siac_clip(out, n, axis, cut[s], below, tmp);
    for (int v = 0; v < 2 * n; v++) out[v] = tmp[v];
  }
  return n;
}

/* Per element with T = params.element_threads > 1 threads a cell: the cell's work is a list of items, one per
 * (point whose stencil meets the cell, piece of the stencil the cell's bounding box meets), in the bins' order;
 * every thread walks the whole list (the cheap part) and clips and integrates every T-th item (the heavy part),
 * so the threads of a warp integrate together whatever the points' piece counts. Each piece's contribution is
 * added to its point by itself. */
UM_KERNEL void siac_per_element_items(const double *xy, const double *box, const double *G, int part, int bx0,
                                      int by0, int nbx, int nbins, const um_vec *pxy, const um_vec *start,
                                      const um_vec *list, const um_vec *pval, double *stats) {
  const int npiece = 3 * siac_k + 1, T = siac_eparts;
  const double h = siac_h, half = 0.5 * npiece * h;
  double tests = 0, nsub = 0, sx = 0, sy = 0, px = 0, py = 0, X0 = 0, Y0 = 0, piece[16], tmp[16];
  int i = -1, e = 0, end = 0, q = -1, m0 = 0, j0 = 0, nj = 1, nitems = 0, k = 0, item = 0;
  for (;;) {
    while (k >= nitems) { /* the next point whose stencil meets the cell, and this thread's first item of it */
      item += nitems, nitems = 0, q = -1;
      const int cand = siac_bins_next(start, list, bx0, by0, nbx, nbins, &i, &e, &end, &sx, &sy);
      if (cand < 0) break;
      if (part == 0) tests += 1.0; /* every thread walks every point: counted once */
      px = UM_VEC_D(pxy, cand, 0) + sx, py = UM_VEC_D(pxy, cand, 1) + sy;
      if (!siac_meets(xy, px, py)) continue;
      X0 = px - half, Y0 = py - half;
      nitems = siac_pieces_met(box, X0, Y0, &m0, &j0, &nj), q = cand;
      k = ((part - item) % T + T) % T;
    }
    if (q < 0) break;
    const int mx = m0 + k / nj, my = j0 + k % nj;
    k += T;
    const int np = siac_piece(xy, X0, Y0, mx, my, piece, tmp);
    if (np < 3) continue;
    const double v = siac_poly_integral(piece, np, xy, G, px, py, npiece - 1 - mx, npiece - 1 - my, 0, &nsub);
    if (v != 0.0) um_vec_inc_d(pval, q, 0, v / (h * h));
  }
  stats[0] += tests;
  stats[1] += nsub;
}

/* Per point with T = params.point_split > 1 threads a point: the point's work is a list of items, one per (triangle
 * whose bounding box meets its stencil, piece of the stencil the triangle's bounding box meets), in the bins' order;
 * every thread walks the whole list and clips and integrates every T-th item, preparing a triangle's polynomial when
 * it integrates a piece of it. The thread's sum is added to the point (an increment: the T threads' sums meet
 * there). */
UM_KERNEL void siac_per_point_grid_items(const double *p, const int *part, const um_vec *cxy, const um_vec *ccoef,
                                         const um_vec *start, const um_vec *list, double *u, double *stats) {
  const int npiece = 3 * siac_k + 1, T = siac_pparts;
  const double h = siac_h, half = 0.5 * npiece * h, X0 = p[0] - half, Y0 = p[1] - half;
  const double reach = half + siac_reach_t; /* the bins: as siac_per_point_grid's (the same sum) */
  int bx0, bx1, by0, by1;
  siac_bin_range(p[0] - reach, p[0] + reach, &bx0, &bx1);
  siac_bin_range(p[1] - reach, p[1] + reach, &by0, &by1);
  const int nbx = bx1 - bx0 + 1, nbins = nbx * (by1 - by0 + 1);
  double acc = 0, tests = 0, nsub = 0, sx = 0, sy = 0, t[6], box[4], tc[10], G[16], piece[16], tmp[16];
  int i = -1, e = 0, end = 0, c = -1, ready = -1, m0 = 0, j0 = 0, nj = 1, nitems = 0, k = 0, item = 0;
  for (;;) {
    while (k >= nitems) { /* the next triangle that meets the stencil, and this thread's first item of it */
      item += nitems, nitems = 0, c = -1;
      const int cand = siac_bins_next(start, list, bx0, by0, nbx, nbins, &i, &e, &end, &sx, &sy);
      if (cand < 0) break;
      if (*part == 0) tests += 1.0; /* every thread walks every triangle: counted once */
      for (int v = 0; v < 3; v++) {
        t[2 * v] = UM_VEC_D(cxy, cand, 2 * v) + sx;
        t[2 * v + 1] = UM_VEC_D(cxy, cand, 2 * v + 1) + sy;
      }
      if (!siac_meets(t, p[0], p[1])) continue;
      siac_tri_box(t, box);
      nitems = siac_pieces_met(box, X0, Y0, &m0, &j0, &nj), c = cand;
      k = ((*part - item) % T + T) % T;
    }
    if (c < 0) break;
    const int mx = m0 + k / nj, my = j0 + k % nj;
    k += T;
    const int np = siac_piece(t, X0, Y0, mx, my, piece, tmp);
    if (np < 3) continue;
    if (ready != c) { /* the polynomial of the triangle: once per triangle this thread integrates */
      for (int b = 0; b < siac_nb; b++) tc[b] = UM_VEC_D(ccoef, c, b);
      siac_u_prepare(tc, G);
      ready = c;
    }
    acc += siac_poly_integral(piece, np, t, G, p[0], p[1], npiece - 1 - mx, npiece - 1 - my, 0, &nsub);
  }
  *u += acc / (h * h);
  stats[0] += tests;
  stats[1] += nsub;
}

/* Per element, searching (params.search: grid): the cell prepares its polynomial once, finds through the grid of
 * points every point whose stencil may meet it (the points in the bins its bounding box, widened by half the
 * stencil, meets) and adds its contribution to each (a whole-dat increment: any point of the mesh). With one
 * thread a cell, the thread skips the points whose stencils miss the cell (the cheap test) before it clips and
 * integrates the next one. With params.element_threads T > 1, T threads share a cell (each prepares the
 * polynomial itself) and split its list of pieces (siac_per_element_items). */
UM_KERNEL void siac_per_element_grid(const double *xy, const double *coef, const int *part, const um_vec *pxy,
                                     const um_vec *start, const um_vec *list, const um_vec *pval, double *stats) {
  const double half = 0.5 * (3 * siac_k + 1) * siac_h * (1.0 + 1e-12); /* (a point on the edge adds 0) */
  double box[4];
  siac_tri_box(xy, box);
  int bx0, bx1, by0, by1;
  siac_bin_range(box[0] - half, box[1] + half, &bx0, &bx1);
  siac_bin_range(box[2] - half, box[3] + half, &by0, &by1);
  double G[16], tests = 0, nsub = 0, dummy = 0, sx = 0, sy = 0;
  siac_u_prepare(coef, G); /* once: the cell's own solution serves every point it reaches */
  const int nbx = bx1 - bx0 + 1, nbins = nbx * (by1 - by0 + 1);
  if (siac_eparts > 1) {
    siac_per_element_items(xy, box, G, *part, bx0, by0, nbx, nbins, pxy, start, list, pval, stats);
    return;
  }
  int i = -1, e = 0, end = 0; /* the bin (bx0 + i % nbx, by0 + i / nbx) and its entries [e, end) still to visit */
  for (;;) {
    /* the next point whose stencil meets the cell */
    double px = 0, py = 0;
    int q = -1;
    while (q < 0) {
      const int cand = siac_bins_next(start, list, bx0, by0, nbx, nbins, &i, &e, &end, &sx, &sy);
      if (cand < 0) break;
      tests += 1.0;
      /* the point's image in the period the bin stands for: the stencil there meets this cell as it is */
      px = UM_VEC_D(pxy, cand, 0) + sx, py = UM_VEC_D(pxy, cand, 1) + sy;
      if (siac_meets(xy, px, py)) q = cand; /* siac_contrib_prepared's own test: a point it fails gets 0 */
    }
    if (q < 0) break;
    const double v = siac_contrib_prepared(xy, G, px, py, 0, &dummy, &nsub);
    if (v != 0.0) um_vec_inc_d(pval, q, 0, v);
  }
  stats[0] += tests;
  stats[1] += nsub;
}

/* A point's coordinates (the point with index *q in the cell with vertices c). */
UM_KERNEL void siac_point_xy(const double *c, const int *q, double *p) { siac_point(c, *q, &p[0], &p[1]); }

UM_KERNEL void siac_zero1(double *u) { *u = 0.0; }

UM_KERNEL void siac_zero(double *u) {
  for (int q = 0; q < siac_nq; q++) u[q] = 0.0;
}

/* The function the solution approximates: sin(2 pi x) sin(2 pi y), periodic on the unit square. */
UM_KERNEL double siac_exact(double x, double y) {
  const double tp = 6.283185307179586476925286766559;
  return sin(tp * x) * sin(tp * y);
}

/* Errors at the evaluation points, weighted by the rule and the cell's area:
 * sq[0..1] += squared L2 errors of the unfiltered and filtered solutions, mx[0..1]
 * the L-infinity errors, mean[0..1] the cell's mean unfiltered and filtered values
 * (the fields written for ParaView). */
UM_KERNEL void siac_errors(const double *xy, const double *coef, const double *ustar, double *mean, double *sq,
                           double *mx) {
  const double jac = fabs((xy[2] - xy[0]) * (xy[5] - xy[1]) - (xy[4] - xy[0]) * (xy[3] - xy[1]));
  double m0 = 0, m1 = 0, wsum = 0;
  for (int q = 0; q < siac_nq; q++) {
    double px, py;
    siac_point(xy, q, &px, &py);
    const double f = siac_exact(px, py), u = siac_eval(xy, coef, px, py);
    const double e0 = u - f, e1 = ustar[q] - f, w = siac_qw[q] * jac;
    sq[0] += w * e0 * e0;
    sq[1] += w * e1 * e1;
    if (fabs(e0) > mx[0]) mx[0] = fabs(e0);
    if (fabs(e1) > mx[1]) mx[1] = fabs(e1);
    m0 += siac_qw[q] * u;
    m1 += siac_qw[q] * ustar[q];
    wsum += siac_qw[q];
  }
  mean[0] = m0 / wsum;
  mean[1] = m1 / wsum;
}

/* The largest difference between two evaluations of the filter (per point against per element). */
UM_KERNEL void siac_diff(const double *a, const double *b, double *mx) {
  for (int q = 0; q < siac_nq; q++) {
    const double d = fabs(a[q] - b[q]);
    if (d > *mx) *mx = d;
  }
}

#endif
