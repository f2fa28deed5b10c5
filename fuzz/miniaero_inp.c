/* Fuzz miniAero's deck reader (apps/miniaero/inputs.c) and, for decks that
 * pass its checks and are small, the mesh generator (mesh.c): any bytes give
 * inputs or an error, never a crash, a leak or undefined behaviour. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "miniaero/miniaero.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  char err[1024];
  ma_inputs in;
  if (ma_inputs_parse(text, "fuzz.inp", &in, err, sizeof err) == 0 && (long long)in.nx * in.ny * in.nz <= 4096) {
    ma_mesh m;
    if (ma_mesh_build(&in, &m, err, sizeof err) == 0) {
      /* every slot belongs to exactly one face: the counts must add up */
      long long faces = 2LL * m.interior.n;
      for (int b = 0; b < MA_NBC; b++) faces += m.bc[b].n;
      if (faces != 6LL * m.ncells) abort();
      ma_mesh_free(&m);
    }
  }
  free(text);
  return 0;
}
