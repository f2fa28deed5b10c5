/* dist_geom.c: the geometric partitioners of the primary set, rcb and sfc, in parallel over points that stay where
 * they are (each rank its own block of the primary set's elements: no rank holds a global array), and where their
 * points come from (the coordinate dat, the centroids of a whole declaration's elements).
 *
 * Both are recursive bisections of the ranks [lo, hi) into [lo, mid) and [mid, hi), mid = (lo + hi) / 2, every range
 * of a level at once: the elements of a range are ordered by a key and the first B(mid) - B(lo) go left, where
 * B(q) = floor(q N / P) for N elements in all, so part q ends with exactly B(q + 1) - B(q) elements (the block
 * partitioner's counts: imbalance ceil(N / P) / (N / P) at most).
 *   rcb  the key is the coordinate along the longest side of the range's bounding box (MPI_Allreduce of the
 *        ranges' boxes), ties broken by the next coordinate (so a row of points on the cut is split in one piece,
 *        whatever their numbering), then by the global number;
 *   sfc  the key is the element's index along a Hilbert curve through the bounding box of all the points
 *        (21 bits a side in 3-D, 32 in 2-D), ties broken by the global number: the bisections then cut the curve
 *        into P pieces of consecutive indices, which a parallel sort with splitters would give too.
 * The split of a range is an exact selection of the keys (key, next coordinate (rcb), global number): a radix
 * select, one byte a round (24 rounds for rcb, 16 for sfc), each an MPI_Allreduce of the ranges' 256-bucket histograms. Every rank sees the same sums, so
 * every rank takes the same decisions, and the result depends only on the points and their global numbers: not on
 * which rank holds which point (a whole declaration and a declaration by blocks get the same parts). */
#include "dist_impl.h"

#include <math.h>
#include <stdint.h>

#ifdef UM_HAVE_MPI

/* An order-preserving unsigned image of a double (-0.0 just below +0.0). */
static uint64_t dkey(double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return (b >> 63) ? ~b : b ^ 0x8000000000000000ULL;
}

/* The Hilbert index of a point of the grid [0, 2^bits)^dim (Skilling's transpose form, then its bits
 * interleaved, the most significant first). */
static uint64_t hilbert(uint32_t *x, int dim, int bits) {
  const uint32_t m = 1u << (bits - 1);
  for (uint32_t q = m; q > 1; q >>= 1) { /* inverse undo */
    const uint32_t p = q - 1;
    for (int i = 0; i < dim; i++) {
      if (x[i] & q) {
        x[0] ^= p;
      } else {
        const uint32_t t = (x[0] ^ x[i]) & p;
        x[0] ^= t, x[i] ^= t;
      }
    }
  }
  for (int i = 1; i < dim; i++) x[i] ^= x[i - 1]; /* Gray encode */
  uint32_t t = 0;
  for (uint32_t q = m; q > 1; q >>= 1)
    if (x[dim - 1] & q) t ^= q - 1;
  for (int i = 0; i < dim; i++) x[i] ^= t;
  uint64_t key = 0;
  for (int b = bits - 1; b >= 0; b--)
    for (int i = 0; i < dim; i++) key = (key << 1) | ((x[i] >> b) & 1u);
  return key;
}

/* Hilbert indices of n points (xyz[3 n]) in the bounding box of every rank's points (collective). */
static int hilbert_keys(MPI_Comm comm, int n, int dim, const double *xyz, uint64_t *key) {
  double box[6] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL}; /* max, then -min */
  for (int i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) {
      const double v = xyz[3 * (size_t)i + c];
      if (v > box[c]) box[c] = v;
      if (-v > box[3 + c]) box[3 + c] = -v;
    }
  const int m = MPI_Allreduce(MPI_IN_PLACE, box, 6, MPI_DOUBLE, MPI_MAX, comm);
  if (m != MPI_SUCCESS) return m;
  const int bits = dim == 3 ? 21 : 32;
  const double top = (double)((1ULL << bits) - 1);
  for (int i = 0; i < n; i++) {
    uint32_t x[3] = {0, 0, 0};
    for (int c = 0; c < dim; c++) {
      const double lo = -box[3 + c], w = box[c] - lo, v = xyz[3 * (size_t)i + c];
      const double s = w > 0 && isfinite(w) && isfinite(v) ? (v - lo) / w * top : 0.0;
      x[c] = s <= 0 ? 0u : s >= top ? (uint32_t)top : (uint32_t)s;
    }
    key[i] = hilbert(x, dim, bits);
  }
  return MPI_SUCCESS;
}

