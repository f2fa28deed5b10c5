// Tests of HDF5 mesh I/O in OP2's layout (um/hdf5io.h) and the XDMF writer.
#include <gtest/gtest.h>

#include <hdf5.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "um/hdf5io.h"
#include "um/um.h"
}

namespace fs = std::filesystem;

namespace {

// ---- raw HDF5 helpers: write files exactly as OP2's op_hdf5.cpp does --------

void op2_int_attr(hid_t d, const char *name, int v) {
  hsize_t one = 1;
  hid_t sp = H5Screate_simple(1, &one, NULL);
  hid_t a = H5Acreate2(d, name, H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_INT, &v);
  H5Aclose(a);
  H5Sclose(sp);
}

// OP2: scalar H5T_C_S1 of size `size` (maps: 10, dats/consts: strlen(type)).
void op2_str_attr(hid_t d, const char *name, const char *s, size_t size) {
  std::vector<char> buf(size + 1, '\0');
  std::strncpy(buf.data(), s, size);
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, size);
  hid_t a = H5Acreate2(d, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, t, buf.data());
  H5Aclose(a);
  H5Tclose(t);
  H5Sclose(sp);
}

hid_t make_dataset(hid_t f, const char *name, hid_t type, int rank, const hsize_t *dims, const void *data) {
  hid_t sp = H5Screate_simple(rank, dims, NULL);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  hid_t d = H5Dcreate2(f, name, type, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  EXPECT_GE(d, 0) << name;
  hsize_t n = 1;
  for (int i = 0; i < rank; i++) n *= dims[i];
  if (n) {
    EXPECT_GE(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0) << name;
  }
  H5Pclose(lcpl);
  H5Sclose(sp);
  return d;
}

void op2_set(hid_t f, const char *name, int size) {  // op_dump_to_hdf5: int [1]
  hsize_t dims[1] = {1};
  H5Dclose(make_dataset(f, name, H5T_NATIVE_INT, 1, dims, &size));
}

template <typename T>
void op2_map(hid_t f, const char *name, hid_t type, const char *typestr, int rows, int arity, const std::vector<T> &v) {
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)arity};
  hid_t d = make_dataset(f, name, type, 2, dims, v.data());
  op2_int_attr(d, "size", rows);
  op2_int_attr(d, "dim", arity);
  op2_str_attr(d, "type", typestr, 10);
  H5Dclose(d);
}

template <typename T>
void op2_dat(hid_t f, const char *name, hid_t type, const char *typestr, int rows, int dim, const std::vector<T> &v) {
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)dim};
  hid_t d = make_dataset(f, name, type, 2, dims, v.data());
  op2_int_attr(d, "size", dim * (int)sizeof(T));  // OP2's op_dat->size: bytes per element
  op2_int_attr(d, "dim", dim);
  op2_str_attr(d, "type", typestr, std::strlen(typestr));
  H5Dclose(d);
}

template <typename T>
void op2_const(hid_t f, const char *name, hid_t type, const char *typestr, const std::vector<T> &v) {
  hsize_t dims[1] = {(hsize_t)v.size()};
  hid_t d = make_dataset(f, name, type, 1, dims, v.data());
  op2_int_attr(d, "dim", (int)v.size());
  op2_str_attr(d, "type", typestr, std::strlen(typestr));
  H5Dclose(d);
}

int read_int_attr(hid_t d, const char *name) {
  int v = -12345;
  hid_t a = H5Aopen(d, name, H5P_DEFAULT);
  EXPECT_GE(a, 0) << name;
  if (a >= 0) {
    H5Aread(a, H5T_NATIVE_INT, &v);
    H5Aclose(a);
  }
  return v;
}

std::string read_str_attr(hid_t d, const char *name, size_t *stored_size = nullptr) {
  hid_t a = H5Aopen(d, name, H5P_DEFAULT);
  EXPECT_GE(a, 0) << name;
  if (a < 0) return "";
  hid_t ft = H5Aget_type(a);
  EXPECT_EQ(H5Tget_class(ft), H5T_STRING);
  size_t sz = H5Tget_size(ft);
  if (stored_size) *stored_size = sz;
  hid_t mt = H5Tcopy(H5T_C_S1);
  H5Tset_size(mt, sz + 1);  // as OP2 reads it
  std::vector<char> buf(sz + 2, '\0');
  H5Aread(a, mt, buf.data());
  H5Tclose(mt);
  H5Tclose(ft);
  H5Aclose(a);
  return std::string(buf.data());
}

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---- fixture: a fresh context and a scratch folder per test ------------------

class Hdf5Test : public ::testing::Test {
 protected:
  um_context *ctx = nullptr;
  std::string dir;
  ssize_t open_at_start = 0;

