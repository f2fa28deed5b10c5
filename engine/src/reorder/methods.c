/* The two reordering methods: GPS through Scotch and k-way partitioning
 * through METIS (see um/reorder.h for what each computes). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <metis.h>
#include <scotch.h>

#include "reorder_internal.h"

/* A graph in CSR form (no self loops, each neighbour once). */
typedef struct {
  int n;
  int *xadj;   /* [n+1] */
  int *adj;    /* [xadj[n]] */
  size_t cap;
} csr;

static void csr_free(csr *g) {
  free(g->xadj);
  free(g->adj);
  memset(g, 0, sizeof *g);
}

static int csr_push(csr *g, int v) {
  size_t len = (size_t)g->xadj[g->n];
  if (len == g->cap) {
    size_t nc = g->cap ? 2 * g->cap : 1024;
    if (nc > (size_t)INT_MAX) nc = (size_t)INT_MAX;
    if (len >= nc) return UM_ERR_ALLOC; /* more than INT_MAX edges: beyond METIS/Scotch int indices */
    int *p = realloc(g->adj, nc * sizeof *p);
    if (!p) return UM_ERR_ALLOC;
    g->adj = p;
    g->cap = nc;
  }
  g->adj[len] = v;
  g->xadj[g->n]++;
  return UM_SUCCESS;
}

/* Target graph of m (to-set vertices, adjacent when an element maps to both). */
static int target_graph(const um_map *m, const um__inverse *inv, csr *g) {
  int nt = m->to->size, ar = m->arity;
  memset(g, 0, sizeof *g);
  g->xadj = calloc((size_t)nt + 1, sizeof *g->xadj);
  int *mark = malloc((size_t)nt * sizeof *mark + 1);
  int rc = g->xadj && mark ? UM_SUCCESS : UM_ERR_ALLOC;
  if (rc == UM_SUCCESS)
    for (int t = 0; t < nt; t++) mark[t] = -1;
  for (int t = 0; t < nt && rc == UM_SUCCESS; t++) {
    mark[t] = t;
    g->n = t + 1; /* csr_push appends to vertex t's list, ending at xadj[t + 1] */
    g->xadj[t + 1] = g->xadj[t];
    for (int j = inv->off[t]; j < inv->off[t + 1] && rc == UM_SUCCESS; j++) {
      const int *row = m->data + (size_t)inv->elem[j] * ar;
      for (int k = 0; k < ar; k++)
        if (mark[row[k]] != t) {
          mark[row[k]] = t;
          if ((rc = csr_push(g, row[k])) != UM_SUCCESS) break;
        }
    }
  }
  g->n = nt;
  if (rc == UM_SUCCESS && !g->adj && !(g->adj = malloc(sizeof *g->adj))) rc = UM_ERR_ALLOC;
  free(mark);
  if (rc != UM_SUCCESS) csr_free(g);
  return rc;
}

/* Element graph of m (from-set vertices, adjacent when they share a target). */
static int element_graph(const um_map *m, const um__inverse *inv, csr *g) {
  int nf = m->from->size, ar = m->arity;
  memset(g, 0, sizeof *g);
  g->xadj = calloc((size_t)nf + 1, sizeof *g->xadj);
  int *mark = malloc((size_t)nf * sizeof *mark + 1);
  int rc = g->xadj && mark ? UM_SUCCESS : UM_ERR_ALLOC;
  if (rc == UM_SUCCESS)
    for (int e = 0; e < nf; e++) mark[e] = -1;
  for (int e = 0; e < nf && rc == UM_SUCCESS; e++) {
    mark[e] = e;
    g->n = e + 1; /* csr_push appends to vertex e's list, ending at xadj[e + 1] */
    g->xadj[e + 1] = g->xadj[e];
    for (int k = 0; k < ar && rc == UM_SUCCESS; k++) {
      int t = m->data[(size_t)e * ar + k];
      for (int j = inv->off[t]; j < inv->off[t + 1]; j++) {
        int f = inv->elem[j];
        if (mark[f] == e) continue;
        mark[f] = e;
        if ((rc = csr_push(g, f)) != UM_SUCCESS) break;
      }
    }
  }
  g->n = nf;
  if (rc == UM_SUCCESS && !g->adj && !(g->adj = malloc(sizeof *g->adj))) rc = UM_ERR_ALLOC;
  free(mark);
  if (rc != UM_SUCCESS) csr_free(g);
  return rc;
}

/* ---- GPS (Scotch) ----------------------------------------------------------------------- */

