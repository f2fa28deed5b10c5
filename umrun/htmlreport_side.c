/* umrun --report: loop families (LULESH's eos_r2 .. eos_r11 as one row), a run's strategy as its colour
 * key, two devices side by side (each loop's figures from two results files, with the ratio B/A), the
 * glossary, the paragraph each app gets from its own figures and the notes beside them (figures above
 * the copy bandwidth, a variant far off its backend's best). */
#include "htmlreport_internal.h"

#define REP_FAR_OFF 3.0 /* a run this many times slower than its backend's best: a note says why */

/* ---- families ---------------------------------------------------------------------------- */
/* name without its trailing digits (eos_r10 -> eos_r); 0 when it has none */
static int stem_of(const char *name, char *stem, size_t len) {
  size_t n = strlen(name), k = n;
  while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9') k--;
  if (k == n || k == 0) return 0;
  snprintf(stem, len, "%.*s", (int)k, name);
  return 1;
}

int rep_group_rows(const app_loop *al, int nal, rep_rowspan *rows) {
  int nr = 0;
  for (int i = 0; i < nal;) {
    char s0[256] = "", s1[256];
    int j = i + 1;
    /* a run of loops named alike (a stem, then digits), none split into parts */
#define ALONE(x) (!al[x].depth && !((x) + 1 < nal && al[(x) + 1].depth))
    if (ALONE(i) && stem_of(al[i].name, s0, sizeof s0))
      while (j < nal && ALONE(j) && stem_of(al[j].name, s1, sizeof s1) && !strcmp(s0, s1)) j++;
#undef ALONE
    if (j - i < REP_FAMILY_MIN) j = i + 1;
    rows[nr].start = i;
    rows[nr].count = j - i;
    if (j - i > 1) snprintf(rows[nr].label, sizeof rows[nr].label, "%s* (%d loops)", s0, j - i);
    else rep_loop_label(&al[i], rows[nr].label, sizeof rows[nr].label);
    nr++;
    i = j;
  }
  return nr;
}

/* A row's figures in one run: the time (s), useful bytes moved (bytes per call x calls), calls of its
 * first loop and the spread of its time (--suite --repeat; min, max: the sums of its loops'). 0: it did
 * not run there. */
int rep_row_figures(const rep_index *ix, const uj *run, const app_loop *al, const rep_rowspan *r, rep_figs *f) {
  memset(f, 0, sizeof *f);
  const rep_run *rr = rep_index_run(ix, run);
  for (int i = r->start; i < r->start + r->count; i++) {
    const uj *l = rep_run_loop(rr, al[i].name); /* the first loop of that name */
    if (l) {
      const double s = uj_getn(l, "seconds", 0), n = uj_getn(l, "samples", 1);
      f->seconds += s;
      f->smin += n > 1 ? uj_getn(l, "seconds_min", s) : s;
      f->smax += n > 1 ? uj_getn(l, "seconds_max", s) : s;
      f->samples = n > f->samples ? n : f->samples;
      f->bytes += uj_getn(l, "bytes_per_call", 0) * uj_getn(l, "calls", 0);
      if (!f->found++) f->calls = uj_getn(l, "calls", 0);
    }
  }
  return f->found;
}

/* the time of the run's loops (the app's own: a split loop's parts are inside it) */
double rep_loops_seconds(const rep_index *ix, const uj *run) {
  const rep_run *rr = rep_index_run(ix, run);
  return rr ? rr->loops_seconds : 0;
}

/* ---- strategies -------------------------------------------------------------------------- */
/* a run's strategy as the report names it: the seq backend runs blocks in order ("seq"), whatever the
 * config's strategy says */
const char *rep_strategy_key(const uj *c) {
  const char *b = uj_gets(c, "backend", "");
  return !strcmp(b, "seq") ? "seq" : uj_gets(c, "strategy", "?");
}

/* ---- two devices side by side ------------------------------------------------------------ */
static const uj *case_by_id(const uj *R, const char *id) {
  const uj *cs = uj_get(R, "cases");
  for (int i = 0; i < uj_len(cs); i++)
    if (!strcmp(uj_gets(uj_at(cs, i), "id", ""), id)) return uj_at(cs, i);
  return NULL;
}

static void fmt_time(char *buf, size_t len, const rep_figs *f) {
  char sp[40];
  rep_spread_text(sp, sizeof sp, f); /* ± half the spread, flagged when it is noise */
  snprintf(buf, len, "%.4g%s", f->calls > 0 ? 1e3 * f->seconds / f->calls : NAN, sp);
}

