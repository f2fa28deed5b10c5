/* umrun --report: the SVG plots of the page (inline, no script): bars of useful bandwidth per app and
 * variant, and the roofline-style picture per device. */
#include "htmlreport_internal.h"

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define NPAL ((int)(sizeof palette / sizeof palette[0]))

/* Fixed colours per strategy, the same in every report: seq grey, coloured blue, atomics red, global
 * green, hierarchical purple; any other name a colour of its own from its letters. */
const char *rep_strategy_colour(const char *key) {
  static const char *const names[] = {"seq", "coloured", "atomics", "global", "hierarchical"};
  static const char *const fixed[] = {"#7f7f7f", "#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
  static const char *const others[] = {"#ff7f0e", "#8c564b", "#e377c2", "#bcbd22", "#17becf"};
  for (int i = 0; i < 5; i++)
    if (!strcmp(key, names[i])) return fixed[i];
  unsigned hsh = 5381;
  for (const char *c = key; *c; c++) hsh = hsh * 33u + (unsigned char)*c;
  return others[hsh % 5];
}

/* ---- SVG ---------------------------------------------------------------------------- */
/* A round step (1, 2, 2.5 or 5 times a power of ten) for about four gridlines up to top. */
static double round_step(double top) {
  const double raw = top / 4, p = pow(10, floor(log10(raw))), f = raw / p;
  return p * (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10);
}

void rep_svg_bars(FILE *f, const char *title, const char *ylabel, const char *const *groups, const int *gstart,
                  int ngroups, const bar *bars, int nbars, double roof) {
  size_t longest = 0; /* the labels, slanted at 50 degrees (about 5.6 px a character at 10 px): room below and right */
  for (int i = 0; i < nbars; i++) longest = strlen(bars[i].label) > longest ? strlen(bars[i].label) : longest;
  const double lw = 5.6 * (double)longest;
  const int B = 40 + (int)(0.77 * lw) > 120 ? 40 + (int)(0.77 * lw) : 120, right = 150 > (int)(0.64 * lw) ? 150 : (int)(0.64 * lw);
  const int W = 950 + right, H = 255 + B, L = 70, T = 56;
  double ymax = roof > 0 ? roof : 0;
  for (int i = 0; i < nbars; i++)
    if (bars[i].value > ymax) ymax = bars[i].value;
  if (ymax <= 0) ymax = 1;
  const double step = round_step(ymax * 1.1);
  const int nticks = (int)ceil(ymax * 1.1 / step);
  ymax = step * nticks;
  const double bw = nbars ? (double)(W - L - right) / nbars : 1; /* the last labels, slanted, on the right */
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
             "aria-label=\"", W, H, W, H);
  umrun_xml_escape(f, title);
  fprintf(f, "\">\n<text x=\"%d\" y=\"20\" font-size=\"15\" font-weight=\"bold\">", L);
  umrun_xml_escape(f, title);
  fputs("</text>\n", f);
  /* the legend: each strategy's colour (fixed: the same in every report) */
  const char *seen[16];
  int nseen = 0;
  for (int i = 0; i < nbars && nseen < 16; i++) {
    int dup = 0;
    for (int q = 0; q < nseen; q++) dup |= !strcmp(seen[q], bars[i].key);
    if (dup) continue;
    seen[nseen] = bars[i].key;
    fprintf(f, "<rect x=\"%d\" y=\"28\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"37\" "
               "font-size=\"11\">", L + 130 * nseen, rep_strategy_colour(bars[i].key), L + 14 + 130 * nseen);
    umrun_xml_escape(f, bars[i].key);
    fputs("</text>\n", f);
    nseen++;
  }
  fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", L, H - B, W - 10, H - B);
  fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", L, T, L, H - B);
  for (int k = 0; k <= nticks; k++) {
    const double v = step * k, y = H - B - (H - B - T) * (double)k / nticks;
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%g</text>", L - 4, y + 4, v);
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
            bw > 6 ? bw - 4 : bw, h, rep_strategy_colour(bars[i].key));
    umrun_xml_escape(f, bars[i].label);
    fprintf(f, ": %.3g GB/s</title></rect>\n", bars[i].value);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" transform=\"rotate(50 %.1f %d)\">", x + bw / 2 - 2,
            H - B + 12, x + bw / 2 - 2, H - B + 12);
    umrun_xml_escape(f, bars[i].label);
    fputs("</text>\n", f);
  }
  double ends[2] = {-1e9, -1e9}; /* where the labels so far end, in each of two rows */
  for (int g = 0; g < ngroups; g++) {
    const int end = g + 1 < ngroups ? gstart[g + 1] : nbars;
    const double x0 = L + 4 + gstart[g] * bw, x1 = L + 4 + end * bw, w = 7.0 * (double)strlen(groups[g]);
    double x = (x0 + x1) / 2; /* centred over its bars, kept inside the chart, on the first row it does not overlap */
    if (x + w / 2 > W - 10) x = W - 10 - w / 2;
    if (x - w / 2 < L) x = L + w / 2;
    const int row = x - w / 2 < ends[0] + 6 && x - w / 2 >= ends[1] + 6 ? 1 : 0;
    ends[row] = x + w / 2;
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"12\" font-weight=\"bold\" text-anchor=\"middle\">", x,
            T + 14 + 15 * row);
    umrun_xml_escape(f, groups[g]);
    fputs("</text>\n", f);
  }
  fputs("</svg>\n", f);
}