int um__reorder_gps(um_context *ctx, const um_map *m, int *n2o_from, int *n2o_to) {
  int nt = m->to->size;
  um__inverse inv;
  memset(&inv, 0, sizeof inv);
  if (um__inverse_build(m, &inv) != UM_SUCCESS)
    return UM_ERROR(ctx, UM_ERR_ALLOC, "reordering 'gps': out of memory inverting map '%s'", m->name);
  csr g;
  int rc = target_graph(m, &inv, &g);
  um__inverse_free(&inv);
  if (rc != UM_SUCCESS)
    return UM_ERROR(ctx, UM_ERR_ALLOC,
                    "reordering 'gps': out of memory building the adjacency graph of set '%s' through map '%s'",
                    m->to->name, m->name);
  if (nt > 0) {
    SCOTCH_Graph sg;
    SCOTCH_Strat ss;
    int *permtab = malloc((size_t)nt * sizeof *permtab);
    if (!permtab) {
      csr_free(&g);
      return UM_ERROR(ctx, UM_ERR_ALLOC, "reordering 'gps': out of memory");
    }
    const char *step = "SCOTCH_graphInit";
    int src = SCOTCH_graphInit(&sg);
    int graph_ok = src == 0, strat_ok = 0;
    if (src == 0) {
      step = "SCOTCH_graphBuild";
      src = SCOTCH_graphBuild(&sg, 0, nt, g.xadj, NULL, NULL, NULL, g.xadj[nt], g.adj, NULL);
    }
    if (src == 0) {
      step = "SCOTCH_stratInit";
      src = SCOTCH_stratInit(&ss);
      strat_ok = src == 0;
    }
    if (src == 0) {
      step = "SCOTCH_stratGraphOrder(\"g\")";
      src = SCOTCH_stratGraphOrder(&ss, "g");
    }
    if (src == 0) {
      step = "SCOTCH_graphOrder";
      src = SCOTCH_graphOrder(&sg, &ss, permtab, n2o_to, NULL, NULL, NULL);
    }
    if (strat_ok) SCOTCH_stratExit(&ss);
    if (graph_ok) SCOTCH_graphExit(&sg);
    free(permtab);
    csr_free(&g);
    if (src != 0)
      return UM_ERROR(ctx, UM_ERR_BACKEND,
                      "reordering 'gps': Scotch's %s failed (returned %d) on the %d-vertex graph of set '%s' "
                      "through map '%s'; Scotch printed its reason on stderr",
                      step, src, nt, m->to->name, m->name);
    int ok = um__is_bijection(n2o_to, nt);
    if (ok != 1)
      return UM_ERROR(ctx, ok < 0 ? UM_ERR_ALLOC : UM_ERR_INTERNAL,
                      "reordering 'gps': Scotch's ordering of set '%s' is not a permutation", m->to->name);
  } else {
    csr_free(&g);
  }
  int *o2n = malloc((size_t)nt * sizeof *o2n + 1);
  if (!o2n) return UM_ERROR(ctx, UM_ERR_ALLOC, "reordering 'gps': out of memory");
  for (int i = 0; i < nt; i++) o2n[n2o_to[i]] = i;
  rc = um__order_by_targets(m, o2n, n2o_from);
  free(o2n);
  if (rc != UM_SUCCESS)
    return UM_ERROR(ctx, UM_ERR_ALLOC, "reordering 'gps': out of memory sorting set '%s'", m->from->name);
  return UM_SUCCESS;
}

/* ---- partition (METIS) ---------------------------------------------------------------------- */

static const char *metis_text(int rc) {
  switch (rc) {
  case METIS_ERROR_INPUT: return "METIS_ERROR_INPUT: erroneous input";
  case METIS_ERROR_MEMORY: return "METIS_ERROR_MEMORY: out of memory";
  case METIS_ERROR: return "METIS_ERROR: some other error";
  }
  return "unknown METIS error code";
}

/* METIS k-way of the graph (n vertices, CSR xadj/adj) into npart parts with
 * o's imbalance and seed; part[v] receives v's part. Returns a METIS code. */
static int metis_kway(int n, int *xadj, int *adj, int npart, const um_reorder_options *o, int *part, idx_t *objval) {
  idx_t nv = n, ncon = 1, np = npart;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_UFACTOR] = (idx_t)lround((o->imbalance - 1.0) * 1000.0);
  if (options[METIS_OPTION_UFACTOR] < 1) options[METIS_OPTION_UFACTOR] = 1;
  options[METIS_OPTION_SEED] = o->seed;
  *objval = 0;
  return METIS_PartGraphKway(&nv, &ncon, xadj, adj, NULL, NULL, NULL, &np, NULL, NULL, options, objval, part);
}

/* Above this many parts, partition in two levels: k-way into about
 * nparts / UM__TWO_LEVEL_FANOUT coarse parts, then each coarse part's induced
 * subgraph (edges to other coarse parts dropped) into its share of the parts
 * (proportional to its size; oversized parts are split by the caller).
 * Much cheaper than one k-way into thousands of parts, similar locality. */
