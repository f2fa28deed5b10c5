/* LULESH 2.0 on um: the mesh, as upstream's Domain constructor builds it for one domain (coordinates, the
 * element -> node and element -> face maps, symmetry planes, masses, the regions with glibc's rand()). */
#include <limits.h>
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
static inline int rand_next(lulesh_rand *g) {
  const uint32_t sum = (uint32_t)g->r[g->front] + (uint32_t)g->r[g->rear];
  g->r[g->front] = (int32_t)sum;
  g->front = g->front == 30 ? 0 : g->front + 1;
  g->rear = g->rear == 30 ? 0 : g->rear + 1;
  return (int)(sum >> 1);
}

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
  for (int i = 0; i < 310; i++) (void)rand_next(g);
}

int lulesh_rand_next(lulesh_rand *g) { return rand_next(g); }

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

/* Regions as upstream's CreateRegionIndexSets (rank 0): runs of random length with a random region, weighted
 * (i+1)^balance, never the same region twice in a row. The runs are drawn in element order from one rand()
 * sequence, so any block of them is found by replaying the sequence from its start (regions_walk): O(elements)
 * time, O(regions) memory. */
typedef struct {
  lulesh_rand g;
  int nr, ne, costden, last, next;
  uint64_t costinv; /* 2^64 / costden, rounded up: x % costden without a division (mod_costden) */
  int *binend; /* nr cumulative weights */
} regions_walk;

/* x % w->costden for 0 <= x < 2^31: the fraction x / costden in 64 bits times costden, its integer part (exact for
 * 32-bit x and divisor). */
static inline int mod_costden(const regions_walk *w, int x) {
  const uint64_t frac = w->costinv * (uint32_t)x;
  return (int)(((unsigned __int128)frac * (uint32_t)w->costden) >> 64);
}

/* A run of regions_walk: elements [start, end) of region `region`, after `before` of the region's elements. */
typedef struct {
  int start, end, region;
  long long before;
} region_run;

/* r appended to runs[*n] (*cap of room): 0, or 1 on no memory. */
static int keep_run(region_run **runs, int *n, int *cap, region_run r) {
  if (*n == *cap) {
    const int c = *cap ? 2 * *cap : 256;
    region_run *r2 = realloc(*runs, (size_t)c * sizeof *r2);
    if (!r2) return 1;
    *runs = r2, *cap = c;
  }
  (*runs)[(*n)++] = r;
  return 0;
}

static int regions_walk_start(regions_walk *w, const lulesh_params *p, int ne) {
  memset(w, 0, sizeof *w);
  w->nr = p->regions, w->ne = ne, w->last = -1;
  w->binend = malloc(sizeof(int) * (size_t)w->nr);
  if (!w->binend) return 1;
  for (int i = 0; i < w->nr; i++) {
    w->costden += (int)pow((double)(i + 1), (double)p->balance);
    w->binend[i] = w->costden;
  }
  w->costinv = UINT64_MAX / (uint64_t)w->costden + 1;
  lulesh_srand(&w->g, 0);
  return 0;
}

/* The next run: elements [*start, *end) of region *region (0-based); 0 when every element has one. */
static int regions_walk_next(regions_walk *w, int *start, int *end, int *region) {
  if (w->next >= w->ne) return 0;
  if (w->nr == 1) { /* one region: no draws */
    *start = 0, *end = w->ne, *region = 0;
    w->next = w->ne;
    return 1;
  }
  int reg;
  do {
    const int var = mod_costden(w, rand_next(&w->g));
    int i = 0;
    while (var >= w->binend[i]) i++;
    reg = i % w->nr + 1;
  } while (reg == w->last);
  const int bin = rand_next(&w->g) % 1000;
  int n;
  if (bin < 773)
    n = rand_next(&w->g) % 15 + 1;
  else if (bin < 937)
    n = rand_next(&w->g) % 16 + 16;
  else if (bin < 970)
    n = rand_next(&w->g) % 32 + 32;
  else if (bin < 974)
    n = rand_next(&w->g) % 64 + 64;
  else if (bin < 978)
    n = rand_next(&w->g) % 128 + 128;
  else if (bin < 981)
    n = rand_next(&w->g) % 256 + 256;
  else
    n = rand_next(&w->g) % 1537 + 512;
  *start = w->next;
  *end = w->next + n < w->ne ? w->next + n : w->ne;
  *region = reg - 1;
  w->next = *end;
  w->last = reg;
  return 1;
}

