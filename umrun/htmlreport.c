/* umrun --report FILE.html RESULTS.json...: the apps side by side, from suite
 * results files (one per device). One self-contained HTML page (inline CSS
 * and SVG, no script, no network) and the same tables as markdown (FILE.md):
 * per app its sets and maps, each loop's access pattern, bytes moved per
 * element and per call, estimated arithmetic intensity, and per variant
 * (backend/strategy/layout/reorder) the useful GB/s against the device's
 * measured copy bandwidth, colours, reuse and shared memory per block; a bar
 * chart of bandwidth per app and variant and a roofline-style picture per
 * device.
 * The plots are drawn by htmlreport_svg.c, the tables by htmlreport_loops.c, the families, the
 * side-by-side tables, the glossary and the generated paragraphs by htmlreport_side.c;
 * htmlreport_internal.h holds what they share; htmlreport_main.c reads the command line and the files. */
#include "htmlreport_internal.h"
#include "um/app.h"

static const char *note_for(const um_runner *r, const char *app) {
  const um_app *a = um_app_find(r, app); /* each app says what makes it different (um_app.report_note) */
  return a && a->report_note ? a->report_note : "An app of the um suite.";
}

/* ---- the page ------------------------------------------------------------------------ */
#define MAXAPPS 32
#define REP_BARS_MAX 24 /* bars per chart: readable labels at 1366 px */

typedef struct {
  const char *names[MAXAPPS];
  int n;
} app_list;

static int app_index(app_list *a, const char *name) {
  for (int i = 0; i < a->n; i++)
    if (!strcmp(a->names[i], name)) return i;
  if (a->n == MAXAPPS) return MAXAPPS - 1;
  a->names[a->n] = name;
  return a->n++;
}

/* Each results file's device, named as its columns are headed: the GPU's name, else the CPU's; files of
 * one name told apart by their folder ("NVIDIA H100 (h100a)") or, failing that, their order. */
static char (*device_labels(const uj *const *files, const char *const *paths, int nfiles))[256] {
  char (*d)[256] = calloc(2 * (size_t)nfiles + 1, sizeof *d), (*name)[256] = d + nfiles;
  if (!d) return NULL;
  for (int k = 0; k < nfiles; k++) rep_device_name(files[k], name[k], sizeof name[k]);
  for (int k = 0; k < nfiles; k++) {
    int same = 0;
    for (int q = 0; q < nfiles; q++) same |= q != k && !strcmp(name[q], name[k]);
    if (!same) {
      snprintf(d[k], sizeof d[k], "%s", name[k]);
      continue;
    }
    char dir[256] = "";
    const char *sl = strrchr(paths[k], '/');
    if (sl && sl > paths[k]) { /* the folder holding the file */
      const char *b = sl - 1;
      while (b > paths[k] && b[-1] != '/') b--;
      snprintf(dir, sizeof dir, "%.*s", (int)(sl - b + 1) - 1, b);
    } else snprintf(dir, sizeof dir, "%s", paths[k]);
    snprintf(d[k], sizeof d[k], "%.150s (%c: %.60s)", name[k], 'A' + (k < 26 ? k : 25), dir);
  }
  return d;
}

/* The roofs of one results file: the GPU's (its copy bandwidth and peak FP64 rate) when a run used one, and the
 * host CPU's (its measured copy bandwidth and multiply-add rate) beside it. Returns how many. */
static int file_roofs(const uj *R, roof *rf) {
  const uj *cases = uj_get(R, "cases"), *mm = uj_get(R, "machine");
  double bw = 0, peak = 0;
  int gpu = 0;
  for (int i = 0; i < uj_len(cases); i++) {
    const uj *r = uj_get(uj_at(cases, i), "run");
    if (!r || r->kind != UJ_OBJ || strcmp(uj_gets(r, "backend", ""), "cuda")) continue;
    const double cb = rep_device_copy_gbs(R, r), pk = rep_device_peak_gflops(R, r);
    gpu = 1;
    if (isfinite(cb) && cb > bw) bw = cb;
    if (isfinite(pk) && pk > peak) peak = pk;
  }
  int n = 0;
  if (gpu) rf[n++] = (roof){bw, peak, "GPU"};
  rf[n++] = (roof){uj_getn(mm, "host_copy_gb_per_s", NAN), uj_getn(mm, "host_peak_fp64_gflop_per_s", NAN), "CPU"};
  return n;
}

typedef struct {
  point *p;
  char **labels;
  const uj **best; /* the case of each point's fastest variant */
  int n, cap;
  rep_strmap seen; /* a label -> its point */
} roof_points;

