/* dist_blocks_geom.c: for a mesh declared by blocks (design: dist_blocks.c), the points of this rank's block of
 * the primary set for rcb and sfc, with no rank holding more than its block:
 *   points   the coordinate dat's rows of the targets this block's elements reach through the map, fetched from
 *            their homes (the distinct targets to their homes, 3 doubles back: two MPI_Alltoallv), each element's
 *            point the mean of its targets' rows in map order: the same bits as a whole declaration's centroids;
 * and the union-find and the count of a part's components that dist_blocks_quality.c uses. */
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
  umd_gmap seen = {0}; /* each distinct target -> its place among the distinct ones, then in the answers */
  long long *sg = NULL, *rg = NULL;
  int *dest = NULL, *scnt = malloc((size_t)P * sizeof *scnt), *rcnt = malloc((size_t)P * sizeof *rcnt), *back = NULL;
  int *pos = malloc((size_t)P * sizeof *pos);
  double *ans = NULL, *got = NULL;
  int nu = 0, nr = 0, ng = 0;
  long long lo, hi;
  umd_span_outside(via->gtargets, nn, 0, 0, &lo, &hi);
  int rc = scnt && rcnt && pos && umd_gmap_init_span(&seen, (size_t)S->count + (size_t)S->count / 4 + 16, lo, hi) == UM_SUCCESS
               ? UM_SUCCESS
               : UM_ERR_ALLOC;
  for (size_t k = 0; rc == UM_SUCCESS && k < nn; k++) /* the distinct targets: buffers sized by them, not by nn */
    if (umd_gmap_get(&seen, via->gtargets[k]) < 0 && (rc = umd_gmap_add(&seen, via->gtargets[k], nu)) == UM_SUCCESS) nu++;
  if (rc == UM_SUCCESS && (!(sg = malloc(((size_t)nu + 1) * sizeof *sg)) || !(dest = malloc(((size_t)nu + 1) * sizeof *dest))))
    rc = UM_ERR_ALLOC;
  if (rc == UM_SUCCESS) { /* grouped by home (a counting sort); seen then gives each target's place in sg */
    for (int q = 0; q < P; q++) scnt[q] = 0;
    long long x;
    for (size_t k = 0; k < umd_gmap_slots(&seen); k++) {
      const int u = umd_gmap_at(&seen, k, &x);
      if (u >= 0) scnt[dest[u] = umd_home(T, P, x)]++;
    }
    for (int q = 0, at = 0; q < P; q++) pos[q] = at, at += scnt[q];
    for (size_t k = 0; k < umd_gmap_slots(&seen); k++) {
      const int u = umd_gmap_at(&seen, k, &x);
      if (u < 0) continue;
      const int at = pos[dest[u]]++;
      sg[at] = x;
      umd_gmap_put_at(&seen, k, at);
    }
  }
  free(dest), free(pos);
  if (rc != UM_SUCCESS) rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory fetching the coordinates");
  rc = umd_agree(B, rc, "fetching the coordinates");
  if (rc == UM_SUCCESS) rc = umd_a2a(B, MPI_LONG_LONG, sizeof *sg, sg, scnt, (void **)&rg, rcnt, &nr);
  free(sg);
  if (rc == UM_SUCCESS) { /* the home's answers: its rows, 3 doubles each */
    ans = malloc(((size_t)nr + 1) * 3 * sizeof *ans);
    back = malloc((size_t)P * sizeof *back);
    rc = ans && back ? UM_SUCCESS : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory fetching the coordinates");
    for (int i = 0; rc == UM_SUCCESS && i < nr; i++) umd_coord_row(d, (int)(rg[i] - T->begin[B->rank]), ans + 3 * (size_t)i);
    rc = umd_agree(B, rc, "fetching the coordinates");
  }
  free(rg);
  if (rc == UM_SUCCESS) {
    for (int q = 0; q < P; q++) rcnt[q] *= 3;
    rc = umd_a2a(B, MPI_DOUBLE, sizeof *ans, ans, rcnt, (void **)&got, back, &ng);
  }
  free(ans);
  for (int i = 0; rc == UM_SUCCESS && i < S->count; i++) { /* the centroid as umd_centroids computes it */
    double *c = xyz + 3 * (size_t)i;
    c[0] = c[1] = c[2] = 0.0;
    for (int a = 0; a < ar; a++) {
      const double *r = got + 3 * (size_t)umd_gmap_get(&seen, via->gtargets[(size_t)i * ar + a]);
      for (int k = 0; k < 3; k++) c[k] += r[k];
    }
    for (int k = 0; k < 3; k++) c[k] /= ar;
  }
  umd_gmap_free(&seen);
  free(scnt), free(rcnt), free(back), free(got);
  return rc;
}

int umd_uf_find(int *up, int x) {
  while (up[x] != x) x = up[x] = up[up[x]];
  return x;
}

/* The components of this rank's part from the pairs (g, h) sent here (h == g: an element), *ncomp. */
int umd_components(umd_blocks *B, const long long *v, int n, int *ncomp) {
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
    const int ra = umd_uf_find(up, a), rb = umd_uf_find(up, b);
    if (ra != rb) up[ra < rb ? rb : ra] = ra < rb ? ra : rb, (*ncomp)--;
  }
  umd_gmap_free(&id);
  free(up);
  return rc == UM_SUCCESS ? rc : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory checking the parts");
}

#endif /* UM_HAVE_MPI */
