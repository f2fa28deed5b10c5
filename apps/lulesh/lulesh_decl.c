/* LULESH on um: the mesh and the state declared on a context -- the whole mesh (lulesh_mesh_build's, every rank
 * the same) or this rank's block of it (lulesh_block_build's: um_decl_set_block, no rank holds the whole mesh). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lulesh_internal.h"
#include "um/app.h"
#include "um/distributed.h"

/* The state's dats, from this rank's rows (the whole mesh's or a block's), made by the caller with malloc and handed
 * over (each pointer NULL once taken; elem_mass may be volo's array, which is then copied for volo). */
typedef struct {
  int nnode, nelem; /* rows */
  double **coord, **nodal_mass, **volo, **elem_mass;
  int **node_symm, **elem_bc;
  int origin; /* the first row is global element 0, where the blast's energy goes */
  double einit;
} fields;

/* Dat `name` (dim values of type a row) from *rows, handed over (*rows NULL): the context keeps the buffer unless
 * the dat needs a copy (dim > 1 in a layout other than AoS: copied and transposed, then freed here). */
static int take_rows(um_context *ctx, um_set *set, int dim, um_type type, void **rows, const char *name,
                     um_dat **out) {
  void *r = *rows;
  *rows = NULL;
  const um_layout layout = um_context_options(ctx)->layout;
  if (dim == 1 || layout == UM_AOS) /* one value a row: any layout's storage */
    return um_decl_dat_take(ctx, set, dim, type, r, dim == 1 ? layout : UM_AOS, name, out);
  const int rc = um_decl_dat(ctx, set, dim, type, r, name, out);
  free(r);
  return rc;
}

/* e (zeros but the blast's element) and v (ones) for n elements, handed over. */
static int decl_e_v(um_context *ctx, lulesh_state *s, size_t n, int origin, double einit) {
  double *e = calloc(n ? n : 1, sizeof *e), *v = malloc(sizeof *v * (n ? n : 1));
  if (!e || !v) {
    free(e), free(v);
    return UM_ERR_ALLOC;
  }
  if (origin && n) e[0] = einit; /* the blast, in global element 0 */
  for (size_t i = 0; i < n; i++) v[i] = 1.0; /* v starts at 1, not 0 */
  int rc = take_rows(ctx, s->elems, 1, UM_DOUBLE, (void **)&e, "e", &s->e);
  if (!rc) rc = take_rows(ctx, s->elems, 1, UM_DOUBLE, (void **)&v, "v", &s->v);
  free(v); /* NULL once taken */
  return rc;
}