  void SetUp() override {
    um_options o;
    um_options_default(&o);
    o.backend = "seq";
    open_at_start = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << (ctx ? um_error_message(ctx) : "");
    char tmpl[] = "/tmp/um_hdf5_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
  }
  void TearDown() override {
    // every HDF5 handle opened by the library (and by these tests) was closed
    EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), open_at_start);
    um_finalize(&ctx);
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string path(const char *name) const { return dir + "/" + name; }
  std::string msg() const { return um_error_message(ctx); }

  // A fresh context for reading back what this test wrote.
  um_context *fresh() {
    um_options o;
    um_options_default(&o);
    o.backend = "seq";
    um_context *c = nullptr;
    EXPECT_EQ(um_init(&c, &o), UM_SUCCESS);
    return c;
  }

  // nodes(6) -- cells(2) quads; a small 2D mesh.
  void declare_small_mesh(um_set **nodes, um_set **cells, um_map **pcell) {
    ASSERT_EQ(um_decl_set(ctx, 6, "nodes", nodes), UM_SUCCESS) << msg();
    ASSERT_EQ(um_decl_set(ctx, 2, "cells", cells), UM_SUCCESS) << msg();
    const int cn[] = {0, 1, 4, 3, 1, 2, 5, 4};
    ASSERT_EQ(um_decl_map(ctx, *cells, *nodes, 4, cn, "pcell", pcell), UM_SUCCESS) << msg();
  }

  // An OP2-style file as op_dump_to_hdf5 + op_write_const_hdf5 write it.
  std::string make_op2_file() {
    std::string p = path("op2_grid.h5");
    hid_t f = H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    EXPECT_GE(f, 0);
    op2_set(f, "nodes", 6);
    op2_set(f, "edges", 3);
    op2_set(f, "cells", 2);
    op2_map<int>(f, "pcell", H5T_NATIVE_INT, "int", 2, 4, {0, 1, 4, 3, 1, 2, 5, 4});
    op2_map<int>(f, "pecell", H5T_NATIVE_INT, "int", 3, 2, {0, 1, 1, 0, 0, 1});
    // a map written by an OP2 built with 64-bit indices ("long")
    op2_map<long long>(f, "pedge", H5T_NATIVE_LLONG, "long", 3, 2, {0, 1, 1, 2, 4, 5});
    // OP2 allows dataset paths with groups
    op2_map<int>(f, "/group3/pedge_test", H5T_NATIVE_INT, "int", 3, 2, {0, 3, 1, 4, 2, 5});
    op2_dat<double>(f, "p_x", H5T_NATIVE_DOUBLE, "double", 6, 2,
                    {0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 1.0});
    op2_dat<double>(f, "p_q", H5T_NATIVE_DOUBLE, "double", 2, 4, {1, 2, 3, 4, 5, 6, 7, 8});
    op2_dat<int>(f, "p_bound", H5T_NATIVE_INT, "int", 3, 1, {1, 2, 1});
    op2_dat<float>(f, "p_adt", H5T_NATIVE_FLOAT, "float", 2, 1, {0.5f, 0.25f});
    op2_const<double>(f, "gam", H5T_NATIVE_DOUBLE, "double", {1.4});
    op2_const<double>(f, "qinf", H5T_NATIVE_DOUBLE, "double", {1.0, 0.47, 0.0, 2.6});
    op2_const<int>(f, "niter", H5T_NATIVE_INT, "int", {1000});
    EXPECT_GE(H5Fclose(f), 0);
    return p;
  }
};

// ---- round trips ----------------------------------------------------------------

TEST_F(Hdf5Test, RoundTripOfSetsMapsAndDatsOfEveryTypeAndDim) {
  um_set *nodes, *cells;
  um_map *pcell;
  declare_small_mesh(&nodes, &cells, &pcell);
  const um_type types[] = {UM_DOUBLE, UM_FLOAT, UM_INT};
  for (um_type t : types)
    for (int dim = 1; dim <= 4; dim++) {
      std::string name = std::string("d_") + um_type_name(t) + std::to_string(dim);
      std::vector<char> data(6 * dim * um_type_size(t));
      for (int i = 0; i < 6 * dim; i++) {
        if (t == UM_DOUBLE) ((double *)data.data())[i] = 0.1 * i + dim;
        if (t == UM_FLOAT) ((float *)data.data())[i] = 0.5f * i - dim;
        if (t == UM_INT) ((int *)data.data())[i] = 7 * i - 3 * dim;
      }
      um_dat *d;
      ASSERT_EQ(um_decl_dat(ctx, nodes, dim, t, data.data(), name.c_str(), &d), UM_SUCCESS) << msg();
    }
  std::string p = path("mesh.h5");
  ASSERT_EQ(um_hdf5_write_mesh(ctx, p.c_str()), UM_SUCCESS) << msg();
  EXPECT_TRUE(fs::exists(p));
  EXPECT_FALSE(fs::exists(p + ".tmp"));

  um_context *c2 = fresh();
  um_set *n2, *c2cells;
  ASSERT_EQ(um_hdf5_read_set(c2, p.c_str(), "nodes", &n2), UM_SUCCESS) << um_error_message(c2);
  ASSERT_EQ(um_hdf5_read_set(c2, p.c_str(), "cells", &c2cells), UM_SUCCESS) << um_error_message(c2);
  EXPECT_EQ(um_set_size(n2), 6);
  EXPECT_EQ(um_set_size(c2cells), 2);
  EXPECT_STREQ(um_set_name(n2), "nodes");
  um_map *m2;
  ASSERT_EQ(um_hdf5_read_map(c2, p.c_str(), c2cells, n2, "pcell", &m2), UM_SUCCESS) << um_error_message(c2);
  EXPECT_EQ(um_map_arity(m2), 4);
  EXPECT_EQ(0, std::memcmp(um_map_data(m2), um_map_data(pcell), 8 * sizeof(int)));
  for (int i = 0; i < um_dat_count(ctx); i++) {
    um_dat *src = um_dat_at(ctx, i);
    um_dat *back = nullptr;
    ASSERT_EQ(um_hdf5_read_dat(c2, p.c_str(), n2, um_dat_name(src), &back), UM_SUCCESS) << um_error_message(c2);
    EXPECT_EQ(um_dat_dim(back), um_dat_dim(src)) << um_dat_name(src);
    EXPECT_EQ(um_dat_type(back), um_dat_type(src)) << um_dat_name(src);
    size_t bytes = 6 * um_dat_dim(src) * um_type_size(um_dat_type(src));
    std::vector<char> a(bytes), b(bytes);
    ASSERT_EQ(um_dat_fetch(ctx, src, a.data(), bytes), UM_SUCCESS);
    ASSERT_EQ(um_dat_fetch(c2, back, b.data(), bytes), UM_SUCCESS);
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), bytes)) << um_dat_name(src);
  }
  // the _expect forms accept the right dim and type
  um_dat *chk;
  EXPECT_EQ(um_hdf5_read_dat_expect(c2, p.c_str(), n2, 3, UM_FLOAT, "d_float3", &chk),
            UM_ERR_ARG)  // already declared under that name in c2
      << um_error_message(c2);
  um_map *m3;
  EXPECT_EQ(um_hdf5_read_map_expect(c2, p.c_str(), c2cells, n2, 4, "pcell", &m3), UM_ERR_ARG);  // duplicate name
  um_finalize(&c2);

  um_context *c3 = fresh();
  um_set *n3;
  ASSERT_EQ(um_hdf5_read_set(c3, p.c_str(), "nodes", &n3), UM_SUCCESS);
  ASSERT_EQ(um_hdf5_read_dat_expect(c3, p.c_str(), n3, 3, UM_FLOAT, "d_float3", &chk), UM_SUCCESS)
      << um_error_message(c3);
  EXPECT_EQ(um_dat_dim(chk), 3);
  um_finalize(&c3);
}

