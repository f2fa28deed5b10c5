// GoogleTest unit tests for the Airfoil C-mesh generator and the new_grid.dat
// reader/writer (apps/airfoil/naca0012.h).
#include <gtest/gtest.h>

#include <cstdio>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

extern "C" {
#include "naca0012.h"
}

namespace {

// RAII holder so that a failing assertion never leaks a mesh.
struct Mesh {
  airfoil_mesh m;
  Mesh() { std::memset(&m, 0, sizeof m); }
  ~Mesh() { airfoil_mesh_free(&m); }
  Mesh(const Mesh &) = delete;
  Mesh &operator=(const Mesh &) = delete;
};

std::string temp_path(const std::string &tag) {
  std::string dir = ::testing::TempDir();
  if (!dir.empty() && dir.back() != '/') dir += '/';
  return dir + "um_test_airfoil_mesh_" + tag + "_" + std::to_string(static_cast<long>(getpid())) +
         ".dat";
}

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

bool mesh_is_empty(const airfoil_mesh &m) {
  return m.nnode == 0 && m.ncell == 0 && m.nedge == 0 && m.nbedge == 0 && !m.x && !m.cell &&
         !m.edge && !m.ecell && !m.bedge && !m.becell && !m.bound;
}

// Index of the position p in cell c with cell[4c+p] == a (by coordinates) and the
// next node (anticlockwise) == b, or -1.  Coordinates rather than node numbers:
// the two sides of the wake cut have distinct but coincident nodes.
int find_directed_side(const airfoil_mesh &m, int c, int a, int b) {
  for (int p = 0; p < 4; p++) {
    int na = m.cell[4 * c + p], nb = m.cell[4 * c + (p + 1) % 4];
    if (m.x[2 * na] == m.x[2 * a] && m.x[2 * na + 1] == m.x[2 * a + 1] &&
        m.x[2 * nb] == m.x[2 * b] && m.x[2 * nb + 1] == m.x[2 * b + 1])
      return p;
  }
  return -1;
}

}  // namespace

// ---------------------------------------------------------------------------
// generator
// ---------------------------------------------------------------------------

TEST(AirfoilMeshGenerate, CountsOf720kMesh) {
  Mesh h;
  char err[256] = "";
  ASSERT_EQ(airfoil_mesh_generate(400, 600, 1, &h.m, err, sizeof err), 0) << err;
  EXPECT_EQ(h.m.nnode, 721801);
  EXPECT_EQ(h.m.ncell, 720000);
  EXPECT_EQ(h.m.nedge, 1438600);
  EXPECT_EQ(h.m.nbedge, 2800);
  int wall = 0, far = 0;
  for (int b = 0; b < h.m.nbedge; b++) {
    wall += h.m.bound[b] == 1;
    far += h.m.bound[b] == 2;
  }
  EXPECT_EQ(wall, 400);   // aerofoil surface: I edges
  EXPECT_EQ(far, 2400);   // far field: 3I + 2J edges
}

// Topology and geometry of the 720K mesh as the Airfoil kernels rely on them:
// all cells anticlockwise (positive area); an edge n0->n1 is a side of ecell[1]
// in that direction and of ecell[0] reversed; a bedge n0->n1 is a side of its
// cell reversed.
TEST(AirfoilMeshGenerate, ConsistentTopologyOf720kMesh) {
  Mesh h;
  char err[256] = "";
  ASSERT_EQ(airfoil_mesh_generate(400, 600, 1, &h.m, err, sizeof err), 0) << err;
  const airfoil_mesh &m = h.m;
  int bad_area = 0, bad_range = 0, bad_edge = 0, bad_bedge = 0;
  for (int c = 0; c < m.ncell; c++) {
    double a2 = 0.0;
    for (int p = 0; p < 4; p++) {
      int n = m.cell[4 * c + p], q = m.cell[4 * c + (p + 1) % 4];
      if (n < 0 || n >= m.nnode || q < 0 || q >= m.nnode) { bad_range++; break; }
      a2 += m.x[2 * n] * m.x[2 * q + 1] - m.x[2 * q] * m.x[2 * n + 1];
    }
    bad_area += !(a2 > 0.0);
  }
  ASSERT_EQ(bad_range, 0);
  EXPECT_EQ(bad_area, 0);
  for (int e = 0; e < m.nedge; e++) {
    int n0 = m.edge[2 * e], n1 = m.edge[2 * e + 1], c0 = m.ecell[2 * e], c1 = m.ecell[2 * e + 1];
    ASSERT_TRUE(n0 >= 0 && n0 < m.nnode && n1 >= 0 && n1 < m.nnode) << "edge " << e;
    ASSERT_TRUE(c0 >= 0 && c0 < m.ncell && c1 >= 0 && c1 < m.ncell) << "edge " << e;
    bad_edge += c0 == c1 || find_directed_side(m, c1, n0, n1) < 0 ||
                find_directed_side(m, c0, n1, n0) < 0;
  }
  EXPECT_EQ(bad_edge, 0);
  for (int b = 0; b < m.nbedge; b++) {
    int n0 = m.bedge[2 * b], n1 = m.bedge[2 * b + 1], c = m.becell[b];
    ASSERT_TRUE(n0 >= 0 && n0 < m.nnode && n1 >= 0 && n1 < m.nnode && c >= 0 && c < m.ncell);
    bad_bedge += find_directed_side(m, c, n1, n0) < 0;
  }
  EXPECT_EQ(bad_bedge, 0);
}

