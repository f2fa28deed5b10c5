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
#ifdef _OPENMP
#include <omp.h>
#endif

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
    const double fl = floor(p), f = p - fl;
    /* p carries a rounding error of at most half an ulp: decide directly unless
     * it is too close to a tie */
    if (fabs(f - 0.5) > 8.0 * DBL_EPSILON * fabs(p) + 1e-300)
      return nearbyint(p) / 1e6; /* exact integer / 10^6: correctly rounded */
    if (fabs(p) >= 1.0) {
      /* near a tie (about 8% of the C-mesh's coordinates, whose decimals end in a 5): v * 10^6 is exactly p + r
       * (fma), f - 0.5 is exact and, unless 0, larger than |r|, so the sign of the exact fraction's distance to
       * one half is t's, else r's; an exact tie rounds to even, as printf does */
      const double t = f - 0.5, r = fma(v, 1e6, -p), side = t != 0 ? t : r;
      const double n = side > 0 ? fl + 1 : side < 0 ? fl : fmod(fl, 2.0) == 0 ? fl : fl + 1;
      return n / 1e6;
    }
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

/* ---- the grid, element by element ----------------------------------------------------------------------- */

/* What every element's computation needs: the sizes and the bottom row of the square-root-plane grid (3I+1
 * values, the only arrays: a block of any size costs them and its own rows). */
typedef struct {
  int I, J;
  long long ni, nj, nc; /* nodes per grid row, rows of nodes, cells per grid row */
  double *xb, *yb;      /* the bottom row: x of each column, and the height it starts at */
} grid;

#define NODE(g, i, j) ((long long)(i) + (long long)(j) * (g)->ni)
#define CELL(g, i, j) ((long long)(i) + (long long)(j) * (g)->nc)

/* out[k] of linspace_sym(x1, x2, n, out, 1), computed alone (n >= 2): the same operations, so the same bits. */
static double linspace_at(double x1, double x2, long long n, long long k) {
  if (x1 == x2) return x2;
  const double delta = (x2 - x1) / (double)(n - 1);
  const long long n2 = n / 2;
  if (k == 0) return x1;
  if (k == n - 1) return x2;
  if (k < n2) return x1 + (double)k * delta;
  if (n % 2 == 1 && k == n2) return (x1 == -x2) ? 0.0 : (x1 + x2) / 2.0;
  return x2 - (double)(n - 1 - k) * delta;
}

static void grid_free(grid *g) {
  free(g->xb);
  free(g->yb);
  g->xb = g->yb = NULL;
}

/* The sizes checked and the bottom row computed; 0, or 1 with the message in err. */
static int grid_make(int I, int J, grid *g, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  if (I < 1 || J < 1) {
    set_err(err, errlen,
            "I and J must be >= 1 (got I=%d, J=%d); I=400, J=600 gives the standard 720K-cell mesh", I, J);
    return 1;
  }
  if (I > INT_MAX / 3 - 1) {
    set_err(err, errlen, "I=%d is too large", I);
    return 1;
  }
  g->I = I, g->J = J;
  g->ni = 3LL * I + 1, g->nj = (long long)J + 1, g->nc = 3LL * I;
  g->xb = alloc_array((size_t)g->ni, sizeof(double));
  g->yb = alloc_array((size_t)g->ni, sizeof(double));
  if (!g->xb || !g->yb) {
    grid_free(g);
    set_err(err, errlen, "out of memory for the grid's bottom row (I=%d)", I);
    return 1;
  }
  double px[NSPL], py[NSPL], h[NSPL], c[NSPL], cb[NSPL], cd[NSPL], dl[NSPL], dd[NSPL], du[NSPL];
  profile_sqrt_plane(px, py);
  if (spline_not_a_knot(NSPL, px, py, h, c, cb, cd, dl, dd, du) != 0) {
    grid_free(g);
    set_err(err, errlen, "singular spline system (internal error)");
    return 1;
  }
  for (long long i = 0; i < g->ni; i++) {
    g->xb[i] = linspace_at(-3.0, 3.0, g->ni, i);
    g->yb[i] = 0.0;
  }
  /* aerofoil: interior points of the middle third (the script's xb(I+2:2*I)) */
  for (long long i = I + 1; i < 2LL * I; i++) g->yb[i] = spline_eval(NSPL, px, py, c, cb, cd, g->xb[i]);
  return 0;
}

