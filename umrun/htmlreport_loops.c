/* umrun --report: the figures of one run (copy bandwidth, labels, useful GB/s, access patterns), the
 * rows of the tables (HTML and markdown at once) and an app's loops over all its runs with the
 * tables of its split loops and of its variants. */
#include "htmlreport_internal.h"

/* ---- per run figures ----------------------------------------------------------------- */
double rep_device_copy_gbs(const uj *R, const uj *run) {
  const uj *m = uj_get(R, "machine");
  if (!strcmp(uj_gets(run, "backend", ""), "cuda")) {
    double g = uj_getn(uj_get(run, "device"), "copy_gb_per_s", NAN);
    if (!isfinite(g)) g = uj_getn(uj_get(m, "gpu"), "copy_gb_per_s", NAN);
    return g;
  }
  return uj_getn(m, "host_copy_gb_per_s", NAN);
}

/* the GPU's peak FP64 GFLOP/s (um_device_info.peak_fp64_gflops); NaN on the CPU and when not recorded */
double rep_device_peak_gflops(const uj *R, const uj *run) {
  if (strcmp(uj_gets(run, "backend", ""), "cuda")) return NAN;
  double g = uj_getn(uj_get(run, "device"), "peak_fp64_gflop_per_s", NAN);
  if (!isfinite(g)) g = uj_getn(uj_get(uj_get(R, "machine"), "gpu"), "peak_fp64_gflop_per_s", NAN);
  return g;
}

/* "720k atomics/soa" for case airfoil_720k: the case without its app's name, the
 * strategy and layout, the reordering when there is one, the backend off the GPU */
void rep_short_label(const uj *c, const char *app, char *buf, size_t len) {
  const char *cn = uj_gets(c, "case", "");
  const size_t al = strlen(app);
  if (!strncmp(cn, app, al) && (cn[al] == '_' || cn[al] == '\0')) cn += al + (cn[al] == '_');
  const char *b = uj_gets(c, "backend", ""), *r = uj_gets(c, "reorder", "none");
  const int seq = !strcmp(b, "seq"); /* seq runs in order: no strategy */
  char np[32] = "";
  if (uj_getn(c, "ranks", 1) > 1) snprintf(np, sizeof np, " np%.0f", uj_getn(c, "ranks", 1));
  snprintf(buf, len, "%s%s%s%s%s%s%s%s%s%s", cn, *cn ? " " : "", strcmp(b, "cuda") ? b : "", strcmp(b, "cuda") ? " " : "",
           seq ? "" : uj_gets(c, "strategy", "?"), seq ? "" : "/", uj_gets(c, "layout", "?"),
           strcmp(r, "none") && strcmp(r, "default") ? "/" : "", strcmp(r, "none") && strcmp(r, "default") ? r : "", np);
}

/* app-level useful GB/s: bytes of every loop / time of every loop (a split loop's generated loops
 * not counted again: their time is inside their parent's, whose bytes are the loop's useful bytes) */
double rep_run_gbs(const uj *run) {
  const uj *loops = uj_get(run, "loops");
  double b = 0, s = 0;
  for (int i = 0; i < uj_len(loops); i++) {
    const uj *l = uj_at(loops, i);
    if (umrun_loop_parent(l)) continue;
    b += uj_getn(l, "bytes_per_call", 0) * uj_getn(l, "calls", 0);
    s += uj_getn(l, "seconds", 0);
  }
  return s > 0 ? b / s * 1e-9 : 0;
}

void rep_pattern_summary(const uj *loop, char *buf, size_t len) {
  static const char *const kinds[] = {"direct read", "direct write", "direct update", "indirect read",
                                      "indirect increment", "indirect write", "indirect update", "global read",
                                      "reduction"};
  int cnt[9] = {0};
  const uj *args = uj_get(loop, "args");
  for (int i = 0; i < uj_len(args); i++) {
    const char *p = uj_gets(uj_at(args, i), "pattern", "");
    for (int k = 0; k < 9; k++)
      if (!strcmp(p, kinds[k])) cnt[k]++;
  }
  size_t l = 0;
  buf[0] = '\0';
  for (int k = 0; k < 9 && l < len; k++)
    if (cnt[k]) l += (size_t)snprintf(buf + l, len - l, "%s%d %s", l ? ", " : "", cnt[k], kinds[k]);
  /* the maps it goes through */
  char maps[512] = "";
  size_t ml = 0;
  for (int i = 0; i < uj_len(args) && ml < sizeof maps; i++) {
    const char *m = uj_gets(uj_at(args, i), "map", NULL);
    if (!m || strstr(maps, m)) continue;
    ml += (size_t)snprintf(maps + ml, sizeof maps - ml, "%s%s", ml ? ", " : "", m);
  }
  if (maps[0] && l < len) snprintf(buf + l, len - l, " (via %s)", maps);
  if (!buf[0]) snprintf(buf, len, "-");
}

