/* Fuzz reading a mesh in OP2's HDF5 layout (um_hdf5_read_set/map/dat through
 * Airfoil's airfoil_decl_mesh_hdf5, then the mesh geometry check): sets, maps
 * and dats of any claimed shape, type and content give a mesh or an error;
 * never a crash, and never an allocation the file does not hold the data for. */
#include "h5build.h"

#include <stdlib.h>

#include "airfoil.h"
#include "um/um.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  h5b_in in = {data, size};
  const char *path = h5b_path("mesh");
  hid_t f = h5b_create(path);
  if (f < 0) return 0;
  long long nn, ne, nb, nc;
  h5b_set(f, &in, "nodes", &nn);
  h5b_set(f, &in, "edges", &ne);
  h5b_set(f, &in, "bedges", &nb);
  h5b_set(f, &in, "cells", &nc);
  h5b_dataset(f, &in, "pedge", ne, 2);
  h5b_dataset(f, &in, "pecell", ne, 2);
  h5b_dataset(f, &in, "pbedge", nb, 2);
  h5b_dataset(f, &in, "pbecell", nb, 1);
  h5b_dataset(f, &in, "pcell", nc, 4);
  h5b_dataset(f, &in, "p_x", nn, 2);
  h5b_dataset(f, &in, "p_bound", nb, 1);
  H5Fclose(f);
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  um_context *ctx = NULL;
  if (um_init(&ctx, &o) == UM_SUCCESS) {
    airfoil a;
    memset(&a, 0, sizeof a);
    if (airfoil_decl_mesh_hdf5(ctx, path, 0, &a) == UM_SUCCESS) airfoil_check_mesh(ctx, &a);
  }
  um_finalize(&ctx);
  unlink(path);
  return 0;
}
