/* umrun --draw plan[=LOOP] FILE.svg | --draw partition[=SET] FILE.svg (draw.c, draw_svg.c): pictures of a run's
 * plan or partition on a small 2-D mesh, the elements drawn at their coordinates. Private to umrun. */
#ifndef UMRUN_DRAW_H
#define UMRUN_DRAW_H
#include <stddef.h>
#include <stdio.h>

#include "um/um.h"

/* Elements of the drawn set at most: a picture is for small meshes (the SVG grows with the elements). */
#define UMRUN_DRAW_MAX_ELEMENTS 60000
/* Ranks a partition picture draws at most (one panel each). */
#define UMRUN_DRAW_MAX_RANKS 16

enum { UMRUN_DRAW_NONE = 0, UMRUN_DRAW_PLAN, UMRUN_DRAW_PARTITION };

/* What --draw asked for, and (after umrun_draw_run) what the picture shows: the figures the SVG carries. */
typedef struct {
  int kind; /* UMRUN_DRAW_* */
  const char *name; /* plan=LOOP's loop, partition=SET's set; NULL: the default */
  const char *path; /* the SVG file */
  /* after the run: */
  int drawn; /* 1: the file was written */
  char loop[128], set[128], coords[256]; /* the loop (plan), the set drawn, where its coordinates came from */
  int elements; /* elements of the set drawn */
  int blocks, block_colours, thread_colours; /* plan: blocks, block colours, thread colours (the most in a block) */
  int ranks; /* partition: ranks drawn */
  long owned[UMRUN_DRAW_MAX_RANKS], exec[UMRUN_DRAW_MAX_RANKS], nonexec[UMRUN_DRAW_MAX_RANKS];
} umrun_draw;

/* --draw WHAT PATH: WHAT is plan, plan=LOOP, partition or partition=SET. 0, or -1 with a message in err. */
int umrun_draw_parse(umrun_draw *d, const char *what, const char *path, char *err, size_t len);
/* After a run that succeeded, on every rank (a partition picture gathers from every rank: collective): draw and
 * write d->path on rank 0 (through a temporary: a failure leaves nothing). Returns 0, or the exit status with a
 * message on stderr: 1 the request does not fit the run (an unknown loop or set, a 3-D mesh, no coordinates, a
 * mesh too large), 2 the file could not be written. out: the line saying what was drawn (rank 0). */
int umrun_draw_run(umrun_draw *d, um_context *ctx, FILE *out, const char *prog);
/* The "draw" member of the run's JSON (after umrun_draw_run wrote the file; nothing otherwise). */
void umrun_draw_json(FILE *f, const umrun_draw *d);

/* ---- draw_svg.c: the picture ---- */
/* The set's elements as shapes: arity points per element (1 a point, 2 a segment, 3 or more a polygon), in
 * picture coordinates (y down), xy[(e * arity + k) * 2 + 0/1]. */
typedef struct {
  int n, arity;
  double *xy;
  double w, h; /* the panel's size in pixels */
} umrun_shapes;
/* One panel: the elements split into classes (class_of[e] in 0 .. nclass-1, -1: not drawn), each class its
 * colour, opacity and legend label (with its count). */
typedef struct {
  const char *title;
  const int *class_of;
  int nclass;
  const char *const *colour; /* [nclass] */
  const double *opacity; /* [nclass], NULL: 1 */
  const char *const *label; /* [nclass]: the legend's words; the count is added */
} umrun_panel;
/* Write an SVG of npanels panels side by side (up to 4 a row) of shapes g to f: title above, each panel's legend
 * under it; note: a line under the title. root_attrs: extra attributes of the <svg> element (data-* figures), already escaped. */
void umrun_draw_svg(FILE *f, const char *title, const char *note, const char *root_attrs, const umrun_shapes *g,
                    const umrun_panel *p, int npanels);
/* A colour of the palette for class k (12 colours, then again). */
const char *umrun_draw_colour(int k);
#endif