void rep_html_text(FILE *h, const char *s) { umrun_xml_escape(h, s); }

void rep_md_cell(FILE *m, const char *s) { umrun_md_escape(m, s); }

/* one table row in both outputs; titles (may be NULL, or hold NULLs): the HTML cells' tooltips */
void rep_row_t(FILE *h, FILE *m, int header, int n, const char *const *cells, const char *const *titles) {
  fputs("<tr>", h);
  fputs("|", m);
  for (int i = 0; i < n; i++) {
    if (titles && titles[i] && *titles[i]) {
      fputs(header ? "<th title=\"" : "<td title=\"", h);
      rep_html_text(h, titles[i]);
      fputs("\">", h);
    } else fputs(header ? "<th>" : "<td>", h);
    rep_html_text(h, cells[i]);
    fputs(header ? "</th>" : "</td>", h);
    fputc(' ', m);
    rep_md_cell(m, cells[i]);
    fputs(" |", m);
  }
  fputs("</tr>\n", h);
  fputc('\n', m);
  if (header) {
    fputs("|", m);
    for (int i = 0; i < n; i++) fputs("---|", m);
    fputc('\n', m);
  }
}

void rep_row(FILE *h, FILE *m, int header, int n, const char *const *cells) { rep_row_t(h, m, header, n, cells, NULL); }

/* ---- an app's loops over all its runs, a split loop's generated loops under it --------------- */

static int app_loop_add(app_loop **v, int *n, int *cap, const uj *run, const uj *l, int depth) {
  if (*n == *cap) {
    const int c = *cap ? 2 * *cap : 32;
    app_loop *nv = realloc(*v, (size_t)c * sizeof *nv);
    if (!nv) return -1;
    *v = nv;
    *cap = c;
  }
  (*v)[*n].name = uj_gets(l, "name", "?");
  (*v)[*n].loop = l;
  (*v)[*n].run = run;
  (*v)[(*n)++].depth = depth;
  return 0;
}

/* Every loop of app's runs (files x cases): each of the app's loops in the order they first appear,
 * then the loops generated by splitting it in any run; generated loops whose parent ran in no run
 * last. Returns how many (*out malloc'ed; 0 and NULL when none or out of memory). */