TEST_F(Hdf5Test, EmptySetsMapsAndDatsRoundTrip) {
  um_set *nodes, *cells, *bedges;
  um_map *pcell, *pbedge;
  declare_small_mesh(&nodes, &cells, &pcell);
  ASSERT_EQ(um_decl_set(ctx, 0, "bedges", &bedges), UM_SUCCESS);
  ASSERT_EQ(um_decl_map(ctx, bedges, nodes, 2, nullptr, "pbedge", &pbedge), UM_SUCCESS) << msg();
  um_dat *d;
  ASSERT_EQ(um_decl_dat(ctx, bedges, 3, UM_INT, nullptr, "p_bound", &d), UM_SUCCESS) << msg();
  std::string p = path("empty.h5");
  ASSERT_EQ(um_hdf5_write_mesh(ctx, p.c_str()), UM_SUCCESS) << msg();
  um_context *c2 = fresh();
  um_set *n2, *b2;
  um_map *m2;
  um_dat *d2;
  ASSERT_EQ(um_hdf5_read_set(c2, p.c_str(), "nodes", &n2), UM_SUCCESS) << um_error_message(c2);
  ASSERT_EQ(um_hdf5_read_set(c2, p.c_str(), "bedges", &b2), UM_SUCCESS) << um_error_message(c2);
  EXPECT_EQ(um_set_size(b2), 0);
  ASSERT_EQ(um_hdf5_read_map_expect(c2, p.c_str(), b2, n2, 2, "pbedge", &m2), UM_SUCCESS) << um_error_message(c2);
  ASSERT_EQ(um_hdf5_read_dat_expect(c2, p.c_str(), b2, 3, UM_INT, "p_bound", &d2), UM_SUCCESS) << um_error_message(c2);
  EXPECT_EQ(um_map_arity(m2), 2);
  EXPECT_EQ(um_dat_dim(d2), 3);
  um_finalize(&c2);
}

TEST_F(Hdf5Test, SoaDatIsWrittenInAosOrder) {
  um_set *nodes, *cells;
  um_map *pcell;
  declare_small_mesh(&nodes, &cells, &pcell);
  std::vector<double> x(12);
  for (int i = 0; i < 12; i++) x[i] = i;
  um_dat *d;
  ASSERT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, x.data(), "p_x", &d), UM_SUCCESS);
  ASSERT_EQ(um_dat_set_layout(ctx, d, UM_SOA), UM_SUCCESS) << msg();
  std::string p = path("soa.h5");
  ASSERT_EQ(um_hdf5_write_dat(ctx, p.c_str(), d), UM_SUCCESS) << msg();
  hid_t f = H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  std::vector<double> back(12, -1);
  hid_t ds = H5Dopen2(f, "p_x", H5P_DEFAULT);
  ASSERT_GE(ds, 0);
  H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, back.data());
  H5Dclose(ds);
  H5Fclose(f);
  EXPECT_EQ(back, x);
}

TEST_F(Hdf5Test, SingleWritesAddToAFileAndReplaceADatasetOfTheSameName) {
  um_set *nodes, *cells;
  um_map *pcell;
  declare_small_mesh(&nodes, &cells, &pcell);
  std::vector<float> q(2 * 3, 1.5f);
  um_dat *d;
  ASSERT_EQ(um_decl_dat(ctx, cells, 3, UM_FLOAT, q.data(), "q", &d), UM_SUCCESS);
  std::string p = path("parts.h5");
  ASSERT_EQ(um_hdf5_write_set(ctx, p.c_str(), nodes), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_write_set(ctx, p.c_str(), cells), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_write_map(ctx, p.c_str(), pcell), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_write_dat(ctx, p.c_str(), d), UM_SUCCESS) << msg();
  // change q and write it again: the dataset is replaced
  for (auto &v : q) v = -2.25f;
  ASSERT_EQ(um_dat_update(ctx, d, q.data(), q.size() * sizeof(float)), UM_SUCCESS);
  ASSERT_EQ(um_hdf5_write_dat(ctx, p.c_str(), d), UM_SUCCESS) << msg();
  const double mach = 0.4;
  ASSERT_EQ(um_hdf5_write_const(ctx, p.c_str(), "mach", 1, UM_DOUBLE, &mach), UM_SUCCESS) << msg();
  EXPECT_FALSE(fs::exists(p + ".tmp"));

  um_context *c2 = fresh();
  um_set *n2, *cl2;
  um_map *m2;
  um_dat *q2;
  ASSERT_EQ(um_hdf5_read_set(c2, p.c_str(), "nodes", &n2), UM_SUCCESS) << um_error_message(c2);
  ASSERT_EQ(um_hdf5_read_set(c2, p.c_str(), "cells", &cl2), UM_SUCCESS) << um_error_message(c2);
  ASSERT_EQ(um_hdf5_read_map(c2, p.c_str(), cl2, n2, "pcell", &m2), UM_SUCCESS) << um_error_message(c2);
  ASSERT_EQ(um_hdf5_read_dat_expect(c2, p.c_str(), cl2, 3, UM_FLOAT, "q", &q2), UM_SUCCESS) << um_error_message(c2);
  std::vector<float> back(6);
  ASSERT_EQ(um_dat_fetch(c2, q2, back.data(), 6 * sizeof(float)), UM_SUCCESS);
  EXPECT_EQ(back, q);
  double m = 0;
  ASSERT_EQ(um_hdf5_read_const(c2, p.c_str(), "mach", 1, UM_DOUBLE, &m), UM_SUCCESS) << um_error_message(c2);
  EXPECT_EQ(m, mach);
  um_finalize(&c2);
}

