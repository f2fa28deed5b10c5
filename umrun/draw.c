/* umrun --draw plan[=LOOP] FILE.svg | --draw partition[=SET] FILE.svg: after the run, a picture of a loop's plan
 * (its set's elements coloured by block colour, and by thread colour within the block) or of the partition over
 * the ranks (owners; each rank's owned elements, exec halo and non-exec halo), the elements drawn at their
 * coordinates: a dat of 2 values per element on the set, or on a set a map from it reaches (each element the
 * shape of its map row: a point, a segment or a polygon). Small 2-D meshes only. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "draw.h"
#include "json.h"
#include "um/report.h"
#include "um/safe_file.h"

#define PANEL_PX 460.0 /* the longer side of a panel */

/* The message into err; returns -1. */
static int fail(char *err, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(char *err, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, len, fmt, ap);
  va_end(ap);
  return -1;
}

int umrun_draw_parse(umrun_draw *d, const char *what, const char *path, char *err, size_t len) {
  memset(d, 0, sizeof *d);
  const char *eq = strchr(what, '=');
  const size_t head = eq ? (size_t)(eq - what) : strlen(what);
  if (head == 4 && !strncmp(what, "plan", 4))
    d->kind = UMRUN_DRAW_PLAN;
  else if (head == 9 && !strncmp(what, "partition", 9))
    d->kind = UMRUN_DRAW_PARTITION;
  else
    return fail(err, len,
                "--draw '%s': expected plan, plan=LOOP, partition or partition=SET, then the SVG file "
                "(e.g. --draw plan=res_calc plan.svg)",
                what);
  if (eq && !eq[1])
    return fail(err, len, "--draw '%s': name the %s after '=' or leave '=' out", what,
                d->kind == UMRUN_DRAW_PLAN ? "loop" : "set");
  d->name = eq ? eq + 1 : NULL;
  d->path = path;
  if (!path || !*path || path[0] == '-')
    return fail(err, len, "--draw %s: give the SVG file to write after it (e.g. --draw %s picture.svg)", what, what);
  const size_t pl = strlen(path);
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  if (dot && (!slash || dot > slash) && (pl < 4 || strcasecmp(path + pl - 4, ".svg") != 0))
    return fail(err, len, "--draw %s %s: the picture is SVG; name the file .svg (a %s file would hold SVG)", what, path,
                dot);
  if (d->kind == UMRUN_DRAW_PLAN && um_mpi_size() > 1)
    return fail(err, len,
                "--draw %s draws one process's plan, and this run has several ranks: run it without "
                "mpirun (--draw partition draws the ranks)",
                what);
  return 0;
}

/* ---- the coordinates ------------------------------------------------------------------ */

/* The first map from set s to set t, or NULL. */
static um_map *map_to(const um_context *ctx, const um_set *s, const um_set *t) {
  for (int k = 0; k < um_map_count(ctx); k++) {
    um_map *m = um_map_at(ctx, k);
    if (um_map_from(m) == s && um_map_to(m) == t) return m;
  }
  return NULL;
}

/* The dat that places set s's elements, and the map it is reached by (NULL: on s itself). In turn: a dat named
 * like coordinates through a map of 2 or more targets (shapes), on s (points), through a map of one; then the same
 * for any dat of 2 or 3 doubles or floats. Returns 0, or -1 with why in err. */
static int find_coords(const um_context *ctx, const um_set *s, um_dat **dat, um_map **via, char *err, size_t len) {
  *dat = NULL, *via = NULL;
  for (int pass = 0; pass < 6 && !*dat; pass++)
    for (int i = 0; i < um_dat_count(ctx) && !*dat; i++) {
      um_dat *d = um_dat_at(ctx, i);
      if (!um_dat_is_coordinates(d, pass < 3)) continue;
      um_map *m = um_dat_set(d) == s ? NULL : map_to(ctx, s, um_dat_set(d));
      const int how = pass % 3; /* 0: a map of 2 or more, 1: on s, 2: a map of one */
      if ((how == 0 && m && um_map_arity(m) >= 2) || (how == 1 && um_dat_set(d) == s) ||
          (how == 2 && m && um_map_arity(m) == 1))
        *dat = d, *via = m;
    }
  if (!*dat)
    return fail(err, len,
                "set '%s' has no coordinates to draw it by (a dat of 2 doubles or floats on the set, or "
                "on a set a map from it reaches); draw another set (--draw partition=SET) or loop",
                um_set_name(s));
  if (um_dat_dim(*dat) != 2)
    return fail(err, len,
                "the mesh is 3-D (dat '%s' has 3 values per element) and --draw draws 2-D meshes: "
                "Airfoil, Volna, BookLeaf, Jacobi and SIAC (LULESH's and miniAero's meshes are 3-D; "
                "their plan statistics are in the run's table and --json)",
                um_dat_name(*dat));
  return 0;
}

