/* BookLeaf's mesh and initial state, built from the deck as upstream's serial
 * run builds them (BookLeaf_F90 setup_mesh, init_dr_mesh, setup_IC): each
 * region is a logically rectangular block of quadrilaterals whose four sides
 * are line or arc segments; interior points come from upstream's weighted
 * Laplacian relaxation; nodes and elements are numbered as upstream numbers
 * them (k outer, l inner), so fields compare element by element. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bookleaf.h"
#include "checked.h"
#include "um/um.h"

#define UM_APP_TRY_(call)     \
  do {                        \
    int rc_ = (call);         \
    if (rc_) return rc_;      \
  } while (0)

static int ferr(const bl_deck *d, const char *key, char *err, size_t errlen, const char *fmt, ...) {
  char msg[700];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const int line = key ? bl_deck_line(d, key) : 0;
  if (key && line) return um_format_error(err, errlen, UM_ERR_CONFIG, "%s:%d: %s: %s", d->file, line, key, msg);
  if (key) return um_format_error(err, errlen, UM_ERR_CONFIG, "%s: %s: %s", d->file, key, msg);
  return um_format_error(err, errlen, UM_ERR_CONFIG, "%s: %s", d->file, msg);
}

/* Upper-case copy without leading/trailing blanks. */
static void upper(const char *s, char *out, size_t n) {
  while (*s == ' ') s++;
  size_t k = 0;
  for (; *s && k + 1 < n; s++) out[k++] = (char)toupper((unsigned char)*s);
  while (k > 0 && out[k - 1] == ' ') k--;
  out[k] = 0;
}

static int is(const char *s, const char *name) {
  char u[BL_SLEN];
  upper(s, u, sizeof u);
  return strcmp(u, name) == 0;
}

/* ---- geometry ------------------------------------------------------------ */

void bl_geometry(const double *cx, const double *cy, double *a1, double *a3, double *b1, double *b3, double *cnwt,
                 double *vol) {
  const double A1 = 0.25 * (-cx[0] + cx[1] + cx[2] - cx[3]);
  const double A2 = 0.25 * (cx[0] - cx[1] + cx[2] - cx[3]);
  const double A3 = 0.25 * (-cx[0] - cx[1] + cx[2] + cx[3]);
  const double B1 = 0.25 * (-cy[0] + cy[1] + cy[2] - cy[3]);
  const double B2 = 0.25 * (cy[0] - cy[1] + cy[2] - cy[3]);
  const double B3 = 0.25 * (-cy[0] - cy[1] + cy[2] + cy[3]);
  const double n9 = 1.0 / 9.0;
  if (cnwt) {
    cnwt[0] = n9 * ((3.0 * B3 - B2) * (3.0 * A1 - A2) - (3.0 * A3 - A2) * (3.0 * B1 - B2));
    cnwt[1] = n9 * ((3.0 * B3 + B2) * (3.0 * A1 - A2) - (3.0 * A3 + A2) * (3.0 * B1 - B2));
    cnwt[2] = n9 * ((3.0 * B3 + B2) * (3.0 * A1 + A2) - (3.0 * A3 + A2) * (3.0 * B1 + B2));
    cnwt[3] = n9 * ((3.0 * B3 - B2) * (3.0 * A1 + A2) - (3.0 * A3 - A2) * (3.0 * B1 + B2));
  }
  if (a1) *a1 = A1, *a3 = A3, *b1 = B1, *b3 = B3;
  *vol = 4.0 * (A1 * B3 - A3 * B1);
}

static void centroid(const double *x, const double *y, double *c) {
  double vol = 0.0;
  c[0] = c[1] = 0.0;
  for (int i = 0; i < 4; i++) {
    const int j = (i + 1) % 4;
    const double r = x[i] * y[j] - x[j] * y[i];
    vol += r;
    c[0] += r * (x[i] + x[j]);
    c[1] += r * (y[i] + y[j]);
  }
  vol *= 0.5;
  c[0] = vol > 0.0 ? c[0] / (6.0 * vol) : 0.0;
  c[1] = vol > 0.0 ? c[1] / (6.0 * vol) : 0.0;
}

/* ---- the generator ------------------------------------------------------- */

typedef struct {
  int nl, nk;
  double *rr, *ss; /* rr = y, ss = x, (l, k) 1-based, column-major */
  int *bc;
} grid;

#define IX(g, l, k) ((size_t)((l) - 1) + (size_t)(g)->nl * (size_t)((k) - 1))

