/* Lazy reductions (um_decl_reduction, um_arg_reduction, um_reduction_get): a loop reduces into a handle
 * and, on a backend with lazy_reductions, returns without waiting for the result; um_reduction_get waits for
 * it when the app asks. Each call's result starts from the operation's identity and replaces the handle's
 * value. Core decides when a backend may defer (um__reductions_all_lazy: every reduction of the call lazy,
 * one piece, one process, not reproducible); a backend that defers writes the result into the handle's
 * buffer (host_alloc: pinned, mapped) and sets loop->deferred; where it can also mark that point in its queue
 * (reduction_mark), um_reduction_get waits for the mark only, not for the work queued after the call. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "../util/array.h"

struct um_reduction {
  um_context *ctx;
  char *name;
  int dim;
  um_type type;
  um_access acc;
  double identity[UM_MAX_SCRATCH_DIM]; /* each call starts here (dim values of type) */
  double value[UM_MAX_SCRATCH_DIM];    /* the last delivered result */
  void *buf;                           /* where a deferred call's result lands (the backend's host_alloc), or NULL */
  int state;                           /* 0 no call yet, 1 value holds the result, 2 buf will hold it */
  void *mark;                          /* the backend's mark of where buf's result is complete (reduction_mark) */
  int marked;                          /* state 2 and mark set by the last call: wait for it, not for everything */
  char loop[64];                       /* the loop and call that produced it, for messages */
  long call;
};

static size_t value_bytes(const um_reduction *r) { return (size_t)r->dim * um_type_size(r->type); }

static void set_identity(um_reduction *r) {
  for (int c = 0; c < r->dim; c++) {
    if (r->type == UM_DOUBLE)
      ((double *)r->identity)[c] = r->acc == UM_INC ? 0.0 : r->acc == UM_MIN ? INFINITY : -INFINITY;
    else if (r->type == UM_FLOAT)
      ((float *)r->identity)[c] = r->acc == UM_INC ? 0.0f : r->acc == UM_MIN ? INFINITY : -INFINITY;
    else ((int *)r->identity)[c] = r->acc == UM_INC ? 0 : r->acc == UM_MIN ? INT_MAX : INT_MIN;
  }
}

int um_decl_reduction(um_context *ctx, int dim, um_type type, um_access acc, const char *name, um_reduction **out) {
  UM_CTX_OK(ctx);
  if (!out) return UM_ERROR(ctx, UM_ERR_ARG, "um_decl_reduction: out is NULL");
  UM_CHECK(ctx, um__check_name(ctx, "reduction", name));
  for (int i = 0; i < ctx->nreductions; i++)
    if (!strcmp(ctx->reductions[i]->name, name))
      return UM_ERROR(ctx, UM_ERR_ARG, "reduction '%s' is declared already: names are unique among reductions", name);
  *out = NULL;
  if (dim < 1 || dim > UM_MAX_SCRATCH_DIM)
    return UM_ERROR(ctx, UM_ERR_ARG, "reduction '%s': dim %d (use 1 .. %d)", name, dim, UM_MAX_SCRATCH_DIM);
  if (!um_type_size(type)) return UM_ERROR(ctx, UM_ERR_ARG, "reduction '%s': unknown type %d", name, (int)type);
  if (acc != UM_INC && acc != UM_MIN && acc != UM_MAX)
    return UM_ERROR(ctx, UM_ERR_ARG, "reduction '%s': access %s (a reduction is UM_INC, UM_MIN or UM_MAX)", name,
                    um_access_name(acc));
  if (UM_GROW(ctx->reductions, ctx->capreductions, ctx->nreductions))
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring reduction '%s'", name);
  um_reduction *r = calloc(1, sizeof *r);
  if (r) r->name = malloc(strlen(name) + 1);
  if (!r || !r->name) {
    free(r);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring reduction '%s'", name);
  }
  strcpy(r->name, name);
  r->ctx = ctx;
  r->dim = dim;
  r->type = type;
  r->acc = acc;
  set_identity(r);
  const um_backend_def *b = ctx->backend;
  if (b && b->caps.lazy_reductions && b->data.host_alloc && b->data.host_free) { /* else every call delivers at once */
    r->buf = b->data.host_alloc(ctx, ctx->bstate, value_bytes(r));
  }
  ctx->reductions[ctx->nreductions++] = r;
  *out = r;
  return UM_SUCCESS;
}

um_arg um_arg_reduction(um_reduction *r) {
  um_arg a = um_arg_gbl(r ? r->identity : NULL, r ? r->dim : 0, r ? r->type : UM_DOUBLE, r ? r->acc : UM_INC);
  a.red = r;
  return a;
}