/* The values of d as doubles (um_dat_fetch: collective on a distributed context), or NULL. */
static double *fetch_xy(um_context *ctx, const um_dat *d) {
  const size_t n = (size_t)um_set_size(um_dat_set(d)) * 2, es = um_dat_type(d) == UM_FLOAT ? 4 : 8;
  void *raw = malloc(n * es + 1);
  double *xy = malloc(n * sizeof *xy + 1);
  if (raw && xy && !um_dat_fetch(ctx, d, raw, n * es)) {
    for (size_t i = 0; i < n; i++) xy[i] = es == 4 ? (double)((const float *)raw)[i] : ((const double *)raw)[i];
    free(raw);
    return xy;
  }
  free(raw);
  free(xy);
  return NULL;
}

/* The shapes of set s's elements scaled into a panel (y up in the mesh, down in the picture). */
static void fit_panel(umrun_shapes *g) {
  double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  const size_t np = (size_t)g->n * g->arity;
  for (size_t i = 0; i < np; i++) {
    const double x = g->xy[2 * i], y = g->xy[2 * i + 1];
    x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1, y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
  }
  if (!np) x0 = y0 = 0, x1 = y1 = 1;
  const double dx = x1 - x0 > 0 ? x1 - x0 : 1, dy = y1 - y0 > 0 ? y1 - y0 : 1;
  const double sc = PANEL_PX / (dx > dy ? dx : dy);
  g->w = dx * sc < 40 ? 40 : dx * sc, g->h = dy * sc < 40 ? 40 : dy * sc;
  for (size_t i = 0; i < np; i++)
    g->xy[2 * i] = (g->xy[2 * i] - x0) * sc, g->xy[2 * i + 1] = (y1 - g->xy[2 * i + 1]) * sc;
}

/* Set s's elements as shapes (collective on a distributed context: the fetches). Returns 0, or -1 with err. */
static int shapes_of(um_context *ctx, um_set *s, umrun_shapes *g, char *coords, size_t clen, char *err, size_t len) {
  memset(g, 0, sizeof *g);
  const long long gn = um_set_gsize(s); /* over every rank: 64-bit (um_set_size is -1 past INT_MAX) */
  char num[64];
  snprintf(num, sizeof num, "%lld", gn);
  if (gn > UMRUN_DRAW_MAX_ELEMENTS) {
    snprintf(err, len,
             "set '%s' has %lld elements, and a picture is for small meshes (at most %d): draw a small case "
             "(e.g. configs/airfoil_small.yaml, or smaller mesh.* values)",
             um_set_name(s), gn, UMRUN_DRAW_MAX_ELEMENTS);
    return -1;
  }
  g->n = (int)gn;
  um_dat *d;
  um_map *via;
  if (find_coords(ctx, s, &d, &via, err, len)) return -1;
  g->arity = via ? um_map_arity(via) : 1;
  if (via)
    snprintf(coords, clen, "dat %s through map %s", um_dat_name(d), um_map_name(via));
  else
    snprintf(coords, clen, "dat %s", um_dat_name(d));
  double *xy = fetch_xy(ctx, d);
  int *rows = via ? malloc((size_t)g->n * g->arity * sizeof *rows + 1) : NULL;
  g->xy = malloc((size_t)g->n * g->arity * 2 * sizeof *g->xy + 1);
  int bad = !xy || !g->xy || (via && (!rows || um_map_fetch(ctx, via, rows, (size_t)g->n * g->arity * sizeof *rows)));
  for (int e = 0; e < g->n && !bad; e++)
    for (int a = 0; a < g->arity; a++) {
      const int t = via ? rows[(size_t)e * g->arity + a] : e;
      g->xy[((size_t)e * g->arity + a) * 2] = xy[2 * (size_t)t];
      g->xy[((size_t)e * g->arity + a) * 2 + 1] = xy[2 * (size_t)t + 1];
    }
  free(xy);
  free(rows);
  if (bad) {
    free(g->xy);
    g->xy = NULL;
    snprintf(err, len, "could not read the coordinates of set '%s' (%s): %s", um_set_name(s), coords,
             um_error_message(ctx));
    return -1;
  }
  fit_panel(g);
  return 0;
}

