/* BookLeaf's irregular meshes by blocks: a deck whose relaxation moves points (EQUI) needs the whole mesh to
 * relax it, so rank 0 generates it whole (mesh.c) and sends every rank its block of each array, the block
 * partitioner's ranges; rank 0 frees the whole mesh once sent. Rank 0's peak is the whole mesh plus one whole
 * array of the per-element corners at a time; the other ranks hold only their blocks. The node -> element lists
 * and the fused viscosity's far corners of a whole mesh are made here too (the whole declaration takes them). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bookleaf_mesh.h"
#include "um/um.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* The node -> element lists of the nodes [n0, n1) (a thread's), the corners scanned in order; the first corner
 * (4 e + k) whose node has 4 elements already, or LLONG_MAX. */
static long long node_elements_range(const bl_mesh *m, int *ndel, int *corner, int corner_soa, size_t n0, size_t n1) {
  const size_t nnd = (size_t)m->nnd, nc = 4 * (size_t)m->nel;
#define CORNER(n, s) corner[corner_soa ? (size_t)(s) * nnd + (n) : 4 * (n) + (size_t)(s)]
  for (size_t n = n0; n < n1; n++)
    for (int s = 0; s < 4; s++) ndel[4 * n + (size_t)s] = 0, CORNER(n, s) = -1;
  for (size_t i = 0; i < nc; i++) {
    const size_t n = (size_t)m->elnd[i];
    if (n < n0 || n >= n1) continue;
    int s = 0;
    while (s < 4 && CORNER(n, s) >= 0) s++;
    if (s == 4) return (long long)i;
    ndel[4 * n + (size_t)s] = (int)(i / 4), CORNER(n, s) = (int)(i % 4);
  }
  for (size_t n = n0; n < n1; n++)
    for (int s = 1; s < 4; s++)
      if (CORNER(n, s) < 0) ndel[4 * n + (size_t)s] = ndel[4 * n];
#undef CORNER
  return LLONG_MAX;
}

long long bl_mesh_node_elements(const bl_mesh *m, int *ndel, int *corner, int corner_soa, int nthreads) {
  const size_t nnd = (size_t)m->nnd;
  long long first = LLONG_MAX;
  if (nthreads < 1 || nnd < 65536) nthreads = 1;
  /* each thread its range of nodes, reading every corner in order: each node's elements in increasing order, the
   * lists and the first overflowing corner those of one pass for any count */
#pragma omp parallel num_threads(nthreads) reduction(min : first)
  {
    int t = 0, nt = 1;
#ifdef _OPENMP
    t = omp_get_thread_num(), nt = omp_get_num_threads();
#endif
    const size_t n0 = nnd * (size_t)t / (size_t)nt, n1 = nnd * (size_t)(t + 1) / (size_t)nt;
    const long long f = node_elements_range(m, ndel, corner, corner_soa, n0, n1);
    if (f < first) first = f;
  }
  return first == LLONG_MAX ? -1 : (long long)m->elnd[first];
}

long long bl_mesh_visc_nodes(const bl_mesh *m, int *vn, int nthreads) {
  long long bad = LLONG_MAX;
  if (nthreads < 1) nthreads = 1;
#pragma omp parallel for schedule(static) num_threads(nthreads) reduction(min : bad)
  for (long long e = 0; e < (long long)m->nel; e++)
    for (int f = 0; f < 4; f++) {
      const int n = m->elel[4 * e + f], b = m->elfc[4 * e + f], *nd = m->elnd + 4 * (size_t)n, *own = m->elnd + 4 * e;
      const int self = n == e, a1 = self ? (f + 3) % 4 : f, a0 = self ? (f + 2) % 4 : (f + 1) % 4;
      if ((self && b != (f + 2) % 4) || nd[(b + 1) % 4] != own[a1] || nd[b] != own[a0]) {
        if (4 * e + f < bad) bad = 4 * e + f;
        break;
      }
      vn[8 * e + 2 * f] = nd[(b + 2) % 4], vn[8 * e + 2 * f + 1] = nd[(b + 3) % 4];
    }
  return bad == LLONG_MAX ? -1 : bad;
}

/* What rank 0 derives from the whole mesh for the blocks, one whole array at a time, scattered then freed: the
 * corners' coordinates and types, the far corners, the node -> element lists. bad: rank 0's finding, sent to all. */