void rep_write_side_by_side(FILE *h, FILE *m, const rep_index *ix, const uj *const *files, const char *const *devs,
                            int nfiles, const char *app, const app_loop *al, int nal) {
  if (nfiles < 2 || nal <= 0) return;
  rep_rowspan *rows = calloc((size_t)nal, sizeof *rows);
  if (!rows) return;
  const int nr = rep_group_rows(al, nal, rows);
  const uj *cases = uj_get(files[0], "cases");
  int shown = 0;
  for (int k = 1; k < nfiles; k++)
    for (int i = 0; i < uj_len(cases); i++) {
      const uj *ca = uj_at(cases, i), *ra = uj_get(ca, "run");
      const char *id = uj_gets(ca, "id", "");
      const uj *cb = case_by_id(files[k], id), *rb = uj_get(cb, "run");
      if (strcmp(uj_gets(ca, "app", ""), app) || !ra || ra->kind != UJ_OBJ || !rb || rb->kind != UJ_OBJ) continue;
      if (!shown++) {
        fputs("<h3>Side by side: the same runs on two devices</h3>\n<p class=\"note\">Each loop's time per call and "
              "useful bandwidth in the two results files (the run is the same case and variant), and the ratio of the "
              "times B / A (below 1: B is faster). &plusmn;: half the spread of the samples (<code>--suite --repeat"
              "</code>) as a share of the median.</p>\n",
              h);
        fputs("### Side by side: the same runs on two devices\n\n", m);
      }
      char sum[900], hd[6][400];
      snprintf(sum, sizeof sum, "%s: %s (A) and %s (B)", id, devs[0], devs[k]);
      fprintf(h, "<details%s><summary>", shown == 1 ? " open" : "");
      rep_html_text(h, sum);
      fputs("</summary>\n<div class=\"wrap\"><table>\n", h);
      fputs("#### ", m);
      rep_md_cell(m, sum);
      fputs("\n\n", m);
      snprintf(hd[1], sizeof hd[1], "%s ms/call", devs[0]);
      snprintf(hd[2], sizeof hd[2], "%s ms/call", devs[k]);
      snprintf(hd[3], sizeof hd[3], "B/A (%s / %s)", devs[k], devs[0]);
      snprintf(hd[4], sizeof hd[4], "%s GB/s (%% of copy)", devs[0]);
      snprintf(hd[5], sizeof hd[5], "%s GB/s (%% of copy)", devs[k]);
      const char *hc[] = {"loop", hd[1], hd[2], hd[3], hd[4], hd[5]};
      rep_row(h, m, 1, 6, hc);
      const double cba = rep_device_copy_gbs(files[0], ra), cbb = rep_device_copy_gbs(files[k], rb);
      for (int q = 0; q < nr; q++) {
        rep_figs fa, fb;
        const int ina = rep_row_figures(ix, ra, al, &rows[q], &fa), inb = rep_row_figures(ix, rb, al, &rows[q], &fb);
        if (!ina && !inb) continue;
        char c1[64] = "-", c2[64] = "-", c3[32] = "-", c4[64] = "-", c5[64] = "-";
        if (ina) fmt_time(c1, sizeof c1, &fa);
        if (inb) fmt_time(c2, sizeof c2, &fb);
        if (ina && inb && fa.seconds > 0 && fa.calls > 0 && fb.calls > 0)
          snprintf(c3, sizeof c3, "%.3f", (fb.seconds / fb.calls) / (fa.seconds / fa.calls));
        const double ga = fa.seconds > 0 ? fa.bytes / fa.seconds * 1e-9 : 0, gb = fb.seconds > 0 ? fb.bytes / fb.seconds * 1e-9 : 0;
        char ta[32], tb[32];
        rep_gbs_text(ta, sizeof ta, ga), rep_gbs_text(tb, sizeof tb, gb);
        if (ina) snprintf(c4, sizeof c4, cba > 0 ? "%s (%.0f%%)" : "%s", ta, 100 * ga / cba);
        if (inb) snprintf(c5, sizeof c5, cbb > 0 ? "%s (%.0f%%)" : "%s", tb, 100 * gb / cbb);
        const char *cells[] = {rows[q].label, c1, c2, c3, c4, c5};
        rep_row(h, m, 0, 6, cells);
      }
      fputs("</table></div></details>\n", h);
      fputc('\n', m);
    }
  free(rows);
}