TEST_F(Hdf5Test, ConstantsRoundTrip) {
  std::string p = path("consts.h5");
  const double qinf[4] = {1.0, 0.4732, 0.0, 2.6123};
  const float cfl = 0.9f;
  const int iters[3] = {1000, -5, 7};
  ASSERT_EQ(um_hdf5_write_const(ctx, p.c_str(), "qinf", 4, UM_DOUBLE, qinf), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_write_const(ctx, p.c_str(), "cfl", 1, UM_FLOAT, &cfl), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_write_const(ctx, p.c_str(), "iters", 3, UM_INT, iters), UM_SUCCESS) << msg();
  double q[4] = {0};
  float c = 0;
  int it[3] = {0};
  ASSERT_EQ(um_hdf5_read_const(ctx, p.c_str(), "qinf", 4, UM_DOUBLE, q), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_read_const(ctx, p.c_str(), "cfl", 1, UM_FLOAT, &c), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_read_const(ctx, p.c_str(), "iters", 3, UM_INT, it), UM_SUCCESS) << msg();
  EXPECT_EQ(0, std::memcmp(q, qinf, sizeof q));
  EXPECT_EQ(c, cfl);
  EXPECT_EQ(0, std::memcmp(it, iters, sizeof it));
  EXPECT_FALSE(fs::exists(p + ".tmp"));
}

// ---- OP2 compatibility -------------------------------------------------------------

TEST_F(Hdf5Test, ReadsAFileWrittenInOp2sLayout) {
  std::string p = make_op2_file();
  um_set *nodes, *edges, *cells;
  ASSERT_EQ(um_hdf5_read_set(ctx, p.c_str(), "nodes", &nodes), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_read_set(ctx, p.c_str(), "edges", &edges), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_read_set(ctx, p.c_str(), "cells", &cells), UM_SUCCESS) << msg();
  EXPECT_EQ(um_set_size(nodes), 6);
  EXPECT_EQ(um_set_size(edges), 3);
  EXPECT_EQ(um_set_size(cells), 2);

  um_map *pcell, *pecell, *pedge, *ptest;
  ASSERT_EQ(um_hdf5_read_map_expect(ctx, p.c_str(), cells, nodes, 4, "pcell", &pcell), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_read_map(ctx, p.c_str(), edges, cells, "pecell", &pecell), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_read_map_expect(ctx, p.c_str(), edges, nodes, 2, "pedge", &pedge), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_read_map(ctx, p.c_str(), edges, nodes, "/group3/pedge_test", &ptest), UM_SUCCESS) << msg();
  const int want_pcell[] = {0, 1, 4, 3, 1, 2, 5, 4};
  const int want_pedge[] = {0, 1, 1, 2, 4, 5};
  EXPECT_EQ(0, std::memcmp(um_map_data(pcell), want_pcell, sizeof want_pcell));
  EXPECT_EQ(0, std::memcmp(um_map_data(pedge), want_pedge, sizeof want_pedge));  // 64-bit ints converted
  EXPECT_EQ(um_map_arity(pecell), 2);
  EXPECT_EQ(um_map_data(ptest)[1], 3);

  um_dat *px, *pq, *pb, *padt;
  ASSERT_EQ(um_hdf5_read_dat_expect(ctx, p.c_str(), nodes, 2, UM_DOUBLE, "p_x", &px), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_read_dat_expect(ctx, p.c_str(), cells, 4, UM_DOUBLE, "p_q", &pq), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_read_dat(ctx, p.c_str(), edges, "p_bound", &pb), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_read_dat(ctx, p.c_str(), cells, "p_adt", &padt), UM_SUCCESS) << msg();
  EXPECT_EQ(um_dat_type(pb), UM_INT);
  EXPECT_EQ(um_dat_type(padt), UM_FLOAT);
  EXPECT_EQ(um_dat_dim(pb), 1);
  double x[12];
  ASSERT_EQ(um_dat_fetch(ctx, px, x, sizeof x), UM_SUCCESS);
  EXPECT_EQ(x[10], 2.0);
  EXPECT_EQ(x[11], 1.0);
  double q[8];
  ASSERT_EQ(um_dat_fetch(ctx, pq, q, sizeof q), UM_SUCCESS);
  EXPECT_EQ(q[7], 8.0);
  int b[3];
  ASSERT_EQ(um_dat_fetch(ctx, pb, b, sizeof b), UM_SUCCESS);
  EXPECT_EQ(b[1], 2);

  double gam = 0, qinf[4] = {0};
  int niter = 0;
  ASSERT_EQ(um_hdf5_read_const(ctx, p.c_str(), "gam", 1, UM_DOUBLE, &gam), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_read_const(ctx, p.c_str(), "qinf", 4, UM_DOUBLE, qinf), UM_SUCCESS) << msg();
  ASSERT_EQ(um_hdf5_read_const(ctx, p.c_str(), "niter", 1, UM_INT, &niter), UM_SUCCESS) << msg();
  EXPECT_EQ(gam, 1.4);
  EXPECT_EQ(qinf[1], 0.47);
  EXPECT_EQ(niter, 1000);
}

