/*
 * naca0012.c -- C-mesh generator for the NACA0012 aerofoil (see naca0012.h).
 *
 * Our own C implementation of the method of OP2's naca0012.m:
 *
 *  1. Aerofoil upper surface: 100 points x = sin(t)^2, t equispaced in
 *     [0, pi/2], thickness y from the NACA 4-digit formula (the script's scaled
 *     coefficients), trailing-edge y forced to 0.
 *  2. Complex square-root transform w = sqrt(x + iy - 0.0077), which opens the
 *     aerofoil into a nearly flat line; the lower surface is the mirror image
 *     -conj(w), giving 199 profile points ordered from the lower trailing edge
 *     round the leading edge to the upper trailing edge.
 *  3. In the w-plane a (3I+1) x (J+1) grid: columns equispaced in [-3, 3];
 *     the bottom row follows the profile (interpolated with a not-a-knot cubic
 *     spline) on the middle third and is 0 on the wake cut; each column is
 *     equispaced in height from the bottom row up to 3.
 *  4. Map back by squaring: z = w^2.
 *
 * The numerical steps are written to follow the operation order of GNU Octave
 * 7.3 running naca0012.m (symmetric linspace, its spline.m/ppval.m formulation
 * with a partial-pivoting tridiagonal solve as LAPACK dgtsv does), so that the
 * coordinates agree with Octave's to the last bit; after rounding to 6 decimals
 * (as the script's writer does) the text output is identical.
 *
 * Numbering (0-based; node(i,j) = i + j*(3I+1), cell(i,j) = i + j*3I):
 *  - nodes and cells: i fastest;
 *  - edges: for j = 0..J-1, i = 0..3I-1 in turn: the wake-cut edge below
 *    (j == 0, i < I), the edge above (j < J-1), the edge to the right (i < 3I-1);
 *  - bedges: aerofoil (bound 1), then far field (bound 2) right side upwards,
 *    outer arc, then the i = 0 side (see the loops below).
 */
#include "naca0012.h"

#include <complex.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* C11 7.3.1: a program may undefine the macro I; we use I for the grid size. */
#undef I

/* Reproducibility: the reference coordinates are computed without fused
 * multiply-add; keep compilers from contracting a*b+c here. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#define NPROF 100              /* points on the upper surface */
#define NSPL (2 * NPROF - 1)   /* points on the whole profile */