static void gen_line(grid *g, const bl_deck *d, int seg, int bc, int l1, int l2, int k1, int k2, double tol,
                     double om, double zerocut) {
  const double s1 = d->segment_pos[0][seg], r1 = d->segment_pos[1][seg];
  const double s2 = d->segment_pos[2][seg], r2 = d->segment_pos[3][seg];
  double w1 = d->segment_pos[4][seg], w2 = d->segment_pos[5][seg];
  const int kmin = k1 < k2 ? k1 : k2, kmax = k1 < k2 ? k2 : k1, lmin = l1 < l2 ? l1 : l2, lmax = l1 < l2 ? l2 : l1;
  double dr = r2 - r1, ds = s2 - s1;
  const int il = lmax - lmin > 1 ? lmax - lmin : 1, ik = kmax - kmin > 1 ? kmax - kmin : 1;
  const double fac = w1 + w2;
  int weighted = 0;
  if (fac > zerocut) {
    weighted = 1;
    w1 /= fac;
    w2 /= fac;
  }
  if (lmin == lmax) {
    const double dd = (double)ik;
    for (int kk = kmin; kk <= kmax; kk++) {
      const int ki = kmin == k2 ? kmax + kmin - kk : kk;
      g->rr[IX(g, l1, ki)] = r1 + (double)(kk - kmin) * dr / dd;
      g->ss[IX(g, l1, ki)] = s1 + (double)(kk - kmin) * ds / dd;
      g->bc[IX(g, l1, ki)] = bc;
    }
    if (weighted)
      for (int it = 0; it < 100000; it++) {
        int done = 1;
        for (int kk = kmin + 1; kk <= kmax - 1; kk++) {
          dr = w1 * g->rr[IX(g, l1, kk - 1)] + w2 * g->rr[IX(g, l1, kk + 1)] - g->rr[IX(g, l1, kk)];
          ds = w1 * g->ss[IX(g, l1, kk - 1)] + w2 * g->ss[IX(g, l1, kk + 1)] - g->ss[IX(g, l1, kk)];
          if (fabs(dr) > tol || fabs(ds) > tol) done = 0;
          g->rr[IX(g, l1, kk)] += om * dr;
          g->ss[IX(g, l1, kk)] += om * ds;
        }
        if (done) break;
      }
  } else {
    const double dd = (double)il;
    for (int ll = lmin; ll <= lmax; ll++) {
      const int li = lmin == l2 ? lmax + lmin - ll : ll;
      g->rr[IX(g, li, k1)] = r1 + (double)(ll - lmin) * dr / dd;
      g->ss[IX(g, li, k1)] = s1 + (double)(ll - lmin) * ds / dd;
      g->bc[IX(g, li, k1)] = bc;
    }
    if (weighted)
      for (int it = 0; it < 100000; it++) {
        int done = 1;
        for (int ll = lmin + 1; ll <= lmax - 1; ll++) {
          dr = w1 * g->rr[IX(g, ll - 1, k1)] + w2 * g->rr[IX(g, ll + 1, k1)] - g->rr[IX(g, ll, k1)];
          ds = w1 * g->ss[IX(g, ll - 1, k1)] + w2 * g->ss[IX(g, ll + 1, k1)] - g->ss[IX(g, ll, k1)];
          if (fabs(dr) > tol || fabs(ds) > tol) done = 0;
          g->rr[IX(g, ll, k1)] += om * dr;
          g->ss[IX(g, ll, k1)] += om * ds;
        }
        if (done) break;
      }
  }
}

static double arc_angle(double dx, double dy, double zerocut) {
  const double d2 = fabs(dy) < zerocut ? zerocut : dy;
  double t = atan(dx / d2);
  if (d2 < 0.0) t += 3.1415926535897932385;
  else if (dx < 0.0) t += 6.2831853071795864770;
  return t;
}

/* Upstream's arcs: points equally spaced in angle about (s0, r0), the radius
 * varying linearly from the start to the end point. (Weighted arcs are not
 * used by the shipped decks and are refused by the caller.) */
static void gen_arc(grid *g, const bl_deck *d, int seg, int typ, int bc, int l1, int l2, int k1, int k2,
                    double zerocut) {
  const double *p[8];
  for (int i = 0; i < 8; i++) p[i] = &d->segment_pos[i][seg];
  const int fl = typ == BL_ARC_C;
  const double s1 = fl ? *p[2] : *p[0], r1 = fl ? *p[3] : *p[1];
  const double s2 = fl ? *p[0] : *p[2], r2 = fl ? *p[1] : *p[3];
  const double r0 = *p[4], s0 = *p[5];
  const int kmin = k1 < k2 ? k1 : k2, kmax = k1 < k2 ? k2 : k1, lmin = l1 < l2 ? l1 : l2, lmax = l1 < l2 ? l2 : l1;
  const double theta1 = arc_angle(s1 - s0, r1 - r0, zerocut);
  double theta2 = arc_angle(s2 - s0, r2 - r0, zerocut);
  if (theta2 > theta1) theta2 -= 6.2831853071795864770;
  const double dd2 = sqrt((r2 - r0) * (r2 - r0) + (s2 - s0) * (s2 - s0));
  const double dd1 = sqrt((r1 - r0) * (r1 - r0) + (s1 - s0) * (s1 - s0));
  const double dtheta = theta1 - theta2;
  if (lmin == lmax) {
    const double dd = (double)(kmax - kmin);
    for (int kk = kmin; kk <= kmax; kk++) {
      const int ki = kmin == k2 ? kmin + kmax - kk : kk;
      const double theta = theta1 - (double)(kk - kmin) * dtheta / dd;
      const double dl = dd1 + (dd1 - dd2) / dtheta * (theta - theta1);
      g->rr[IX(g, l1, ki)] = r0 + dl * cos(theta);
      g->ss[IX(g, l1, ki)] = s0 + dl * sin(theta);
      g->bc[IX(g, l1, ki)] = bc;
    }
  } else {
    const double dd = (double)(lmax - lmin);
    for (int ll = lmin; ll <= lmax; ll++) {
      const int li = lmin == l2 ? lmax + lmin - ll : ll;
      const double theta = theta1 - (double)(ll - lmin) * dtheta / dd;
      const double dl = dd1 + (dd1 - dd2) / dtheta * (theta - theta1);
      g->rr[IX(g, li, k1)] = r0 + dl * cos(theta);
      g->ss[IX(g, li, k1)] = s0 + dl * sin(theta);
      g->bc[IX(g, li, k1)] = bc;
    }
  }
  g->rr[IX(g, l1, k1)] = r1;
  g->rr[IX(g, l2, k2)] = r2;
  g->ss[IX(g, l1, k1)] = s1;
  g->ss[IX(g, l2, k2)] = s2;
  if (fl) {
    if (l1 != l2)
      for (int ll = 0; ll <= (lmax - lmin) / 2; ll++) {
        const size_t a = IX(g, lmin + ll, k1), b = IX(g, lmax - ll, k1);
        double t = g->rr[a];
        g->rr[a] = g->rr[b], g->rr[b] = t;
        t = g->ss[a];
        g->ss[a] = g->ss[b], g->ss[b] = t;
      }
    else
      for (int kk = 0; kk <= (kmax - kmin) / 2; kk++) {
        const size_t a = IX(g, l1, kmin + kk), b = IX(g, l1, kmax - kk);
        double t = g->rr[a];
        g->rr[a] = g->rr[b], g->rr[b] = t;
        t = g->ss[a];
        g->ss[a] = g->ss[b], g->ss[b] = t;
      }
  }
}

