/* LULESH 2.0 on um: the mesh, as upstream's Domain constructor builds it for one domain (coordinates, the
 * element -> node and element -> face maps, symmetry planes, masses, the regions with glibc's rand()). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lulesh.h"
#include "lulesh_kernels.h" /* the boundary codes and lu_elem_volume */

/* ---- glibc-compatible rand() ---------------------------------------------- */
/* The additive feedback generator r[i] = r[i-3] + r[i-31] (mod 2^32) seeded by
 * a Lehmer sequence (16807 mod 2^31-1, Schrage's method), the first 310
 * outputs discarded, each output the sum shifted right by one. */
void lulesh_srand(lulesh_rand *g, unsigned seed) {
  int32_t word = seed == 0 ? 1 : (int32_t)seed;
  g->r[0] = word;
  for (int i = 1; i < 31; i++) {
    const int32_t hi = word / 127773, lo = word % 127773;
    word = 16807 * lo - 2836 * hi;
    if (word < 0) word += 2147483647;
    g->r[i] = word;
  }
  g->front = 3;
  g->rear = 0;
  for (int i = 0; i < 310; i++) (void)lulesh_rand_next(g);
}

int lulesh_rand_next(lulesh_rand *g) {
  const uint32_t sum = (uint32_t)g->r[g->front] + (uint32_t)g->r[g->rear];
  g->r[g->front] = (int32_t)sum;
  g->front = (g->front + 1) % 31;
  g->rear = (g->rear + 1) % 31;
  return (int)(sum >> 1);
}

/* ---- mesh ----------------------------------------------------------------- */

void lulesh_mesh_free(lulesh_mesh *m) {
  if (!m) return;
  free(m->coord);
  free(m->elem_nodes);
  free(m->elem_faces);
  free(m->elem_bc);
  for (int d = 0; d < 3; d++) free(m->symm[d]);
  if (m->region_elems)
    for (int r = 0; r < m->nregions; r++) free(m->region_elems[r]);
  free(m->region_elems);
  free(m->region_size);
  free(m->region_rep);
  free(m->volo);
  free(m->elem_mass);
  free(m->nodal_mass);
  memset(m, 0, sizeof *m);
}

/* Regions as upstream's CreateRegionIndexSets (rank 0): runs of random length
 * with a random region, weighted (i+1)^balance, never the same region twice in a row. */
static int build_regions(const lulesh_params *p, lulesh_mesh *m) {
  const int nr = p->regions, ne = m->nelem;
  int *regnum = malloc(sizeof(int) * (size_t)ne);
  m->region_size = calloc((size_t)nr, sizeof(int));
  m->region_elems = calloc((size_t)nr, sizeof(int *));
  m->region_rep = malloc(sizeof(int) * (size_t)nr);
  int *binend = malloc(sizeof(int) * (size_t)nr);
  if (!regnum || !m->region_size || !m->region_elems || !m->region_rep || !binend) {
    free(regnum);
    free(binend);
    return 1;
  }
  m->nregions = nr;
  if (nr == 1) {
    for (int i = 0; i < ne; i++) regnum[i] = 1;
  } else {
    lulesh_rand g;
    lulesh_srand(&g, 0);
    int costden = 0, last = -1, next = 0;
    for (int i = 0; i < nr; i++) {
      costden += (int)pow((double)(i + 1), (double)p->balance);
      binend[i] = costden;
    }
    while (next < ne) {
      int region;
      do {
        const int var = lulesh_rand_next(&g) % costden;
        int i = 0;
        while (var >= binend[i]) i++;
        region = i % nr + 1;
      } while (region == last);
      const int bin = lulesh_rand_next(&g) % 1000;
      int n;
      if (bin < 773) n = lulesh_rand_next(&g) % 15 + 1;
      else if (bin < 937) n = lulesh_rand_next(&g) % 16 + 16;
      else if (bin < 970) n = lulesh_rand_next(&g) % 32 + 32;
      else if (bin < 974) n = lulesh_rand_next(&g) % 64 + 64;
      else if (bin < 978) n = lulesh_rand_next(&g) % 128 + 128;
      else if (bin < 981) n = lulesh_rand_next(&g) % 256 + 256;
      else n = lulesh_rand_next(&g) % 1537 + 512;
      const int end = next + n;
      while (next < end && next < ne) regnum[next++] = region;
      last = region;
    }
  }
  free(binend);
  for (int i = 0; i < ne; i++) m->region_size[regnum[i] - 1]++;
  for (int r = 0; r < nr; r++) {
    m->region_elems[r] = malloc(sizeof(int) * (size_t)(m->region_size[r] ? m->region_size[r] : 1));
    if (!m->region_elems[r]) {
      free(regnum);
      return 1;
    }
    m->region_size[r] = 0;
  }
  for (int i = 0; i < ne; i++) {
    const int r = regnum[i] - 1;
    m->region_elems[r][m->region_size[r]++] = i;
  }
  free(regnum);
  /* cost model (ApplyMaterialPropertiesForElems): the cheaper half once, the
   * expensive ones 1 + cost times, the last ~5% 10 (1 + cost) times */
  for (int r = 0; r < nr; r++)
    m->region_rep[r] = r < nr / 2 ? 1 : r < nr - (nr + 15) / 20 ? 1 + p->cost : 10 * (1 + p->cost);
  return 0;
}

