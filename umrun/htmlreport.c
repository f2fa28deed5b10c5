/* umrun --report FILE.html RESULTS.json...: the apps side by side, from suite
 * results files (one per device). One self-contained HTML page (inline CSS
 * and SVG, no script, no network) and the same tables as markdown (FILE.md):
 * per app its sets and maps, each loop's access pattern, bytes moved per
 * element and per call, estimated arithmetic intensity, and per variant
 * (backend/strategy/layout/reorder) the useful GB/s against the device's
 * measured copy bandwidth, colours, reuse and shared memory per block; a bar
 * chart of bandwidth per app and variant and a roofline-style picture per
 * device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "um/safe_file.h"
#include "tools.h"

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_RUN = 2 };

void umrun_report_usage(FILE *f) {
  fputs("usage: umrun --report FILE.html RESULTS.json [RESULTS2.json ...]\n"
        "\n"
        "Writes FILE.html (self-contained: inline styles and SVG plots, no scripts, nothing\n"
        "fetched from the network) and FILE.md from results files of umrun --suite, one per\n"
        "device or machine: per app its sets and maps, each loop's access pattern (direct,\n"
        "indirect read, indirect increment, reductions), bytes moved per element and per call,\n"
        "estimated arithmetic intensity, and per variant the achieved useful GB/s and its share\n"
        "of the device's measured copy bandwidth, colours, reuse and shared bytes per block.\n"
        "View it with any browser; to check it renders headless:\n"
        "  chromium --headless --disable-gpu --screenshot=report.png --window-size=1400,4000 FILE.html\n",
        f);
}

/* What makes each app different, for a reader comparing them. */
static const struct {
  const char *app, *text;
} app_notes[] = {
    {"airfoil",
     "Airfoil is OP2's classic benchmark: a 2D inviscid (Euler) finite-volume solver on a quadrilateral mesh around an "
     "aerofoil. Its cost is two loops over edges: <code>res_calc</code> reads the two nodes and two cells of each edge "
     "and <em>increments</em> the residual of both cells, so every strategy for indirect increments (colouring, "
     "atomics, shared-memory staging) shows in it; the cell loops (<code>adt_calc</code>, <code>update</code>) are "
     "direct or read through a map only, and <code>update</code> carries the RMS reduction. Arithmetic per byte is "
     "low: it is a bandwidth code."},
    {"lulesh",
     "LULESH is a 3D Lagrangian shock-hydrodynamics proxy on hexahedra: kinematics live on nodes, thermodynamics on "
     "elements. Element loops gather the 8 corner nodes (indirect reads through the element-to-node map) and do a lot "
     "of arithmetic per element (the hourglass control and the equation of state), so its loops have the highest "
     "arithmetic intensity of the suite; forces reach the nodes through a node-to-corner gather instead of "
     "increments, and the time step comes from MIN reductions."},
    {"miniaero",
     "miniAero solves the 3D compressible Navier-Stokes equations with a Roe flux and RK4 on hexahedra. Its face "
     "loops read the two cells of a face (5 conserved values each, and gradients in second order) and increment "
     "both cells' residuals: the biggest indirect increments per element in the suite (5 doubles to each side). "
     "Gradients and the limiter are cell loops over the 6 neighbours (a gather), and boundary conditions are small "
     "loops over boundary faces."},
    {"jacobi",
     "Jacobi is OP2's small teaching example: a sparse matrix stored on edges, an iteration that increments node "
     "values through the edge-to-node map, and a direct update with a reduction. Small enough to read whole."},
    {"bookleaf",
     "BookLeaf is a 2D Lagrangian hydrodynamics code on quadrilaterals with an ALE remap. Corner forces and masses "
     "are scattered to the nodes through the element-to-node map (<code>getacc_scatter</code>, indirect "
     "increments), the artificial viscosity reads four neighbours through the element-to-element map, and the "
     "remap moves element and nodal quantities across sides."},
    {"volna",
     "Volna simulates tsunamis with the nonlinear shallow-water equations on triangles, in single precision: half "
     "the bytes per value of the other apps. An edge loop computes fluxes from the two cells of each edge, a cell "
     "loop finds the time step with a MIN reduction, and <code>SpaceDiscretization</code> increments both cells "
     "of each edge; bathymetry can move every step."},
};

static const char *note_for(const char *app) {
  for (size_t i = 0; i < sizeof app_notes / sizeof app_notes[0]; i++)
    if (!strcmp(app_notes[i].app, app)) return app_notes[i].text;
  return "An app of the um suite.";
}

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define NPAL ((int)(sizeof palette / sizeof palette[0]))

/* ---- per run figures ----------------------------------------------------------------- */
static double device_copy_gbs(const uj *R, const uj *run) {
  const uj *m = uj_get(R, "machine");
  if (!strcmp(uj_gets(run, "backend", ""), "cuda")) {
    double g = uj_getn(uj_get(run, "device"), "copy_gb_per_s", NAN);
    if (!isfinite(g)) g = uj_getn(uj_get(m, "gpu"), "copy_gb_per_s", NAN);
    return g;
  }
  return uj_getn(m, "host_copy_gb_per_s", NAN);
}

/* "720k atomics/soa" for case airfoil_720k: the case without its app's name, the
 * strategy and layout, the reordering when there is one, the backend off the GPU */