/* loop l of case c (app a) as a point, or its label's point raised to it when it runs faster; -1: out of memory */
static int add_roof_point(roof_points *rp, const uj *c, const uj *r, const uj *l, int a) {
  const rep_ops o = rep_loop_ops(r, l);
  const double bpc = uj_getn(l, "bytes_per_call", 0), size = uj_getn(l, "set_size", 0),
               calls = uj_getn(l, "calls", 0), s = uj_getn(l, "seconds", 0);
  if (o.source == REP_OPS_NONE || o.hi <= 0 || bpc <= 0 || s <= 0 || umrun_loop_parent(l)) return 0;
  const double g_lo = o.lo * size * calls / s * 1e-9, g_hi = o.hi * size * calls / s * 1e-9;
  char lab[200];
  snprintf(lab, sizeof lab, "%s %s", uj_gets(c, "app", "?"), uj_gets(l, "name", "?"));
  const int found = rep_strmap_get(&rp->seen, lab);
  if (found >= 0) {
    if (g_hi > rp->p[found].gops_hi) {
      rp->p[found].gops = g_lo, rp->p[found].gops_hi = g_hi, rp->best[found] = c;
      rp->p[found].ai = o.lo * size / bpc, rp->p[found].ai_hi = o.hi * size / bpc;
    }
    return 0;
  }
  if (rp->n == rp->cap) {
    rp->cap = rp->cap ? 2 * rp->cap : 64;
    point *np = realloc(rp->p, (size_t)rp->cap * sizeof *np);
    if (np) rp->p = np;
    char **nl = realloc(rp->labels, (size_t)rp->cap * sizeof *nl);
    if (nl) rp->labels = nl;
    const uj **nb = realloc(rp->best, (size_t)rp->cap * sizeof *nb);
    if (nb) rp->best = nb;
    if (!np || !nl || !nb) return -1;
  }
  if (!(rp->labels[rp->n] = strdup(lab))) return -1;
  if (rep_strmap_add(&rp->seen, rp->labels[rp->n], rp->n) == -2) {
    free(rp->labels[rp->n]);
    return -1;
  }
  rp->p[rp->n] = (point){rp->labels[rp->n], o.lo * size / bpc, g_lo, o.hi * size / bpc, g_hi, a};
  rp->best[rp->n++] = c;
  return 0;
}

/* the legend under a roofline: each point's number, loop, fastest variant and figures */
static void write_roof_legend(FILE *h, FILE *m, const roof_points *rp) {
  fputs("<details open><summary>the points, by number</summary>\n<div class=\"wrap\"><table class=\"legend\">\n", h);
  const char *hd[] = {"#", "app and loop", "fastest variant", "ops / byte", "Gop/s"};
  rep_row(h, m, 1, 5, hd);
  for (int i = 0; i < rp->n; i++) {
    char no[16], v[300], ai[64], g[64];
    const point *q = &rp->p[i];
    snprintf(no, sizeof no, "%d", i + 1);
    rep_short_label(rp->best[i], uj_gets(rp->best[i], "app", ""), v, sizeof v);
    if (q->ai_hi > q->ai) {
      snprintf(ai, sizeof ai, "%.3g..%.3g", q->ai, q->ai_hi);
      snprintf(g, sizeof g, "%.3g..%.3g", q->gops, q->gops_hi);
    } else {
      snprintf(ai, sizeof ai, "%.3g", q->ai);
      snprintf(g, sizeof g, "%.3g", q->gops);
    }
    const char *cells[] = {no, q->label, v, ai, g};
    rep_row(h, m, 0, 5, cells);
  }
  fputs("</table></div></details>\n", h);
  fputc('\n', m);
}

/* The roofline of one results file: each loop (app and name) at its best variant, found by its label in a
 * table (linear in the loops), numbered, with the legend below. */
static void write_roofline(FILE *h, FILE *m, const uj *R, const char *dev, app_list *apps) {
  const uj *cases = uj_get(R, "cases");
  roof_points rp = {0};
  int oom = 0;
  for (int i = 0; i < uj_len(cases) && !oom; i++) {
    const uj *c = uj_at(cases, i), *r = uj_get(c, "run");
    if (!r || r->kind != UJ_OBJ) continue;
    const uj *ls = uj_get(r, "loops");
    const int a = app_index(apps, uj_gets(c, "app", "?"));
    for (int j = 0; j < uj_len(ls) && !oom; j++) oom = add_roof_point(&rp, c, r, uj_at(ls, j), a) < 0;
  }
  roof rf[2];
  const int nr = file_roofs(R, rf);
  char title[512];
  snprintf(title, sizeof title, "%s: loops at their best variant", dev);
  fputs("### ", m);
  rep_md_cell(m, title);
  fputs("\n\n", m);
  rep_svg_roofline(h, title, rf, nr, rp.p, rp.n, apps->names, apps->n);
  write_roof_legend(h, m, &rp);
  rep_strmap_free(&rp.seen);
  for (int i = 0; i < rp.n; i++) free(rp.labels[i]);
  free(rp.labels);
  free(rp.p);
  free(rp.best);
}

/* what the page's sections share */
typedef struct {
  FILE *h, *m; /* the HTML and the markdown */
  const uj *const *files;
  const char *const *paths, **devs; /* the files' paths and their devices' labels */
  int nfiles;
  app_list apps;
  rep_index ix;
  const um_runner *runner; /* the apps, for their report notes */
  int bound[MAXAPPS];      /* what bounds each app's largest loop (REP_BOUND_*): its paragraph, chart and note agree */
} page;

