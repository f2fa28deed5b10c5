/* Fuzz Airfoil's text mesh reader (apps/airfoil/mesh_text.c, OP2's new_grid.dat):
 * any file gives a mesh or a "<file>:<line>: ..." error; never a crash, and
 * never an allocation the file's size does not justify. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "naca0012.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/um_fuzz_airfoil_%ld.dat", (long)getpid());
  if (fuzz_write_file(path, data, size)) return 0;
  airfoil_mesh m;
  char err[512];
  if (airfoil_mesh_read_text(path, &m, err, sizeof err) == 0) airfoil_mesh_free(&m);
  unlink(path);
  return 0;
}