static int seg_type(const char *s) {
  char u[BL_SLEN];
  upper(s, u, sizeof u);
  if (!strcmp(u, "LINE")) return BL_LINE;
  if (!strcmp(u, "ARC_C")) return BL_ARC_C;
  if (!strcmp(u, "ARC_A")) return BL_ARC_A;
  if (!strcmp(u, "POINT")) return BL_POINT;
  if (!strcmp(u, "LINK")) return BL_LINK;
  return 0;
}

static int seg_bc(const char *s) {
  char u[BL_SLEN];
  upper(s, u, sizeof u);
  if (!strcmp(u, "SLIPX")) return BL_SLIPX;
  if (!strcmp(u, "SLIPY")) return BL_SLIPY;
  if (!strcmp(u, "WALL")) return BL_WALL;
  if (!strcmp(u, "TRANS")) return BL_TRANS;
  if (!strcmp(u, "OPEN")) return BL_OPEN;
  if (!strcmp(u, "FREE")) return BL_FREE;
  return 0;
}

/* Upstream's rule for the boundary type of a region corner from its two sides. */
static int corner_bc(int a, int b, int *bad) {
  int r = -1;
#define PAIR(p, q) ((a == (p) && b == (q)) || (a == (q) && b == (p)))
  if (PAIR(1, 2)) r = 3;
  if (PAIR(6, 1)) r = 4;
  if (PAIR(6, 2)) r = 5;
  if (PAIR(8, 1)) r = 1;
  if (PAIR(8, 2)) r = 2;
  if (PAIR(8, 3)) r = 3;
  if (PAIR(6, 3)) *bad = 1;
#undef PAIR
  return r;
}

/* Upstream's relaxation of the interior points (2..nl-1 x 2..nk-1) from their transfinite start: the fixed
 * weights rw/sw (LIN1, LIN2), or per point from the local metric (ep: EQUI), until every move is within tol
 * or after 8 nl nk sweeps; om: the over-relaxation. */
static void relax_interior(grid *g, int ep, const double *rw, const double *sw, double tol, double om,
                           double zerocut) {
  const int nl = g->nl, nk = g->nk;
  const int L1 = 2, K1 = 2, L2 = nl - 1, K2 = nk - 1;
  const long long max_it = 8LL * nl * nk;
  double r[9], s[9];
  for (int i = 1; i <= 8; i++) r[i] = ep ? 0.0 : rw[i], s[i] = ep ? 0.0 : sw[i];
  for (long long it = 1;; it++) {
    int done = 1;
    for (int kk = K1; kk <= K2; kk++)
      for (int ll = L1; ll <= L2; ll++) {
        const int lm = ll - 1, lp = ll + 1, km = kk - 1, kp = kk + 1;
        if (ep) {
          const double r_psi = 0.5 * (g->rr[IX(g, ll, kp)] - g->rr[IX(g, ll, km)]);
          const double s_psi = 0.5 * (g->ss[IX(g, ll, kp)] - g->ss[IX(g, ll, km)]);
          const double r_phi = 0.5 * (g->rr[IX(g, lp, kk)] - g->rr[IX(g, lm, kk)]);
          const double s_phi = 0.5 * (g->ss[IX(g, lp, kk)] - g->ss[IX(g, lm, kk)]);
          const double zeta = s_psi * r_phi - s_phi * r_psi;
          if (fabs(zeta) < zerocut) continue;
          const double alph = s_psi * s_psi + r_psi * r_psi, beta = s_phi * s_psi + r_phi * r_psi;
          const double gamm = s_phi * s_phi + r_phi * r_phi;
          r[1] = 0.5 * beta, r[2] = alph, r[3] = -r[1], r[4] = gamm, r[5] = r[4], r[6] = r[3], r[7] = r[2],
          r[8] = r[1];
          double f = r[1] + r[2] + r[3] + r[4] + r[5] + r[6] + r[7] + r[8];
          if (f < 1.0e-24) {
            f *= 1.0e14;
            for (int i = 1; i <= 8; i++) r[i] *= 1.0e14;
          }
          for (int i = 1; i <= 8; i++) r[i] /= f, s[i] = r[i];
        }
        const double dr = r[1] * g->rr[IX(g, lp, km)] + r[2] * g->rr[IX(g, lp, kk)] + r[3] * g->rr[IX(g, lp, kp)] +
                          r[4] * g->rr[IX(g, ll, km)] + r[5] * g->rr[IX(g, ll, kp)] + r[6] * g->rr[IX(g, lm, km)] +
                          r[7] * g->rr[IX(g, lm, kk)] + r[8] * g->rr[IX(g, lm, kp)] - g->rr[IX(g, ll, kk)];
        const double ds = s[1] * g->ss[IX(g, lp, km)] + s[2] * g->ss[IX(g, lp, kk)] + s[3] * g->ss[IX(g, lp, kp)] +
                          s[4] * g->ss[IX(g, ll, km)] + s[5] * g->ss[IX(g, ll, kp)] + s[6] * g->ss[IX(g, lm, km)] +
                          s[7] * g->ss[IX(g, lm, kk)] + s[8] * g->ss[IX(g, lm, kp)] - g->ss[IX(g, ll, kk)];
        if (fabs(dr) > tol || fabs(ds) > tol) {
          done = 0;
          g->rr[IX(g, ll, kk)] += om * dr;
          g->ss[IX(g, ll, kk)] += om * ds;
        }
      }
    if (it > max_it || done) break;
  }
}