static int decl_fields(um_context *ctx, lulesh_state *s, const fields *m) {
  /* nodes */
  UM_APP_TRY(take_rows(ctx, s->nodes, 3, UM_DOUBLE, (void **)m->coord, "coord", &s->coord));
  UM_APP_TRY(um_decl_dat(ctx, s->nodes, 3, UM_DOUBLE, NULL, "vel", &s->vel));
  if (!s->p.fused) UM_APP_TRY(um_decl_dat(ctx, s->nodes, 3, UM_DOUBLE, NULL, "acc", &s->acc)); /* fused: never stored */
  UM_APP_TRY(um_decl_dat(ctx, s->nodes, 3, UM_DOUBLE, NULL, "force", &s->force));
  UM_APP_TRY(take_rows(ctx, s->nodes, 1, UM_DOUBLE, (void **)m->nodal_mass, "nodal_mass", &s->nodal_mass));
  if (s->p.fused) /* the planes as bits read by nodal_update: no launch of its own for each plane */
    UM_APP_TRY(take_rows(ctx, s->nodes, 1, UM_INT, (void **)m->node_symm, "node_symm", &s->node_symm));
  /* elements */
  UM_APP_TRY(decl_e_v(ctx, s, (size_t)m->nelem, m->origin, m->einit));
  const struct {
    const char *name;
    int dim;
    double **rows; /* NULL: zeros */
    um_dat **dat;
  } elem_dats[] = {{"p", 1, NULL, &s->p_},
                   {"q", 1, NULL, &s->q},
                   {"ql", 1, NULL, &s->ql},
                   {"qq", 1, NULL, &s->qq},
                   {"volo", 1, m->volo, &s->volo},
                   {"vnew", 1, NULL, &s->vnew},
                   {"delv", 1, NULL, &s->delv},
                   {"vdov", 1, NULL, &s->vdov},
                   {"arealg", 1, NULL, &s->arealg},
                   {"ss", 1, NULL, &s->ss},
                   {"elem_mass", 1, m->elem_mass, &s->elem_mass},
                   {"delx", 3, NULL, &s->delx},
                   {"delv_xi", 1, NULL, &s->delv_xi},
                   {"delv_eta", 1, NULL, &s->delv_eta},
                   {"delv_zeta", 1, NULL, &s->delv_zeta}};
  for (size_t i = 0; i < sizeof elem_dats / sizeof elem_dats[0]; i++) {
    /* merged_q: qq and ql in registers only, delv taken from vnew and v where it is needed */
    if (s->p.eos_merged == LULESH_EOS_MERGED_Q &&
        (elem_dats[i].dat == &s->qq || elem_dats[i].dat == &s->ql || elem_dats[i].dat == &s->delv))
      continue;
    double **rows = elem_dats[i].rows;
    if (rows && rows == m->volo && *m->volo == *m->elem_mass) /* one array for both: copied here, taken later */
      UM_APP_TRY(um_decl_dat(ctx, s->elems, 1, UM_DOUBLE, *rows, elem_dats[i].name, elem_dats[i].dat));
    else if (rows)
      UM_APP_TRY(take_rows(ctx, s->elems, 1, UM_DOUBLE, (void **)rows, elem_dats[i].name, elem_dats[i].dat));
    else
      UM_APP_TRY(um_decl_dat(ctx, s->elems, elem_dats[i].dim, UM_DOUBLE, NULL, elem_dats[i].name, elem_dats[i].dat));
  }
  UM_APP_TRY(take_rows(ctx, s->elems, 1, UM_INT, (void **)m->elem_bc, "elem_bc", &s->elem_bc));
  return UM_SUCCESS;
}

/* The gather scheme's dats: each node's corner count, the corner forces. */
static int decl_corner_fields(um_context *ctx, lulesh_state *s, const int *ncorner) {
  UM_APP_TRY(um_decl_dat(ctx, s->nodes, 1, UM_INT, ncorner, "node_ncorner", &s->node_ncorner));
  UM_APP_TRY(um_decl_dat(ctx, s->corners, 3, UM_DOUBLE, NULL, "fc_stress", &s->fc_stress));
  if (!s->p.fused) /* fused: one corner force, stress + hourglass */
    UM_APP_TRY(um_decl_dat(ctx, s->corners, 3, UM_DOUBLE, NULL, "fc_hourglass", &s->fc_hourglass));
  return UM_SUCCESS;
}

/* The gather variant's corner numbering: corner j of element e is j * nelem + e
 * (one contiguous run per corner index, as upstream's GPU port). node_corners
 * lists a node's corners in element order, padded with its first corner. */
static int decl_corners(um_context *ctx, lulesh_state *s, const lulesh_mesh *m) {
  const size_t ne = (size_t)m->nelem, nn = (size_t)m->nnode;
  int *ec = malloc(sizeof(int) * 8 * ne), *nc = malloc(sizeof(int) * 8 * nn), *cnt = calloc(nn, sizeof(int));
  if (!ec || !nc || !cnt) {
    free(ec);
    free(nc);
    free(cnt);
    return UM_ERR_ALLOC;
  }
  for (size_t e = 0; e < ne; e++)
    for (int j = 0; j < 8; j++) {
      const int c = (int)((size_t)j * ne + e), n = m->elem_nodes[8 * e + (size_t)j];
      ec[8 * e + (size_t)j] = c;
      nc[8 * (size_t)n + (size_t)cnt[n]++] = c;
    }
  for (size_t n = 0; n < nn; n++)
    for (int k = cnt[n]; k < 8; k++) nc[8 * n + (size_t)k] = nc[8 * n];
  int rc = um_decl_set(ctx, (int)(8 * ne), "corners", &s->corners);
  if (!rc) rc = um_decl_map(ctx, s->elems, s->corners, 8, ec, "elem_corners", &s->elem_corners);
  if (!rc) rc = um_decl_map(ctx, s->nodes, s->corners, 8, nc, "node_corners", &s->node_corners);
  if (!rc) rc = decl_corner_fields(ctx, s, cnt);
  free(ec);
  free(nc);
  free(cnt);
  return rc;
}