/* ---- the plan -------------------------------------------------------------------------- */

/* Loop index of d->name, or the planned loop with the most time; -1 with err when there is none. */
static int plan_loop(um_context *ctx, const umrun_draw *d, char *err, size_t len) {
  int best = -1;
  double most = -1;
  char planned[1024] = "";
  size_t used = 0;
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    um_loop_stats st;
    if (um_loop_stats_get(ctx, i, &st) || !st.has_plan) continue;
    if (used < sizeof planned - 1)
      used += (size_t)snprintf(planned + used, sizeof planned - used, "%s%s", used ? ", " : "", st.name);
    if (st.seconds > most) most = st.seconds, best = i;
    if (d->name && !strcmp(st.name, d->name)) return i;
  }
  if (d->name) {
    int ran = 0;
    for (int i = 0; i < um_loop_stats_count(ctx) && !ran; i++) {
      um_loop_stats st;
      ran = !um_loop_stats_get(ctx, i, &st) && !strcmp(st.name, d->name);
    }
    snprintf(err, len, "--draw plan=%s: %s; loops of this run with a plan: %s", d->name,
             ran ? "that loop ran without a plan (direct, or its strategy needs none)" : "no loop of that name ran",
             planned[0] ? planned : "none");
    return -1;
  }
  if (best < 0 && !strcmp(um_context_backend(ctx), "seq"))
    snprintf(err, len,
             "--draw plan: no loop of this run used a plan: the seq backend runs every loop in order, "
             "without one; draw a backend that plans (--set run.backend=openmp)");
  else if (best < 0)
    snprintf(err, len,
             "--draw plan: no loop of this run used a plan (backend %s, strategy %s): draw a strategy "
             "that plans (--set run.strategy=coloured)",
             um_context_backend(ctx), um_strategy_name(um_context_strategy(ctx)));
  return best;
}

/* Classes' colours and legend words: n classes of `what` k in colour k, and a grey "not in this plan" after them
 * when extra; into col[], lab[] (the words in buf). */
static void classes(const char **col, const char **lab, char (*buf)[48], int n, int extra, const char *what) {
  for (int k = 0; k < n; k++) {
    snprintf(buf[k], sizeof buf[k], "%s %d", what, k);
    col[k] = umrun_draw_colour(k), lab[k] = buf[k];
  }
  if (extra) col[n] = "#bbbbbb", lab[n] = "not in this plan";
}