int rep_app_loops(const uj *const *files, int nfiles, const char *app, app_loop **out) {
  app_loop *all = NULL, *v = NULL;
  int na = 0, ca = 0, n = 0, cap = 0, *kid = NULL, *in_v = NULL;
  rep_strmap names = {0}, kids = {0}; /* a name -> its loop in all; a parent -> its first generated loop */
  *out = NULL;
  for (int k = 0; k < nfiles; k++) { /* the distinct loops of the app's runs, in the order they first appear */
    const uj *cases = uj_get(files[k], "cases");
    for (int i = 0; i < uj_len(cases); i++) {
      const uj *c = uj_at(cases, i), *ls = uj_get(uj_get(c, "run"), "loops");
      if (strcmp(uj_gets(c, "app", ""), app)) continue;
      for (int q = 0; q < uj_len(ls); q++) {
        const uj *l = uj_at(ls, q);
        const int had = rep_strmap_add(&names, uj_gets(l, "name", "?"), na);
        if (had == -2 || (had == -1 && app_loop_add(&all, &na, &ca, uj_get(c, "run"), l, 0))) goto oom;
      }
    }
  }
  kid = malloc(((size_t)na + 1) * sizeof *kid); /* per loop of all: the next one of the same parent, -1 */
  in_v = calloc((size_t)na + 1, sizeof *in_v);
  int *last = calloc((size_t)na + 1, sizeof *last);
  if (!kid || !in_v || !last) {
    free(last);
    goto oom;
  }
  for (int u = 0; u < na; u++) { /* the generated loops of each parent, in order */
    const char *p = umrun_loop_parent(all[u].loop);
    kid[u] = -1;
    const int first = p ? rep_strmap_add(&kids, p, u) : -1;
    if (first == -2) {
      free(last);
      goto oom;
    }
    if (p && first >= 0) kid[last[first]] = u;
    if (p) last[first >= 0 ? first : u] = u;
  }
  free(last);
  for (int t = 0; t < na; t++) { /* each of the app's loops, its generated loops under it */
    if (umrun_loop_parent(all[t].loop)) continue;
    if (app_loop_add(&v, &n, &cap, all[t].run, all[t].loop, 0)) goto oom;
    in_v[t] = 1;
    for (int u = rep_strmap_get(&kids, all[t].name); u >= 0; u = kid[u]) {
      if (app_loop_add(&v, &n, &cap, all[u].run, all[u].loop, 1)) goto oom;
      in_v[u] = 1;
    }
  }
  for (int t = 0; t < na; t++) { /* generated loops whose parent ran in no run */
    const char *p = umrun_loop_parent(all[t].loop);
    const int pi = p ? rep_strmap_get(&names, p) : -1;
    if (p && (pi < 0 || !in_v[pi])) {
      if (app_loop_add(&v, &n, &cap, all[t].run, all[t].loop, 0)) goto oom;
      in_v[t] = 1;
    }
  }
  *out = v;
  v = NULL;
oom:
  if (v) n = 0;
  rep_strmap_free(&names);
  rep_strmap_free(&kids);
  free(all);
  free(v);
  free(kid);
  free(in_v);
  return n;
}

/* A loop's row label: a generated loop under its parent as "↳ :contrib" (its name without the parent's). */
void rep_loop_label(const app_loop *a, char *buf, size_t len) {
  const char *p = umrun_loop_parent(a->loop);
  const size_t pl = p ? strlen(p) : 0;
  if (a->depth && p && !strncmp(a->name, p, pl) && a->name[pl] == ':')
    snprintf(buf, len, "\u21b3 %s", a->name + pl);
  else snprintf(buf, len, "%s", a->name);
}

/* The loop named name in a run's loops (NULL: it did not run there). */
static const uj *run_loop(const rep_index *ix, const uj *run, const char *name) {
  return rep_run_loop(rep_index_run(ix, run), name);
}

const uj *rep_first_run_of(const uj *const *files, int nfiles, const char *app) {
  for (int k = 0; k < nfiles; k++) {
    const uj *cases = uj_get(files[k], "cases");
    for (int i = 0; i < uj_len(cases); i++) {
      const uj *c = uj_at(cases, i);
      if (!strcmp(uj_gets(c, "app", ""), app) && uj_get(c, "run") && uj_get(c, "run")->kind == UJ_OBJ)
        return uj_get(c, "run");
    }
  }
  return NULL;
}

void rep_device_name(const uj *R, char *buf, size_t len) {
  const uj *m = uj_get(R, "machine"), *g = uj_get(m, "gpu");
  if (g && g->kind == UJ_OBJ) snprintf(buf, len, "%s", uj_gets(g, "name", "GPU"));
  else snprintf(buf, len, "%s", uj_gets(m, "cpu", "CPU"));
}

/* Per app: a pivot of useful GB/s (% of copy bandwidth) with loops as rows and
 * runs as columns (8 per table), then the plan statistics of the runs that
 * used plans. */
#define REP_COLS 5 /* runs per table: five columns fit 1366 px */
typedef struct {
  const uj *file, *c, *run;
  char label[600];
} col;

/* Whether the loop named name has generated loops in the run (split, or its sums made exact). */
static int has_parts(const rep_index *ix, const uj *run, const char *name) {
  return rep_run_first_kid(rep_index_run(ix, run), name) >= 0;
}

/* The split column of the loops table: how the app's runs ran loop a ("gather in 2 of 6 runs"; a generated
 * loop: "part of res_calc"), and into why the distinct reasons (the cell's tooltip). */