/* One level's state: the ranges of parts [lo[r], hi[r]) and, per point, its range and its key. */
typedef struct {
  MPI_Comm comm;
  int n, P;
  long long N;
  int *range;       /* [n] */
  uint64_t *key;    /* [n] the level's key (rcb) or the Hilbert index (sfc) */
  uint64_t *key2;   /* [n] rcb: the next coordinate (ties of key) */
  int nbytes;       /* of the whole key: 24 (rcb: key, key2, gid) or 16 (sfc: key, gid) */
  const long long *gid;
  unsigned char *cand; /* [n] still equal to the selected prefix */
  int nr;           /* ranges of this level */
  int *lo, *hi;     /* [P] */
  long long *hist;  /* [P * 256] */
} geom_state;

static long long bound(const geom_state *G, int q) { return (long long)q * G->N / G->P; } /* N < 2^31 */

static unsigned key_byte(const geom_state *G, int i, int b) {
  const uint64_t w = b < 8 ? G->key[i] : b < G->nbytes - 8 ? G->key2[i] : (uint64_t)G->gid[i];
  return (unsigned)(w >> (8 * (7 - (b & 7)))) & 0xffu;
}

/* For each range r to split, the key (by[r][nbytes] bytes) of its t[r]-th smallest element (0-based), by a radix
 * select over every rank's points (nbytes MPI_Allreduce). t[r] < 0: the range is not split. */
static int radix_select(geom_state *G, long long *t, unsigned char (*by)[24]) {
  for (int i = 0; i < G->n; i++) G->cand[i] = t[G->range[i]] >= 0;
  for (int b = 0; b < G->nbytes; b++) {
    memset(G->hist, 0, (size_t)G->nr * 256 * sizeof *G->hist);
    for (int i = 0; i < G->n; i++)
      if (G->cand[i]) G->hist[(size_t)G->range[i] * 256 + key_byte(G, i, b)]++;
    const int m = MPI_Allreduce(MPI_IN_PLACE, G->hist, G->nr * 256, MPI_LONG_LONG, MPI_SUM, G->comm);
    if (m != MPI_SUCCESS) return m;
    for (int r = 0; r < G->nr; r++) {
      if (t[r] < 0) continue;
      int v = 0;
      while (v < 255 && G->hist[(size_t)r * 256 + v] <= t[r]) t[r] -= G->hist[(size_t)r * 256 + v++];
      by[r][b] = (unsigned char)v;
    }
    for (int i = 0; i < G->n; i++)
      if (G->cand[i] && key_byte(G, i, b) != by[G->range[i]][b]) G->cand[i] = 0;
  }
  return MPI_SUCCESS;
}

/* 1 when point i's key (with its global number) is below the nbytes bytes `by`. */
static int below(const geom_state *G, int i, const unsigned char *by) {
  for (int b = 0; b < G->nbytes; b++) {
    const unsigned k = key_byte(G, i, b);
    if (k != by[b]) return k < by[b];
  }
  return 0;
}

/* rcb: each point's key for its range, the coordinate along the longest side of the range's box. */
static int rcb_keys(geom_state *G, const double *xyz, int dim, double *box) {
  for (int r = 0; r < G->nr * 6; r++) box[r] = -HUGE_VAL;
  for (int i = 0; i < G->n; i++)
    for (int c = 0; c < dim; c++) {
      double *bx = box + (size_t)G->range[i] * 6;
      const double v = xyz[3 * (size_t)i + c];
      if (v > bx[c]) bx[c] = v;
      if (-v > bx[3 + c]) bx[3 + c] = -v;
    }
  const int m = MPI_Allreduce(MPI_IN_PLACE, box, G->nr * 6, MPI_DOUBLE, MPI_MAX, G->comm);
  if (m != MPI_SUCCESS) return m;
  for (int i = 0; i < G->n; i++) {
    const double *bx = box + (size_t)G->range[i] * 6;
    int best = 0;
    for (int c = 1; c < dim; c++)
      if (bx[c] + bx[3 + c] > bx[best] + bx[3 + best]) best = c;
    G->key[i] = dkey(xyz[3 * (size_t)i + best]);
    G->key2[i] = dkey(xyz[3 * (size_t)i + (best + 1) % dim]);
  }
  return MPI_SUCCESS;
}