TEST_F(Hdf5Test, WritesOp2sLayoutAndAttributes) {
  um_set *nodes, *cells;
  um_map *pcell;
  declare_small_mesh(&nodes, &cells, &pcell);
  std::vector<double> x(12, 0.5);
  um_dat *px;
  ASSERT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, x.data(), "p_x", &px), UM_SUCCESS);
  std::vector<float> r(2 * 4, 1.0f);
  um_dat *pr;
  ASSERT_EQ(um_decl_dat(ctx, cells, 4, UM_FLOAT, r.data(), "p_res", &pr), UM_SUCCESS);
  std::string p = path("op2_out.h5");
  ASSERT_EQ(um_hdf5_write_mesh(ctx, p.c_str()), UM_SUCCESS) << msg();
  const double qinf[4] = {1, 2, 3, 4};
  ASSERT_EQ(um_hdf5_write_const(ctx, p.c_str(), "qinf", 4, UM_DOUBLE, qinf), UM_SUCCESS) << msg();

  hid_t f = H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  auto shape = [](hid_t d, std::vector<hsize_t> &dims) {
    hid_t sp = H5Dget_space(d);
    int r = H5Sget_simple_extent_ndims(sp);
    dims.assign(r, 0);
    H5Sget_simple_extent_dims(sp, dims.data(), NULL);
    H5Sclose(sp);
  };
  auto type_is = [](hid_t d, hid_t native) {
    hid_t t = H5Dget_type(d);
    bool eq = H5Tequal(t, native) > 0;
    H5Tclose(t);
    return eq;
  };
  std::vector<hsize_t> dims;
  // set: int [1] holding the size
  hid_t d = H5Dopen2(f, "nodes", H5P_DEFAULT);
  ASSERT_GE(d, 0);
  shape(d, dims);
  EXPECT_EQ(dims, std::vector<hsize_t>({1}));
  EXPECT_TRUE(type_is(d, H5T_NATIVE_INT));
  int n = 0;
  H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &n);
  EXPECT_EQ(n, 6);
  H5Dclose(d);
  // map: int [from][arity], size/dim int attrs, type string of 10 bytes "int"
  d = H5Dopen2(f, "pcell", H5P_DEFAULT);
  ASSERT_GE(d, 0);
  shape(d, dims);
  EXPECT_EQ(dims, std::vector<hsize_t>({2, 4}));
  EXPECT_TRUE(type_is(d, H5T_NATIVE_INT));
  EXPECT_EQ(read_int_attr(d, "size"), 2);
  EXPECT_EQ(read_int_attr(d, "dim"), 4);
  size_t tsz = 0;
  EXPECT_EQ(read_str_attr(d, "type", &tsz), "int");
  EXPECT_EQ(tsz, 10u);
  H5Dclose(d);
  // dat: [size][dim], size = dim*sizeof(type) (bytes per element), dim, type
  d = H5Dopen2(f, "p_x", H5P_DEFAULT);
  ASSERT_GE(d, 0);
  shape(d, dims);
  EXPECT_EQ(dims, std::vector<hsize_t>({6, 2}));
  EXPECT_TRUE(type_is(d, H5T_NATIVE_DOUBLE));
  EXPECT_EQ(read_int_attr(d, "size"), 16);
  EXPECT_EQ(read_int_attr(d, "dim"), 2);
  EXPECT_EQ(read_str_attr(d, "type"), "double");
  H5Dclose(d);
  d = H5Dopen2(f, "p_res", H5P_DEFAULT);
  ASSERT_GE(d, 0);
  EXPECT_TRUE(type_is(d, H5T_NATIVE_FLOAT));
  EXPECT_EQ(read_int_attr(d, "size"), 16);
  EXPECT_EQ(read_str_attr(d, "type"), "float");
  H5Dclose(d);
  // const: [dim], dim attr, type attr
  d = H5Dopen2(f, "qinf", H5P_DEFAULT);
  ASSERT_GE(d, 0);
  shape(d, dims);
  EXPECT_EQ(dims, std::vector<hsize_t>({4}));
  EXPECT_EQ(read_int_attr(d, "dim"), 4);
  EXPECT_EQ(read_str_attr(d, "type"), "double");
  H5Dclose(d);
  H5Fclose(f);
}

// ---- errors ---------------------------------------------------------------------------

TEST_F(Hdf5Test, MissingFileIsAnIoErrorNamingFileAndDataset) {
  std::string p = path("no_such_mesh.h5");
  um_set *s = reinterpret_cast<um_set *>(0x1);
  testing::internal::CaptureStderr();
  int rc = um_hdf5_read_set(ctx, p.c_str(), "nodes", &s);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, UM_ERR_IO);
  EXPECT_EQ(s, nullptr);
  EXPECT_NE(msg().find("no_such_mesh.h5"), std::string::npos) << msg();
  EXPECT_NE(msg().find("'nodes'"), std::string::npos) << msg();
  EXPECT_NE(msg().find("not found"), std::string::npos) << msg();
  EXPECT_EQ(err, "");
  double v;
  EXPECT_EQ(um_hdf5_read_const(ctx, p.c_str(), "gam", 1, UM_DOUBLE, &v), UM_ERR_IO);
  EXPECT_NE(msg().find("'gam'"), std::string::npos) << msg();
}

TEST_F(Hdf5Test, MissingDatasetIsAnIoErrorListingWhatTheFileHolds) {
  std::string p = make_op2_file();
  um_set *nodes;
  ASSERT_EQ(um_hdf5_read_set(ctx, p.c_str(), "nodes", &nodes), UM_SUCCESS);
  um_dat *d = reinterpret_cast<um_dat *>(0x1);
  testing::internal::CaptureStderr();
  int rc = um_hdf5_read_dat(ctx, p.c_str(), nodes, "p_xyz", &d);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, UM_ERR_IO);
  EXPECT_EQ(d, nullptr);
  EXPECT_NE(msg().find("'p_xyz'"), std::string::npos) << msg();
  EXPECT_NE(msg().find("op2_grid.h5"), std::string::npos) << msg();
  EXPECT_NE(msg().find("p_x"), std::string::npos) << msg();  // listed as present
  EXPECT_EQ(err, "") << "HDF5 printed its error stack";
  // in a group that does not exist
  um_set *s;
  EXPECT_EQ(um_hdf5_read_set(ctx, p.c_str(), "/nogroup/cells", &s), UM_ERR_IO);
  EXPECT_NE(msg().find("'/nogroup/cells'"), std::string::npos) << msg();
}