static void short_label(const uj *c, const char *app, char *buf, size_t len) {
  const char *cn = uj_gets(c, "case", "");
  const size_t al = strlen(app);
  if (!strncmp(cn, app, al) && (cn[al] == '_' || cn[al] == '\0')) cn += al + (cn[al] == '_');
  const char *b = uj_gets(c, "backend", ""), *r = uj_gets(c, "reorder", "none");
  snprintf(buf, len, "%s%s%s%s%s/%s%s%s", cn, *cn ? " " : "", strcmp(b, "cuda") ? b : "", strcmp(b, "cuda") ? " " : "",
           uj_gets(c, "strategy", "?"), uj_gets(c, "layout", "?"), strcmp(r, "none") && strcmp(r, "default") ? "/" : "",
           strcmp(r, "none") && strcmp(r, "default") ? r : "");
}

/* app-level useful GB/s: bytes of every loop / time of every loop (a split loop's generated loops
 * not counted again: their time is inside their parent's, whose bytes are the loop's useful bytes) */
static double run_gbs(const uj *run) {
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

static void pattern_summary(const uj *loop, char *buf, size_t len) {
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

/* ---- SVG ---------------------------------------------------------------------------- */
typedef struct {
  const char *label;
  double value;
  int colour;
} bar;

static void svg_bars(FILE *f, const char *title, const char *ylabel, const char *const *groups, const int *gstart,
                     int ngroups, const bar *bars, int nbars, double roof) {
  const int W = 1100, H = 420, L = 70, B = 170, T = 36;
  double ymax = roof > 0 ? roof : 0;
  for (int i = 0; i < nbars; i++)
    if (bars[i].value > ymax) ymax = bars[i].value;
  if (ymax <= 0) ymax = 1;
  ymax *= 1.1;
  const double bw = nbars ? (double)(W - L - 20) / nbars : 1;
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"", W, H);
  umrun_xml_escape(f, title);
  fprintf(f, "\">\n<text x=\"%d\" y=\"20\" font-size=\"15\" font-weight=\"bold\">", L);
  umrun_xml_escape(f, title);
  fprintf(f, "</text>\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", L, H - B, W - 10, H - B);
  fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", L, T, L, H - B);
  for (int k = 0; k <= 4; k++) {
    const double v = ymax * k / 4, y = H - B - (H - B - T) * (double)k / 4;
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.0f</text>", L - 4, y + 4, v);
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, y, W - 10, y);
  }
  fprintf(f, "<text x=\"14\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">", (H - B + T) / 2,
          (H - B + T) / 2);
  umrun_xml_escape(f, ylabel);
  fputs("</text>\n", f);
  if (roof > 0) {
    const double y = H - B - (H - B - T) * roof / ymax;
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#c00\" stroke-dasharray=\"6 4\"/>", L, y,
            W - 10, y);
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"#c00\" text-anchor=\"end\">copy bandwidth %.0f GB/s</text>\n",
            W - 12, y - 4, roof);
  }
  for (int i = 0; i < nbars; i++) {
    const double h = (H - B - T) * bars[i].value / ymax, x = L + 4 + i * bw;
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>", x, H - B - h,
            bw > 6 ? bw - 4 : bw, h, palette[bars[i].colour % NPAL]);
    umrun_xml_escape(f, bars[i].label);
    fprintf(f, ": %.1f GB/s</title></rect>\n", bars[i].value);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" transform=\"rotate(50 %.1f %d)\">", x + bw / 2 - 2,
            H - B + 12, x + bw / 2 - 2, H - B + 12);
    umrun_xml_escape(f, bars[i].label);
    fputs("</text>\n", f);
  }
  for (int g = 0; g < ngroups; g++) {
    const int end = g + 1 < ngroups ? gstart[g + 1] : nbars;
    const double x0 = L + 4 + gstart[g] * bw, x1 = L + 4 + end * bw;
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"12\" font-weight=\"bold\" text-anchor=\"middle\">", (x0 + x1) / 2,
            T - 2);
    umrun_xml_escape(f, groups[g]);
    fputs("</text>\n", f);
  }
  fputs("</svg>\n", f);
}

typedef struct {
  const char *label;
  double ai, gops;
  int colour;
} point;

static void svg_roofline(FILE *f, const char *title, double bw_gbs, const point *p, int n, const char *const *apps,
                         int napps) {
  const int W = 760, H = 460, L = 70, B = 60, T = 36, R = 170;
  const double x0 = -3, x1 = 3, y0 = -2, y1 = 5; /* log10 ranges: ops/byte, Gop/s */
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"", W, H);
  umrun_xml_escape(f, title);
  fprintf(f, "\">\n<text x=\"%d\" y=\"20\" font-size=\"15\" font-weight=\"bold\">", L);
  umrun_xml_escape(f, title);
  fputs("</text>\n", f);