/* The two panels of a plan: block colour, and thread colour within the block. Returns 0 or -1 with err. */
static int draw_plan(um_context *ctx, umrun_draw *d, FILE *f, char *err, size_t len) {
  const int li = plan_loop(ctx, d, err, len);
  if (li < 0) return -1;
  um_loop_stats st;
  um_plan_view v;
  if (um_loop_stats_get(ctx, li, &st) || um_loop_plan_view(ctx, li, &v))
    return fail(err, len, "--draw plan: the plan of loop '%s' is not available", st.name);
  um_set *s = um_loop_set(ctx, li);
  snprintf(d->loop, sizeof d->loop, "%s", st.name);
  snprintf(d->set, sizeof d->set, "%s", um_set_name(s));
  /* the view's arrays stay valid: no loop runs while the picture is made */
  umrun_shapes g;
  if (shapes_of(ctx, s, &g, d->coords, sizeof d->coords, err, len)) return -1;
  d->elements = g.n, d->blocks = v.nblocks, d->block_colours = v.nblock_colours;
  d->thread_colours = v.max_thread_colours;
  const int nb = v.nblock_colours, nt = v.max_thread_colours, extra = v.begin > 0 || v.begin + v.size < g.n;
  int *cls = malloc(2 * (size_t)(g.n > 0 ? g.n : 1) * sizeof *cls);
  const char **col = malloc(2 * (size_t)(nb + nt + 2) * sizeof *col), **lab = col + nb + nt + 2;
  char(*buf)[48] = malloc((size_t)(nb + nt + 2) * sizeof *buf);
  if (!cls || !col || !buf) {
    free(cls), free(col), free(buf), free(g.xy);
    return fail(err, len, "--draw plan: out of memory for the picture");
  }
  for (int e = 0; e < g.n; e++) cls[e] = extra ? nb : -1, cls[g.n + e] = extra ? nt : -1; /* outside the plan */
  for (int b = 0; b < v.nblocks; b++)
    for (int q = v.block_offset[b]; q < v.block_offset[b + 1]; q++)
      cls[v.begin + q] = v.block_colour[b], cls[g.n + v.begin + q] = v.thread_colour[q];
  classes(col, lab, buf, nb, extra, "block colour");
  for (int k = 0; k < nb; k++) { /* the blocks of each colour in its legend */
    int blocks = 0;
    for (int b = 0; b < v.nblocks; b++) blocks += v.block_colour[b] == k;
    snprintf(buf[k], sizeof buf[k], "block colour %d, %d block%s", k, blocks, blocks == 1 ? "" : "s");
  }
  classes(col + nb + extra, lab + nb + extra, buf + nb + extra, nt, extra, "thread colour");
  char tb[256], tt[256], title[300], note[600], attrs[600];
  snprintf(tb, sizeof tb, "%d blocks of up to %d elements in %d block colours", v.nblocks, v.block_size, nb);
  snprintf(tt, sizeof tt, "thread colours within each block: up to %d", nt);
  snprintf(title, sizeof title, "Plan of loop %s over set %s", d->loop, d->set);
  snprintf(note, sizeof note, "%d elements drawn at their coordinates (%s); block size %d", g.n, d->coords,
           v.block_size);
  snprintf(attrs, sizeof attrs,
           "data-kind=\"plan\" data-elements=\"%d\" data-blocks=\"%d\" data-block-colours=\"%d\" "
           "data-thread-colours=\"%d\" data-block-size=\"%d\"",
           g.n, v.nblocks, nb, nt, v.block_size);
  const umrun_panel p[2] = {{tb, cls, nb + extra, col, NULL, lab},
                            {tt, cls + g.n, nt + extra, col + nb + extra, NULL, lab + nb + extra}};
  umrun_draw_svg(f, title, note, attrs, &g, p, 2);
  free(cls), free(col), free(buf), free(g.xy);
  return 0;
}

/* ---- the partition ----------------------------------------------------------------------- */

/* The set a partition picture draws: d->name, else the partition's primary set, else (one process) the set of
 * the loop with the most time. NULL with err when there is none. */
static um_set *partition_set(um_context *ctx, const umrun_draw *d, char *err, size_t len) {
  um_partition_info info;
  const char *name = d->name ? d->name : !um_partition_info_get(ctx, &info) ? info.primary : NULL;
  if (name) {
    um_set *s = um_find_set(ctx, name);
    if (!s) {
      char sets[1024] = "";
      size_t used = 0;
      for (int i = 0; i < um_set_count(ctx) && used < sizeof sets - 1; i++)
        used +=
            (size_t)snprintf(sets + used, sizeof sets - used, "%s%s", i ? ", " : "", um_set_name(um_set_at(ctx, i)));
      fail(err, len, "--draw partition=%s: no set of that name; the sets: %s", name, sets);
    }
    return s;
  }
  um_set *best = NULL;
  double most = -1;
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    um_loop_stats st;
    if (!um_loop_stats_get(ctx, i, &st) && st.seconds > most && um_loop_set(ctx, i))
      most = st.seconds, best = um_loop_set(ctx, i);
  }
  if (!best)
    fail(err, len, "--draw partition: no loop ran, so no set to draw; name one (--draw partition=SET)");
  return best;
}

/* Panel 0: every element in its owner's colour; then one panel a rank: its owned elements, exec halo and
 * non-exec halo in its colour, the halos lighter. role: [nranks * n] (um_set_holders). */