/* Node n: column i equispaced from yb[i] to 3, then z = w^2. */
static void node_xy(const grid *g, long long n, int round6, double *xy) {
  const long long i = n % g->ni, j = n / g->ni;
  const double xg = g->xb[i], yg = linspace_at(g->yb[i], 3.0, g->nj, j);
  /* w^2 as Octave's complex power computes it: (1 + 0i) * (w * w); the extra "+ 0.0 * re" only turns a -0
   * imaginary part into +0 */
  const double re = xg * xg - yg * yg;
  double im = xg * yg + yg * xg;
  im = im + 0.0 * re;
  xy[0] = round6 ? round_to_6_decimals(re) : re;
  xy[1] = round6 ? round_to_6_decimals(im) : im;
}

/* Cell c's nodes, anticlockwise. */
static void cell_nodes(const grid *g, long long c, long long q[4]) {
  const long long i = c % g->nc, j = c / g->nc;
  q[0] = NODE(g, i, j);
  q[1] = NODE(g, i + 1, j);
  q[2] = NODE(g, i + 1, j + 1);
  q[3] = NODE(g, i, j + 1);
}

/* Boundary edge b: aerofoil (bound 1), then far field (2): i = 3I upwards, the outer arc, i = 0 downwards. */
static void bedge_at(const grid *g, long long b, long long n[2], long long *cell, int *bound) {
  const long long I = g->I, J = g->J, NC = g->nc;
  if (b < I) { /* aerofoil surface */
    const long long i = I + b;
    n[0] = NODE(g, i + 1, 0), n[1] = NODE(g, i, 0), *cell = CELL(g, i, 0), *bound = 1;
  } else if (b < I + J) { /* far field: i = 3I, downstream, upper side, outwards */
    const long long j = b - I;
    n[0] = NODE(g, NC, j + 1), n[1] = NODE(g, NC, j), *cell = CELL(g, NC - 1, j), *bound = 2;
  } else if (b < I + J + NC) { /* far field: j = J, outer arc */
    const long long i = NC - 1 - (b - I - J);
    n[0] = NODE(g, i, J), n[1] = NODE(g, i + 1, J), *cell = CELL(g, i, J - 1), *bound = 2;
  } else { /* far field: i = 0, downstream, lower side, inwards */
    const long long j = J - 1 - (b - I - J - NC);
    n[0] = NODE(g, 0, j), n[1] = NODE(g, 0, j + 1), *cell = CELL(g, 0, j), *bound = 2;
  }
}

/* Indices written as int (a whole mesh) or long long (a block, in global numbers). */
typedef struct {
  int *i32;
  long long *i64;
} index_out;

static void put(index_out o, size_t k, long long v) {
  if (o.i64) o.i64[k] = v;
  else o.i32[k] = (int)v;
}

/* Interior edges of grid row j (cells i = 0..3I-1 in turn: the wake cut below, the top, the right side). */
static long long row_edges(const grid *g, long long j) {
  return (j == 0 ? g->I : 0) + (j < g->J - 1 ? g->nc : 0) + (g->nc - 1);
}

/* The interior edges [e0, e0 + ne) in the generator's order: nodes into edge, cells into ecell (row k - e0). */
static void edges_range(const grid *g, long long e0, long long ne, index_out edge, index_out ecell) {
  long long j = 0, e = 0;
  while (j < g->J && e + row_edges(g, j) <= e0) e += row_edges(g, j++); /* the row e0 is in */
  const long long NC = g->nc, end = e0 + ne;
  for (; j < g->J && e < end; j++)
    for (long long i = 0; i < NC && e < end; i++) {
      long long n[3][4]; /* up to three edges of cell (i, j): n0 n1 c0 c1 */
      int k = 0;
      if (j == 0 && i < g->I) { /* wake cut: joins cell i to its mirror 3I-1-i */
        long long t[4] = {NODE(g, i, 0), NODE(g, i + 1, 0), CELL(g, NC - 1 - i, 0), CELL(g, i, 0)};
        memcpy(n[k++], t, sizeof t);
      }
      if (j < g->J - 1) { /* top of cell (i,j) */
        long long t[4] = {NODE(g, i, j + 1), NODE(g, i + 1, j + 1), CELL(g, i, j), CELL(g, i, j + 1)};
        memcpy(n[k++], t, sizeof t);
      }
      if (i < NC - 1) { /* right side of cell (i,j) */
        long long t[4] = {NODE(g, i + 1, j), NODE(g, i + 1, j + 1), CELL(g, i + 1, j), CELL(g, i, j)};
        memcpy(n[k++], t, sizeof t);
      }
      for (int q = 0; q < k; q++, e++) {
        if (e < e0 || e >= end) continue;
        const size_t r = (size_t)(e - e0);
        put(edge, 2 * r, n[q][0]), put(edge, 2 * r + 1, n[q][1]);
        put(ecell, 2 * r, n[q][2]), put(ecell, 2 * r + 1, n[q][3]);
      }
    }
}

