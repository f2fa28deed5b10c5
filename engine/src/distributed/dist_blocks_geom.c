/* dist_blocks_geom.c: for a mesh declared by blocks (design: dist_blocks.c), the points of this rank's block of
 * the primary set for rcb and sfc, and the quality of a candidate partition, with no rank holding more than its
 * block and its part.
 *   points   the coordinate dat's rows of the targets this block's elements reach through the map, fetched from
 *            their homes (the distinct targets to their homes, 3 doubles back: two MPI_Alltoallv), each element's
 *            point the mean of its targets' rows in map order: the same bits as a whole declaration's centroids;
 *   quality  the owners of each row's neighbours asked of their homes (the edge cut: ends in other parts), then
 *            each edge within a part, and each element, sent to the part's rank, which counts the components of
 *            its part with a union-find over the global numbers. */
#include "dist_blocks.h"

#include <limits.h>

#ifdef UM_HAVE_MPI

int umd_blocks_points(umd_blocks *B, int primary, const um_dat *d, const um_map *via, double *xyz) {
  const umd_bset *S = &B->S[primary];
  UM_CHECK(B->ctx, um__dat_to_host(B->ctx, (um_dat *)d));
  if (!via) {
    for (int i = 0; i < S->count; i++) umd_coord_row(d, i, xyz + 3 * (size_t)i);
    return UM_SUCCESS;
  }
  const umd_bset *T = &B->S[via->to->index];
  const int P = B->P, ar = via->arity;
  const size_t nn = (size_t)S->count * ar;
  umd_gmap seen = {0};
  long long *uq = malloc((nn ? nn : 1) * sizeof *uq), *sg = malloc((nn ? nn : 1) * sizeof *sg), *rg = NULL;
  int *dest = malloc((nn ? nn : 1) * sizeof *dest), *perm = malloc((nn ? nn : 1) * sizeof *perm);
  int *scnt = malloc((size_t)P * sizeof *scnt), *rcnt = malloc((size_t)P * sizeof *rcnt), *back = NULL;
  double *ans = NULL, *got = NULL, *row = malloc((nn ? nn : 1) * 3 * sizeof *row);
  int nu = 0, nr = 0, ng = 0;
  int rc = uq && sg && dest && perm && scnt && rcnt && row && umd_gmap_init(&seen, nn) == UM_SUCCESS
               ? UM_SUCCESS
               : UM_ERR_ALLOC;
  for (size_t k = 0; rc == UM_SUCCESS && k < nn; k++) { /* the distinct targets, in order of first reach */
    const long long t = via->gtargets[k];
    if (umd_gmap_get(&seen, t) >= 0) continue;
    rc = umd_gmap_add(&seen, t, nu);
    dest[nu] = umd_home(T, P, t), uq[nu++] = t;
  }
  if (rc != UM_SUCCESS) rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory fetching the coordinates");
  rc = umd_agree(B, rc, "fetching the coordinates");
  if (rc == UM_SUCCESS) {
    umd_group(nu, dest, P, perm, scnt);
    for (int j = 0; j < nu; j++) sg[j] = uq[perm[j]];
    rc = umd_a2a(B, MPI_LONG_LONG, sizeof *sg, sg, scnt, (void **)&rg, rcnt, &nr);
  }
  if (rc == UM_SUCCESS) { /* the home's answers: its rows, 3 doubles each */
    ans = malloc(((size_t)nr + 1) * 3 * sizeof *ans);
    back = malloc((size_t)P * sizeof *back);
    rc = ans && back ? UM_SUCCESS : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory fetching the coordinates");
    for (int i = 0; rc == UM_SUCCESS && i < nr; i++) umd_coord_row(d, (int)(rg[i] - T->begin[B->rank]), ans + 3 * (size_t)i);
    rc = umd_agree(B, rc, "fetching the coordinates");
  }
  if (rc == UM_SUCCESS) {
    for (int q = 0; q < P; q++) rcnt[q] *= 3;
    rc = umd_a2a(B, MPI_DOUBLE, sizeof *ans, ans, rcnt, (void **)&got, back, &ng);
  }
  for (int j = 0; rc == UM_SUCCESS && j < nu; j++) memcpy(row + 3 * (size_t)perm[j], got + 3 * (size_t)j, 3 * sizeof *row);
  for (int i = 0; rc == UM_SUCCESS && i < S->count; i++) { /* the centroid as umd_centroids computes it */
    double *c = xyz + 3 * (size_t)i;
    c[0] = c[1] = c[2] = 0.0;
    for (int a = 0; a < ar; a++) {
      const double *r = row + 3 * (size_t)umd_gmap_get(&seen, via->gtargets[(size_t)i * ar + a]);
      for (int k = 0; k < 3; k++) c[k] += r[k];
    }
    for (int k = 0; k < 3; k++) c[k] /= ar;
  }
  umd_gmap_free(&seen);
  free(uq), free(sg), free(rg), free(dest), free(perm), free(scnt), free(rcnt), free(back), free(ans), free(got), free(row);
  return rc;
}

