/* miniAero's mesh: a structured box of hex8 cells (the ramp problem bends the
 * upper half of it), stored as unstructured sets and maps, numbered as upstream
 * numbers it on one rank so that results compare cell by cell.
 *
 * Boundary faces are grouped as upstream groups them: bottom (y = 0), top,
 * front (z = 0), back, right (x = lx), left (x = 0), each group in face
 * creation order, and each group given a kind by the problem:
 *   bottom  no-slip (flat plate) | tangent       top    extrapolate (flat plate) | tangent
 *   front   tangent                              back   tangent
 *   right   extrapolate                          left   extrapolate (Sod) | inflow
 * A kind's face set holds its groups in that order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "miniaero.h"
#include "um/um.h"

/* Upstream's ramp uses this value of pi, and its Gauss points these digits. */
#define MA_RAMP_PI 3.14159265
#define MA_GAUSS 0.577350269189626

/* the nodes of a hex8 (i, j, k offsets) and the nodes of its six local faces */
static const int hex_node[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                   {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
static const int face_node[6][4] = {{0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}, {0, 3, 2, 1}, {4, 5, 6, 7}};
/* the cell across each local face (di, dj, dk) and that cell's local number for the face */
static const int face_step[6][3] = {{0, -1, 0}, {1, 0, 0}, {0, 1, 0}, {-1, 0, 0}, {0, 0, -1}, {0, 0, 1}};
static const int face_opposite[6] = {2, 3, 0, 1, 5, 4};

/* boundary groups in upstream's order, with the local face that lies on each */
enum { G_BOTTOM, G_TOP, G_FRONT, G_BACK, G_RIGHT, G_LEFT, NGROUPS };
static const int group_face[NGROUPS] = {0, 2, 4, 5, 1, 3};

static int group_kind(int problem, int g) {
  switch (g) {
    case G_BOTTOM: return problem == MA_FLAT_PLATE ? MA_BC_NOSLIP : MA_BC_TANGENT;
    case G_TOP: return problem == MA_FLAT_PLATE ? MA_BC_EXTRAPOLATE : MA_BC_TANGENT;
    case G_FRONT:
    case G_BACK: return MA_BC_TANGENT;
    case G_RIGHT: return MA_BC_EXTRAPOLATE;
    default: return problem == MA_SOD ? MA_BC_EXTRAPOLATE : MA_BC_INFLOW;
  }
}

void ma_node_position(const ma_inputs *in, int i, int j, int k, double *x) {
  x[0] = (double)i / in->nx * in->lx;
  x[2] = (double)k / in->nz * in->lz;
  if (x[0] < in->lx / 2.0) {
    x[1] = (double)j / in->ny * in->ly;
  } else {
    const double rise = (x[0] - in->lx / 2.0) * tan(in->angle * MA_RAMP_PI / 180.0);
    x[1] = rise + (double)j * (in->ly - rise) / in->ny;
  }
}

static void cell_nodes(const ma_inputs *in, int i, int j, int k, double x[8][3]) {
  for (int n = 0; n < 8; n++) ma_node_position(in, i + hex_node[n][0], j + hex_node[n][1], k + hex_node[n][2], x[n]);
}

/* Volume: det J summed over the 2x2x2 Gauss points (unit weights). */
static double hex_volume(double x[8][3]) {
  static const double s[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                 {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
  double vol = 0.0;
  for (int g = 0; g < 8; g++) {
    const double xi = s[g][0] * MA_GAUSS, eta = s[g][1] * MA_GAUSS, zeta = s[g][2] * MA_GAUSS;
    double J[3][3] = {{0}};
    for (int n = 0; n < 8; n++) {
      const double dn[3] = {0.125 * s[n][0] * (1.0 + s[n][1] * eta) * (1.0 + s[n][2] * zeta),
                            0.125 * s[n][1] * (1.0 + s[n][0] * xi) * (1.0 + s[n][2] * zeta),
                            0.125 * s[n][2] * (1.0 + s[n][0] * xi) * (1.0 + s[n][1] * eta)};
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) J[r][c] += dn[r] * x[n][c];
    }
    vol += J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) + J[0][1] * (J[1][2] * J[2][0] - J[1][0] * J[2][2]) +
           J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
  }
  return vol;
}

/* A cell's nodes, centre (mean of the 8 nodes) and volume: the whole mesh's and a block's, from the same code. */
static void cell_geometry(const ma_inputs *in, int i, int j, int k, double x[8][3], double *centre, double *volume) {
  cell_nodes(in, i, j, k, x);
  double sum[3] = {0, 0, 0};
  for (int v = 0; v < 8; v++)
    for (int d = 0; d < 3; d++) sum[d] += x[v][d];
  for (int d = 0; d < 3; d++) centre[d] = sum[d] / 8;
  *volume = hex_volume(x);
}

/* A face's centre (mean of its nodes) and area vector (mean of the cross
 * products of the two triangles' edge pairs from node 0), in the creating
 * cell's node order. */
static void face_geometry(double x[8][3], int f, double *centre, double *area) {
  const double *p[4];
  for (int n = 0; n < 4; n++) p[n] = x[face_node[f][n]];
  for (int d = 0; d < 3; d++) centre[d] = 0.0;
  for (int n = 0; n < 4; n++)
    for (int d = 0; d < 3; d++) centre[d] += p[n][d];
  for (int d = 0; d < 3; d++) centre[d] *= 1.0 / 4;
  double e[3][3];
  for (int n = 0; n < 3; n++)
    for (int d = 0; d < 3; d++) e[n][d] = p[n + 1][d] - p[0][d];
  double c1[3], c2[3];
  c1[0] = e[0][1] * e[1][2] - e[1][1] * e[0][2];
  c1[1] = -e[0][0] * e[1][2] + e[1][0] * e[0][2];
  c1[2] = e[0][0] * e[1][1] - e[1][0] * e[0][1];
  c2[0] = e[1][1] * e[2][2] - e[2][1] * e[1][2];
  c2[1] = -e[1][0] * e[2][2] + e[2][0] * e[1][2];
  c2[2] = e[1][0] * e[2][1] - e[2][0] * e[1][1];
  for (int d = 0; d < 3; d++) area[d] = 0.5 * (c1[d] + c2[d]);
}

static int faces_alloc(ma_faces *f, int n, int arity) {
  f->n = n;
  const size_t m = (size_t)(n ? n : 1);
  f->cell = malloc(sizeof(int) * m * (size_t)arity);
  f->slot = malloc(sizeof(int) * m * (size_t)arity);
  f->area = malloc(sizeof(double) * m * 3);
  f->centre = malloc(sizeof(double) * m * 3);
  return f->cell && f->slot && f->area && f->centre ? UM_SUCCESS : UM_ERR_ALLOC;
}

static void faces_free(ma_faces *f) {
  free(f->cell);
  free(f->slot);
  free(f->area);
  free(f->centre);
  memset(f, 0, sizeof *f);
}

void ma_mesh_free(ma_mesh *m) {
  if (!m) return;
  free(m->centre);
  free(m->volume);
  free(m->neighbour);
  free(m->face_centre);
  free(m->face_area);
  faces_free(&m->interior);
  for (int b = 0; b < MA_NBC; b++) faces_free(&m->bc[b]);
  memset(m, 0, sizeof *m);
}

static int folded(const ma_inputs *in, long long c, double v, char *err, size_t errlen) {
  const long long ny = in->ny, nz = in->nz;
  return um_format_error(err, errlen, UM_ERR_CONFIG,
                         "cell %lld (i %lld, j %lld, k %lld) has volume %g: the ramp angle %g degrees folds the mesh "
                         "(the ramp must stay below the top, ly = %g)",
                         c, c / (ny * nz), c / nz % ny, c % nz, v, in->angle, in->ly);
}

/* Is local face f of cell (i,j,k) created by this cell (no earlier cell has it)? */
static int creates(int f, int i, int j, int k) {
  return (f == 0 && j == 0) || f == 1 || f == 2 || (f == 3 && i == 0) || (f == 4 && k == 0) || f == 5;
}

/* Where plane i's faces go: its first interior face and, per boundary group, its first face in the group. */
typedef struct {
  int nface, group_fill[NGROUPS];
} plane_at;

/* The cells of plane i (cell numbers (i * ny + j) * nz + k), in the serial order: with fill 0 only the faces each
 * creates counted into *at; with fill 1 the cells and faces written, numbered from *at on. */
static void build_plane(const ma_inputs *in, ma_mesh *m, int i, int fill, const int group_start[NGROUPS],
                        plane_at *at_) {
  const int nx = in->nx, ny = in->ny, nz = in->nz;
  for (int j = 0; j < ny; j++)
    for (int k = 0; k < nz; k++) {
      const int c = (i * ny + j) * nz + k;
      double x[8][3];
      if (fill) cell_geometry(in, i, j, k, x, m->centre + 3 * (size_t)c, &m->volume[c]);
      for (int f = 0; f < 6; f++) {
        const int a = i + face_step[f][0], b = j + face_step[f][1], e = k + face_step[f][2];
        const int inside = a >= 0 && a < nx && b >= 0 && b < ny && e >= 0 && e < nz;
        const int other = inside ? (a * ny + b) * nz + e : c;
        if (fill) m->neighbour[6 * (size_t)c + f] = other;
        if (!creates(f, i, j, k)) continue;
        int g = 0;
        while (!inside && group_face[g] != f) g++;
        const int at = inside ? at_->nface++ : group_start[g] + at_->group_fill[g]++;
        if (!fill) continue;
        double centre[3], area[3];
        face_geometry(x, f, centre, area);
        ma_faces *F = inside ? &m->interior : &m->bc[group_kind(in->problem, g)];
        if (inside) {
          F->cell[2 * (size_t)at] = c;
          F->cell[2 * (size_t)at + 1] = other;
          F->slot[2 * (size_t)at] = 6 * c + f;
          F->slot[2 * (size_t)at + 1] = 6 * other + face_opposite[f];
        } else {
          F->cell[at] = c;
          F->slot[at] = 6 * c + f;
        }
        memcpy(F->area + 3 * (size_t)at, area, sizeof area);
        memcpy(F->centre + 3 * (size_t)at, centre, sizeof centre);
      }
    }
}

/* The cells and faces by planes of i over nthreads threads: each plane's faces counted, their first numbers the
 * counts of the planes before it (the serial loop's numbering), then each plane filled alone. */
static int build_planes(const ma_inputs *in, ma_mesh *m, const int group_start[NGROUPS], int nthreads) {
  (void)nthreads; /* unused in a build without OpenMP */
  const int nx = in->nx;
  plane_at *at = calloc((size_t)nx, sizeof *at);
  if (!at) return UM_ERR_ALLOC;
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (int i = 0; i < nx; i++) build_plane(in, m, i, 0, group_start, &at[i]);
  plane_at sum = {0, {0}};
  for (int i = 0; i < nx; i++) {
    const plane_at here = at[i];
    at[i] = sum;
    sum.nface += here.nface;
    for (int g = 0; g < NGROUPS; g++) sum.group_fill[g] += here.group_fill[g];
  }
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (int i = 0; i < nx; i++) build_plane(in, m, i, 1, group_start, &at[i]);
  free(at);
  return UM_SUCCESS;
}

/* Each cell's face centres and outward area vectors, from the faces (computed once, by their creators; the right
 * cell sees the area vector negated): each slot written by one face. */
static void cell_faces(ma_mesh *m, int nthreads) {
  (void)nthreads; /* unused in a build without OpenMP */
  const int nint = m->interior.n;
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (int f = 0; f < nint; f++)
    for (int side = 0; side < 2; side++) {
      const size_t s = (size_t)m->interior.slot[2 * (size_t)f + side];
      memcpy(m->face_centre + 3 * s, m->interior.centre + 3 * (size_t)f, 3 * sizeof(double));
      for (int d = 0; d < 3; d++)
        m->face_area[3 * s + d] = side ? -m->interior.area[3 * (size_t)f + d] : m->interior.area[3 * (size_t)f + d];
    }
  for (int b = 0; b < MA_NBC; b++)
    for (int f = 0; f < m->bc[b].n; f++) {
      const size_t s = (size_t)m->bc[b].slot[f];
      memcpy(m->face_centre + 3 * s, m->bc[b].centre + 3 * (size_t)f, 3 * sizeof(double));
      memcpy(m->face_area + 3 * s, m->bc[b].area + 3 * (size_t)f, 3 * sizeof(double));
    }
}

int ma_mesh_build(const ma_inputs *in, ma_mesh *m, char *err, size_t errlen) {
  return ma_mesh_build_threads(in, 1, m, err, errlen);
}

int ma_mesh_build_threads(const ma_inputs *in, int nthreads, ma_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  const int checked = ma_inputs_check(in, "mesh", err, errlen);
  if (checked) return checked;
  const int nx = in->nx, ny = in->ny, nz = in->nz;
  const long long nc = (long long)nx * ny * nz;
  m->nx = nx, m->ny = ny, m->nz = nz, m->ncells = (int)nc;
  const size_t n = (size_t)nc;
  const long long nint = (long long)(nx - 1) * ny * nz + (long long)nx * (ny - 1) * nz + (long long)nx * ny * (nz - 1);
  const int ngroup[NGROUPS] = {nx * nz, nx * nz, nx * ny, nx * ny, ny * nz, ny * nz};
  int nbc[MA_NBC] = {0};
  for (int g = 0; g < NGROUPS; g++) nbc[group_kind(in->problem, g)] += ngroup[g];
  m->centre = malloc(sizeof(double) * n * 3);
  m->volume = malloc(sizeof(double) * n);
  m->neighbour = malloc(sizeof(int) * n * 6);
  m->face_centre = malloc(sizeof(double) * n * 18);
  m->face_area = malloc(sizeof(double) * n * 18);
  int rc = m->centre && m->volume && m->neighbour && m->face_centre && m->face_area ? UM_SUCCESS : UM_ERR_ALLOC;
  if (!rc) rc = faces_alloc(&m->interior, (int)nint, 2);
  for (int b = 0; b < MA_NBC && !rc; b++) rc = faces_alloc(&m->bc[b], nbc[b], 1);
  /* where each boundary group starts within its kind's set */
  int group_start[NGROUPS], fill[MA_NBC] = {0};
  for (int g = 0; g < NGROUPS; g++) {
    const int b = group_kind(in->problem, g);
    group_start[g] = fill[b];
    fill[b] += ngroup[g];
  }
  if (!rc) rc = build_planes(in, m, group_start, nthreads > 0 ? nthreads : 1);
  if (rc) {
    ma_mesh_free(m);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory building a mesh of %lld cells", nc);
  }
  cell_faces(m, nthreads > 0 ? nthreads : 1);
  for (size_t c = 0; c < n; c++)
    if (!(m->volume[c] > 0.0)) {
      const double v = m->volume[c];
      ma_mesh_free(m);
      return folded(in, (long long)c, v, err, errlen);
    }
  return UM_SUCCESS;
}

/* ---- the mesh by blocks --------------------------------------------------------------------------------------- */

/* The boundary groups' sizes (upstream's order) and where each starts within its kind's set. */
static void group_layout(const ma_inputs *in, long long ngroup[NGROUPS], long long start[NGROUPS],
                         long long nbc[MA_NBC]) {
  const long long nx = in->nx, ny = in->ny, nz = in->nz;
  const long long n[NGROUPS] = {nx * nz, nx * nz, nx * ny, nx * ny, ny * nz, ny * nz};
  for (int b = 0; b < MA_NBC; b++) nbc[b] = 0;
  for (int g = 0; g < NGROUPS; g++) {
    const int b = group_kind(in->problem, g);
    ngroup[g] = n[g];
    start[g] = nbc[b];
    nbc[b] += n[g];
  }
}

int ma_mesh_counts(const ma_inputs *in, long long gsize[MA_NSETS], char *err, size_t errlen) {
  const int checked = ma_inputs_check(in, "mesh", err, errlen);
  if (checked) return checked;
  const long long nx = in->nx, ny = in->ny, nz = in->nz;
  long long ngroup[NGROUPS], start[NGROUPS];
  gsize[MA_SET_CELLS] = nx * ny * nz;
  gsize[MA_SET_FACES] = (nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1);
  group_layout(in, ngroup, start, gsize + MA_SET_BC);
  return UM_SUCCESS;
}

/* The interior faces the cells before cell (i, j, k) create: +x faces of cells with i < nx-1, +y of j < ny-1,
 * +z of k < nz-1 (each cell creates its interior faces in that order: local faces 1, 2, 5). */
static long long interior_before(const ma_inputs *in, long long c) {
  const long long nx = in->nx, ny = in->ny, nz = in->nz;
  const long long i = c / (ny * nz), j = c / nz % ny, k = c % nz;
  const long long xs = c < (nx - 1) * ny * nz ? c : (nx - 1) * ny * nz;
  const long long ys = i * (ny - 1) * nz + (j < ny - 1 ? j * nz + k : (ny - 1) * nz);
  const long long zs = (i * ny + j) * (nz - 1) + k;
  return xs + ys + zs;
}

void ma_block_free(ma_block *b) {
  if (!b) return;
  free(b->centre);
  free(b->volume);
  free(b->neighbour);
  free(b->face_centre);
  free(b->face_area);
  for (int s = 0; s < MA_NSETS - 1; s++) {
    free(b->faces[s].cell);
    free(b->faces[s].slot);
    free(b->faces[s].area);
    free(b->faces[s].centre);
  }
  memset(b, 0, sizeof *b);
}

static int block_alloc(ma_block *b) {
  const size_t n = (size_t)b->count[MA_SET_CELLS] + 1;
  b->centre = malloc(sizeof(double) * 3 * n);
  b->volume = malloc(sizeof(double) * n);
  b->neighbour = malloc(sizeof(long long) * 6 * n);
  b->face_centre = malloc(sizeof(double) * 18 * n);
  b->face_area = malloc(sizeof(double) * 18 * n);
  int ok = b->centre && b->volume && b->neighbour && b->face_centre && b->face_area;
  for (int s = 0; s < MA_NSETS - 1 && ok; s++) {
    ma_block_faces *f = &b->faces[s];
    const size_t m = (size_t)b->count[1 + s] + 1, arity = s ? 1 : 2;
    f->n = b->count[1 + s];
    f->cell = malloc(sizeof(long long) * arity * m);
    f->slot = malloc(sizeof(long long) * arity * m);
    f->area = malloc(sizeof(double) * 3 * m);
    f->centre = malloc(sizeof(double) * 3 * m);
    ok = f->cell && f->slot && f->area && f->centre;
  }
  return ok ? UM_SUCCESS : UM_ERR_ALLOC;
}

/* The block's cells: centre, volume, neighbours, and each local face's centre and outward area vector, from the
 * cell that created the face (itself, or the neighbour across it: that one's area vector negated). */
static int block_cells(const ma_inputs *in, ma_block *b, char *err, size_t errlen) {
  const long long nx = in->nx, ny = in->ny, nz = in->nz;
  for (int lc = 0; lc < b->count[MA_SET_CELLS]; lc++) {
    const long long c = b->first[MA_SET_CELLS] + lc;
    const int i = (int)(c / (ny * nz)), j = (int)(c / nz % ny), k = (int)(c % nz);
    double x[8][3];
    cell_geometry(in, i, j, k, x, b->centre + 3 * (size_t)lc, &b->volume[lc]);
    if (!(b->volume[lc] > 0.0)) return folded(in, c, b->volume[lc], err, errlen);
    for (int f = 0; f < 6; f++) {
      const int a = i + face_step[f][0], bb = j + face_step[f][1], e = k + face_step[f][2];
      const int inside = a >= 0 && a < nx && bb >= 0 && bb < ny && e >= 0 && e < nz;
      b->neighbour[6 * (size_t)lc + f] = inside ? ((long long)a * ny + bb) * nz + e : c;
      double *fc = b->face_centre + 18 * (size_t)lc + 3 * f, *fa = b->face_area + 18 * (size_t)lc + 3 * f;
      if (creates(f, i, j, k)) {
        face_geometry(x, f, fc, fa);
      } else { /* an interior face its neighbour created */
        double y[8][3];
        cell_nodes(in, a, bb, e, y);
        face_geometry(y, face_opposite[f], fc, fa);
        for (int d = 0; d < 3; d++) fa[d] = -fa[d];
      }
    }
  }
  return UM_SUCCESS;
}

/* The block's interior faces: from the cell that creates its first one, in creation order. */
static void block_interior(const ma_inputs *in, ma_block *b) {
  const long long ny = in->ny, nz = in->nz, nc = b->gsize[MA_SET_CELLS], f0 = b->first[MA_SET_FACES];
  ma_block_faces *F = &b->faces[0];
  if (!F->n) return;
  long long lo = 0, hi = nc - 1; /* the last cell with interior_before(c) <= f0 */
  while (lo < hi) {
    const long long mid = lo + (hi - lo + 1) / 2;
    if (interior_before(in, mid) <= f0) lo = mid;
    else hi = mid - 1;
  }
  long long skip = f0 - interior_before(in, lo);
  int at = 0;
  for (long long c = lo; c < nc && at < F->n; c++) {
    const int i = (int)(c / (ny * nz)), j = (int)(c / nz % ny), k = (int)(c % nz);
    double x[8][3];
    cell_nodes(in, i, j, k, x);
    for (int f = 0; f < 6 && at < F->n; f++) {
      const int a = i + face_step[f][0], bb = j + face_step[f][1], e = k + face_step[f][2];
      const int inside = a >= 0 && a < in->nx && bb >= 0 && bb < ny && e >= 0 && e < nz;
      if (!inside || !creates(f, i, j, k)) continue;
      if (skip > 0) {
        skip--;
        continue;
      }
      const long long other = ((long long)a * ny + bb) * nz + e;
      F->cell[2 * (size_t)at] = c, F->cell[2 * (size_t)at + 1] = other;
      F->slot[2 * (size_t)at] = 6 * c + f, F->slot[2 * (size_t)at + 1] = 6 * other + face_opposite[f];
      face_geometry(x, f, F->centre + 3 * (size_t)at, F->area + 3 * (size_t)at);
      at++;
    }
  }
}

/* The block's boundary faces of kind kind: each row's group (upstream's order) and cell within it. */
static void block_boundary(const ma_inputs *in, ma_block *b, int kind) {
  const long long nx = in->nx, ny = in->ny, nz = in->nz;
  long long ngroup[NGROUPS], start[NGROUPS], nbc[MA_NBC];
  group_layout(in, ngroup, start, nbc);
  ma_block_faces *F = &b->faces[1 + kind];
  for (int at = 0; at < F->n; at++) {
    const long long o = b->first[MA_SET_BC + kind] + at;
    int g = 0;
    while (group_kind(in->problem, g) != kind || o < start[g] || o >= start[g] + ngroup[g]) g++;
    const long long w = o - start[g];
    long long i, j, k;
    switch (g) {
    case G_BOTTOM: case G_TOP: i = w / nz, j = g == G_BOTTOM ? 0 : ny - 1, k = w % nz; break;
    case G_FRONT: case G_BACK: i = w / ny, j = w % ny, k = g == G_FRONT ? 0 : nz - 1; break;
    default: i = g == G_LEFT ? 0 : nx - 1, j = w / nz, k = w % nz; break;
    }
    const long long c = (i * ny + j) * nz + k;
    double x[8][3];
    cell_nodes(in, (int)i, (int)j, (int)k, x);
    F->cell[at] = c;
    F->slot[at] = 6 * c + group_face[g];
    face_geometry(x, group_face[g], F->centre + 3 * (size_t)at, F->area + 3 * (size_t)at);
  }
}

int ma_block_build(const ma_inputs *in, const long long first[MA_NSETS], const long long count[MA_NSETS], ma_block *b,
                   char *err, size_t errlen) {
  memset(b, 0, sizeof *b);
  const int checked = ma_mesh_counts(in, b->gsize, err, errlen);
  if (checked) return checked;
  static const char *const names[MA_NSETS] = {"cells", "faces", "bc_extrapolate", "bc_tangent", "bc_inflow",
                                              "bc_noslip"};
  for (int s = 0; s < MA_NSETS; s++) {
    if (first[s] < 0 || count[s] < 0 || count[s] > 2147483647LL || first[s] + count[s] > b->gsize[s])
      return um_format_error(err, errlen, UM_ERR_ARG, "the block [%lld, %lld) of %s is not in [0, %lld)", first[s],
                             first[s] + count[s], names[s], b->gsize[s]);
    b->first[s] = first[s];
    b->count[s] = (int)count[s];
  }
  if (block_alloc(b)) {
    ma_block_free(b);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory for a block of %lld cells", count[0]);
  }
  const int rc = block_cells(in, b, err, errlen);
  if (rc) {
    ma_block_free(b);
    return rc;
  }
  block_interior(in, b);
  for (int k = 0; k < MA_NBC; k++) block_boundary(in, b, k);
  return UM_SUCCESS;
}