static int generate(const bl_deck *d, grid *g, int *typ_out, char *err, size_t errlen) {
  int nreg = 0;
  for (int i = 0; i < BL_LN; i++)
    if (d->region_typ[i][0] && !is(d->region_typ[i], "")) nreg++;
  if (nreg < 1) return ferr(d, "region_typ", err, errlen, "no mesh region defined (&MESH region_typ)");
  if (nreg > 1)
    return um_format_error(err, errlen, UM_ERR_UNSUPPORTED,
                           "%s:%d: region_typ: %d mesh regions: this port generates single-region meshes (as every "
                           "shipped deck); joining regions is not implemented",
                           d->file, bl_deck_line(d, "region_typ"), nreg);
  int typ = 0;
  if (is(d->region_typ[0], "LIN1")) typ = 1;
  else if (is(d->region_typ[0], "LIN2")) typ = 2;
  else if (is(d->region_typ[0], "EQUI")) typ = 3;
  else if (is(d->region_typ[0], "USER"))
    return ferr(d, "region_typ", err, errlen, "region type USER (user weights) is not supported by this port");
  else
    return ferr(d, "region_typ", err, errlen, "unknown region type '%s' (LIN1, LIN2, EQUI)", d->region_typ[0]);
  *typ_out = typ;
  const int dim1 = d->region_dim[1][0], dim2 = d->region_dim[0][0]; /* upstream: dim(1) = region_dim(,2) */
  if (dim1 <= 0 || dim2 <= 0)
    return ferr(d, "region_dim", err, errlen, "region 1 has %d x %d cells: each must be >= 1", dim2, dim1);
  if ((long long)dim1 * dim2 > 200000000LL)
    return ferr(d, "region_dim", err, errlen, "region 1 has %d x %d cells: more than this port supports", dim2, dim1);
  const double tol = d->region_tol[0], om = d->region_om[0], zerocut = d->zerocut;
  if (tol < 0.0) return ferr(d, "region_tol", err, errlen, "region_tol < 0");
  if (om < 0.0) return ferr(d, "region_om", err, errlen, "region_om < 0");
  g->nl = dim1 + 1;
  g->nk = dim2 + 1;
  size_t n;
  if (um_size_mul((size_t)g->nl, (size_t)g->nk, &n)) return ferr(d, "region_dim", err, errlen, "too large");
  g->rr = calloc(n, sizeof(double));
  g->ss = calloc(n, sizeof(double));
  g->bc = calloc(n, sizeof(int));
  if (!g->rr || !g->ss || !g->bc) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory for the mesh");
  double rw[9] = {0}, sw[9] = {0};
  if (typ == 1) rw[2] = rw[7] = sw[2] = sw[7] = 1.0;
  if (typ == 2) rw[4] = rw[5] = sw[4] = sw[5] = 1.0;
  if (typ != 3) {
    double t0 = 0, t1 = 0;
    for (int i = 1; i <= 8; i++) t0 += rw[i], t1 += sw[i];
    for (int i = 1; i <= 8; i++) rw[i] /= t0, sw[i] /= t1;
  }
  const int nl = g->nl, nk = g->nk;
  for (int side = 1; side <= 4; side++) {
    const int nseg = d->region_side[0][side - 1][0];
    if (nseg != 1)
      return ferr(d, "region_side", err, errlen,
                  "side %d of region 1 has %d segments: this port supports one segment per side", side, nseg);
    const int segno = d->region_side[1][side - 1][0];
    if (segno < 1 || segno > d->max_seg || segno > BL_LN)
      return ferr(d, "region_side", err, errlen, "side %d of region 1 names segment %d (1..%d)", side, segno,
                  d->max_seg);
    const int seg = segno - 1, st = seg_type(d->segment_typ[seg]), bc = seg_bc(d->segment_bc[seg]);
    if (!st) return ferr(d, "segment_typ", err, errlen, "segment %d: unknown type '%s'", segno, d->segment_typ[seg]);
    if (!bc) return ferr(d, "segment_bc", err, errlen, "segment %d: unknown boundary '%s'", segno, d->segment_bc[seg]);
    int l1, k1, l2, k2;
    switch (side) {
    case 1: l1 = 1, k1 = 1, l2 = 1, k2 = nk; break;
    case 2: l1 = 1, k1 = nk, l2 = nl, k2 = nk; break;
    case 3: l1 = nl, k1 = nk, l2 = nl, k2 = 1; break;
    default: l1 = nl, k1 = 1, l2 = 1, k2 = 1; break;
    }
    if (st == BL_LINE || st == BL_LINK) gen_line(g, d, seg, bc, l1, l2, k1, k2, tol, om, zerocut);
    else if (st == BL_ARC_C || st == BL_ARC_A) {
      if (d->segment_pos[6][seg] + d->segment_pos[7][seg] > zerocut)
        return ferr(d, "segment_pos", err, errlen, "segment %d: weighted arcs are not supported by this port", segno);
      gen_arc(g, d, seg, st, bc, l1, l2, k1, k2, zerocut);
    } else return ferr(d, "segment_typ", err, errlen, "segment %d: POINT sides are not supported", segno);
  }
  /* interior: transfinite start, then upstream's relaxation */
  const int ep = typ == 3;
  double tl0 = 0.25, tl1 = 0.25, tk0 = 0.25, tk1 = 0.25, fac = 1.0;
  if (!ep) {
    tl0 = rw[7], tl1 = rw[2], tk0 = rw[4], tk1 = rw[5];
    fac = tl0 + tl1 + tk0 + tk1;
    if (fabs(fac) <= zerocut) fac = 1.0;
  }
  tl0 = 2.0 * tl0 / fac, tl1 = 2.0 * tl1 / fac, tk0 = 2.0 * tk0 / fac, tk1 = 2.0 * tk1 / fac;
  const int L1 = 2, K1 = 2, L2 = nl - 1, K2 = nk - 1;
  for (int kk = K1; kk <= K2; kk++)
    for (int ll = L1; ll <= L2; ll++) {
      double ww = (double)(L2 - L1) + 2.0;
      const double wl0 = tl0 * ((double)(L2 - ll) + 1.0) / ww, wl1 = tl1 * ((double)(ll - L1) + 1.0) / ww;
      ww = (double)(K2 - K1) + 2.0;
      const double wk0 = tk0 * ((double)(K2 - kk) + 1.0) / ww, wk1 = tk1 * ((double)(kk - K1) + 1.0) / ww;
      g->rr[IX(g, ll, kk)] = wk0 * g->rr[IX(g, ll, K1 - 1)] + wk1 * g->rr[IX(g, ll, K2 + 1)] +
                             wl0 * g->rr[IX(g, L1 - 1, kk)] + wl1 * g->rr[IX(g, L2 + 1, kk)];
      g->ss[IX(g, ll, kk)] = wk0 * g->ss[IX(g, ll, K1 - 1)] + wk1 * g->ss[IX(g, ll, K2 + 1)] +
                             wl0 * g->ss[IX(g, L1 - 1, kk)] + wl1 * g->ss[IX(g, L2 + 1, kk)];
    }
  relax_interior(g, ep, rw, sw, tol, om, zerocut);
  /* boundary types of the four corners */
  int bad = 0, v;
  if ((v = corner_bc(g->bc[IX(g, 2, 1)], g->bc[IX(g, 1, 2)], &bad)) > 0) g->bc[IX(g, 1, 1)] = v;
  if ((v = corner_bc(g->bc[IX(g, 2, nk)], g->bc[IX(g, 1, nk - 1)], &bad)) > 0) g->bc[IX(g, 1, nk)] = v;
  if ((v = corner_bc(g->bc[IX(g, nl - 1, 1)], g->bc[IX(g, nl, 2)], &bad)) > 0) g->bc[IX(g, nl, 1)] = v;
  if ((v = corner_bc(g->bc[IX(g, nl - 1, nk)], g->bc[IX(g, nl, nk - 1)], &bad)) > 0) g->bc[IX(g, nl, nk)] = v;
  if (bad) return ferr(d, "segment_bc", err, errlen, "inconsistent boundary types at a corner of region 1");
  return UM_SUCCESS;
}

