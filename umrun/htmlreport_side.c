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
  const double ms = f->calls > 0 ? 1e3 * f->seconds / f->calls : NAN;
  if (f->samples > 1 && f->seconds > 0)
    snprintf(buf, len, "%.4g ±%.0f%%", ms, 50 * (f->smax - f->smin) / f->seconds);
  else snprintf(buf, len, "%.4g", ms);
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
        if (ina) snprintf(c4, sizeof c4, cba > 0 ? "%.1f (%.0f%%)" : "%.1f", ga, 100 * ga / cba);
        if (inb) snprintf(c5, sizeof c5, cbb > 0 ? "%.1f (%.0f%%)" : "%.1f", gb, 100 * gb / cbb);
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
                                 "memory."},
      {"ops/element, ops/byte", "arithmetic operations per element counted in the kernel's source, and per useful "
                                "byte (arithmetic intensity). Well below the machine's balance (peak operations over "
                                "copy bandwidth: about 10 on a CPU core group, 20 or more on a GPU) a loop is bound "
                                "by memory; above it, by arithmetic."},
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
            "of it."}};
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
typedef struct {
  int row;
  double share;
} share_of;

static int by_share(const void *a, const void *b) {
  const double x = ((const share_of *)a)->share, y = ((const share_of *)b)->share;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* the row's counted operations per useful byte (-1: unknown) and whether a loop of it goes through a map,
 * and increments through one */
static double row_intensity(const app_loop *al, const rep_rowspan *r, int *indirect, int *inc) {
  double ops = 0, bytes = 0;
  int unknown = 0;
  *indirect = *inc = 0;
  for (int i = r->start; i < r->start + r->count; i++) {
    const uj *l = al[i].loop;
    const double op = uj_getn(l, "ops_estimate", -1), size = uj_getn(l, "set_size", 0);
    if (op < 0) unknown = 1;
    ops += op * size;
    bytes += uj_getn(l, "bytes_per_call", 0);
    *indirect |= uj_is_true(uj_get(l, "indirect"));
    const uj *args = uj_get(l, "args");
    for (int a = 0; a < uj_len(args); a++) *inc |= !strcmp(uj_gets(uj_at(args, a), "pattern", ""), "indirect increment");
  }
  return unknown || bytes <= 0 ? -1 : ops / bytes;
}

void rep_app_paragraph(FILE *h, FILE *m, const rep_index *ix, const uj *const *files, int nfiles, const char *app,
                       const app_loop *al, int nal) {
  const uj *run = NULL, *c0 = NULL;
  for (int k = 0; k < nfiles && !run; k++) {
    const uj *cs = uj_get(files[k], "cases");
    for (int i = 0; i < uj_len(cs) && !run; i++)
      if (!strcmp(uj_gets(uj_at(cs, i), "app", ""), app) && uj_get(uj_at(cs, i), "run") &&
          uj_get(uj_at(cs, i), "run")->kind == UJ_OBJ)
        c0 = uj_at(cs, i), run = uj_get(c0, "run");
  }
  if (!run || nal <= 0) return;
  rep_rowspan *rows = calloc((size_t)nal, sizeof *rows);
  share_of *sh = calloc((size_t)nal, sizeof *sh);
  if (!rows || !sh) {
    free(rows);
    free(sh);
    return;
  }
  const int nr = rep_group_rows(al, nal, rows);
  const double total = rep_loops_seconds(ix, run);
  int n = 0;
  for (int q = 0; q < nr; q++) {
    rep_figs f;
    if (!rep_row_figures(ix, run, al, &rows[q], &f) || al[rows[q].start].depth) continue;
    sh[n].row = q;
    sh[n++].share = total > 0 ? f.seconds / total : 0;
  }
  if (n > 1) qsort(sh, (size_t)n, sizeof *sh, by_share);
  char *text = NULL;
  size_t len = 0;
  FILE *t = open_memstream(&text, &len);
  if (!t) {
    free(rows);
    free(sh);
    return;
  }
  char v[200];
  umrun_variant_label(c0, v, sizeof v);
  double top = 0;
  const int ntop = n < 3 ? n : 3;
  for (int i = 0; i < ntop; i++) top += sh[i].share;
  fprintf(t, "From the figures below (the run %s %s): ", uj_gets(c0, "case", "?"), v);
  fprintf(t, "%s %.0f%% of the loops' time:", ntop == 1 ? "one loop takes" : ntop == 2 ? "two loops take" : "three loops take",
          100 * top);
  int mem = 0, comp = 0, unk = 0, first = -1; /* first: the largest loop's class (0 memory, 1 between, 2 arithmetic, 3 unknown) */
  for (int i = 0; i < ntop; i++) {
    int ind, inc;
    const double ai = row_intensity(al, &rows[sh[i].row], &ind, &inc);
    fprintf(t, "%s %s (%.0f%%; %s%s, ", i ? ";" : "", rows[sh[i].row].label, 100 * sh[i].share,
            ind ? "indirect" : "direct", inc ? ", increments through a map" : "");
    const int cls = ai < 0 ? 3 : ai < 1 ? 0 : ai < 10 ? 1 : 2;
    if (first < 0) first = cls;
    if (ai < 0) fputs("operations not counted", t), unk++;
    else if (ai < 1) fprintf(t, "%.2g ops/byte: bound by memory", ai), mem++;
    else if (ai < 10) fprintf(t, "%.2g ops/byte: between memory and arithmetic", ai);
    else fprintf(t, "%.2g ops/byte: bound by arithmetic", ai), comp++;
    fputc(')', t);
  }
  fputs(". ", t);
  int nind = 0, ninc = 0, nall = 0;
  for (int q = 0; q < nr; q++) {
    int ind, inc;
    if (al[rows[q].start].depth) continue;
    row_intensity(al, &rows[q], &ind, &inc);
    nall++, nind += ind, ninc += inc;
  }
  fprintf(t, "Of its %d loops (a family counted once), %d reach%s other sets through maps (indirect) and %d of those "
             "increment%s through a map (INC: the colours or atomics of the plans below). ",
          nall, nind, nind == 1 ? "es" : "", ninc, ninc == 1 ? "s" : "");
  (void)mem, (void)comp, (void)unk;
  if (first == 0) fputs("Its largest loop moves more bytes than it computes on: its useful GB/s against the copy "
                        "bandwidth is the figure to read.", t);
  else if (first == 1) fputs("Its largest loop does several operations per byte: memory and arithmetic both matter, "
                             "and its GB/s can stay below the copy bandwidth even when it runs well.", t);
  else if (first == 2) fputs("Arithmetic, not memory, bounds its largest loop: its GB/s stays far from the copy "
                             "bandwidth even when it runs well.", t);
  else if (first == 3) fputs("Its largest loop's operations are not counted: compare its GB/s with the copy "
                             "bandwidth.", t);
  fclose(t);
  fputs("<p class=\"gen\">", h);
  rep_html_text(h, text);
  fputs("</p>\n", h);
  rep_md_cell(m, text);
  fputs("\n\n", m);
  free(text);
  free(rows);
  free(sh);
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