#define PX(v) (L + (W - L - R) * ((v)-x0) / (x1 - x0))
#define PY(v) (H - B - (H - B - T) * ((v)-y0) / (y1 - y0))
  fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n", L, T, W - L - R,
          H - B - T);
  for (int e = (int)x0; e <= (int)x1; e++)
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">1e%d</text>", PX(e), H - B + 16, e);
  for (int e = (int)y0; e <= (int)y1; e++)
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">1e%d</text>", L - 4, PY(e) + 4, e);
  fprintf(f, "\n<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">arithmetic intensity (estimated "
             "operations per useful byte)</text>\n",
          (L + W - R) / 2, H - 14);
  fprintf(f, "<text x=\"16\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">Gop/s "
             "achieved</text>\n",
          (H - B + T) / 2, (H - B + T) / 2);
  if (bw_gbs > 0) { /* the bandwidth roof: Gop/s = GB/s x ops/byte */
    const double a = x0, b = x1;
    double ya = log10(bw_gbs) + a, yb = log10(bw_gbs) + b;
    double xa = a, xb = b;
    if (ya < y0) xa = y0 - log10(bw_gbs), ya = y0;
    if (yb > y1) xb = y1 - log10(bw_gbs), yb = y1;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" stroke-dasharray=\"6 4\"/>", PX(xa),
            PY(ya), PX(xb), PY(yb));
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#c00\">copy bandwidth %.0f GB/s</text>\n",
            PX(xa) + 6, PY(ya) - 6, bw_gbs);
  }
  for (int i = 0; i < n; i++) {
    if (!(p[i].ai > 0) || !(p[i].gops > 0)) continue;
    double lx = log10(p[i].ai), ly = log10(p[i].gops);
    if (lx < x0) lx = x0;
    if (lx > x1) lx = x1;
    if (ly < y0) ly = y0;
    if (ly > y1) ly = y1;
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>", PX(lx), PY(ly), palette[p[i].colour % NPAL]);
    umrun_xml_escape(f, p[i].label);
    fprintf(f, ": %.3g op/B, %.3g Gop/s</title></circle>\n", p[i].ai, p[i].gops);
  }
  for (int a = 0; a < napps; a++) {
    fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"5\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" font-size=\"12\">", W - R + 16,
            T + 14 + 18 * a, palette[a % NPAL], W - R + 26, T + 18 + 18 * a);
    umrun_xml_escape(f, apps[a]);
    fputs("</text>\n", f);
  }
#undef PX
#undef PY
  fputs("</svg>\n", f);
}

/* ---- the page ------------------------------------------------------------------------ */
#define MAXAPPS 32

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

static void html_text(FILE *h, const char *s) { umrun_xml_escape(h, s); }

static void md_cell(FILE *m, const char *s) { umrun_md_escape(m, s); }