/* ---- connectivity --------------------------------------------------------- */

/* Faces of elements sharing an edge (its two nodes) are neighbours: the faces are bucketed by their lower node
 * (counting sort, in face order), and within a bucket each face is paired with the next unpaired face of the same
 * upper node -- the pairs a sort of the faces by (lower, upper, face) would give, in linear time (qsort of the 16M
 * faces of a 4M-element mesh took about 2 s of the set-up). A face left unpaired is on the boundary. */
static void face_nodes(const bl_mesh *m, size_t s, int *lo, int *hi) {
  const int *el = m->elnd + (s & ~(size_t)3), a = el[s & 3], b = el[((s & 3) + 1) % 4];
  *lo = a < b ? a : b;
  *hi = a < b ? b : a;
}

static int connect_faces(bl_mesh *m) {
  const size_t nf = 4 * (size_t)m->nel;
  int *off = calloc((size_t)m->nnd + 2, sizeof *off), *face = malloc(sizeof *face * (nf ? nf : 1)), lo, hi;
  if (!off || !face) {
    free(off);
    free(face);
    return UM_ERR_ALLOC;
  }
  for (size_t s = 0; s < nf; s++) {
    face_nodes(m, s, &lo, &hi);
    off[lo + 2]++;
    m->elel[s] = -1;
  }
  for (int n = 0; n < m->nnd; n++) off[n + 2] += off[n + 1];
  for (size_t s = 0; s < nf; s++) {
    face_nodes(m, s, &lo, &hi);
    face[off[lo + 1]++] = (int)s;
  }
  for (int n = 0; n < m->nnd; n++)
    for (int k = off[n]; k < off[n + 1]; k++) {
      const int s = face[k];
      if (m->elel[s] >= 0) continue;
      int h, lo2, hi2;
      face_nodes(m, (size_t)s, &lo, &h);
      for (int q = k + 1; q < off[n + 1]; q++) {
        const int t = face[q];
        face_nodes(m, (size_t)t, &lo2, &hi2);
        if (hi2 != h || m->elel[t] >= 0) continue;
        m->elel[s] = t / 4, m->elfc[s] = t % 4;
        m->elel[t] = s / 4, m->elfc[t] = s % 4;
        break;
      }
    }
  free(off);
  free(face);
  return UM_SUCCESS;
}

