/* umrun --report: the loops of every run, indexed once (by name, and each loop's generated loops by their
 * parent), so that the page's tables look a loop up in constant time: the report takes time linear in the
 * loops of the results files (thousands of loops per run, from files written on other machines). */
#include <stdint.h>

#include "hash.h"
#include "htmlreport_internal.h"

/* ---- a table of strings (borrowed) to ints: open addressing, FNV-1a ------------------------- */
static uint64_t hash_str(const char *s) { return um_fnv1a(UM_FNV_OFFSET, s, strlen(s)); }

static int strmap_grow(rep_strmap *m) {
  const int cap = m->cap ? 2 * m->cap : 64;
  const char **key = calloc((size_t)cap, sizeof *key);
  int *val = malloc((size_t)cap * sizeof *val);
  if (!key || !val) {
    free(key);
    free(val);
    return -1;
  }
  for (int i = 0; i < m->cap; i++) /* the old entries, placed again */
    if (m->key[i]) {
      size_t j = (size_t)hash_str(m->key[i]) & (size_t)(cap - 1);
      while (key[j]) j = (j + 1) & (size_t)(cap - 1);
      key[j] = m->key[i], val[j] = m->val[i];
    }
  free(m->key);
  free(m->val);
  m->key = key, m->val = val, m->cap = cap;
  return 0;
}

int rep_strmap_get(const rep_strmap *m, const char *k) {
  if (!m->cap || !k) return -1;
  for (size_t j = (size_t)hash_str(k) & (size_t)(m->cap - 1); m->key[j]; j = (j + 1) & (size_t)(m->cap - 1))
    if (!strcmp(m->key[j], k)) return m->val[j];
  return -1;
}

int rep_strmap_add(rep_strmap *m, const char *k, int v) {
  if (!k) return -1;
  const int old = rep_strmap_get(m, k);
  if (old >= 0) return old;
  if (2 * (m->n + 1) > m->cap && strmap_grow(m)) return -2;
  size_t j = (size_t)hash_str(k) & (size_t)(m->cap - 1);
  while (m->key[j]) j = (j + 1) & (size_t)(m->cap - 1);
  m->key[j] = k, m->val[j] = v, m->n++;
  return -1;
}

void rep_strmap_free(rep_strmap *m) {
  free(m->key);
  free(m->val);
  memset(m, 0, sizeof *m);
}

/* ---- one run's loops -------------------------------------------------------------------------- */
static int run_build(rep_run *r, const uj *run) {
  memset(r, 0, sizeof *r);
  r->run = run;
  r->loops = uj_get(run, "loops");
  r->n = uj_len(r->loops);
  r->next_kid = malloc(((size_t)r->n + 1) * sizeof *r->next_kid);
  int *last = malloc(((size_t)r->n + 1) * sizeof *last); /* per loop: its latest generated loop so far */
  if (!r->next_kid || !last) {
    free(last);
    return -1;
  }
  for (int q = 0; q < r->n; q++) {
    const uj *l = uj_at(r->loops, q);
    const char *p = umrun_loop_parent(l);
    r->next_kid[q] = -1;
    if (rep_strmap_add(&r->names, uj_gets(l, "name", ""), q) == -2) goto oom;
    if (!p) {
      r->loops_seconds += uj_getn(l, "seconds", 0);
      continue;
    }
    const int first = rep_strmap_add(&r->kids, p, q); /* the first generated loop of p, or -1: q is */
    if (first == -2) goto oom;
    if (first >= 0) r->next_kid[last[first]] = q;
    last[first >= 0 ? first : q] = q;
  }
  free(last);
  r->gbs = rep_run_gbs(run);
  return 0;
oom:
  free(last);
  return -1;
}

static void run_free(rep_run *r) {
  rep_strmap_free(&r->names);
  rep_strmap_free(&r->kids);
  free(r->next_kid);
}

const uj *rep_run_loop(const rep_run *r, const char *name) {
  const int q = r ? rep_strmap_get(&r->names, name) : -1;
  return q >= 0 ? uj_at(r->loops, q) : NULL;
}

int rep_run_first_kid(const rep_run *r, const char *name) { return r ? rep_strmap_get(&r->kids, name) : -1; }

/* ---- every run of the results files ------------------------------------------------------------ */
static size_t ptr_slot(const rep_index *x, const uj *run) {
  return (size_t)(((uintptr_t)run >> 4) * 11400714819323198485ULL >> 7) & (size_t)(x->cap - 1);
}

int rep_index_build(rep_index *x, const uj *const *files, int nfiles) {
  memset(x, 0, sizeof *x);
  int n = 0;
  for (int k = 0; k < nfiles; k++) n += uj_len(uj_get(files[k], "cases"));
  for (x->cap = 16; x->cap < 2 * n + 2; x->cap *= 2) {
  }
  x->runs = calloc((size_t)n + 1, sizeof *x->runs);
  x->slot = malloc((size_t)x->cap * sizeof *x->slot);
  if (!x->runs || !x->slot) return rep_index_free(x), -1;
  for (int i = 0; i < x->cap; i++) x->slot[i] = -1;
  for (int k = 0; k < nfiles; k++) {
    const uj *cases = uj_get(files[k], "cases");
    for (int i = 0; i < uj_len(cases); i++) {
      const uj *run = uj_get(uj_at(cases, i), "run");
      if (!run || rep_index_run(x, run)) continue;
      if (run_build(&x->runs[x->nruns], run)) {
        run_free(&x->runs[x->nruns]);
        return rep_index_free(x), -1;
      }
      size_t j = ptr_slot(x, run);
      while (x->slot[j] >= 0) j = (j + 1) & (size_t)(x->cap - 1);
      x->slot[j] = x->nruns++;
    }
  }
  return 0;
}

const rep_run *rep_index_run(const rep_index *x, const uj *run) {
  if (!x || !run || !x->cap) return NULL;
  for (size_t j = ptr_slot(x, run); x->slot[j] >= 0; j = (j + 1) & (size_t)(x->cap - 1))
    if (x->runs[x->slot[j]].run == run) return &x->runs[x->slot[j]];
  return NULL;
}

void rep_index_free(rep_index *x) {
  for (int i = 0; i < x->nruns; i++) run_free(&x->runs[i]);
  free(x->runs);
  free(x->slot);
  memset(x, 0, sizeof *x);
}