static int scatter_derived(const bl_mesh *m, int what, bl_block *b, long long bad[2]) {
  const int root = um_mpi_rank() == 0;
  const size_t nel = root ? (size_t)m->nel : 0, nnd = root ? (size_t)m->nnd : 0;
  double *xy = root ? malloc(sizeof(double) * 4 * nel + 1) : NULL;
  int *iv = root ? malloc(sizeof(int) * 8 * (nel > nnd ? nel : nnd) + 1) : NULL, *corner = NULL;
  int rc = um_mpi_agree(root && (!xy || !iv), -1) ? UM_ERR_ALLOC : UM_SUCCESS;
  for (int c = 0; c < 2 && !rc; c++) { /* x then y of each element's four corners */
    for (size_t i = 0; i < 4 * nel; i++) xy[i] = (c ? m->y : m->x)[m->elnd[i]];
    rc = um_mpi_scatter_block(xy, b->nel, 4 * sizeof(double), c ? b->cy : b->cx);
  }
  free(xy);
  for (size_t i = 0; i < 4 * nel && !rc; i++) iv[i] = m->indtype[m->elnd[i]];
  if (!rc) rc = um_mpi_scatter_block(iv, b->nel, 4 * sizeof(int), b->ctype);
  if (!rc && (what & BL_BLOCK_VISC)) {
    if (root) bad[0] = bl_mesh_visc_nodes(m, iv, 1);
    rc = um_mpi_bcast_bytes(bad, sizeof(long long) * 2);
    if (!rc && bad[0] < 0) rc = um_mpi_scatter_map_block(iv, b->nel, 8, b->visc);
  }
  if (!rc && bad[0] < 0 && (what & BL_BLOCK_NODE_ELEMENTS)) {
    corner = root ? malloc(sizeof(int) * 4 * nnd + 1) : NULL;
    rc = um_mpi_agree(root && !corner, -1) ? UM_ERR_ALLOC : UM_SUCCESS;
    if (!rc && root) bad[1] = bl_mesh_node_elements(m, iv, corner, 0, 1);
    if (!rc) rc = um_mpi_bcast_bytes(bad, sizeof(long long) * 2);
    if (!rc && bad[1] < 0) rc = um_mpi_scatter_map_block(iv, b->nnd, 4, b->ndel);
    if (!rc && bad[1] < 0) rc = um_mpi_scatter_block(corner, b->nnd, 4 * sizeof(int), b->ndcorner);
  }
  free(iv), free(corner);
  return rc;
}

int bl_block_scatter(const bl_mesh *m, int what, bl_block *b, char *err, size_t errlen) {
  memset(b, 0, sizeof *b);
  const int root = um_mpi_rank() == 0;
  struct {
    long long nel, nnd;
    int nreg, nmat;
    char region_name[BL_MAXREG][BL_SLEN], material_name[BL_MAXREG][BL_SLEN];
  } head;
  memset(&head, 0, sizeof head);
  if (root) {
    head.nel = m->nel, head.nnd = m->nnd, head.nreg = m->nreg, head.nmat = m->nmat;
    memcpy(head.region_name, m->region_name, sizeof head.region_name);
    memcpy(head.material_name, m->material_name, sizeof head.material_name);
  }
  int rc = um_mpi_bcast_bytes(&head, sizeof head);
  b->nel = head.nel, b->nnd = head.nnd, b->nreg = head.nreg, b->nmat = head.nmat;
  memcpy(b->region_name, head.region_name, sizeof b->region_name);
  memcpy(b->material_name, head.material_name, sizeof b->material_name);
  for (int s = 0; s < 2 && !rc; s++)
    rc = um_block_range(s ? b->nnd : b->nel, um_mpi_rank(), um_mpi_size(), &b->first[s], &b->count[s]);
  const int mem = !rc && bl_block_alloc(b, what) != UM_SUCCESS;
  if (!rc && um_mpi_agree(mem, -1)) rc = UM_ERR_ALLOC;
  const long long ne = b->nel, nn = b->nnd;
  const int *elnd = root ? m->elnd : NULL, *elel = root ? m->elel : NULL;
  if (!rc) rc = um_mpi_scatter_map_block(elnd, ne, 4, b->elnd);
  if (!rc) rc = um_mpi_scatter_map_block(elel, ne, 4, b->elel);
  if (!rc) rc = um_mpi_scatter_block(root ? m->elfc : NULL, ne, 4 * sizeof(int), b->elfc);
  if (!rc) rc = um_mpi_scatter_block(root ? m->elreg : NULL, ne, sizeof(int), b->elreg);
  if (!rc) rc = um_mpi_scatter_block(root ? m->elmat : NULL, ne, sizeof(int), b->elmat);
  if (!rc) rc = um_mpi_scatter_block(root ? m->density : NULL, ne, sizeof(double), b->density);
  if (!rc) rc = um_mpi_scatter_block(root ? m->energy : NULL, ne, sizeof(double), b->energy);
  if (!rc) rc = um_mpi_scatter_block(root ? m->indtype : NULL, nn, sizeof(int), b->indtype);
  double *const node[4] = {b->x, b->y, b->u, b->v};
  for (int k = 0; k < 4 && !rc; k++)
    rc = um_mpi_scatter_block(root ? (k == 0   ? m->x
                                      : k == 1 ? m->y
                                      : k == 2 ? m->u
                                               : m->v)
                                   : NULL,
                              nn, sizeof(double), node[k]);
  long long bad[2] = {-1, -1};
  if (!rc) rc = scatter_derived(m, what, b, bad);
  if (rc) {
    um_format_error(err, errlen, rc, "the mesh generated on rank 0 could not be sent out by blocks (%s%s)",
                    rc == UM_ERR_ALLOC ? "out of memory on " : "MPI failed", rc == UM_ERR_ALLOC ? "some rank" : "");
  } else if (bad[0] >= 0) {
    rc = um_format_error(err, errlen, UM_ERR_CONFIG,
                         "element %lld face %d and its neighbour do not share their "
                         "corners as a conforming mesh does: params.visc=fused needs that; use params.visc=loops",
                         bad[0] / 4 + 1, (int)(bad[0] % 4) + 1);
  } else if (bad[1] >= 0) {
    rc = um_format_error(err, errlen, UM_ERR_CONFIG,
                         "node %lld is a corner of more than 4 elements: "
                         "params.scheme=gather takes at most 4; use params.scheme=inc",
                         bad[1] + 1);
  }
  if (rc) {
    const long long nel = b->nel, nnd = b->nnd;
    bl_block_free(b);
    b->nel = nel, b->nnd = nnd;
    return rc;
  }
  b->regular = 1; /* its rows are filled, as a regular block's */
  return UM_SUCCESS;
}