/* the HTML head with its styles, and the line saying where the page comes from */
static void write_page_head(const page *pg) {
  FILE *h = pg->h, *m = pg->m;
  char now[64];
  time_t t = time(NULL);
  strftime(now, sizeof now, "%Y-%m-%d %H:%M UTC", gmtime(&t));
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>um: the apps side by side</title>\n"
        "<style>body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1200px;margin:2em "
        "auto;padding:0 1em;color:#222;line-height:1.45}table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:"
        ".88em;max-width:100%}th,td{border:1px solid #ccc;padding:.25em .55em;text-align:left;overflow-wrap:anywhere}"
        "th{background:#f2f4f7;overflow-wrap:normal}td:first-child{overflow-wrap:break-word}td.n{text-align:right}h2{border-bottom:2px solid #dde;padding-bottom:.2em;margin-top:2em}"
        "code{background:#f4f4f4;padding:0 .2em}.note{color:#555;font-size:.9em}.warn{border-left:3px solid #c80;"
        "padding-left:.6em}.gen{background:#f6f8fb;padding:.4em .7em}.wrap{max-width:100%;overflow-x:auto}"
        "dl.gloss dt{font-weight:bold;margin-top:.4em}dl.gloss dd{margin-left:1.5em}details{margin:.3em 0}"
        "summary{cursor:pointer;color:#235}.banner{background:#fff3cd;border:2px solid #e0a800;padding:.6em .9em;"
        "font-weight:600}svg{max-width:100%;height:auto;display:block;margin:.5em 0}</style>\n"
        "</head><body>\n<h1>um: the apps side by side</h1>\n",
        h);
  int single = 0; /* single runs' --json, each read as the results of its one run */
  for (int k = 0; k < pg->nfiles; k++) single += uj_is_true(uj_get(pg->files[k], "single_run"));
  for (int md = 0; md < 2; md++) {
    const char *code = md ? "`" : "<code>", *end = md ? "`" : "</code>";
    fprintf(md ? m : h,
            md ? "# um: the apps side by side\n\nGenerated %s by `umrun --report` from %d "
               : "<p class=\"note\">Generated %s by <code>umrun --report</code> from %d ",
            now, pg->nfiles);
    if (single)
      fprintf(md ? m : h, "file%s (%d of them %s %s--json%s)", pg->nfiles == 1 ? "" : "s", single,
              single == 1 ? "a single run's" : "single runs'", code, end);
    else
      fprintf(md ? m : h, "results file%s of %sumrun --suite%s", pg->nfiles == 1 ? "" : "s", code, end);
    fputs(md ? ".\n\n" : ".</p>\n", md ? m : h);
  }
}

/* the host's copy bandwidth: the median of its samples, their range and count (one measurement in older files) */
static void copy_text(const uj *mm, char *buf, size_t len) {
  const uj *sm = uj_get(mm, "host_copy_samples_gb_per_s");
  double lo = INFINITY, hi = 0;
  for (int i = 0; i < uj_len(sm); i++) {
    const double v = uj_num(uj_at(sm, i), NAN);
    if (isfinite(v)) lo = v < lo ? v : lo, hi = v > hi ? v : hi;
  }
  if (uj_len(sm) > 1 && hi > 0)
    snprintf(buf, len, "%.1f (median of %d: %.1f .. %.1f)", uj_getn(mm, "host_copy_gb_per_s", 0), uj_len(sm), lo, hi);
  else if (uj_get(mm, "host_copy_gb_per_s"))
    snprintf(buf, len, "%.1f (one measurement)", uj_getn(mm, "host_copy_gb_per_s", 0));
  else
    snprintf(buf, len, "- (measured by umrun --suite only)");
}

/* what bounds app's largest loop (REP_BOUND_*) */
static int app_bound(const page *pg, const char *app) {
  app_loop *al = NULL;
  const int nal = rep_app_loops(pg->files, pg->nfiles, app, &al);
  rep_app_figs f;
  const int b = rep_app_figs_make(&pg->ix, pg->files, pg->nfiles, app, al, nal, &f) ? rep_app_bound(&f) : REP_BOUND_UNKNOWN;
  rep_app_figs_free(&f);
  free(al);
  return b;
}

/* A banner at the top when a results file's runs shared a loaded machine: its timings are noisy. */
static void write_loaded_banner(const page *pg) {
  int shown = 0;
  for (int k = 0; k < pg->nfiles; k++) {
    const uj *ld = uj_get(pg->files[k], "load"), *s = uj_get(pg->files[k], "summary");
    const double busy = uj_getn(ld, "busy_runs", 0), cores = uj_getn(ld, "cores", 0),
                 start = uj_getn(ld, "start", NAN), end = uj_getn(ld, "end", NAN);
    if (!(busy > 0 || (cores > 0 && (start > cores || end > cores)))) continue;
    char say[1400], ran[600];
    if (uj_is_true(uj_get(pg->files[k], "single_run"))) /* a run's own --json: its load at its start and end */
      snprintf(ran, sizeof ran,
               "the single run of %s ran while the load average was above the machine's %.0f cores "
               "(%.2f at its start, %.2f at its end)",
               pg->paths[k], cores, start, end);
    else
      snprintf(ran, sizeof ran,
               "%.0f of %.0f runs of %s ran while the load average was above the machine's %.0f "
               "cores (%.2f before the suite, %.2f after)",
               busy, uj_getn(s, "runs", 0), pg->paths[k], cores, start, end);
    snprintf(say, sizeof say,
             "Loaded machine: %s: other work shared the CPU, so these timings and every rate from "
             "them are noisy (the \u00b1 spreads and their \u26a0 flags say how much). Compare ratios within one "
             "page, not absolute figures, or rerun on an idle machine.",
             ran);
    fputs(shown++ ? "<p class=\"banner\">" : "<p class=\"banner\" id=\"loaded\">", pg->h); /* ids are unique */
    rep_html_text(pg->h, say);
    fputs("</p>\n", pg->h);
    fputs("> **", pg->m); /* the path is the user's: escaped like every cell */
    rep_md_cell(pg->m, say);
    fputs("**\n\n", pg->m);
  }
}