/* o from row k on. */
static index_out shifted(index_out o, size_t k) {
  return (index_out){o.i32 ? o.i32 + k : NULL, o.i64 ? o.i64 + k : NULL};
}

/* Rows [first, first + count) of each set (nodes, cells, edges, bedges) into the arrays (index_out: int or long
 * long), every element computed alone: over nthreads threads, the same bits for any count. */
static void fill_rows(const grid *g, int round6, const long long first[4], const long long count[4], double *x,
                      index_out cell, index_out edge, index_out ecell, index_out bedge, index_out becell, int *bound,
                      int nthreads) {
  (void)nthreads; /* unused in a build without OpenMP */
#pragma omp parallel num_threads(nthreads)
  {
    int t = 0, nt = 1;
#ifdef _OPENMP
    t = omp_get_thread_num(), nt = omp_get_num_threads();
#endif
#pragma omp for schedule(static) nowait
    for (long long k = 0; k < count[0]; k++) node_xy(g, first[0] + k, round6, x + 2 * (size_t)k);
#pragma omp for schedule(static) nowait
    for (long long k = 0; k < count[1]; k++) {
      long long q[4];
      cell_nodes(g, first[1] + k, q);
      for (int a = 0; a < 4; a++) put(cell, 4 * (size_t)k + (size_t)a, q[a]);
    }
    const long long e0 = count[2] * t / nt, e1 = count[2] * (t + 1) / nt; /* this thread's interior edges */
    edges_range(g, first[2] + e0, e1 - e0, shifted(edge, 2 * (size_t)e0), shifted(ecell, 2 * (size_t)e0));
#pragma omp for schedule(static) nowait
    for (long long k = 0; k < count[3]; k++) {
      long long n[2] = {0, 0}, c = 0;
      bedge_at(g, first[3] + k, n, &c, &bound[k]);
      put(bedge, 2 * (size_t)k, n[0]), put(bedge, 2 * (size_t)k + 1, n[1]), put(becell, (size_t)k, c);
    }
  }
}

int airfoil_mesh_counts(int I, int J, long long counts[4]) {
  if (I < 1 || J < 1 || I > INT_MAX / 3 - 1) return 1;
  counts[0] = (3LL * I + 1) * ((long long)J + 1);
  counts[1] = 3LL * I * J;
  counts[2] = (3LL * I - 1) * J + 3LL * I * (J - 1) + I;
  counts[3] = 4LL * I + 2LL * J;
  return 0;
}

int airfoil_mesh_generate(int I, int J, int round6, airfoil_mesh *m, char *err, size_t errlen) {
  return airfoil_mesh_generate_threads(I, J, round6, 1, m, err, errlen);
}

int airfoil_mesh_generate_threads(int I, int J, int round6, int nthreads, airfoil_mesh *m, char *err, size_t errlen) {
  if (m == NULL) {
    set_err(err, errlen, "airfoil_mesh_generate: mesh pointer is NULL");
    return 1;
  }
  memset(m, 0, sizeof *m);
  grid g;
  char why[256];
  if (grid_make(I, J, &g, why, sizeof why)) {
    set_err(err, errlen, "airfoil_mesh_generate: %s", why);
    return 1;
  }
  long long n[4] = {0, 0, 0, 0};
  airfoil_mesh_counts(I, J, n);
  if (n[0] > INT_MAX || n[2] > INT_MAX || n[3] > INT_MAX) {
    grid_free(&g);
    set_err(err, errlen,
            "airfoil_mesh_generate: I=%d, J=%d gives %lld nodes and %lld edges, more than "
            "int indices can address (%d); choose smaller I, J", I, J, n[0], n[2], INT_MAX);
    return 1;
  }
  m->nnode = (int)n[0];
  m->ncell = (int)n[1];
  m->nedge = (int)n[2];
  m->nbedge = (int)n[3];
  m->x = alloc_array(2 * (size_t)n[0], sizeof(double));
  m->cell = alloc_array(4 * (size_t)n[1], sizeof(int));
  m->edge = alloc_array(2 * (size_t)n[2], sizeof(int));
  m->ecell = alloc_array(2 * (size_t)n[2], sizeof(int));
  m->bedge = alloc_array(2 * (size_t)n[3], sizeof(int));
  m->becell = alloc_array((size_t)n[3], sizeof(int));
  m->bound = alloc_array((size_t)n[3], sizeof(int));
  if (!m->x || !m->cell || !m->edge || !m->ecell || !m->bedge || !m->becell || !m->bound) {
    grid_free(&g);
    airfoil_mesh_free(m);
    set_err(err, errlen, "airfoil_mesh_generate: out of memory for I=%d, J=%d (%lld nodes, %lld cells)", I, J, n[0],
            n[1]);
    return 1;
  }
  const long long first[4] = {0, 0, 0, 0};
  fill_rows(&g, round6, first, n, m->x, (index_out){m->cell, NULL}, (index_out){m->edge, NULL},
            (index_out){m->ecell, NULL}, (index_out){m->bedge, NULL}, (index_out){m->becell, NULL}, m->bound,
            nthreads < 1 ? 1 : nthreads);
  grid_free(&g);
  return 0;
}

