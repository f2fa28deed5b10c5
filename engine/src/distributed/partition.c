/* Owners and per-rank layouts of a distributed mesh (partition.h). */
#include "partition.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "um/um.h"

void umd_block_partition(int n, int nranks, int *part) {
  for (int i = 0; i < n; i++) part[i] = (int)((long long)i * nranks / n);
}

int umd_derive_owners(const umd_mesh *m, int primary, int nranks, int **owner, char *err, size_t errlen) {
  if (primary < 0 || primary >= m->nsets || !owner[primary])
    return um_format_error(err, errlen, UM_ERR_ARG, "partition: primary set %d has no owners", primary);
  char *placed = calloc((size_t)m->nsets + 1, 1);
  if (!placed) return um_format_error(err, errlen, UM_ERR_ALLOC, "partition: out of memory");
  placed[primary] = 1;
  int rc = UM_SUCCESS;
  for (int progress = 1; progress && rc == UM_SUCCESS;) {
    progress = 0;
    /* a set with a map into a placed set: the owner of each element's first target */
    for (int k = 0; k < m->nmaps && rc == UM_SUCCESS; k++) {
      const umd_map *mp = &m->maps[k];
      if (placed[mp->from] || !placed[mp->to]) continue;
      const int n = m->size[mp->from];
      int *o = malloc((size_t)(n ? n : 1) * sizeof *o);
      if (!o) {
        rc = um_format_error(err, errlen, UM_ERR_ALLOC, "partition: out of memory");
        break;
      }
      for (int e = 0; e < n; e++) o[e] = owner[mp->to][mp->data[(size_t)e * mp->arity]];
      owner[mp->from] = o;
      placed[mp->from] = 1;
      progress = 1;
    }
    if (progress || rc != UM_SUCCESS) continue;
    /* else a set a map from a placed set reaches: the owner of its first referencing element */
    for (int k = 0; k < m->nmaps; k++) {
      const umd_map *mp = &m->maps[k];
      if (!placed[mp->from] || placed[mp->to]) continue;
      const int n = m->size[mp->to], nf = m->size[mp->from];
      int *o = malloc((size_t)(n ? n : 1) * sizeof *o);
      int *blk = malloc((size_t)(n ? n : 1) * sizeof *blk);
      if (!o || !blk) {
        free(o), free(blk);
        rc = um_format_error(err, errlen, UM_ERR_ALLOC, "partition: out of memory");
        break;
      }
      for (int t = 0; t < n; t++) o[t] = -1;
      for (int e = 0; e < nf; e++)
        for (int a = 0; a < mp->arity; a++) {
          const int t = mp->data[(size_t)e * mp->arity + a];
          if (o[t] < 0) o[t] = owner[mp->from][e];
        }
      umd_block_partition(n, nranks, blk);
      for (int t = 0; t < n; t++)
        if (o[t] < 0) o[t] = blk[t];
      free(blk);
      owner[mp->to] = o;
      placed[mp->to] = 1;
      progress = 1;
      break; /* prefer the first rule again for the sets this one places */
    }
  }
  for (int s = 0; s < m->nsets && rc == UM_SUCCESS; s++) { /* sets no map connects: blocks */
    if (placed[s]) continue;
    const int n = m->size[s];
    if (!(owner[s] = malloc((size_t)(n ? n : 1) * sizeof(int)))) {
      rc = um_format_error(err, errlen, UM_ERR_ALLOC, "partition: out of memory");
      break;
    }
    umd_block_partition(n, nranks, owner[s]);
    placed[s] = 1;
  }
  free(placed);
  return rc;
}

void umd_layout_free(umd_layout *l, int nsets) {
  for (int s = 0; l && s < nsets; s++) {
    free(l[s].l2g);
    l[s].l2g = NULL;
  }
}

/* Halo elements sorted by (owner, global index). */
typedef struct {
  int owner, g;
} halo_key;
static int cmp_halo(const void *a, const void *b) {
  const halo_key *x = a, *y = b;
  if (x->owner != y->owner) return x->owner < y->owner ? -1 : 1;
  return (x->g > y->g) - (x->g < y->g);
}

enum { ST_NONE = 0, ST_OWNED = 1, ST_EXEC = 2, ST_NONEXEC = 3 };