/* the machines: a row per results file */
static void write_machines(const page *pg) {
  FILE *h = pg->h, *m = pg->m;
  fputs("<h2>Machines</h2>\n<div class=\"wrap\"><table>\n", h);
  fputs("## Machines\n\n", m);
  const char *mh[] = {"results", "device (as the columns name it)", "CPU", "host copy GB/s", "GPU", "cc", "GPU copy GB/s",
                      "driver / CUDA", "um commit", "runs pass", "samples per run", "load (start / end, cores)"};
  rep_row(h, m, 1, 12, mh);
  for (int k = 0; k < pg->nfiles; k++) {
    const uj *R = pg->files[k], *mm = uj_get(R, "machine"), *g = uj_get(mm, "gpu"), *s = uj_get(R, "summary");
    char c2[160], c5[64], c6[128], c8[64];
    copy_text(mm, c2, sizeof c2);
    snprintf(c5, sizeof c5, "%.0f", uj_getn(g, "copy_gb_per_s", 0));
    snprintf(c6, sizeof c6, "%s / %s", uj_gets(g, "driver", "-"), uj_gets(g, "cuda_runtime", "-"));
    snprintf(c8, sizeof c8, "%.0f of %.0f", uj_getn(s, "pass", 0), uj_getn(s, "runs", 0));
    char c10[32], c11[96];
    const uj *ld = uj_get(R, "load");
    snprintf(c10, sizeof c10, "%.0f", uj_getn(R, "repeat", 1));
    if (ld) snprintf(c11, sizeof c11, "%.2f / %.2f, %.0f%s", uj_getn(ld, "start", NAN), uj_getn(ld, "end", NAN),
                     uj_getn(ld, "cores", 0), uj_getn(ld, "busy_runs", 0) > 0 ? " (busy: noisy timings)" : "");
    else snprintf(c11, sizeof c11, "not recorded");
    const char *cells[] = {pg->paths[k], pg->devs[k], uj_gets(mm, "cpu", "?"), c2,
                           g && g->kind == UJ_OBJ ? uj_gets(g, "name", "-") : "-", uj_gets(g, "compute_capability", "-"),
                           g && g->kind == UJ_OBJ ? c5 : "-", c6, uj_gets(uj_get(R, "um"), "commit", "?"), c8, c10, c11};
    rep_row(h, m, 0, 12, cells);
  }
  fputs("</table></div>\n", h);
  fputc('\n', m);
}

/* the contents: a link per app and to the page's other sections */
static void write_contents(const page *pg) {
  FILE *h = pg->h;
  fputs("<p>Apps:", h);
  for (int a = 0; a < pg->apps.n; a++) { /* names from results files: an id of safe characters, the text escaped */
    fputs(" <a href=\"#app-", h);
    umrun_html_id(h, pg->apps.names[a]);
    fputs("\">", h);
    rep_html_text(h, pg->apps.names[a]);
    fputs("</a>", h);
  }
  fputs(" &middot; <a href=\"#bandwidth\">bandwidth per variant</a> &middot; <a href=\"#roofline\">roofline</a> &middot; "
        "<a href=\"#glossary\">reading the page</a> (a glossary of every figure, in OP2's words)</p>\n", h);
}

/* the bars of one results file's charts, app after app, as they are gathered */
typedef struct {
  bar *bars;
  char (*labels)[160];
  const char *groups[MAXAPPS];
  char glabels[MAXAPPS][160];
  int gstart[MAXAPPS], ng, nb, g0, b0, part; /* groups and bars; those of the charts drawn; the charts */
  double roof;                               /* the device's copy bandwidth */
} bar_charts;