/* One level: every range of more than one part split at its count, each point to its side. */
static int bisect_level(geom_state *G, const double *xyz, int dim, int sfc, double *box, long long *t,
                        unsigned char (*by)[24]) {
  int m = sfc ? MPI_SUCCESS : rcb_keys(G, xyz, dim, box);
  for (int r = 0; r < G->nr; r++) {
    const int mid = (G->lo[r] + G->hi[r]) / 2;
    const long long left = bound(G, mid) - bound(G, G->lo[r]), all = bound(G, G->hi[r]) - bound(G, G->lo[r]);
    t[r] = G->hi[r] - G->lo[r] > 1 && left < all ? left : -1; /* -1: not split (one part, or all to the left) */
  }
  if (m == MPI_SUCCESS) m = radix_select(G, t, by);
  if (m != MPI_SUCCESS) return m;
  /* new ranges: r -> (2 r: [lo, mid), 2 r + 1: [mid, hi)); a range of one part stays one */
  int nr = 0, *lo = G->lo, *hi = G->hi, *map = (int *)G->hist; /* hist is free now: [nr * 2] */
  int *plo = malloc((size_t)G->P * sizeof *plo), *phi = malloc((size_t)G->P * sizeof *phi);
  if (!plo || !phi) {
    free(plo), free(phi);
    return UM_ERR_ALLOC;
  }
  for (int r = 0; r < G->nr; r++) {
    const int mid = (lo[r] + hi[r]) / 2;
    if (hi[r] - lo[r] > 1) {
      map[2 * r] = nr, plo[nr] = lo[r], phi[nr++] = mid;
      map[2 * r + 1] = nr, plo[nr] = mid, phi[nr++] = hi[r];
    } else {
      map[2 * r] = map[2 * r + 1] = nr, plo[nr] = lo[r], phi[nr++] = hi[r];
    }
  }
  for (int i = 0; i < G->n; i++) {
    const int r = G->range[i];
    const int right = G->hi[r] - G->lo[r] > 1 && (t[r] < 0 ? 0 : !below(G, i, by[r]));
    G->range[i] = map[2 * r + right];
  }
  memcpy(G->lo, plo, (size_t)nr * sizeof *plo);
  memcpy(G->hi, phi, (size_t)nr * sizeof *phi);
  G->nr = nr;
  free(plo), free(phi);
  return MPI_SUCCESS;
}

int umd_geom_part(MPI_Comm comm, int sfc, int n, int dim, const double *xyz, const long long *gid, int P, int *part) {
  geom_state G = {comm, n, P, 0, NULL, NULL, NULL, sfc ? 16 : 24, gid, NULL, 1, NULL, NULL, NULL};
  long long mine = n;
  int m = MPI_Allreduce(&mine, &G.N, 1, MPI_LONG_LONG, MPI_SUM, comm);
  const size_t nn = (size_t)(n ? n : 1);
  G.range = calloc(nn, sizeof *G.range);
  G.key = malloc(nn * sizeof *G.key);
  G.key2 = malloc(nn * sizeof *G.key2);
  G.cand = malloc(nn);
  G.lo = malloc((size_t)P * sizeof *G.lo);
  G.hi = malloc((size_t)P * sizeof *G.hi);
  G.hist = malloc((size_t)P * 256 * sizeof *G.hist);
  double *box = malloc((size_t)P * 6 * sizeof *box);
  long long *t = malloc((size_t)P * sizeof *t);
  unsigned char(*by)[24] = malloc((size_t)P * sizeof *by);
  int ok = G.range && G.key && G.key2 && G.cand && G.lo && G.hi && G.hist && box && t && by, all = 0;
  if (m == MPI_SUCCESS) m = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  int rc = m != MPI_SUCCESS ? m : all ? UM_SUCCESS : UM_ERR_ALLOC;
  if (rc == UM_SUCCESS) {
    G.lo[0] = 0, G.hi[0] = P;
    if (sfc) rc = hilbert_keys(comm, n, dim, xyz, G.key);
  }
  for (int more = P > 1; rc == UM_SUCCESS && more;) {
    rc = bisect_level(&G, xyz, dim, sfc, box, t, by);
    more = 0;
    for (int r = 0; r < G.nr; r++) more |= G.hi[r] - G.lo[r] > 1;
  }
  for (int i = 0; rc == UM_SUCCESS && i < n; i++) part[i] = G.lo[G.range[i]];
  free(G.range), free(G.key), free(G.key2), free(G.cand), free(G.lo), free(G.hi), free(G.hist), free(box), free(t), free(by);
  return rc;
}

