/* run.tune's cache, <cache>/tune.txt (tune.c): one line per choice, appended by each run that tunes a loop,
 *
 *   <key: 16 hex digits> <chosen> <n> <strategy>:<block_size>:<split>:<variant>:<seconds> ... # <loop>
 *
 * (n settings as um_tune_info lists them; seconds -1: the setting failed). The file is found, not named by the
 * user: it is read as a cache file (util/cache_dir.h, um_cache_open_read: never through a symbolic link, the user's
 * own only, a regular file of at most TUNE_FILE_MAX bytes, so a FIFO or a link to /dev/zero never hangs a run),
 * lines of at most TUNE_LINE_MAX bytes, and every field is checked as its setting is checked (a strategy the backend
 * offers, run.block_size's bounds, a split mode, a kernel variant the backend has). A line that fails is skipped
 * with one note naming the file and the line; nothing here fails a run: the worst a bad file does is a loop tuned
 * again. Appends never go through a symbolic link (um_cache_append). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tune.h"
#include "um/safe_file.h"
#include "util/cache_dir.h"

#define TUNE_FILE_MAX (16ull << 20) /* bytes: thousands of loops' lines */
#define TUNE_LINE_MAX 4096          /* bytes of one line (24 settings take ~600) */
#define TUNE_BLOCK_MAX UM_MAX_BLOCK_SIZE

typedef struct {
  int chosen, n;
  um_tune_trial tr[UM_TUNE_MAX_TRIALS];
} tune_line;

/* One line of f into buf (cap bytes, NUL-terminated, without its newline); 0 at the end of the file. *bad: 1 it
 * was longer than buf (the rest is skipped), 2 it held a NUL byte. */
static int read_line(FILE *f, char *buf, size_t cap, int *bad) {
  size_t n = 0;
  int c, any = 0;
  *bad = 0;
  while ((c = getc(f)) != EOF) {
    any = 1;
    if (c == '\n') break;
    if (c == '\0' && !*bad) *bad = 2;
    if (n + 1 >= cap) *bad = 1;
    else buf[n++] = (char)c;
  }
  if (n && buf[n - 1] == '\r') n--;
  buf[n] = '\0';
  return any;
}

/* A decimal integer in [lo, hi] at *p (no sign but '-', no spaces), *p moved past it; 0 if there is none. */
static int int_at(const char **p, long lo, long hi, int *out) {
  if (!isdigit((unsigned char)**p) && !(**p == '-' && isdigit((unsigned char)(*p)[1]))) return 0;
  char *end;
  errno = 0;
  const long v = strtol(*p, &end, 10);
  if (errno || v < lo || v > hi) return 0;
  *out = (int)v;
  *p = end;
  return 1;
}

/* Does the backend offer strategy s (as um_loop_set_strategy asks it)? Its refusal is a question, not an error. */
static int strategy_offered(um_context *ctx, int s) {
  if (s < (int)UM_STRATEGY_AUTO || s > (int)UM_STRATEGY_HIERARCHICAL) return 0;
  char keep[UM_ERRMSG_LEN];
  memcpy(keep, ctx->errmsg, sizeof keep);
  um_strategy r = UM_STRATEGY_AUTO;
  const int ok = ctx->backend->exec.strategy(ctx, ctx->bstate, (um_strategy)s, &r) == UM_SUCCESS;
  memcpy(ctx->errmsg, keep, sizeof keep);
  return ok;
}