static void partition_panels(umrun_draw *d, const umrun_shapes *g, const unsigned char *role, int *cls,
                             const char **col, const char **lab, char (*buf)[48], double *op, umrun_panel *p,
                             char (*ptitle)[96]) {
  const int n = g->n, P = d->ranks;
  static const char *const words[3] = {"owned", "exec halo (run here too)", "non-exec halo (read here)"};
  static const double shade[3] = {1.0, 0.45, 0.18};
  for (int r = 0; r < P; r++) {
    snprintf(buf[r], sizeof buf[r], "rank %d owns", r);
    col[r] = umrun_draw_colour(r), lab[r] = buf[r], op[r] = 1.0;
    for (int k = 0; k < 3; k++)
      col[P + 3 * r + k] = col[r], lab[P + 3 * r + k] = words[k], op[P + 3 * r + k] = shade[k];
  }
  for (int e = 0; e < n; e++) cls[e] = -1;
  for (int r = 0; r < P; r++)
    for (int e = 0; e < n; e++) {
      const int w = role[(size_t)r * n + e];
      cls[(size_t)(r + 1) * n + e] = w == UM_HELD_OWNED ? 0 : w == UM_HELD_EXEC ? 1 : w == UM_HELD_NONEXEC ? 2 : -1;
      if (w == UM_HELD_OWNED) cls[e] = r, d->owned[r]++;
      d->exec[r] += w == UM_HELD_EXEC, d->nonexec[r] += w == UM_HELD_NONEXEC;
    }
  snprintf(ptitle[0], sizeof ptitle[0], P > 1 ? "owners: %d ranks" : "%d rank: it owns every element", P);
  p[0] = (umrun_panel){ptitle[0], cls, P, col, op, lab};
  for (int r = 0; P > 1 && r < P; r++) {
    snprintf(ptitle[r + 1], sizeof ptitle[r + 1], "rank %d: owned, exec halo, non-exec halo", r);
    p[r + 1] =
        (umrun_panel){ptitle[r + 1], cls + (size_t)(r + 1) * n, 3, col + P + 3 * r, op + P + 3 * r, lab + P + 3 * r};
  }
}

/* The partition's picture (collective: the shapes and the holders are gathered from every rank; rank 0 writes to
 * f, the others pass NULL). Returns 0 or -1 with err (the same answer on every rank, but for memory). */
static int draw_partition(um_context *ctx, umrun_draw *d, FILE *f, char *err, size_t len) {
  um_set *s = partition_set(ctx, d, err, len);
  if (!s) return -1;
  d->ranks = um_context_nranks(ctx);
  if (d->ranks > UMRUN_DRAW_MAX_RANKS) {
    snprintf(err, len, "--draw partition: %d ranks, and the picture draws at most %d (a panel each)", d->ranks,
             UMRUN_DRAW_MAX_RANKS);
    return -1;
  }
  snprintf(d->set, sizeof d->set, "%s", um_set_name(s));
  umrun_shapes g;
  if (shapes_of(ctx, s, &g, d->coords, sizeof d->coords, err, len)) return -1;
  d->elements = g.n;
  const int P = d->ranks, root = um_context_rank(ctx) == 0, nc = P + 3 * P;
  const size_t cells = (size_t)P * (g.n > 0 ? g.n : 1);
  unsigned char *role = root ? malloc(cells) : NULL;
  int rc = um_set_holders(ctx, s, role, root ? (size_t)P * g.n : 0);
  int *cls = root ? malloc((cells + (size_t)g.n + 1) * sizeof *cls) : NULL;
  const char **col = root ? malloc(2 * (size_t)nc * sizeof *col) : NULL;
  char(*buf)[48] = root ? malloc((size_t)P * sizeof *buf) : NULL;
  double *op = root ? malloc((size_t)nc * sizeof *op) : NULL;
  umrun_panel p[UMRUN_DRAW_MAX_RANKS + 1];
  char ptitle[UMRUN_DRAW_MAX_RANKS + 1][96];
  if (rc)
    snprintf(err, len, "--draw partition: %s", um_error_message(ctx));
  else if (root && (!role || !cls || !col || !buf || !op))
    rc = fail(err, len, "--draw partition: out of memory");
  if (!rc && root) {
    partition_panels(d, &g, role, cls, col, col + nc, buf, op, p, ptitle);
    char title[300], note[600], attrs[300];
    snprintf(title, sizeof title, "Partition of set %s over %d rank%s", d->set, P, P > 1 ? "s" : "");
    snprintf(note, sizeof note, "%d elements drawn at their coordinates (%s); halos lighter", g.n, d->coords);
    snprintf(attrs, sizeof attrs, "data-kind=\"partition\" data-elements=\"%d\" data-ranks=\"%d\"", g.n, P);
    umrun_draw_svg(f, title, note, attrs, &g, p, P > 1 ? P + 1 : 1);
  }
  free(role), free(cls), free(col), free(buf), free(op), free(g.xy);
  return rc ? -1 : 0;
}

