/* umrun --report: an app's picture of a plan or a partition (a suite case with draw:, umrun --draw), shown in its
 * section with a caption from the run's own figures. The SVG goes in as an image (a data: URL), never as markup of
 * the page: a picture file cannot add script or elements to the report. */
#include <libgen.h>

#include "htmlreport_internal.h"

#define PICTURE_MAX_BYTES (8u << 20) /* larger pictures are named, not embedded */

/* The picture's file: beside the results file (its runs/ folder, then the folder itself: a suite's output moved
 * elsewhere keeps its pictures), else as the run's JSON names it. The text read (malloc'ed) and its length, or NULL. */
static char *read_picture(const char *named, const char *results_path, size_t *len, char *used, size_t ulen) {
  char dir[4096], base[4096];
  snprintf(dir, sizeof dir, "%s", results_path);
  snprintf(base, sizeof base, "%s", named);
  const char *d = dirname(dir), *b = basename(base);
  char tries[3][8300]; /* beside the results file first: a relative name was the suite's folder's, perhaps not ours */
  snprintf(tries[0], sizeof tries[0], "%s/runs/%s", d, b);
  snprintf(tries[1], sizeof tries[1], "%s/%s", d, b);
  snprintf(tries[2], sizeof tries[2], "%s", named);
  for (int t = 0; t < 3; t++) {
    char err[512];
    char *text = um_read_all(tries[t], PICTURE_MAX_BYTES, len, err, sizeof err);
    if (text && *len > 4 && !strncmp(text, "<svg", 4)) {
      snprintf(used, ulen, "%.4000s", tries[t]);
      return text;
    }
    free(text);
  }
  return NULL;
}

static void base64(FILE *f, const unsigned char *p, size_t n) {
  static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    const unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    fputc(digits[v >> 18 & 63], f);
    fputc(digits[v >> 12 & 63], f);
    fputc(i + 1 < n ? digits[v >> 6 & 63] : '=', f);
    fputc(i + 2 < n ? digits[v & 63] : '=', f);
  }
}

/* What the picture shows, from the run's "draw" member. */
static void caption(const uj *c, const uj *d, char *buf, size_t len) {
  const char *kind = uj_gets(d, "kind", "");
  if (!strcmp(kind, "plan"))
    snprintf(buf, len,
             "The plan of loop %s in run %s: the %.0f elements of set %s drawn at their coordinates (%s). Left, "
             "each element in the colour of its block (mini-partition): %.0f blocks in %.0f block colours; blocks "
             "of one colour write no common target and run at the same time, the colours one after another. Right, "
             "each element in its thread colour within its block (up to %.0f): the elements of one colour run "
             "together inside the block. The counts are the run's own plan statistics (the plan table).",
             uj_gets(d, "loop", "?"), uj_gets(c, "id", "?"), uj_getn(d, "elements", 0), uj_gets(d, "set", "?"),
             uj_gets(d, "coordinates", "?"), uj_getn(d, "blocks", 0), uj_getn(d, "block_colours", 0),
             uj_getn(d, "thread_colours", 0));
  else
    snprintf(buf, len,
             "The partition of set %s over %.0f ranks in run %s (%.0f elements at their coordinates, %s): first "
             "every element in its owner's colour, then per rank its owned elements, its exec halo (run there too, "
             "lighter) and its non-exec halo (only read there, lightest).",
             uj_gets(d, "set", "?"), uj_getn(d, "ranks", 0), uj_gets(c, "id", "?"), uj_getn(d, "elements", 0),
             uj_gets(d, "coordinates", "?"));
}

/* The first picture among the app's runs, in its section: a figure with its caption (HTML), the caption and the
 * file (markdown). Nothing when no run of the app drew one, or its file is gone. */
void rep_write_picture(FILE *h, FILE *m, const uj *const *files, const char *const *paths, int nfiles,
                       const char *app) {
  for (int k = 0; k < nfiles; k++) {
    const uj *cs = uj_get(files[k], "cases");
    for (int i = 0; i < uj_len(cs); i++) {
      const uj *c = uj_at(cs, i), *d = uj_get(uj_get(c, "run"), "draw");
      if (strcmp(uj_gets(c, "app", ""), app) || !d || d->kind != UJ_OBJ) continue;
      size_t n = 0;
      char used[8300], cap[2048];
      char *svg = read_picture(uj_gets(d, "file", ""), paths[k], &n, used, sizeof used);
      if (!svg) continue;
      caption(c, d, cap, sizeof cap);
      fputs("<figure class=\"picture\"><img alt=\"", h);
      rep_html_text(h, cap);
      fputs("\" style=\"max-width:100%\" src=\"data:image/svg+xml;base64,", h);
      base64(h, (const unsigned char *)svg, n);
      fputs("\"><figcaption>", h);
      rep_html_text(h, cap);
      fputs("</figcaption></figure>\n", h);
      rep_md_cell(m, cap);
      fputs(" (picture: ", m);
      rep_md_cell(m, used);
      fputs(")\n\n", m);
      free(svg);
      return;
    }
  }
}