void rep_split_summary(const rep_index *ix, const uj *const *files, int nfiles, const char *app, const app_loop *a,
                       char *buf, size_t len, char *why, size_t wlen) {
  static const char *const variants[] = {"scatter", "gather"};
  int runs = 0, cnt[2] = {0, 0}, exact = 0;
  size_t wl = 0;
  why[0] = '\0';
  if (umrun_loop_parent(a->loop)) {
    snprintf(buf, len, "part of %s", umrun_loop_parent(a->loop));
    return;
  }
  for (int k = 0; k < nfiles; k++) {
    const uj *cases = uj_get(files[k], "cases");
    for (int i = 0; i < uj_len(cases); i++) {
      const uj *c = uj_at(cases, i), *l = run_loop(ix, uj_get(c, "run"), a->name);
      if (strcmp(uj_gets(c, "app", ""), app) || !l) continue;
      runs++;
      const char *v = uj_gets(l, "split", "off"), *r = uj_gets(l, "split_reason", "");
      for (int q = 0; q < 2; q++) cnt[q] += !strcmp(v, variants[q]);
      if (!strcmp(v, "off") && has_parts(ix, uj_get(c, "run"), a->name)) exact++; /* run.reproducible's sums */
      if (*r && !strstr(why, r) && wl + strlen(r) + 3 < wlen)
        wl += (size_t)snprintf(why + wl, wlen - wl, "%s%s", wl ? "; " : "", r);
    }
  }
  if (!cnt[0] && !cnt[1] && exact)
    snprintf(buf, len, "exact sums in %d of %d run%s", exact, runs, runs == 1 ? "" : "s");
  else if (!cnt[0] && !cnt[1]) snprintf(buf, len, "-");
  else if (cnt[0] && cnt[1])
    snprintf(buf, len, "scatter in %d, gather in %d of %d run%s", cnt[0], cnt[1], runs, runs == 1 ? "" : "s");
  else
    snprintf(buf, len, "%s in %d of %d run%s", cnt[0] ? "scatter" : "gather", cnt[0] + cnt[1], runs,
             runs == 1 ? "" : "s");
}

/* Calls fn for every loop of every run of `app` in the results files, in order (k: the file). */
typedef struct rep_tab {
  FILE *h, *m;
  const rep_index *ix;
  const uj *const *files;
  int nfiles, any;
} rep_tab;
typedef void (*rep_loop_fn)(rep_tab *t, int k, const uj *c, const uj *ls, const uj *l);
static void each_app_loop(rep_tab *t, const char *app, rep_loop_fn fn) {
  for (int k = 0; k < t->nfiles; k++) {
    const uj *cases = uj_get(t->files[k], "cases");
    for (int i = 0; i < uj_len(cases); i++) {
      const uj *c = uj_at(cases, i), *ls = uj_get(uj_get(c, "run"), "loops");
      if (strcmp(uj_gets(c, "app", ""), app)) continue;
      for (int q = 0; q < uj_len(ls); q++) fn(t, k, c, ls, uj_at(ls, q));
    }
  }
  if (t->any) {
    fputs("</table>\n", t->h);
    fputc('\n', t->m);
  }
}

/* A run's name in a table: the device (with several files), the case and its variant. */
static void run_name(const rep_tab *t, int k, const uj *c, char *run, size_t n) {
  char dev[256], v[200];
  rep_device_name(t->files[k], dev, sizeof dev);
  umrun_variant_label(c, v, sizeof v);
  snprintf(run, n, "%s%s%s %s", t->nfiles > 1 ? dev : "", t->nfiles > 1 ? ": " : "", uj_gets(c, "case", ""), v);
}