/* params.eos: merged: one set of all the regions' elements, mapped to the elements, grouped by their EOS
 * repetitions (eos_rep): the regions of one count merged in element order, the counts descending (the GPU starts
 * the costliest blocks first and the cheap ones fill the tail). A warp's elements then share their count, as they
 * did region after region, and lie closer together (upstream's five regions of 1 + cost repetitions hold ~60% of
 * the elements, one region 1.5-17%), so the gathers through eos_elems_map read fewer sectors. Each element's EOS
 * depends on its own values and count only, and the loop's reductions are minima and a maximum: the same results
 * in any order. */
static int decl_eos_merged(um_context *ctx, lulesh_state *s, const lulesh_mesh *m) {
  const size_t ne = (size_t)m->nelem;
  int *elems = malloc(sizeof(int) * (ne ? ne : 1)), *rep = malloc(sizeof(int) * (ne ? ne : 1));
  int *erep = malloc(sizeof(int) * (ne ? ne : 1)), *counts = malloc(sizeof(int) * (size_t)(m->nregions + 1));
  if (!elems || !rep || !erep || !counts) {
    free(elems), free(rep), free(erep), free(counts);
    return UM_ERR_ALLOC;
  }
  for (size_t e = 0; e < ne; e++) erep[e] = -1;
  int nc = 0; /* the distinct counts, ascending */
  for (int r = 0; r < m->nregions; r++) {
    for (int i = 0; i < m->region_size[r]; i++) erep[m->region_elems[r][i]] = m->region_rep[r];
    int j = nc;
    while (j > 0 && counts[j - 1] > m->region_rep[r]) j--;
    if (j > 0 && counts[j - 1] == m->region_rep[r]) continue;
    memmove(counts + j + 1, counts + j, sizeof(int) * (size_t)(nc - j));
    counts[j] = m->region_rep[r], nc++;
  }
  size_t n = 0; /* elements in no region (none today) have no EOS */
  for (int c = nc - 1; c >= 0; c--) /* the costliest first: their blocks start first, the cheap ones fill the tail */
    for (size_t e = 0; e < ne; e++)
      if (erep[e] == counts[c]) elems[n] = (int)e, rep[n++] = counts[c];
  int rc = um_decl_set(ctx, (int)n, "eos_elems", &s->eos_elems);
  if (!rc) rc = um_decl_map(ctx, s->eos_elems, s->elems, 1, elems, "eos_elems_map", &s->eos_map);
  if (!rc) rc = um_decl_dat(ctx, s->eos_elems, 1, UM_INT, rep, "eos_rep", &s->eos_rep);
  if (!rc && s->p.eos_merged == LULESH_EOS_MERGED_Q) { /* the face map composed with eos_elems_map */
    int *faces = malloc(sizeof(int) * 6 * (n ? n : 1));
    rc = faces ? UM_SUCCESS : UM_ERR_ALLOC;
    for (size_t i = 0; !rc && i < n; i++) memcpy(faces + 6 * i, m->elem_faces + 6 * (size_t)elems[i], sizeof(int) * 6);
    if (!rc) rc = um_decl_map(ctx, s->eos_elems, s->elems, 6, faces, "eos_faces", &s->eos_faces);
    free(faces);
  }
  free(elems), free(rep), free(erep), free(counts);
  return rc;
}