/* ---- the roofline ---------------------------------------------------------------------- */
#define ROOF_NUMBERED_MAX 300 /* points numbered on a chart; more: the legend alone names them */
typedef struct {
  double x0, y0, x1, y1;
} box;

static int boxes_meet(const box *a, const box *b) {
  return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* Where point i's number goes: the first place around (px, py) whose box meets no label placed before and no
 * point (the boxes of the points in pts), inside the plot [L, R] x [T, B]; rings further out when the near ones
 * are taken. Returns 0 when no place is free (the number is then left to the legend). */
static int box_free(const box *b, const box *placed, int nplaced, const box *pts, int npts, double L, double R,
                    double T, double B) {
  int free = b->x0 >= L && b->x1 <= R && b->y0 >= T && b->y1 <= B;
  for (int q = 0; q < nplaced && free; q++) free = !boxes_meet(b, &placed[q]);
  for (int q = 0; q < npts && free; q++) free = !boxes_meet(b, &pts[q]);
  return free;
}

static int place_label(box *placed, int nplaced, const box *pts, int npts, double px, double py, double w, double hgt,
                       double L, double R, double T, double B, box *out) {
  static const double dir[8][2] = {{1, 0}, {-1, 0}, {0, -1}, {0, 1}, {1, -1}, {-1, -1}, {1, 1}, {-1, 1}};
  for (int ring = 1; ring <= 6; ring++)
    for (int d = 0; d < 8; d++) {
      const double gap = 5.0 * ring, cx = px + dir[d][0] * (gap + w / 2), cy = py + dir[d][1] * (gap + hgt / 2);
      const box b = {cx - w / 2, cy - hgt / 2, cx + w / 2, cy + hgt / 2};
      if (box_free(&b, placed, nplaced, pts, npts, L, R, T, B)) {
        *out = b;
        return 1;
      }
    }
  /* crowded: the free place nearest the point, anywhere in the plot (the caller draws a leader line) */
  double best = INFINITY;
  for (double y = T; y + hgt <= B; y += 4)
    for (double x = L; x + w <= R; x += 4) {
      const box b = {x, y, x + w, y + hgt};
      const double d = (x + w / 2 - px) * (x + w / 2 - px) + (y + hgt / 2 - py) * (y + hgt / 2 - py);
      if (d < best && box_free(&b, placed, nplaced, pts, npts, L, R, T, B)) best = d, *out = b;
    }
  return isfinite(best) ? 2 : 0;
}

/* the slanted (bandwidth) and flat (peak) roofs of one machine, the flat one from their ridge */
static void draw_roof(FILE *f, const roof *r, int second, double L, double W, double T, double H, double x0, double x1,
                      double y0, double y1) {
#define PX(v) (L + (W) * ((v)-x0) / (x1 - x0))
#define PY(v) (T + (H) - (H) * ((v)-y0) / (y1 - y0))
  const char *col = second ? "#777" : "#c00", *dash = second ? "2 3" : "6 4";
  const int has_peak = isfinite(r->peak) && r->peak > 0;
  if (r->bw > 0) { /* Gop/s = GB/s x ops/byte, up to the ridge where it meets the peak */
    double b = x1;
    if (has_peak && log10(r->peak / r->bw) < b) b = log10(r->peak / r->bw);
    double xa = x0, xb = b, ya = log10(r->bw) + x0, yb = log10(r->bw) + b;
    if (ya < y0) xa = y0 - log10(r->bw), ya = y0;
    if (yb > y1) xb = y1 - log10(r->bw), yb = y1;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"%s\"/>", PX(xa),
            PY(ya), PX(xb), PY(yb), col, dash);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"%s\" text-anchor=\"end\">%s copy %.0f GB/s</text>\n",
            PX(xb) - 4, PY(yb) - 6 - 12 * second, col, r->name, r->bw);
  }
  if (has_peak) {
    double lp = log10(r->peak), xr = r->bw > 0 ? log10(r->peak / r->bw) : x0;
    if (lp > y1) lp = y1;
    if (xr < x0) xr = x0;
    if (xr < x1) {
      fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>", PX(xr),
              PY(lp), PX(x1), PY(lp), second ? "#777" : "#222", second ? " stroke-dasharray=\"2 3\"" : "");
      fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\" fill=\"%s\">%s peak FP64 %.0f "
                 "GFLOP/s</text>\n",
              PX(x1) - 4, PY(lp) - 5, second ? "#555" : "#222", r->name, r->peak);
    }
  }
