/* umrun --draw: the SVG of a set's elements in panels, one colour class per <path> (no per-pixel output: the
 * shapes' corners in whole pixels, each element after the first corner in relative moves). */
#include <math.h>
#include <string.h>

#include "draw.h"
#include "tools.h"

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                      "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#e7ba52"};
#define NPAL ((int)(sizeof palette / sizeof palette[0]))

const char *umrun_draw_colour(int k) { return palette[(k % NPAL + NPAL) % NPAL]; }

#define PANELS_PER_ROW 4
#define GAP 24 /* between panels */
#define TOP 60 /* the title and the note under it */
#define SUB 20 /* a panel's title */
#define LEGEND_LINE 15
#define LEGEND_COL 235 /* a legend's second column */
#define MIN_CELL 490 /* a panel's width at least (its title and legend), whatever the mesh's shape */

/* The elements of class k in panel p as one path's data: each shape's first corner absolute, the others relative
 * (whole pixels, so the moves are exact), at (ox, oy). Returns how many elements. */
static int write_class_path(FILE *f, const umrun_shapes *g, const umrun_panel *p, int k, double ox, double oy) {
  int count = 0;
  for (int e = 0; e < g->n; e++) {
    if (p->class_of[e] != k) continue;
    const double *c = g->xy + (size_t)e * g->arity * 2;
    long px = lround(ox + c[0]), py = lround(oy + c[1]);
    fprintf(f, "M%ld %ld", px, py);
    if (g->arity == 1) fputs("h2v2h-2z", f);
    for (int a = 1; a < g->arity; a++) {
      const long qx = lround(ox + c[2 * a]), qy = lround(oy + c[2 * a + 1]);
      fprintf(f, "l%ld %ld", qx - px, qy - py);
      px = qx, py = qy;
    }
    if (g->arity >= 3) fputc('z', f);
    count++;
  }
  return count;
}

/* A legend's lines: one column up to 12 classes, then two. */
static int legend_rows(int nclass) { return nclass > 12 ? (nclass + 1) / 2 : nclass; }

static int class_count(const umrun_shapes *g, const umrun_panel *p, int k) {
  int n = 0;
  for (int e = 0; e < g->n; e++) n += p->class_of[e] == k;
  return n;
}

/* Panel p at (x, y): its title, its classes' paths, its legend. */
static void write_panel(FILE *f, const umrun_shapes *g, const umrun_panel *p, int index, double x, double y) {
  fprintf(f,
          "<g class=\"panel\" data-panel=\"%d\">\n<text x=\"%.0f\" y=\"%.0f\" font-size=\"13\" "
          "font-weight=\"bold\">",
          index, x, y + 14);
  umrun_xml_escape(f, p->title);
  fputs("</text>\n", f);
  const double oy = y + SUB;
  fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#ccc\"/>\n", x - 2,
          oy - 2, g->w + 4, g->h + 4);
  for (int k = 0; k < p->nclass; k++) {
    const int n = class_count(g, p, k);
    if (!n) continue;
    const double op = p->opacity ? p->opacity[k] : 1.0;
    if (g->arity == 2)
      fprintf(f,
              "<path data-class=\"%d\" data-count=\"%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"0.9\" "
              "stroke-opacity=\"%.2f\" d=\"",
              k, n, p->colour[k], op);
    else
      fprintf(f,
              "<path data-class=\"%d\" data-count=\"%d\" fill=\"%s\" stroke=\"%s\" stroke-width=\"0.6\" "
              "fill-opacity=\"%.2f\" stroke-opacity=\"%.2f\" d=\"",
              k, n, p->colour[k], p->colour[k], op, op);
    write_class_path(f, g, p, k, x, oy);
    fputs("\"/>\n", f);
  }
  const int rows = legend_rows(p->nclass);
  for (int k = 0; k < p->nclass; k++) {
    const double op = p->opacity ? p->opacity[k] : 1.0;
    const double lx = x + (double)(k / rows) * LEGEND_COL, ly = oy + g->h + 16 + (double)(k % rows) * LEGEND_LINE;
    fprintf(f,
            "<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\" fill-opacity=\"%.2f\"/>"
            "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">",
            lx, ly - 9, p->colour[k], op, lx + 14, ly);
    umrun_xml_escape(f, p->label[k]);
    fprintf(f, ": %d elements</text>\n", class_count(g, p, k));
  }
  fputs("</g>\n", f);
}

void umrun_draw_svg(FILE *f, const char *title, const char *note, const char *root_attrs, const umrun_shapes *g,
                    const umrun_panel *p, int npanels) {
  int most = 0; /* the longest legend */
  for (int i = 0; i < npanels; i++) most = legend_rows(p[i].nclass) > most ? legend_rows(p[i].nclass) : most;
  const int cols = npanels < PANELS_PER_ROW ? npanels : PANELS_PER_ROW, rows = (npanels + cols - 1) / cols;
  const double cell_w = g->w + GAP > MIN_CELL ? g->w + GAP : MIN_CELL,
               cell_h = SUB + g->h + 12 + most * LEGEND_LINE + GAP;
  const double W = GAP + cols * cell_w, H = TOP + rows * cell_h;
  fprintf(f,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
          "role=\"img\" %s aria-label=\"",
          W, H, W, H, root_attrs);
  umrun_xml_escape(f, title);
  fputs("\">\n<title>", f);
  umrun_xml_escape(f, title);
  fputs(": ", f);
  umrun_xml_escape(f, note);
  fprintf(f,
          "</title>\n<rect width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n<text x=\"%d\" y=\"24\" "
          "font-size=\"14\" font-family=\"sans-serif\">",
          W, H, GAP);
  umrun_xml_escape(f, title);
  fprintf(f, "</text>\n<text x=\"%d\" y=\"42\" font-size=\"12\" font-family=\"sans-serif\" fill=\"#444\">", GAP);
  umrun_xml_escape(f, note);
  fputs("</text>\n<g font-family=\"sans-serif\">\n", f);
  for (int i = 0; i < npanels; i++)
    write_panel(f, g, &p[i], i, GAP + (i % cols) * cell_w, TOP + (double)(i / cols) * cell_h);
  fputs("</g>\n</svg>\n", f);
}
