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
void rep_svg_bars(FILE *f, const char *title, const char *ylabel, const char *const *groups, const int *gstart,
                  int ngroups, const bar *bars, int nbars, double roof) {
  const int W = 1100, H = 470, L = 70, B = 215, T = 56; /* B: room for the slanted labels */
  double ymax = roof > 0 ? roof : 0;
  for (int i = 0; i < nbars; i++)
    if (bars[i].value > ymax) ymax = bars[i].value;
  if (ymax <= 0) ymax = 1;
  ymax *= 1.1;
  const double bw = nbars ? (double)(W - L - 150) / nbars : 1; /* 150 px on the right: the last labels, slanted */
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
            bw > 6 ? bw - 4 : bw, h, rep_strategy_colour(bars[i].key));
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
            T + 14);
    umrun_xml_escape(f, groups[g]);
    fputs("</text>\n", f);
  }
  fputs("</svg>\n", f);
}

#define ROOF_LABELS 10 /* points named on the roofline */

void rep_svg_roofline(FILE *f, const char *title, double bw_gbs, double peak_gflops, const point *p, int n,
                      const char *const *apps, int napps) {
  const int W = 760, H = 460, L = 70, B = 60, T = 36, R = 170;
  const double x0 = -3, x1 = 3, y0 = -2, y1 = 5; /* log10 ranges: ops/byte, Gop/s */
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
             "aria-label=\"", W, H, W, H);
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
  const int has_peak = isfinite(peak_gflops) && peak_gflops > 0;
  if (bw_gbs > 0) { /* the bandwidth roof: Gop/s = GB/s x ops/byte, up to the ridge where it meets the peak */
    const double a = x0;
    double b = x1;
    if (has_peak && log10(peak_gflops / bw_gbs) < b) b = log10(peak_gflops / bw_gbs);
    double ya = log10(bw_gbs) + a, yb = log10(bw_gbs) + b;
    double xa = a, xb = b;
    if (ya < y0) xa = y0 - log10(bw_gbs), ya = y0;
    if (yb > y1) xb = y1 - log10(bw_gbs), yb = y1;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" stroke-dasharray=\"6 4\"/>", PX(xa),
            PY(ya), PX(xb), PY(yb));
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#c00\">copy bandwidth %.0f GB/s</text>\n",
            PX(xa) + 6, PY(ya) - 6, bw_gbs);
  }
  if (has_peak) { /* the compute roof, flat from the ridge (or the left edge) */
    double lp = log10(peak_gflops), xr = bw_gbs > 0 ? log10(peak_gflops / bw_gbs) : x0;
    if (lp > y1) lp = y1;
    if (xr < x0) xr = x0;
    if (xr < x1) {
      fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\" stroke-width=\"2\"/>", PX(xr),
              PY(lp), PX(x1), PY(lp));
      fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">peak FP64 %.0f GFLOP/s</text>\n",
              PX(x1) - 4, PY(lp) - 6, peak_gflops);
    }
  } else {
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555\">compute roof unknown: no peak rate "
               "recorded for this device</text>\n", L + 8, T + 16);
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
    int above = 0; /* labelled: the ROOF_LABELS points with the highest rates */
    for (int j = 0; j < n; j++) above += p[j].gops > p[i].gops || (p[j].gops == p[i].gops && j < i);
    if (above < ROOF_LABELS) {
      fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" fill=\"#333\">", PX(lx) + 6, PY(ly) + 3);
      umrun_xml_escape(f, p[i].label);
      fputs("</text>\n", f);
    }
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