// Expected values for I=4, J=6 come from OP2-Common's apps/mesh_generators/naca0012.m
// (commit b9e7a58da6e5876f4ed75112467bfc8f0f6dc73a) run in GNU Octave 7.3.0 with
// I=4, J=6: its new_grid.dat was byte-identical to ours (see validation/airfoil/README.md).
// With round6 the coordinates are the doubles nearest to the printed 6-decimal values,
// so they compare exactly.
TEST(AirfoilMeshGenerate, SmallMeshMatchesUpstreamScript) {
  Mesh h;
  char err[256] = "";
  ASSERT_EQ(airfoil_mesh_generate(4, 6, 1, &h.m, err, sizeof err), 0) << err;
  const airfoil_mesh &m = h.m;
  ASSERT_EQ(m.nnode, 91);
  ASSERT_EQ(m.ncell, 72);
  ASSERT_EQ(m.nedge, 130);
  ASSERT_EQ(m.nbedge, 28);

  struct { int n; double x, y; } nodes[] = {
      {0, 9.0, 0.0},           {4, 1.0, 0.0},          {5, 0.246515, -0.059037},
      {6, -0.0077, 0.0},       {7, 0.246515, 0.059037}, {12, 9.0, 0.0},
      {13, 8.75, -3.0},        {19, -0.328472, 0.0},   {20, -0.051618, 0.549198},
      {33, -0.830265, 1.039358}, {78, 0.0, -18.0},     {84, -9.0, 0.0},
      {90, 0.0, 18.0},
  };
  for (const auto &nd : nodes) {
    EXPECT_EQ(m.x[2 * nd.n], nd.x) << "node " << nd.n;
    EXPECT_EQ(m.x[2 * nd.n + 1], nd.y) << "node " << nd.n;
  }

  const int cell0[4] = {0, 1, 14, 13}, cell71[4] = {76, 77, 90, 89};
  for (int p = 0; p < 4; p++) {
    EXPECT_EQ(m.cell[p], cell0[p]);
    EXPECT_EQ(m.cell[4 * 71 + p], cell71[p]);
  }
  // edge -> node, edge -> cell: first wake-cut edge, then above, right, ...
  const int edges[][4] = {{0, 1, 11, 0}, {13, 14, 0, 12}, {1, 14, 1, 0},
                          {1, 2, 10, 1}, {14, 15, 1, 13}, {2, 15, 2, 1}};
  for (int e = 0; e < 6; e++) {
    EXPECT_EQ(m.edge[2 * e], edges[e][0]) << "edge " << e;
    EXPECT_EQ(m.edge[2 * e + 1], edges[e][1]) << "edge " << e;
    EXPECT_EQ(m.ecell[2 * e], edges[e][2]) << "edge " << e;
    EXPECT_EQ(m.ecell[2 * e + 1], edges[e][3]) << "edge " << e;
  }
  EXPECT_EQ(m.edge[2 * 129], 76);
  EXPECT_EQ(m.edge[2 * 129 + 1], 89);
  EXPECT_EQ(m.ecell[2 * 129], 71);
  EXPECT_EQ(m.ecell[2 * 129 + 1], 70);
  // bedge -> node, bedge -> cell, bound
  const int bedges[][5] = {{0, 5, 4, 4, 1},   {3, 8, 7, 7, 1},   {4, 25, 12, 11, 2},
                           {5, 38, 25, 23, 2}, {27, 0, 13, 0, 2}};
  for (const auto &b : bedges) {
    EXPECT_EQ(m.bedge[2 * b[0]], b[1]) << "bedge " << b[0];
    EXPECT_EQ(m.bedge[2 * b[0] + 1], b[2]) << "bedge " << b[0];
    EXPECT_EQ(m.becell[b[0]], b[3]) << "bedge " << b[0];
    EXPECT_EQ(m.bound[b[0]], b[4]) << "bedge " << b[0];
  }
}