/* The parameters within upstream's ranges (-s, -r, -b, -c), the region weights within rand()'s modulus. */
static int check_params(const lulesh_params *p, char *err, size_t errlen) {
  if (p->size < 1 || p->size > 1000)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                           "params.size = %d: the edge length in elements must be 1..1000 (upstream's -s; "
                           "(size+1)^3 nodes)",
                           p->size);
  if (p->regions < 1 || p->regions > 1000)
    return um_format_error(err, errlen, UM_ERR_CONFIG, "params.regions = %d: must be 1..1000 (upstream's -r)",
                           p->regions);
  if (p->balance < 0 || p->balance > 16)
    return um_format_error(err, errlen, UM_ERR_CONFIG, "params.balance = %d: must be 0..16 (upstream's -b)",
                           p->balance);
  if (p->cost < 0 || p->cost > 1000)
    return um_format_error(err, errlen, UM_ERR_CONFIG, "params.cost = %d: must be 0..1000 (upstream's -c)",
                           p->cost);
  if (p->regions > 1) { /* sum of (i+1)^balance must fit rand()'s modulus */
    double den = 0;
    for (int i = 0; i < p->regions; i++) den += pow((double)(i + 1), (double)p->balance);
    if (den > 2147483647.0)
      return um_format_error(err, errlen, UM_ERR_CONFIG,
                             "params.regions = %d with params.balance = %d: the region weights sum to %.3g, "
                             "more than a 32-bit int; lower one of them",
                             p->regions, p->balance, den);
  }
  return 0;
}