TEST_F(Hdf5Test, WrongSizesAreRejectedWithTheDatasetName) {
  std::string p = make_op2_file();
  um_set *nodes, *cells, *other;
  ASSERT_EQ(um_hdf5_read_set(ctx, p.c_str(), "nodes", &nodes), UM_SUCCESS);
  ASSERT_EQ(um_hdf5_read_set(ctx, p.c_str(), "cells", &cells), UM_SUCCESS);
  ASSERT_EQ(um_decl_set(ctx, 5, "other", &other), UM_SUCCESS);
  um_map *m = reinterpret_cast<um_map *>(0x1);
  // map rows != from-set size
  EXPECT_EQ(um_hdf5_read_map(ctx, p.c_str(), other, nodes, "pcell", &m), UM_ERR_IO);
  EXPECT_EQ(m, nullptr);
  EXPECT_NE(msg().find("'pcell'"), std::string::npos) << msg();
  EXPECT_NE(msg().find("2 rows"), std::string::npos) << msg();
  EXPECT_NE(msg().find("'other'"), std::string::npos) << msg();
  // arity differs from the requested one
  EXPECT_EQ(um_hdf5_read_map_expect(ctx, p.c_str(), cells, nodes, 3, "pcell", &m), UM_ERR_IO);
  EXPECT_NE(msg().find("'pcell'"), std::string::npos) << msg();
  EXPECT_NE(msg().find("4 columns"), std::string::npos) << msg();
  // entries beyond the to-set
  EXPECT_EQ(um_hdf5_read_map(ctx, p.c_str(), cells, cells, "pcell", &m), UM_ERR_IO);
  EXPECT_NE(msg().find("'pcell'"), std::string::npos) << msg();
  EXPECT_NE(msg().find("outside"), std::string::npos) << msg();
  // dat rows != set size
  um_dat *d = reinterpret_cast<um_dat *>(0x1);
  EXPECT_EQ(um_hdf5_read_dat(ctx, p.c_str(), cells, "p_x", &d), UM_ERR_IO);
  EXPECT_EQ(d, nullptr);
  EXPECT_NE(msg().find("'p_x'"), std::string::npos) << msg();
  EXPECT_NE(msg().find("6 rows"), std::string::npos) << msg();
  // dat dim != requested dim
  EXPECT_EQ(um_hdf5_read_dat_expect(ctx, p.c_str(), cells, 2, UM_DOUBLE, "p_q", &d), UM_ERR_IO);
  EXPECT_NE(msg().find("'p_q'"), std::string::npos) << msg();
  EXPECT_NE(msg().find("4 columns but dim 2"), std::string::npos) << msg();
  // constant with another dim
  double q[2];
  EXPECT_EQ(um_hdf5_read_const(ctx, p.c_str(), "qinf", 2, UM_DOUBLE, q), UM_ERR_IO);
  EXPECT_NE(msg().find("'qinf'"), std::string::npos) << msg();
  // reading a map as a set
  um_set *s = reinterpret_cast<um_set *>(0x1);
  EXPECT_EQ(um_hdf5_read_set(ctx, p.c_str(), "pcell", &s), UM_ERR_IO);
  EXPECT_EQ(s, nullptr);
  EXPECT_NE(msg().find("'pcell'"), std::string::npos) << msg();
  // nothing was declared by the failed reads
  EXPECT_EQ(um_map_count(ctx), 0);
  EXPECT_EQ(um_dat_count(ctx), 0);
  EXPECT_EQ(um_set_count(ctx), 3);
}

TEST_F(Hdf5Test, WrongTypesAreRejectedWithTheDatasetName) {
  std::string p = make_op2_file();
  {  // add oddities: a double map, a string dataset, a too-large 64-bit int dat
    hid_t f = H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    op2_map<double>(f, "pbad", H5T_NATIVE_DOUBLE, "double", 2, 1, {0.0, 1.0});
    op2_dat<long long>(f, "p_big", H5T_NATIVE_LLONG, "long long", 2, 1, {1, 5000000000LL});
    hsize_t one[1] = {2};
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, 4);
    H5Dclose(make_dataset(f, "p_str", st, 1, one, "abcdefgh"));
    H5Tclose(st);
    H5Fclose(f);
  }
  um_set *nodes, *cells;
  ASSERT_EQ(um_hdf5_read_set(ctx, p.c_str(), "nodes", &nodes), UM_SUCCESS);
  ASSERT_EQ(um_hdf5_read_set(ctx, p.c_str(), "cells", &cells), UM_SUCCESS);
  um_dat *d = reinterpret_cast<um_dat *>(0x1);
  testing::internal::CaptureStderr();
  // file double read as float
  EXPECT_EQ(um_hdf5_read_dat_expect(ctx, p.c_str(), cells, 4, UM_FLOAT, "p_q", &d), UM_ERR_IO);
  EXPECT_EQ(d, nullptr);
  EXPECT_NE(msg().find("'p_q'"), std::string::npos) << msg();
  EXPECT_NE(msg().find("64-bit float"), std::string::npos) << msg();
  EXPECT_NE(msg().find("UM_DOUBLE"), std::string::npos) << msg();  // the hint
  // file float read as double
  EXPECT_EQ(um_hdf5_read_dat_expect(ctx, p.c_str(), cells, 1, UM_DOUBLE, "p_adt", &d), UM_ERR_IO);
  EXPECT_NE(msg().find("'p_adt'"), std::string::npos) << msg();
  // file double read as int
  EXPECT_EQ(um_hdf5_read_dat_expect(ctx, p.c_str(), nodes, 2, UM_INT, "p_x", &d), UM_ERR_IO);
  EXPECT_NE(msg().find("'p_x'"), std::string::npos) << msg();
  // constant of another type
  int gi;
  EXPECT_EQ(um_hdf5_read_const(ctx, p.c_str(), "gam", 1, UM_INT, &gi), UM_ERR_IO);
  EXPECT_NE(msg().find("'gam'"), std::string::npos) << msg();
  // map stored as floating point
  um_map *m = reinterpret_cast<um_map *>(0x1);
  EXPECT_EQ(um_hdf5_read_map(ctx, p.c_str(), cells, nodes, "pbad", &m), UM_ERR_IO);
  EXPECT_EQ(m, nullptr);
  EXPECT_NE(msg().find("'pbad'"), std::string::npos) << msg();
  // strings are not dats
  EXPECT_EQ(um_hdf5_read_dat(ctx, p.c_str(), cells, "p_str", &d), UM_ERR_IO);
  EXPECT_NE(msg().find("'p_str'"), std::string::npos) << msg();
  EXPECT_NE(msg().find("string"), std::string::npos) << msg();
  // 64-bit integers that do not fit an int
  EXPECT_EQ(um_hdf5_read_dat(ctx, p.c_str(), cells, "p_big", &d), UM_ERR_IO);
  EXPECT_NE(msg().find("'p_big'"), std::string::npos) << msg();
  EXPECT_NE(msg().find("5000000000"), std::string::npos) << msg();
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "");
  EXPECT_EQ(um_dat_count(ctx), 0);
}