/* One setting "s:b:sp:v:seconds" at *p into t, each field checked as its setting is; NULL, or what is wrong. */
static const char *parse_trial(um_context *ctx, const char **p, um_tune_trial *t, char *why, size_t n) {
  static const char *const form = "it is not strategy:block_size:split:variant:seconds (cut short?)";
  int s = 0, b = 0, sp = 0, v = 0;
  memset(t, 0, sizeof *t);
  if (!int_at(p, -1000000, 1000000, &s) || *(*p)++ != ':') return form;
  if (!strategy_offered(ctx, s)) {
    snprintf(why, n, "strategy %d is not one the %s backend offers (%s)", s, ctx->backend->name,
             s >= 0 && s <= (int)UM_STRATEGY_HIERARCHICAL ? um_strategy_name((um_strategy)s) : "no such strategy");
    return why;
  }
  if (!int_at(p, -2147483647L - 1, 2147483647L, &b) || *(*p)++ != ':') return form;
  if (b < 1 || b > TUNE_BLOCK_MAX) {
    snprintf(why, n, "block size %d is outside run.block_size's bounds (1 .. %d)", b, TUNE_BLOCK_MAX);
    return why;
  }
  if (!int_at(p, -1000000, 1000000, &sp) || *(*p)++ != ':') return form;
  if (sp < 0 || sp > (int)UM_SPLIT_FUSED) return "its split mode is not 0 .. 4 (off, scatter, gather, auto, fused)";
  if (!int_at(p, -1000000, 1000000, &v) || *(*p)++ != ':') return form;
  if (!um_backend_variant_name(ctx, v)) {
    snprintf(why, n, "kernel variant %d is not one the %s backend has", v, ctx->backend->name);
    return why;
  }
  char *end;
  const double sec = strtod(*p, &end);
  if (end == *p) return form;
  if (!isfinite(sec) || (sec < 0 && sec != -1) || sec > 1e9) return "its time is not a time in seconds (or -1)";
  *p = end;
  t->strategy = (um_strategy)s, t->block_size = b, t->split = (um_split)sp, t->variant = v, t->seconds = sec;
  return NULL;
}

/* The line after its key: its fields into L, each checked; NULL, or what is wrong with it. */
static const char *parse_line(um_context *ctx, const char *p, tune_line *L, char *why, size_t n) {
  if (*p++ != ' ' || !int_at(&p, 0, UM_TUNE_MAX_TRIALS - 1, &L->chosen) || *p++ != ' ' ||
      !int_at(&p, 1, UM_TUNE_MAX_TRIALS, &L->n) || L->chosen >= L->n)
    return "it does not begin with the chosen setting and the number of settings (0 <= chosen < n <= 24)";
  for (int k = 0; k < L->n; k++) {
    if (*p != ' ' || !p[1]) {
      snprintf(why, n, "it %s after %d of its %d settings", *p ? "has other text" : "ends (cut short?)", k, L->n);
      return why;
    }
    p++;
    const char *w = parse_trial(ctx, &p, &L->tr[k], why, n);
    if (w) {
      char tmp[150];
      snprintf(tmp, sizeof tmp, "%.140s", w);
      snprintf(why, n, "setting %d: %s", k + 1, tmp);
      return why;
    }
  }
  while (*p == ' ') p++;
  if (*p && *p != '#') return "text follows its settings";
  if (L->tr[L->chosen].seconds < 0) return "the setting it chose failed in its trial";
  return NULL;
}

/* A valid line whose key is this loop's: are its settings the ones tuning lists for the loop now (T's, in their
 * order, with the default kernel), then the backend's kernel variants 1, 2, .. with one of those settings? */
static const char *fits(const tune_line *L, const um_tune_info *T) {
  if (L->n < T->ntrials) return "it has fewer settings than this loop lists";
  for (int k = 0; k < L->n; k++) {
    const um_tune_trial *a = &L->tr[k], *b = k < T->ntrials ? &T->trial[k] : &L->tr[T->ntrials];
    if (k < T->ntrials && a->variant != 0) return "its settings are not the ones this loop lists";
    if (k >= T->ntrials && a->variant != k - T->ntrials + 1) return "its kernel variants are not in tuning's order";
    if (a->strategy != b->strategy || a->block_size != b->block_size || a->split != b->split)
      return "its settings are not the ones this loop lists";
  }
  if (L->n == T->ntrials) return NULL;
  for (int k = 0; k < T->ntrials; k++) /* the variants were tried with one of the listed settings */
    if (L->tr[T->ntrials].strategy == T->trial[k].strategy && L->tr[T->ntrials].block_size == T->trial[k].block_size &&
        L->tr[T->ntrials].split == T->trial[k].split)
      return NULL;
  return "its kernel variants were tried with a setting this loop does not list";
}

static void note_line(um_context *ctx, const char *path, int line, const char *why) {
  um_backend_log(ctx, UM_LOG_WARNING, "um: run.tune: %s:%d: %s; the line is skipped (remove it, or the file, to be "
                 "rid of this note)", path, line, why);
}