int lulesh_mesh_build(const lulesh_params *p, lulesh_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  const int bad = check_params(p, err, errlen);
  if (bad) return bad;
  const int nx = p->size, en = nx + 1;
  m->nx = nx;
  m->nelem = nx * nx * nx;
  m->nnode = en * en * en;
  m->nsymm = en * en;
  const size_t ne = (size_t)m->nelem, nn = (size_t)m->nnode;
  m->coord = malloc(sizeof(double) * 3 * nn);
  m->elem_nodes = malloc(sizeof(int) * 8 * ne);
  m->elem_faces = malloc(sizeof(int) * 6 * ne);
  m->elem_bc = calloc(ne, sizeof(int));
  m->volo = malloc(sizeof(double) * ne);
  m->elem_mass = malloc(sizeof(double) * ne);
  m->nodal_mass = calloc(nn, sizeof(double));
  for (int d = 0; d < 3; d++) m->symm[d] = malloc(sizeof(int) * (size_t)m->nsymm);
  if (!m->coord || !m->elem_nodes || !m->elem_faces || !m->elem_bc || !m->volo || !m->elem_mass ||
      !m->nodal_mass || !m->symm[0] || !m->symm[1] || !m->symm[2] || build_regions(p, m)) {
    lulesh_mesh_free(m);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory building the LULESH mesh of size %d", nx);
  }

  /* nodes of a uniform box [0, 1.125]^3 (BuildMesh) */
  int nidx = 0;
  for (int plane = 0; plane < en; plane++)
    for (int row = 0; row < en; row++)
      for (int col = 0; col < en; col++, nidx++) {
        m->coord[3 * nidx + 0] = 1.125 * (double)col / (double)nx;
        m->coord[3 * nidx + 1] = 1.125 * (double)row / (double)nx;
        m->coord[3 * nidx + 2] = 1.125 * (double)plane / (double)nx;
      }
  /* hexahedra, nodes in upstream's local order */
  int z = 0;
  nidx = 0;
  for (int plane = 0; plane < nx; plane++) {
    for (int row = 0; row < nx; row++) {
      for (int col = 0; col < nx; col++, z++, nidx++) {
        int *n = m->elem_nodes + 8 * (size_t)z;
        n[0] = nidx;
        n[1] = nidx + 1;
        n[2] = nidx + en + 1;
        n[3] = nidx + en;
        n[4] = nidx + en * en;
        n[5] = nidx + en * en + 1;
        n[6] = nidx + en * en + en + 1;
        n[7] = nidx + en * en + en;
      }
      nidx++;
    }
    nidx += en;
  }
  /* symmetry-plane node lists (SetupSymmetryPlanes) */
  nidx = 0;
  for (int i = 0; i < en; i++)
    for (int j = 0; j < en; j++, nidx++) {
      m->symm[2][nidx] = i * en + j;          /* z = 0 */
      m->symm[1][nidx] = i * en * en + j;     /* y = 0 */
      m->symm[0][nidx] = i * en * en + j * en; /* x = 0 */
    }
  /* face neighbours (SetupElementConnectivities): at the box's faces the
   * element itself stands in; elem_bc says what the face is */
  const int ne_i = m->nelem, nxx = nx * nx;
  for (int i = 0; i < ne_i; i++) {
    int *f = m->elem_faces + 6 * (size_t)i;
    f[0] = i == 0 ? 0 : i - 1;
    f[1] = i == ne_i - 1 ? ne_i - 1 : i + 1;
    f[2] = i < nx ? i : i - nx;
    f[3] = i >= ne_i - nx ? i : i + nx;
    f[4] = i < nxx ? i : i - nxx;
    f[5] = i >= ne_i - nxx ? i : i + nxx;
  }
  /* boundary conditions (SetupBoundaryConditions, one domain): symmetry on the
   * minus faces, free surface on the plus faces */
  for (int i = 0; i < nx; i++) {
    const int planeInc = i * nxx, rowInc = i * nx;
    for (int j = 0; j < nx; j++) {
      m->elem_bc[rowInc + j] |= LU_ZETA_M_SYMM;
      m->elem_bc[rowInc + j + ne_i - nxx] |= LU_ZETA_P_FREE;
      m->elem_bc[planeInc + j] |= LU_ETA_M_SYMM;
      m->elem_bc[planeInc + j + nxx - nx] |= LU_ETA_P_FREE;
      m->elem_bc[planeInc + j * nx] |= LU_XI_M_SYMM;
      m->elem_bc[planeInc + j * nx + nx - 1] |= LU_XI_P_FREE;
    }
  }
  /* volumes and masses (unit density) */
  m->volo[0] = 0.0;
  for (int i = 0; i < ne_i; i++) {
    double x[8], y[8], zz[8];
    const int *n = m->elem_nodes + 8 * (size_t)i;
    for (int k = 0; k < 8; k++) {
      x[k] = m->coord[3 * n[k]];
      y[k] = m->coord[3 * n[k] + 1];
      zz[k] = m->coord[3 * n[k] + 2];
    }
    const double volume = lu_elem_volume(x, y, zz);
    m->volo[i] = volume;
    m->elem_mass[i] = volume;
    for (int k = 0; k < 8; k++) m->nodal_mass[n[k]] += volume / 8.0;
  }
  /* the blast: energy deposited in the corner element at the origin, scaled
   * from 3.948746e+7 for 45 elements along an edge */
  const double ebase = 3.948746e+7, scale = (double)nx / 45.0;
  m->einit = ebase * scale * scale * scale;
  m->dt_init = (.5 * cbrt(m->volo[0])) / sqrt(2.0 * m->einit); /* nelem >= 1: size was checked */
  return 0;
}