TEST_F(Hdf5Test, NotAnHdf5FileIsAnIoError) {
  std::string p = path("mesh.dat");
  std::ofstream(p) << "this is the old ASCII new_grid.dat\n";
  um_set *s;
  EXPECT_EQ(um_hdf5_read_set(ctx, p.c_str(), "nodes", &s), UM_ERR_IO);
  EXPECT_NE(msg().find("not an HDF5 file"), std::string::npos) << msg();
  EXPECT_NE(msg().find("'nodes'"), std::string::npos) << msg();
  // and writing into it refuses rather than clobbering it
  um_set *nodes;
  ASSERT_EQ(um_decl_set(ctx, 3, "nodes", &nodes), UM_SUCCESS);
  EXPECT_EQ(um_hdf5_write_set(ctx, p.c_str(), nodes), UM_ERR_IO);
  EXPECT_NE(msg().find("'nodes'"), std::string::npos) << msg();
  EXPECT_EQ(slurp(p), "this is the old ASCII new_grid.dat\n");
  EXPECT_FALSE(fs::exists(p + ".tmp"));
}

TEST_F(Hdf5Test, HdfErrorTextReachesTheMessageAndAutoPrintingIsRestored) {
  H5E_auto2_t f0 = nullptr;
  void *d0 = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &f0, &d0);
  um_set *nodes;
  ASSERT_EQ(um_decl_set(ctx, 3, "nodes", &nodes), UM_SUCCESS);
  std::string p = dir + "/no_such_folder/out.h5";
  testing::internal::CaptureStderr();
  EXPECT_EQ(um_hdf5_write_set(ctx, p.c_str(), nodes), UM_ERR_IO);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "");
  EXPECT_NE(msg().find("'nodes'"), std::string::npos) << msg();
  // the system's reason, not a guess (issue 15: "check that the folder exists and is writable" for every cause)
  EXPECT_NE(msg().find("the folder does not exist"), std::string::npos) << msg();
  EXPECT_NE(msg().find("out.h5"), std::string::npos) << msg();
  EXPECT_FALSE(fs::exists(p));
  EXPECT_FALSE(fs::exists(p + ".tmp"));
  H5E_auto2_t f1 = nullptr;
  void *d1 = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &f1, &d1);
  EXPECT_EQ(f0, f1);
  EXPECT_EQ(d0, d1);
}

TEST_F(Hdf5Test, FailedMeshWriteLeavesTheOldFileAndNoTmp) {
  um_set *nodes, *cells;
  um_map *pcell;
  declare_small_mesh(&nodes, &cells, &pcell);
  std::string p = path("mesh.h5");
  ASSERT_EQ(um_hdf5_write_mesh(ctx, p.c_str()), UM_SUCCESS) << msg();
  auto before = fs::file_size(p);
  std::string old = slurp(p);
  // a dat named like a set: both would be dataset "cells" -> the dump fails
  um_dat *clash;
  ASSERT_EQ(um_decl_dat(ctx, nodes, 1, UM_DOUBLE, nullptr, "cells", &clash), UM_SUCCESS) << msg();
  EXPECT_EQ(um_hdf5_write_mesh(ctx, p.c_str()), UM_ERR_ARG);
  EXPECT_NE(msg().find("'cells'"), std::string::npos) << msg();
  EXPECT_FALSE(fs::exists(p + ".tmp"));
  ASSERT_TRUE(fs::exists(p));
  EXPECT_EQ(fs::file_size(p), before);
  EXPECT_EQ(slurp(p), old);
  // the old file is still a readable mesh
  um_context *c2 = fresh();
  um_set *s;
  EXPECT_EQ(um_hdf5_read_set(c2, p.c_str(), "cells", &s), UM_SUCCESS) << um_error_message(c2);
  um_finalize(&c2);
}

TEST_F(Hdf5Test, BadArgumentsAreErrorsNotCrashes) {
  um_set *s;
  EXPECT_EQ(um_hdf5_read_set(ctx, nullptr, "nodes", &s), UM_ERR_ARG);
  EXPECT_EQ(um_hdf5_read_set(ctx, "x.h5", nullptr, &s), UM_ERR_ARG);
  EXPECT_EQ(um_hdf5_read_map(ctx, "x.h5", nullptr, nullptr, "m", nullptr), UM_ERR_ARG);
  EXPECT_EQ(um_hdf5_read_dat(ctx, "x.h5", nullptr, "d", nullptr), UM_ERR_ARG);
  EXPECT_EQ(um_hdf5_read_const(ctx, "x.h5", "c", 0, UM_DOUBLE, &s), UM_ERR_ARG);
  EXPECT_EQ(um_hdf5_write_set(ctx, nullptr, nullptr), UM_ERR_ARG);
  EXPECT_EQ(um_hdf5_write_const(ctx, "x.h5", "c", 1, UM_DOUBLE, nullptr), UM_ERR_ARG);
  EXPECT_EQ(um_hdf5_write_mesh(ctx, nullptr), UM_ERR_ARG);
}

