// Distributed memory end to end, in one process per rank (run under mpirun -np 1..4 by ctest):
// every rank builds the same mesh twice, once in a context it keeps whole and once in a context
// distributed over the ranks, runs the same loops on both and compares what the app sees.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#define OMPI_SKIP_MPICXX 1  // the C API only (no C++ bindings to link)
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <unistd.h>

#include "airfoil.h"
#include "test_kernels.h"
#include "test_random_mesh.hpp"
#include "test_vec_workload.hpp"
#include "distributed/transport.h"  // the transport table: "shadow-peer" below, in um_options.extra_transports
#include "um/backend.h"
#include "um/hdf5io.h"
#include "um/um.h"

#include <sys/stat.h>
#include <unistd.h>
#include <string>

extern "C" const um_backend_def um_backend_seq;
extern "C" const um_kernel tk_split_signed_zero_kernel;

namespace {

// ---- a device in host memory: the halo path of device backends, checked without a GPU ----
// "shadow" keeps each dat's current copy in its own buffer (the "device"), runs loops with the
// seq backend on a copy it brings to the host, and then fills the host copy with 0xff bytes
// (NaN, -1): any code that reads a dat's host copy without asking the backend for it, or
// writes it and lets the device copy win, gives wrong answers. Halo rows move through its
// rows_out / rows_in / rows_zero, with host_alloc buffers, as on the CUDA backend.
struct ShadowState {
  long rows_out = 0, rows_in = 0, rows_zero = 0, uploads = 0;
  // the device transport ("shadow-peer"): MPI on a communicator of its own, messages matched in
  // posting order between two ranks (as NCCL's are), received only when the wait comes
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<MPI_Request> reqs;
  long posts = 0, waits = 0, msgs = 0, opens = 0;
  std::vector<long> allocs_at;       // posts made before each dev_alloc
  std::vector<long long> sent;       // per message: post, peer, send, bytes, tag
};
ShadowState shadow_last;  // the counts of the context finalized last

std::vector<char> &dev_of(um_dat *d) {
  auto *v = (std::vector<char> *)um_dat_backend_data(d);
  if (!v) {
    v = new std::vector<char>(um_dat_bytes(d));
    um_dat_set_backend_data(d, v);
  }
  return *v;
}
void upload(ShadowState *S, um_dat *d) {
  std::vector<char> &v = dev_of(d);
  if (um_dat_valid(d) & UM_VALID_DEVICE) return;
  memcpy(v.data(), um_dat_host_data(d), v.size());
  um_dat_set_valid(d, um_dat_valid(d) | UM_VALID_DEVICE);
  S->uploads++;
}
void device_only(um_dat *d) {
  memset(um_dat_host_data(d), 0xff, um_dat_bytes(d));
  um_dat_set_valid(d, UM_VALID_DEVICE);
}
// value c of row r in the device copy
char *at(um_dat *d, int r, int c) {
  const size_t es = um_type_size(um_dat_type(d)), dim = (size_t)um_dat_dim(d), rows = um_dat_bytes(d) / (dim * es);
  const size_t i = um_dat_storage_layout(d) == UM_SOA ? (size_t)c * rows + (size_t)r : (size_t)r * dim + (size_t)c;
  return dev_of(d).data() + i * es;
}

int shadow_init(um_context *, void **state) {
  *state = new ShadowState;
  return UM_SUCCESS;
}
void shadow_finalize(um_context *ctx, void *state) {
  auto *S = (ShadowState *)state;
  if (S->comm != MPI_COMM_NULL) MPI_Comm_free(&S->comm);
  S->reqs.clear();
  for (int i = 0; i < um_dat_count(ctx); i++) {
    um_dat *d = um_dat_at(ctx, i);
    delete (std::vector<char> *)um_dat_backend_data(d);
    um_dat_set_backend_data(d, nullptr);
  }
  shadow_last = *(ShadowState *)state;
  delete (ShadowState *)state;
}
int shadow_run(um_context *ctx, void *state, um_loop *loop) {
  std::vector<um_dat *> ds;
  for (int i = 0; i < loop->nargs; i++)
    if (loop->args[i].kind == UM_ARG_DAT && std::find(ds.begin(), ds.end(), loop->args[i].dat) == ds.end())
      ds.push_back(loop->args[i].dat);
  for (um_dat *d : ds) {
    upload((ShadowState *)state, d);
    memcpy(um_dat_host_data(d), dev_of(d).data(), um_dat_bytes(d));
  }
  const int rc = um_backend_seq.exec.run(ctx, nullptr, loop);
  for (um_dat *d : ds) {
    memcpy(dev_of(d).data(), um_dat_host_data(d), um_dat_bytes(d));
    device_only(d);
  }
  return rc;
}
int shadow_to_host(um_context *, void *, um_dat *d) {
  memcpy(um_dat_host_data(d), dev_of(d).data(), um_dat_bytes(d));
  return UM_SUCCESS;
}
int shadow_rows_out(um_context *, void *state, um_dat *d, const int *rows, int n, void *out) {
  upload((ShadowState *)state, d);
  const size_t es = um_type_size(um_dat_type(d));
  char *o = (char *)out;
  for (int k = 0; k < n; k++)
    for (int c = 0; c < um_dat_dim(d); c++, o += es) memcpy(o, at(d, rows[k], c), es);
  ((ShadowState *)state)->rows_out++;
  return UM_SUCCESS;
}
int shadow_rows_in(um_context *, void *state, um_dat *d, const int *rows, int n, const void *in, int add) {
  upload((ShadowState *)state, d);
  const size_t es = um_type_size(um_dat_type(d));
  const char *p = (const char *)in;
  for (int k = 0; k < n; k++)
    for (int c = 0; c < um_dat_dim(d); c++, p += es) {
      char *t = at(d, rows[k], c);
      if (!add) memcpy(t, p, es);
      else if (um_dat_type(d) == UM_DOUBLE) *(double *)t += *(const double *)p;
      else if (um_dat_type(d) == UM_FLOAT) *(float *)t += *(const float *)p;
      else *(int *)t += *(const int *)p;
    }
  device_only(d);
  ((ShadowState *)state)->rows_in++;
  return UM_SUCCESS;
}
int shadow_rows_zero(um_context *, void *state, um_dat *d, int begin, int end) {
  upload((ShadowState *)state, d);
  for (int r = begin; r < end; r++)
    for (int c = 0; c < um_dat_dim(d); c++) memset(at(d, r, c), 0, um_type_size(um_dat_type(d)));
  device_only(d);
  ((ShadowState *)state)->rows_zero++;
  return UM_SUCCESS;
}
// run.tune's trials: a copy of the "device" rows kept, restored, dropped; dat_to_device uploads.
int shadow_dat_keep(um_context *, void *, um_dat *d, void **copy) {
  *(std::vector<char> **)copy = new std::vector<char>(dev_of(d));
  return UM_SUCCESS;
}
int shadow_dat_restore(um_context *, void *, um_dat *d, void *copy) {
  dev_of(d) = *(std::vector<char> *)copy;
  return UM_SUCCESS;
}
void shadow_dat_drop(um_context *, void *, void **copy) {
  delete *(std::vector<char> **)copy;
  *copy = nullptr;
}
int shadow_dat_to_device(um_context *, void *state, um_dat *d) {
  upload((ShadowState *)state, d);
  return UM_SUCCESS;
}
void *shadow_host_alloc(um_context *, void *, size_t bytes) { return malloc(bytes); }
void shadow_host_free(void *p) { free(p); }

um_backend_def make_shadow() {
  um_backend_def b;
  memset(&b, 0, sizeof b);
  b.name = "shadow";
  b.priority = -100;
  b.caps.ranges = 1;
  b.description = "a device in host memory (tests)";
  b.exec.init = shadow_init;
  b.exec.finalize = shadow_finalize;
  b.exec.strategy = um_backend_seq.exec.strategy;
  b.exec.run = shadow_run;
  b.data.dat_to_host = shadow_to_host;
  b.data.rows_out = shadow_rows_out;
  b.data.rows_in = shadow_rows_in;
  b.data.rows_zero = shadow_rows_zero;
  b.data.host_alloc = shadow_host_alloc;
  b.data.host_free = shadow_host_free;
  b.data.dat_keep = shadow_dat_keep;
  b.data.dat_restore = shadow_dat_restore;
  b.data.dat_drop = shadow_dat_drop;
  b.data.dat_to_device = shadow_dat_to_device;
  b.caps.block_sized = 2;  // as a GPU's: run.tune tries block sizes on every loop
  return b;
}
// The device transport of the "shadow-peer" backend (a transport table, engine/src/distributed/transport.h, passed
// in um_options.extra_transports), with what a test may make of the machine: a rank that cannot load it, or every rank
// on one device. Its state is the backend's (the counts the tests read).
int peer_unusable_rank = -1;
bool peer_one_device = false;
const char peer_token_text[] = "shadow-peer token";
int peer_usable(um_context *, char *why, size_t n) {
  if (um_mpi_rank() != peer_unusable_rank) return 1;
  snprintf(why, n, "libshadowpeer.so not found");
  return 0;
}
int peer_device(um_context *, char *id, size_t n) {
  snprintf(id, n, "device-%d", peer_one_device ? 0 : um_mpi_rank());
  return UM_SUCCESS;
}
int peer_token(um_context *, void *token, size_t cap, size_t *len) {
  if (cap < sizeof peer_token_text) return UM_ERR_INTERNAL;
  memcpy(token, peer_token_text, sizeof peer_token_text);
  *len = sizeof peer_token_text;
  return UM_SUCCESS;
}
int peer_open(um_context *ctx, const void *token, size_t len, int rank, int nranks, void **state) {
  auto *S = (ShadowState *)um_context_backend_state(ctx);
  *state = S;
  if (len != sizeof peer_token_text || memcmp(token, peer_token_text, len) || rank != um_mpi_rank() ||
      nranks != um_mpi_size())
    return um_error_set(ctx, UM_ERR_BACKEND, "shadow-peer: wrong token or rank");
  MPI_Comm_dup(MPI_COMM_WORLD, &S->comm);
  S->opens++;
  return UM_SUCCESS;
}
void *peer_alloc(um_context *, void *state, size_t bytes) {
  if (state) ((ShadowState *)state)->allocs_at.push_back(((ShadowState *)state)->posts);
  void *p = malloc(bytes);
  if (p) memset(p, 0xff, bytes);  // NaN: a row unpacked before it arrived shows
  return p;
}
void peer_free(um_context *, void *p) { free(p); }
int peer_post(um_context *, void *state, const um_transport_msg *m, int n, int) {
  auto *S = (ShadowState *)state;
  for (int i = 0; i < n; i++) {
    S->sent.insert(S->sent.end(), {S->posts, m[i].peer, m[i].send, (long long)m[i].bytes, m[i].tag});
    S->reqs.emplace_back();
    if (m[i].send) MPI_Isend(m[i].buf, (int)m[i].bytes, MPI_BYTE, m[i].peer, 0, S->comm, &S->reqs.back());
    else MPI_Irecv(m[i].buf, (int)m[i].bytes, MPI_BYTE, m[i].peer, 0, S->comm, &S->reqs.back());
  }
  S->posts++;
  S->msgs += n;
  return UM_SUCCESS;
}
int peer_wait(um_context *, void *state, int) {
  auto *S = (ShadowState *)state;
  MPI_Waitall((int)S->reqs.size(), S->reqs.data(), MPI_STATUSES_IGNORE);
  S->reqs.clear();
  S->waits++;
  return UM_SUCCESS;
}

um_transport_def make_shadow_transport() {
  um_transport_def t;
  memset(&t, 0, sizeof t);
  t.name = "shadow-peer";
  t.what = "\"device\" buffers sent \"device\" to \"device\"";
  t.backends = "shadow-peer";
  t.device = 1;
  t.usable = peer_usable;
  t.device_id = peer_device;
  t.token = peer_token;
  t.open = peer_open;
  t.alloc = peer_alloc;
  t.free = peer_free;
  t.post = peer_post;
  t.wait = peer_wait;
  return t;
}
const um_transport_def shadow_transport = make_shadow_transport();
const um_transport_def *const shadow_transports[1] = {&shadow_transport};
// the "shadow" backend under another name, which the transport above serves
um_backend_def make_shadow_peer() {
  um_backend_def b = make_shadow();
  b.name = "shadow-peer";
  return b;
}
const um_backend_def shadow_backend = make_shadow(), shadow_peer_backend = make_shadow_peer();
const um_backend_def *const shadow_list[1] = {&shadow_backend};
const um_backend_def *const shadow_peer_list[1] = {&shadow_peer_backend};
bool is_shadow(const char *backend) { return !strncmp(backend, "shadow", 6); }
bool is_peer(const char *backend) { return strstr(backend, "peer") != nullptr; }

struct Grid {  // N x N quads: cells -> 4 nodes, edges -> 2 cells
  int N, nnode, ncell, nedge;
  std::vector<int> cell_nodes, edge_cells;
  explicit Grid(int n) : N(n), nnode((n + 1) * (n + 1)), ncell(n * n) {
    for (int j = 0; j < N; j++)
      for (int i = 0; i < N; i++) {
        const int a = j * (N + 1) + i;
        cell_nodes.insert(cell_nodes.end(), {a, a + 1, a + N + 2, a + N + 1});
        if (i + 1 < N) edge_cells.insert(edge_cells.end(), {j * N + i, j * N + i + 1});
        if (j + 1 < N) edge_cells.insert(edge_cells.end(), {j * N + i, (j + 1) * N + i});
      }
    nedge = (int)edge_cells.size() / 2;
  }
};

struct Mesh {
  um_context *ctx = nullptr;
  um_transport transport = UM_TRANSPORT_DEVICE;  // for "shadow-peer" backends
  bool set_transport = false;                     // other backends: set `transport` too
  long min_bytes = atol(um_option_find("mpi.gpu_transport_min_bytes")->def);
  um_set *nodes, *cells, *edges;
  um_map *cn, *ec;
  um_dat *q, *w, *u, *r, *f, *nv, *a;
  ~Mesh() { um_finalize(&ctx); }
  void build(const Grid &g, const char *backend, bool distribute, const char *partitioner,
             um_increments incs = UM_INCREMENTS_REDUNDANT, const char *cache = nullptr) {
    um_options o;
    um_options_default(&o);
    o.backend = backend;
    if (cache) um_options_set(&o, "run.cache", cache);
    if (is_shadow(backend)) {  // "shadow" (AoS) or "shadow-soa"; "shadow-peer[-soa]": halos device to device
      o.backend = is_peer(backend) ? "shadow-peer" : "shadow";
      o.extra_backends = is_peer(backend) ? shadow_peer_list : shadow_list;
      o.nextra_backends = 1;
      o.extra_transports = shadow_transports;  // the context offers it; it serves "shadow-peer" alone
      o.nextra_transports = 1;
      if (strstr(backend, "soa")) o.layout = UM_SOA;
    }
    o.block_size = 16;
    um_options_set(&o, "openmp.parallel_threshold", "0");
    ASSERT_EQ(um_init(&ctx, &o), 0);
    ASSERT_EQ(um_context_set_increments(ctx, incs), 0);
    if (is_peer(backend) || set_transport) ASSERT_EQ(um_context_set_gpu_transport(ctx, transport), 0);
    if (is_peer(backend)) ASSERT_EQ(um_context_set_gpu_transport_min_bytes(ctx, min_bytes), 0);
    std::vector<double> qv(3 * g.ncell), wv(g.nedge), uv(2 * g.ncell), av(g.ncell);
    for (int c = 0; c < g.ncell; c++) {
      for (int k = 0; k < 3; k++) qv[3 * c + k] = std::sin(0.1 * c + k);
      uv[2 * c] = std::cos(0.3 * c);
      uv[2 * c + 1] = 0.01 * c;
      av[c] = 1.0 + 0.5 * std::sin(0.7 * c);
    }
    for (int e = 0; e < g.nedge; e++) wv[e] = 1.0 + 0.001 * e;
    std::vector<double> xv(2 * g.nnode);  // the nodes' coordinates (rcb, sfc: the cells' centroids)
    for (int v = 0; v < g.nnode; v++) xv[2 * v] = v % (g.N + 1), xv[2 * v + 1] = v / (g.N + 1);
    ASSERT_EQ(um_decl_set(ctx, g.nnode, "nodes", &nodes), 0);
    ASSERT_EQ(um_decl_set(ctx, g.ncell, "cells", &cells), 0);
    ASSERT_EQ(um_decl_set(ctx, g.nedge, "edges", &edges), 0);
    ASSERT_EQ(um_decl_map(ctx, cells, nodes, 4, g.cell_nodes.data(), "cell_nodes", &cn), 0);
    ASSERT_EQ(um_decl_map(ctx, edges, cells, 2, g.edge_cells.data(), "edge_cells", &ec), 0);
    ASSERT_EQ(um_decl_dat(ctx, cells, 3, UM_DOUBLE, qv.data(), "q", &q), 0);
    ASSERT_EQ(um_decl_dat(ctx, edges, 1, UM_DOUBLE, wv.data(), "w", &w), 0);
    ASSERT_EQ(um_decl_dat(ctx, cells, 2, UM_DOUBLE, uv.data(), "u", &u), 0);
    ASSERT_EQ(um_decl_dat(ctx, cells, 2, UM_DOUBLE, nullptr, "r", &r), 0);
    ASSERT_EQ(um_decl_dat(ctx, cells, 1, UM_FLOAT, nullptr, "f", &f), 0);
    ASSERT_EQ(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, nullptr, "nv", &nv), 0);
    um_dat *x = nullptr;
    ASSERT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, xv.data(), "x", &x), 0);
    if (distribute) ASSERT_EQ(um_distribute(ctx, "cells", partitioner), 0) << um_error_message(ctx);
    // declared after distributing: global values in, this rank's rows kept
    ASSERT_EQ(um_decl_dat(ctx, cells, 1, UM_DOUBLE, av.data(), "a", &a), 0) << um_error_message(ctx);
  }
  // increments through maps with a global sum (exec halo run apart), a direct-read
  // + corner increments + MAX loop, RW through a map reading a halo
  void step(double *sum, int *cnt, double *qmax) {
    *sum = 0;
    *cnt = 0;
    ASSERT_EQ(UM_PAR_LOOP(ctx, edge_inc_kernel, "edge_inc", edges, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                          um_arg_dat(u, 0, ec, 2, UM_DOUBLE, UM_READ), um_arg_dat(u, 1, ec, 2, UM_DOUBLE, UM_READ),
                          um_arg_dat(r, 0, ec, 2, UM_DOUBLE, UM_INC), um_arg_dat(r, 1, ec, 2, UM_DOUBLE, UM_INC),
                          um_arg_dat(f, 0, ec, 1, UM_FLOAT, UM_INC), um_arg_gbl(sum, 1, UM_DOUBLE, UM_INC),
                          um_arg_gbl(cnt, 1, UM_INT, UM_INC)),
              0)
        << um_error_message(ctx);
    *qmax = -1e300;
    ASSERT_EQ(UM_PAR_LOOP(ctx, cell_inc_kernel, "cell_inc", cells, um_arg_dat(q, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                          um_arg_dat(nv, 0, cn, 3, UM_DOUBLE, UM_INC), um_arg_dat(nv, 1, cn, 3, UM_DOUBLE, UM_INC),
                          um_arg_dat(nv, 2, cn, 3, UM_DOUBLE, UM_INC), um_arg_dat(nv, 3, cn, 3, UM_DOUBLE, UM_INC),
                          um_arg_gbl(qmax, 1, UM_DOUBLE, UM_MAX)),
              0)
        << um_error_message(ctx);
    // u changes from r (a halo read of r next time through the map)
    ASSERT_EQ(UM_PAR_LOOP(ctx, indirect_rw_kernel, "indirect_rw", edges, um_arg_dat(u, 0, ec, 2, UM_DOUBLE, UM_RW),
                          um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ)),
              0)
        << um_error_message(ctx);
  }
};