TEST(AirfoilMeshGenerate, UnroundedCoordinatesAgreeWithRoundedOnes) {
  Mesh r, u;
  char err[256] = "";
  ASSERT_EQ(airfoil_mesh_generate(50, 75, 1, &r.m, err, sizeof err), 0) << err;
  ASSERT_EQ(airfoil_mesh_generate(50, 75, 0, &u.m, err, sizeof err), 0) << err;
  ASSERT_EQ(r.m.nnode, u.m.nnode);
  int differ = 0;
  for (int k = 0; k < 2 * r.m.nnode; k++) {
    EXPECT_NEAR(r.m.x[k], u.m.x[k], 5.0000001e-7) << "coordinate " << k;
    differ += r.m.x[k] != u.m.x[k];
  }
  EXPECT_GT(differ, 0);  // rounding did something
  EXPECT_EQ(std::memcmp(r.m.edge, u.m.edge, sizeof(int) * 2 * r.m.nedge), 0);
}

// Rounded, each coordinate is the double strtod gives for printf("%f") of the unrounded one, bit for bit; about
// 8% of them lie within 1e-6 of a tie at the 6th decimal (their decimals end in a 5), where the generator decides
// from the exact product (fma) instead of printing.
TEST(AirfoilMeshGenerate, RoundedCoordinatesArePrintfsSixDecimals) {
  Mesh r, u;
  char err[256] = "";
  ASSERT_EQ(airfoil_mesh_generate(800, 1200, 1, &r.m, err, sizeof err), 0) << err;
  ASSERT_EQ(airfoil_mesh_generate(800, 1200, 0, &u.m, err, sizeof err), 0) << err;
  int near_tie = 0;
  for (int k = 0; k < 2 * u.m.nnode; k++) {
    char buf[64];
    snprintf(buf, sizeof buf, "%f", u.m.x[k]);
    const double want = strtod(buf, nullptr), p = u.m.x[k] * 1e6;
    near_tie += std::fabs(p - std::floor(p) - 0.5) < 1e-6;
    ASSERT_EQ(std::memcmp(&r.m.x[k], &want, sizeof want), 0)
        << "coordinate " << k << ": " << u.m.x[k] << " printed " << buf << ", rounded to " << r.m.x[k];
  }
  EXPECT_GT(near_tie, u.m.nnode / 20) << "coordinates near a tie, which the generator decides exactly";
}

// Over threads the generator gives the same mesh, bit for bit, for any count (rounded and not).
TEST(AirfoilMeshGenerate, SameMeshForAnyThreadCount) {
  for (int round6 : {1, 0}) {
    Mesh one;
    char err[256] = "";
    ASSERT_EQ(airfoil_mesh_generate(50, 75, round6, &one.m, err, sizeof err), 0) << err;
    const airfoil_mesh &a = one.m;
    for (int nt : {2, 3, 7}) {
      Mesh t;
      ASSERT_EQ(airfoil_mesh_generate_threads(50, 75, round6, nt, &t.m, err, sizeof err), 0) << err;
      const airfoil_mesh &b = t.m;
      ASSERT_EQ(b.nedge, a.nedge);
      EXPECT_EQ(std::memcmp(b.x, a.x, sizeof(double) * 2 * a.nnode), 0) << nt;
      EXPECT_EQ(std::memcmp(b.cell, a.cell, sizeof(int) * 4 * a.ncell), 0) << nt;
      EXPECT_EQ(std::memcmp(b.edge, a.edge, sizeof(int) * 2 * a.nedge), 0) << nt;
      EXPECT_EQ(std::memcmp(b.ecell, a.ecell, sizeof(int) * 2 * a.nedge), 0) << nt;
      EXPECT_EQ(std::memcmp(b.bedge, a.bedge, sizeof(int) * 2 * a.nbedge), 0) << nt;
      EXPECT_EQ(std::memcmp(b.becell, a.becell, sizeof(int) * a.nbedge), 0) << nt;
      EXPECT_EQ(std::memcmp(b.bound, a.bound, sizeof(int) * a.nbedge), 0) << nt;
    }
  }
}