static int uf_find(int *up, int x) {
  while (up[x] != x) x = up[x] = up[up[x]];
  return x;
}

/* The components of this rank's part from the pairs (g, h) sent here (h == g: an element), *ncomp. */
static int components(umd_blocks *B, const long long *v, int n, int *ncomp) {
  umd_gmap id = {0};
  int *up = malloc(((size_t)n + 1) * sizeof *up), k = 0;
  int rc = up && umd_gmap_init(&id, (size_t)n) == UM_SUCCESS ? UM_SUCCESS : UM_ERR_ALLOC;
  for (int i = 0; rc == UM_SUCCESS && i < n; i++)
    if (v[2 * i] == v[2 * i + 1] && umd_gmap_get(&id, v[2 * i]) < 0) {
      rc = umd_gmap_add(&id, v[2 * i], k);
      up[k] = k, k++;
    }
  *ncomp = k;
  for (int i = 0; rc == UM_SUCCESS && i < n; i++) {
    const int a = umd_gmap_get(&id, v[2 * i]), b = umd_gmap_get(&id, v[2 * i + 1]);
    if (a < 0 || b < 0) continue;
    const int ra = uf_find(up, a), rb = uf_find(up, b);
    if (ra != rb) up[ra < rb ? rb : ra] = ra < rb ? ra : rb, (*ncomp)--;
  }
  umd_gmap_free(&id);
  free(up);
  return rc == UM_SUCCESS ? rc : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory checking the parts");
}

static int cmp_g(const void *x, const void *y) {
  const long long a = *(const long long *)x, b = *(const long long *)y;
  return (a > b) - (a < b);
}

/* The parts of the neighbours in other ranks' blocks: each distinct one asked once (part as the homes' answer). */
static int remote_parts(umd_blocks *B, int primary, const int *xadj, const int *adj, int *part, long long **u, int *nu,
                        int **up) {
  umd_bset *S = &B->S[primary];
  const long long b0 = S->begin[B->rank], b1 = b0 + S->count;
  int k = 0;
  for (int j = 0; j < xadj[S->count]; j++) k += adj[j] < b0 || adj[j] >= b1;
  *u = malloc(((size_t)k + 1) * sizeof **u), *up = malloc(((size_t)k + 1) * sizeof **up), *nu = 0;
  int rc = *u && *up ? UM_SUCCESS : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory checking the parts");
  for (int j = 0; rc == UM_SUCCESS && j < xadj[S->count]; j++)
    if (adj[j] < b0 || adj[j] >= b1) (*u)[(*nu)++] = adj[j];
  if (rc == UM_SUCCESS) qsort(*u, (size_t)*nu, sizeof **u, cmp_g);
  int w = 0;
  for (int i = 0; rc == UM_SUCCESS && i < *nu; i++)
    if (!w || (*u)[i] != (*u)[w - 1]) (*u)[w++] = (*u)[i];
  *nu = w;
  rc = umd_agree(B, rc, "checking the parts");
  int *keep = S->own_home; /* the homes answer from the candidate */
  S->own_home = part;
  if (rc == UM_SUCCESS) rc = umd_agree(B, umd_dir_owner(B, primary, *nu, *u, *up), "checking the parts");
  S->own_home = keep;
  return rc;
}

/* The part of neighbour g: read here for this rank's block, else from the remote answers. */
static int part_of(const umd_bset *S, long long b0, const int *part, const long long *u, int nu, const int *up,
                   long long g) {
  if (g >= b0 && g < b0 + S->count) return part[g - b0];
  const long long *f = bsearch(&g, u, (size_t)nu, sizeof *u, cmp_g);
  return f ? up[f - u] : -1;
}

/* Edge cut and connectedness of the candidate parts. Each rank joins the elements of its block that an edge within
 * their part joins (union-find), so only the local components and the elements with an edge within their part
 * to another rank's block travel to the part's rank: (rep, rep) for a component, (g, g), (g, rep) and (g, h) for
 * such an element and edge; the part's rank counts the components there. */