static int connect(bl_mesh *m, char *err, size_t errlen) {
  const int nel = m->nel;
  if (connect_faces(m) != UM_SUCCESS) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory for the connectivity");
  for (int i = 0; i < nel; i++)
    for (int f = 0; f < 4; f++)
      if (m->elel[4 * i + f] < 0) m->elel[4 * i + f] = i, m->elfc[4 * i + f] = (f + 2) % 4;
  /* corners between slip x and slip y sides become walls (init_kn_nodetype) */
  for (int i = 0; i < nel; i++) {
    const int *nd = m->elnd + 4 * i;
    int nneg = 0;
    for (int c = 0; c < 4; c++) nneg += m->indtype[nd[c]] < 0;
    if (nneg != 3) continue;
    int ii = 0;
    for (; ii < 4; ii++)
      if (m->indtype[nd[ii]] > 0) break;
    ii = (ii + 2) % 4;
    const int jj = nd[ii], j1 = nd[(ii + 1) % 4], j2 = nd[(ii + 3) % 4];
    if ((m->indtype[j1] == -2 && m->indtype[j2] == -1) || (m->indtype[j2] == -2 && m->indtype[j1] == -1))
      m->indtype[jj] = -3;
  }
  return UM_SUCCESS;
}

/* ---- regions, materials, initial conditions ------------------------------ */

static int count_set(const char (*a)[BL_SLEN]) {
  int n = 0;
  for (int i = 0; i < BL_LN; i++)
    if (!is(a[i], "UNKNOWN")) n++;
  return n;
}

static int flag_cells(const bl_deck *d, bl_mesh *m, const char (*types)[BL_SLEN], const int *values, int n,
                      int *flag, const int *other, const char *what, const char *key, char *err, size_t errlen) {
  for (int ii = 0; ii < n; ii++) {
    char t[BL_SLEN];
    upper(types[ii], t, sizeof t);
    if (!strcmp(t, "BACKGROUND")) {
      for (int e = 0; e < m->nel; e++) flag[e] = ii;
    } else if (!strcmp(t, "CELL")) {
      if (values[ii] < 1 || values[ii] > m->nel)
        return ferr(d, key, err, errlen, "%s %d: cell %d is not in the mesh (1..%d)", what, ii + 1, values[ii], m->nel);
      flag[values[ii] - 1] = ii;
    } else if (!strcmp(t, "SHAPE")) {
      const int s = values[ii] - 1;
      if (s < 0 || s >= BL_LN || is(d->shape_type[s], "UNKNOWN"))
        return ferr(d, key, err, errlen, "%s %d: shape %d is not defined in &SHAPES", what, ii + 1, values[ii]);
      const int circle = is(d->shape_type[s], "CIRCLE"), rect = is(d->shape_type[s], "RECTANGLE");
      if (!circle && !rect)
        return ferr(d, "shape_type", err, errlen, "shape %d: unknown type '%s' (circle, rectangle)", s + 1,
                    d->shape_type[s]);
      double p[5];
      for (int k = 0; k < 5; k++) p[k] = d->shape_param[k][s];
      for (int e = 0; e < m->nel; e++) {
        double cx[4], cy[4], c[2];
        for (int k = 0; k < 4; k++) cx[k] = m->x[m->elnd[4 * e + k]], cy[k] = m->y[m->elnd[4 * e + k]];
        centroid(cx, cy, c);
        const int in = rect ? (c[0] > p[0] && c[1] > p[1] && c[0] < p[2] && c[1] < p[3])
                            : sqrt((c[0] - p[0]) * (c[0] - p[0]) + (c[1] - p[1]) * (c[1] - p[1])) <= p[2];
        if (in) flag[e] = ii;
      }
    } else if (!strcmp(t, "REGION") && other) {
      for (int e = 0; e < m->nel; e++)
        if (other[e] == values[ii] - 1) flag[e] = ii;
    } else {
      return ferr(d, key, err, errlen, "%s %d: unknown type '%s'", what, ii + 1, types[ii]);
    }
  }
  for (int e = 0; e < m->nel; e++)
    if (flag[e] < 0)
      return ferr(d, key, err, errlen, "element %d belongs to no %s; add a BACKGROUND %s", e + 1, what, what);
  return UM_SUCCESS;
}