/* app a's runs in results file k: its bars, and a line each in the markdown */
static void add_app_bars(const page *pg, int k, int a, bar_charts *bc) {
  const uj *cases = uj_get(pg->files[k], "cases");
  const char *app = pg->apps.names[a];
  FILE *m = pg->m;
  int first = 1;
  for (int i = 0; i < uj_len(cases); i++) {
    const uj *c = uj_at(cases, i), *run = uj_get(c, "run");
    if (strcmp(uj_gets(c, "app", ""), app) || !run || run->kind != UJ_OBJ) continue;
    const int nb = bc->nb;
    if (first) { /* a compute-bound app says so on the chart, as its paragraph does */
      snprintf(bc->glabels[bc->ng], sizeof bc->glabels[0], "%s%s", app,
               pg->bound[a] == REP_BOUND_ARITHMETIC ? " (compute-bound: read the roofline)" : "");
      bc->groups[bc->ng] = bc->glabels[bc->ng], bc->gstart[bc->ng++] = nb, first = 0;
    }
    rep_short_label(c, app, bc->labels[nb], sizeof bc->labels[nb]);
    bc->bars[nb].label = bc->labels[nb];
    bc->bars[nb].value = rep_run_gbs(run);
    bc->bars[nb].key = rep_strategy_key(c);
    const double cb = rep_device_copy_gbs(pg->files[k], run);
    if (isfinite(cb) && cb > bc->roof) bc->roof = cb;
    fputs("- ", m);
    rep_md_cell(m, pg->devs[k]);
    fputs(", ", m);
    rep_md_cell(m, app);
    fputc(' ', m);
    rep_md_cell(m, bc->labels[nb]);
    char gs[32];
    rep_gbs_text(gs, sizeof gs, bc->bars[nb].value);
    if (isfinite(cb) && cb > 0)
      fprintf(m, ": %s GB/s (%.0f%% of copy)", gs, 100 * bc->bars[nb].value / cb);
    else
      fprintf(m, ": %s GB/s (copy bandwidth not measured)", gs);
    fprintf(m, "%s\n", pg->bound[a] == REP_BOUND_ARITHMETIC ? " (compute-bound)" : "");
    bc->nb++;
  }
}

/* results file k's bandwidth charts: each holds whole apps, at most REP_BARS_MAX bars (one app of more: a
 * chart of its own) */
static void write_bandwidth_charts(const page *pg, int k) {
  const uj *cases = uj_get(pg->files[k], "cases");
  const int n = uj_len(cases);
  bar_charts bc = {.bars = calloc((size_t)n + 1, sizeof *bc.bars), .labels = calloc((size_t)n + 1, sizeof *bc.labels)};
  if (!bc.bars || !bc.labels) {
    free(bc.bars);
    free(bc.labels);
    return;
  }
  for (int a = 0; a <= pg->apps.n; a++) {
    int napp = 0;
    for (int i = 0; a < pg->apps.n && i < n; i++)
      napp += !strcmp(uj_gets(uj_at(cases, i), "app", ""), pg->apps.names[a]) && uj_get(uj_at(cases, i), "run") &&
              uj_get(uj_at(cases, i), "run")->kind == UJ_OBJ;
    if (bc.nb > bc.b0 && (a == pg->apps.n || bc.nb - bc.b0 + napp > REP_BARS_MAX)) {
      char title[512];
      snprintf(title, sizeof title, "%s: useful GB/s per run (%d)", pg->devs[k], ++bc.part);
      int gs[MAXAPPS];
      for (int q = bc.g0; q < bc.ng; q++) gs[q - bc.g0] = bc.gstart[q] - bc.b0;
      rep_svg_bars(pg->h, title, "useful GB/s", bc.groups + bc.g0, gs, bc.ng - bc.g0, bc.bars + bc.b0, bc.nb - bc.b0,
                   bc.roof);
      bc.g0 = bc.ng, bc.b0 = bc.nb;
    }
    if (a == pg->apps.n) break;
    add_app_bars(pg, k, a, &bc);
  }
  free(bc.bars);
  free(bc.labels);
}

/* bandwidth per app and variant, one chart per results file */
static void write_bandwidth(const page *pg) {
  fputs("<h2 id=\"bandwidth\">Useful bandwidth per app and variant</h2>\n<p>Useful bytes (each value a loop needs, "
        "read or written once per call) over the time in loops (a split loop's generated loops counted once, in their "
        "loop's time), per run; the dashed line is the device's measured "
        "copy bandwidth (read + write), the floor every loop aims at.</p>\n",
        pg->h);
  fputs("## Useful bandwidth per app and variant\n\n", pg->m);
  for (int k = 0; k < pg->nfiles; k++) write_bandwidth_charts(pg, k);
  fputc('\n', pg->m);
}

/* the end of the family of sets from sets[i] (named alike, region1 .. region11): the index after its last,
 * st its stem; i + 1 and "" for a set of no family */
static int set_family_end(const uj *sets, int i, char *st, size_t n) {
  const char *sn = uj_gets(uj_at(sets, i), "name", "?");
  int j = i + 1;
  char st2[128];
  const size_t sl = strcspn(sn, "0123456789");
  st[0] = '\0';
  if (sl && sn[sl] && strspn(sn + sl, "0123456789") == strlen(sn + sl)) {
    snprintf(st, n, "%.*s", (int)sl, sn);
    for (; j < uj_len(sets); j++) {
      const char *o = uj_gets(uj_at(sets, j), "name", "?");
      const size_t ol = strcspn(o, "0123456789");
      snprintf(st2, sizeof st2, "%.*s", (int)ol, o);
      if (strcmp(st, st2) || !o[ol] || strspn(o + ol, "0123456789") != strlen(o + ol)) break;
    }
  }
  return j;
}