#undef PX
#undef PY
}

/* whole decades around the points (both ends of their segments), the roofs' peaks and ridges */
static void roof_axes(const roof *roofs, int nroofs, const point *p, int n, double *x0, double *x1, double *y0,
                      double *y1) {
  double ax = INFINITY, bx = -INFINITY, ay = INFINITY, by = -INFINITY;
  for (int i = 0; i < n; i++) {
    if (!(p[i].ai > 0) || !(p[i].gops > 0)) continue;
    ax = fmin(ax, log10(p[i].ai)), bx = fmax(bx, log10(fmax(p[i].ai, p[i].ai_hi)));
    ay = fmin(ay, log10(p[i].gops)), by = fmax(by, log10(fmax(p[i].gops, p[i].gops_hi)));
  }
  for (int r = 0; r < nroofs; r++) /* each peak, and room right of each ridge for its flat roof */
    if (isfinite(roofs[r].peak) && roofs[r].peak > 0) {
      by = fmax(by, log10(roofs[r].peak));
      if (roofs[r].bw > 0) bx = fmax(bx, log10(roofs[r].peak / roofs[r].bw) + 1);
    }
  if (!isfinite(ax)) ax = -2, bx = 2, ay = -1, by = fmax(by, 3);
  *x0 = fmax(floor(ax), -4), *x1 = fmin(fmax(ceil(bx), *x0 + 2), 6);
  *y0 = fmax(floor(ay), -4), *y1 = fmin(fmax(ceil(by + 0.3), *y0 + 2), 7);
}

void rep_svg_roofline(FILE *f, const char *title, const roof *roofs, int nroofs, const point *p, int n,
                      const char *const *apps, int napps) {
  const int W = 900, H = 560, L = 70, B = 60, T = 36, R = 170;
  double x0, x1, y0, y1; /* log10 ranges: ops/byte, Gop/s, from the points and the roofs */
  roof_axes(roofs, nroofs, p, n, &x0, &x1, &y0, &y1);
  const double pw = W - L - R, ph = H - B - T;
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"roofline\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d "
             "%d\" role=\"img\" aria-label=\"", W, H, W, H);
  umrun_xml_escape(f, title);
  fprintf(f, "\">\n<text x=\"%d\" y=\"20\" font-size=\"15\" font-weight=\"bold\">", L);
  umrun_xml_escape(f, title);
  fputs("</text>\n", f);