/* cost model (ApplyMaterialPropertiesForElems): the cheaper half once, the expensive ones 1 + cost times, the last
 * ~5% 10 (1 + cost) times */
static int region_rep(const lulesh_params *p, int r) {
  const int nr = p->regions;
  return r < nr / 2 ? 1 : r < nr - (nr + 15) / 20 ? 1 + p->cost : 10 * (1 + p->cost);
}

static int build_regions(const lulesh_params *p, lulesh_mesh *m) {
  const int nr = p->regions;
  m->region_size = calloc((size_t)nr, sizeof(int));
  m->region_elems = calloc((size_t)nr, sizeof(int *));
  m->region_rep = malloc(sizeof(int) * (size_t)nr);
  if (!m->region_size || !m->region_elems || !m->region_rep) return 1;
  m->nregions = nr;
  for (int r = 0; r < nr; r++) m->region_rep[r] = region_rep(p, r);
  regions_walk w;
  int start, end, reg, nrun = 0, cap = 0, bad = 0;
  region_run *run = NULL; /* the runs, walked once */
  if (regions_walk_start(&w, p, m->nelem)) return 1;
  while (!bad && regions_walk_next(&w, &start, &end, &reg)) {
    bad = keep_run(&run, &nrun, &cap, (region_run){start, end, reg, m->region_size[reg]});
    m->region_size[reg] += end - start;
  }
  free(w.binend);
  for (int r = 0; !bad && r < nr; r++)
    bad = !(m->region_elems[r] = malloc(sizeof(int) * (size_t)(m->region_size[r] ? m->region_size[r] : 1)));
  for (int k = 0; !bad && k < nrun; k++)
    for (int i = run[k].start; i < run[k].end; i++)
      m->region_elems[run[k].region][run[k].before + i - run[k].start] = i;
  free(run);
  return bad;
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

/* ---- the cube, one element or node at a time (the whole mesh and every block from the same code) ---- */

/* Node n's coordinates: a uniform box [0, 1.125]^3 (BuildMesh), x fastest. */
/* The coordinate of the i-th node plane along each axis, i = 0 .. nx: 1.125 * i / nx (the generators take each
 * coordinate from this table; NULL on no memory). */
static double *axis_coords(int nx) {
  double *cx = malloc(sizeof(double) * ((size_t)nx + 1));
  for (int i = 0; cx && i <= nx; i++) cx[i] = 1.125 * (double)i / (double)nx;
  return cx;
}

static void node_coord(int nx, const double *cx, long long n, double c[3]) {
  const long long en = nx + 1;
  c[0] = cx[n % en], c[1] = cx[n / en % en], c[2] = cx[n / (en * en)];
}

/* Element e's nodes in upstream's local order (bottom face counter-clockwise, then the top). */
static void elem_nodes(int nx, long long e, long long n[8]) {
  const long long en = nx + 1, col = e % nx, row = e / nx % nx, plane = e / ((long long)nx * nx);
  const long long b = plane * en * en + row * en + col;
  n[0] = b, n[1] = b + 1, n[2] = b + en + 1, n[3] = b + en;
  n[4] = b + en * en, n[5] = b + en * en + 1, n[6] = b + en * en + en + 1, n[7] = b + en * en + en;
}

/* Face neighbours (SetupElementConnectivities): at the box's faces the element itself stands in. */
static void elem_faces(int nx, long long i, long long f[6]) {
  const long long nxx = (long long)nx * nx, ne = nxx * nx;
  f[0] = i == 0 ? 0 : i - 1;
  f[1] = i == ne - 1 ? ne - 1 : i + 1;
  f[2] = i < nx ? i : i - nx;
  f[3] = i >= ne - nx ? i : i + nx;
  f[4] = i < nxx ? i : i - nxx;
  f[5] = i >= ne - nxx ? i : i + nxx;
}

/* Boundary conditions (SetupBoundaryConditions, one domain): symmetry on the minus faces, free surface on the
 * plus faces. */
static int elem_bc(int nx, long long e) {
  const long long col = e % nx, row = e / nx % nx, plane = e / ((long long)nx * nx);
  return (plane == 0 ? LU_ZETA_M_SYMM : 0) | (plane == nx - 1 ? LU_ZETA_P_FREE : 0) |
         (row == 0 ? LU_ETA_M_SYMM : 0) | (row == nx - 1 ? LU_ETA_P_FREE : 0) | (col == 0 ? LU_XI_M_SYMM : 0) |
         (col == nx - 1 ? LU_XI_P_FREE : 0);
}

/* Element e's volume from its corners' coordinates, each corner's (i, j, k) taken from the element's own (col, row,
 * plane). */
static double elem_volume(int nx, const double *cx, long long e) {
  static const int di[8] = {0, 1, 1, 0, 0, 1, 1, 0}, dj[8] = {0, 0, 1, 1, 0, 0, 1, 1}, dk[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  const long long col = e % nx, row = e / nx % nx, plane = e / ((long long)nx * nx);
  double x[8], y[8], z[8];
  for (int k = 0; k < 8; k++) { /* elem_nodes' order */
    x[k] = cx[col + di[k]];
    y[k] = cx[row + dj[k]];
    z[k] = cx[plane + dk[k]];
  }
  return lu_elem_volume(x, y, z);
}

/* Node n's elements in ascending order (up to 8; returns how many), with the corner each is to it (elem_nodes'
 * index of n). */
static int node_elems(int nx, long long n, long long e[8], int corner[8]) {
  static const int corner_at[2][2][2] = {{{0, 1}, {3, 2}}, {{4, 5}, {7, 6}}}; /* [dz][dy][dx] */
  const long long en = nx + 1, col = n % en, row = n / en % en, plane = n / (en * en);
  int k = 0;
  for (int dz = 1; dz >= 0; dz--) /* the element below the node first: ascending numbers */
    for (int dy = 1; dy >= 0; dy--)
      for (int dx = 1; dx >= 0; dx--) {
        const long long c = col - dx, r = row - dy, p = plane - dz;
        if (c < 0 || r < 0 || p < 0 || c >= nx || r >= nx || p >= nx) continue;
        e[k] = (p * nx + r) * nx + c;
        corner[k++] = corner_at[dz][dy][dx];
      }
  return k;
}

/* A node's mass (unit density): an eighth of each of its elements' volumes, added in element order; volo: the
 * volumes of elements volo_first .. volo_first + volo_count - 1, below: those of below_first .. volo_first - 1 (the
 * others are computed here). */
static double node_mass(int nx, const double *cx, long long n, const double *volo, long long volo_first,
                        long long volo_count, const double *below, long long below_first) {
  long long e[8];
  int corner[8];
  const int k = node_elems(nx, n, e, corner);
  double m = 0.0;
  for (int i = 0; i < k; i++) {
    const long long j = e[i] - volo_first;
    m += (j >= 0 && j < volo_count                   ? volo[j]
          : e[i] >= below_first && e[i] < volo_first ? below[e[i] - below_first]
                                                     : elem_volume(nx, cx, e[i])) /
         8.0;
  }
  return m;
}

int lulesh_node_symm_bits(int nx, long long n) {
  const long long en = nx + 1;
  return (n % en == 0 ? 1 : 0) | (n / en % en == 0 ? 2 : 0) | (n / (en * en) == 0 ? 4 : 0);
}

/* The blast: energy deposited in the corner element at the origin, scaled from 3.948746e+7 for 45 elements along
 * an edge, and the first time step from that element's volume. */
static void blast(int nx, const double *cx, double *einit, double *dt_init) {
  const double ebase = 3.948746e+7, scale = (double)nx / 45.0;
  *einit = ebase * scale * scale * scale;
  *dt_init = (.5 * cbrt(elem_volume(nx, cx, 0))) / sqrt(2.0 * *einit);
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
  double *cx = axis_coords(nx);
  if (!cx || !m->coord || !m->elem_nodes || !m->elem_faces || !m->elem_bc || !m->volo || !m->elem_mass ||
      !m->nodal_mass || !m->symm[0] || !m->symm[1] || !m->symm[2] || build_regions(p, m)) {
    free(cx);
    lulesh_mesh_free(m);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory building the LULESH mesh of size %d", nx);
  }
  const int nt = p->threads > 1 ? p->threads : 1; /* each row computed alone: the same bits for any count */
  (void)nt; /* unused in a build without OpenMP */
#pragma omp parallel for schedule(static) num_threads(nt)
  for (size_t n = 0; n < nn; n++) node_coord(nx, cx, (long long)n, m->coord + 3 * n);
#pragma omp parallel for schedule(static) num_threads(nt)
  for (size_t i = 0; i < ne; i++) {
    long long n[8], f[6];
    elem_nodes(nx, (long long)i, n);
    elem_faces(nx, (long long)i, f);
    for (int k = 0; k < 8; k++) m->elem_nodes[8 * i + (size_t)k] = (int)n[k];
    for (int k = 0; k < 6; k++) m->elem_faces[6 * i + (size_t)k] = (int)f[k];
    m->elem_bc[i] = elem_bc(nx, (long long)i);
    m->volo[i] = m->elem_mass[i] = elem_volume(nx, cx, (long long)i);
  }
#pragma omp parallel for schedule(static) num_threads(nt)
  for (size_t n = 0; n < nn; n++) m->nodal_mass[n] = node_mass(nx, cx, (long long)n, m->volo, 0, m->nelem, NULL, 0);
  /* symmetry-plane node lists (SetupSymmetryPlanes) */
  for (int i = 0, nidx = 0; i < en; i++)
    for (int j = 0; j < en; j++, nidx++) {
      m->symm[2][nidx] = i * en + j;           /* z = 0 */
      m->symm[1][nidx] = i * en * en + j;      /* y = 0 */
      m->symm[0][nidx] = i * en * en + j * en; /* x = 0 */
    }
  blast(nx, cx, &m->einit, &m->dt_init);
  free(cx);
  return 0;
}

/* ---- by blocks --------------------------------------------------------------------------------------------- */

void lulesh_block_free(lulesh_block *b) {
  if (!b) return;
  free(b->coord), free(b->nodal_mass), free(b->node_symm), free(b->node_ncorner), free(b->node_corners);
  free(b->elem_nodes), free(b->elem_faces), free(b->elem_bc), free(b->volo);
  free(b->elem_nodes32), free(b->elem_faces32);
  for (int d = 0; d < 3; d++) free(b->symm[d]);
  if (b->region_elems)
    for (int r = 0; r < b->nregions; r++) free(b->region_elems[r]);
  free(b->region_elems), free(b->region_rep), free(b->region_size), free(b->region_first), free(b->region_count);
  free(b->eos_elems), free(b->eos_rep);
  memset(b, 0, sizeof *b);
}

static void *alloc_rows(size_t n, size_t size) { return malloc((n ? n : 1) * size); }

/* The nodes' rows: coordinates, masses, symmetry bits and (forces: gather) their corners; after block_elems (the
 * masses take the block's element volumes from b->volo, and those of the elements below the block that its nodes
 * reach, at most a plane, a row and one more before its first element, from volumes computed once here). */
static int block_nodes(const lulesh_params *p, const double *cx, lulesh_block *b) {
  const size_t n = (size_t)b->node_count;
  const int gather = p->forces == LULESH_FORCES_GATHER, nx = b->nx, nt = p->threads > 1 ? p->threads : 1;
  (void)nt; /* unused in a build without OpenMP */
  const long long reach = (long long)nx * nx + nx + 1, below_first = b->elem_first > reach ? b->elem_first - reach : 0;
  const size_t nbelow = (size_t)(b->elem_first - below_first);
  double *below = alloc_rows(nbelow, sizeof(double));
  if (!below) return 1;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (size_t i = 0; i < nbelow; i++) below[i] = elem_volume(nx, cx, below_first + (long long)i);
  b->coord = alloc_rows(3 * n, sizeof(double));
  b->nodal_mass = alloc_rows(n, sizeof(double));
  b->node_symm = alloc_rows(n, sizeof(int));
  if (gather) b->node_ncorner = alloc_rows(n, sizeof(int)), b->node_corners = alloc_rows(8 * n, sizeof(long long));
  if (!b->coord || !b->nodal_mass || !b->node_symm || (gather && (!b->node_ncorner || !b->node_corners))) {
    free(below);
    return 1;
  }
#pragma omp parallel for schedule(static) num_threads(nt)
  for (size_t i = 0; i < n; i++) {
    const long long g = b->node_first + (long long)i;
    node_coord(nx, cx, g, b->coord + 3 * i);
    b->nodal_mass[i] = node_mass(nx, cx, g, b->volo, b->elem_first, b->elem_count, below, below_first);
    b->node_symm[i] = lulesh_node_symm_bits(nx, g);
    if (!gather) continue;
    long long e[8];
    int corner[8];
    const int k = node_elems(nx, g, e, corner);
    for (int j = 0; j < 8; j++) /* corner j of element e is j * nelem + e; padded with the first */
      b->node_corners[8 * i + (size_t)j] = (long long)corner[j < k ? j : 0] * b->nelem + e[j < k ? j : 0];
    b->node_ncorner[i] = k;
  }
  free(below);
  return 0;
}

/* The elements' rows and the symmetry planes' (one list each, in SetupSymmetryPlanes' order). */
static int block_elems(const lulesh_params *p, const double *cx, lulesh_block *b) {
  const size_t n = (size_t)b->elem_count, ns = (size_t)b->symm_count;
  const int nx = b->nx, nt = p->threads > 1 ? p->threads : 1;
  (void)nt; /* unused in a build without OpenMP */
  const long long en = nx + 1;
  const int narrow = !p->rows64 && b->nnode <= INT_MAX && b->nelem <= INT_MAX; /* 32-bit rows */
  if (narrow) {
    b->elem_nodes32 = alloc_rows(8 * n, sizeof(int));
    b->elem_faces32 = alloc_rows(6 * n, sizeof(int));
  } else {
    b->elem_nodes = alloc_rows(8 * n, sizeof(long long));
    b->elem_faces = alloc_rows(6 * n, sizeof(long long));
  }
  b->elem_bc = alloc_rows(n, sizeof(int));
  b->volo = alloc_rows(n, sizeof(double));
  for (int d = 0; d < 3; d++) b->symm[d] = alloc_rows(ns, sizeof(long long));
  if ((narrow ? !b->elem_nodes32 || !b->elem_faces32 : !b->elem_nodes || !b->elem_faces) || !b->elem_bc || !b->volo || !b->symm[0] || !b->symm[1] || !b->symm[2])
    return 1;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (size_t i = 0; i < n; i++) {
    const long long g = b->elem_first + (long long)i;
    if (narrow) {
      long long en[8], ef[6];
      elem_nodes(nx, g, en);
      elem_faces(nx, g, ef);
      for (int k = 0; k < 8; k++) b->elem_nodes32[8 * i + (size_t)k] = (int)en[k];
      for (int k = 0; k < 6; k++) b->elem_faces32[6 * i + (size_t)k] = (int)ef[k];
    } else {
      elem_nodes(nx, g, b->elem_nodes + 8 * i);
      elem_faces(nx, g, b->elem_faces + 6 * i);
    }
    b->elem_bc[i] = elem_bc(nx, g);
    b->volo[i] = elem_volume(nx, cx, g);
  }
  for (size_t k = 0; k < ns; k++) {
    const long long idx = b->symm_first + (long long)k, i = idx / en, j = idx % en;
    b->symm[2][k] = i * en + j;
    b->symm[1][k] = i * en * en + j;
    b->symm[0][k] = i * en * en + j * en;
  }
  return 0;
}

/* The elements of a run [start, end) of region `reg` that fall in this rank's block of that region's list
 * (*seen: the region's elements before the run), appended to its list. */
static void take_run(lulesh_block *b, int reg, int start, int end, long long *seen) {
  const long long lo = b->region_first[reg], hi = lo + b->region_count[reg];
  for (long long k = *seen > lo ? *seen : lo; k < *seen + (end - start) && k < hi; k++)
    b->region_elems[reg][k - lo] = start + (k - *seen);
  *seen += end - start;
}

/* params.eos: merged: eos_elems is every element ordered by its region's repetition count (descending), then by
 * number; this rank's block of that order. cls: each region's class (its count's rank, the costliest 0), off:
 * each class's first position (ncls + 1 entries). */
static void take_eos_run(lulesh_block *b, int cls, int start, int end, const long long *off, long long *seen,
                         int rep) {
  const long long lo = b->eos_first, hi = lo + b->eos_count;
  for (int i = start; i < end; i++) {
    const long long pos = off[cls] + seen[cls]++;
    if (pos >= lo && pos < hi) b->eos_elems[pos - lo] = i, b->eos_rep[pos - lo] = rep;
  }
}

/* How many of [a, b) lie in [c, d). */
static long long overlap(long long a, long long b, long long c, long long d) {
  const long long lo = a > c ? a : c, hi = b < d ? b : d;
  return hi > lo ? hi - lo : 0;
}

/* Each region's list: this rank's block of it is the part of it in this rank's block of the elements (the runs
 * walked once: the sizes, those parts and the runs that reach the block, whose rows are then taken); params.eos
 * merged: eos_elems' order (the runs walked a second time), this rank
 * the block partitioner's range of it. */
static int block_regions(const lulesh_params *p, lulesh_block *b, int rank, int nranks) {
  const int nr = p->regions;
  b->nregions = nr;
  b->region_rep = calloc((size_t)nr, sizeof(int));
  b->region_size = calloc((size_t)nr, sizeof(long long));
  b->region_first = calloc((size_t)nr, sizeof(long long));
  b->region_count = calloc((size_t)nr, sizeof(int));
  b->region_elems = calloc((size_t)nr, sizeof(long long *));
  long long *seen = calloc((size_t)nr + 1, sizeof(long long)), *off = calloc((size_t)nr + 1, sizeof(long long));
  int *cls = calloc((size_t)nr, sizeof(int));
  regions_walk w;
  int start, end, reg, rc = !b->region_rep || !b->region_size || !b->region_first || !b->region_count ||
                            !b->region_elems || !seen || !off || !cls || regions_walk_start(&w, p, (int)b->nelem);
  for (int r = 0; !rc && r < nr; r++) b->region_rep[r] = region_rep(p, r);
  const long long e0 = b->elem_first, e1 = e0 + b->elem_count;
  region_run *kept = NULL; /* regions: the runs that reach this block, each with its region's elements before it */
  int nkept = 0, capk = 0;
  while (!rc && regions_walk_next(&w, &start, &end, &reg)) { /* sizes; each region's elements before this block's */
    if (!p->eos_merged && overlap(start, end, e0, e1) > 0)
      rc = keep_run(&kept, &nkept, &capk, (region_run){start, end, reg, b->region_size[reg]});
    b->region_size[reg] += end - start;
    b->region_first[reg] += overlap(start, end, 0, e0);
    b->region_count[reg] += (int)overlap(start, end, e0, e1);
  }
  if (!rc) free(w.binend);
  for (int r = 0; !rc && r < nr; r++) { /* class: how many distinct counts exceed this region's */
    for (int q = 0; q < nr; q++) {
      int dup = 0;
      for (int t = 0; t < q; t++) dup |= b->region_rep[t] == b->region_rep[q];
      if (!dup && b->region_rep[q] > b->region_rep[r]) cls[r]++;
    }
    off[cls[r] + 1] += b->region_size[r];
  }
  for (int c = 0; !rc && c < nr; c++) off[c + 1] += off[c];
  if (!rc && p->eos_merged) {
    rc = um_block_range(b->nelem, rank, nranks, &b->eos_first, &b->eos_count) ||
         !(b->eos_elems = alloc_rows((size_t)b->eos_count, sizeof(long long))) ||
         !(b->eos_rep = alloc_rows((size_t)b->eos_count, sizeof(int)));
  }
  for (int r = 0; !rc && !p->eos_merged && r < nr; r++) /* the region's elements in this rank's element block */
    rc = !(b->region_elems[r] = alloc_rows((size_t)b->region_count[r], sizeof(long long)));
  for (int i = 0; !rc && i < nkept; i++) take_run(b, kept[i].region, kept[i].start, kept[i].end, &kept[i].before);
  if (!rc && p->eos_merged) { /* eos_elems' order runs over every element: the runs walked again */
    rc = regions_walk_start(&w, p, (int)b->nelem);
    while (!rc && regions_walk_next(&w, &start, &end, &reg))
      take_eos_run(b, cls[reg], start, end, off, seen, b->region_rep[reg]);
    if (!rc) free(w.binend);
  }
  free(seen), free(off), free(cls), free(kept);
  return rc;
}

/* How many elements have their first corner (the node of the least x, y and z) before node n (x fastest). */
static long long elems_before(int nx, long long n) {
  const long long x = nx, en = x + 1, i = n % en, j = n / en % en, k = n / (en * en);
  if (k >= x) return x * x * x;
  return k * x * x + (j >= x ? x * x : j * x + (i < x ? i : x));
}

void lulesh_halo_free(lulesh_halo *h) {
  if (!h) return;
  free(h->exec), free(h->exec_nodes), free(h->exec_faces), free(h->nonexec_elems), free(h->nonexec_nodes);
  memset(h, 0, sizeof *h);
}

/* Marks of [lo, lo + n) (a byte each) as an ascending list appended to out at *k. */
static void marked(const unsigned char *mark, long long lo, long long n, long long *out, int *k) {
  for (long long i = 0; i < n; i++)
    if (mark[i]) out[(*k)++] = lo + i;
}

int lulesh_block_halo(const lulesh_block *b, lulesh_halo *h) {
  memset(h, 0, sizeof *h);
  const int nx = b->nx;
  const long long en = nx + 1, reach = en * en + en + 1, nxx = (long long)nx * nx; /* a node's farthest corner */
  const long long n0 = b->node_first, n1 = n0 + b->node_count, e0 = b->elem_first, e1 = e0 + b->elem_count;
  /* exec: an element with a node in [n0, n1) has its first corner at most `reach` below n0 (and none above n1) */
  const long long c0 = elems_before(nx, n0 > reach ? n0 - reach : 0);
  const size_t cand = (size_t)(e0 - c0);
  /* the targets outside: nodes in [nlo, n0) (the exec rows') and [n1, n1 + reach) (the owned and exec rows'),
   * elements in [flo, e0) (the exec rows' faces and the owned first plane's) and [e1, e1 + nxx) (the last's) */
  const long long nlo = n0 > reach ? n0 - reach : 0, flo = c0 > nxx ? c0 - nxx : 0;
  unsigned char *mn = calloc((size_t)(n0 - nlo + reach), 1), *me = calloc((size_t)(e0 - flo + nxx), 1);
  h->exec = malloc((cand ? cand : 1) * sizeof *h->exec);
  h->exec_nodes = malloc((cand ? cand : 1) * 8 * sizeof *h->exec_nodes);
  h->exec_faces = malloc((cand ? cand : 1) * 6 * sizeof *h->exec_faces);
  if (!mn || !me || !h->exec || !h->exec_nodes || !h->exec_faces) {
    free(mn), free(me);
    lulesh_halo_free(h);
    return 1;
  }
  unsigned char *mnhi = mn + (n0 - nlo), *mehi = me + (e0 - flo); /* the marks past the block */
#define MARK_NODE(v) ((v) < n0 ? (void)(mn[(v)-nlo] = 1) : (v) >= n1 ? (void)(mnhi[(v)-n1] = 1) : (void)0)
#define MARK_ELEM(f) ((f) < e0 ? (void)(me[(f)-flo] = 1) : (f) >= e1 ? (void)(mehi[(f)-e1] = 1) : (void)0)
  int ne = 0;
  for (long long e = c0; e < e0; e++) {
    long long *v = h->exec_nodes + 8 * (size_t)ne;
    elem_nodes(nx, e, v);
    int in = 0;
    for (int k = 0; k < 8; k++) in |= v[k] >= n0 && v[k] < n1;
    if (!in) continue;
    long long *f = h->exec_faces + 6 * (size_t)ne;
    elem_faces(nx, e, f);
    for (int k = 0; k < 8; k++) MARK_NODE(v[k]);
    for (int k = 0; k < 6; k++) MARK_ELEM(f[k]);
    h->exec[ne++] = e;
  }
  h->nexec = ne;
  /* the owned rows that reach past the block: a plane of faces at each end, the nodes of the last `reach` */
  const long long lo_end = e0 + nxx < e1 ? e0 + nxx : e1, hi_start = e1 - nxx > lo_end ? e1 - nxx : lo_end;
  for (long long e = e0; e < e1; e = e + 1 == lo_end ? hi_start : e + 1) {
    long long f[6];
    elem_faces(nx, e, f);
    for (int k = 0; k < 6; k++) MARK_ELEM(f[k]);
  }
  const long long nlast = elems_before(nx, n1 > reach ? n1 - reach : 0);
  for (long long e = nlast > e0 ? nlast : e0; e < e1; e++) {
    long long v[8];
    elem_nodes(nx, e, v);
    for (int k = 0; k < 8; k++) MARK_NODE(v[k]);
  }
#undef MARK_NODE
#undef MARK_ELEM
  for (int i = 0; i < ne; i++) me[h->exec[i] - flo] = 0; /* exec, not non-exec */
  int kn = 0, ke = 0;
  for (long long i = 0; i < n0 - nlo + reach; i++) kn += mn[i];
  for (long long i = 0; i < e0 - flo + nxx; i++) ke += me[i];
  h->nonexec_nodes = malloc((size_t)(kn ? kn : 1) * sizeof *h->nonexec_nodes);
  h->nonexec_elems = malloc((size_t)(ke ? ke : 1) * sizeof *h->nonexec_elems);
  if (h->nonexec_nodes && h->nonexec_elems) {
    kn = ke = 0;
    marked(mn, nlo, n0 - nlo, h->nonexec_nodes, &kn), marked(mnhi, n1, reach, h->nonexec_nodes, &kn);
    marked(me, flo, e0 - flo, h->nonexec_elems, &ke), marked(mehi, e1, nxx, h->nonexec_elems, &ke);
    h->nnonexec_nodes = kn, h->nnonexec_elems = ke;
  }
  free(mn), free(me);
  if (!h->nonexec_nodes || !h->nonexec_elems) {
    lulesh_halo_free(h);
    return 1;
  }
  return 0;
}

int lulesh_block_build(const lulesh_params *p, int rank, int nranks, lulesh_block *b, char *err, size_t errlen) {
  memset(b, 0, sizeof *b);
  const int bad = check_params(p, err, errlen);
  if (bad) return bad;
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return um_format_error(err, errlen, UM_ERR_ARG, "lulesh_block_build: rank %d of %d ranks", rank, nranks);
  const int nx = p->size;
  b->nx = nx;
  b->nelem = (long long)nx * nx * nx;
  b->nnode = (long long)(nx + 1) * (nx + 1) * (nx + 1);
  b->nsymm = (long long)(nx + 1) * (nx + 1);
  int rc = um_block_range(b->nnode, rank, nranks, &b->node_first, &b->node_count) ||
           um_block_range(b->nsymm, rank, nranks, &b->symm_first, &b->symm_count);
  /* the elements whose first corner is in this rank's nodes: each rank's elements reach its nodes and the next
   * plane's (the block partitioner's owners for the elements, which a map to the nodes places) */
  const long long e0 = elems_before(nx, b->node_first), e1 = elems_before(nx, b->node_first + b->node_count);
  b->elem_first = e0;
  b->elem_count = (int)(e1 - e0);
  rc = rc || e1 - e0 > INT_MAX;
  if (!rc && p->forces == LULESH_FORCES_GATHER)
    rc = um_block_range(8 * b->nelem, rank, nranks, &b->corner_first, &b->corner_count);
  if (rc) return um_format_error(err, errlen, UM_ERR_CONFIG, "params.size = %d: a block does not fit an int", nx);
  double *cx = axis_coords(nx);
  if (!cx || block_elems(p, cx, b) || block_nodes(p, cx, b) || block_regions(p, b, rank, nranks)) {
    free(cx);
    lulesh_block_free(b);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory building this rank's block of the LULESH mesh "
                           "of size %d", nx);
  }
  blast(nx, cx, &b->einit, &b->dt_init);
  free(cx);
  return 0;
}