/* ---- the run's step ------------------------------------------------------------------------ */

static void say_drawn(FILE *out, const umrun_draw *d) {
  if (d->kind == UMRUN_DRAW_PLAN)
    fprintf(out,
            "draw: plan of loop %s over set %s (%d elements: %d blocks, %d block colours, up to %d thread "
            "colours a block) written to %s\n",
            d->loop, d->set, d->elements, d->blocks, d->block_colours, d->thread_colours, d->path);
  else
    fprintf(out, "draw: partition of set %s (%d elements) over %d rank%s written to %s\n", d->set, d->elements,
            d->ranks, d->ranks > 1 ? "s" : "", d->path);
}

int umrun_draw_run(umrun_draw *d, um_context *ctx, FILE *out, const char *prog) {
  if (!d || d->kind == UMRUN_DRAW_NONE) return 0;
  char err[2048] = "";
  const int root = um_context_rank(ctx) == 0;
  char *mem = NULL; /* the picture in memory first: the file is written only when it is whole */
  size_t n = 0;
  FILE *f = root ? open_memstream(&mem, &n) : NULL;
  const int oom = root && !f;
  if (oom) f = fopen("/dev/null", "w"); /* rank 0 still takes part in the gathers, then says so */
  int rc =
      d->kind == UMRUN_DRAW_PLAN ? draw_plan(ctx, d, f, err, sizeof err) : draw_partition(ctx, d, f, err, sizeof err);
  if (f && (fclose(f) || oom) && !rc) rc = -1, snprintf(err, sizeof err, "--draw: out of memory for the picture");
  if (rc) {
    if (root) fprintf(stderr, "%s: %s\n", prog, err);
    free(mem);
    return 1;
  }
  if (!root) return 0;
  um_safe_file sf;
  int bad = um_safe_open(&sf, d->path, err, sizeof err);
  if (!bad) {
    errno = 0;
    bad = fwrite(mem, 1, n, sf.f) != n;
    const int eno = errno ? errno : EIO; /* as the other writers say it: the system's reason, and what to do */
    if (bad)
      um_safe_abort(&sf), snprintf(err, sizeof err, "cannot write '%s': writing it failed: %s (%s)", d->path,
                                   strerror(eno), um_safe_why(eno));
    else
      bad = um_safe_commit(&sf, err, sizeof err);
  }
  free(mem);
  if (bad) {
    fprintf(stderr, "%s: --draw: %s\n", prog, err);
    return 2;
  }
  d->drawn = 1;
  say_drawn(out, d);
  return 0;
}

static void json_longs(FILE *f, const char *key, const long *v, int n) {
  fprintf(f, ", \"%s\": [", key);
  for (int r = 0; r < n; r++) fprintf(f, "%s%ld", r ? ", " : "", v[r]);
  fputc(']', f);
}

void umrun_draw_json(FILE *f, const umrun_draw *d) {
  if (!d || !d->drawn) return;
  fputs(",\n  \"draw\": {\"kind\": ", f);
  um_json_string(f, d->kind == UMRUN_DRAW_PLAN ? "plan" : "partition");
  fputs(", \"file\": ", f);
  um_json_string(f, d->path);
  fputs(", \"set\": ", f);
  um_json_string(f, d->set);
  fputs(", \"coordinates\": ", f);
  um_json_string(f, d->coords);
  fprintf(f, ", \"elements\": %d", d->elements);
  if (d->kind == UMRUN_DRAW_PLAN) {
    fputs(", \"loop\": ", f);
    um_json_string(f, d->loop);
    fprintf(f, ", \"blocks\": %d, \"block_colours\": %d, \"thread_colours\": %d}", d->blocks, d->block_colours,
            d->thread_colours);
    return;
  }
  fprintf(f, ", \"ranks\": %d", d->ranks);
  json_longs(f, "owned", d->owned, d->ranks);
  json_longs(f, "exec_halo", d->exec, d->ranks);
  json_longs(f, "nonexec_halo", d->nonexec, d->ranks);
  fputc('}', f);
}
