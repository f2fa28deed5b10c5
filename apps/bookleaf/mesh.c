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
#include "bookleaf_mesh.h"
#include "checked.h"
#include "um/um.h"

#define UM_APP_TRY_(call)     \
  do {                        \
    int rc_ = (call);         \
    if (rc_) return rc_;      \
  } while (0)

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

void bl_centroid(const double *x, const double *y, double *c) {
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

typedef bl_grid grid;

#define IX(g, l, k) ((size_t)((l) - 1) + (size_t)(g)->nl * (size_t)((k) - 1))

/* Where point (l, k) of the boundary (any point of a whole grid) is stored: a ring holds the rows k = 1 and
 * k = nk whole, then the points l = 1 and l = nl of each row between. */
static size_t at(const grid *g, int l, int k) {
  if (!g->ring) return IX(g, l, k);
  if (k == 1) return (size_t)(l - 1);
  if (k == g->nk) return (size_t)g->nl + (size_t)(l - 1);
  return 2 * (size_t)g->nl + 2 * (size_t)(k - 2) + (l == 1 ? 0 : 1);
}

/* One side of the region: its segment (0-based), type, boundary type and segment_pos values (p[0], p[1] its start,
 * p[2], p[3] its end: the side's points (l1, k1) and (l2, k2); then a line's weights, an arc's centre). */
typedef struct {
  int seg, typ, bc;
  double p[8];
} side_seg;

static void gen_line(grid *g, const side_seg *sd, int l1, int l2, int k1, int k2, double tol, double om,
                     double zerocut) {
  const int bc = sd->bc;
  const double s1 = sd->p[0], r1 = sd->p[1], s2 = sd->p[2], r2 = sd->p[3];
  double w1 = sd->p[4], w2 = sd->p[5];
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
      g->rr[at(g, l1, ki)] = r1 + (double)(kk - kmin) * dr / dd;
      g->ss[at(g, l1, ki)] = s1 + (double)(kk - kmin) * ds / dd;
      g->bc[at(g, l1, ki)] = bc;
    }
    if (weighted)
      for (int it = 0; it < 100000; it++) {
        int done = 1;
        for (int kk = kmin + 1; kk <= kmax - 1; kk++) {
          dr = w1 * g->rr[at(g, l1, kk - 1)] + w2 * g->rr[at(g, l1, kk + 1)] - g->rr[at(g, l1, kk)];
          ds = w1 * g->ss[at(g, l1, kk - 1)] + w2 * g->ss[at(g, l1, kk + 1)] - g->ss[at(g, l1, kk)];
          if (fabs(dr) > tol || fabs(ds) > tol) done = 0;
          g->rr[at(g, l1, kk)] += om * dr;
          g->ss[at(g, l1, kk)] += om * ds;
        }
        if (done) break;
      }
  } else {
    const double dd = (double)il;
    for (int ll = lmin; ll <= lmax; ll++) {
      const int li = lmin == l2 ? lmax + lmin - ll : ll;
      g->rr[at(g, li, k1)] = r1 + (double)(ll - lmin) * dr / dd;
      g->ss[at(g, li, k1)] = s1 + (double)(ll - lmin) * ds / dd;
      g->bc[at(g, li, k1)] = bc;
    }
    if (weighted)
      for (int it = 0; it < 100000; it++) {
        int done = 1;
        for (int ll = lmin + 1; ll <= lmax - 1; ll++) {
          dr = w1 * g->rr[at(g, ll - 1, k1)] + w2 * g->rr[at(g, ll + 1, k1)] - g->rr[at(g, ll, k1)];
          ds = w1 * g->ss[at(g, ll - 1, k1)] + w2 * g->ss[at(g, ll + 1, k1)] - g->ss[at(g, ll, k1)];
          if (fabs(dr) > tol || fabs(ds) > tol) done = 0;
          g->rr[at(g, ll, k1)] += om * dr;
          g->ss[at(g, ll, k1)] += om * ds;
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
static void gen_arc(grid *g, const side_seg *sd, int l1, int l2, int k1, int k2, double zerocut) {
  const double *p[8];
  for (int i = 0; i < 8; i++) p[i] = &sd->p[i];
  const int bc = sd->bc, fl = sd->typ == BL_ARC_C;
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
      g->rr[at(g, l1, ki)] = r0 + dl * cos(theta);
      g->ss[at(g, l1, ki)] = s0 + dl * sin(theta);
      g->bc[at(g, l1, ki)] = bc;
    }
  } else {
    const double dd = (double)(lmax - lmin);
    for (int ll = lmin; ll <= lmax; ll++) {
      const int li = lmin == l2 ? lmax + lmin - ll : ll;
      const double theta = theta1 - (double)(ll - lmin) * dtheta / dd;
      const double dl = dd1 + (dd1 - dd2) / dtheta * (theta - theta1);
      g->rr[at(g, li, k1)] = r0 + dl * cos(theta);
      g->ss[at(g, li, k1)] = s0 + dl * sin(theta);
      g->bc[at(g, li, k1)] = bc;
    }
  }
  g->rr[at(g, l1, k1)] = r1;
  g->rr[at(g, l2, k2)] = r2;
  g->ss[at(g, l1, k1)] = s1;
  g->ss[at(g, l2, k2)] = s2;
  if (fl) {
    if (l1 != l2)
      for (int ll = 0; ll <= (lmax - lmin) / 2; ll++) {
        const size_t a = at(g, lmin + ll, k1), b = at(g, lmax - ll, k1);
        double t = g->rr[a];
        g->rr[a] = g->rr[b], g->rr[b] = t;
        t = g->ss[a];
        g->ss[a] = g->ss[b], g->ss[b] = t;
      }
    else
      for (int kk = 0; kk <= (kmax - kmin) / 2; kk++) {
        const size_t a = at(g, l1, kmin + kk), b = at(g, l1, kmax - kk);
        double t = g->rr[a];
        g->rr[a] = g->rr[b], g->rr[b] = t;
        t = g->ss[a];
        g->ss[a] = g->ss[b], g->ss[b] = t;
      }
  }
}

static int seg_type(const char *s) {
  char u[BL_SLEN];
  bl_upper(s, u, sizeof u);
  if (!strcmp(u, "LINE")) return BL_LINE;
  if (!strcmp(u, "ARC_C")) return BL_ARC_C;
  if (!strcmp(u, "ARC_A")) return BL_ARC_A;
  if (!strcmp(u, "POINT")) return BL_POINT;
  if (!strcmp(u, "LINK")) return BL_LINK;
  return 0;
}

static int seg_bc(const char *s) {
  char u[BL_SLEN];
  bl_upper(s, u, sizeof u);
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

/* The move upstream's relaxation makes at a point from its 3 x 3 stencil R, S (0 (lp,km), 1 (lp,kk), 2 (lp,kp),
 * 3 (ll,km), 4 (ll,kp), 5 (lm,km), 6 (lm,kk), 7 (lm,kp), 8 the point): the weights r, s (1-based: the fixed
 * ones, or with ep computed here from the local metric); 0 where the point is skipped (a degenerate metric). */
static int point_move(const bl_relax *p, const double R[9], const double S[9], double *r, double *s, double *dr,
                      double *ds) {
  if (p->ep) {
    const double r_psi = 0.5 * (R[4] - R[3]), s_psi = 0.5 * (S[4] - S[3]);
    const double r_phi = 0.5 * (R[1] - R[6]), s_phi = 0.5 * (S[1] - S[6]);
    const double zeta = s_psi * r_phi - s_phi * r_psi;
    if (fabs(zeta) < p->zerocut) return 0;
    const double alph = s_psi * s_psi + r_psi * r_psi, beta = s_phi * s_psi + r_phi * r_psi;
    const double gamm = s_phi * s_phi + r_phi * r_phi;
    r[1] = 0.5 * beta, r[2] = alph, r[3] = -r[1], r[4] = gamm, r[5] = r[4], r[6] = r[3], r[7] = r[2], r[8] = r[1];
    double f = r[1] + r[2] + r[3] + r[4] + r[5] + r[6] + r[7] + r[8];
    if (f < 1.0e-24) {
      f *= 1.0e14;
      for (int i = 1; i <= 8; i++) r[i] *= 1.0e14;
    }
    for (int i = 1; i <= 8; i++) r[i] /= f, s[i] = r[i];
  }
  *dr = r[1] * R[0] + r[2] * R[1] + r[3] * R[2] + r[4] * R[3] + r[5] * R[4] + r[6] * R[5] + r[7] * R[6] +
        r[8] * R[7] - R[8];
  *ds = s[1] * S[0] + s[2] * S[1] + s[3] * S[2] + s[4] * S[3] + s[5] * S[4] + s[6] * S[5] + s[7] * S[6] +
        s[8] * S[7] - S[8];
  return 1;
}

static const int stencil[9][2] = {{1, -1}, {1, 0}, {1, 1}, {0, -1}, {0, 1}, {-1, -1}, {-1, 0}, {-1, 1}, {0, 0}};

/* Upstream's relaxation of the interior points (2..nl-1 x 2..nk-1) from their transfinite start: the fixed
 * weights rw/sw (LIN1, LIN2), or per point from the local metric (ep: EQUI), until every move is within tol
 * or after 8 nl nk sweeps; om: the over-relaxation. */
static void relax_interior(grid *g, const bl_relax *p) {
  const int nl = g->nl, nk = g->nk;
  const long long max_it = 8LL * nl * nk;
  double r[9], s[9], R[9], S[9], dr, ds;
  for (int i = 1; i <= 8; i++) r[i] = p->ep ? 0.0 : p->rw[i], s[i] = p->ep ? 0.0 : p->sw[i];
  for (long long it = 1;; it++) {
    int done = 1;
    for (int kk = 2; kk <= nk - 1; kk++)
      for (int ll = 2; ll <= nl - 1; ll++) {
        for (int q = 0; q < 9; q++) {
          const size_t i = IX(g, ll + stencil[q][0], kk + stencil[q][1]);
          R[q] = g->rr[i], S[q] = g->ss[i];
        }
        if (!point_move(p, R, S, r, s, &dr, &ds)) continue;
        if (fabs(dr) > p->tol || fabs(ds) > p->tol) {
          done = 0;
          g->rr[IX(g, ll, kk)] += p->om * dr;
          g->ss[IX(g, ll, kk)] += p->om * ds;
        }
      }
    if (it > max_it || done) break;
  }
}

void bl_grid_start(const bl_grid *g, const bl_relax *p, int ll, int kk, double *r, double *s) {
  const int L1 = 2, K1 = 2, L2 = g->nl - 1, K2 = g->nk - 1;
  double ww = (double)(L2 - L1) + 2.0;
  const double wl0 = p->tl0 * ((double)(L2 - ll) + 1.0) / ww, wl1 = p->tl1 * ((double)(ll - L1) + 1.0) / ww;
  ww = (double)(K2 - K1) + 2.0;
  const double wk0 = p->tk0 * ((double)(K2 - kk) + 1.0) / ww, wk1 = p->tk1 * ((double)(kk - K1) + 1.0) / ww;
  const size_t a = at(g, ll, K1 - 1), b = at(g, ll, K2 + 1), c = at(g, L1 - 1, kk), d = at(g, L2 + 1, kk);
  *r = wk0 * g->rr[a] + wk1 * g->rr[b] + wl0 * g->rr[c] + wl1 * g->rr[d];
  *s = wk0 * g->ss[a] + wk1 * g->ss[b] + wl0 * g->ss[c] + wl1 * g->ss[d];
}

void bl_grid_point(const bl_grid *g, const bl_relax *p, int ll, int kk, double *r, double *s) {
  if (ll == 1 || ll == g->nl || kk == 1 || kk == g->nk || !g->ring) {
    const size_t i = at(g, ll, kk);
    *r = g->rr[i], *s = g->ss[i];
  } else {
    bl_grid_start(g, p, ll, kk, r, s);
  }
}

int bl_grid_moves(const bl_grid *g, const bl_relax *p, int ll, int kk) {
  double r[9], s[9], R[9], S[9], dr, ds;
  for (int i = 1; i <= 8; i++) r[i] = p->ep ? 0.0 : p->rw[i], s[i] = p->ep ? 0.0 : p->sw[i];
  for (int q = 0; q < 9; q++) bl_grid_point(g, p, ll + stencil[q][0], kk + stencil[q][1], &R[q], &S[q]);
  return point_move(p, R, S, r, s, &dr, &ds) && (fabs(dr) > p->tol || fabs(ds) > p->tol);
}

void bl_grid_free(bl_grid *g) {
  free(g->ss), free(g->bc); /* rr: in ss's block */
  memset(g, 0, sizeof *g);
}

/* The region's type and size, checked (the first part of upstream's setup_mesh). */
static int region_checks(const bl_deck *d, bl_relax *p, int *nl, int *nk, char *err, size_t errlen) {
  int nreg = 0;
  for (int i = 0; i < BL_LN; i++)
    if (d->region_typ[i][0] && !bl_is(d->region_typ[i], "")) nreg++;
  if (nreg < 1) return bl_ferr(d, "region_typ", err, errlen, "no mesh region defined (&MESH region_typ)");
  if (nreg > 1)
    return um_format_error(err, errlen, UM_ERR_UNSUPPORTED,
                           "%s:%d: region_typ: %d mesh regions: this port generates single-region meshes (as every "
                           "shipped deck); joining regions is not implemented",
                           d->file, bl_deck_line(d, "region_typ"), nreg);
  int typ = 0;
  if (bl_is(d->region_typ[0], "LIN1")) typ = 1;
  else if (bl_is(d->region_typ[0], "LIN2")) typ = 2;
  else if (bl_is(d->region_typ[0], "EQUI")) typ = 3;
  else if (bl_is(d->region_typ[0], "USER"))
    return bl_ferr(d, "region_typ", err, errlen, "region type USER (user weights) is not supported by this port");
  else
    return bl_ferr(d, "region_typ", err, errlen, "unknown region type '%s' (LIN1, LIN2, EQUI)", d->region_typ[0]);
  p->typ = typ;
  const int dim1 = d->region_dim[1][0], dim2 = d->region_dim[0][0]; /* upstream: dim(1) = region_dim(,2) */
  if (dim1 <= 0 || dim2 <= 0)
    return bl_ferr(d, "region_dim", err, errlen, "region 1 has %d x %d cells: each must be >= 1", dim2, dim1);
  if ((long long)dim1 * dim2 > 200000000LL)
    return bl_ferr(d, "region_dim", err, errlen, "region 1 has %d x %d cells: more than this port supports", dim2,
                   dim1);
  p->tol = d->region_tol[0], p->om = d->region_om[0], p->zerocut = d->zerocut;
  if (p->tol < 0.0) return bl_ferr(d, "region_tol", err, errlen, "region_tol < 0");
  if (p->om < 0.0) return bl_ferr(d, "region_om", err, errlen, "region_om < 0");
  *nl = dim1 + 1;
  *nk = dim2 + 1;
  return UM_SUCCESS;
}

/* The relaxation's weights and the transfinite start's side weights of a region of type p->typ. */
static void relax_weights(bl_relax *p) {
  for (int i = 0; i < 9; i++) p->rw[i] = p->sw[i] = 0.0;
  if (p->typ == 1) p->rw[2] = p->rw[7] = p->sw[2] = p->sw[7] = 1.0;
  if (p->typ == 2) p->rw[4] = p->rw[5] = p->sw[4] = p->sw[5] = 1.0;
  if (p->typ != 3) {
    double t0 = 0, t1 = 0;
    for (int i = 1; i <= 8; i++) t0 += p->rw[i], t1 += p->sw[i];
    for (int i = 1; i <= 8; i++) p->rw[i] /= t0, p->sw[i] /= t1;
  }
  p->ep = p->typ == 3;
  double tl0 = 0.25, tl1 = 0.25, tk0 = 0.25, tk1 = 0.25, fac = 1.0;
  if (!p->ep) {
    tl0 = p->rw[7], tl1 = p->rw[2], tk0 = p->rw[4], tk1 = p->rw[5];
    fac = tl0 + tl1 + tk0 + tk1;
    if (fabs(fac) <= p->zerocut) fac = 1.0;
  }
  p->tl0 = 2.0 * tl0 / fac, p->tl1 = 2.0 * tl1 / fac, p->tk0 = 2.0 * tk0 / fac, p->tk1 = 2.0 * tk1 / fac;
}

/* An error of segment seg's values: "file:line: segment_pos(seg,:): message", the line that set them. */
static int seg_err(const bl_deck *d, int seg, char *err, size_t errlen, const char *fmt, ...) {
  char msg[700];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const int line = bl_deck_entry_line(d, "segment_pos", seg + 1);
  if (line)
    return um_format_error(err, errlen, UM_ERR_CONFIG, "%s:%d: segment_pos(%d,:): %s", d->file, line, seg + 1, msg);
  return um_format_error(err, errlen, UM_ERR_CONFIG, "%s: segment_pos(%d,:): %s (the deck sets none of its values)",
                         d->file, seg + 1, msg);
}

/* Side `side` of region 1: its one segment, checked (upstream's setup_mesh_read_input and the generator's cases). */
static int side_segment(const bl_deck *d, int side, double zerocut, side_seg *sd, char *err, size_t errlen) {
  const int nseg = d->region_side[0][side - 1][0];
  if (nseg != 1)
    return bl_ferr(d, "region_side", err, errlen,
                   "side %d of region 1 has %d segments: this port supports one segment per side", side, nseg);
  const int segno = d->region_side[1][side - 1][0];
  if (segno < 1 || segno > d->max_seg || segno > BL_LN)
    return bl_ferr(d, "region_side", err, errlen, "side %d of region 1 names segment %d (1..%d)", side, segno,
                   d->max_seg);
  if (bl_is(d->segment_typ[segno - 1], ""))
    return bl_ferr(d, "region_side", err, errlen,
                   "side %d of region 1 names segment %d, which the deck does not define (no segment_typ(%d) "
                   "in &MESH)",
                   side, segno, segno);
  const int seg = segno - 1, st = seg_type(d->segment_typ[seg]), bc = seg_bc(d->segment_bc[seg]);
  if (!st) return bl_ferr(d, "segment_typ", err, errlen, "segment %d: unknown type '%s'", segno, d->segment_typ[seg]);
  if (!bc) return bl_ferr(d, "segment_bc", err, errlen, "segment %d: unknown boundary '%s'", segno, d->segment_bc[seg]);
  if (st == BL_POINT) return bl_ferr(d, "segment_typ", err, errlen, "segment %d: POINT sides are not supported", segno);
  if ((st == BL_ARC_C || st == BL_ARC_A) && d->segment_pos[6][seg] + d->segment_pos[7][seg] > zerocut)
    return seg_err(d, seg, err, errlen, "segment %d: weighted arcs are not supported by this port", segno);
  sd->seg = seg, sd->typ = st, sd->bc = bc;
  for (int i = 0; i < 8; i++) sd->p[i] = d->segment_pos[i][seg];
  return UM_SUCCESS;
}

/* Where two sides meet, in units of the region's size: points closer than this are one. */
#define BL_MEET_TOL 1.0e-9

static int meets(const double *a, const double *b, double tol) {
  return fabs(a[0] - b[0]) <= tol && fabs(a[1] - b[1]) <= tol;
}

static void reverse(side_seg *q) {
  for (int c = 0; c < 2; c++) {
    const double t = q->p[c];
    q->p[c] = q->p[c + 2], q->p[c + 2] = t;
  }
}

/* Upstream's setup_mesh_check_input for sides of one segment: no segment of zero length (its cells would have no
 * volume), and each side starts where the one before ends (side 1 where side 4 ends), within BL_MEET_TOL of the
 * region's size. A side that meets the one before only run backwards is reversed, as upstream reverses it (where sides
 * 1 and 2 meet: side 2, else side 1, else both; after them the later side): its end points swapped, an arc keeping
 * its direction about its centre (ARC_A anticlockwise, ARC_C clockwise). */
static int close_region(const bl_deck *d, side_seg sd[4], char *err, size_t errlen) {
  double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
  for (int i = 0; i < 4; i++)
    for (int c = 0; c < 4; c++) lo[c % 2] = fmin(lo[c % 2], sd[i].p[c]), hi[c % 2] = fmax(hi[c % 2], sd[i].p[c]);
  const double size = fmax(hi[0] - lo[0], hi[1] - lo[1]), tol = BL_MEET_TOL * size;
  for (int i = 0; i < 4; i++)
    if (meets(sd[i].p, sd[i].p + 2, tol))
      return seg_err(d, sd[i].seg, err, errlen,
                     "segment %d (side %d of region 1) starts and ends at (%.10g, %.10g): a side of zero length makes "
                     "cells of no volume; give the side's two end points",
                     sd[i].seg + 1, i + 1, sd[i].p[0], sd[i].p[1]);
  for (int i = 0; i < 4; i++) {
    side_seg *a = &sd[i], *b = &sd[(i + 1) % 4];
    int rev_a = 0, rev_b = 0;
    if (meets(a->p + 2, b->p, tol)) continue;
    if (i < 3 && meets(a->p + 2, b->p + 2, tol))
      rev_b = 1;
    else if (i == 0 && meets(a->p, b->p, tol))
      rev_a = 1;
    else if (i == 0 && meets(a->p, b->p + 2, tol))
      rev_a = rev_b = 1;
    else {
      const double gap = hypot(a->p[2] - b->p[0], a->p[3] - b->p[1]);
      return seg_err(d, a->seg, err, errlen,
                     "region 1 is not closed: side %d (segment %d) ends at (%.10g, %.10g), but side %d (segment %d, "
                     "line %d) runs from (%.10g, %.10g) to (%.10g, %.10g), %g away: each side must start where the "
                     "one before ends (side 1 where side 4 ends), within %g (%g of the region's size)",
                     i + 1, a->seg + 1, a->p[2], a->p[3], (i + 1) % 4 + 1, b->seg + 1,
                     bl_deck_entry_line(d, "segment_pos", b->seg + 1), b->p[0], b->p[1], b->p[2], b->p[3], gap, tol,
                     BL_MEET_TOL);
    }
    if (rev_a) reverse(a);
    if (rev_b) reverse(b);
  }
  return UM_SUCCESS;
}

int bl_grid_sides(const bl_deck *d, int ring, bl_grid *g, bl_relax *p, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  memset(p, 0, sizeof *p);
  int nl = 0, nk = 0;
  UM_APP_TRY_(region_checks(d, p, &nl, &nk, err, errlen));
  g->nl = nl, g->nk = nk, g->ring = ring;
  size_t n;
  if (ring) n = 2 * (size_t)nl + 2 * (size_t)(nk - 2);
  else if (um_size_mul((size_t)nl, (size_t)nk, &n)) return bl_ferr(d, "region_dim", err, errlen, "too large");
  g->ss = calloc(2 * n, sizeof(double)); /* one block: ss, then rr */
  g->rr = g->ss ? g->ss + n : NULL;
  g->bc = calloc(n, sizeof(int));
  if (!g->rr || !g->ss || !g->bc) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory for the mesh");
  relax_weights(p);
  const double tol = p->tol, om = p->om, zerocut = p->zerocut;
  side_seg sd[4];
  for (int side = 1; side <= 4; side++) UM_APP_TRY_(side_segment(d, side, zerocut, &sd[side - 1], err, errlen));
  UM_APP_TRY_(close_region(d, sd, err, errlen));
  for (int side = 1; side <= 4; side++) {
    int l1, k1, l2, k2;
    switch (side) {
    case 1: l1 = 1, k1 = 1, l2 = 1, k2 = nk; break;
    case 2: l1 = 1, k1 = nk, l2 = nl, k2 = nk; break;
    case 3: l1 = nl, k1 = nk, l2 = nl, k2 = 1; break;
    default: l1 = nl, k1 = 1, l2 = 1, k2 = 1; break;
    }
    const side_seg *q = &sd[side - 1];
    if (q->typ == BL_LINE || q->typ == BL_LINK)
      gen_line(g, q, l1, l2, k1, k2, tol, om, zerocut);
    else
      gen_arc(g, q, l1, l2, k1, k2, zerocut);
  }
  /* boundary types of the four corners */
  int bad = 0, v;
  if ((v = corner_bc(g->bc[at(g, 2, 1)], g->bc[at(g, 1, 2)], &bad)) > 0) g->bc[at(g, 1, 1)] = v;
  if ((v = corner_bc(g->bc[at(g, 2, nk)], g->bc[at(g, 1, nk - 1)], &bad)) > 0) g->bc[at(g, 1, nk)] = v;
  if ((v = corner_bc(g->bc[at(g, nl - 1, 1)], g->bc[at(g, nl, 2)], &bad)) > 0) g->bc[at(g, nl, 1)] = v;
  if ((v = corner_bc(g->bc[at(g, nl - 1, nk)], g->bc[at(g, nl, nk - 1)], &bad)) > 0) g->bc[at(g, nl, nk)] = v;
  if (bad) return bl_ferr(d, "segment_bc", err, errlen, "inconsistent boundary types at a corner of region 1");
  return UM_SUCCESS;
}

/* The whole grid: the sides, then the interior's transfinite start and upstream's relaxation. */
static int generate(const bl_deck *d, grid *g, bl_relax *p, int nthreads, char *err, size_t errlen) {
  (void)nthreads; /* unused in a build without OpenMP */
  UM_APP_TRY_(bl_grid_sides(d, 0, g, p, err, errlen));
  const int nl = g->nl, nk = g->nk;
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (int kk = 2; kk <= nk - 1; kk++)
    for (int ll = 2; ll <= nl - 1; ll++) bl_grid_start(g, p, ll, kk, &g->rr[IX(g, ll, kk)], &g->ss[IX(g, ll, kk)]);
  /* the relaxation's first sweep moves no point where no point moves from the start (each computed alone, over
   * the threads): then it would stop after that sweep, leaving the start as it is */
  int moves = 0;
#pragma omp parallel for schedule(static) num_threads(nthreads) reduction(| : moves)
  for (int kk = 2; kk <= nk - 1; kk++)
    for (int ll = 2; ll <= nl - 1 && !moves; ll++) moves |= bl_grid_moves(g, p, ll, kk);
  if (moves) relax_interior(g, p);
  return UM_SUCCESS;
}

int bl_grid_orientation(const bl_grid *g, const bl_relax *p) {
  double r[4], s[4]; /* points (1,1), (2,1), (1,2), (2,2) */
  bl_grid_point(g, p, 1, 1, &r[0], &s[0]);
  bl_grid_point(g, p, 2, 1, &r[1], &s[1]);
  bl_grid_point(g, p, 1, 2, &r[2], &s[2]);
  bl_grid_point(g, p, 2, 2, &r[3], &s[3]);
  const double r1 = r[1] - r[0], r2 = r[2] - r[0], r3 = r[3] - r[0], s1 = s[1] - s[0], s2 = s[2] - s[0];
  const double s3 = s[3] - s[0];
  return !(r1 * s2 - r2 * s1 > 0.0 || r1 * s3 - r3 * s1 > 0.0 || r3 * s2 - r2 * s3 > 0.0);
}

void bl_element_nodes(int nl, int orient, long long e, long long nd[4]) {
  const long long ll = e % (nl - 1) + 1, kk = e / (nl - 1) + 1;
  const long long c0 = ll + (kk - 1) * nl, c2 = (ll + 1) + kk * nl; /* 1-based */
  const int i1 = orient ? 1 : 3, i2 = orient ? 3 : 1;                /* 0-based corners 2 and 4 */
  nd[0] = c0 - 1;
  nd[2] = c2 - 1;
  nd[i1] = c0;
  nd[i2] = c2 - 2;
}

/* ---- connectivity --------------------------------------------------------- */

/* Each face's neighbour and the neighbour's face that faces back (bl_element_neighbour: the grid's adjacent
 * elements, the pairs of a sort of the faces by their nodes; no sort, no arrays beside elel and elfc), each element
 * alone over the threads. */
static void connect_faces(bl_mesh *m, int nl, int nk, int orient, int nthreads) {
  (void)nthreads; /* unused in a build without OpenMP */
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (int e = 0; e < m->nel; e++) {
    for (int f = 0; f < 4; f++) {
      long long el = e;
      bl_element_neighbour(nl, nk, orient, e, f, &el, &m->elfc[4 * (size_t)e + (size_t)f]);
      m->elel[4 * (size_t)e + (size_t)f] = (int)el;
    }
  }
}

/* Corners between slip x and slip y sides become walls (init_kn_nodetype), element by element in order: an
 * element's corner turns a negative node type into -3 where it has exactly three negative nodes, and the types'
 * signs never change, so those elements are found over the threads and the serial loop runs over them alone. */
static int corner_walls(bl_mesh *m, int nthreads) {
  (void)nthreads; /* unused in a build without OpenMP */
  unsigned char *cand = malloc((size_t)m->nel + 1);
  if (!cand) return UM_ERR_ALLOC;
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (int i = 0; i < m->nel; i++) {
    const int *nd = m->elnd + 4 * (size_t)i;
    cand[i] = (m->indtype[nd[0]] < 0) + (m->indtype[nd[1]] < 0) + (m->indtype[nd[2]] < 0) + (m->indtype[nd[3]] < 0) == 3;
  }
  for (int i = 0; i < m->nel; i++) {
    if (!cand[i]) continue;
    const int *nd = m->elnd + 4 * (size_t)i, type[4] = {m->indtype[nd[0]], m->indtype[nd[1]], m->indtype[nd[2]],
                                                        m->indtype[nd[3]]};
    for (int c = 0; c < 4; c++) {
      const int t = bl_corner_wall(type, c);
      if (t) m->indtype[nd[c]] = t;
    }
  }
  free(cand);
  return UM_SUCCESS;
}

static int connect(bl_mesh *m, int nl, int nk, int orient, int nthreads, char *err, size_t errlen) {
  connect_faces(m, nl, nk, orient, nthreads);
  if (corner_walls(m, nthreads) != UM_SUCCESS)
    return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory for the connectivity");
  return UM_SUCCESS;
}

/* ---- regions, materials, initial conditions (each element's and node's alone: mesh_block.c) ------------- */

/* A single-material deck's element states over nthreads threads, each element alone; an element that fails is
 * made again alone for the message of the first (the serial loop's). */
static int pure_states(const bl_deck *d, const bl_ic *ic, bl_mesh *m, int nthreads, char *err, size_t errlen) {
  (void)nthreads; /* unused in a build without OpenMP */
  int bad = m->nel;
#pragma omp parallel for schedule(static) num_threads(nthreads) reduction(min : bad)
  for (int e = 0; e < m->nel; e++) {
    double cx[4], cy[4];
    char quiet[8];
    for (int k = 0; k < 4; k++) cx[k] = m->x[m->elnd[4 * e + k]], cy[k] = m->y[m->elnd[4 * e + k]];
    if (bl_element_state(d, ic, e, cx, cy, &m->elreg[e], &m->elmat[e], &m->density[e], &m->energy[e], quiet,
                         sizeof quiet) &&
        e < bad)
      bad = e;
  }
  if (bad == m->nel) return UM_SUCCESS;
  double cx[4], cy[4];
  for (int k = 0; k < 4; k++) cx[k] = m->x[m->elnd[4 * bad + k]], cy[k] = m->y[m->elnd[4 * bad + k]];
  return bl_element_state(d, ic, bad, cx, cy, &m->elreg[bad], &m->elmat[bad], &m->density[bad], &m->energy[bad], err,
                          errlen);
}

static int initial_state(const bl_deck *d, bl_mesh *m, int nthreads, char *err, size_t errlen) {
  bl_ic ic;
  UM_APP_TRY_(bl_ic_prepare(d, m->nel, &ic, err, errlen));
  m->nreg = ic.nreg, m->nmat = ic.nmat;
  memcpy(m->region_name, ic.region_name, sizeof m->region_name);
  memcpy(m->material_name, ic.material_name, sizeof m->material_name);
  const int mixing = ic.nmat > 1 && !ic.mmesh; /* several materials: some cells may be mixed */
  int cap = 0;
  if (!mixing) UM_APP_TRY_(pure_states(d, &ic, m, nthreads, err, errlen));
  for (int e = 0; e < m->nel && mixing; e++) {
    double cx[4], cy[4];
    for (int k = 0; k < 4; k++) cx[k] = m->x[m->elnd[4 * e + k]], cy[k] = m->y[m->elnd[4 * e + k]];
    bl_component cp[BL_MAXREG];
    int n = 0;
    UM_APP_TRY_(bl_element_mixed_state(d, &ic, e, cx, cy, &m->elreg[e], &m->elmat[e], &m->density[e], &m->energy[e],
                                       cp, &n, err, errlen));
    if (!n) continue;
    if (m->ncp + n > cap) { /* grow the component list (and the cells', at most one per component) */
      cap = 2 * (m->ncp + n) + 64;
      bl_component *c2 = realloc(m->cp, sizeof *c2 * (size_t)cap);
      int *x2 = c2 ? realloc(m->mxel, sizeof(int) * (size_t)cap) : NULL, *f2 = x2 ? realloc(m->mxfirst, sizeof(int) * (size_t)(cap + 1)) : NULL;
      if (c2) m->cp = c2;
      if (x2) m->mxel = x2;
      if (f2) m->mxfirst = f2;
      if (!f2) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory for %d mixed-cell components", cap);
    }
    m->mxel[m->nmx] = e;
    m->mxfirst[m->nmx++] = m->ncp;
    memcpy(m->cp + m->ncp, cp, sizeof *cp * (size_t)n);
    m->ncp += n;
    m->mxfirst[m->nmx] = m->ncp;
  }
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (int n = 0; n < m->nnd; n++) bl_node_velocity(d, &ic, m->x[n], m->y[n], m->indtype[n], &m->u[n], &m->v[n]);
  return UM_SUCCESS;
}

void bl_mesh_free(bl_mesh *m) {
  free(m->elnd);
  free(m->elel);
  free(m->elfc);
  free(m->elreg);
  free(m->elmat);
  free(m->indtype);
  free(m->x); /* y: in x's block */
  free(m->u); /* v: in u's block */
  free(m->density);
  free(m->energy);
  free(m->mxel);
  free(m->mxfirst);
  free(m->cp);
  memset(m, 0, sizeof *m);
}

int bl_mesh_build(const bl_deck *d, bl_mesh *m, char *err, size_t errlen) {
  return bl_mesh_build_threads(d, 1, m, err, errlen);
}

int bl_mesh_build_threads(const bl_deck *d, int nthreads, bl_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  if (nthreads < 1) nthreads = 1;
  grid g;
  bl_relax p;
  int rc = generate(d, &g, &p, nthreads, err, errlen);
  if (rc) {
    bl_grid_free(&g);
    return rc;
  }
  const int nl = g.nl, nk = g.nk, orient = bl_grid_orientation(&g, &p);
  m->nnd = nl * nk;
  m->nel = (nl - 1) * (nk - 1);
  const size_t nn = (size_t)m->nnd, ne = (size_t)m->nel;
  /* nodes: k outer, l inner (setup_mesh_transfer), the grid's numbering: its points are the nodes' x and y (one
   * block, x then y) and its boundary types become their types in place */
  m->x = g.ss, m->y = g.rr, m->indtype = g.bc;
  g.ss = g.rr = NULL, g.bc = NULL;
  m->elnd = malloc(sizeof(int) * 4 * ne);
  m->elel = malloc(sizeof(int) * 4 * ne);
  m->elfc = malloc(sizeof(int) * 4 * ne);
  m->elreg = malloc(sizeof(int) * ne);
  m->elmat = malloc(sizeof(int) * ne);
  m->u = malloc(sizeof(double) * 2 * nn); /* one block: u, then v */
  m->v = m->u ? m->u + nn : NULL;
  m->density = malloc(sizeof(double) * ne);
  m->energy = malloc(sizeof(double) * ne);
  if (!m->elnd || !m->elel || !m->elfc || !m->elreg || !m->elmat || !m->u || !m->density || !m->energy)
    rc = um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory for a mesh of %d elements", m->nel);
  int bad = 0;
#pragma omp parallel for schedule(static) num_threads(nthreads) reduction(| : bad)
  for (size_t n = 0; n < nn; n++) {
    const size_t ll = n % (size_t)nl + 1, kk = n / (size_t)nl + 1;
    if (ll == 1 || ll == (size_t)nl || kk == 1 || kk == (size_t)nk) {
      const int b = m->indtype[n];
      bad |= b <= 0;
      m->indtype[n] = -b;
    } else m->indtype[n] = 1;
  }
  if (!rc && bad) rc = bl_ferr(d, "segment_bc", err, errlen, "undefined boundary type at a region edge");
  if (!rc) {
#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (int e = 0; e < m->nel; e++) {
      long long nd[4];
      bl_element_nodes(nl, orient, e, nd);
      for (int k = 0; k < 4; k++) m->elnd[4 * e + k] = (int)nd[k];
      m->elreg[e] = 0;
    }
  }
  bl_grid_free(&g);
  if (!rc) rc = connect(m, nl, nk, orient, nthreads, err, errlen);
  if (!rc) rc = initial_state(d, m, nthreads, err, errlen);
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