int lulesh_decl_whole(um_context *ctx, lulesh_state *s, lulesh_mesh *m) {
  const char *xyz = "xyz";
  UM_APP_TRY(um_decl_set(ctx, m->nnode, "nodes", &s->nodes));
  UM_APP_TRY(um_decl_set(ctx, m->nelem, "elems", &s->elems));
  UM_APP_TRY(um_decl_map(ctx, s->elems, s->nodes, 8, m->elem_nodes, "elem_nodes", &s->elem_nodes));
  UM_APP_TRY(um_decl_map(ctx, s->elems, s->elems, 6, m->elem_faces, "elem_faces", &s->elem_faces));
  for (int d = 0; d < 3 && !s->p.fused; d++) { /* the unfused step's symm_x/y/z loops; fused: node_symm below */
    char name[32];
    snprintf(name, sizeof name, "symm_%c", xyz[d]);
    UM_APP_TRY(um_decl_set(ctx, m->nsymm, name, &s->symm[d]));
    snprintf(name, sizeof name, "symm_%c_nodes", xyz[d]);
    UM_APP_TRY(um_decl_map(ctx, s->symm[d], s->nodes, 1, m->symm[d], name, &s->symm_map[d]));
  }
  s->nregions = m->nregions;
  s->regions = calloc((size_t)m->nregions, sizeof *s->regions);
  s->region_map = calloc((size_t)m->nregions, sizeof *s->region_map);
  s->region_rep = malloc(sizeof(int) * (size_t)m->nregions);
  if (!s->regions || !s->region_map || !s->region_rep) return UM_ERR_ALLOC;
  if (s->p.eos_merged) UM_APP_TRY(decl_eos_merged(ctx, s, m)); /* the region sets would go unused */
  for (int r = 0; r < m->nregions && !s->p.eos_merged; r++) {
    char name[32];
    s->region_rep[r] = m->region_rep[r];
    snprintf(name, sizeof name, "region%d", r + 1);
    UM_APP_TRY(um_decl_set(ctx, m->region_size[r], name, &s->regions[r]));
    snprintf(name, sizeof name, "region%d_elems", r + 1);
    UM_APP_TRY(um_decl_map(ctx, s->regions[r], s->elems, 1, m->region_elems[r], name, &s->region_map[r]));
  }
  int *bits = malloc(sizeof(int) * (size_t)(m->nnode ? m->nnode : 1));
  if (!bits) return UM_ERR_ALLOC;
  for (int n = 0; n < m->nnode; n++) bits[n] = lulesh_node_symm_bits(m->nx, n);
  const fields f = {m->nnode, m->nelem, &m->coord, &m->nodal_mass, &m->volo, &m->elem_mass, &bits, &m->elem_bc, 1,
                    m->einit};
  const int rc = decl_fields(ctx, s, &f); /* takes the arrays: m's pointers NULL */
  free(bits); /* NULL once taken */
  UM_APP_TRY(rc);
  if (s->p.forces == LULESH_FORCES_GATHER) UM_APP_TRY(decl_corners(ctx, s, m));
  return UM_SUCCESS;
}

/* ---- by blocks: the same sets, maps and dats in the same order, this rank's rows of each ---- */