int umd_build_layout(const umd_mesh *m, int *const *owner, int rank, umd_layout *out, char *err, size_t errlen) {
  const int ns = m->nsets;
  memset(out, 0, (size_t)ns * sizeof *out);
  unsigned char **st = calloc((size_t)ns + 1, sizeof *st);
  int rc = st ? UM_SUCCESS : UM_ERR_ALLOC;
  for (int s = 0; s < ns && rc == UM_SUCCESS; s++) {
    const int n = m->size[s];
    if (!(st[s] = malloc((size_t)n + 1))) rc = UM_ERR_ALLOC;
    else
      for (int e = 0; e < n; e++) st[s][e] = owner[s][e] == rank ? ST_OWNED : ST_NONE;
  }
  /* exec halo: elements of others reaching an element this rank owns, through a map loops may write through */
  for (int k = 0; k < m->nmaps && rc == UM_SUCCESS; k++) {
    const umd_map *mp = &m->maps[k];
    if (mp->read_only) continue;
    const int n = m->size[mp->from];
    for (int e = 0; e < n; e++) {
      if (st[mp->from][e] != ST_NONE) continue;
      const int *row = mp->data + (size_t)e * mp->arity;
      for (int a = 0; a < mp->arity; a++)
        if (owner[mp->to][row[a]] == rank) {
          st[mp->from][e] = ST_EXEC;
          break;
        }
    }
  }
  /* non-exec halo: what owned and exec elements reach besides */
  for (int k = 0; k < m->nmaps && rc == UM_SUCCESS; k++) {
    const umd_map *mp = &m->maps[k];
    const int n = m->size[mp->from];
    for (int e = 0; e < n; e++) {
      const unsigned char x = st[mp->from][e];
      if (x != ST_OWNED && x != ST_EXEC) continue;
      const int *row = mp->data + (size_t)e * mp->arity;
      for (int a = 0; a < mp->arity; a++)
        if (st[mp->to][row[a]] == ST_NONE) st[mp->to][row[a]] = ST_NONEXEC;
    }
  }
  for (int s = 0; s < ns && rc == UM_SUCCESS; s++) {
    const int n = m->size[s];
    umd_layout *L = &out[s];
    unsigned char *core = calloc((size_t)n + 1, 1); /* 1: owned and reading no halo */
    int total = 0;
    for (int e = 0; e < n; e++) {
      total += st[s][e] != ST_NONE;
      if (st[s][e] == ST_OWNED) {
        core[e] = 1;
        L->owned++;
      } else if (st[s][e] == ST_EXEC) L->exec++;
      else if (st[s][e] == ST_NONEXEC) L->nonexec++;
    }
    const int nk = L->exec + L->nonexec > L->owned ? L->exec + L->nonexec : L->owned; /* the halo, or the owned */
    halo_key *hk = malloc((size_t)(nk + 1) * sizeof *hk);
    L->l2g = malloc((size_t)(total ? total : 1) * sizeof(int));
    if (!core || !hk || !L->l2g) {
      free(core), free(hk);
      rc = UM_ERR_ALLOC;
      break;
    }
    for (int k = 0; k < m->nmaps; k++) {
      const umd_map *mp = &m->maps[k];
      if (mp->from != s) continue;
      for (int e = 0; e < n; e++) {
        if (!core[e]) continue;
        const int *row = mp->data + (size_t)e * mp->arity;
        for (int a = 0; a < mp->arity; a++)
          if (owner[mp->to][row[a]] != rank) {
            core[e] = 0;
            break;
          }
      }
    }
    int j = 0;
    for (int e = 0; e < n; e++) /* the owned ascending, their core flags packed in front of core[] (in place) */
      if (st[s][e] == ST_OWNED) L->l2g[j] = e, core[j++] = core[e];
    for (int i = 0; i < L->owned; i++) L->core += core[i];
    if (!umd_core_run(core, L->owned, &L->core_begin)) { /* core, then the rest (else: the owned keep their order) */
      L->core_begin = 0;
      for (int i = 0, c = 0, r = L->core; i < L->owned; i++) hk[core[i] ? c++ : r++].g = L->l2g[i];
      for (int i = 0; i < L->owned; i++) L->l2g[i] = hk[i].g;
    }
    for (int pass = ST_EXEC; pass <= ST_NONEXEC; pass++) {
      int h = 0;
      for (int e = 0; e < n; e++)
        if (st[s][e] == pass) hk[h++] = (halo_key){owner[s][e], e};
      qsort(hk, (size_t)h, sizeof *hk, cmp_halo);
      for (int i = 0; i < h; i++) L->l2g[j++] = hk[i].g;
    }
    free(core);
    free(hk);
  }
  for (int s = 0; st && s < ns; s++) free(st[s]);
  free(st);
  if (rc != UM_SUCCESS) {
    umd_layout_free(out, ns);
    return um_format_error(err, errlen, rc, "partition: out of memory building the halo of rank %d", rank);
  }
  return UM_SUCCESS;
}

