/* Fuzz the reordering file reader (um_reordering_load, engine/src/reorder/
 * reorder_hdf5.c): attributes, permutations and parts of any claimed size and
 * content, against a small mesh; a reordering or an error, never a crash. */
#include "h5build.h"

#include "um/reorder.h"
#include "um/um.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  h5b_in in = {data, size};
  const char *path = h5b_path("reorder");
  hid_t f = h5b_create(path);
  if (f < 0) return 0;
  static const char *methods[] = {"gps", "partition", "none", "bogus"};
  unsigned flags = h5b_byte(&in);
  if (!(flags & 1)) h5b_attr_str(f, "method", methods[h5b_byte(&in) % 4]);
  if (!(flags & 2)) h5b_attr_str(f, "map", (flags & 16) ? "nope" : "m");
  if (!(flags & 4)) h5b_attr_str(f, "map_hash", (flags & 32) ? "0123456789abcdef" : "");
  if (!(flags & 8)) h5b_attr_int(f, "format_version", (flags & 64) ? 1 : UM_REORDER_FILE_VERSION);
  const char *sets[2] = {"a", "b"};
  const long long sizes[2] = {10, 6};
  for (int i = 0; i < 2; i++) {
    char name[16];
    snprintf(name, sizeof name, "perm_%s", sets[i]);
    h5b_dataset(f, &in, name, sizes[i], 1);
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d >= 0) {
      h5b_attr_str(d, "set", (h5b_byte(&in) & 7) == 7 ? "zz" : sets[i]);
      H5Dclose(d);
    }
  }
  if (flags & 128) {
    h5b_dataset(f, &in, "parts_a", 4, 1);
    hid_t d = H5Dopen2(f, "parts_a", H5P_DEFAULT);
    if (d >= 0) {
      h5b_attr_str(d, "set", "a");
      h5b_attr_int(d, "block_size", (int)h5b_count(&in, 4));
      H5Dclose(d);
    }
  }
  H5Fclose(f);
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  um_context *ctx = NULL;
  if (um_init(&ctx, &o) == UM_SUCCESS) {
    um_set *a, *b;
    um_map *m;
    int md[10] = {0, 1, 2, 3, 4, 5, 0, 1, 2, 3};
    um_decl_set(ctx, 10, "a", &a);
    um_decl_set(ctx, 6, "b", &b);
    um_decl_map(ctx, a, b, 1, md, "m", &m);
    um_reordering *r = NULL;
    if (um_reordering_load(ctx, path, &r, NULL) == UM_SUCCESS) um_reordering_free(&r);
  }
  um_finalize(&ctx);
  unlink(path);
  return 0;
}