#define PX(v) (L + pw * ((v)-x0) / (x1 - x0))
#define PY(v) (H - B - ph * ((v)-y0) / (y1 - y0))
  fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#333\"/>\n", L, T, pw, ph);
  for (int e = (int)x0; e <= (int)x1; e++)
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">1e%d</text>", PX(e), H - B + 16, e);
  for (int e = (int)y0; e <= (int)y1; e++)
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">1e%d</text>", L - 4, PY(e) + 4, e);
  fprintf(f, "\n<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">arithmetic intensity (counted "
             "operations per useful byte)</text>\n",
          (L + W - R) / 2, H - 14);
  fprintf(f, "<text x=\"16\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">Gop/s "
             "achieved</text>\n",
          (H - B + T) / 2, (H - B + T) / 2);
  for (int r = 0; r < nroofs; r++) draw_roof(f, &roofs[r], r > 0, L, pw, T, ph, x0, x1, y0, y1);
  if (!nroofs || !(isfinite(roofs[0].peak) && roofs[0].peak > 0))
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555\">compute roof unknown: no peak rate "
               "recorded for this device</text>\n", L + 8, T + 16);
  box *pts = calloc((size_t)n + 1, sizeof *pts), *lab = calloc((size_t)n + 1, sizeof *lab);
  double *cx = calloc((size_t)n + 1, sizeof *cx), *cy = calloc((size_t)n + 1, sizeof *cy);
  int nl = 0;
  for (int i = 0; pts && cx && cy && i < n; i++) { /* the points, a path range as a segment from fewest to most */
    const double lx = fmin(fmax(log10(p[i].ai), x0), x1), ly = fmin(fmax(log10(p[i].gops), y0), y1);
    cx[i] = PX(lx), cy[i] = PY(ly);
    pts[i] = (box){cx[i] - 4, cy[i] - 4, cx[i] + 4, cy[i] + 4};
    if (p[i].ai_hi > p[i].ai) {
      const double hx = fmin(fmax(log10(p[i].ai_hi), x0), x1), hy = fmin(fmax(log10(p[i].gops_hi), y0), y1);
      fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\"/>", cx[i],
              cy[i], PX(hx), PY(hy), palette[p[i].colour % NPAL]);
    }
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>%d ", cx[i], cy[i],
            palette[p[i].colour % NPAL], i + 1);
    umrun_xml_escape(f, p[i].label);
    fprintf(f, ": %.3g op/B, %.3g Gop/s</title></circle>\n", p[i].ai, p[i].gops);
  }
  if (n > ROOF_NUMBERED_MAX) /* a cloud of points: numbers would hide it; the legend still lists every point */
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555\">%d points: too many to number here; the "
               "legend lists them</text>\n", L + 8, T + 30, n);
  for (int i = 0; n <= ROOF_NUMBERED_MAX && pts && lab && cx && cy && i < n; i++) { /* each number, meeting no other */
    char num[16];
    snprintf(num, sizeof num, "%d", i + 1);
    box b;
    const int how = place_label(lab, nl, pts, n, cx[i], cy[i], 6.0 * strlen(num) + 2, 11, L, W - R, T, H - B, &b);
    if (!how) continue;
    lab[nl++] = b;
    if (how == 2) /* placed away from its point: a leader line to it */
      fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" stroke-width=\"0.6\"/>", cx[i], cy[i],
              (b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2);
    fprintf(f, "<text class=\"pt\" x=\"%.1f\" y=\"%.1f\" font-size=\"9\" text-anchor=\"middle\" fill=\"#222\">%s</text>\n",
            (b.x0 + b.x1) / 2, b.y1 - 2, num);
  }
  free(pts), free(lab), free(cx), free(cy);
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
