/* Writes solution files params.solution must refuse (ctest siac.bad_solution_*): the uniform 4 x 4 mesh of the unit
 * square in siac.h5's layout with one defect each. Usage: bad_solutions DIR (writes DIR/bad_solution_<defect>.h5). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "siac_mesh.h"
#include "um/hdf5io.h"
#include "um/um.h"

static int write(um_context *ctx, const char *dir, const char *name, const siac_mesh *m, const double *coef) {
  char path[4096];
  snprintf(path, sizeof path, "%s/bad_solution_%s.h5", dir, name);
  const char *sets[] = {"nodes", "cells"};
  const int sizes[] = {m->nnodes, m->ncells};
  const um_hdf5_rows rows[] = {{"cell_nodes", m->ncells, 3, UM_INT, 1, m->tri},
                               {"x", m->nnodes, 2, UM_DOUBLE, 0, m->xy},
                               {"coef", m->ncells, 3, UM_DOUBLE, 0, coef}};
  const int rc = um_hdf5_write_blocks(ctx, path, 2, sets, sizes, 3, rows);
  if (rc) fprintf(stderr, "bad_solutions: %s: %s\n", path, um_error_message(ctx));
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: bad_solutions DIR\n"), 2;
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  um_context *ctx = NULL;
  siac_mesh m;
  char err[512];
  double coef[3 * 32];
  if (um_init(&ctx, &o) || siac_mesh_uniform(4, &m, err, sizeof err)) return fprintf(stderr, "bad_solutions: setup\n"), 1;
  for (int i = 0; i < 3 * 32; i++) coef[i] = i % 3 ? 0.0 : 1.0;
  int rc = 0, t = m.tri[4];
  m.tri[4] = m.tri[5], m.tri[5] = t; /* cell 1 clockwise */
  rc |= write(ctx, argv[1], "clockwise", &m, coef);
  m.tri[5] = m.tri[4], m.tri[4] = t;
  const double x = m.xy[2 * 7];
  m.xy[2 * 7] = 1.5; /* node 7 outside the square */
  rc |= write(ctx, argv[1], "outside", &m, coef);
  m.xy[2 * 7] = x;
  coef[3 * 5 + 1] = NAN; /* cell 5's second coefficient */
  rc |= write(ctx, argv[1], "nan_coef", &m, coef);
  coef[3 * 5 + 1] = 0;
  m.ncells--; /* the last triangle missing */
  rc |= write(ctx, argv[1], "hole", &m, coef);
  siac_mesh_free(&m);
  um_finalize(&ctx);
  return rc ? 1 : 0;
}
