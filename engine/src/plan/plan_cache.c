/* Plan cache: owns plans, keyed by the loop's signature (see plan.h).
 *
 * Keys are compared field by field over the first nargs args only: a key's
 * padding and its unused arg entries may hold anything. A hash of the same
 * fields is kept per entry so that a lookup touches few full comparisons.
 */
#include "plan.h"
#include "um/exec.h"
#include "../util/array.h"
#include "../util/hash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A plan key holds every argument of a loop. */
_Static_assert(UM_PLAN_MAX_ARGS == UM_MAX_ARGS, "UM_PLAN_MAX_ARGS (plan.h) must equal UM_MAX_ARGS (um/exec.h)");

typedef struct {
  um_plan_key key; /* normalised copy: unused args zeroed */
  uint64_t hash;
  um_plan *plan;
} cache_entry;

struct um_plan_cache {
  cache_entry *e;
  int n, cap;
};

static uint64_t mix(uint64_t h, uint64_t v) { return um_fnv1a(h, &v, sizeof v); }

static int key_valid(const um_plan_key *k) { return k && k->nargs >= 0 && k->nargs <= UM_PLAN_MAX_ARGS; }

static uint64_t key_hash(const um_plan_key *k) {
  uint64_t h = UM_FNV_OFFSET;
  h = mix(h, (uint64_t)(uintptr_t)k->set);
  h = mix(h, (uint64_t)(unsigned)k->nargs);
  h = mix(h, (uint64_t)(unsigned)k->block_size);
  h = mix(h, (uint64_t)(unsigned)k->strategy);
  h = mix(h, (uint64_t)(unsigned)k->size);
  h = mix(h, (uint64_t)(unsigned)k->begin);
  for (int a = 0; a < k->nargs; a++) {
    h = mix(h, (uint64_t)(uintptr_t)k->arg[a].dat);
    h = mix(h, (uint64_t)(uintptr_t)k->arg[a].map);
    h = mix(h, (uint64_t)(unsigned)k->arg[a].idx);
    h = mix(h, (uint64_t)(unsigned)k->arg[a].acc);
  }
  return h;
}

static int key_equal(const um_plan_key *x, const um_plan_key *y) {
  if (x->set != y->set || x->nargs != y->nargs || x->block_size != y->block_size || x->strategy != y->strategy ||
      x->size != y->size || x->begin != y->begin)
    return 0;
  for (int a = 0; a < x->nargs; a++)
    if (x->arg[a].dat != y->arg[a].dat || x->arg[a].map != y->arg[a].map || x->arg[a].idx != y->arg[a].idx ||
        x->arg[a].acc != y->arg[a].acc)
      return 0;
  return 1;
}

static void key_copy(um_plan_key *dst, const um_plan_key *src) {
  memset(dst, 0, sizeof *dst);
  dst->set = src->set;
  dst->nargs = src->nargs;
  dst->block_size = src->block_size;
  dst->strategy = src->strategy;
  dst->size = src->size;
  dst->begin = src->begin;
  for (int a = 0; a < src->nargs; a++) {
    dst->arg[a].dat = src->arg[a].dat;
    dst->arg[a].map = src->arg[a].map;
    dst->arg[a].idx = src->arg[a].idx;
    dst->arg[a].acc = src->arg[a].acc;
  }
}

um_plan_cache *um_plan_cache_create(void) { return calloc(1, sizeof(um_plan_cache)); }

void um_plan_cache_clear(um_plan_cache *c) {
  if (!c) return;
  for (int i = 0; i < c->n; i++) um_plan_free(c->e[i].plan);
  c->n = 0;
}

void um_plan_cache_destroy(um_plan_cache *c) {
  if (!c) return;
  um_plan_cache_clear(c);
  free(c->e);
  free(c);
}

static int find_index(const um_plan_cache *c, const um_plan_key *k, uint64_t h) {
  for (int i = 0; i < c->n; i++)
    if (c->e[i].hash == h && key_equal(&c->e[i].key, k)) return i;
  return -1;
}

um_plan *um_plan_cache_find(const um_plan_cache *c, const um_plan_key *k) {
  if (!c || !key_valid(k)) return NULL;
  int i = find_index(c, k, key_hash(k));
  return i >= 0 ? c->e[i].plan : NULL;
}

int um_plan_cache_insert(um_plan_cache *c, const um_plan_key *k, um_plan *p) {
  if (!c || !key_valid(k) || !p) {
    um_plan_free(p);
    return UM_ERR_ARG;
  }
  uint64_t h = key_hash(k);
  if (find_index(c, k, h) >= 0) {
    um_plan_free(p);
    return UM_ERR_ARG;
  }
  if (UM_GROW(c->e, c->cap, c->n)) {
    um_plan_free(p);
    return UM_ERR_ALLOC;
  }
  cache_entry *e = &c->e[c->n++];
  key_copy(&e->key, k);
  e->hash = h;
  e->plan = p;
  return UM_SUCCESS;
}

int um_plan_cache_count(const um_plan_cache *c) { return c ? c->n : 0; }

int um_plan_cache_drop(um_plan_cache *c, const void *obj) {
  if (!c || !obj) return 0;
  int kept = 0, dropped = 0;
  for (int i = 0; i < c->n; i++) {
    const um_plan_key *k = &c->e[i].key;
    int uses = k->set == obj;
    for (int a = 0; a < k->nargs && !uses; a++) uses = k->arg[a].dat == obj || k->arg[a].map == obj;
    if (uses) {
      um_plan_free(c->e[i].plan);
      dropped++;
    } else {
      c->e[kept++] = c->e[i];
    }
  }
  c->n = kept;
  return dropped;
}