void airfoil_block_free(airfoil_block *b) {
  if (b == NULL) return;
  free(b->x);
  free(b->cell);
  free(b->edge);
  free(b->ecell);
  free(b->bedge);
  free(b->becell);
  free(b->bound);
  free(b->cell32), free(b->edge32), free(b->ecell32), free(b->bedge32), free(b->becell32);
  memset(b, 0, sizeof *b);
}

int airfoil_block_generate(int I, int J, int round6, const long long first[4], const long long count[4], int rows32,
                           airfoil_block *b, char *err, size_t errlen) {
  if (b == NULL) {
    set_err(err, errlen, "airfoil_block_generate: block pointer is NULL");
    return 1;
  }
  memset(b, 0, sizeof *b);
  grid g;
  char why[256];
  if (grid_make(I, J, &g, why, sizeof why)) {
    set_err(err, errlen, "airfoil_block_generate: %s", why);
    return 1;
  }
  airfoil_mesh_counts(I, J, b->gsize);
  static const char *const sets[4] = {"nodes", "cells", "edges", "bedges"};
  for (int s = 0; s < 4; s++)
    if (first[s] < 0 || count[s] < 0 || count[s] > INT_MAX || first[s] + count[s] > b->gsize[s]) {
      grid_free(&g);
      set_err(err, errlen, "airfoil_block_generate: the block [%lld, %lld) of %s is not within its %lld elements",
              first[s], first[s] + count[s], sets[s], b->gsize[s]);
      return 1;
    }
  for (int s = 0; s < 4; s++) b->first[s] = first[s], b->count[s] = (int)count[s];
  if (rows32 && (b->gsize[0] > INT_MAX || b->gsize[1] > INT_MAX)) {
    grid_free(&g);
    set_err(err, errlen, "airfoil_block_generate: 32-bit rows for a mesh of %lld nodes and %lld cells (over %d)",
            b->gsize[0], b->gsize[1], INT_MAX);
    return 1;
  }
  const size_t w = rows32 ? sizeof(int) : sizeof(long long);
  void *rows[5] = {alloc_array(4 * (size_t)count[1], w), alloc_array(2 * (size_t)count[2], w),
                   alloc_array(2 * (size_t)count[2], w), alloc_array(2 * (size_t)count[3], w),
                   alloc_array((size_t)count[3], w)};
  if (rows32)
    b->cell32 = rows[0], b->edge32 = rows[1], b->ecell32 = rows[2], b->bedge32 = rows[3], b->becell32 = rows[4];
  else
    b->cell = rows[0], b->edge = rows[1], b->ecell = rows[2], b->bedge = rows[3], b->becell = rows[4];
  b->x = alloc_array(2 * (size_t)count[0], sizeof(double));
  b->bound = alloc_array((size_t)count[3], sizeof(int));
  if (!b->x || !rows[0] || !rows[1] || !rows[2] || !rows[3] || !rows[4] || !b->bound) {
    grid_free(&g);
    airfoil_block_free(b);
    set_err(err, errlen, "airfoil_block_generate: out of memory for a block of %lld nodes and %lld cells", count[0],
            count[1]);
    return 1;
  }
  fill_rows(&g, round6, first, count, b->x, (index_out){b->cell32, b->cell}, (index_out){b->edge32, b->edge},
            (index_out){b->ecell32, b->ecell}, (index_out){b->bedge32, b->bedge}, (index_out){b->becell32, b->becell},
            b->bound, 1);
  grid_free(&g);
  return 0;
}