/* ---- the glossary -------------------------------------------------------------------------- */
void rep_write_glossary(FILE *h, FILE *m) {
  static const char *const terms[][2] = {
      {"set, map, dat, loop", "OP2's words: a set of mesh elements (cells, edges, nodes), a map between two sets (each "
                              "edge's 2 cells), a dat (values on a set), a loop over a set calling a kernel once per "
                              "element, each argument with an access mode."},
      {"READ / WRITE / RW / INC", "the access modes: the kernel only reads the value; only writes it; reads and writes "
                                  "it; adds to it (increments from several elements meet on one value). MIN and MAX "
                                  "reduce a global."},
      {"direct / indirect", "an argument is direct when the loop reaches its own set's dat, indirect when it goes "
                            "through a map. The access pattern names both: an indirect read is READ through a map, "
                            "an indirect increment INC through a map (the one that needs colours or atomics: two "
                            "elements may add to one value at once), an indirect write or update WRITE or RW through "
                            "a map; a reduction is INC, MIN or MAX on a global."},
      {"useful bytes", "the bytes a loop must move per call if every value crossed memory once: each dat it reads "
                       "once, each dat it increments or updates read and written once, each map it uses read once. "
                       "Re-reads from cache or memory are not counted: they are the cost a better order or strategy "
                       "saves."},
      {"useful GB/s, % of copy", "useful bytes over the time per call, and that as a share of the device's measured "
                                 "copy bandwidth (read + write of a large array: what streaming memory can give). "
                                 "Above 100%: the data fit in the caches (a small case), cache speed, not a faster "
                                 "memory. A run on several ranks is one job: a loop's time is its slowest rank's, "
                                 "its bytes and elements every rank's."},
      {"ops/element, ops/byte", "arithmetic operations per element counted in the kernel's source, per path through "
                                "its branches (a..b: the shortest and the longest path; the longest is an upper bound), "
                                "and per useful byte (arithmetic intensity); \u2265: counted by the app at run time, a "
                                "lower bound. Well below the machine's balance (peak operations over copy bandwidth: "
                                "about 10 on a CPU core group, 20 or more on a GPU) a loop is bound by memory; above "
                                "it, by arithmetic (the bound by column: memory below 1, arithmetic from 10)."},
      {"block, block colour", "the plan cuts the iteration set into blocks (mini-partitions, run.block_size). Blocks "
                              "of one colour increment no common value, so they run in parallel; the colours run one "
                              "after another. More colours: less parallel work per step."},
      {"thread colour", "inside a block, elements of one thread colour increment no common value (the GPU's "
                        "hierarchical strategy applies its increments colour by colour)."},
      {"shared bytes, reuse", "the indirect data a block stages in GPU shared memory, and how often each staged "
                              "value is used (the gain from staging: 1 is none)."},
      {"strategies", "how increments through maps avoid races: seq (one thread, in order), coloured (block colours "
                     "on OpenMP threads), atomics (on the GPU, and on OpenMP threads for vector increments), global "
                     "(colouring of elements) and hierarchical (blocks, shared memory, thread colours) on the GPU. "
                     "Each has the same colour in every report."},
      {"share of loop time", "a loop's time over the time of all the app's loops in the run (the step's loops: what "
                             "dominates the step)."},
      {"±", "with --suite --repeat N: the time is the median of N runs, ± half the spread (max - min) as a share "
            "of it; \u26a0 above 25%: noise, not data (a busy machine, or a loop too short to time)."},
      {"copy bandwidth", "the host's: the median of the samples umrun --suite takes before and after the runs (the "
                         "Machines table gives their range); a GPU's: measured once per run on the device."}};
  fputs("<h2 id=\"glossary\">Reading the page</h2>\n<dl class=\"gloss\">\n", h);
  fputs("## Reading the page\n\n", m);
  for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++) {
    fputs("<dt>", h);
    rep_html_text(h, terms[i][0]);
    fputs("</dt><dd>", h);
    rep_html_text(h, terms[i][1]);
    fputs("</dd>\n", h);
    fputs("- **", m);
    rep_md_cell(m, terms[i][0]);
    fputs("**: ", m);
    rep_md_cell(m, terms[i][1]);
    fputc('\n', m);
  }
  fputs("</dl>\n", h);
  fputc('\n', m);
}

/* ---- the app's paragraph, from the figures shown ------------------------------------------ */
/* whether a loop of the row goes through a map, and increments through one */
static void row_access(const app_loop *al, const rep_rowspan *r, int *indirect, int *inc) {
  *indirect = *inc = 0;
  for (int i = r->start; i < r->start + r->count; i++) {
    const uj *l = al[i].loop, *args = uj_get(l, "args");
    *indirect |= uj_is_true(uj_get(l, "indirect"));
    for (int a = 0; a < uj_len(args); a++) *inc |= !strcmp(uj_gets(uj_at(args, a), "pattern", ""), "indirect increment");
  }
}

