/* Structure-aware HDF5 inputs for the fuzz harnesses: the fuzzer's bytes
 * describe a file (datasets with shapes, element types, storage and values,
 * string and integer attributes) and h5b_* writes it with the HDF5 library.
 * What is fuzzed is our readers' handling of whatever a well-formed HDF5 file
 * may claim (extents, types, counts, indices), not libhdf5's own parser. */
#ifndef UM_FUZZ_H5BUILD_H
#define UM_FUZZ_H5BUILD_H

#include <hdf5.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  const uint8_t *p;
  size_t n;
} h5b_in;

static unsigned h5b_byte(h5b_in *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

/* A count: usually small, sometimes one of the values readers get wrong. */
static long long h5b_count(h5b_in *in, long long near) {
  static const long long odd[] = {0, 1, -1, INT_MAX, (long long)INT_MAX + 1, 1LL << 40, 1LL << 31, 65536};
  unsigned b = h5b_byte(in);
  if (b < 100) return near;
  if (b < 160) return near + (long long)(b % 5) - 2 < 0 ? 0 : near + (long long)(b % 5) - 2;
  if (b < 230) return (long long)(b - 160);
  return odd[b % 8];
}

static const hid_t *h5b_types(void) {
  static hid_t t[6];
  t[0] = H5T_NATIVE_INT;
  t[1] = H5T_NATIVE_DOUBLE;
  t[2] = H5T_NATIVE_FLOAT;
  t[3] = H5T_NATIVE_LLONG;
  t[4] = H5T_NATIVE_UCHAR;
  t[5] = H5T_NATIVE_SHORT;
  return t;
}

/* A dataset `name` near shape [rows][cols]: rank, shape, type, storage and
 * values from the input. Values are written only when small (<= 4096);
 * larger extents are chunked and never written (no storage). */
static void h5b_dataset(hid_t f, h5b_in *in, const char *name, long long rows, long long cols) {
  unsigned what = h5b_byte(in);
  if (what % 16 == 15) return; /* absent */
  int rank = what % 16 == 14 ? 3 : what % 16 == 13 ? 0 : (cols == 1 && what % 3 == 0) ? 1 : 2;
  hsize_t dims[3] = {(hsize_t)(rows < 0 ? 0 : rows), (hsize_t)(cols < 0 ? 0 : cols), 2};
  if (what & 0x40) dims[0] = (hsize_t)h5b_count(in, rows);
  if (what & 0x80) dims[1] = (hsize_t)h5b_count(in, cols);
  hid_t type = h5b_types()[h5b_byte(in) % 6];
  hsize_t total = 1;
  for (int i = 0; i < rank; i++) total = dims[i] && total > ((hsize_t)1 << 62) / dims[i] ? ((hsize_t)1 << 62) : total * dims[i];
  hid_t sp = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
  if (sp < 0) return;
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  int write = total <= 4096;
  if (!write && rank > 0) {
    hsize_t chunk[3] = {1, 1, 1};
    H5Pset_chunk(dcpl, rank, chunk);
  }
  hid_t d = H5Dcreate2(f, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (d >= 0 && write && total) {
    size_t es = H5Tget_size(type);
    static unsigned char buf[4096 * 8];
    for (size_t i = 0; i < (size_t)total * es; i++) buf[i] = (unsigned char)h5b_byte(in);
    if (type == H5T_NATIVE_INT) /* mostly small indices, so that maps are often valid */
      for (size_t i = 0; i < (size_t)total; i++) {
        int v;
        memcpy(&v, buf + 4 * i, 4);
        if ((v & 0x70000000) != 0x70000000) v = (v & 0xff) % (int)(rows > 0 && rows < 255 ? rows + 1 : 8);
        memcpy(buf + 4 * i, &v, 4);
      }
    if (type == H5T_NATIVE_DOUBLE)
      for (size_t i = 0; i < (size_t)total; i++) {
        double v = (double)(int8_t)buf[8 * i] * 0.25;
        if (buf[8 * i + 1] == 0xff) memcpy(&v, buf + 8 * i, 8); /* any bits, NaN and inf included */
        memcpy(buf + 8 * i, &v, 8);
      }
    H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  }
  if (d >= 0) H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(sp);
}

/* A scalar-shaped set size dataset (OP2: int of shape [1]). Inline, as the two attribute helpers: a harness
 * that does not use one is not warned about it (-Wunused-function). */
static inline void h5b_set(hid_t f, h5b_in *in, const char *name, long long *size) {
  long long v = h5b_count(in, 6);
  *size = v;
  unsigned how = h5b_byte(in);
  if (how % 16 == 15) return;
  hsize_t one = how % 16 == 14 ? 2 : 1;
  hid_t sp = H5Screate_simple(1, &one, NULL);
  hid_t type = how % 16 == 13 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_LLONG;
  hid_t d = H5Dcreate2(f, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  double dv[2] = {(double)v, (double)v};
  long long lv[2] = {v, v};
  if (d >= 0) H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, type == H5T_NATIVE_DOUBLE ? (void *)dv : (void *)lv);
  if (d >= 0) H5Dclose(d);
  H5Sclose(sp);
}

static inline void h5b_attr_str(hid_t loc, const char *name, const char *v) {
  hid_t sp = H5Screate(H5S_SCALAR), t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, strlen(v) ? strlen(v) : 1);
  hid_t a = H5Acreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
  if (a >= 0) H5Awrite(a, t, v), H5Aclose(a);
  H5Tclose(t);
  H5Sclose(sp);
}

static inline void h5b_attr_int(hid_t loc, const char *name, int v) {
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(loc, name, H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT);
  if (a >= 0) H5Awrite(a, H5T_NATIVE_INT, &v), H5Aclose(a);
  H5Sclose(sp);
}

/* A per-process file name for the harness's file. */
static const char *h5b_path(const char *tag) {
  static char path[96];
  snprintf(path, sizeof path, "/tmp/um_fuzz_%s_%ld.h5", tag, (long)getpid());
  return path;
}

static hid_t h5b_create(const char *path) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  return H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
}

#endif