static int initial_state(const bl_deck *d, bl_mesh *m, int region_mesh_mat, char *err, size_t errlen) {
  const int nel = m->nel;
  /* regions */
  m->nreg = count_set(d->region_type);
  if (m->nreg < 1) return ferr(d, "region_type", err, errlen, "no regions defined (&INDICATORS region_type)");
  if (m->nreg > BL_MAXREG)
    return ferr(d, "region_type", err, errlen, "%d regions: this port supports up to %d", m->nreg, BL_MAXREG);
  int rmesh = 0, mmesh = 0;
  for (int i = 0; i < m->nreg; i++) rmesh |= is(d->region_type[i], "MESH");
  for (int i = 0; i < nel; i++) m->elreg[i] = rmesh ? 0 : -1;
  if (!rmesh)
    UM_APP_TRY_(flag_cells(d, m, d->region_type, d->region_value, m->nreg, m->elreg, NULL, "region", "region_type",
                           err, errlen));
  /* materials */
  m->nmat = count_set(d->material_type);
  if (m->nmat < 1) return ferr(d, "material_type", err, errlen, "no materials defined (&INDICATORS material_type)");
  if (m->nmat > BL_MAXREG)
    return ferr(d, "material_type", err, errlen, "%d materials: this port supports up to %d", m->nmat, BL_MAXREG);
  for (int i = 0; i < m->nmat; i++) mmesh |= is(d->material_type[i], "MESH");
  if (mmesh) {
    if (region_mesh_mat < 1 || region_mesh_mat > m->nmat)
      return ferr(d, "region_material", err, errlen, "material type MESH needs region_material(1) in 1..%d", m->nmat);
    for (int i = 0; i < nel; i++) m->elmat[i] = region_mesh_mat - 1;
  } else {
    for (int i = 0; i < nel; i++) m->elmat[i] = -1;
    UM_APP_TRY_(flag_cells(d, m, d->material_type, d->material_value, m->nmat, m->elmat, m->elreg, "material",
                           "material_type", err, errlen));
  }
  for (int i = 0; i < m->nreg; i++) snprintf(m->region_name[i], BL_SLEN, "%s", d->region_name[i]);
  for (int i = 0; i < m->nmat; i++) snprintf(m->material_name[i], BL_SLEN, "%s", d->material_name[i]);
  /* thermodynamic state */
  for (int i = 0; i < nel; i++) m->density[i] = m->energy[i] = 0.0;
  const int nt = count_set(d->thermodynamic_type);
  for (int ii = 0; ii < nt; ii++) {
    const int *flag = is(d->thermodynamic_type[ii], "REGION")     ? m->elreg
                      : is(d->thermodynamic_type[ii], "MATERIAL") ? m->elmat
                                                                  : NULL;
    if (!flag)
      return ferr(d, "thermodynamic_type", err, errlen, "entry %d: unknown type '%s' (region, material)", ii + 1,
                  d->thermodynamic_type[ii]);
    const int target = d->thermodynamic_value[ii] - 1;
    const int vol = is(d->thermodynamic_energy_scale[ii], "VOLUME"), mass = is(d->thermodynamic_energy_scale[ii], "MASS");
    for (int e = 0; e < nel; e++) {
      if (flag[e] != target) continue;
      m->density[e] = d->density[ii];
      m->energy[e] = d->energy[ii];
      if (vol || mass) {
        double cx[4], cy[4], v;
        for (int k = 0; k < 4; k++) cx[k] = m->x[m->elnd[4 * e + k]], cy[k] = m->y[m->elnd[4 * e + k]];
        bl_geometry(cx, cy, NULL, NULL, NULL, NULL, NULL, &v);
        m->energy[e] /= vol ? v : d->density[ii] * v;
      }
    }
  }
  for (int e = 0; e < nel; e++) {
    if (!(m->density[e] > 0.0))
      return ferr(d, "density", err, errlen,
                  "element %d (region %d) has density %g: the initial density must be > 0 everywhere", e + 1,
                  m->elreg[e] + 1, m->density[e]);
    if (!(m->energy[e] >= 0.0))
      return ferr(d, "energy", err, errlen,
                  "element %d (region %d) has specific internal energy %g: it must be >= 0", e + 1, m->elreg[e] + 1,
                  m->energy[e]);
  }
  /* kinematics */
  for (int i = 0; i < m->nnd; i++) m->u[i] = m->v[i] = 0.0;
  const int nkin = count_set(d->kinematic_type);
  for (int ii = 0; ii < nkin; ii++) {
    const double *p = d->kinematic_param[ii];
    const int radial = is(d->kinematic_geometry[ii], "RADIAL"), planar = is(d->kinematic_geometry[ii], "PLANAR");
    if (!radial && !planar)
      return ferr(d, "kinematic_geometry", err, errlen, "entry %d: unknown geometry '%s' (radial, planar)", ii + 1,
                  d->kinematic_geometry[ii]);
    if (!is(d->kinematic_type[ii], "BACKGROUND"))
      return ferr(d, "kinematic_type", err, errlen,
                  "entry %d: kinematic type '%s' is not supported by this port (background)", ii + 1,
                  d->kinematic_type[ii]);
    for (int n = 0; n < m->nnd; n++) {
      if (radial) {
        const double rv = 1.0 / sqrt((m->x[n] - p[1]) * (m->x[n] - p[1]) + (m->y[n] - p[2]) * (m->y[n] - p[2]));
        m->u[n] = p[0] * m->x[n] * rv;
        m->v[n] = p[0] * m->y[n] * rv;
      } else {
        m->u[n] = p[0];
        m->v[n] = p[1];
      }
    }
  }
  const double w1 = d->accut * d->accut;
  for (int n = 0; n < m->nnd; n++) {
    const int t = m->indtype[n];
    if (t == -1 || t == -3) m->u[n] = 0.0;
    if (t == -2 || t == -3) m->v[n] = 0.0;
    if (m->u[n] * m->u[n] + m->v[n] * m->v[n] < w1) m->u[n] = m->v[n] = 0.0;
  }
  return UM_SUCCESS;
}