TEST(AirfoilMeshGenerate, RejectsBadArguments) {
  airfoil_mesh m;
  char err[256];
  err[0] = '\0';
  EXPECT_NE(airfoil_mesh_generate(0, 600, 1, &m, err, sizeof err), 0);
  EXPECT_TRUE(mesh_is_empty(m));
  EXPECT_NE(std::string(err).find("I and J must be >= 1"), std::string::npos) << err;
  err[0] = '\0';
  EXPECT_NE(airfoil_mesh_generate(400, -1, 1, &m, err, sizeof err), 0);
  EXPECT_TRUE(mesh_is_empty(m));
  EXPECT_STRNE(err, "");
  err[0] = '\0';
  EXPECT_NE(airfoil_mesh_generate(100000, 100000, 1, &m, err, sizeof err), 0);  // > INT_MAX nodes
  EXPECT_TRUE(mesh_is_empty(m));
  EXPECT_NE(std::string(err).find("choose smaller"), std::string::npos) << err;
  EXPECT_NE(airfoil_mesh_generate(4, 6, 1, nullptr, nullptr, 0), 0);  // no crash without err
}

// ---------------------------------------------------------------------------
// text format
// ---------------------------------------------------------------------------

TEST(AirfoilMeshText, WriteReadRoundTrip) {
  Mesh g, r;
  char err[512] = "";
  ASSERT_EQ(airfoil_mesh_generate(7, 11, 1, &g.m, err, sizeof err), 0) << err;
  const std::string path = temp_path("roundtrip");
  ASSERT_EQ(airfoil_mesh_write_text(path.c_str(), &g.m, err, sizeof err), 0) << err;
  ASSERT_EQ(airfoil_mesh_read_text(path.c_str(), &r.m, err, sizeof err), 0) << err;
  ASSERT_EQ(r.m.nnode, g.m.nnode);
  ASSERT_EQ(r.m.ncell, g.m.ncell);
  ASSERT_EQ(r.m.nedge, g.m.nedge);
  ASSERT_EQ(r.m.nbedge, g.m.nbedge);
  // coordinates were rounded like the writer rounds them: exact after the round trip
  for (int k = 0; k < 2 * g.m.nnode; k++) ASSERT_EQ(r.m.x[k], g.m.x[k]) << "coordinate " << k;
  EXPECT_EQ(std::memcmp(r.m.cell, g.m.cell, sizeof(int) * 4 * g.m.ncell), 0);
  EXPECT_EQ(std::memcmp(r.m.edge, g.m.edge, sizeof(int) * 2 * g.m.nedge), 0);
  EXPECT_EQ(std::memcmp(r.m.ecell, g.m.ecell, sizeof(int) * 2 * g.m.nedge), 0);
  EXPECT_EQ(std::memcmp(r.m.bedge, g.m.bedge, sizeof(int) * 2 * g.m.nbedge), 0);
  EXPECT_EQ(std::memcmp(r.m.becell, g.m.becell, sizeof(int) * g.m.nbedge), 0);
  EXPECT_EQ(std::memcmp(r.m.bound, g.m.bound, sizeof(int) * g.m.nbedge), 0);

  // the writer's layout is upstream's: header, then " %f %f " node lines
  const std::string text = read_file(path);
  EXPECT_EQ(text.compare(0, 40, " 264 231 437 50 \n 9.000000 0.000000 \n 7."), 0)
      << text.substr(0, 60);
  // writing what was read gives the same bytes
  const std::string path2 = temp_path("roundtrip2");
  ASSERT_EQ(airfoil_mesh_write_text(path2.c_str(), &r.m, err, sizeof err), 0) << err;
  EXPECT_EQ(read_file(path2), text);
  std::remove(path.c_str());
  std::remove(path2.c_str());
}

