/* Fuzz the HDF5 dat and constant readers (um_hdf5_read_dat, _expect,
 * um_hdf5_read_const) on datasets of any claimed shape and element type. */
#include "h5build.h"

#include "um/hdf5io.h"
#include "um/um.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  h5b_in in = {data, size};
  const char *path = h5b_path("dat");
  hid_t f = h5b_create(path);
  if (f < 0) return 0;
  long long n = h5b_count(&in, 5), dim = h5b_count(&in, 3);
  h5b_dataset(f, &in, "d", n, dim);
  h5b_dataset(f, &in, "c", 1, dim);
  H5Fclose(f);
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  um_context *ctx = NULL;
  if (um_init(&ctx, &o) == UM_SUCCESS) {
    um_set *s = NULL;
    um_dat *d = NULL;
    if (n >= 0 && n <= INT_MAX && um_decl_set(ctx, (int)n, "s", &s) == UM_SUCCESS) {
      um_hdf5_read_dat(ctx, path, s, "d", &d);
      um_hdf5_read_dat_expect(ctx, path, s, dim > 0 && dim < 64 ? (int)dim : 2, UM_DOUBLE, "c", &d);
    }
    double c[8];
    um_hdf5_read_const(ctx, path, "c", 8, UM_DOUBLE, c);
    int k[3];
    um_hdf5_read_const(ctx, path, "d", 3, UM_INT, k);
  }
  um_finalize(&ctx);
  unlink(path);
  return 0;
}