/* One row of the loop splitting table: a loop that ran split (or whose generated loops ran). */
static void split_row(rep_tab *t, int k, const uj *c, const uj *ls, const uj *l) {
  char run[700], tb[32], parts[1024] = "", tl[48];
  const char *sv = uj_gets(l, "split", "off");
  size_t pl = 0;
  int kids = 0;
  if (umrun_loop_parent(l)) return;
  const rep_run *rr = rep_index_run(t->ix, uj_get(c, "run"));
  /* its generated loops' times */
  for (int z = rep_run_first_kid(rr, uj_gets(l, "name", "")); z >= 0; z = rr->next_kid[z]) {
    const uj *g = uj_at(ls, z);
    const char *p = umrun_loop_parent(g), *gn = uj_gets(g, "name", "?");
    kids++;
    if (pl < sizeof parts)
      pl += (size_t)snprintf(parts + pl, sizeof parts - pl, "%s%s %.4g s", pl ? ", " : "",
                             !strncmp(gn, p, strlen(p)) && gn[strlen(p)] == ':' ? gn + strlen(p) : gn,
                             uj_getn(g, "seconds", 0));
  }
  if (!strcmp(sv, "off") && !kids) return;
  if (!t->any) {
    fputs("<h3>Loop splitting</h3>\n<p class=\"note\">The loops the engine ran split (<code>run.split</code>, "
          "<code>run.reproducible</code>): a contribution loop (<code>:contrib</code>, the kernel writing into "
          "temporaries), then the increments: per argument (<code>:inc&lt;arg&gt;</code>, scatter) or a gather "
          "in a fixed order (<code>:gather</code>). The loop's time is the whole call's; its parts' times are "
          "inside it.</p>\n<table>\n",
          t->h);
    fputs("### Loop splitting\n\n", t->m);
    const char *hd[] = {"run", "loop", "split", "why", "temporaries (MB)", "loop time (s)", "its parts"};
    rep_row(t->h, t->m, 1, 7, hd);
    t->any = 1;
  }
  run_name(t, k, c, run, sizeof run);
  snprintf(tb, sizeof tb, "%.3f", uj_getn(l, "temp_bytes", 0) / 1e6);
  snprintf(tl, sizeof tl, "%.4g", uj_getn(l, "seconds", 0));
  const char *cells[] = {run, uj_gets(l, "name", "?"), strcmp(sv, "off") ? sv : "exact sums",
                         uj_gets(l, "split_reason", "-"), tb, tl, parts[0] ? parts : "-"};
  rep_row(t->h, t->m, 0, 7, cells);
}

/* Per app, the loops that ran split: per run, the variant, why, the engine's temporaries and the time
 * of each generated loop (inside the loop's own). Nothing when no run of the app split a loop. */
void rep_write_splits(FILE *h, FILE *m, const rep_index *ix, const uj *const *files, int nfiles, const char *app) {
  rep_tab t = {h, m, ix, files, nfiles, 0};
  each_app_loop(&t, app, split_row);
}

/* One tried setting as text: "atomics, block 256, whole". */
static void tuned_setting(const uj *t, char *buf, size_t len) {
  const char *sp = uj_gets(t, "split", "off"), *v = uj_gets(t, "variant", NULL);
  const int other = v && uj_getn(t, "variant_index", 0) > 0; /* the backend's default kernel needs no word */
  snprintf(buf, len, "%s, block %.0f, %s%s%s", uj_gets(t, "strategy", "?"), uj_getn(t, "block_size", 0),
           strcmp(sp, "off") ? sp : "whole", other ? ", " : "", other ? v : "");
}

/* One row of the tuning table: a loop run.tune tuned (measured or from the cache). */
static void tune_row(rep_tab *t, int k, const uj *c, const uj *ls, const uj *l) {
  (void)ls;
  const uj *tu = uj_get(l, "tuned"), *tr = uj_get(tu, "trials");
  const int ch = (int)uj_getn(tu, "chosen", -1);
  if (!tu || ch < 0 || ch >= uj_len(tr)) return;
  if (!t->any) {
    fputs("<h3>Tuning</h3>\n<p class=\"note\">The setting <code>run.tune</code> kept for each loop it tuned: "
          "measured at the loop's first call (every setting run on copies of its outputs, the fastest kept) or "
          "read from <code>run.cache</code>'s tune.txt; times are one call in the trials.</p>\n<table>\n",
          t->h);
    fputs("### Tuning\n\n", t->m);
    const char *hd[] = {"run", "loop", "kept", "source", "its time (ms)", "configured (ms)", "slowest (ms)", "settings"};
    rep_row(t->h, t->m, 1, 8, hd);
    t->any = 1;
  }
  char run[700], kept[160], ms[32], conf[32], slow[200], n[16], ss[160] = "-";
  run_name(t, k, c, run, sizeof run);
  tuned_setting(uj_at(tr, ch), kept, sizeof kept);
  snprintf(ms, sizeof ms, "%.4g", 1e3 * uj_getn(uj_at(tr, ch), "seconds", 0));
  snprintf(conf, sizeof conf, "%.4g", 1e3 * uj_getn(uj_at(tr, 0), "seconds", 0));
  int sl = -1;
  for (int z = 0; z < uj_len(tr); z++)
    if (uj_getn(uj_at(tr, z), "seconds", -1) >= 0 &&
        (sl < 0 || uj_getn(uj_at(tr, z), "seconds", 0) > uj_getn(uj_at(tr, sl), "seconds", 0)))
      sl = z;
  if (sl >= 0) tuned_setting(uj_at(tr, sl), ss, sizeof ss);
  snprintf(slow, sizeof slow, "%.4g (%s)", sl >= 0 ? 1e3 * uj_getn(uj_at(tr, sl), "seconds", 0) : 0.0, ss);
  snprintf(n, sizeof n, "%d", uj_len(tr));
  const char *cells[] = {run, uj_gets(l, "name", "?"), kept, uj_gets(tu, "source", "?"), ms, conf, slow, n};
  rep_row(t->h, t->m, 0, 8, cells);
}

