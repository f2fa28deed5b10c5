/* Fuzz BookLeaf's namelist reader (apps/bookleaf/deck.c) and, for decks that
 * read and are small, the mesh generator and initial conditions (mesh.c): any
 * bytes give a deck or an error naming the file and line, never a crash, a
 * leak or undefined behaviour. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bookleaf/bookleaf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  bl_deck *d = malloc(sizeof *d);
  if (!d) return 0;
  char err[1024];
  bl_deck_default(d);
  if (bl_deck_parse(d, (const char *)data, size, "fuzz.deck", err, sizeof err) == 0 &&
      (long long)d->region_dim[0][0] * d->region_dim[1][0] <= 256) {
    bl_mesh m;
    if (bl_mesh_build(d, &m, err, sizeof err) == 0) {
      /* upstream's numbering: a logically rectangular block, every element's neighbour faces back */
      for (int e = 0; e < m.nel; e++)
        for (int f = 0; f < 4; f++) {
          const int n = m.elel[4 * e + f], g = m.elfc[4 * e + f];
          if (n < 0 || n >= m.nel || g < 0 || g > 3) abort();
          if (n != e && m.elel[4 * n + g] != e) abort();
        }
      bl_mesh_free(&m);
    }
  }
  free(d);
  return 0;
}
