/* Automatic loop splitting's state (split.c), shared with its gathers (split_gather.c). */
#ifndef UM_TRANSFORM_SPLIT_STATE_H
#define UM_TRANSFORM_SPLIT_STATE_H

#include <stdint.h>
#include "core/internal.h"

typedef struct {
  um_dat *dst;             /* incremented through maps */
  int nsrc;
  int arg[UM_MAX_ARGS];    /* the loop's args that increment it (k-th source: arg[k]) */
  um_dat *src[UM_MAX_ARGS];
  int end;                 /* the CSR covers elements [0, end); -1: not built */
  unsigned long long negate; /* bit k: source k is the partner's temporary of an um_arg_minus arg, read negated */
  int *rows, *off, *ent;   /* rows: the targets some element increments (NULL: all of them) */
  int *elem;               /* ent decoded once: ent / nsrc (the element) and ent % nsrc (the source; NULL if 1) */
  unsigned char *slot;
  int ntargets;
  int total;               /* rows of the target set when built */
  unsigned long key;
} split_target;

struct um_split_state {
  struct um_split_state *next; /* the loop's other shapes */
  uint64_t shape;          /* the args and set sizes it was made for */
  int variant;             /* UM_SPLIT_SCATTER or UM_SPLIT_GATHER (or OFF: exact reductions only) */
  um_arg cargs[UM_MAX_ARGS];
  int tmp[UM_MAX_ARGS];    /* per arg: the temporary's index in ctx->temps, or -1 */
  int exact[UM_MAX_ARGS];  /* per arg: a global INC summed exactly from its temporary */
  int cid;                 /* the contribution loop's record */
  int c_conflicts, c_indirect, c_reduction;
  int nupd;                /* SCATTER: one loop per incremented arg */
  int uid[UM_MAX_ARGS];
  int udim[UM_MAX_ARGS];
  um_arg uargs[UM_MAX_ARGS][3];
  int ntgt;                /* GATHER: one per incremented dat */
  split_target tgt[UM_MAX_ARGS];
  int gid;                 /* GATHER: the record its time and bytes go to */
  int minus[UM_MAX_ARGS];  /* GATHER on a backend with contrib_drop: the partner of arg i (um_arg_minus), else -1 */
  unsigned long long drop; /* the args with a partner: their contributions not stored once checked */
  int minus_state;         /* 0: not checked yet (the call stores every arg), 1: checked (drop), -1: the check failed */
  int minus_zero_calls;    /* calls checked while every partner's contribution was zero */
};

/* GATHER: the partners of the loop's um_arg_minus args (sp->minus, sp->drop; split_gather.c) */
void um__split_mark_minus(um_context *ctx, const um_loop *loop, struct um_split_state *sp);
/* The inverse map of target T over elements [0, end) (split_gather.c) */
int um__split_build_csr(um_context *ctx, const um_loop *loop, split_target *T, int end);
/* After the first call: um_arg_minus's declarations checked, the gathers' sources switched (split_gather.c) */
int um__split_check_minus(um_context *ctx, struct um_split_state *sp, um_loop *loop);
/* The split's reason (record rec_id) names the args read as minus their partners', if the state drops any */
void um__split_minus_reason(um_context *ctx, int rec_id, const struct um_split_state *sp, int nargs);

#endif