#define UM__TWO_LEVEL_MIN_PARTS 128
#define UM__TWO_LEVEL_FANOUT 64
#define UM__TWO_LEVEL_ALLOC (-1000) /* distinct from every METIS return code */

/* Two-level partition of g (see above): part[v] in 0..*nparts_out-1, parts
 * numbered coarse part by coarse part. Returns METIS_OK, a METIS error code,
 * or UM__TWO_LEVEL_ALLOC. */
static int two_level(const csr *g, int nparts, const um_reorder_options *o, int *part,
                     int *nparts_out) {
  int n = g->n;
  int k1 = (nparts + UM__TWO_LEVEL_FANOUT - 1) / UM__TWO_LEVEL_FANOUT;
  int *cpart = malloc(((size_t)n + 1) * sizeof *cpart);
  int *coff = calloc((size_t)k1 + 2, sizeof *coff);
  int *verts = malloc(((size_t)n + 1) * sizeof *verts);
  int *loc = malloc(((size_t)n + 1) * sizeof *loc);
  int *sx = malloc(((size_t)n + 1) * sizeof *sx);
  int *sa = malloc(((size_t)g->xadj[n] + 1) * sizeof *sa);
  int *sp = malloc(((size_t)n + 1) * sizeof *sp);
  int rc = cpart && coff && verts && loc && sx && sa && sp ? METIS_OK : UM__TWO_LEVEL_ALLOC;
  idx_t objval;
  if (rc == METIS_OK) rc = metis_kway(n, g->xadj, g->adj, k1, o, cpart, &objval);
  int base = 0;
  if (rc == METIS_OK) {
    /* vertices coarse part by coarse part, ascending inside one */
    for (int v = 0; v < n; v++) coff[cpart[v] + 2]++;
    for (int c = 0; c < k1; c++) coff[c + 2] += coff[c + 1];
    for (int v = 0; v < n; v++) verts[coff[cpart[v] + 1]++] = v;
    for (int c = 0; c < k1 && rc == METIS_OK; c++) {
      int s0 = coff[c], sn = coff[c + 1] - coff[c];
      if (sn == 0) continue;
      /* its share of the nparts parts, by cumulative rounding (total exactly nparts) */
      long npc = lround((double)nparts * coff[c + 1] / n) - lround((double)nparts * s0 / n);
      if (npc <= 1) { /* fits one part (or a sliver sharing a neighbour's): no METIS */
        int p = base < nparts ? base : nparts - 1;
        for (int i = 0; i < sn; i++) part[verts[s0 + i]] = p;
        base += (int)npc;
        continue;
      }
      for (int i = 0; i < sn; i++) loc[verts[s0 + i]] = i;
      sx[0] = 0;
      for (int i = 0; i < sn; i++) {
        int v = verts[s0 + i], len = sx[i];
        for (int j = g->xadj[v]; j < g->xadj[v + 1]; j++) {
          int u = g->adj[j];
          if (cpart[u] == c) sa[len++] = loc[u];
        }
        sx[i + 1] = len;
      }
      rc = metis_kway(sn, sx, sa, (int)npc, o, sp, &objval);
      for (int i = 0; i < sn && rc == METIS_OK; i++) part[verts[s0 + i]] = base + sp[i];
      base += (int)npc;
    }
  }
  free(cpart);
  free(coff);
  free(verts);
  free(loc);
  free(sx);
  free(sa);
  free(sp);
  *nparts_out = nparts;
  return rc;
}

/* The targets in n2o_to ordered by key = [number of distinct parts, the parts ascending] of the elements
 * that reach them (inv); unreferenced ones last. */
static int order_targets_by_parts(int nt, const um__inverse *inv, const int *part, int *n2o_to) {
  long *off = malloc(((size_t)nt + 1) * sizeof *off);
  int *key = off ? malloc(((size_t)inv->off[nt] + (size_t)nt + 1) * sizeof *key) : NULL;
  int rc = key ? UM_SUCCESS : UM_ERR_ALLOC;
  if (rc == UM_SUCCESS) {
    long pos = 0;
    for (int t = 0; t < nt; t++) {
      off[t] = pos;
      int *k = key + pos + 1, c = 0;
      for (int j = inv->off[t]; j < inv->off[t + 1]; j++) {
        int p = part[inv->elem[j]], i = c - 1;
        while (i >= 0 && k[i] > p) i--;
        if (i >= 0 && k[i] == p) continue; /* already listed */
        for (int q = c; q > i + 1; q--) k[q] = k[q - 1];
        k[i + 1] = p;
        c++;
      }
      key[pos] = c ? c : INT_MAX;
      pos += 1 + c;
    }
    off[nt] = pos;
    rc = um__sort_by_keys(nt, off, key, n2o_to);
  }
  free(off);
  free(key);
  return rc;
}