namespace {

// A valid 2-cell mesh; the error tests below damage one line of it.
//  nodes 0..5 on a 3x2 grid; cells (0 1 4 3), (1 2 5 4); one interior edge;
//  6 boundary edges.
const char *kTinyMesh =
    " 6 2 1 6 \n"
    " 0.000000 0.000000 \n"
    " 1.000000 0.000000 \n"
    " 2.000000 0.000000 \n"
    " 0.000000 1.000000 \n"
    " 1.000000 1.000000 \n"
    " 2.000000 1.000000 \n"
    " 0 1 4 3 \n"
    " 1 2 5 4 \n"
    " 1 4 1 0 \n"
    " 1 0 0 1 \n"
    " 2 1 1 1 \n"
    " 5 2 1 2 \n"
    " 4 5 1 2 \n"
    " 3 4 0 2 \n"
    " 0 3 0 2 \n";

// Replace line `line` (1-based) of kTinyMesh by `text` (no newline).
std::string tiny_with_line(int line, const std::string &text) {
  std::string s = kTinyMesh, out;
  std::istringstream in(s);
  std::string l;
  for (int k = 1; std::getline(in, l); k++) out += (k == line ? text : l) + "\n";
  return out;
}

struct ReadResult {
  int rc;
  std::string err;
  bool empty;
};

ReadResult read_text(const std::string &tag, const std::string &content) {
  const std::string path = temp_path(tag);
  write_file(path, content);
  airfoil_mesh m;
  std::memset(&m, 0xff, sizeof m);  // garbage in: the reader must not trust it
  char err[512] = "";
  ReadResult r;
  r.rc = airfoil_mesh_read_text(path.c_str(), &m, err, sizeof err);
  r.err = err;
  r.empty = mesh_is_empty(m);
  airfoil_mesh_free(&m);
  std::remove(path.c_str());
  return r;
}

// the message names the file and the line
void expect_error_at(const ReadResult &r, const std::string &tag, int line, const char *what) {
  EXPECT_NE(r.rc, 0);
  EXPECT_TRUE(r.empty) << "mesh not left empty after an error";
  const std::string where = temp_path(tag) + ":" + std::to_string(line) + ":";
  EXPECT_NE(r.err.find(where), std::string::npos) << "message '" << r.err << "' lacks '" << where
                                                  << "'";
  EXPECT_NE(r.err.find(what), std::string::npos) << "message '" << r.err << "' lacks '" << what
                                                 << "'";
}

}  // namespace

TEST(AirfoilMeshText, ReadsValidTinyMesh) {
  ReadResult r = read_text("tiny", kTinyMesh);
  EXPECT_EQ(r.rc, 0) << r.err;
  // trailing blank lines, CRLF line ends and a missing final newline are fine
  std::string crlf;
  for (const char *p = kTinyMesh; *p; p++) crlf += (*p == '\n') ? std::string("\r\n") : std::string(1, *p);
  EXPECT_EQ(read_text("tiny_crlf", crlf + "\n  \n").rc, 0);
  std::string nofinal = kTinyMesh;
  nofinal.pop_back();
  EXPECT_EQ(read_text("tiny_nofinal", nofinal).rc, 0);
}

TEST(AirfoilMeshText, RejectsTruncatedFile) {
  std::string s = kTinyMesh;
  ReadResult r = read_text("trunc", s.substr(0, s.find(" 1 2 5 4")));  // cut after cell 0
  expect_error_at(r, "trunc", 9, "unexpected end of file");
  EXPECT_NE(r.err.find("cell"), std::string::npos) << r.err;
  expect_error_at(read_text("trunc_mid", s.substr(0, s.find(" 1 2 5 4") + 4)), "trunc_mid", 9,
                  "expected 4 fields");
  expect_error_at(read_text("empty", ""), "empty", 1, "unexpected end of file");
}