/* ---- the coordinates ------------------------------------------------------------------------ */

/* A coordinate dat's value, component c of row e, as a double. */
static double coord_at(const um_dat *d, int e, int c) {
  const char *p = elem_ptr(d, e, c);
  if (d->type == UM_FLOAT) {
    float f;
    memcpy(&f, p, sizeof f);
    return f;
  }
  double v;
  memcpy(&v, p, sizeof v);
  return v;
}

void umd_coord_row(const um_dat *d, int e, double *out) {
  out[0] = out[1] = out[2] = 0.0;
  for (int c = 0; c < d->dim; c++) out[c] = coord_at(d, e, c);
}


/* The map by which the primary set's elements reach set `to` (the first declared), or NULL. */
static const um_map *map_to(const um_context *ctx, int primary, int to) {
  for (int k = 0; k < ctx->nmaps; k++)
    if (ctx->maps[k]->from->index == primary && ctx->maps[k]->to->index == to && ctx->maps[k]->to->index != primary)
      return ctx->maps[k];
  return NULL;
}

int umd_coords_find(um_context *ctx, int primary, const um_dat **dat, const um_map **via, char *why, size_t wl) {
  *dat = NULL, *via = NULL;
  const char *named = ctx->partition_coords;
  if (named[0]) { /* mpi.partition_coords / um_context_set_partition_coords */
    const um_dat *d = um_find_dat(ctx, named);
    if (!d)
      return UM_ERROR(ctx, UM_ERR_CONFIG, "mpi.partition_coords: no dat named '%s'; name a dat of 2 or 3 doubles "
                      "(or floats) per element, on the primary set or on a set its maps reach", named);
    const um_map *m = d->set->index == primary ? NULL : map_to(ctx, primary, d->set->index);
    if (!um_dat_is_coordinates(d, 0) || (d->set->index != primary && !m))
      return UM_ERROR(ctx, UM_ERR_CONFIG, "mpi.partition_coords: dat '%s' (%d values of type %s on set '%s') cannot "
                      "place the elements of set '%s': name a dat of 2 or 3 doubles (or floats) per element, on '%s' or "
                      "on a set a map from it reaches", named, d->dim, um_type_name(d->type), d->set->name,
                      ctx->sets[primary]->name, ctx->sets[primary]->name);
    *dat = d, *via = m;
    return UM_SUCCESS;
  }
  /* the default: a dat named like coordinates before any other; on the primary set before one a map reaches */
  for (int pass = 0; pass < 4 && !*dat; pass++)
    for (int i = 0; i < ctx->ndats && !*dat; i++) {
      const um_dat *d = ctx->dats[i];
      const um_map *m = d->set->index == primary ? NULL : map_to(ctx, primary, d->set->index);
      if (!um_dat_is_coordinates(d, pass < 2) || d->contrib) continue;
      if ((pass % 2 == 0 && d->set->index == primary) || (pass % 2 == 1 && m)) *dat = d, *via = m;
    }
  if (!*dat)
    snprintf(why, wl, "no coordinates (a dat of 2 or 3 doubles or floats on set '%s' or on a set its maps reach; "
                      "mpi.partition_coords names one)", ctx->sets[primary]->name);
  return UM_SUCCESS;
}

void umd_coords_say(const um_dat *d, const um_map *via, char *out, size_t len) {
  if (via) snprintf(out, len, "centroids of dat '%s' through map '%s'", d->name, via->name);
  else snprintf(out, len, "dat '%s'", d->name);
}

int umd_centroids(um_context *ctx, const um_dat *d, const um_map *via, int lo, int hi, double *xyz) {
  UM_CHECK(ctx, um__dat_to_host(ctx, (um_dat *)d));
  for (int e = lo; e < hi; e++) {
    double *c = xyz + 3 * (size_t)(e - lo), r[3];
    if (!via) {
      umd_coord_row(d, e, c);
      continue;
    }
    c[0] = c[1] = c[2] = 0.0;
    for (int a = 0; a < via->arity; a++) {
      umd_coord_row(d, via->data[(size_t)e * via->arity + a], r);
      for (int k = 0; k < 3; k++) c[k] += r[k];
    }
    for (int k = 0; k < 3; k++) c[k] /= via->arity;
  }
  return UM_SUCCESS;
}
#endif /* UM_HAVE_MPI */
