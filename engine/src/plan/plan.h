/* Execution plans: one builder shared by every backend that needs one.
 *
 * A plan splits the iteration set into contiguous mini-partitions ("blocks":
 * block_size consecutive elements, or ranges the caller gives),
 * lists per block the targets of every indirectly accessed dat (what a GPU
 * block stages in shared memory), renumbers map references locally, colours
 * elements inside a block ("thread colours") and blocks across the set
 * ("block colours") so that no two elements / blocks of one colour write the
 * same target, and groups blocks by colour (the block map).
 */
#ifndef UM_PLAN_H
#define UM_PLAN_H

#include <stddef.h>
#include "um/um.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most args a plan (and a plan key) can describe. */
#define UM_PLAN_MAX_ARGS 48
/* um_plan_arg.idx of a vector arg: every index of the map row (um/um.h's UM_ALL).
 * Such an arg is never staged (no ind, no local indices); when it writes (INC),
 * every target of an element's row conflicts, in thread and block colouring. */
#define UM_PLAN_ALL (-2)

/* One argument of the loop, as the plan builder sees it. */
typedef struct {
  const int *map;   /* NULL: direct or global arg (ignored by the plan)        */
  int arity;        /* map arity                                               */
  int idx;          /* map index, 0 <= idx < arity; UM_PLAN_ALL: every index   */
  int to_size;      /* size of the map's target set                            */
  int dat_id;       /* identifies the dat; args with equal (dat_id, map_id)    */
  int map_id;       /*   share one staging list ("ind")                        */
  int dim;          /* values per target                                       */
  int esize;        /* bytes per value                                         */
  um_access acc;    /* INC, RW and WRITE indirect args conflict                */
} um_plan_arg;

typedef struct {
  int set_size;
  int block_size;   /* > 0 */
  int nargs;
  const um_plan_arg *args;
  /* Optional blocks given by the caller (e.g. the parts of a partition
   * reordering, see um/reorder.h): block b is elements [block_offset[b],
   * block_offset[b+1]); offsets start at 0, end at set_size and every block
   * has 1..block_size elements (none when set_size is 0). NULL (and nblocks 0,
   * as a zero-initialised input has): blocks of block_size consecutive
   * elements, the last one shorter. */
  const int *block_offset; /* [nblocks+1] or NULL */
  int nblocks;
} um_plan_input;

typedef struct {
  int nblocks;
  int nblock_colours;
  double mean_thread_colours;  /* over blocks                                */
  int max_thread_colours;
  double shared_bytes_mean;    /* bytes to stage all indirect data of a block */
  long shared_bytes_max;
  double shared_inc_bytes_mean;/* bytes to stage only INC indirect data       */
  long shared_inc_bytes_max;
  double reuse_factor;         /* indirect references / staged targets       */
  double cache_lines_mean;     /* distinct 32-byte lines of indirect data per block */
} um_plan_stats;

typedef struct um_plan {
  int set_size, block_size, nblocks, nargs;
  int *block_offset;     /* [nblocks+1]: block b is elements [off[b], off[b+1])  */
  /* staging ("inds"): distinct (dat_id, map_id) pairs among indirect args */
  int ninds;
  int *arg_ind;          /* [nargs]: ind of each arg, -1 if direct/global          */
  int *ind_dim;          /* [ninds] */
  int *ind_esize;        /* [ninds] */
  int *ind_inc;          /* [ninds]: 1 if every arg of the ind is INC              */
  int **ind_offset;      /* [ninds][nblocks+1]: block b's targets are             */
  int **ind_targets;     /*   ind_targets[i][ind_offset[i][b] .. ind_offset[i][b+1]) sorted, unique */
  int **loc;             /* [nargs][set_size]: local index of element e's target
                            in its block's list (NULL for direct args)           */
  /* colouring */
  int *thread_colour;    /* [set_size] */
  int *nthread_colours;  /* [nblocks] */
  int *block_colour;     /* [nblocks] */
  int nblock_colours;
  int *colour_offset;    /* [nblock_colours+1]: blocks of colour c are            */
  int *block_order;      /*   block_order[colour_offset[c] .. colour_offset[c+1]) */
  um_plan_stats stats;
} um_plan;

/* Build a plan. Returns UM_SUCCESS or an error code with a message in err. */
int um_plan_build(const um_plan_input *in, um_plan **out, char *err, size_t errlen);
/* Prove the plan's invariants: every element in exactly one block; local indices
 * round-trip to the global targets; no two elements of one thread colour in a
 * block, and no two blocks of one block colour, write (INC/RW/WRITE) the same
 * target; block map consistent. Returns UM_ERR_PLAN with a message if not. */
int um_plan_check(const um_plan *p, const um_plan_input *in, char *err, size_t errlen);
void um_plan_free(um_plan *p);
/* Testing: like um_plan_build, but the allocation after the first `nallocs`
 * ones fails (nallocs < 0: none fails), so tests can prove that UM_ERR_ALLOC
 * leaves nothing allocated. */
int um_plan_build_fail_after(const um_plan_input *in, int nallocs, um_plan **out, char *err, size_t errlen);

/* ---- plan cache, keyed by the loop's signature -------------------------- */
typedef struct {
  const void *set;        /* identity of the iteration set */
  int nargs;
  struct { const void *dat, *map; int idx; int acc; } arg[UM_PLAN_MAX_ARGS];
  int block_size;
  int strategy;
  int size;               /* elements planned: [begin, begin + size) of the set */
  int begin;
} um_plan_key;

typedef struct um_plan_cache um_plan_cache;
um_plan_cache *um_plan_cache_create(void);
void um_plan_cache_destroy(um_plan_cache *c);
um_plan *um_plan_cache_find(const um_plan_cache *c, const um_plan_key *k);
/* Takes ownership of p, also on failure (p is then freed): UM_ERR_ARG for NULL
 * arguments, a key with nargs outside [0, UM_PLAN_MAX_ARGS] or a key already
 * present; UM_ERR_ALLOC if the cache cannot grow. */
int um_plan_cache_insert(um_plan_cache *c, const um_plan_key *k, um_plan *p);
int um_plan_cache_count(const um_plan_cache *c);
void um_plan_cache_clear(um_plan_cache *c); /* frees every plan */
/* Frees the plans whose key names obj as its set or as an arg's dat or map
 * (e.g. after reordering); returns how many were dropped. */
int um_plan_cache_drop(um_plan_cache *c, const void *obj);

#ifdef __cplusplus
}
#endif
#endif