/* Per app, what run.tune kept for each loop it tuned (measured or from the cache): the setting, its time in the
 * trials, the configured setting's and the slowest one's. Nothing when no run of the app tuned a loop. */
void rep_write_tuning(FILE *h, FILE *m, const rep_index *ix, const uj *const *files, int nfiles, const char *app) {
  rep_tab t = {h, m, ix, files, nfiles, 0};
  each_app_loop(&t, app, tune_row);
}

void rep_write_variants(FILE *h, FILE *m, const rep_index *ix, const uj *const *files, const char *const *devs,
                        int nfiles, const char *app, const app_loop *al, int nal) {
  col *cols = NULL;
  int nc = 0, cap = 0;
  for (int k = 0; k < nfiles; k++) {
    const uj *cases = uj_get(files[k], "cases");
    const char *dev = devs[k];
    for (int i = 0; i < uj_len(cases); i++) {
      const uj *c = uj_at(cases, i), *r = uj_get(c, "run");
      if (strcmp(uj_gets(c, "app", ""), app) || !r || r->kind != UJ_OBJ) continue;
      if (nc == cap) {
        cap = cap ? 2 * cap : 16;
        col *n2 = realloc(cols, (size_t)cap * sizeof *n2);
        if (!n2) break;
        cols = n2;
      }
      char v[200];
      umrun_variant_label(c, v, sizeof v);
      cols[nc].file = files[k];
      cols[nc].c = c;
      cols[nc].run = r;
      snprintf(cols[nc].label, sizeof cols[nc].label, "%s%s%s %s", nfiles > 1 ? dev : "", nfiles > 1 ? ": " : "",
               uj_gets(c, "case", ""), v);
      nc++;
    }
  }
  fputs("<h3>Useful GB/s per loop and run (% of the device's copy bandwidth)</h3>\n", h);
  fputs("### Useful GB/s per loop and run (% of the device's copy bandwidth)\n\n", m);
  rep_rowspan *rows = calloc((size_t)nal + 1, sizeof *rows);
  const int nr = rows ? rep_group_rows(al, nal, rows) : 0;
  int cached = 0, spread = 0, nnoisy = 0, nspread = 0;
  char noise_tip[160];
  snprintf(noise_tip, sizeof noise_tip, "noisy: the samples' spread is above %.0f%% of their median; read this figure "
           "as noise", REP_NOISY);
  for (int c0 = 0; c0 < nc; c0 += REP_COLS) {
    const int c1 = c0 + REP_COLS < nc ? c0 + REP_COLS : nc;
    const char *hdr[REP_COLS + 1];
    hdr[0] = "loop";
    for (int j = c0; j < c1; j++) hdr[1 + j - c0] = cols[j].label;
    fputs("<div class=\"wrap\"><table>\n", h);
    rep_row(h, m, 1, 1 + c1 - c0, hdr);
    for (int q = 0; q < nr; q++) {
      char cells[REP_COLS + 1][96];
      const char *cp[REP_COLS + 1], *tips[REP_COLS + 1] = {NULL};
      cp[0] = rows[q].label;
      for (int j = c0; j < c1; j++) {
        rep_figs f;
        const int ran = rep_row_figures(ix, cols[j].run, al, &rows[q], &f);
        const uj *l = rows[q].count == 1 ? run_loop(ix, cols[j].run, al[rows[q].start].name) : NULL;
        const double g = f.seconds > 0 ? f.bytes / f.seconds * 1e-9 : 0,
                     cb = rep_device_copy_gbs(cols[j].file, cols[j].run);
        const char *sv = l ? uj_gets(l, "split", "off") : "off";
        char v[24] = "", sp[40] = "", gs[32]; /* a loop that ran split says how; the reason is the cell's tooltip */
        if (strcmp(sv, "off")) snprintf(v, sizeof v, " %s", sv);
        /* --repeat: half the spread of the time, as a share of the median; flagged above REP_NOISY */
        const int noisy = ran && rep_spread_text(sp, sizeof sp, &f);
        spread |= sp[0] != '\0', nnoisy += noisy, nspread += sp[0] != '\0';
        const int over = isfinite(cb) && cb > 0 && g > cb; /* above the copy bandwidth: the caches */
        cached |= over;
        rep_gbs_text(gs, sizeof gs, g);
        if (!ran) snprintf(cells[j - c0], sizeof cells[0], "-");
        else if (isfinite(cb) && cb > 0)
          snprintf(cells[j - c0], sizeof cells[0], "%s (%.0f%%%s)%s%s", gs, 100 * g / cb, over ? "\u2020" : "", sp, v);
        else snprintf(cells[j - c0], sizeof cells[0], "%s%s%s", gs, sp, v);
        cp[1 + j - c0] = cells[j - c0];
        tips[1 + j - c0] = noisy ? noise_tip : l ? uj_gets(l, "split_reason", NULL) : NULL;
      }
      rep_row_t(h, m, 0, 1 + c1 - c0, cp, tips);
    }
    fputs("</table></div>\n", h);
    fputc('\n', m);
  }
  free(rows);
  if (cached || spread) {
    fprintf(h, "<p class=\"note warn\">%s%s</p>\n",
            cached ? "\u2020 above 100% of the copy bandwidth: the small case's data fit in the caches, which serve them "
                     "faster than memory; not a faster memory. " : "",
            spread ? "\u00b1: half the spread of the samples' times (--suite --repeat), as a share of the median." : "");
    fprintf(m, "%s%s\n\n", cached ? "\u2020 above 100% of the copy bandwidth: the data fit in the caches. " : "",
            spread ? "\u00b1: half the spread of the samples' times (--suite --repeat)." : "");
  }
  if (nnoisy) { /* noise is not data: said, with the count */
    char say[400];
    snprintf(say, sizeof say, "%s noisy: %d of these %d figures have a spread above %.0f%% of their median (the machine "
             "was busy, or the loop is too short to time): read them as noise; rerun on an idle machine or with a "
             "larger --repeat.", REP_NOISE_MARK, nnoisy, nspread, REP_NOISY);
    fprintf(h, "<p class=\"note warn noisy\">%s</p>\n", say);
    fprintf(m, "%s\n\n", say);
  }
  fputs("<h3>Plans (runs whose loops used one)</h3>\n<details><summary>the plans of each run</summary>\n<div "
        "class=\"wrap\"><table>\n", h);
  fputs("### Plans (runs whose loops used one)\n\n", m);
  const char *ph[] = {"run", "loop", "block size", "blocks", "block colours", "thread colours (mean / max)", "reuse",
                      "shared B / block (mean)"};
  rep_row(h, m, 1, 8, ph);
  for (int j = 0; j < nc; j++) {
    const uj *ls = uj_get(cols[j].run, "loops");
    for (int q = 0; q < uj_len(ls); q++) {
      const uj *l = uj_at(ls, q), *p = uj_get(l, "plan");
      if (!p) continue;
      char b[32], nb[32], bc[32], tc[48], re[32], sh[32];
      snprintf(b, sizeof b, "%.0f", uj_getn(p, "block_size", 0));
      snprintf(nb, sizeof nb, "%.0f", uj_getn(p, "blocks", 0));
      snprintf(bc, sizeof bc, "%.0f", uj_getn(p, "block_colours", 0));
      snprintf(tc, sizeof tc, "%.2f / %.0f", uj_getn(p, "thread_colours_mean", 0), uj_getn(p, "thread_colours_max", 0));
      snprintf(re, sizeof re, "%.2f", uj_getn(p, "reuse_factor", 0));
      snprintf(sh, sizeof sh, "%.0f", uj_getn(p, "shared_bytes_mean", 0));
      const char *cells[] = {cols[j].label, uj_gets(l, "name", "?"), b, nb, bc, tc, re, sh};
      rep_row(h, m, 0, 8, cells);
    }
  }
  fputs("</table></div></details>\n", h);
  fputc('\n', m);
  free(cols);
}