void expect_near_all(const std::vector<double> &a, const std::vector<double> &b, double tol, const char *what) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); i++)
    ASSERT_NEAR(a[i], b[i], tol * (1.0 + std::fabs(b[i]))) << what << "[" << i << "]";
}

class Distributed
    : public ::testing::TestWithParam<std::tuple<const char *, const char *, um_increments>> {};

TEST_P(Distributed, LoopsMatchOneProcess) {
  const char *backend = std::get<0>(GetParam()), *partitioner = std::get<1>(GetParam());
  const um_increments incs = std::get<2>(GetParam());
  if (!is_shadow(backend) && !um_backend_available(backend)) GTEST_SKIP() << backend << " not built";
  if (!um_mpi_partitioner_built(partitioner)) GTEST_SKIP() << partitioner << " not built";
  Grid g(9);
  Mesh one, dist;
  one.build(g, backend, false, partitioner);
  dist.build(g, backend, true, partitioner, incs);
  EXPECT_EQ(um_context_nranks(dist.ctx), um_mpi_size());
  EXPECT_EQ(um_set_size(dist.cells), g.ncell);  // the global view
  for (int it = 0; it < 3; it++) {
    double s1, s2, m1, m2;
    int c1, c2;
    one.step(&s1, &c1, &m1);
    dist.step(&s2, &c2, &m2);
    EXPECT_EQ(c1, c2);  // each edge counted once, exec halo or not
    EXPECT_NEAR(s1, s2, 1e-12 * (1 + std::fabs(s1)));
    EXPECT_EQ(m1, m2);
  }
  um_loop_stats st;
  for (int i = 0; i < um_loop_stats_count(dist.ctx); i++) { /* REVERSE where the loop allows it, and only then */
    ASSERT_EQ(um_loop_stats_get(dist.ctx, i, &st), 0);
    const bool allowed = !strcmp(st.name, "edge_inc") || !strcmp(st.name, "cell_inc");
    if (um_mpi_size() > 1 && incs == UM_INCREMENTS_REVERSE) EXPECT_EQ(st.reverse_increments, allowed ? 1 : 0) << st.name;
    if (incs == UM_INCREMENTS_REDUNDANT) EXPECT_EQ(st.reverse_increments, 0) << st.name;
  }
  const std::vector<std::pair<um_dat *, um_dat *>> pairs = {
      {one.r, dist.r}, {one.u, dist.u}, {one.nv, dist.nv}, {one.a, dist.a}};
  for (const auto &pair : pairs) {
    const size_t n = (size_t)um_set_size(um_dat_set(pair.first)) * um_dat_dim(pair.first);
    std::vector<double> x(n), y(n);
    ASSERT_EQ(um_dat_fetch(one.ctx, pair.first, x.data(), n * sizeof(double)), 0);
    ASSERT_EQ(um_dat_fetch(dist.ctx, pair.second, y.data(), n * sizeof(double)), 0);
    expect_near_all(y, x, 1e-12, um_dat_name(pair.first));
  }
  // um_map_fetch gives the declared map back
  std::vector<int> m(4 * (size_t)g.ncell);
  ASSERT_EQ(um_map_fetch(dist.ctx, dist.cn, m.data(), m.size() * sizeof(int)), 0);
  EXPECT_EQ(m, g.cell_nodes);
  // update then fetch: the same values, halos current
  std::vector<double> v(2 * (size_t)g.ncell), back(v.size());
  for (size_t i = 0; i < v.size(); i++) v[i] = 0.5 * (double)i;
  ASSERT_EQ(um_dat_update(dist.ctx, dist.u, v.data(), v.size() * sizeof(double)), 0);
  ASSERT_EQ(um_dat_fetch(dist.ctx, dist.u, back.data(), back.size() * sizeof(double)), 0);
  EXPECT_EQ(back, v);
  if (is_shadow(backend) && um_mpi_size() > 1) {  // the halos moved on the "device", none through whole dats
    um_partition_info pi;
    ASSERT_EQ(um_partition_info_get(dist.ctx, &pi), 0);
    EXPECT_STREQ(pi.transport, is_peer(backend) ? "shadow-peer" : "host") << pi.transport_note;
    um_finalize(&dist.ctx);
    EXPECT_GT(shadow_last.rows_out, 0);
    EXPECT_GT(shadow_last.rows_in, 0);
    if (incs == UM_INCREMENTS_REVERSE) EXPECT_GT(shadow_last.rows_zero, 0);
    // device to device: every exchange posted as one group and waited for; no MPI from host buffers
    EXPECT_EQ(shadow_last.opens, is_peer(backend) ? 1 : 0);
    EXPECT_EQ(shadow_last.posts, shadow_last.waits);
    if (is_peer(backend)) EXPECT_GT(shadow_last.msgs, 0);
    else EXPECT_EQ(shadow_last.posts, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Distributed,
                         ::testing::Combine(::testing::Values("seq", "openmp", "shadow", "shadow-soa", "shadow-peer",
                                                              "shadow-peer-soa"),
                                            ::testing::Values("metis", "ptscotch", "rcb", "block"),
                                            ::testing::Values(UM_INCREMENTS_REDUNDANT, UM_INCREMENTS_REVERSE,
                                                              UM_INCREMENTS_AUTO)));

// Reproducible mode (um_context_set_reproducible): split loops gather every target's increments in the order of the
// contributing elements' global numbers and global sums are exact across the ranks, so P ranks give the
// one-process bits, memcmp-equal: dats incremented through maps (double and float), a direct RW dat read
// through a map next time (halos), global sums (dim 1 and 2), MIN, MAX and an int sum. ctest runs this on
// 1 to 4 ranks, so the rank counts agree with each other bit for bit too.
class DistributedReproducible
    : public ::testing::TestWithParam<std::tuple<const char *, const char *, um_increments>> {};

TEST_P(DistributedReproducible, SameBitsAsOneProcess) {
  const char *backend = std::get<0>(GetParam()), *partitioner = std::get<1>(GetParam());
  if (!um_backend_available(backend)) GTEST_SKIP() << backend << " not built";
  if (!um_mpi_partitioner_built(partitioner)) GTEST_SKIP() << partitioner << " not built";
  Grid g(11);
  Mesh m[2];
  std::vector<int> kv(g.ncell);
  for (int c = 0; c < g.ncell; c++) kv[c] = c % 5 - 2;
  um_dat *b[2], *k[2];
  for (int i = 0; i < 2; i++) {
    m[i].build(g, backend, i == 1, partitioner, std::get<2>(GetParam()));
    if (HasFatalFailure()) return;
    ASSERT_EQ(um_context_set_reproducible(m[i].ctx, 1), 0);
    ASSERT_EQ(um_decl_dat(m[i].ctx, m[i].cells, 3, UM_DOUBLE, nullptr, "b", &b[i]), 0) << um_error_message(m[i].ctx);
    ASSERT_EQ(um_decl_dat(m[i].ctx, m[i].cells, 1, UM_INT, kv.data(), "k", &k[i]), 0) << um_error_message(m[i].ctx);
  }
  for (int it = 0; it < 4; it++) {
    double sum[2], qmax[2], dsum[2][2], mn[2], mx[2];
    int cnt[2], isum[2];
    for (int i = 0; i < 2; i++) {
      um_context *ctx = m[i].ctx;
      sum[i] = 0.125;
      cnt[i] = 0;
      ASSERT_EQ(UM_PAR_LOOP(ctx, edge_inc_kernel, "edge_inc", m[i].edges,
                            um_arg_dat(m[i].w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                            um_arg_dat(m[i].u, 0, m[i].ec, 2, UM_DOUBLE, UM_READ),
                            um_arg_dat(m[i].u, 1, m[i].ec, 2, UM_DOUBLE, UM_READ),
                            um_arg_dat(m[i].r, 0, m[i].ec, 2, UM_DOUBLE, UM_INC),
                            um_arg_dat(m[i].r, 1, m[i].ec, 2, UM_DOUBLE, UM_INC),
                            um_arg_dat(m[i].f, 0, m[i].ec, 1, UM_FLOAT, UM_INC),
                            um_arg_gbl(&sum[i], 1, UM_DOUBLE, UM_INC), um_arg_gbl(&cnt[i], 1, UM_INT, UM_INC)),
                0)
          << um_error_message(ctx);
      qmax[i] = -1e300;
      ASSERT_EQ(UM_PAR_LOOP(ctx, cell_inc_kernel, "cell_inc", m[i].cells,
                            um_arg_dat(m[i].q, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                            um_arg_dat(m[i].nv, 0, m[i].cn, 3, UM_DOUBLE, UM_INC),
                            um_arg_dat(m[i].nv, 1, m[i].cn, 3, UM_DOUBLE, UM_INC),
                            um_arg_dat(m[i].nv, 2, m[i].cn, 3, UM_DOUBLE, UM_INC),
                            um_arg_dat(m[i].nv, 3, m[i].cn, 3, UM_DOUBLE, UM_INC),
                            um_arg_gbl(&qmax[i], 1, UM_DOUBLE, UM_MAX)),
                0)
          << um_error_message(ctx);
      // u changes directly (its halo is stale for the next edge_inc), with a dim-2 exact sum, MIN and MAX
      dsum[i][0] = 1.0;
      dsum[i][1] = -2.0;
      mn[i] = 1e300;
      mx[i] = -1e300;
      isum[i] = 0;
      ASSERT_EQ(UM_PAR_LOOP(ctx, direct_ops_kernel, "direct_ops", m[i].cells,
                            um_arg_dat(m[i].q, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                            um_arg_dat(b[i], -1, UM_ID, 3, UM_DOUBLE, UM_WRITE),
                            um_arg_dat(m[i].u, -1, UM_ID, 2, UM_DOUBLE, UM_RW),
                            um_arg_dat(k[i], -1, UM_ID, 1, UM_INT, UM_READ),
                            um_arg_gbl(dsum[i], 2, UM_DOUBLE, UM_INC), um_arg_gbl(&mn[i], 1, UM_DOUBLE, UM_MIN),
                            um_arg_gbl(&mx[i], 1, UM_DOUBLE, UM_MAX), um_arg_gbl(&isum[i], 1, UM_INT, UM_INC)),
                0)
          << um_error_message(ctx);
    }
    EXPECT_EQ(memcmp(&sum[0], &sum[1], sizeof(double)), 0) << "iteration " << it << ": " << sum[0] << " " << sum[1];
    EXPECT_EQ(memcmp(dsum[0], dsum[1], sizeof dsum[0]), 0) << "iteration " << it << ": " << dsum[0][1] << " " << dsum[1][1];
    EXPECT_EQ(cnt[0], cnt[1]);
    EXPECT_EQ(isum[0], isum[1]);
    EXPECT_EQ(qmax[0], qmax[1]);
    EXPECT_EQ(mn[0], mn[1]);
    EXPECT_EQ(mx[0], mx[1]);
  }
  um_loop_stats st;
  for (int i = 0; i < um_loop_stats_count(m[1].ctx); i++) {
    ASSERT_EQ(um_loop_stats_get(m[1].ctx, i, &st), 0);
    if (!strcmp(st.name, "edge_inc") || !strcmp(st.name, "cell_inc")) EXPECT_STREQ(st.split, "gather") << st.name;
    EXPECT_EQ(st.reverse_increments, 0) << st.name << ": reproducible runs every loop's increments redundantly";
  }
  for (int d = 0; d < um_dat_count(m[0].ctx); d++) {
    um_dat *d0 = um_dat_at(m[0].ctx, d), *d1 = um_find_dat(m[1].ctx, um_dat_name(d0));
    ASSERT_NE(d1, nullptr) << um_dat_name(d0);
    const size_t bytes = (size_t)um_set_size(um_dat_set(d0)) * um_dat_dim(d0) * um_type_size(um_dat_type(d0));
    std::vector<char> x(bytes), y(bytes);
    ASSERT_EQ(um_dat_fetch(m[0].ctx, d0, x.data(), bytes), 0);
    ASSERT_EQ(um_dat_fetch(m[1].ctx, d1, y.data(), bytes), 0);
    EXPECT_TRUE(x == y) << "dat " << um_dat_name(d0) << " differs from one process's bits on " << um_mpi_size()
                        << " ranks";
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, DistributedReproducible,
                         ::testing::Combine(::testing::Values("seq", "openmp"),
                                            ::testing::Values("metis", "rcb", "sfc", "block"),
                                            ::testing::Values(UM_INCREMENTS_REDUNDANT, UM_INCREMENTS_REVERSE,
                                                              UM_INCREMENTS_AUTO)));

// Per-loop tuning (run.tune, tune.c) on several ranks: every rank keeps the same setting for every loop (the
// slowest rank's times decide), the trials change no result (outputs kept on the "device" and restored,
// exchanges done before them, reverse increments sent once), and an untuned run given the chosen settings
// per loop gives the same bits, sums included.
class DistributedTune : public ::testing::TestWithParam<std::tuple<const char *, um_increments>> {};

TEST_P(DistributedTune, EveryRankKeepsOneChoiceAndItReplaysUntuned) {
  const char *backend = std::get<0>(GetParam());
  if (!is_shadow(backend) && !um_backend_available(backend)) GTEST_SKIP() << backend << " not built";
  Grid g(10);
  Mesh tuned, replay;
  tuned.build(g, backend, true, "block", std::get<1>(GetParam()));
  replay.build(g, backend, true, "block", std::get<1>(GetParam()));
  ASSERT_EQ(um_context_set_tune(tuned.ctx, UM_TUNE_ALWAYS), 0);
  double s1[3], s2[3], m1[3], m2[3];
  int c1[3], c2[3];
  for (int it = 0; it < 3; it++) tuned.step(&s1[it], &c1[it], &m1[it]);
  std::vector<std::string> names;
  std::vector<um_tune_info> infos;
  um_loop_stats st;
  um_tune_info t;
  for (int i = 0; i < um_loop_stats_count(tuned.ctx); i++)
    if (um_loop_stats_get(tuned.ctx, i, &st) == 0 && um_loop_tune_info(tuned.ctx, i, &t)) {
      names.push_back(st.name);
      infos.push_back(t);
      EXPECT_EQ(st.calls, 3) << st.name << ": trials are not calls";
      if (t.chosen < 0) continue;
      const um_tune_trial &c = t.trial[t.chosen];
      ASSERT_EQ(um_loop_set_strategy(replay.ctx, st.name, c.strategy), 0);
      ASSERT_EQ(um_loop_set_block_size(replay.ctx, st.name, c.block_size), 0);
      ASSERT_EQ(um_loop_set_split(replay.ctx, st.name, c.split), 0);
      ASSERT_EQ(um_loop_set_variant(replay.ctx, st.name, c.variant), 0);
    }
  ASSERT_EQ(names.size(), 3u) << "edge_inc, cell_inc, indirect_rw";
  for (size_t k = 0; k < infos.size(); k++) {  // one choice on every rank
    const bool fixed = names[k] == "indirect_rw" && !strcmp(backend, "seq");  // RW through a map: no split; seq:
    EXPECT_EQ(infos[k].state, fixed ? 0 : 1) << names[k] << ": " << infos[k].note;  // no block sizes
    int mine[2] = {infos[k].chosen, infos[k].ntrials}, lo[2], hi[2];
    MPI_Allreduce(mine, lo, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(mine, hi, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(lo[0], hi[0]) << names[k] << ": ranks chose differently";
    EXPECT_EQ(lo[1], hi[1]) << names[k] << ": ranks listed different settings";
  }
  for (int it = 0; it < 3; it++) replay.step(&s2[it], &c2[it], &m2[it]);
  for (int it = 0; it < 3; it++) {
    EXPECT_EQ(memcmp(&s1[it], &s2[it], sizeof(double)), 0) << "sum, step " << it << ": " << s1[it] << " " << s2[it];
    EXPECT_EQ(c1[it], c2[it]);
    EXPECT_EQ(m1[it], m2[it]);
    EXPECT_EQ(c1[it], g.nedge) << "each edge counted once a call";
  }
  for (const auto &pair : std::vector<std::pair<um_dat *, um_dat *>>{{tuned.r, replay.r}, {tuned.u, replay.u},
                                                                     {tuned.nv, replay.nv}}) {
    const size_t n = (size_t)um_set_size(um_dat_set(pair.first)) * um_dat_dim(pair.first);
    std::vector<double> x(n), y(n);
    ASSERT_EQ(um_dat_fetch(tuned.ctx, pair.first, x.data(), n * sizeof(double)), 0);
    ASSERT_EQ(um_dat_fetch(replay.ctx, pair.second, y.data(), n * sizeof(double)), 0);
    EXPECT_TRUE(x == y) << "dat " << um_dat_name(pair.first) << ": the tuned run differs from its replay";
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, DistributedTune,
                         ::testing::Combine(::testing::Values("seq", "openmp", "shadow", "shadow-soa"),
                                            ::testing::Values(UM_INCREMENTS_REDUNDANT, UM_INCREMENTS_REVERSE)));

// run.tune once on several ranks: rank 0 reads tune.txt and every rank takes its line, runs the stored choice once
// as a check before trusting it (collectively), and starts tuned from the cache with the first run's choices and bits.
TEST(DistributedTuneCache, EveryRankTakesRankZerosLine) {
  char dir[64] = "/tmp/um-mpi-tune-XXXXXX";
  int made = um_mpi_rank() != 0 || mkdtemp(dir) != nullptr;
  MPI_Bcast(&made, 1, MPI_INT, 0, MPI_COMM_WORLD);
  ASSERT_TRUE(made);
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  Grid g(10);
  double s[2][3], m[2][3];
  int c[2][3];
  std::map<std::string, um_tune_info> info[2];
  for (int run = 0; run < 2; run++) {
    Mesh mesh;
    mesh.build(g, "openmp", true, "block", UM_INCREMENTS_REDUNDANT, dir);
    if (HasFatalFailure()) break;
    ASSERT_EQ(um_context_set_tune(mesh.ctx, UM_TUNE_ONCE), 0);
    for (int it = 0; it < 3; it++) mesh.step(&s[run][it], &c[run][it], &m[run][it]);
    um_loop_stats st;
    um_tune_info t;
    for (int i = 0; i < um_loop_stats_count(mesh.ctx); i++)
      if (um_loop_stats_get(mesh.ctx, i, &st) == 0 && um_loop_tune_info(mesh.ctx, i, &t)) info[run][st.name] = t;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (um_mpi_rank() == 0) {
    unlink((std::string(dir) + "/tune.txt").c_str());
    rmdir(dir);
  }
  if (HasFatalFailure()) return;
  for (const auto &kv : info[0]) {
    if (kv.second.state != 1) continue;
    const um_tune_info &b = info[1][kv.first];
    EXPECT_EQ(b.state, 2) << kv.first << " on rank " << um_mpi_rank() << ": " << b.note;
    EXPECT_EQ(b.chosen, kv.second.chosen) << kv.first;
  }
  EXPECT_GE(info[0].size(), 2u);
  for (int it = 0; it < 3; it++) {
    EXPECT_EQ(memcmp(&s[0][it], &s[1][it], sizeof(double)), 0) << "sum, step " << it;
    EXPECT_EQ(c[0][it], c[1][it]);
    EXPECT_EQ(m[0][it], m[1][it]);
  }
}

// mpi.gpu_transport: auto takes the device transport only when every rank can load it and has a device of
// its own, and says why not; asked for where it cannot run, um_distribute fails on every rank with the reason.
TEST(DistributedTransport, AutoFallsBackToHostAndSaysWhy) {
  if (um_mpi_size() < 2) GTEST_SKIP() << "one rank: um_distribute does nothing";
  Grid g(6);
  for (int c = 0; c < 3; c++) {
    peer_one_device = c == 1;
    peer_unusable_rank = c == 2 ? um_mpi_size() - 1 : -1;
    Mesh m;
    m.transport = c == 0 ? UM_TRANSPORT_HOST : UM_TRANSPORT_AUTO;
    m.build(g, "shadow-peer", true, "block");
    um_partition_info pi;
    ASSERT_EQ(um_partition_info_get(m.ctx, &pi), 0);
    EXPECT_STREQ(pi.transport, "host") << c;
    const char *why[3] = {"asked for", "share one GPU", "cannot use shadow-peer: libshadowpeer.so not found"};
    EXPECT_NE(strstr(pi.transport_note, why[c]), nullptr) << pi.transport_note;
    double s, qm;
    int n;
    for (int it = 0; it < 2; it++) m.step(&s, &n, &qm);  // the second step reads halos the first made stale
    um_finalize(&m.ctx);
    EXPECT_EQ(shadow_last.opens, 0);
    EXPECT_EQ(shadow_last.posts, 0);
    EXPECT_GT(shadow_last.rows_out, 0);
  }
  peer_one_device = false;
  peer_unusable_rank = -1;
  Mesh m;  // auto where it can run: device to device
  m.transport = UM_TRANSPORT_AUTO;
  m.build(g, "shadow-peer", true, "block");
  um_partition_info pi;
  ASSERT_EQ(um_partition_info_get(m.ctx, &pi), 0);
  EXPECT_STREQ(pi.transport, "shadow-peer+host") << pi.transport_note;
  EXPECT_NE(strstr(pi.transport_note, "own GPU"), nullptr) << pi.transport_note;
  EXPECT_NE(strstr(pi.transport_note, "1024 KiB or more per rank"), nullptr) << pi.transport_note;
}

// auto with the device transport open: an exchange goes device to device from min_bytes per rank on, through
// host memory below (the same choice on every rank); either way the answers of one process
TEST(DistributedTransport, AutoSendsByHaloSize) {
  if (um_mpi_size() < 2) GTEST_SKIP() << "one rank: um_distribute does nothing";
  Grid g(9);
  for (long min_bytes : {0L, 1L << 30}) {
    Mesh one, m;
    m.transport = UM_TRANSPORT_AUTO;
    m.min_bytes = min_bytes;
    one.build(g, "seq", false, "metis");
    m.build(g, "shadow-peer-soa", true, "metis");
    um_partition_info pi;
    ASSERT_EQ(um_partition_info_get(m.ctx, &pi), 0);
    EXPECT_STREQ(pi.transport, min_bytes ? "shadow-peer+host" : "shadow-peer") << pi.transport_note;
    for (int it = 0; it < 3; it++) {
      double s1, s2, m1, m2;
      int c1, c2;
      one.step(&s1, &c1, &m1);
      m.step(&s2, &c2, &m2);
      EXPECT_NEAR(s1, s2, 1e-12 * (1 + std::fabs(s1)));
    }
    for (auto pair : {std::make_pair(one.u, m.u), std::make_pair(one.nv, m.nv)}) {
      const size_t n = (size_t)um_set_size(um_dat_set(pair.first)) * um_dat_dim(pair.first);
      std::vector<double> x(n), y(n);
      ASSERT_EQ(um_dat_fetch(one.ctx, pair.first, x.data(), n * sizeof(double)), 0);
      ASSERT_EQ(um_dat_fetch(m.ctx, pair.second, y.data(), n * sizeof(double)), 0);
      expect_near_all(y, x, 1e-12, um_dat_name(pair.first));
    }
    um_finalize(&m.ctx);
    EXPECT_GT(shadow_last.rows_in, 0);
    if (min_bytes) EXPECT_EQ(shadow_last.posts, 0);  // every halo here is far below 1 GiB
    else EXPECT_GT(shadow_last.posts, 0);
    EXPECT_EQ(shadow_last.posts, shadow_last.waits);
  }
}

// The loopback transport (mpi.gpu_transport loopback): the transport table's whole path -- the choice, open,
// buffers, grouped posts, waits, close -- on host backends (rows packed on the host into its malloc'ed buffers)
// and on the "device" backend (rows packed by rows_out into host_alloc buffers), with the bits of the host
// transport: every sum, count and maximum, and every dat's values, memcmp-equal.
class DistributedLoopback : public ::testing::TestWithParam<std::tuple<const char *, um_increments>> {};

TEST_P(DistributedLoopback, SameBitsAsHostTransport) {
  const char *backend = std::get<0>(GetParam());
  const um_increments incs = std::get<1>(GetParam());
  if (!is_shadow(backend) && !um_backend_available(backend)) GTEST_SKIP() << backend << " not built";
  Grid g(23);
  Mesh host, loop;
  host.set_transport = loop.set_transport = true;
  host.transport = UM_TRANSPORT_HOST;
  loop.transport = UM_TRANSPORT_LOOPBACK;
  host.build(g, backend, true, "metis", incs);
  loop.build(g, backend, true, "metis", incs);
  for (int it = 0; it < 4; it++) {
    double s1, s2, m1, m2;
    int c1, c2;
    host.step(&s1, &c1, &m1);
    loop.step(&s2, &c2, &m2);
    EXPECT_EQ(memcmp(&s1, &s2, sizeof s1), 0) << s1 << " " << s2;
    EXPECT_EQ(c1, c2);
    EXPECT_EQ(memcmp(&m1, &m2, sizeof m1), 0) << m1 << " " << m2;
  }
  for (auto pair : {std::make_pair(host.r, loop.r), std::make_pair(host.u, loop.u), std::make_pair(host.nv, loop.nv),
                    std::make_pair(host.q, loop.q)}) {
    const size_t n = (size_t)um_set_size(um_dat_set(pair.first)) * um_dat_dim(pair.first);
    std::vector<double> x(n), y(n);
    ASSERT_EQ(um_dat_fetch(host.ctx, pair.first, x.data(), n * sizeof(double)), 0);
    ASSERT_EQ(um_dat_fetch(loop.ctx, pair.second, y.data(), n * sizeof(double)), 0);
    EXPECT_EQ(memcmp(x.data(), y.data(), n * sizeof(double)), 0) << um_dat_name(pair.first);
  }
  std::vector<float> fx((size_t)g.ncell), fy((size_t)g.ncell);
  ASSERT_EQ(um_dat_fetch(host.ctx, host.f, fx.data(), fx.size() * sizeof(float)), 0);
  ASSERT_EQ(um_dat_fetch(loop.ctx, loop.f, fy.data(), fy.size() * sizeof(float)), 0);
  EXPECT_EQ(memcmp(fx.data(), fy.data(), fx.size() * sizeof(float)), 0);
  if (um_mpi_size() < 2) return;  // one rank: um_distribute does nothing
  um_partition_info pi;
  ASSERT_EQ(um_partition_info_get(loop.ctx, &pi), 0);
  EXPECT_STREQ(pi.transport, "loopback") << pi.transport_note;
  EXPECT_NE(strstr(pi.transport_note, "asked for: host buffers of its own"), nullptr) << pi.transport_note;
  ASSERT_EQ(um_partition_info_get(host.ctx, &pi), 0);
  EXPECT_STREQ(pi.transport, "host") << pi.transport_note;
  um_loop_stats a, b;  // the same traffic, counted the same way
  for (int i = 0; i < um_loop_stats_count(host.ctx); i++) {
    ASSERT_EQ(um_loop_stats_get(host.ctx, i, &a), 0);
    ASSERT_EQ(um_loop_stats_get(loop.ctx, i, &b), 0);
    EXPECT_EQ(a.halo_messages, b.halo_messages) << a.name;
    EXPECT_EQ(a.halo_bytes, b.halo_bytes) << a.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, DistributedLoopback,
                         ::testing::Combine(::testing::Values("seq", "openmp", "shadow", "shadow-soa"),
                                            ::testing::Values(UM_INCREMENTS_REDUNDANT, UM_INCREMENTS_REVERSE)));

// What a backend may rely on to keep exchanges apart the same way on every rank (the CUDA backend captures each
// NCCL exchange as a graph, which NCCL asks of every rank or none): the message buffers are reallocated at the
// same posts on every rank, though each rank's halo differs (an uneven block partition), and the k-th message
// one rank sends another is the k-th that one receives from it, with the same size, post and tag.
TEST(DistributedTransport, MessagesMatchAndBuffersGrowOnEveryRankAtOnce) {
  if (um_mpi_size() < 2) GTEST_SKIP() << "one rank: um_distribute does nothing";
  Grid g(90);  // halos beyond the first buffer, larger on the middle ranks
  for (um_increments incs : {UM_INCREMENTS_REDUNDANT, UM_INCREMENTS_REVERSE}) {
    Mesh m;
    m.build(g, "shadow-peer", true, "block", incs);
    for (int it = 0; it < 3; it++) {
      double s;
      int c;
      double mx;
      m.step(&s, &c, &mx);
    }
    um_finalize(&m.ctx);
    const ShadowState &S = shadow_last;
    ASSERT_GT(S.posts, 0);
    ASSERT_FALSE(S.allocs_at.empty());
    // the same growth points on every rank
    const int P = um_mpi_size(), me = um_mpi_rank();
    int na = (int)S.allocs_at.size(), namax = 0;
    MPI_Allreduce(&na, &namax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(na, namax) << "rank " << me << " reallocated its message buffers a different number of times";
    std::vector<long> at(namax, -1), lo(namax), hi(namax);
    std::copy(S.allocs_at.begin(), S.allocs_at.end(), at.begin());
    MPI_Allreduce(at.data(), lo.data(), namax, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(at.data(), hi.data(), namax, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(lo, hi) << "buffers reallocated at different posts on different ranks";
    long pmin = 0, pmax = 0;
    MPI_Allreduce(&S.posts, &pmin, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&S.posts, &pmax, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(pmin, pmax) << "ranks posted different numbers of exchanges";
    // every rank's messages to every rank: the k-th send of A to B is the k-th receive of B from A
    int len = (int)S.sent.size();
    std::vector<int> lens(P), offs(P + 1, 0);
    MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < P; q++) offs[q + 1] = offs[q] + lens[q];
    std::vector<long long> all(offs[P]);
    MPI_Allgatherv(S.sent.data(), len, MPI_LONG_LONG, all.data(), lens.data(), offs.data(), MPI_LONG_LONG,
                   MPI_COMM_WORLD);
    long matched = 0;
    for (int a = 0; a < P; a++)
      for (int b = 0; b < P; b++) {
        std::vector<std::array<long long, 3>> sends, recvs;  // post, bytes, tag
        for (int k = offs[a]; k < offs[a + 1]; k += 5)
          if (all[k + 1] == b && all[k + 2] == 1) sends.push_back({all[k], all[k + 3], all[k + 4]});
        for (int k = offs[b]; k < offs[b + 1]; k += 5)
          if (all[k + 1] == a && all[k + 2] == 0) recvs.push_back({all[k], all[k + 3], all[k + 4]});
        EXPECT_EQ(sends, recvs) << "messages from rank " << a << " to rank " << b;
        matched += (long)sends.size();
      }
    EXPECT_GT(matched, 0);
    // tags: even forward (owner -> halo copies), odd for reverse increments, which only `reverse` sends
    long odd = 0, oddsum = 0;
    for (size_t k = 0; k < S.sent.size(); k += 5) odd += S.sent[k + 4] & 1;
    MPI_Allreduce(&odd, &oddsum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (incs == UM_INCREMENTS_REVERSE) EXPECT_GT(oddsum, 0);
    else EXPECT_EQ(oddsum, 0);
  }
}

TEST(DistributedTransport, DeviceWhereItCannotRunFailsOnEveryRank) {
  if (um_mpi_size() < 2) GTEST_SKIP() << "one rank: um_distribute does nothing";
  Grid g(6);
  for (int c = 0; c < 2; c++) {
    peer_one_device = c == 0;
    peer_unusable_rank = c == 1 ? 1 : -1;
    um_options o;
    um_options_default(&o);
    o.backend = "shadow-peer";
    o.extra_backends = shadow_peer_list;
    o.nextra_backends = 1;
    o.extra_transports = shadow_transports;
    o.nextra_transports = 1;
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), 0);
    ASSERT_EQ(um_context_set_gpu_transport(ctx, UM_TRANSPORT_DEVICE), 0);
    um_set *cells = nullptr, *edges = nullptr;
    um_map *ec = nullptr;
    ASSERT_EQ(um_decl_set(ctx, g.ncell, "cells", &cells), 0);
    ASSERT_EQ(um_decl_set(ctx, g.nedge, "edges", &edges), 0);
    ASSERT_EQ(um_decl_map(ctx, edges, cells, 2, g.edge_cells.data(), "edge_cells", &ec), 0);
    EXPECT_NE(um_distribute(ctx, "cells", "block"), 0);
    const char *msg = um_error_message(ctx);
    EXPECT_NE(strstr(msg, "mpi.gpu_transport shadow-peer cannot run"), nullptr) << msg;
    EXPECT_NE(strstr(msg, c == 0 ? "share one GPU" : "rank 1 cannot use shadow-peer"), nullptr) << msg;
    EXPECT_EQ(um_context_nranks(ctx), 1);  // not distributed
    um_finalize(&ctx);
  }
  peer_one_device = false;
  peer_unusable_rank = -1;
}

TEST(DistributedErrors, NaNOnOneRankStopsEveryRank) {
  Grid g(6);
  Mesh d;
  d.build(g, "seq", true, "metis");
  std::vector<double> a(g.ncell, 1.0);
  a[g.ncell - 1] = NAN;  // owned by one rank only
  ASSERT_EQ(um_dat_update(d.ctx, d.a, a.data(), a.size() * sizeof(double)), 0);
  double mn = 0, mx = 0, sum = 0;
  const int rc = UM_PAR_LOOP(d.ctx, nan_minmax_kernel, "nan_minmax", d.cells, um_arg_dat(d.a, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                             um_arg_gbl(&mn, 1, UM_DOUBLE, UM_MIN), um_arg_gbl(&mx, 1, UM_DOUBLE, UM_MAX),
                             um_arg_gbl(&sum, 1, UM_DOUBLE, UM_INC));
  EXPECT_EQ(rc, UM_ERR_DIVERGED);  // on every rank: the combined values are NaN everywhere
  EXPECT_TRUE(std::isnan(mn) && std::isnan(mx) && std::isnan(sum));
}

TEST(DistributedErrors, AfterTheFirstLoopOrTwiceIsRefused) {
  if (um_mpi_size() < 2) GTEST_SKIP() << "one rank: um_distribute does nothing";
  Grid g(4);
  Mesh d;
  d.build(g, "seq", true, "metis");
  EXPECT_EQ(um_distribute(d.ctx, "cells", "metis"), UM_ERR_ARG);
  EXPECT_NE(std::strstr(um_error_message(d.ctx), "distributed already"), nullptr);
  um_set *s = nullptr;
  EXPECT_EQ(um_decl_set(d.ctx, 3, "late", &s), UM_ERR_ARG);
  Mesh e;
  e.build(g, "seq", false, "metis");
  double sum = 0, mx = 0;
  int cnt = 0;
  e.step(&sum, &cnt, &mx);
  EXPECT_EQ(um_distribute(e.ctx, "cells", "metis"), UM_ERR_ARG);
  EXPECT_NE(std::strstr(um_error_message(e.ctx), "has run already"), nullptr);
  EXPECT_EQ(um_distribute(e.ctx, "nope", "metis"), UM_ERR_ARG);  // still refused first: loops ran
  Mesh f;
  f.build(g, "seq", false, "metis");
  EXPECT_EQ(um_distribute(f.ctx, "nope", "metis"), UM_ERR_CONFIG);
  EXPECT_NE(std::strstr(um_error_message(f.ctx), "no set named 'nope'"), nullptr);
  EXPECT_EQ(um_distribute(f.ctx, "cells", "parmetis"), UM_ERR_CONFIG);
}

// A partitioner's name is checked on one rank too (where nothing is partitioned): a name one rank accepts would fail
// on several.
TEST(DistributedErrors, AnUnknownPartitionerIsRefusedOnAnyNumberOfRanks) {
  Grid g(4);
  Mesh f;
  f.build(g, "seq", false, "metis");
  EXPECT_EQ(um_distribute(f.ctx, "cells", "parmetis"), UM_ERR_CONFIG);
  EXPECT_NE(std::strstr(um_error_message(f.ctx), "mpi.partitioner = 'parmetis'"), nullptr) << um_error_message(f.ctx);
}

// HDF5 outputs of a distributed context: rank 0 writes the file from the gathers every rank joins, the other ranks
// write nothing (their path is not used); a write that fails on rank 0 (a folder where its file goes) fails on every
// rank at the same step with rank 0's message, where the others would otherwise wait in the next gather.
TEST(DistributedHdf5, RankZeroWritesAndItsFailedWriteFailsEveryRank) {
  const int rank = um_mpi_rank();
  Grid g(6);
  Mesh d;
  d.build(g, "seq", true, "metis");
  char dir[4096] = "";
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/um-mpi-h5-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  const bool made = rank > 0 || mkdtemp(dir) != nullptr;
  EXPECT_TRUE(made) << dir;
  MPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  const std::string own = rank ? "-rank" + std::to_string(rank) : "";
  const std::string mesh = std::string(dir) + "/mesh" + own + ".h5", bad = std::string(dir) + "/bad" + own + ".h5";
  EXPECT_EQ(um_hdf5_write_mesh(d.ctx, mesh.c_str()), UM_SUCCESS) << um_error_message(d.ctx);
  struct stat st;
  if (rank == 0) EXPECT_EQ(stat(mesh.c_str(), &st), 0) << "rank 0 did not write " << mesh;
  else EXPECT_NE(stat(mesh.c_str(), &st), 0) << "rank " << rank << " wrote a copy of its own: " << mesh;
  if (rank == 0) EXPECT_EQ(mkdir(bad.c_str(), 0700), 0);  // the others' paths would work
  um_mpi_barrier();
  EXPECT_EQ(um_hdf5_write_mesh(d.ctx, bad.c_str()), UM_ERR_IO);
  EXPECT_NE(std::strstr(um_error_message(d.ctx), (std::string(dir) + "/bad.h5").c_str()), nullptr)
      << "rank " << rank << ": " << um_error_message(d.ctx);
  EXPECT_EQ(um_hdf5_write_dat(d.ctx, bad.c_str(), d.q), UM_ERR_IO);
  EXPECT_NE(std::strstr(um_error_message(d.ctx), "is a folder"), nullptr)
      << "rank " << rank << ": " << um_error_message(d.ctx);
  um_mpi_barrier();
  if (rank == 0) {
    EXPECT_EQ(unlink(mesh.c_str()), 0);
    EXPECT_EQ(rmdir(bad.c_str()), 0);
    EXPECT_EQ(rmdir(dir), 0) << dir << ": something else was left in it";
  }
}

// Every partitioner (the graph's and the geometric ones), on a set smaller than the rank count: blocks (some
// ranks own nothing), said in the note;
// on a set large enough: the partitioner asked for, every part non-empty, the same parts on every rank.
TEST(DistributedPartitioners, FallBackToBlocksWithANoteAndAgreeAcrossRanks) {
  const int P = um_mpi_size();
  if (P < 2) GTEST_SKIP() << "one rank: um_distribute does nothing";
  for (const char *part : {"metis", "ptscotch", "rcb", "sfc", "block"}) {
    if (!um_mpi_partitioner_built(part)) continue;
    Grid tiny(1);  // one cell, no edge: fewer cells than ranks
    Mesh t;
    t.build(tiny, "seq", true, part);
    um_partition_info info;
    ASSERT_EQ(um_partition_info_get(t.ctx, &info), 0);
    EXPECT_STREQ(info.partitioner, "block") << part;
    const bool geom = !strcmp(part, "rcb") || !strcmp(part, "sfc");  // they say it by the parts they leave empty
    if (strcmp(part, "block"))
      EXPECT_NE(std::strstr(info.note, geom ? "parts empty" : "fewer elements"), nullptr) << part << ": " << info.note;
    Grid g(12);
    Mesh m;
    m.build(g, "seq", true, part);
    ASSERT_EQ(um_partition_info_get(m.ctx, &info), 0);
    EXPECT_STREQ(info.partitioner, part) << info.note;
    int owned = 0, total = 0, none = 0;
    for (int q = 0; q < P; q++) {
      ASSERT_EQ(um_set_partition(m.cells, q, &owned, nullptr, nullptr), 0);
      total += owned;
      none += owned == 0;
    }
    EXPECT_EQ(total, g.ncell) << part;
    EXPECT_EQ(none, 0) << part;
    if (strcmp(part, "block")) EXPECT_LT(info.edge_cut, g.nedge / 2) << part << ": a graph partitioner cuts few edges";
    // the ranks' shares of the quality check, combined: blocks of rows are connected and cut some edges
    if (P > 1) EXPECT_GT(info.edge_cut, 0) << part;
    if (!strcmp(part, "block")) EXPECT_EQ(std::strstr(info.note, "not connected"), nullptr) << info.note;
  }
}

// Airfoil (five loops, four sets, five maps) on the ranks against one process.
// Also on a mesh whose core edges on each rank run in pieces with MPI progress between them (120 x 180: over
// 100K edges, so some 30K or more core edges a rank on up to 4 ranks, pieces of 8192: um__dist_progress_piece).
TEST(DistributedAirfoil, MatchesOneProcess) {
  for (int big = 0; big < 2; big++)
  for (const char *part : {"metis", "block"}) {
    SCOPED_TRACE(big ? "120 x 180" : "20 x 30");
    airfoil_mesh m;
    char err[256];
    ASSERT_EQ(airfoil_mesh_generate(big ? 120 : 20, big ? 180 : 30, 1, &m, err, sizeof err), 0) << err;
    um_context *c[2] = {nullptr, nullptr};
    airfoil a[2];
    for (int k = 0; k < 2; k++) {
      um_options o;
      um_options_default(&o);
      o.backend = "seq";
      ASSERT_EQ(um_init(&c[k], &o), 0);
      memset(&a[k], 0, sizeof a[k]);
      ASSERT_EQ(airfoil_set_constants(c[k]), 0);
      ASSERT_EQ(airfoil_decl_mesh(c[k], &m, &a[k]), 0);
      ASSERT_EQ(airfoil_decl_flow(c[k], &a[k]), 0);
      if (k == 1) ASSERT_EQ(um_distribute(c[k], "cells", part), 0) << um_error_message(c[k]);
    }
    airfoil_mesh_free(&m);
    for (int it = 0; it < (big ? 5 : 20); it++) {
      double r0 = 0, r1 = 0;
      ASSERT_EQ(airfoil_iteration(c[0], &a[0], &r0), 0);
      ASSERT_EQ(airfoil_iteration(c[1], &a[1], &r1), 0) << um_error_message(c[1]);
      ASSERT_NEAR(r1, r0, 1e-12 * r0) << part << " iteration " << it;
    }
    const int n = um_set_size(a[0].cells);
    std::vector<double> q0(4 * (size_t)n), q1(q0.size());
    ASSERT_EQ(um_dat_fetch(c[0], a[0].p_q, q0.data(), q0.size() * sizeof(double)), 0);
    ASSERT_EQ(um_dat_fetch(c[1], a[1].p_q, q1.data(), q1.size() * sizeof(double)), 0);
    expect_near_all(q1, q0, 1e-12, "p_q");
    um_finalize(&c[0]);
    um_finalize(&c[1]);
  }
}

// um_loop_stats_across_ranks: per loop the fastest, mean and slowest rank's time, and which ranks those are (each
// named rank's own time is the extreme: checked against every rank's own seconds gathered here).
TEST(DistributedLoopStats, FastestAndSlowestRanksAreNamed) {
  airfoil_mesh m;
  char err[256];
  ASSERT_EQ(airfoil_mesh_generate(20, 30, 1, &m, err, sizeof err), 0) << err;
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  um_context *c = nullptr;
  ASSERT_EQ(um_init(&c, &o), 0);
  airfoil a;
  memset(&a, 0, sizeof a);
  ASSERT_EQ(airfoil_set_constants(c), 0);
  ASSERT_EQ(airfoil_decl_mesh(c, &m, &a), 0);
  ASSERT_EQ(airfoil_decl_flow(c, &a), 0);
  ASSERT_EQ(um_distribute(c, "cells", "block"), 0) << um_error_message(c);
  airfoil_mesh_free(&m);
  for (int it = 0; it < 5; it++) {
    double r = 0;
    ASSERT_EQ(airfoil_iteration(c, &a, &r), 0) << um_error_message(c);
  }
  um_loop_stats s;
  ASSERT_EQ(um_loop_stats_get(c, 0, &s), 0);
  EXPECT_EQ(s.rank_fastest, -1) << "not combined yet";
  ASSERT_EQ(um_loop_stats_across_ranks(c), 0) << um_error_message(c);
  int nranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  for (int i = 0; i < um_loop_stats_count(c); i++) {
    ASSERT_EQ(um_loop_stats_get(c, i, &s), 0);
    SCOPED_TRACE(s.name);
    std::vector<double> own(nranks);
    MPI_Allgather(&s.seconds, 1, MPI_DOUBLE, own.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
    if (nranks == 1) {
      EXPECT_EQ(s.rank_slowest, -1);
      continue;
    }
    ASSERT_GE(s.rank_fastest, 0);
    ASSERT_LT(s.rank_fastest, nranks);
    ASSERT_GE(s.rank_slowest, 0);
    ASSERT_LT(s.rank_slowest, nranks);
    EXPECT_EQ(own[s.rank_slowest], s.seconds_rank_max);
    EXPECT_EQ(own[s.rank_fastest], s.seconds_rank_min);
    EXPECT_EQ(*std::max_element(own.begin(), own.end()), s.seconds_rank_max);
    EXPECT_EQ(*std::min_element(own.begin(), own.end()), s.seconds_rank_min);
    EXPECT_LE(s.seconds_rank_min, s.seconds_rank_mean);
    EXPECT_LE(s.seconds_rank_mean, s.seconds_rank_max * (1 + 1e-12));
  }
  um_finalize(&c);
}

// Vector arguments (um_arg_vec) under um_distribute: the halos are built per map over every index of its
// rows, so a vector READ finds every neighbour, and a vector INC into targets other ranks own reaches them
// (exec halo run redundantly, or the increments sent back: REVERSE). A vector INC, then a vector READ of the
// incremented dat (its halo exchanged), equal one process exactly (the values are small integers).
TEST(DistributedVecArgs, MatchOneProcess) {
  const tvw::Mesh m = tvw::make(600, 40, 77);
  for (um_increments inc : {UM_INCREMENTS_REDUNDANT, UM_INCREMENTS_REVERSE})
    for (const char *backend : {"seq", "openmp"}) {
      if (!um_backend_available(backend)) continue;
      std::vector<double> res[2];
      for (int dist = 0; dist < 2; dist++) {
        um_options o;
        um_options_default(&o);
        o.backend = backend;
        o.nthreads = 2;
        um_options_set(&o, "openmp.parallel_threshold", "0");
        o.block_size = 32;
        o.check_plans = 1;
        um_context *ctx = nullptr;
        ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
        tvw::Decl D = tvw::declare(ctx, m);
        um_dat *q = tvw::dat(ctx, D.cells, 2, UM_DOUBLE, m.q.data(), "q", UM_AOS);
        um_dat *acc = tvw::dat(ctx, D.cells, 2, UM_DOUBLE, nullptr, "acc", UM_SOA);
        um_dat *out = tvw::dat(ctx, D.cells, 2, UM_DOUBLE, nullptr, "out", UM_AOS);
        if (dist) {
          ASSERT_EQ(um_distribute(ctx, "cells", "block"), UM_SUCCESS) << um_error_message(ctx);
          int core = 0, exec = 0, nonexec = 0;
          um_set_ranges(D.cells, &core, &exec, &nonexec);
          if (um_mpi_size() > 1) EXPECT_GT(exec, 0) << "rows reach cells of other ranks: an exec halo to run";
        }
        ASSERT_EQ(um_context_set_increments(ctx, inc), UM_SUCCESS);
        for (int it = 0; it < 2; it++) {
          um_arg s[2] = {um_arg_dat(q, -1, UM_ID, 2, UM_DOUBLE, UM_READ), um_arg_vec(acc, D.nbr, 2, UM_DOUBLE, UM_INC)};
          ASSERT_EQ(um_par_loop(ctx, &tv_scatter_vec_kernel, "scatter", D.cells, 2, s), UM_SUCCESS)
              << um_error_message(ctx);
          um_arg r[2] = {um_arg_vec(acc, D.nbr, 2, UM_DOUBLE, UM_READ), um_arg_dat(out, -1, UM_ID, 2, UM_DOUBLE, UM_WRITE)};
          ASSERT_EQ(um_par_loop(ctx, &tv_sum_vec_kernel, "sum", D.cells, 2, r), UM_SUCCESS) << um_error_message(ctx);
        }
        res[dist] = tvw::fetch<double>(ctx, acc, 2 * m.n);
        const std::vector<double> o2 = tvw::fetch<double>(ctx, out, 2 * m.n);
        res[dist].insert(res[dist].end(), o2.begin(), o2.end());
        um_finalize(&ctx);
      }
      EXPECT_EQ(res[1], res[0]) << backend << " " << um_increments_name(inc) << " on " << um_mpi_size() << " ranks";
    }
}

// Whole-dat arguments (um_arg_whole) need every row on every rank: after um_distribute over several ranks a loop
// with one is refused on every rank, saying so (and the context goes on: a loop without one still runs); on one
// rank it runs.
TEST(DistributedVecArgs, WholeDatArgumentsAreRefused) {
  const tvw::Mesh m = tvw::make(200, 3, 5);
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  tvw::Decl D = tvw::declare(ctx, m);
  um_dat *q = tvw::dat(ctx, D.cells, 2, UM_DOUBLE, m.q.data(), "q", UM_AOS);
  um_dat *out = tvw::dat(ctx, D.cells, 2, UM_DOUBLE, nullptr, "out", UM_AOS);
  ASSERT_EQ(um_distribute(ctx, "cells", "block"), UM_SUCCESS) << um_error_message(ctx);
  um_arg w[2] = {um_arg_whole(q, 2, UM_DOUBLE, UM_READ), um_arg_dat(out, -1, UM_ID, 2, UM_DOUBLE, UM_WRITE)};
  if (um_mpi_size() > 1) {
    EXPECT_EQ(um_par_loop(ctx, &tv_sum_vec_kernel, "whole", D.cells, 2, w), UM_ERR_UNSUPPORTED);
    EXPECT_NE(std::string(um_error_message(ctx)).find("needs every row of the dat on every rank"), std::string::npos)
        << um_error_message(ctx);
  } else {  // one rank holds every row: it runs
    EXPECT_EQ(um_par_loop(ctx, &tv_sum_vec_kernel, "whole", D.cells, 2, w), UM_SUCCESS) << um_error_message(ctx);
  }
  um_arg r[2] = {um_arg_vec(q, D.nbr, 2, UM_DOUBLE, UM_READ), um_arg_dat(out, -1, UM_ID, 2, UM_DOUBLE, UM_WRITE)};
  EXPECT_EQ(um_par_loop(ctx, &tv_sum_vec_kernel, "sum", D.cells, 2, r), UM_SUCCESS) << um_error_message(ctx);
  um_finalize(&ctx);
}

// Reverse increments keep signed zeros: a target that holds -0.0 and gets only -0.0 added, some of it from
// other ranks' elements, stays -0.0 as on one process (the halo copies start at -0.0, the additive identity,
// not +0.0: +0.0 + -0.0 is +0.0). Bits against one process, seq and openmp, AoS and SoA.
TEST(DistributedSignedZero, ReverseIncrementsKeepMinusZero) {
  const umtest::Mesh m = umtest::random_mesh(300, 1200, 1, 23u);
  std::vector<double> w(m.nedge), r0(2 * (size_t)m.nnode);
  std::vector<float> f0(m.nnode);
  for (int e = 0; e < m.nedge; e++) w[e] = e % 7 == 0 ? 0.0 : -0.0;
  for (int i = 0; i < m.nnode; i++) {
    for (int c = 0; c < 2; c++) r0[2 * i + c] = (i + c) % 2 ? 0.0 : -0.0;
    f0[i] = i % 3 ? -0.0f : 0.0f;
  }
  for (const char *backend : {"seq", "openmp", "cuda"})  // cuda: the halo copies set to -0.0 by a fill kernel
    for (um_layout layout : {UM_AOS, UM_SOA}) {
      if (!um_backend_available(backend)) continue;
      std::vector<double> rr[2];
      std::vector<float> ff[2];
      for (int dist = 0; dist < 2; dist++) {
        um_options o;
        um_options_default(&o);
        o.backend = backend;
        o.nthreads = 2;
        um_options_set(&o, "openmp.parallel_threshold", "0");
        o.layout = layout;
        um_context *ctx = nullptr;
        ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
        um_set *nodes, *edges;
        um_map *pedge;
        um_dat *dw, *r, *f;
        ASSERT_EQ(um_decl_set(ctx, m.nnode, "nodes", &nodes), UM_SUCCESS);
        ASSERT_EQ(um_decl_set(ctx, m.nedge, "edges", &edges), UM_SUCCESS);
        ASSERT_EQ(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge), UM_SUCCESS);
        ASSERT_EQ(um_decl_dat(ctx, edges, 1, UM_DOUBLE, w.data(), "w", &dw), UM_SUCCESS);
        ASSERT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, r0.data(), "r", &r), UM_SUCCESS);
        ASSERT_EQ(um_decl_dat(ctx, nodes, 1, UM_FLOAT, f0.data(), "f", &f), UM_SUCCESS);
        if (dist) ASSERT_EQ(um_distribute(ctx, "nodes", "block"), UM_SUCCESS) << um_error_message(ctx);
        ASSERT_EQ(um_context_set_increments(ctx, UM_INCREMENTS_REVERSE), UM_SUCCESS);
        um_arg a[4] = {um_arg_dat(dw, -1, UM_ID, 1, UM_DOUBLE, UM_READ), um_arg_dat(r, 0, pedge, 2, UM_DOUBLE, UM_INC),
                       um_arg_dat(r, 1, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(f, 1, pedge, 1, UM_FLOAT, UM_INC)};
        ASSERT_EQ(um_par_loop(ctx, &tk_split_signed_zero_kernel, "signed_zero", edges, 4, a), UM_SUCCESS)
            << um_error_message(ctx);
        if (dist && um_mpi_size() > 1) {
          um_loop_stats st;
          ASSERT_EQ(um_loop_stats_get(ctx, 0, &st), UM_SUCCESS);
          EXPECT_EQ(st.reverse_increments, 1) << "the increments were sent back";
        }
        rr[dist].resize(r0.size());
        ff[dist].resize(f0.size());
        ASSERT_EQ(um_dat_fetch(ctx, r, rr[dist].data(), rr[dist].size() * sizeof(double)), UM_SUCCESS);
        ASSERT_EQ(um_dat_fetch(ctx, f, ff[dist].data(), ff[dist].size() * sizeof(float)), UM_SUCCESS);
        um_finalize(&ctx);
      }
      int neg = 0;
      for (double v : rr[0]) neg += std::signbit(v) ? 1 : 0;
      ASSERT_GT(neg, 20) << "some targets end -0.0 on one process";
      for (size_t i = 0; i < rr[0].size(); i++)
        ASSERT_EQ(std::memcmp(&rr[1][i], &rr[0][i], sizeof(double)), 0)
            << backend << " " << um_layout_name(layout) << ": r[" << i / 2 << "][" << i % 2 << "] is " << rr[1][i]
            << " on " << um_mpi_size() << " ranks, " << rr[0][i] << " on one process";
      for (size_t i = 0; i < ff[0].size(); i++)
        ASSERT_EQ(std::memcmp(&ff[1][i], &ff[0][i], sizeof(float)), 0)
            << backend << " " << um_layout_name(layout) << ": f[" << i << "] is " << ff[1][i] << " on "
            << um_mpi_size() << " ranks, " << ff[0][i] << " on one process";
    }
}

}  // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  um_mpi_start(&argc, &argv, nullptr, nullptr);
  if (um_mpi_rank() > 0) {  // one report: rank 0's (a failure elsewhere still fails the exit status)
    ::testing::TestEventListeners &l = ::testing::UnitTest::GetInstance()->listeners();
    delete l.Release(l.default_result_printer());
  }
  int rc = RUN_ALL_TESTS();
  rc = um_mpi_agree(rc, -1);
  um_mpi_finish();
  return rc;
}
