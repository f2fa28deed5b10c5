/* Fuzz Volna's deck reader (apps/volna/vln.c, with the formula parser it calls) and, for decks with a
 * small Mesh Rectangle, the mesh generator and its connectivity: any bytes give a deck or an error
 * naming file:line, never a crash, a leak or undefined behaviour. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "volna/volna.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char err[2048];
  vl_deck d;
  if (vl_deck_parse((const char *)data, size, "fuzz.vln", ".", &d, err, sizeof err) == 0) {
    if (d.rectangle && (long long)d.nx * d.ny <= 4096) {
      vl_mesh m;
      if (vl_mesh_rectangle(d.xmin, d.xmax, d.ymin, d.ymax, d.nx, d.ny, &m, err, sizeof err) == 0) {
        /* every cell has three edges, every edge one or two cells */
        if (m.ncells != 2 * d.nx * d.ny || m.nedges != 3 * d.nx * d.ny + d.nx + d.ny) abort();
        vl_mesh_free(&m);
      }
    }
    for (int i = 0; i < d.nevents; i++)
      if (d.events[i].formula) (void)vl_expr_eval(d.events[i].formula, 0.5f, -0.25f, 1.0f);
    vl_deck_free(&d);
  } else if (!strstr(err, "fuzz.vln")) {
    abort(); /* every error names the deck */
  }
  return 0;
}