static void set_err(char *err, size_t errlen, const char *fmt, ...) {
  if (err == NULL || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

void airfoil_mesh_free(airfoil_mesh *m) {
  if (m == NULL) return;
  free(m->x);
  free(m->cell);
  free(m->edge);
  free(m->ecell);
  free(m->bedge);
  free(m->becell);
  free(m->bound);
  memset(m, 0, sizeof *m);
}

/* linspace(x1, x2, n), n >= 2, built symmetrically from both ends as Octave
 * (>= 7) does; out[k*stride]. */
static void linspace_sym(double x1, double x2, size_t n, double *out, size_t stride) {
  if (x1 == x2) {
    for (size_t i = 0; i < n; i++) out[i * stride] = x2;
    return;
  }
  const double delta = (x2 - x1) / (double)(n - 1);
  out[0] = x1;
  out[(n - 1) * stride] = x2;
  const size_t n2 = n / 2;
  for (size_t i = 1; i < n2; i++) {
    out[i * stride] = x1 + (double)i * delta;
    out[(n - 1 - i) * stride] = x2 - (double)i * delta;
  }
  if (n % 2 == 1) out[n2 * stride] = (x1 == -x2) ? 0.0 : (x1 + x2) / 2.0;
}

/* re + i im (CMPLX where the library provides it; otherwise through the
 * double[2] layout C11 6.2.5 guarantees, so infinities/signed zeros survive) */
static double complex make_complex(double re, double im) {
#ifdef CMPLX
  return CMPLX(re, im);
#else
  double complex z;
  ((double *)&z)[0] = re;
  ((double *)&z)[1] = im;
  return z;
#endif
}

/* Profile in the square-root plane: px (increasing), py; NSPL points. */
static void profile_sqrt_plane(double *px, double *py) {
  const double PI_2 = 3.14159265358979323846 / 2.0; /* pi/2, exact halving of the double pi */
  const double x0 = 0.0077;
  double t[NPROF];
  double complex w[NPROF];
  linspace_sym(0.0, PI_2, NPROF, t, 1);
  for (int k = 0; k < NPROF; k++) {
    const double s = sin(t[k]);
    const double x = s * s;
    /* Octave forms x.^2 and x.^3 by multiplication and x.^4 with pow(); other
     * choices change the last bits of the mesh */
    const double x2 = x * x;
    const double x3 = x * x * x;
    const double x4 = pow(x, 4.0);
    double y = 0.298222773 * sqrt(x) - 0.127125232 * x;
    y = y - 0.357907906 * x2;
    y = y + 0.291984971 * x3;
    y = y - 0.105174696 * x4;
    y = 0.594689181 * y;
    if (k == NPROF - 1) y = 0.0; /* closed trailing edge */
    w[k] = csqrt(make_complex(x - x0, y));
  }
  /* lower surface: -conj(w) reversed, then the upper surface without its first point */
  for (int k = 0; k < NPROF; k++) {
    px[k] = -creal(w[NPROF - 1 - k]);
    py[k] = cimag(w[NPROF - 1 - k]);
  }
  for (int k = 1; k < NPROF; k++) {
    px[NPROF - 1 + k] = creal(w[k]);
    py[NPROF - 1 + k] = cimag(w[k]);
  }
}

/* Not-a-knot cubic spline through (x[k], a[k]), k < n (n >= 5, x increasing),
 * in the formulation of Octave's spline.m: unknowns c (half second derivatives)
 * at the interior knots, end values eliminated.  Outputs per interval k < n-1
 * the coefficients (cd, cc, cb, a[k]) of the local cubic in (t - x[k]).
 * Returns 0, or -1 if the system is singular. */
static int spline_not_a_knot(int n, const double *x, const double *a, double *h, double *c,
                             double *cb, double *cd, double *dl, double *dd, double *du) {
  for (int k = 0; k < n - 1; k++) h[k] = x[k + 1] - x[k];
  const int m = n - 2; /* interior unknowns c[1..n-2] */
  double *g = c + 1;
  g[0] = 3.0 / (h[0] + h[1]) * ((a[2] - a[1]) - h[1] / h[0] * (a[1] - a[0]));
  g[m - 1] = 3.0 / (h[n - 2] + h[n - 3]) *
             (h[n - 3] / h[n - 2] * (a[n - 1] - a[n - 2]) - (a[n - 2] - a[n - 3]));
  for (int k = 1; k < m - 1; k++)
    g[k] = 3.0 * (a[k + 2] - a[k + 1]) / h[k + 1] - 3.0 * (a[k + 1] - a[k]) / h[k];
  for (int k = 0; k < m; k++) dd[k] = 2.0 * (h[k] + h[k + 1]);
  dd[0] = dd[0] - h[0];
  dd[m - 1] = dd[m - 1] - h[n - 2];
  for (int k = 0; k < m - 1; k++) dl[k] = du[k] = h[k + 1]; /* row k+1 / row k */
  du[0] = du[0] - h[0];
  dl[m - 2] = dl[m - 2] - h[n - 2];

  /* tridiagonal solve, Gaussian elimination with partial pivoting (LAPACK
   * dgtsv's scheme; du2 holds the fill-in of row interchanges) */
  double du2[NSPL];
  for (int i = 0; i < m - 1; i++) {
    if (fabs(dd[i]) >= fabs(dl[i])) {
      if (dd[i] == 0.0) return -1;
      const double fact = dl[i] / dd[i];
      dd[i + 1] = dd[i + 1] - fact * du[i];
      g[i + 1] = g[i + 1] - fact * g[i];
      du2[i] = 0.0;
    } else {
      const double fact = dd[i] / dl[i];
      dd[i] = dl[i];
      double tmp = dd[i + 1];
      dd[i + 1] = du[i] - fact * tmp;
      if (i < m - 2) {
        du2[i] = du[i + 1];
        du[i + 1] = -fact * du2[i];
      } else {
        du2[i] = 0.0;
      }
      du[i] = tmp;
      tmp = g[i];
      g[i] = g[i + 1];
      g[i + 1] = tmp - fact * g[i + 1];
    }
  }
  if (dd[m - 1] == 0.0) return -1;
  g[m - 1] = g[m - 1] / dd[m - 1];
  if (m > 1) g[m - 2] = (g[m - 2] - du[m - 2] * g[m - 1]) / dd[m - 2];
  for (int i = m - 3; i >= 0; i--)
    g[i] = (g[i] - du[i] * g[i + 1] - du2[i] * g[i + 2]) / dd[i];

  c[0] = c[1] + h[0] / h[1] * (c[1] - c[2]);
  c[n - 1] = c[n - 2] + h[n - 2] / h[n - 3] * (c[n - 2] - c[n - 3]);
  for (int k = 0; k < n - 1; k++) {
    cb[k] = (a[k + 1] - a[k]) / h[k] - h[k] / 3.0 * (c[k + 1] + 2.0 * c[k]);
    cd[k] = (c[k + 1] - c[k]) / (3.0 * h[k]);
  }
  return 0;
}

/* Evaluate the piecewise cubic at t: interval k with x[k] <= t < x[k+1], the end
 * pieces extended outwards (Octave's ppval with lookup(..., "lr")). */
static double spline_eval(int n, const double *x, const double *a, const double *c,
                          const double *cb, const double *cd, double t) {
  int lo = 0, hi = n - 1; /* find largest k in [0, n-2] with x[k] <= t */
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (x[mid] <= t) lo = mid; else hi = mid;
  }
  const int k = lo;
  const double dx = t - x[k];
  double v = cd[k];
  v = v * dx;
  v = v + c[k];
  v = v * dx;
  v = v + cb[k];
  v = v * dx;
  v = v + a[k];
  return v;
}

/* The double nearest to the 6-decimal rendering of v, i.e. what printf("%f")
 * followed by strtod gives. */
static double round_to_6_decimals(double v) {
  if (!isfinite(v) || fabs(v) >= 4503599627370496.0) return v; /* 2^52: already integral */
  const double p = v * 1e6;
  if (fabs(p) < 4503599627370496.0) {
    const double f = p - floor(p);
    /* p carries a rounding error of at most half an ulp: decide directly unless
     * it is too close to a tie */
    if (fabs(f - 0.5) > 8.0 * DBL_EPSILON * fabs(p) + 1e-300)
      return nearbyint(p) / 1e6; /* exact integer / 10^6: correctly rounded */
  }
  char buf[64];
  snprintf(buf, sizeof buf, "%f", v);
  return strtod(buf, NULL);
}

/* multiply counts with overflow check, then malloc */
static void *alloc_array(size_t count, size_t size) {
  if (count == 0) count = 1;
  if (count > SIZE_MAX / size) return NULL;
  return malloc(count * size);
}

/* The grid's connectivity: cells (nodes anticlockwise), interior edges with their two cells (the wake cut
 * joining the lower and upper sides), boundary edges (aerofoil 1, far field 2) with their cell; *ne, *nb: how
 * many of each were made. */
static void connect_grid(airfoil_mesh *m, int I, int J, size_t *ne, size_t *nb) {
  /* --- cells --------------------------------------------------------------- */
  const int NI = 3 * I + 1, NC = 3 * I; /* nodes / cells per grid row */
#define NODE(i, j) ((i) + (j) * NI)
#define CELL(i, j) ((i) + (j) * NC)
  for (int j = 0; j < J; j++)
    for (int i = 0; i < NC; i++) {
      int *cn = m->cell + 4 * (size_t)CELL(i, j);
      cn[0] = NODE(i, j);
      cn[1] = NODE(i + 1, j);
      cn[2] = NODE(i + 1, j + 1);
      cn[3] = NODE(i, j + 1);
    }

  /* --- interior edges -------------------------------------------------------- */
  size_t e = 0;
  for (int j = 0; j < J; j++)
    for (int i = 0; i < NC; i++) {
      if (j == 0 && i < I) { /* wake cut: joins cell i to its mirror 3I-1-i */
        m->edge[2 * e] = NODE(i, 0);
        m->edge[2 * e + 1] = NODE(i + 1, 0);
        m->ecell[2 * e] = CELL(NC - 1 - i, 0);
        m->ecell[2 * e + 1] = CELL(i, 0);
        e++;
      }
      if (j < J - 1) { /* top of cell (i,j) */
        m->edge[2 * e] = NODE(i, j + 1);
        m->edge[2 * e + 1] = NODE(i + 1, j + 1);
        m->ecell[2 * e] = CELL(i, j);
        m->ecell[2 * e + 1] = CELL(i, j + 1);
        e++;
      }
      if (i < NC - 1) { /* right side of cell (i,j) */
        m->edge[2 * e] = NODE(i + 1, j);
        m->edge[2 * e + 1] = NODE(i + 1, j + 1);
        m->ecell[2 * e] = CELL(i + 1, j);
        m->ecell[2 * e + 1] = CELL(i, j);
        e++;
      }
    }

  /* --- boundary edges -------------------------------------------------------- */
  size_t b = 0;
  for (int i = I; i < 2 * I; i++, b++) { /* aerofoil surface */
    m->bedge[2 * b] = NODE(i + 1, 0);
    m->bedge[2 * b + 1] = NODE(i, 0);
    m->becell[b] = CELL(i, 0);
    m->bound[b] = 1;
  }
  for (int j = 0; j < J; j++, b++) { /* far field: i = 3I, downstream, upper side, outwards */
    m->bedge[2 * b] = NODE(NC, j + 1);
    m->bedge[2 * b + 1] = NODE(NC, j);
    m->becell[b] = CELL(NC - 1, j);
    m->bound[b] = 2;
  }
  for (int i = NC - 1; i >= 0; i--, b++) { /* far field: j = J, outer arc */
    m->bedge[2 * b] = NODE(i, J);
    m->bedge[2 * b + 1] = NODE(i + 1, J);
    m->becell[b] = CELL(i, J - 1);
    m->bound[b] = 2;
  }
  for (int j = J - 1; j >= 0; j--, b++) { /* far field: i = 0, downstream, lower side, inwards */
    m->bedge[2 * b] = NODE(0, j);
    m->bedge[2 * b + 1] = NODE(0, j + 1);
    m->becell[b] = CELL(0, j);
    m->bound[b] = 2;
  }
#undef NODE
#undef CELL
  *ne = e;
  *nb = b;
}

int airfoil_mesh_generate(int I, int J, int round6, airfoil_mesh *m, char *err, size_t errlen) {
  if (m == NULL) {
    set_err(err, errlen, "airfoil_mesh_generate: mesh pointer is NULL");
    return 1;
  }
  memset(m, 0, sizeof *m);
  if (I < 1 || J < 1) {
    set_err(err, errlen,
            "airfoil_mesh_generate: I and J must be >= 1 (got I=%d, J=%d); "
            "I=400, J=600 gives the standard 720K-cell mesh", I, J);
    return 1;
  }
  if (I > INT_MAX / 3 - 1) {
    set_err(err, errlen, "airfoil_mesh_generate: I=%d is too large", I);
    return 1;
  }
  const long long ni = 3LL * I + 1, nj = (long long)J + 1;
  const long long nnode = ni * nj;
  const long long ncell = 3LL * I * J;
  const long long nedge = (3LL * I - 1) * J + 3LL * I * (J - 1) + I;
  const long long nbedge = 4LL * I + 2LL * J;
  if (nnode > INT_MAX || nedge > INT_MAX || nbedge > INT_MAX) {
    set_err(err, errlen,
            "airfoil_mesh_generate: I=%d, J=%d gives %lld nodes and %lld edges, more than "
            "int indices can address (%d); choose smaller I, J", I, J, nnode, nedge, INT_MAX);
    return 1;
  }
  m->nnode = (int)nnode;
  m->ncell = (int)ncell;
  m->nedge = (int)nedge;
  m->nbedge = (int)nbedge;
  m->x = alloc_array(2 * (size_t)nnode, sizeof(double));
  m->cell = alloc_array(4 * (size_t)ncell, sizeof(int));
  m->edge = alloc_array(2 * (size_t)nedge, sizeof(int));
  m->ecell = alloc_array(2 * (size_t)nedge, sizeof(int));
  m->bedge = alloc_array(2 * (size_t)nbedge, sizeof(int));
  m->becell = alloc_array((size_t)nbedge, sizeof(int));
  m->bound = alloc_array((size_t)nbedge, sizeof(int));
  double *yb = alloc_array((size_t)ni, sizeof(double));
  double *xb = alloc_array((size_t)ni, sizeof(double));
  double *col = alloc_array((size_t)nj, sizeof(double));
  if (!m->x || !m->cell || !m->edge || !m->ecell || !m->bedge || !m->becell || !m->bound ||
      !yb || !xb || !col) {
    free(yb); free(xb); free(col);
    airfoil_mesh_free(m);
    set_err(err, errlen,
            "airfoil_mesh_generate: out of memory for I=%d, J=%d (%lld nodes, %lld cells)",
            I, J, nnode, ncell);
    return 1;
  }

  /* --- bottom row of the square-root-plane grid ---------------------------- */
  double px[NSPL], py[NSPL], h[NSPL], c[NSPL], cb[NSPL], cd[NSPL], dl[NSPL], dd[NSPL], du[NSPL];
  profile_sqrt_plane(px, py);
  if (spline_not_a_knot(NSPL, px, py, h, c, cb, cd, dl, dd, du) != 0) {
    free(yb); free(xb); free(col);
    airfoil_mesh_free(m);
    set_err(err, errlen, "airfoil_mesh_generate: singular spline system (internal error)");
    return 1;
  }
  linspace_sym(-3.0, 3.0, (size_t)ni, xb, 1);
  for (long long i = 0; i < ni; i++) yb[i] = 0.0;
  /* aerofoil: interior points of the middle third (the script's xb(I+2:2*I)) */
  for (long long i = I + 1; i < 2LL * I; i++)
    yb[i] = spline_eval(NSPL, px, py, c, cb, cd, xb[i]);

  /* --- nodes: column i equispaced from yb[i] to 3, then z = w^2 ---------- */
  for (long long i = 0; i < ni; i++) {
    linspace_sym(yb[i], 3.0, (size_t)nj, col, 1);
    const double xg = xb[i];
    for (long long j = 0; j < nj; j++) {
      const double yg = col[j];
      /* w^2 as Octave's complex power computes it: (1 + 0i) * (w * w); the
       * extra "+ 0.0 * re" only turns a -0 imaginary part into +0 */
      const double re = xg * xg - yg * yg;
      double im = xg * yg + yg * xg;
      im = im + 0.0 * re;
      const size_t n = (size_t)(i + j * ni);
      m->x[2 * n] = round6 ? round_to_6_decimals(re) : re;
      m->x[2 * n + 1] = round6 ? round_to_6_decimals(im) : im;
    }
  }
  free(yb); free(xb); free(col);

  size_t e = 0, b = 0; /* interior and boundary edges made */
  connect_grid(m, I, J, &e, &b);
  if (e != (size_t)nedge || b != (size_t)nbedge) { /* cannot happen: counts are closed forms */
    airfoil_mesh_free(m);
    set_err(err, errlen, "airfoil_mesh_generate: internal error, edge count mismatch");
    return 1;
  }
  return 0;
}