/* The app's rows (a family one row) with their figures as the loops table prints them, and the app's own rows
 * (not a split's generated loops) ordered by their share of loop time, largest first. 0: out of memory. */
int rep_app_figs_make(const rep_index *ix, const uj *const *files, int nfiles, const char *app, const app_loop *al,
                      int nal, rep_app_figs *f) {
  memset(f, 0, sizeof *f);
  if (nal <= 0) return 1;
  f->rows = calloc((size_t)nal, sizeof *f->rows);
  f->t = calloc((size_t)nal, sizeof *f->t);
  f->order = calloc((size_t)nal, sizeof *f->order);
  if (!f->rows || !f->t || !f->order) {
    rep_app_figs_free(f);
    return 0;
  }
  f->nrows = rep_group_rows(al, nal, f->rows);
  for (int q = 0; q < f->nrows; q++) {
    rep_row_text(ix, files, nfiles, app, al, &f->rows[q], &f->t[q]);
    if (!al[f->rows[q].start].depth && f->t[q].share >= 0) f->order[f->n++] = q;
  }
  for (int x = 1; x < f->n; x++) /* largest share first; equal shares in the table's order */
    for (int y = x; y > 0 && f->t[f->order[y]].share > f->t[f->order[y - 1]].share; y--) {
      const int tmp = f->order[y];
      f->order[y] = f->order[y - 1], f->order[y - 1] = tmp;
    }
  return 1;
}

void rep_app_figs_free(rep_app_figs *f) {
  free(f->rows);
  free(f->t);
  free(f->order);
  memset(f, 0, sizeof *f);
}

/* what bounds the app's largest loop (REP_BOUND_*) */
int rep_app_bound(const rep_app_figs *f) { return f->n ? f->t[f->order[0]].bound : REP_BOUND_UNKNOWN; }

void rep_app_paragraph(FILE *h, FILE *m, const rep_app_figs *f, const app_loop *al, int nruns) {
  if (!f->n) return;
  char *text = NULL;
  size_t len = 0;
  FILE *t = open_memstream(&text, &len);
  if (!t) return;
  const int ntop = f->n < 3 ? f->n : 3;
  /* every figure below is a string of the loops table: the same numbers, never recomputed */
  fprintf(t, "From the loops table below (each share the median over the app's %d run%s): %s", nruns,
          nruns == 1 ? "" : "s", ntop == 1 ? "its largest loop is" : ntop == 2 ? "its two largest loops are" : "its three largest loops are");
  for (int i = 0; i < ntop; i++) {
    const int q = f->order[i];
    const rep_rowtext *x = &f->t[q];
    int ind, inc;
    row_access(al, &f->rows[q], &ind, &inc);
    fprintf(t, "%s %s (%s of the loops' time; %s%s, ", i ? ";" : "", f->rows[q].label, x->share_text,
            ind ? "indirect" : "direct", inc ? ", increments through a map" : "");
    if (x->bound == REP_BOUND_UNKNOWN) fputs("operations not counted)", t);
    else fprintf(t, "%s ops/byte: %s)", x->ai_text, rep_bound_words(x->bound));
  }
  fputs(". ", t);
  int nind = 0, ninc = 0, nall = 0;
  for (int q = 0; q < f->nrows; q++) {
    int ind, inc;
    if (al[f->rows[q].start].depth) continue;
    row_access(al, &f->rows[q], &ind, &inc);
    nall++, nind += ind, ninc += inc;
  }
  fprintf(t, "Of its %d loops (a family counted once), %d reach%s other sets through maps (indirect) and %d of those "
             "increment%s through a map (INC: the colours or atomics of the plans below). ",
          nall, nind, nind == 1 ? "es" : "", ninc, ninc == 1 ? "s" : "");
  static const char *const verdict[] = {
      "Its largest loop moves more bytes than it computes on: its useful GB/s against the copy bandwidth is the "
      "figure to read.",
      "Its largest loop does several operations per byte: memory and arithmetic both matter, and its GB/s can stay "
      "below the copy bandwidth even when it runs well.",
      "Arithmetic, not memory, bounds its largest loop (compute-bound): its GB/s stays far below the copy bandwidth "
      "by design; read its operations per second on the roofline, not its GB/s.",
      "Its largest loop's operations are not counted, so the page cannot say what bounds it: its GB/s against the "
      "copy bandwidth says only how far it is from being bound by memory."};
  fputs(verdict[rep_app_bound(f)], t);
  fclose(t);
  fputs("<p class=\"gen\">", h);
  rep_html_text(h, text);
  fputs("</p>\n", h);
  rep_md_cell(m, text);
  fputs("\n\n", m);
  free(text);
}