/* one table row in both outputs; titles (may be NULL, or hold NULLs): the HTML cells' tooltips */
static void row_t(FILE *h, FILE *m, int header, int n, const char *const *cells, const char *const *titles) {
  fputs("<tr>", h);
  fputs("|", m);
  for (int i = 0; i < n; i++) {
    if (titles && titles[i] && *titles[i]) {
      fputs(header ? "<th title=\"" : "<td title=\"", h);
      html_text(h, titles[i]);
      fputs("\">", h);
    } else fputs(header ? "<th>" : "<td>", h);
    html_text(h, cells[i]);
    fputs(header ? "</th>" : "</td>", h);
    fputc(' ', m);
    md_cell(m, cells[i]);
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

static void row(FILE *h, FILE *m, int header, int n, const char *const *cells) { row_t(h, m, header, n, cells, NULL); }

/* ---- an app's loops over all its runs, a split loop's generated loops under it --------------- */
typedef struct {
  const char *name;
  const uj *loop; /* its entry in the first run that has it */
  int depth;      /* 1: generated by splitting the loop above (its time is inside that loop's) */
} app_loop;

static int app_loop_find(const app_loop *v, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(v[i].name, name)) return i;
  return -1;
}

static int app_loop_add(app_loop **v, int *n, int *cap, const uj *l, int depth) {
  if (*n == *cap) {
    const int c = *cap ? 2 * *cap : 32;
    app_loop *nv = realloc(*v, (size_t)c * sizeof *nv);
    if (!nv) return -1;
    *v = nv;
    *cap = c;
  }
  (*v)[*n].name = uj_gets(l, "name", "?");
  (*v)[*n].loop = l;
  (*v)[(*n)++].depth = depth;
  return 0;
}

/* Every loop of app's runs (files x cases): each of the app's loops in the order they first appear,
 * then the loops generated by splitting it in any run; generated loops whose parent ran in no run
 * last. Returns how many (*out malloc'ed; 0 and NULL when none or out of memory). */
static int app_loops(const uj *const *files, int nfiles, const char *app, app_loop **out) {
  app_loop *all = NULL, *v = NULL;
  int na = 0, ca = 0, n = 0, cap = 0;
  *out = NULL;
  for (int k = 0; k < nfiles; k++) { /* the distinct loops of the app's runs, in the order they first appear */
    const uj *cases = uj_get(files[k], "cases");
    for (int i = 0; i < uj_len(cases); i++) {
      const uj *c = uj_at(cases, i), *ls = uj_get(uj_get(c, "run"), "loops");
      if (strcmp(uj_gets(c, "app", ""), app)) continue;
      for (int q = 0; q < uj_len(ls); q++) {
        const uj *l = uj_at(ls, q);
        if (app_loop_find(all, na, uj_gets(l, "name", "?")) < 0 && app_loop_add(&all, &na, &ca, l, 0)) goto oom;
      }
    }
  }
  for (int t = 0; t < na; t++) { /* each of the app's loops, its generated loops under it */
    if (umrun_loop_parent(all[t].loop)) continue;
    if (app_loop_add(&v, &n, &cap, all[t].loop, 0)) goto oom;
    for (int u = 0; u < na; u++) {
      const char *p = umrun_loop_parent(all[u].loop);
      if (p && !strcmp(p, all[t].name) && app_loop_add(&v, &n, &cap, all[u].loop, 1)) goto oom;
    }
  }
  for (int t = 0; t < na; t++) { /* generated loops whose parent ran in no run */
    const char *p = umrun_loop_parent(all[t].loop);
    if (p && app_loop_find(v, n, p) < 0 && app_loop_add(&v, &n, &cap, all[t].loop, 0)) goto oom;
  }
  free(all);
  *out = v;
  return n;
oom:
  free(all);
  free(v);
  return 0;
}

/* A loop's row label: a generated loop under its parent as "↳ :contrib" (its name without the parent's). */
static void loop_label(const app_loop *a, char *buf, size_t len) {
  const char *p = umrun_loop_parent(a->loop);
  const size_t pl = p ? strlen(p) : 0;
  if (a->depth && p && !strncmp(a->name, p, pl) && a->name[pl] == ':')
    snprintf(buf, len, "\u21b3 %s", a->name + pl);
  else snprintf(buf, len, "%s", a->name);
}

/* The loop named name in a run's loops (NULL: it did not run there). */
static const uj *run_loop(const uj *run, const char *name) {
  const uj *ls = uj_get(run, "loops");
  for (int q = 0; q < uj_len(ls); q++)
    if (!strcmp(uj_gets(uj_at(ls, q), "name", ""), name)) return uj_at(ls, q);
  return NULL;
}

static const uj *first_run_of(const uj *const *files, int nfiles, const char *app) {
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

static void device_name(const uj *R, char *buf, size_t len) {
  const uj *m = uj_get(R, "machine"), *g = uj_get(m, "gpu");
  if (g && g->kind == UJ_OBJ) snprintf(buf, len, "%s", uj_gets(g, "name", "GPU"));
  else snprintf(buf, len, "%s", uj_gets(m, "cpu", "CPU"));
}

/* Per app: a pivot of useful GB/s (% of copy bandwidth) with loops as rows and
 * runs as columns (8 per table), then the plan statistics of the runs that
 * used plans. */
typedef struct {
  const uj *file, *c, *run;
  char label[600];
} col;

/* Whether the loop named name has generated loops in the run (split, or its sums made exact). */
static int has_parts(const uj *run, const char *name) {
  const uj *ls = uj_get(run, "loops");
  for (int q = 0; q < uj_len(ls); q++) {
    const char *p = umrun_loop_parent(uj_at(ls, q));
    if (p && !strcmp(p, name)) return 1;
  }
  return 0;
}

/* The split column of the loops table: how the app's runs ran loop a ("gather in 2 of 6 runs"; a generated
 * loop: "part of res_calc"), and into why the distinct reasons (the cell's tooltip). */
static void split_summary(const uj *const *files, int nfiles, const char *app, const app_loop *a, char *buf,
                          size_t len, char *why, size_t wlen) {
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
      const uj *c = uj_at(cases, i), *l = run_loop(uj_get(c, "run"), a->name);
      if (strcmp(uj_gets(c, "app", ""), app) || !l) continue;
      runs++;
      const char *v = uj_gets(l, "split", "off"), *r = uj_gets(l, "split_reason", "");
      for (int q = 0; q < 2; q++) cnt[q] += !strcmp(v, variants[q]);
      if (!strcmp(v, "off") && has_parts(uj_get(c, "run"), a->name)) exact++; /* run.reproducible's sums */
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

/* Per app, the loops that ran split: per run, the variant, why, the engine's temporaries and the time
 * of each generated loop (inside the loop's own). Nothing when no run of the app split a loop. */
static void write_splits(FILE *h, FILE *m, const uj *const *files, int nfiles, const char *app) {
  int any = 0;
  for (int k = 0; k < nfiles; k++) {
    const uj *cases = uj_get(files[k], "cases");
    for (int i = 0; i < uj_len(cases); i++) {
      const uj *c = uj_at(cases, i), *r = uj_get(c, "run"), *ls = uj_get(r, "loops");
      if (strcmp(uj_gets(c, "app", ""), app)) continue;
      for (int q = 0; q < uj_len(ls); q++) {
        const uj *l = uj_at(ls, q);
        char dev[256], v[200], run[700], tb[32], parts[1024] = "", tl[48];
        const char *sv = uj_gets(l, "split", "off");
        size_t pl = 0;
        int kids = 0;
        if (umrun_loop_parent(l)) continue;
        for (int z = 0; z < uj_len(ls); z++) { /* its generated loops' times */
          const uj *g = uj_at(ls, z);
          const char *p = umrun_loop_parent(g), *gn = uj_gets(g, "name", "?");
          if (!p || strcmp(p, uj_gets(l, "name", ""))) continue;
          kids++;
          if (pl < sizeof parts)
            pl += (size_t)snprintf(parts + pl, sizeof parts - pl, "%s%s %.4g s", pl ? ", " : "",
                                   !strncmp(gn, p, strlen(p)) && gn[strlen(p)] == ':' ? gn + strlen(p) : gn,
                                   uj_getn(g, "seconds", 0));
        }
        if (!strcmp(sv, "off") && !kids) continue;
        if (!any) {
          fputs("<h3>Loop splitting</h3>\n<p class=\"note\">The loops the engine ran split (<code>run.split</code>, "
                "<code>run.reproducible</code>): a contribution loop (<code>:contrib</code>, the kernel writing into "
                "temporaries), then the increments: per argument (<code>:inc&lt;arg&gt;</code>, scatter) or a gather "
                "in a fixed order (<code>:gather</code>). The loop's time is the whole call's; its parts' times are "
                "inside it.</p>\n<table>\n",
                h);
          fputs("### Loop splitting\n\n", m);
          const char *hd[] = {"run", "loop", "split", "why", "temporaries (MB)", "loop time (s)", "its parts"};
          row(h, m, 1, 7, hd);
          any = 1;
        }
        device_name(files[k], dev, sizeof dev);
        umrun_variant_label(c, v, sizeof v);
        snprintf(run, sizeof run, "%s%s%s %s", nfiles > 1 ? dev : "", nfiles > 1 ? ": " : "", uj_gets(c, "case", ""),
                 v);
        snprintf(tb, sizeof tb, "%.3f", uj_getn(l, "temp_bytes", 0) / 1e6);
        snprintf(tl, sizeof tl, "%.4g", uj_getn(l, "seconds", 0));
        const char *cells[] = {run, uj_gets(l, "name", "?"), strcmp(sv, "off") ? sv : "exact sums",
                               uj_gets(l, "split_reason", "-"), tb, tl,
                               parts[0] ? parts : "-"};
        row(h, m, 0, 7, cells);
      }
    }
  }
  if (any) {
    fputs("</table>\n", h);
    fputc('\n', m);
  }
}

static void write_variants(FILE *h, FILE *m, const uj *const *files, int nfiles, const char *app, const app_loop *al,
                           int nal) {
  col *cols = NULL;
  int nc = 0, cap = 0;
  for (int k = 0; k < nfiles; k++) {
    const uj *cases = uj_get(files[k], "cases");
    char dev[256];
    device_name(files[k], dev, sizeof dev);
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
  for (int c0 = 0; c0 < nc; c0 += 6) {
    const int c1 = c0 + 6 < nc ? c0 + 6 : nc;
    const char *hdr[9];
    hdr[0] = "loop";
    for (int j = c0; j < c1; j++) hdr[1 + j - c0] = cols[j].label;
    fputs("<table>\n", h);
    row(h, m, 1, 1 + c1 - c0, hdr);
    for (int i = 0; i < nal; i++) {
      const char *name = al[i].name;
      char cells[9][96], label[300];
      const char *cp[9], *tips[9] = {NULL};
      loop_label(&al[i], label, sizeof label);
      cp[0] = label;
      for (int j = c0; j < c1; j++) {
        const uj *l = run_loop(cols[j].run, name);
        const double g = l ? umrun_loop_gbs(l) : NAN, cb = device_copy_gbs(cols[j].file, cols[j].run);
        const char *sv = l ? uj_gets(l, "split", "off") : "off";
        char v[24] = ""; /* a loop that ran split says how; the reason is the cell's tooltip */
        if (strcmp(sv, "off")) snprintf(v, sizeof v, " %s", sv);
        if (!l) snprintf(cells[j - c0], sizeof cells[0], "-");
        else if (isfinite(cb) && cb > 0)
          snprintf(cells[j - c0], sizeof cells[0], "%.1f (%.0f%%)%s", g, 100 * g / cb, v);
        else snprintf(cells[j - c0], sizeof cells[0], "%.1f%s", g, v);
        cp[1 + j - c0] = cells[j - c0];
        tips[1 + j - c0] = l ? uj_gets(l, "split_reason", NULL) : NULL;
      }
      row_t(h, m, 0, 1 + c1 - c0, cp, tips);
    }
    fputs("</table>\n", h);
    fputc('\n', m);
  }
  fputs("<h3>Plans (runs whose loops used one)</h3>\n<table>\n", h);
  fputs("### Plans (runs whose loops used one)\n\n", m);
  const char *ph[] = {"run", "loop", "block size", "blocks", "block colours", "thread colours (mean / max)", "reuse",
                      "shared B / block (mean)"};
  row(h, m, 1, 8, ph);
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
      row(h, m, 0, 8, cells);
    }
  }
  fputs("</table>\n", h);
  fputc('\n', m);
  free(cols);
}

static void write_page(FILE *h, FILE *m, const uj *const *files, const char *const *paths, int nfiles) {
  app_list apps = {{0}, 0};
  for (int k = 0; k < nfiles; k++) {
    const uj *cases = uj_get(files[k], "cases");
    for (int i = 0; i < uj_len(cases); i++) app_index(&apps, uj_gets(uj_at(cases, i), "app", "?"));
  }
  char now[64];
  time_t t = time(NULL);
  strftime(now, sizeof now, "%Y-%m-%d %H:%M UTC", gmtime(&t));
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>um: the apps side by side</title>\n"
        "<style>body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1200px;margin:2em "
        "auto;padding:0 1em;color:#222;line-height:1.45}table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:"
        ".88em}th,td{border:1px solid #ccc;padding:.25em .55em;text-align:left}th{background:#f2f4f7}td.n{text-align:"
        "right}h2{border-bottom:2px solid #dde;padding-bottom:.2em;margin-top:2em}code{background:#f4f4f4;padding:0 "
        ".2em}.note{color:#555;font-size:.9em}svg{max-width:100%;height:auto;display:block;margin:.5em 0}</style>\n"
        "</head><body>\n<h1>um: the apps side by side</h1>\n",
        h);
  fprintf(h, "<p class=\"note\">Generated %s by <code>umrun --report</code> from %d results file%s of "
             "<code>umrun --suite</code>.</p>\n",
          now, nfiles, nfiles == 1 ? "" : "s");
  fprintf(m, "# um: the apps side by side\n\nGenerated %s by `umrun --report` from %d results file%s of `umrun --suite`.\n\n",
          now, nfiles, nfiles == 1 ? "" : "s");
  /* machines */
  fputs("<h2>Machines</h2>\n<table>\n", h);
  fputs("## Machines\n\n", m);
  const char *mh[] = {"results", "CPU", "host copy GB/s", "GPU", "cc", "GPU copy GB/s", "driver / CUDA", "um commit",
                      "runs pass"};
  row(h, m, 1, 9, mh);
  for (int k = 0; k < nfiles; k++) {
    const uj *R = files[k], *mm = uj_get(R, "machine"), *g = uj_get(mm, "gpu"), *s = uj_get(R, "summary");
    char c2[64], c5[64], c6[128], c8[64];
    snprintf(c2, sizeof c2, "%.0f", uj_getn(mm, "host_copy_gb_per_s", 0));
    snprintf(c5, sizeof c5, "%.0f", uj_getn(g, "copy_gb_per_s", 0));
    snprintf(c6, sizeof c6, "%s / %s", uj_gets(g, "driver", "-"), uj_gets(g, "cuda_runtime", "-"));
    snprintf(c8, sizeof c8, "%.0f of %.0f", uj_getn(s, "pass", 0), uj_getn(s, "runs", 0));
    const char *cells[] = {paths[k], uj_gets(mm, "cpu", "?"), c2, g && g->kind == UJ_OBJ ? uj_gets(g, "name", "-") : "-",
                           uj_gets(g, "compute_capability", "-"), g && g->kind == UJ_OBJ ? c5 : "-", c6,
                           uj_gets(uj_get(R, "um"), "commit", "?"), c8};
    row(h, m, 0, 9, cells);
  }
  fputs("</table>\n", h);
  fputc('\n', m);
  /* contents */
  fputs("<p>Apps:", h);
  for (int a = 0; a < apps.n; a++) { /* names from results files: an id of safe characters, the text escaped */
    fputs(" <a href=\"#app-", h);
    umrun_html_id(h, apps.names[a]);
    fputs("\">", h);
    html_text(h, apps.names[a]);
    fputs("</a>", h);
  }
  fputs(" &middot; <a href=\"#bandwidth\">bandwidth per variant</a> &middot; <a href=\"#roofline\">roofline</a></p>\n", h);

  /* bandwidth per app and variant, one chart per results file */
  fputs("<h2 id=\"bandwidth\">Useful bandwidth per app and variant</h2>\n<p>Useful bytes (each value a loop needs, "
        "read or written once per call) over the time in loops (a split loop's generated loops counted once, in their "
        "loop's time), per run; the dashed line is the device's measured "
        "copy bandwidth (read + write), the floor every loop aims at.</p>\n",
        h);
  fputs("## Useful bandwidth per app and variant\n\n", m);
  for (int k = 0; k < nfiles; k++) {
    const uj *cases = uj_get(files[k], "cases");
    const int n = uj_len(cases);
    bar *bars = calloc((size_t)n + 1, sizeof *bars);
    char (*labels)[160] = calloc((size_t)n + 1, sizeof *labels);
    const char *groups[MAXAPPS];
    int gstart[MAXAPPS], ng = 0, nb = 0;
    double roof = 0;
    if (!bars || !labels) {
      free(bars);
      free(labels);
      continue;
    }
    for (int a = 0; a < apps.n; a++) {
      int first = 1;
      for (int i = 0; i < n; i++) {
        const uj *c = uj_at(cases, i), *run = uj_get(c, "run");
        if (strcmp(uj_gets(c, "app", ""), apps.names[a]) || !run || run->kind != UJ_OBJ) continue;
        if (first) groups[ng] = apps.names[a], gstart[ng++] = nb, first = 0;
        short_label(c, apps.names[a], labels[nb], sizeof labels[nb]);
        bars[nb].label = labels[nb];
        bars[nb].value = run_gbs(run);
        bars[nb].colour = a;
        const double cb = device_copy_gbs(files[k], run);
        if (isfinite(cb) && cb > roof) roof = cb;
        fputs("- ", m);
        md_cell(m, paths[k]);
        fputs(", ", m);
        md_cell(m, labels[nb]);
        fprintf(m, ": %.1f GB/s (%.0f%% of copy)\n", bars[nb].value,
                isfinite(cb) && cb > 0 ? 100 * bars[nb].value / cb : 0);
        nb++;
      }
    }
    char title[512], dev[256];
    device_name(files[k], dev, sizeof dev);
    snprintf(title, sizeof title, "%s: useful GB/s per run", dev);
    svg_bars(h, title, "useful GB/s", groups, gstart, ng, bars, nb, roof);
    free(bars);
    free(labels);
  }
  fputc('\n', m);

  /* per app */
  for (int a = 0; a < apps.n; a++) {
    const char *app = apps.names[a];
    const uj *run = first_run_of(files, nfiles, app);
    fputs("<h2 id=\"app-", h);
    umrun_html_id(h, app);
    fputs("\">", h);
    html_text(h, app);
    fprintf(h, "</h2>\n<p>%s</p>\n", note_for(app)); /* our own text, with its markup */
    fputs("## ", m);
    md_cell(m, app);
    fputs("\n\n", m);
    if (!run) {
      fputs("<p>No run of this app produced results.</p>\n", h);
      continue;
    }
    const uj *mesh = uj_get(run, "mesh");
    fputs("<h3>Sets and maps</h3>\n<table>\n", h);
    fputs("### Sets and maps\n\n", m);
    const char *sh[] = {"set", "size", "maps from it (arity, to)"};
    row(h, m, 1, 3, sh);
    const uj *sets = uj_get(mesh, "sets"), *maps = uj_get(mesh, "maps");
    for (int i = 0; i < uj_len(sets); i++) {
      const char *sn = uj_gets(uj_at(sets, i), "name", "?");
      char size[32], mp[1024] = "";
      size_t l = 0;
      snprintf(size, sizeof size, "%.0f", uj_getn(uj_at(sets, i), "size", 0));
      for (int j = 0; j < uj_len(maps) && l < sizeof mp; j++) {
        const uj *mj = uj_at(maps, j);
        if (strcmp(uj_gets(mj, "from", ""), sn)) continue;
        l += (size_t)snprintf(mp + l, sizeof mp - l, "%s%s (%.0f, to %s)", l ? "; " : "", uj_gets(mj, "name", "?"),
                              uj_getn(mj, "arity", 0), uj_gets(mj, "to", "?"));
      }
      const char *cells[] = {sn, size, mp[0] ? mp : "-"};
      row(h, m, 0, 3, cells);
    }
    fputs("</table>\n<h3>Loops</h3>\n<p class=\"note\">Bytes are useful bytes (each value the loop needs, once); "
          "operations are counted in the kernel's source (binary arithmetic and math calls, following calls into "
          "helper functions and multiplying loops with a constant trip count; both branches of an if count), so the "
          "intensity is a guide, not a measurement; \"unknown\": a count that cannot be computed from the source "
          "(e.g. a loop that runs a number of times known only at run time). <em>split</em>: how the engine ran a "
          "loop that increments through maps (<code>run.split</code>; the reason in the cell's tooltip and in the "
          "table of loop splitting below); the loops a split generates are listed under it (&#8627;): their time is "
          "inside their loop's, never counted twice.</p>\n<table>\n",
          h);
    fputs("\n### Loops\n\n", m);
    const char *lh[] = {"loop", "over", "access pattern", "bytes / element", "bytes / call", "ops / element (counted)",
                        "ops / byte", "split"};
    row(h, m, 1, 8, lh);
    app_loop *al = NULL;
    const int nal = app_loops(files, nfiles, app, &al);
    for (int i = 0; i < nal; i++) {
      const uj *l = al[i].loop;
      char name[300], pat[1024], be[32], bc[32], ops[32], ai[32], sp[400], why[1200];
      loop_label(&al[i], name, sizeof name);
      pattern_summary(l, pat, sizeof pat);
      const double size = uj_getn(l, "set_size", 0), bpc = uj_getn(l, "bytes_per_call", 0),
                   op = uj_getn(l, "ops_estimate", -1);
      snprintf(be, sizeof be, "%.1f", size > 0 ? bpc / size : 0);
      snprintf(bc, sizeof bc, "%.0f", bpc);
      /* an unknown count (null, or -1 from older files) is said, never shown as 0 */
      snprintf(ops, sizeof ops, op >= 0 ? "%.0f" : "unknown", op);
      snprintf(ai, sizeof ai, op >= 0 && bpc > 0 ? "%.3f" : op >= 0 ? "-" : "unknown", op * size / bpc);
      split_summary(files, nfiles, app, &al[i], sp, sizeof sp, why, sizeof why);
      const char *over = uj_gets(l, "iteration_set", "?");
      const char *cells[] = {name, *over ? over : "-", pat, be, bc, ops, ai, sp};
      const char *tips[] = {al[i].depth ? al[i].name : NULL, NULL, NULL, NULL, NULL, NULL, NULL, why};
      row_t(h, m, 0, 8, cells, tips);
    }
    fputs("</table>\n", h);
    fputc('\n', m);
    write_variants(h, m, files, nfiles, app, al, nal);
    write_splits(h, m, files, nfiles, app);
    free(al);
  }

  /* roofline per results file: each loop at its best variant */
  fputs("<h2 id=\"roofline\">Roofline-style picture per device</h2>\n<p>Each point is one loop at its fastest "
        "variant on that device: estimated operations per useful byte against estimated operations per second. "
        "Points near the dashed bandwidth line move their bytes at copy speed; the distance below it is what a "
        "better strategy could still win. A loop that ran split is one point (the whole call's time, the loop's "
        "useful bytes); the loops its split generated are not drawn apart.</p>\n",
        h);
  for (int k = 0; k < nfiles; k++) {
    const uj *cases = uj_get(files[k], "cases");
    point *pts = NULL;
    char (*labels)[200] = NULL;
    int np = 0, cap = 0;
    double bw = 0;
    for (int i = 0; i < uj_len(cases); i++) {
      const uj *c = uj_at(cases, i), *r = uj_get(c, "run");
      if (!r || r->kind != UJ_OBJ) continue;
      const double cb = device_copy_gbs(files[k], r);
      if (isfinite(cb) && cb > bw) bw = cb;
      const uj *ls = uj_get(r, "loops");
      const int a = app_index(&apps, uj_gets(c, "app", "?"));
      for (int j = 0; j < uj_len(ls); j++) {
        const uj *l = uj_at(ls, j);
        const double op = uj_getn(l, "ops_estimate", -1), bpc = uj_getn(l, "bytes_per_call", 0),
                     size = uj_getn(l, "set_size", 0), calls = uj_getn(l, "calls", 0), s = uj_getn(l, "seconds", 0);
        if (op <= 0 || bpc <= 0 || s <= 0 || umrun_loop_parent(l)) continue; /* a split loop: its own point */
        const double gops = op * size * calls / s * 1e-9;
        char lab[200];
        snprintf(lab, sizeof lab, "%s %s", uj_gets(c, "app", "?"), uj_gets(l, "name", "?"));
        int found = -1;
        for (int q = 0; q < np; q++)
          if (!strcmp(labels[q], lab)) found = q;
        if (found >= 0) {
          if (gops > pts[found].gops) pts[found].gops = gops;
          continue;
        }
        if (np == cap) {
          cap = cap ? 2 * cap : 64;
          point *npts = realloc(pts, (size_t)cap * sizeof *npts);
          char (*nl)[200] = realloc(labels, (size_t)cap * sizeof *nl);
          if (!npts || !nl) {
            free(npts ? npts : pts);
            free(nl ? nl : labels);
            pts = NULL;
            labels = NULL;
            np = cap = 0;
            break;
          }
          pts = npts;
          labels = nl;
        }
        snprintf(labels[np], sizeof labels[np], "%s", lab);
        pts[np].label = labels[np];
        pts[np].ai = op * size / bpc;
        pts[np].gops = gops;
        pts[np].colour = a;
        np++;
      }
    }
    char title[512], dev[256];
    device_name(files[k], dev, sizeof dev);
    snprintf(title, sizeof title, "%s: loops at their best variant", dev);
    svg_roofline(h, title, bw, pts, np, apps.names, apps.n);
    free(pts);
    free(labels);
  }
  fputs("</body></html>\n", h);
}

int umrun_report_main(int argc, char **argv) {
  const char *out = NULL;
  const char **paths = calloc((size_t)argc + 1, sizeof *paths);
  uj **files = calloc((size_t)argc + 1, sizeof *files);
  int n = 0, rc = EXIT_USAGE;
  char err[4096];
  if (!paths || !files) {
    free(paths);
    free(files);
    return EXIT_RUN;
  }
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      umrun_report_usage(stdout);
      rc = EXIT_OK;
      goto done;
    }
    if (!strcmp(a, "--report")) continue;
    if (a[0] == '-' && a[1]) {
      fprintf(stderr, "umrun --report: unknown option '%s' (see umrun --report --help)\n", a);
      goto done;
    }
    if (!out) out = a;
    else paths[n++] = a;
  }
  if (!out || !n) {
    fprintf(stderr, "usage: umrun --report FILE.html RESULTS.json... (results files of umrun --suite)\n");
    goto done;
  }
  const size_t ol = strlen(out);
  if (ol < 6 || strcmp(out + ol - 5, ".html")) {
    fprintf(stderr, "umrun --report: the page's name must end in .html (got '%s'); the markdown goes beside it as .md\n",
            out);
    goto done;
  }
  for (int k = 0; k < n; k++) {
    if (uj_parse_file(paths[k], &files[k], err, sizeof err)) {
      fprintf(stderr, "umrun --report: %s\n", err);
      goto done;
    }
    if (strcmp(uj_gets(files[k], "format", ""), "um-suite-results-1")) {
      fprintf(stderr, "umrun --report: '%s' is not a results file of umrun --suite (no \"format\": "
                      "\"um-suite-results-1\")\n",
              paths[k]);
      goto done;
    }
  }
  char mdpath[4096];
  snprintf(mdpath, sizeof mdpath, "%.*s.md", (int)(ol - 5), out);
  um_safe_file hf, mf;
  if (um_safe_open(&hf, out, err, sizeof err)) {
    fprintf(stderr, "umrun --report: %s\n", err);
    rc = EXIT_RUN;
    goto done;
  }
  if (um_safe_open(&mf, mdpath, err, sizeof err)) {
    um_safe_abort(&hf);
    fprintf(stderr, "umrun --report: %s\n", err);
    rc = EXIT_RUN;
    goto done;
  }
  write_page(hf.f, mf.f, (const uj *const *)files, paths, n);
  int bad = um_safe_commit(&hf, err, sizeof err);
  if (bad) um_safe_abort(&mf);
  else bad = um_safe_commit(&mf, err, sizeof err);
  if (bad) {
    fprintf(stderr, "umrun --report: %s\n", err);
    rc = EXIT_RUN;
    goto done;
  }
  printf("umrun --report: wrote %s and %s (%d results file%s)\n", out, mdpath, n, n == 1 ? "" : "s");
  rc = EXIT_OK;
done:
  for (int k = 0; k < n; k++) uj_free(files[k]);
  free(files);
  free(paths);
  return rc;
}