void bl_mesh_free(bl_mesh *m) {
  free(m->elnd);
  free(m->elel);
  free(m->elfc);
  free(m->elreg);
  free(m->elmat);
  free(m->indtype);
  free(m->x);
  free(m->y);
  free(m->u);
  free(m->v);
  free(m->density);
  free(m->energy);
  memset(m, 0, sizeof *m);
}

int bl_mesh_build(const bl_deck *d, bl_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  grid g = {0, 0, NULL, NULL, NULL};
  int typ = 0;
  int rc = generate(d, &g, &typ, err, errlen);
  if (rc) {
    free(g.rr), free(g.ss), free(g.bc);
    return rc;
  }
  const int nl = g.nl, nk = g.nk;
  m->nnd = nl * nk;
  m->nel = (nl - 1) * (nk - 1);
  const size_t nn = (size_t)m->nnd, ne = (size_t)m->nel;
  m->elnd = malloc(sizeof(int) * 4 * ne);
  m->elel = malloc(sizeof(int) * 4 * ne);
  m->elfc = malloc(sizeof(int) * 4 * ne);
  m->elreg = malloc(sizeof(int) * ne);
  m->elmat = malloc(sizeof(int) * ne);
  m->indtype = malloc(sizeof(int) * nn);
  m->x = malloc(sizeof(double) * nn);
  m->y = malloc(sizeof(double) * nn);
  m->u = malloc(sizeof(double) * nn);
  m->v = malloc(sizeof(double) * nn);
  m->density = malloc(sizeof(double) * ne);
  m->energy = malloc(sizeof(double) * ne);
  if (!m->elnd || !m->elel || !m->elfc || !m->elreg || !m->elmat || !m->indtype || !m->x || !m->y || !m->u || !m->v ||
      !m->density || !m->energy)
    rc = um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory for a mesh of %d elements", m->nel);
  /* nodes: k outer, l inner (setup_mesh_transfer) */
  for (int kk = 1; kk <= nk && !rc; kk++)
    for (int ll = 1; ll <= nl; ll++) {
      const int n = (ll - 1) + (kk - 1) * nl;
      m->x[n] = g.ss[IX(&g, ll, kk)];
      m->y[n] = g.rr[IX(&g, ll, kk)];
      if (ll == 1 || ll == nl || kk == 1 || kk == nk) {
        const int b = g.bc[IX(&g, ll, kk)];
        if (b <= 0) rc = ferr(d, "segment_bc", err, errlen, "undefined boundary type at a region edge");
        m->indtype[n] = -b;
      } else m->indtype[n] = 1;
    }
  if (!rc) {
    const double r1 = g.rr[IX(&g, 2, 1)] - g.rr[IX(&g, 1, 1)], r2 = g.rr[IX(&g, 1, 2)] - g.rr[IX(&g, 1, 1)];
    const double r3 = g.rr[IX(&g, 2, 2)] - g.rr[IX(&g, 1, 1)], s1 = g.ss[IX(&g, 2, 1)] - g.ss[IX(&g, 1, 1)];
    const double s2 = g.ss[IX(&g, 1, 2)] - g.ss[IX(&g, 1, 1)], s3 = g.ss[IX(&g, 2, 2)] - g.ss[IX(&g, 1, 1)];
    int i1 = 1, i2 = 3; /* 0-based corners 2 and 4 */
    if (r1 * s2 - r2 * s1 > 0.0 || r1 * s3 - r3 * s1 > 0.0 || r3 * s2 - r2 * s3 > 0.0) i1 = 3, i2 = 1;
    int e = 0;
    for (int kk = 1; kk <= nk - 1; kk++)
      for (int ll = 1; ll <= nl - 1; ll++, e++) {
        const int c0 = ll + (kk - 1) * nl, c2 = (ll + 1) + kk * nl; /* 1-based */
        m->elnd[4 * e + 0] = c0 - 1;
        m->elnd[4 * e + 2] = c2 - 1;
        m->elnd[4 * e + i1] = c0;
        m->elnd[4 * e + i2] = c2 - 2;
        m->elreg[e] = 0;
      }
  }
  free(g.rr), free(g.ss), free(g.bc);
  if (!rc) rc = connect(m, err, errlen);
  if (!rc) rc = initial_state(d, m, d->region_material[0], err, errlen);
  if (rc) bl_mesh_free(m);
  return rc;
}

/* ---- the exact Sod solution (upstream's check, gamma 1.4, states 1/2.5 and 0.125/2.0, x0 = 50) ----- */
double bl_sod_density(double xx, double t) {
  const double coeff = sqrt(1.4);
  if (xx <= -coeff * t) return 1.0;
  if (xx <= -0.07027281256118326961 * t) {
    const double ss = xx / t, vel = (5.0 / 6.0) * (ss + coeff), tt = (vel - ss) * (vel - ss) / 1.4;
    return pow(tt, 2.5);
  }
  if (xx <= 0.92745262004894994908 * t) return 0.42631942817849519385;
  if (t <= 28.53627624872492075028) return xx <= 1.75215573203017816370 * t ? 0.26557371170530706471 : 0.125;
  if (t < 40.68191725689148697880)
    return xx <= 50.0 - (t - 28.53627624872492075028) * 1.01019363599101820444 ? 0.26557371170530706471
                                                                              : 0.50939531774381657731;
  return -1.0; /* upstream's solution stops at the second reflection */
}