// ---- XDMF ------------------------------------------------------------------------------

TEST_F(Hdf5Test, XdmfDescribesAWrittenMesh) {
  um_set *nodes, *cells;
  um_map *pcell;
  declare_small_mesh(&nodes, &cells, &pcell);
  std::vector<double> x = {0, 0, 1, 0, 2, 0, 0, 1, 1, 1, 2, 1};
  std::vector<double> q(8, 1.0);
  std::vector<float> p1(2, 3.0f);
  um_dat *d;
  ASSERT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, x.data(), "p_x", &d), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, cells, 4, UM_DOUBLE, q.data(), "p_q", &d), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, cells, 1, UM_FLOAT, p1.data(), "p_adt", &d), UM_SUCCESS);
  ASSERT_EQ(um_hdf5_write_mesh(ctx, path("out.h5").c_str()), UM_SUCCESS) << msg();
  const char *dats[] = {"p_q", "p_adt"};
  const int dims[] = {4, 1};
  char err[512] = "untouched";
  std::string xmf = path("out.xmf");
  ASSERT_EQ(um_xdmf_write(xmf.c_str(), "out.h5", "p_x", 6, 2, "pcell", 2, 4, dats, dims, 2, err, sizeof err),
            UM_SUCCESS)
      << err;
  EXPECT_STREQ(err, "");
  EXPECT_FALSE(fs::exists(xmf + ".tmp"));
  std::string t = slurp(xmf);
  EXPECT_NE(t.find("<Xdmf Version=\"2.0\">"), std::string::npos) << t;
  EXPECT_NE(t.find("TopologyType=\"Quadrilateral\" NumberOfElements=\"2\" NodesPerElement=\"4\""), std::string::npos)
      << t;
  EXPECT_NE(t.find("GeometryType=\"XY\""), std::string::npos) << t;
  EXPECT_NE(t.find("Dimensions=\"6 2\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">out.h5:/p_x<"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("Dimensions=\"2 4\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">out.h5:/pcell<"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("Name=\"p_q\" AttributeType=\"Matrix\" Center=\"Cell\""), std::string::npos) << t;
  EXPECT_NE(t.find("Name=\"p_adt\" AttributeType=\"Scalar\" Center=\"Cell\""), std::string::npos) << t;
  EXPECT_NE(t.find("Dimensions=\"2 1\" NumberType=\"Float\" Precision=\"4\" Format=\"HDF\">out.h5:/p_adt<"),
            std::string::npos)
      << t;

  // a name missing from the HDF5 file, and a shape that does not match it
  const char *bad[] = {"p_nothere"};
  const int one[] = {1};
  EXPECT_EQ(um_xdmf_write(xmf.c_str(), "out.h5", "p_x", 6, 2, "pcell", 2, 4, bad, one, 1, err, sizeof err), UM_ERR_IO);
  EXPECT_NE(std::string(err).find("'p_nothere'"), std::string::npos) << err;
  EXPECT_EQ(um_xdmf_write(xmf.c_str(), "out.h5", "p_x", 7, 2, "pcell", 2, 4, nullptr, nullptr, 0, err, sizeof err),
            UM_ERR_ARG);
  EXPECT_NE(std::string(err).find("'p_x'"), std::string::npos) << err;
  EXPECT_EQ(slurp(xmf), t);  // failed writes left the good file alone
}

TEST_F(Hdf5Test, XdmfTopologiesAndErrors) {
  char err[512];
  std::string xmf = path("t.xmf");
  // no HDF5 file next to it: defaults (Float 8, Int 4)
  ASSERT_EQ(um_xdmf_write(xmf.c_str(), "none.h5", "x", 8, 3, "hex", 1, 8, nullptr, nullptr, 0, err, sizeof err),
            UM_SUCCESS)
      << err;
  std::string t = slurp(xmf);
  EXPECT_NE(t.find("TopologyType=\"Hexahedron\""), std::string::npos) << t;
  EXPECT_NE(t.find("GeometryType=\"XYZ\""), std::string::npos) << t;
  ASSERT_EQ(um_xdmf_write(xmf.c_str(), "none.h5", "x", 3, 2, "tri", 1, 3, nullptr, nullptr, 0, err, sizeof err),
            UM_SUCCESS)
      << err;
  EXPECT_NE(slurp(xmf).find("TopologyType=\"Triangle\""), std::string::npos);
  const char *v[] = {"vel"};
  const int three[] = {3};
  ASSERT_EQ(um_xdmf_write(xmf.c_str(), "none.h5", "x", 4, 3, "tet", 1, 4, v, three, 1, err, sizeof err), UM_SUCCESS)
      << err;
  t = slurp(xmf);
  EXPECT_NE(t.find("TopologyType=\"Tetrahedron\""), std::string::npos) << t;
  EXPECT_NE(t.find("AttributeType=\"Vector\""), std::string::npos) << t;
  EXPECT_EQ(um_xdmf_write(xmf.c_str(), "none.h5", "x", 3, 2, "c", 1, 5, nullptr, nullptr, 0, err, sizeof err),
            UM_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(err).find("5 nodes"), std::string::npos) << err;
  EXPECT_EQ(um_xdmf_write(xmf.c_str(), "none.h5", "x", 3, 4, "c", 1, 3, nullptr, nullptr, 0, err, sizeof err),
            UM_ERR_UNSUPPORTED);
  EXPECT_EQ(um_xdmf_write(nullptr, "none.h5", "x", 3, 2, "c", 1, 3, nullptr, nullptr, 0, err, sizeof err), UM_ERR_ARG);
  EXPECT_EQ(um_xdmf_write((dir + "/nofolder/a.xmf").c_str(), "none.h5", "x", 3, 2, "c", 1, 3, nullptr, nullptr, 0, err,
                          sizeof err),
            UM_ERR_IO);
  EXPECT_NE(std::string(err).find("nofolder"), std::string::npos) << err;
}

}  // namespace