TEST(AirfoilMeshText, RejectsIndexOutOfRange) {
  expect_error_at(read_text("cell_oor", tiny_with_line(9, " 1 2 6 4 ")), "cell_oor", 9,
                  "node index 6 out of range [0, 6)");
  expect_error_at(read_text("cell_neg", tiny_with_line(8, " 0 -1 4 3 ")), "cell_neg", 8,
                  "out of range");
  expect_error_at(read_text("edge_oor", tiny_with_line(10, " 1 4 2 0 ")), "edge_oor", 10,
                  "cell index 2 out of range [0, 2)");
  expect_error_at(read_text("bedge_oor", tiny_with_line(16, " 0 3 7 2 ")), "bedge_oor", 16,
                  "cell index 7 out of range");
}

TEST(AirfoilMeshText, RejectsMalformedLines) {
  expect_error_at(read_text("hdr", tiny_with_line(1, " 6 2 1 ")), "hdr", 1, "expected 4 fields");
  expect_error_at(read_text("hdr_neg", tiny_with_line(1, " 6 -2 1 6 ")), "hdr_neg", 1, "ncell");
  expect_error_at(read_text("hdr_big", tiny_with_line(1, " 6 2 99999999999 6 ")), "hdr_big", 1,
                  "not an integer");
  expect_error_at(read_text("coord", tiny_with_line(3, " 1.0x 0.000000 ")), "coord", 3,
                  "not a finite number");
  expect_error_at(read_text("coord_nan", tiny_with_line(3, " nan 0.0 ")), "coord_nan", 3,
                  "not a finite number");
  expect_error_at(read_text("float_idx", tiny_with_line(8, " 0 1.5 4 3 ")), "float_idx", 8,
                  "not an integer");
  expect_error_at(read_text("extra_field", tiny_with_line(10, " 1 4 1 0 7 ")), "extra_field", 10,
                  "found more than 4");
  expect_error_at(read_text("extra_data", std::string(kTinyMesh) + " 0 3 0 2 \n"), "extra_data",
                  17, "unexpected data after");
  std::string nul = tiny_with_line(4, " 2.0");
  nul.insert(nul.find(" 2.0") + 2, 1, '\0');
  expect_error_at(read_text("nul", nul), "nul", 4, "NUL");
}