/* Inverse of a map: for target t, from-elements inv[off[t] .. off[t+1]). */
static int invert(const umd_map *mp, int nfrom, int nto, int **off, int **inv) {
  *off = calloc((size_t)nto + 1, sizeof(int));
  *inv = malloc(((size_t)nfrom * mp->arity + 1) * sizeof(int));
  if (!*off || !*inv) return UM_ERR_ALLOC;
  const size_t nn = (size_t)nfrom * mp->arity;
  for (size_t i = 0; i < nn; i++) (*off)[mp->data[i] + 1]++;
  for (int t = 0; t < nto; t++) (*off)[t + 1] += (*off)[t];
  int *pos = malloc(((size_t)nto + 1) * sizeof(int));
  if (!pos) return UM_ERR_ALLOC;
  memcpy(pos, *off, (size_t)nto * sizeof(int));
  for (size_t i = 0; i < nn; i++) (*inv)[pos[mp->data[i]]++] = (int)(i / (size_t)mp->arity);
  free(pos);
  return UM_SUCCESS;
}

int umd_graph(const umd_mesh *m, int primary, int **xadj_out, int **adj_out, char *err, size_t errlen) {
  return umd_graph_rows(m, primary, NULL, 0, 0, m->size[primary], xadj_out, adj_out, err, errlen);
}