static int decl_regions_block(um_context *ctx, lulesh_state *s, lulesh_block *b) {
  s->nregions = b->nregions;
  s->regions = calloc((size_t)b->nregions, sizeof *s->regions);
  s->region_map = calloc((size_t)b->nregions, sizeof *s->region_map);
  s->region_rep = malloc(sizeof(int) * (size_t)b->nregions);
  if (!s->regions || !s->region_map || !s->region_rep) return UM_ERR_ALLOC;
  if (s->p.eos_merged) {
    UM_APP_TRY(um_decl_set_block(ctx, b->nelem, b->eos_first, b->eos_count, "eos_elems", &s->eos_elems));
    UM_APP_TRY(um_decl_map_block(ctx, s->eos_elems, s->elems, 1, b->eos_elems, "eos_elems_map", &s->eos_map));
    UM_APP_TRY(um_decl_dat(ctx, s->eos_elems, 1, UM_INT, b->eos_rep, "eos_rep", &s->eos_rep));
    if (s->p.eos_merged == LULESH_EOS_MERGED_Q) { /* the face map composed with eos_elems_map */
      long long *faces = malloc(sizeof(long long) * 6 * (size_t)(b->eos_count ? b->eos_count : 1));
      if (!faces) return UM_ERR_ALLOC;
      for (int i = 0; i < b->eos_count; i++) { /* an element's faces, as lulesh_mesh.c makes them */
        const long long e = b->eos_elems[i], nxx = (long long)b->nx * b->nx, ne = b->nelem;
        long long *f = faces + 6 * (size_t)i;
        f[0] = e == 0 ? 0 : e - 1, f[1] = e == ne - 1 ? ne - 1 : e + 1;
        f[2] = e < b->nx ? e : e - b->nx, f[3] = e >= ne - b->nx ? e : e + b->nx;
        f[4] = e < nxx ? e : e - nxx, f[5] = e >= ne - nxx ? e : e + nxx;
      }
      UM_APP_TRY(um_decl_map_block_take(ctx, s->eos_elems, s->elems, 6, faces, "eos_faces", &s->eos_faces));
    }
    return UM_SUCCESS;
  }
  for (int r = 0; r < b->nregions; r++) {
    char name[32];
    s->region_rep[r] = b->region_rep[r];
    snprintf(name, sizeof name, "region%d", r + 1);
    UM_APP_TRY(um_decl_set_block(ctx, b->region_size[r], b->region_first[r], b->region_count[r], name,
                                 &s->regions[r]));
    snprintf(name, sizeof name, "region%d_elems", r + 1);
    long long *rows = b->region_elems[r]; /* handed over: b's pointer NULL */
    b->region_elems[r] = NULL;
    if (b->nelem <= INT_MAX) { /* as 32-bit numbers, in place: entry i's 4 bytes at 4 i, read first at 8 i */
      char *buf = (char *)rows;
      for (size_t i = 0; i < (size_t)b->region_count[r]; i++) {
        long long g;
        memcpy(&g, buf + i * sizeof g, sizeof g);
        const int e = (int)g;
        memcpy(buf + i * sizeof e, &e, sizeof e);
      }
      UM_APP_TRY(um_decl_map_block_take_i32(ctx, s->regions[r], s->elems, 1, (int *)buf, name, &s->region_map[r]));
    } else
      UM_APP_TRY(um_decl_map_block_take(ctx, s->regions[r], s->elems, 1, rows, name, &s->region_map[r]));
  }
  return UM_SUCCESS;
}

/* The gather scheme's corners by blocks: corner j of element e is j * nelem + e. */
static int decl_corners_block(um_context *ctx, lulesh_state *s, const lulesh_block *b) {
  const size_t n = (size_t)b->elem_count;
  long long *ec = malloc(sizeof(long long) * 8 * (n ? n : 1));
  if (!ec) return UM_ERR_ALLOC;
  for (size_t i = 0; i < n; i++)
    for (int j = 0; j < 8; j++) ec[8 * i + (size_t)j] = (long long)j * b->nelem + b->elem_first + (long long)i;
  int rc = um_decl_set_block(ctx, 8 * b->nelem, b->corner_first, b->corner_count, "corners", &s->corners);
  if (!rc) rc = um_decl_map_block_take(ctx, s->elems, s->corners, 8, ec, "elem_corners", &s->elem_corners);
  else free(ec);
  if (!rc) rc = um_decl_map_block(ctx, s->nodes, s->corners, 8, b->node_corners, "node_corners", &s->node_corners);
  if (!rc) rc = decl_corner_fields(ctx, s, b->node_ncorner);
  return rc;
}