int umd_blocks_quality(umd_blocks *B, int primary, const int *xadj, const int *adj, int *part, long *cut, int *disc) {
  umd_bset *S = &B->S[primary];
  const int P = B->P, n = S->count;
  const long long b0 = S->begin[B->rank];
  long long *u = NULL, *sv = NULL, *rv = NULL, ends = 0;
  int *up = NULL, nu = 0, nr = 0, *uf = malloc(((size_t)n + 1) * sizeof *uf);
  int *scnt = calloc((size_t)P, sizeof *scnt), *rcnt = malloc((size_t)P * sizeof *rcnt), *pos = NULL;
  int rc = uf && scnt && rcnt ? UM_SUCCESS : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory checking the parts");
  rc = umd_agree(B, rc, "checking the parts");
  if (rc == UM_SUCCESS) rc = remote_parts(B, primary, xadj, adj, part, &u, &nu, &up);
  for (int i = 0; rc == UM_SUCCESS && i < n; i++) uf[i] = i;
  for (int i = 0; rc == UM_SUCCESS && i < n; i++)
    for (int j = xadj[i]; j < xadj[i + 1]; j++) {
      const int q = part_of(S, b0, part, u, nu, up, adj[j]);
      ends += q != part[i];
      if (q == part[i] && adj[j] >= b0 && adj[j] < b0 + n) { /* within the part and this block: join */
        const int ra = uf_find(uf, i), rb = uf_find(uf, (int)(adj[j] - b0));
        if (ra != rb) uf[ra < rb ? rb : ra] = ra < rb ? ra : rb;
      }
    }
  for (int pass = 0; rc == UM_SUCCESS && pass < 2; pass++) { /* count, then fill the pairs by part */
    if (pass) {
      long long total = 0;
      pos = malloc((size_t)P * sizeof *pos);
      for (int q = 0; pos && q < P; q++) pos[q] = (int)total, total += scnt[q];
      if (!pos || total > INT_MAX || !(sv = malloc((size_t)(total + 1) * sizeof *sv)))
        rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory checking the parts");
    }
    for (int i = 0; rc == UM_SUCCESS && i < n; i++) {
      const int q = part[i], r = uf_find(uf, i);
      const long long gi = b0 + i, gr = b0 + r;
      int cross = 0; /* edges within the part to another rank's block */
      for (int j = xadj[i]; j < xadj[i + 1]; j++) {
        if ((adj[j] >= b0 && adj[j] < b0 + n) || part_of(S, b0, part, u, nu, up, adj[j]) != q) continue;
        cross = 1;
        if (pass) sv[pos[q]++] = gi, sv[pos[q]++] = adj[j];
        else scnt[q] += 2;
      }
      const long long nodes[6] = {gr, gr, gi, gi, gi, gr}; /* a component; an element with such edges, its rep */
      const int from = r == i ? 0 : 2, to = cross ? 6 : 2;
      if (from >= to) continue;
      if (pass) memcpy(sv + pos[q], nodes + from, (size_t)(to - from) * sizeof *sv), pos[q] += to - from;
      else scnt[q] += to - from;
    }
  }
  free(uf), free(u), free(up), free(pos);
  rc = umd_agree(B, rc, "checking the parts");
  if (rc == UM_SUCCESS) rc = umd_a2a(B, MPI_LONG_LONG, sizeof *sv, sv, scnt, (void **)&rv, rcnt, &nr);
  free(sv);
  int ncomp = 0;
  if (rc == UM_SUCCESS) rc = umd_agree(B, components(B, rv, nr / 2, &ncomp), "checking the parts");
  long long mine[2] = {ends, ncomp > 1}, sum[2] = {0, 0};
  if (rc == UM_SUCCESS && MPI_Allreduce(mine, sum, 2, MPI_LONG_LONG, MPI_SUM, B->D->comm) != MPI_SUCCESS)
    rc = UM_ERROR(B->ctx, UM_ERR_BACKEND, "MPI_Allreduce (partition quality) failed");
  *cut = rc == UM_SUCCESS ? (long)(sum[0] / 2) : -1;
  *disc = rc == UM_SUCCESS ? (int)sum[1] : 0;
  free(rv), free(scnt), free(rcnt);
  return rc;
}
#endif /* UM_HAVE_MPI */