/* Notes beside the figures: useful bandwidth above the copy bandwidth (cache), and a variant far off the
 * app's others (e.g. SoA on a CPU), with why. */
void rep_app_notes(FILE *h, FILE *m, const rep_index *ix, const uj *const *files, const char *const *devs, int nfiles,
                   const char *app) {
  for (int k = 0; k < nfiles; k++) {
    const uj *cs = uj_get(files[k], "cases");
    double best = 0, worst = 0, over = 0, far = 0;
    const uj *cb = NULL, *cw = NULL;
    char over_loop[300] = "";
    for (int i = 0; i < uj_len(cs); i++) {
      const uj *c = uj_at(cs, i), *r = uj_get(c, "run");
      if (strcmp(uj_gets(c, "app", ""), app) || !r || r->kind != UJ_OBJ) continue;
      const rep_run *rr = rep_index_run(ix, r);
      const double g = rr ? rr->gbs : rep_run_gbs(r), copy = rep_device_copy_gbs(files[k], r);
      for (int j = 0; j < uj_len(cs); j++) { /* the best run of the same app and backend */
        const uj *o = uj_at(cs, j), *ro = uj_get(o, "run");
        if (strcmp(uj_gets(o, "case", ""), uj_gets(c, "case", "")) || !ro || ro->kind != UJ_OBJ ||
            strcmp(uj_gets(o, "backend", ""), uj_gets(c, "backend", "")))
          continue; /* the same case (mesh, deck) and backend: only the variant differs */
        const rep_run *ri = rep_index_run(ix, ro);
        const double go = ri ? ri->gbs : rep_run_gbs(ro);
        if (g > 0 && go / g > far) far = go / g, best = go, worst = g, cb = o, cw = c;
      }
      const uj *ls = uj_get(r, "loops");
      for (int q = 0; q < uj_len(ls) && copy > 0; q++) {
        const double lg = umrun_loop_gbs(uj_at(ls, q));
        if (lg / copy > over && lg > copy) {
          over = lg / copy;
          snprintf(over_loop, sizeof over_loop, "%s", uj_gets(uj_at(ls, q), "name", "?"));
        }
      }
    }
    char *text = NULL;
    size_t len = 0;
    FILE *t = open_memstream(&text, &len);
    if (!t) return;
    if (over > 1)
      fprintf(t, "Note (%s): figures above 100%% of the copy bandwidth (up to %.0f%%, %s) are not faster memory: the "
                 "small case's data fit in the caches, which serve them faster than memory can. ",
              devs[k], 100 * over, over_loop);
    if (cb && cw && best > REP_FAR_OFF * worst) {
      char vb[200], vw[200];
      umrun_variant_label(cb, vb, sizeof vb);
      umrun_variant_label(cw, vw, sizeof vw);
      const int cpu = strcmp(uj_gets(cw, "backend", ""), "cuda") != 0;
      fprintf(t, "Note (%s): %s %s moves its bytes %.0fx slower than %s %s. ", devs[k], uj_gets(cw, "case", ""), vw,
              best / worst, uj_gets(cb, "case", ""), vb);
      if (cpu && !strcmp(uj_gets(cw, "layout", ""), "soa") && strcmp(uj_gets(cb, "layout", ""), "soa"))
        fputs("SoA on a CPU: an element's components lie a set's length apart, so each element touches one cache "
              "line per component instead of one for all, and the gathers through maps cannot share lines; SoA is "
              "the GPU's layout (neighbouring threads read neighbouring values). ", t);
      for (int q = 0; q < 2; q++) { /* a run on a busy machine: the gap may be the machine's */
        const uj *ld = uj_get(q ? cb : cw, "load");
        if (uj_is_true(uj_get(ld, "busy")))
          fprintf(t, "The %s ran on a busy machine (load average %.1f on %.0f cores): part of the gap may be other "
                     "work's, not the variant's. ", q ? "faster" : "slower", fmax(uj_getn(ld, "start", 0), uj_getn(ld, "end", 0)),
                  uj_getn(ld, "cores", 0));
      }
    }
    fclose(t);
    if (len) {
      fputs("<p class=\"note warn\">", h);
      rep_html_text(h, text);
      fputs("</p>\n", h);
      rep_md_cell(m, text);
      fputs("\n\n", m);
    }
    free(text);
  }
}