TEST(AirfoilMeshText, ReportsMissingFileAndBadArguments) {
  airfoil_mesh m;
  char err[512] = "";
  const std::string path = temp_path("does_not_exist");
  EXPECT_NE(airfoil_mesh_read_text(path.c_str(), &m, err, sizeof err), 0);
  EXPECT_TRUE(mesh_is_empty(m));
  EXPECT_NE(std::string(err).find(path), std::string::npos) << err;
  EXPECT_NE(airfoil_mesh_read_text(path.c_str(), &m, nullptr, 0), 0);  // no crash without err
  EXPECT_NE(airfoil_mesh_read_text(nullptr, &m, err, sizeof err), 0);
  EXPECT_NE(airfoil_mesh_write_text("/nonexistent-dir/x.dat", &m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("/nonexistent-dir/x.dat"), std::string::npos) << err;
}

// Issue 15, fault 3: the header decides the allocations, so its counts are
// checked against the file's size before anything is allocated, and the
// message says which count is implausible (a 70-byte file claiming a billion
// nodes made the reader allocate 16 GB).
TEST(AirfoilMeshText, RejectsCountsTheFileCannotHold) {
  std::string small = " 1000000000 2 1 6 \n" + std::string(kTinyMesh).substr(std::string(kTinyMesh).find('\n') + 1);
  ReadResult r = read_text("hdr_huge_nodes", small);
  expect_error_at(r, "hdr_huge_nodes", 1, "nnode = 1000000000 is implausible");
  ReadResult e = read_text("hdr_huge_edges", tiny_with_line(1, " 6 2 2000000000 6 "));
  expect_error_at(e, "hdr_huge_edges", 1, "nedge = 2000000000 is implausible");
  // each count alone fits, together they do not
  ReadResult t = read_text("hdr_sum", tiny_with_line(1, " 6 2 40 6 "));
  EXPECT_NE(t.rc, 0);
  EXPECT_TRUE(t.err.find("need at least") != std::string::npos || t.err.find("implausible") != std::string::npos)
      << t.err;
}

// Issue 15, fault 11: a boundary code other than 1 (wall) or 2 (far field) was
// silently taken as far field.
TEST(AirfoilMeshText, RejectsUnknownBoundaryCodes) {
  expect_error_at(read_text("bound3", tiny_with_line(16, " 0 3 0 3 ")), "bound3", 16,
                  "boundary code 3 is neither 1 (wall) nor 2 (far field)");
}

// ---- the generator by blocks -------------------------------------------------------------------------------

// The blocks of P ranks, put end to end, are the whole mesh: the same coordinates (bits), connectivity and flags,
// for any P and for block boundaries anywhere in a grid row (row lengths differ for edges), both roundings.
TEST(AirfoilMeshBlocks, BlocksEndToEndAreTheWholeMesh) {
  for (int ij : {0, 1, 2}) {
    const int I = ij == 0 ? 1 : ij == 1 ? 7 : 50, J = ij == 0 ? 1 : ij == 1 ? 5 : 75;
    for (int round6 : {0, 1}) {
      Mesh whole;
      char err[256];
      ASSERT_EQ(airfoil_mesh_generate(I, J, round6, &whole.m, err, sizeof err), 0) << err;
      const long long gsize[4] = {whole.m.nnode, whole.m.ncell, whole.m.nedge, whole.m.nbedge};
      for (int P : {1, 2, 3, 5, 7}) {
        const int rows32 = P % 2; // 32-bit rows on odd rank counts, 64-bit on even ones
        for (int r = 0; r < P; r++) {
          long long first[4], count[4];
          for (int s = 0; s < 4; s++) {
            first[s] = r * gsize[s] / P;
            count[s] = (r + 1) * gsize[s] / P - first[s];
          }
          airfoil_block b;
          ASSERT_EQ(airfoil_block_generate(I, J, round6, first, count, rows32, &b, err, sizeof err), 0) << err;
          for (int s = 0; s < 4; s++) EXPECT_EQ(b.gsize[s], gsize[s]);
          ASSERT_EQ(b.cell == nullptr, rows32 != 0);
          ASSERT_EQ(b.cell32 == nullptr, rows32 == 0);
          // entry k of a map's rows, whichever width
          auto at = [](const long long *w, const int *n, long long k) { return w ? w[k] : (long long)n[k]; };
          const auto &m = whole.m;
          int bad = 0;
          for (int k = 0; k < b.count[0] && bad < 3; k++)
            for (int c = 0; c < 2; c++)
              bad += std::memcmp(&b.x[2 * k + c], &m.x[2 * (first[0] + k) + c], sizeof(double)) != 0;
          for (int k = 0; k < 4 * b.count[1]; k++) bad += at(b.cell, b.cell32, k) != m.cell[4 * first[1] + k];
          for (int k = 0; k < 2 * b.count[2]; k++)
            bad += at(b.edge, b.edge32, k) != m.edge[2 * first[2] + k] ||
                   at(b.ecell, b.ecell32, k) != m.ecell[2 * first[2] + k];
          for (int k = 0; k < b.count[3]; k++)
            bad += at(b.bedge, b.bedge32, 2 * k) != m.bedge[2 * (first[3] + k)] ||
                   at(b.bedge, b.bedge32, 2 * k + 1) != m.bedge[2 * (first[3] + k) + 1] ||
                   at(b.becell, b.becell32, k) != m.becell[first[3] + k] || b.bound[k] != m.bound[first[3] + k];
          EXPECT_EQ(bad, 0) << "I=" << I << " J=" << J << " round6=" << round6 << ": rank " << r << " of " << P;
          airfoil_block_free(&b);
        }
      }
    }
  }
}

TEST(AirfoilMeshBlocks, RejectsABlockOutsideTheMesh) {
  airfoil_block b;
  char err[256] = "";
  long long first[4] = {0, 0, 0, 0}, count[4] = {1, 1, 1, 1};
  first[2] = 22325;  // I=50, J=75 has 22325 edges: [22325, 22326) is past its end
  EXPECT_NE(airfoil_block_generate(50, 75, 1, first, count, 0, &b, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("edges"), std::string::npos) << err;
  EXPECT_EQ(b.x, nullptr);
  EXPECT_NE(airfoil_block_generate(0, 75, 1, count, count, 1, &b, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("I and J must be >= 1"), std::string::npos) << err;
}