int umd_graph_rows(const umd_mesh *m, int primary, const int *part, int which, int lo, int hi, int **xadj_out,
                   int **adj_out, char *err, size_t errlen) {
  const int n = m->size[primary];
  if (lo < 0) lo = 0;
  if (hi > n) hi = n;
  int **off = calloc((size_t)m->nmaps + 1, sizeof *off), **inv = calloc((size_t)m->nmaps + 1, sizeof *inv);
  int *mark = malloc((size_t)(n ? n : 1) * sizeof *mark);
  int *xadj = calloc((size_t)(hi > lo ? hi - lo : 0) + 1, sizeof *xadj), row = 0;
  int *adj = NULL;
  size_t len = 0, cap = 0;
  int rc = off && inv && mark && xadj ? UM_SUCCESS : UM_ERR_ALLOC;
  /* inverses of the maps whose targets join primary elements */
  for (int k = 0; k < m->nmaps && rc == UM_SUCCESS; k++) {
    const umd_map *mp = &m->maps[k];
    if (mp->from == primary && mp->to != primary) rc = invert(mp, n, m->size[mp->to], &off[k], &inv[k]);
    else if (mp->to == primary) rc = invert(mp, m->size[mp->from], n, &off[k], &inv[k]);
  }
  for (int p = 0; p < n && rc == UM_SUCCESS; p++) mark[p] = -1;
#define PUSH(v)                                                            \
  do {                                                                     \
    const int v_ = (v);                                                    \
    if (v_ != p && mark[v_] != p) {                                        \
      mark[v_] = p;                                                        \
      if (len == cap) {                                                    \
        size_t nc = cap ? 2 * cap : 4096;                                  \
        int *q = nc > (size_t)INT_MAX ? NULL : realloc(adj, nc * sizeof *q); \
        if (!q) {                                                          \
          rc = UM_ERR_ALLOC;                                               \
          break;                                                           \
        }                                                                  \
        adj = q;                                                           \
        cap = nc;                                                          \
      }                                                                    \
      adj[len++] = v_;                                                     \
    }                                                                      \
  } while (0)
  for (int p = lo; p < hi && rc == UM_SUCCESS; p++) {
    if (part && part[p] != which) continue;
    for (int k = 0; k < m->nmaps && rc == UM_SUCCESS; k++) {
      const umd_map *mp = &m->maps[k];
      if (mp->from == primary && mp->to == primary) { /* a map of the set to itself: its rows and their inverse */
        for (int a = 0; a < mp->arity && rc == UM_SUCCESS; a++) PUSH(mp->data[(size_t)p * mp->arity + a]);
        for (int j = off[k][p]; j < off[k][p + 1] && rc == UM_SUCCESS; j++) PUSH(inv[k][j]);
      } else if (mp->from == primary) { /* sharing a target */
        for (int a = 0; a < mp->arity && rc == UM_SUCCESS; a++) {
          const int t = mp->data[(size_t)p * mp->arity + a];
          for (int j = off[k][t]; j < off[k][t + 1] && rc == UM_SUCCESS; j++) PUSH(inv[k][j]);
        }
      } else if (mp->to == primary) { /* one element of another set maps to both */
        for (int j = off[k][p]; j < off[k][p + 1] && rc == UM_SUCCESS; j++) {
          const int *row = mp->data + (size_t)inv[k][j] * mp->arity;
          for (int a = 0; a < mp->arity && rc == UM_SUCCESS; a++) PUSH(row[a]);
        }
      }
    }
    xadj[++row] = (int)len;
  }
#undef PUSH
  for (int k = 0; off && inv && k < m->nmaps; k++) {
    free(off[k]);
    free(inv[k]);
  }
  free(off);
  free(inv);
  free(mark);
  if (rc == UM_SUCCESS && !adj && !(adj = malloc(sizeof *adj))) rc = UM_ERR_ALLOC;
  if (rc != UM_SUCCESS) {
    free(xadj);
    free(adj);
    return um_format_error(err, errlen, rc, "partition: out of memory building the graph of the primary set");
  }
  *xadj_out = xadj;
  *adj_out = adj;
  return UM_SUCCESS;
}

int umd_part_quality(const umd_mesh *m, int primary, const int *part, int which, long *cut_ends, int *ncomp, char *err,
                     size_t errlen) {
  const int n = m->size[primary];
  int *xadj = NULL, *adj = NULL;
  *cut_ends = 0;
  *ncomp = 0;
  if (umd_graph_rows(m, primary, part, which, 0, n, &xadj, &adj, err, errlen)) return UM_ERR_ALLOC;
  int *row_of = malloc((size_t)(n ? n : 1) * sizeof *row_of), *stack = NULL, cnt = 0;
  if (row_of) {
    for (int v = 0; v < n; v++) row_of[v] = part[v] == which ? cnt++ : -1;
    stack = malloc((size_t)(cnt ? cnt : 1) * sizeof *stack);
  }
  if (!row_of || !stack) {
    free(xadj), free(adj), free(row_of), free(stack);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "partition: out of memory checking the parts");
  }
  long ends = 0;
  for (int r = 0; r < cnt; r++)
    for (int j = xadj[r]; j < xadj[r + 1]; j++) ends += part[adj[j]] != which;
  /* components: a depth-first search over the part's own edges; row_of[v] = -2 once reached */
  for (int v = 0; v < n; v++) {
    if (row_of[v] < 0) continue;
    (*ncomp)++;
    int top = 0;
    stack[top++] = row_of[v];
    row_of[v] = -2;
    while (top) {
      const int r = stack[--top];
      for (int j = xadj[r]; j < xadj[r + 1]; j++) {
        const int q = adj[j];
        if (row_of[q] >= 0) {
          stack[top++] = row_of[q];
          row_of[q] = -2;
        }
      }
    }
  }
  *cut_ends = ends;
  free(xadj), free(adj), free(row_of), free(stack);
  return UM_SUCCESS;
}

long umd_edge_cut(int n, const int *xadj, const int *adj, const int *part) {
  long cut = 0;
  for (int p = 0; p < n; p++)
    for (int j = xadj[p]; j < xadj[p + 1]; j++)
      if (adj[j] > p && part[adj[j]] != part[p]) cut++;
  return cut;
}