/* the maps from the sets sets[i .. j) into mp: "name (arity, to set)" each; returns the length written */
static size_t maps_from(const uj *maps, const uj *sets, int i, int j, char *mp, size_t n) {
  size_t l = 0;
  for (int q = i; q < j; q++)
    for (int jj = 0; jj < uj_len(maps) && l < n; jj++) {
      const uj *mj = uj_at(maps, jj);
      if (strcmp(uj_gets(mj, "from", ""), uj_gets(uj_at(sets, q), "name", ""))) continue;
      l += (size_t)snprintf(mp + l, n - l, "%s%s (%.0f, to %s)", l ? "; " : "", uj_gets(mj, "name", "?"),
                            uj_getn(mj, "arity", 0), uj_gets(mj, "to", "?"));
    }
  return l;
}

/* the table of an app's sets and the maps from each; sets named alike with no maps from them: one row */
static void write_sets_maps(FILE *h, FILE *m, const uj *mesh) {
  fputs("<h3>Sets and maps</h3>\n<div class=\"wrap\"><table>\n", h);
  fputs("### Sets and maps\n\n", m);
  const char *sh[] = {"set", "size", "maps from it (arity, to)"};
  rep_row(h, m, 1, 3, sh);
  const uj *sets = uj_get(mesh, "sets"), *maps = uj_get(mesh, "maps");
  for (int i = 0; i < uj_len(sets);) {
    const char *sn = uj_gets(uj_at(sets, i), "name", "?");
    char st[128], size[64], mp[1024] = "", fam[200];
    const int j = set_family_end(sets, i, st, sizeof st);
    maps_from(maps, sets, i, j, mp, sizeof mp);
    if (j - i >= REP_FAMILY_MIN) {
      mp[0] = '\0'; /* the first set's maps stand for each's */
      const size_t l = maps_from(maps, sets, i, i + 1, mp, sizeof mp);
      if (l && l < sizeof mp) snprintf(mp + l, sizeof mp - l, "; and the like from each");
      double lo = INFINITY, hi = 0;
      for (int q = i; q < j; q++) {
        const double z = uj_getn(uj_at(sets, q), "size", 0);
        lo = z < lo ? z : lo, hi = z > hi ? z : hi;
      }
      snprintf(fam, sizeof fam, "%s* (%d sets: %s .. %s)", st, j - i, sn, uj_gets(uj_at(sets, j - 1), "name", "?"));
      snprintf(size, sizeof size, "%.0f .. %.0f", lo, hi);
      const char *cells[] = {fam, size, mp[0] ? mp : "-"};
      rep_row(h, m, 0, 3, cells);
      i = j;
      continue;
    }
    snprintf(size, sizeof size, "%.0f", uj_getn(uj_at(sets, i), "size", 0));
    const char *cells[] = {sn, size, mp[0] ? mp : "-"};
    rep_row(h, m, 0, 3, cells);
    i++;
  }
  fputs("</table></div>\n", h);
  fputc('\n', m);
}

/* one row of the loops table: loop i, alone (pass 1: one of a family) or standing for its row's family */
static void write_loop_row(const page *pg, const char *app, const app_loop *al, const rep_rowspan *row, int i,
                           int pass) {
  const uj *l = al[i].loop;
  char name[300], pat[1024], be[32], bc[32], sp[400], why[1200], over[300];
  const rep_rowspan one = {i, pass ? 1 : row->count, ""};
  rep_loop_label(&al[i], name, sizeof name);
  rep_pattern_summary(l, pat, sizeof pat);
  double size = 0, bpc = 0;
  int nsets = 1;
  snprintf(over, sizeof over, "%s", uj_gets(l, "iteration_set", "?"));
  for (int z = one.start; z < one.start + one.count; z++) {
    size += uj_getn(al[z].loop, "set_size", 0), bpc += uj_getn(al[z].loop, "bytes_per_call", 0);
    nsets += z > one.start && strcmp(uj_gets(al[z].loop, "iteration_set", "?"), uj_gets(al[z - 1].loop, "iteration_set", "?"));
  }
  if (nsets > 1) /* a family over a family of sets: the first and the last */
    snprintf(over, sizeof over, "%.120s .. %.120s (%d sets)", uj_gets(l, "iteration_set", "?"),
             uj_gets(al[one.start + one.count - 1].loop, "iteration_set", "?"), nsets);
  snprintf(be, sizeof be, "%.1f", size > 0 ? bpc / size : 0);
  snprintf(bc, sizeof bc, "%.0f", bpc);
  rep_rowtext t; /* the figures the paragraph quotes, computed once */
  rep_row_text(&pg->ix, pg->files, pg->nfiles, app, al, &one, &t);
  rep_split_summary(&pg->ix, pg->files, pg->nfiles, app, &al[i], sp, sizeof sp, why, sizeof why);
  const char *ops_tip = t.bound_kind == REP_OPS_PATHS ? "the shortest .. the longest path through the kernel's branches"
                        : t.bound_kind == REP_OPS_RUN ? "counted by the app at run time (a lower bound)"
                                                       : NULL;
  const char *cells[] = {pass || one.count < 2 ? name : row->label, *over ? over : "-", pat, be, bc, t.ops_text,
                         t.ai_text, al[i].depth ? "(inside)" : t.share_text, rep_bound_words(t.bound), sp};
  const char *tips[] = {al[i].depth ? al[i].name : NULL, NULL, NULL, NULL, NULL, ops_tip, ops_tip, NULL, NULL, why};
  rep_row_t(pg->h, pg->m, 0, 10, cells, tips);
}