int um__tune_cache_read(um_context *ctx, const char *path, uint64_t key, um_tune_info *T, int note_all, int *line) {
  char err[256], buf[TUNE_LINE_MAX + 1], want[20], why[200];
  *line = 0;
  const int fd = um_cache_open_read(path, TUNE_FILE_MAX, NULL, err, sizeof err);
  FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
  if (!f) {
    if (fd >= 0) close(fd);
    else if (note_all && errno != ENOENT)
      um_backend_log(ctx, UM_LOG_WARNING, "um: run.tune: the tuning cache is not read: %s; the loops are tuned anew "
                     "(remove it)", err);
    return 0;
  }
  tune_line *L = malloc(sizeof *L), *best = malloc(sizeof *best);
  snprintf(want, sizeof want, "%016llx", (unsigned long long)key);
  int lineno = 0, bad;
  while (L && best && read_line(f, buf, sizeof buf, &bad)) {
    lineno++;
    if (buf[strspn(buf, " \t")] == '\0' || buf[0] == '#') continue;
    const int mine = strncmp(buf, want, 16) == 0;
    if (!mine && !note_all) continue; /* (another loop's: noted, if bad, at the run's first read) */
    const char *w = bad == 1 ? "it is longer than the 4096 bytes a line may hold"
                    : bad == 2 ? "it holds a NUL byte"
                    : strspn(buf, "0123456789abcdef") != 16 ? "it does not begin with a key of 16 hex digits"
                               : parse_line(ctx, buf + 16, L, why, sizeof why);
    if (w && !note_all) continue; /* noted at the run's first read */
    if (!w && !mine) continue;
    if (!w) w = fits(L, T);
    if (w) {
      note_line(ctx, path, lineno, w);
      continue;
    }
    *best = *L; /* later lines win: keep reading */
    *line = lineno;
  }
  fclose(f);
  if (*line) {
    memcpy(T->trial, best->tr, (size_t)best->n * sizeof best->tr[0]);
    T->ntrials = best->n;
    T->chosen = best->chosen;
  }
  free(L);
  free(best);
  return *line != 0;
}

void um__tune_cache_write(um_context *ctx, const char *path, uint64_t key, const char *loop, const um_tune_info *T) {
  char line[TUNE_LINE_MAX], name[128];
  size_t i = 0; /* the loop's name as the comment, one line whatever it holds */
  for (; loop[i] && i + 1 < sizeof name; i++) name[i] = (unsigned char)loop[i] < 0x20 ? '?' : loop[i];
  name[i] = '\0';
  int n = snprintf(line, sizeof line, "%016llx %d %d", (unsigned long long)key, T->chosen, T->ntrials);
  for (int k = 0; k < T->ntrials && n > 0 && n < (int)sizeof line; k++)
    n += snprintf(line + n, sizeof line - (size_t)n, " %d:%d:%d:%d:%.6g", (int)T->trial[k].strategy,
                  T->trial[k].block_size, (int)T->trial[k].split, T->trial[k].variant,
                  T->trial[k].seconds < 0 ? -1.0 : T->trial[k].seconds);
  if (n > 0 && n < (int)sizeof line) n += snprintf(line + n, sizeof line - (size_t)n, " # %s\n", name);
  if (n <= 0 || n >= (int)sizeof line) return;
  struct stat st; /* a file over its bound is never read again: it is not let grow past it */
  if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (unsigned long long)st.st_size + (size_t)n > TUNE_FILE_MAX) {
    if (!ctx->tune_cache_full++)
      um_backend_log(ctx, UM_LOG_WARNING, "um: run.tune: %s holds the %llu MiB a tuning cache may: this run's choices "
                     "are not added to it (remove it, or its old lines)", path, TUNE_FILE_MAX >> 20);
    return;
  }
  char err[512];
  if (um_cache_append(path, "# um run.tune: key chosen n strategy:block_size:split:variant:seconds ... # loop\n", line,
                      (size_t)n, err, sizeof err) != 0)
    um_backend_log(ctx, UM_LOG_WARNING, "um: run.tune: could not store the choice of loop '%s' in %s: %s", name, path,
                   err);
}