int um__reorder_partition(um_context *ctx, const um_map *m, const um_reorder_options *o, int *n2o_from,
                          int *n2o_to, um_reorder_stats *st, int **part_offset, int *nparts_out) {
  *part_offset = NULL;
  *nparts_out = 0;
  int nf = m->from->size, nt = m->to->size;
  double cap = o->block_size * (1.0 - o->margin);
  long np = nf > 0 ? (long)ceil((double)nf / cap) : 0;
  if (np < 1) np = 1;
  int nparts = (int)np;
  um__inverse inv;
  memset(&inv, 0, sizeof inv);
  if (um__inverse_build(m, &inv) != UM_SUCCESS)
    return UM_ERROR(ctx, UM_ERR_ALLOC, "reordering 'partition': out of memory inverting map '%s'", m->name);
  int *part = calloc((size_t)nf + 1, sizeof *part);
  if (!part) {
    um__inverse_free(&inv);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "reordering 'partition': out of memory");
  }
  long edgecut = 0;
  if (nparts > 1) {
    csr g;
    int rc = element_graph(m, &inv, &g);
    if (rc != UM_SUCCESS) {
      um__inverse_free(&inv);
      free(part);
      return UM_ERROR(ctx, UM_ERR_ALLOC,
                      "reordering 'partition': out of memory building the element graph of set '%s' through map "
                      "'%s' (or more than 2^31 edges)",
                      m->from->name, m->name);
    }
    idx_t objval = 0;
    int mrc;
    if (nparts <= UM__TWO_LEVEL_MIN_PARTS) {
      mrc = metis_kway(nf, g.xadj, g.adj, nparts, o, part, &objval);
      edgecut = (long)objval;
    } else {
      mrc = two_level(&g, nparts, o, part, &nparts);
      if (mrc == UM__TWO_LEVEL_ALLOC) {
        csr_free(&g);
        um__inverse_free(&inv);
        free(part);
        return UM_ERROR(ctx, UM_ERR_ALLOC, "reordering 'partition': out of memory");
      }
      /* cut edges between final parts (each undirected edge listed twice) */
      for (int e = 0; e < nf; e++)
        for (int j = g.xadj[e]; j < g.xadj[e + 1]; j++) edgecut += part[g.adj[j]] != part[e];
      edgecut /= 2;
    }
    csr_free(&g);
    if (mrc != METIS_OK) {
      um__inverse_free(&inv);
      free(part);
      return UM_ERROR(ctx, UM_ERR_BACKEND,
                      "reordering 'partition': METIS_PartGraphKway failed (%s) partitioning the %d elements of set "
                      "'%s' (map '%s') into %d parts",
                      metis_text(mrc), nf, m->from->name, m->name, nparts);
    }
  }
  /* elements part by part, old order inside a part (counting sort) */
  int *cnt = calloc((size_t)nparts + 1, sizeof *cnt);
  const int bs = o->block_size;
  /* blocks: at most one per element, and nparts + nf / bs covers the splits */
  size_t maxblocks = (size_t)nparts + (size_t)nf / (size_t)bs + 1;
  if (maxblocks > (size_t)nf) maxblocks = (size_t)nf;
  int *poff = malloc((maxblocks + 1) * sizeof *poff);
  int rc = cnt && poff ? UM_SUCCESS : UM_ERR_ALLOC;
  int maxp = 0, nblocks = 0;
  if (rc == UM_SUCCESS) {
    for (int e = 0; e < nf; e++) cnt[part[e] + 1]++;
    for (int p = 0; p < nparts; p++) {
      if (cnt[p + 1] > maxp) maxp = cnt[p + 1];
      cnt[p + 1] += cnt[p];
    }
    /* the parts as blocks: empty ones left out, oversized ones split evenly */
    poff[0] = 0;
    for (int p = 0; p < nparts; p++) {
      int s0 = cnt[p], n = cnt[p + 1] - cnt[p];
      if (n == 0) continue;
      int k = (n + bs - 1) / bs;
      for (int j = 1; j <= k; j++) poff[++nblocks] = s0 + (int)((long long)n * j / k);
    }
    for (int e = 0; e < nf; e++) n2o_from[cnt[part[e]]++] = e;
  }
  free(cnt);
  if (rc == UM_SUCCESS) rc = order_targets_by_parts(nt, &inv, part, n2o_to);
  free(part);
  um__inverse_free(&inv);
  if (rc != UM_SUCCESS) {
    free(poff);
    return UM_ERROR(ctx, rc, "reordering 'partition': out of memory sorting set '%s'", m->to->name);
  }
  *part_offset = poff;
  *nparts_out = nblocks;
  st->nparts = nparts;
  st->max_part_size = maxp;
  st->edgecut = edgecut;
  return UM_SUCCESS;
}