/* the table of an app's loops: a row each (loops named alike share one), then each family's loops */
static void write_loops_table(const page *pg, const char *app, const app_loop *al, int nal) {
  FILE *h = pg->h, *m = pg->m;
  fputs("<h3>Loops</h3>\n<p class=\"note\">Bytes are useful bytes (each value the loop needs, once); "
        "operations are counted in the kernel's source (binary arithmetic and math calls, following calls into "
        "helper functions and multiplying loops with a constant trip count), per path through its branches: "
        "<em>a..b</em> the shortest and the longest path (the longest an upper bound), one figure where they agree; "
        "&ge;: counted by the app at run time where the source cannot be (a lower bound); the intensity is a guide, "
        "not a measurement; \"unknown\": a count that cannot be computed from the source "
        "(e.g. a loop that runs a number of times known only at run time). <em>bound by</em>: memory below 1 "
        "operation per byte, arithmetic from 10 (a machine's balance), between in between. <em>split</em>: how the engine ran a "
        "loop that increments through maps (<code>run.split</code>; the reason in the cell's tooltip and in the "
        "table of loop splitting below); the loops a split generates are listed under it (&#8627;): their time is "
        "inside their loop's, never counted twice. <em>share</em>: the loop's time over the time of all the app's "
        "loops, the median over its runs. Loops named alike (<code>eos_r2</code> .. <code>eos_r11</code>) share a "
        "row: their bytes and times summed; each is listed under the table.</p>\n<div class=\"wrap\"><table>\n",
        h);
  fputs("### Loops\n\n", m);
  const char *lh[] = {"loop", "over", "access pattern", "bytes / element", "bytes / call", "ops / element (counted)",
                      "ops / byte", "share of loop time", "bound by", "split"};
  rep_row(h, m, 1, 10, lh);
  rep_rowspan *rows = calloc((size_t)nal + 1, sizeof *rows);
  const int nr = rows ? rep_group_rows(al, nal, rows) : 0;
  for (int pass = 0; pass < 2; pass++) { /* the rows; then, below the table, each family's loops */
    for (int q = 0; q < nr; q++) {
      if (pass && rows[q].count < 2) continue;
      if (pass) {
        fputs("<details><summary>", h);
        rep_html_text(h, rows[q].label);
        fputs(" one by one</summary>\n<div class=\"wrap\"><table>\n", h);
        fputs("\n", m); /* the markdown: a table of its own */
        rep_row(h, m, 1, 10, lh);
      }
      for (int i = rows[q].start; i < rows[q].start + (pass ? rows[q].count : 1); i++)
        write_loop_row(pg, app, al, &rows[q], i, pass);
      if (pass) fputs("</table></div></details>\n", h);
    }
    if (!pass) fputs("</table></div>\n", h);
  }
  free(rows);
  fputc('\n', m);
}

/* how many runs of app gave results, in all the files */
static int app_runs(const page *pg, const char *app) {
  int n = 0;
  for (int k = 0; k < pg->nfiles; k++) {
    const uj *cs = uj_get(pg->files[k], "cases");
    for (int i = 0; i < uj_len(cs); i++) {
      const uj *r = uj_get(uj_at(cs, i), "run");
      n += !strcmp(uj_gets(uj_at(cs, i), "app", ""), app) && r && r->kind == UJ_OBJ;
    }
  }
  return n;
}

/* the checkpoints each of the app's runs wrote or continued from (the run JSON's "checkpoints"): how many, their
 * bytes, time and rate, the dats saved and skipped */
static void write_checkpoints(const page *pg, const char *app) {
  FILE *h = pg->h, *m = pg->m;
  for (int k = 0; k < pg->nfiles; k++) {
    const uj *cs = uj_get(pg->files[k], "cases");
    for (int i = 0; i < uj_len(cs); i++) {
      const uj *c = uj_at(cs, i), *ck = uj_get(uj_get(c, "run"), "checkpoints");
      if (strcmp(uj_gets(c, "app", ""), app) || !ck || ck->kind != UJ_OBJ) continue;
      const double n = uj_getn(ck, "written", 0), b = uj_getn(ck, "last_bytes", 0), t = uj_getn(ck, "seconds", 0);
      const uj *dats = uj_get(ck, "dats");
      int saved = 0;
      for (int d = 0; d < uj_len(dats); d++) saved += uj_is_true(uj_get(uj_at(dats, d), "saved"));
      char line[512];
      snprintf(line, sizeof line,
               "checkpoints: %.0f written, %.1f MB each, %.3f s in all (%.2f GB/s); %d dats saved, %d skipped "
               "(the run's JSON says why)%s",
               n, b / 1e6, t, t > 0 && n > 0 ? n * b / t / 1e9 : 0.0, saved, uj_len(dats) - saved,
               uj_get(ck, "restart") ? "; the run continued from a checkpoint" : "");
      fputs("<p class=\"note\">", h);
      rep_html_text(h, uj_gets(c, "case", ""));
      fputs(": ", h);
      rep_html_text(h, line);
      fputs("</p>\n", h);
      rep_md_cell(m, uj_gets(c, "case", ""));
      fputs(": ", m);
      rep_md_cell(m, line);
      fputs("\n\n", m);
    }
  }
}

