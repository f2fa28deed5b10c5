/* Set-up by phase (um/stats.h): the context keeps a stack of the phases open in the set-up window; the time
 * between two events (a phase begun or ended) goes to the innermost phase open, so the phases add up to the
 * window's wall time whatever their nesting. Outside the window nothing is kept. */
#include <sys/resource.h>
#include <unistd.h>

#include "internal.h"

static const char *const phase_names[UM_SETUP_NPHASES] = {"mesh",  "partition", "migrate", "halos",
                                                          "plans", "compile",   "uploads", "other"};

const char *um_setup_phase_name(um_setup_phase p) { return p >= 0 && p < UM_SETUP_NPHASES ? phase_names[p] : "?"; }

/* The process's minor page faults so far (every thread's): each is a page written or read for the first time. */
static long minor_faults(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

/* The time and the first-touch faults since the last event to the innermost open phase; returns now. */
static double charge(um_context *ctx) {
  const double now = um_wtime();
  const long faults = minor_faults();
  if (ctx->setup.state == 1 && ctx->setup.depth > 0) {
    const int p = ctx->setup.stack[ctx->setup.depth - 1];
    ctx->setup.seconds[p] += now - ctx->setup.mark;
    ctx->setup.faulted[p] += (double)(faults - ctx->setup.faults_mark) * (double)sysconf(_SC_PAGESIZE);
  }
  ctx->setup.mark = now;
  ctx->setup.faults_mark = faults;
  return now;
}

void um_setup_start(um_context *ctx, um_setup_phase base) {
  if (!ctx || base < 0 || base >= UM_SETUP_NPHASES) return;
  for (int i = 0; i < UM_SETUP_NPHASES; i++) ctx->setup.seconds[i] = ctx->setup.faulted[i] = 0;
  ctx->setup.state = 1;
  ctx->setup.depth = 1;
  ctx->setup.stack[0] = (unsigned char)base;
  ctx->setup.mark = um_wtime();
  ctx->setup.faults_mark = minor_faults();
}

double um_setup_stop(um_context *ctx) {
  if (!ctx || ctx->setup.state != 1) return 0;
  charge(ctx);
  ctx->setup.state = 2;
  ctx->setup.depth = 0;
  double total = 0;
  for (int i = 0; i < UM_SETUP_NPHASES; i++) total += ctx->setup.seconds[i];
  return total;
}

double um_setup_begin(um_context *ctx, um_setup_phase p) {
  if (!ctx || ctx->setup.state != 1 || p < 0 || p >= UM_SETUP_NPHASES) return um_wtime();
  const double now = charge(ctx);
  const int cap = (int)(sizeof ctx->setup.stack / sizeof ctx->setup.stack[0]);
  if (ctx->setup.depth < cap) ctx->setup.stack[ctx->setup.depth++] = (unsigned char)p;
  return now;
}

double um_setup_end(um_context *ctx, um_setup_phase p) {
  if (!ctx || ctx->setup.state != 1) return um_wtime();
  const double now = charge(ctx);
  for (int d = ctx->setup.depth - 1; d >= 1; d--) /* the base (stack[0]) stays until um_setup_stop */
    if (ctx->setup.stack[d] == (unsigned char)p) {
      ctx->setup.depth = d;
      break;
    }
  return now;
}

int um_setup_phases(const um_context *ctx, double seconds[UM_SETUP_NPHASES]) {
  const int done = ctx && ctx->setup.state == 2;
  for (int i = 0; i < UM_SETUP_NPHASES; i++) seconds[i] = done ? ctx->setup.seconds[i] : 0;
  return done;
}

int um_setup_faulted(const um_context *ctx, double bytes[UM_SETUP_NPHASES]) {
  const int done = ctx && ctx->setup.state == 2;
  for (int i = 0; i < UM_SETUP_NPHASES; i++) bytes[i] = done ? ctx->setup.faulted[i] : 0;
  return done;
}