/* The halo of this rank's block (lulesh_block_halo) declared with it, for "ranges" to take instead of finding it:
 * the variant of the nodes, the elements and the regions alone (fused, the regions' EOS loops, the forces
 * incremented); the regions' halos are empty (their blocks are parts of this rank's element block). */
static int decl_halo_block(lulesh_state *s, const lulesh_block *b) {
  lulesh_halo h;
  if (lulesh_block_halo(b, &h)) return UM_ERR_ALLOC;
  long long *en = h.exec_nodes, *ef = h.exec_faces, *nn = h.nonexec_nodes; /* each call takes its arrays */
  int rc = um_decl_set_halo_block(s->elems, h.nexec, h.exec, h.nnonexec_elems, h.nonexec_elems);
  if (rc) return free(en), free(ef), free(nn), rc;
  if ((rc = um_decl_map_halo_block(s->elem_nodes, en))) return free(ef), free(nn), rc;
  if ((rc = um_decl_map_halo_block(s->elem_faces, ef))) return free(nn), rc;
  rc = um_decl_set_halo_block(s->nodes, 0, NULL, h.nnonexec_nodes, nn);
  for (int r = 0; !rc && r < s->nregions; r++) rc = um_decl_set_halo_block(s->regions[r], 0, NULL, 0, NULL);
  return rc;
}

int lulesh_decl_block(um_context *ctx, lulesh_state *s, lulesh_block *b) {
  const char *xyz = "xyz";
  UM_APP_TRY(um_decl_set_block(ctx, b->nnode, b->node_first, b->node_count, "nodes", &s->nodes));
  UM_APP_TRY(um_decl_set_block(ctx, b->nelem, b->elem_first, b->elem_count, "elems", &s->elems));
  long long *en = b->elem_nodes, *ef = b->elem_faces; /* handed over: b's pointers NULL */
  int *en32 = b->elem_nodes32, *ef32 = b->elem_faces32;
  b->elem_nodes = b->elem_faces = NULL, b->elem_nodes32 = b->elem_faces32 = NULL;
  int rc = en32 ? um_decl_map_block_take_i32(ctx, s->elems, s->nodes, 8, en32, "elem_nodes", &s->elem_nodes)
                : um_decl_map_block_take(ctx, s->elems, s->nodes, 8, en, "elem_nodes", &s->elem_nodes);
  if (!rc) rc = ef32 ? um_decl_map_block_take_i32(ctx, s->elems, s->elems, 6, ef32, "elem_faces", &s->elem_faces)
                     : um_decl_map_block_take(ctx, s->elems, s->elems, 6, ef, "elem_faces", &s->elem_faces);
  else free(ef), free(ef32);
  UM_APP_TRY(rc);
  for (int d = 0; d < 3 && !s->p.fused; d++) { /* the unfused step's symm_x/y/z loops; fused: node_symm below */
    char name[32];
    snprintf(name, sizeof name, "symm_%c", xyz[d]);
    UM_APP_TRY(um_decl_set_block(ctx, b->nsymm, b->symm_first, b->symm_count, name, &s->symm[d]));
    snprintf(name, sizeof name, "symm_%c_nodes", xyz[d]);
    UM_APP_TRY(um_decl_map_block(ctx, s->symm[d], s->nodes, 1, b->symm[d], name, &s->symm_map[d]));
  }
  UM_APP_TRY(decl_regions_block(ctx, s, b));
  const fields f = {b->node_count, b->elem_count, &b->coord, &b->nodal_mass, &b->volo, &b->volo,
                    &b->node_symm,  &b->elem_bc,    b->elem_first == 0,       b->einit};
  UM_APP_TRY(decl_fields(ctx, s, &f)); /* takes the arrays: b's pointers NULL */
  if (s->p.forces == LULESH_FORCES_GATHER) UM_APP_TRY(decl_corners_block(ctx, s, b));
  if (s->p.declare_halo && s->p.fused && !s->p.eos_merged && s->p.forces != LULESH_FORCES_GATHER && um_mpi_size() > 1)
    UM_APP_TRY(decl_halo_block(s, b));
  return UM_SUCCESS;
}