/* an app's section: its note, paragraph, sets and maps, loops, variants, side by side, splits and tuning */
static void write_app(const page *pg, const char *app) {
  FILE *h = pg->h, *m = pg->m;
  const uj *run = rep_first_run_of(pg->files, pg->nfiles, app);
  fputs("<h2 id=\"app-", h);
  umrun_html_id(h, app);
  fputs("\">", h);
  rep_html_text(h, app);
  fprintf(h, "</h2>\n<p>%s</p>\n", note_for(pg->runner, app)); /* our own text, with its markup */
  fputs("## ", m);
  rep_md_cell(m, app);
  fputs("\n\n", m);
  if (!run) {
    fputs("<p>No run of this app produced results.</p>\n", h);
    return;
  }
  app_loop *al = NULL;
  const int nal = rep_app_loops(pg->files, pg->nfiles, app, &al);
  rep_app_figs figs; /* the loops table's figures: the paragraph quotes them */
  if (rep_app_figs_make(&pg->ix, pg->files, pg->nfiles, app, al, nal, &figs))
    rep_app_paragraph(h, m, &figs, al, app_runs(pg, app));
  rep_app_figs_free(&figs);
  rep_app_notes(h, m, &pg->ix, pg->files, pg->devs, pg->nfiles, app);
  write_sets_maps(h, m, uj_get(run, "mesh"));
  rep_write_picture(h, m, pg->files, pg->paths, pg->nfiles, app); /* a run's --draw picture, if one drew */
  write_loops_table(pg, app, al, nal);
  rep_write_variants(h, m, &pg->ix, pg->files, pg->devs, pg->nfiles, app, al, nal);
  rep_write_side_by_side(h, m, &pg->ix, pg->files, pg->devs, pg->nfiles, app, al, nal);
  rep_write_splits(h, m, &pg->ix, pg->files, pg->nfiles, app);
  rep_write_tuning(h, m, &pg->ix, pg->files, pg->nfiles, app);
  write_checkpoints(pg, app);
  rep_write_setup(h, m, pg->files, pg->nfiles, app);
  free(al);
}

void rep_write_page(const um_runner *r, FILE *h, FILE *m, const uj *const *files, const char *const *paths,
                    int nfiles) {
  page pg = {.h = h, .m = m, .files = files, .paths = paths, .nfiles = nfiles, .apps = {{0}, 0}, .runner = r};
  char (*devl)[256] = device_labels(files, paths, nfiles);
  pg.devs = calloc((size_t)nfiles + 1, sizeof *pg.devs);
  if (!devl || !pg.devs) {
    free(devl);
    free(pg.devs);
    return;
  }
  for (int k = 0; k < nfiles; k++) pg.devs[k] = devl[k];
  /* every run's loops by name: the page takes time linear in the loops */
  if (rep_index_build(&pg.ix, files, nfiles)) {
    fputs("<p>out of memory indexing the runs' loops</p>\n", h);
    free(devl);
    free(pg.devs);
    return;
  }
  for (int k = 0; k < nfiles; k++) {
    const uj *cases = uj_get(files[k], "cases");
    for (int i = 0; i < uj_len(cases); i++) app_index(&pg.apps, uj_gets(uj_at(cases, i), "app", "?"));
  }
  for (int a = 0; a < pg.apps.n; a++) pg.bound[a] = app_bound(&pg, pg.apps.names[a]);
  write_page_head(&pg);
  write_loaded_banner(&pg);
  write_machines(&pg);
  rep_write_not_shown(h, m, files, paths, nfiles);
  write_contents(&pg);
  write_bandwidth(&pg);
  for (int a = 0; a < pg.apps.n; a++) write_app(&pg, pg.apps.names[a]);
  /* roofline per results file: each loop at its best variant */
  fputs("<h2 id=\"roofline\">Roofline-style picture per device</h2>\n<p>Each point is one loop at its fastest "
        "variant on that device: counted operations per useful byte against operations per second, numbered "
        "(the legend under the chart names each). Where a kernel's branches do different work, a segment runs "
        "from its shortest path (the point) to its longest (an upper bound); a count the app made at run time "
        "is a lower bound. Points near a dashed bandwidth line move their bytes at copy speed; the distance "
        "below it is what a better strategy could still win. The flat solid line is the GPU's peak double-precision "
        "rate (its multiprocessors, FP64 units and clock; a fused multiply-add counts two). The dotted grey roofs "
        "(on a CPU's page, the solid ones) are the host CPU's: its measured copy bandwidth and the rate of a "
        "multiply-add loop on all its threads (<code>umrun --suite</code> measures both). A loop that ran split "
        "is one point (the whole call's time, the loop's useful bytes); the loops its split generated are not "
        "drawn apart.</p>\n",
        h);
  fputs("## Roofline\n\n", m);
  for (int k = 0; k < nfiles; k++) write_roofline(h, m, files[k], pg.devs[k], &pg.apps);
  rep_write_glossary(h, m);
  fputs("</body></html>\n", h);
  rep_index_free(&pg.ix);
  free(devl);
  free(pg.devs);
}