void *um_reduction_buffer(const um_reduction *r) { return r ? r->buf : NULL; }

int um__reduction_check(um_context *ctx, const char *loop, int i, const um_arg *a) {
  const um_reduction *r = a->red;
  if (r->ctx != ctx)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: reduction '%s' belongs to another context", loop, i, r->name);
  if (a->gbl != (const void *)r->identity || a->dim != r->dim || a->type != r->type || a->acc != r->acc)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "loop '%s', arg %d: the argument of reduction '%s' was changed after um_arg_reduction made it (it "
                    "reduces %d x %s by %s); pass um_arg_reduction(r) as it is",
                    loop, i, r->name, r->dim, um_type_name(r->type), um_access_name(r->acc));
  return UM_SUCCESS;
}

int um__reductions_all_lazy(const um_loop *loop) {
  int any = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_GBL || a->acc == UM_READ) continue;
    if (!a->red || !a->red->buf) return 0;
    any = 1;
  }
  return any;
}

void um__reduction_finish(const um_loop *loop, int i, long call) {
  um_reduction *r = loop->args[i].red;
  snprintf(r->loop, sizeof r->loop, "%s", loop->name);
  r->call = call;
  if (loop->deferred) {
    const um_backend_def *b = r->ctx->backend;
    r->state = 2;
    r->marked = b->extras.reduction_mark && b->extras.reduction_wait && b->extras.reduction_mark(r->ctx, r->ctx->bstate, &r->mark) == 1;
    return;
  }
  memcpy(r->value, loop->red[i], value_bytes(r)); /* started from the identity: the call's own result */
  r->state = 1;
}

int um_reduction_get(um_context *ctx, um_reduction *r, void *out, size_t bytes) {
  UM_CTX_OK(ctx);
  if (!r || (!out && bytes)) return UM_ERROR(ctx, UM_ERR_ARG, "um_reduction_get: %s", !r ? "no reduction" : "out is NULL");
  if (r->ctx != ctx) return UM_ERROR(ctx, UM_ERR_ARG, "um_reduction_get: reduction '%s' belongs to another context", r->name);
  if (bytes != value_bytes(r))
    return UM_ERROR(ctx, UM_ERR_ARG, "um_reduction_get('%s'): buffer is %zu bytes but the reduction holds %d x %s = %zu",
                    r->name, bytes, r->dim, um_type_name(r->type), value_bytes(r));
  if (r->state == 0)
    return UM_ERROR(ctx, UM_ERR_ARG, "reduction '%s': no loop has reduced into it yet (pass um_arg_reduction to one)",
                    r->name);
  if (r->state == 2) { /* the call's result arrives in buf: wait for its mark (the later work runs on), or for all */
    if (r->marked) UM_CHECK(ctx, ctx->backend->extras.reduction_wait(ctx, ctx->bstate, r->mark));
    else UM_CHECK(ctx, um_sync(ctx));
    memcpy(r->value, r->buf, value_bytes(r));
    r->state = 1;
  }
  memcpy(out, r->value, bytes);
  for (int c = 0; c < r->dim && r->type != UM_INT; c++) {
    const double v = um__gbl_value(r->value, r->type, c);
    if (isnan(v) || (r->acc == UM_INC && !isfinite(v)))
      return UM_ERROR(ctx, UM_ERR_DIVERGED,
                      "loop '%s', call %ld: the lazy %s reduction '%s' (component %d) is %g: the run diverged, or a "
                      "kernel produced a non-finite value (read with um_reduction_get, so found after the call; "
                      "earlier calls may already have gone wrong)",
                      r->loop, r->call, um_access_name(r->acc), r->name, c, v);
  }
  return UM_SUCCESS;
}

int um_reduction_pending(const um_reduction *r) { return r && r->state == 2; }

void um__reductions_free(um_context *ctx) {
  for (int i = 0; i < ctx->nreductions; i++) {
    um_reduction *r = ctx->reductions[i];
    if (r->buf) ctx->backend->data.host_free(r->buf); /* (allocated only where the backend has both hooks) */
    if (r->mark && ctx->backend->extras.reduction_mark_free) ctx->backend->extras.reduction_mark_free(ctx, ctx->bstate, r->mark);
    free(r->name);
    free(r);
  }
  free(ctx->reductions);
  ctx->reductions = NULL;
  ctx->nreductions = ctx->capreductions = 0;
}

const char *um__reduction_name(const um_reduction *r) { return r->name; }
