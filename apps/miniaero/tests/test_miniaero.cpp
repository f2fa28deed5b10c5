// miniAero: the deck reader, the mesh generator's numbering and geometry, and
// the flux kernels' basic properties (end-to-end runs against upstream's gold
// files are umrun tests in apps/miniaero/CMakeLists.txt).
#include <gtest/gtest.h>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

extern "C" {
#include "miniaero.h"
#include "miniaero_kernels.h"
}

UM_CONST_DEFINE(double, ma_dt);
UM_CONST_DEFINE(double, ma_inflow[5]);

namespace {

std::string parse_error(const char *text) {
  ma_inputs in;
  char err[1024] = "";
  int rc = ma_inputs_parse(text, "deck.inp", &in, err, sizeof err);
  return rc ? std::string(err) : std::string();
}

TEST(MiniaeroInputs, ReadsUpstreamSodDeck) {
  ma_inputs in;
  char err[512] = "";
  ASSERT_EQ(ma_inputs_parse("0\n0.3048 1.0 1.0 0.0\n128 4 4 \n100\n2e-6\n1\n100\n0\n0\n", "sod.inp", &in, err, sizeof err),
            UM_SUCCESS)
      << err;
  EXPECT_EQ(in.problem, 0);
  EXPECT_DOUBLE_EQ(in.lx, 0.3048);
  EXPECT_EQ(in.nx, 128);
  EXPECT_EQ(in.nz, 4);
  EXPECT_EQ(in.steps, 100);
  EXPECT_DOUBLE_EQ(in.dt, 2e-6);
  EXPECT_EQ(in.output_frequency, 100);
  EXPECT_EQ(in.second_order, 0);
  EXPECT_EQ(in.viscous, 0);
}

TEST(MiniaeroInputs, BadDecksSayWhatAndWhere) {
  EXPECT_NE(parse_error("0\n1 1 1 0\n4 4 x\n1\n1e-6\n1\n1\n0\n0\n").find("deck.inp:3: entry 8 (nz): expected an integer, got 'x'"),
            std::string::npos);
  EXPECT_NE(parse_error("0\n1 1 1 0\n4 4 4\n").find("deck.inp:4: the deck ends before entry 9 (ntimesteps)"),
            std::string::npos);
  EXPECT_NE(parse_error("7\n1 1 1 0\n4 4 4\n1\n1e-6\n1\n1\n0\n0\n").find("problem type 7 is unknown"), std::string::npos);
  EXPECT_NE(parse_error("0\n1 1 1 0\n0 4 4\n1\n1e-6\n1\n1\n0\n0\n").find("cells per direction 0 x 4 x 4"),
            std::string::npos);
  EXPECT_NE(parse_error("0\n1 1 1 0\n4 4 4\n1\n-1e-6\n1\n1\n0\n0\n").find("time step dt = -1e-06: must be > 0"),
            std::string::npos);
  EXPECT_NE(parse_error("0\n1 1 1 0\n4 4 4\n1\n1e-6x\n1\n1\n0\n0\n").find("entry 10 (dt): expected a number"),
            std::string::npos);
  // the fuzzer's deck: three counts whose product is past a long long (the check must not overflow computing it)
  EXPECT_NE(parse_error("0\n0.3048 1.0 1.0 0.0\n1255555558 40 1255555558\n1\n1e-6\n1\n1\n0\n0\n")
                .find("1255555558 x 40 x 1255555558 cells is more than this build handles"),
            std::string::npos);
  EXPECT_NE(parse_error("0\n1 1 1 0\n2147483647 2147483647 2147483647\n1\n1e-6\n1\n1\n0\n0\n").find("more than this build"),
            std::string::npos);
  EXPECT_NE(parse_error("0\n1 1 1 0\n1000 1000 358\n1\n1e-6\n1\n1\n0\n0\n").find("more than this build"),
            std::string::npos);  // 358e6 cells > INT_MAX / 6 = 357913941
  EXPECT_EQ(parse_error("0\n1 1 1 0\n1000 1000 357\n1\n1e-6\n1\n1\n0\n0\n"), "");  // 357e6 cells: at the bound
  EXPECT_EQ(parse_error("0\n1 1 1 0\n4 4 4\n1\n1e-6\n1\n1\n0\n0\ntrailing words are ignored, as upstream does\n"), "");
}

// the deck's three switches are 0 or 1 (a 2 ran second order, a -1 viscous); the message names the line and entry
TEST(MiniaeroInputs, SwitchesAreZeroOrOne) {
  EXPECT_NE(parse_error("0\n1 1 1 0\n4 4 4\n1\n1e-6\n2\n1\n0\n0\n")
                .find("deck.inp:6: entry 11 (output_results): 2 is not a switch: use 0 (off) or 1 (on)"),
            std::string::npos);
  EXPECT_NE(parse_error("0\n1 1 1 0\n4 4 4\n1\n1e-6\n1\n1\n2\n0\n")
                .find("deck.inp:8: entry 13 (second_order_space): 2 is not a switch"),
            std::string::npos);
  EXPECT_NE(parse_error("0\n1 1 1 0\n4 4 4\n1\n1e-6\n1\n1\n0\n-1\n").find("deck.inp:9: entry 14 (viscous): -1 is not"),
            std::string::npos);
  ma_inputs in;
  ma_inputs_default(&in);
  in.viscous = 3;  // a caller filling ma_inputs itself: ma_inputs_check refuses it too
  char err[512] = "";
  EXPECT_NE(ma_inputs_check(&in, "params", err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("viscous 3"), std::string::npos) << err;
}

// lengths so small (or large) that a cell's volume underflows to 0 (or its areas overflow) are refused before the
// run: they ran every step and then failed "diverged" on NaN
TEST(MiniaeroInputs, CellWidthsKeepVolumesNormal) {
  EXPECT_NE(parse_error("0\n1e-300 1 1 0\n4 4 4\n1\n1e-6\n1\n1\n0\n0\n").find("cells 2.5e-301 x 0.25 x 0.25 wide"),
            std::string::npos);
  EXPECT_NE(parse_error("0\n1 1e300 1 0\n4 4 4\n1\n1e-6\n1\n1\n0\n0\n").find("each width must lie in [1e-30, 1e+30]"),
            std::string::npos);
  EXPECT_NE(parse_error("0\n1 1 1e-40 0\n4 4 4\n1\n1e-6\n1\n1\n0\n0\n").find("x 2.5e-41 wide"), std::string::npos);
  EXPECT_EQ(parse_error("0\n4e-29 4e29 1 0\n4 4 4\n1\n1e-6\n1\n1\n0\n0\n"), "");  // 1e-29 and 1e29: inside
}

ma_inputs box(int problem, int nx, int ny, int nz, double angle = 0) {
  ma_inputs in;
  ma_inputs_default(&in);
  in.problem = problem;
  in.lx = 2.0, in.ly = 1.5, in.lz = 0.5, in.angle = angle;
  in.nx = nx, in.ny = ny, in.nz = nz;
  return in;
}

TEST(MiniaeroMesh, CountsKindsAndUpstreamNumbering) {
  ma_inputs in = box(MA_FLAT_PLATE, 3, 4, 5);
  ma_mesh m;
  char err[256];
  ASSERT_EQ(ma_mesh_build(&in, &m, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(m.ncells, 60);
  EXPECT_EQ(m.interior.n, 2 * 4 * 5 + 3 * 3 * 5 + 3 * 4 * 4);
  EXPECT_EQ(m.bc[MA_BC_NOSLIP].n, 3 * 5);                    // bottom
  EXPECT_EQ(m.bc[MA_BC_EXTRAPOLATE].n, 3 * 5 + 4 * 5);       // top, right
  EXPECT_EQ(m.bc[MA_BC_TANGENT].n, 2 * 3 * 4);               // front, back
  EXPECT_EQ(m.bc[MA_BC_INFLOW].n, 4 * 5);                    // left
  // cell c = (i*ny + j)*nz + k, centres in that order
  EXPECT_NEAR(m.centre[3 * 7 + 2], (2 + 0.5) * 0.5 / 5, 1e-15);  // c 7: i 0, j 1, k 2
  EXPECT_NEAR(m.centre[3 * 7 + 1], 1.5 * 1.5 / 4, 1e-15);
  // interior faces are created by their lower cell, in cell order; the first is cell 0's +x face
  EXPECT_EQ(m.interior.cell[0], 0);
  EXPECT_EQ(m.interior.cell[1], 4 * 5);
  EXPECT_EQ(m.interior.slot[0], 1);
  EXPECT_EQ(m.interior.slot[1], 6 * 20 + 3);
  for (int f = 1; f < m.interior.n; f++) EXPECT_LE(m.interior.cell[2 * (f - 1)], m.interior.cell[2 * f]);
  ma_mesh_free(&m);
}

static void expect_same_faces(const ma_faces &a, const ma_faces &b, int arity, const char *what) {
  ASSERT_EQ(a.n, b.n) << what;
  const size_t n = (size_t)a.n;
  EXPECT_EQ(memcmp(a.cell, b.cell, sizeof(int) * n * arity), 0) << what;
  EXPECT_EQ(memcmp(a.slot, b.slot, sizeof(int) * n * arity), 0) << what;
  EXPECT_EQ(memcmp(a.area, b.area, sizeof(double) * n * 3), 0) << what;
  EXPECT_EQ(memcmp(a.centre, b.centre, sizeof(double) * n * 3), 0) << what;
}

// The generator by planes over threads: the same mesh, bit for bit, for any count (more threads than planes too).
TEST(MiniaeroMesh, SameMeshForAnyThreadCount) {
  ma_inputs in = box(MA_RAMP, 7, 5, 4, 30.0);
  ma_mesh one;
  char err[256];
  ASSERT_EQ(ma_mesh_build_threads(&in, 1, &one, err, sizeof err), UM_SUCCESS) << err;
  const size_t n = (size_t)one.ncells;
  for (int nt : {2, 3, 16}) {
    ma_mesh m;
    ASSERT_EQ(ma_mesh_build_threads(&in, nt, &m, err, sizeof err), UM_SUCCESS) << err;
    ASSERT_EQ(m.ncells, one.ncells);
    EXPECT_EQ(memcmp(m.centre, one.centre, sizeof(double) * n * 3), 0) << nt << " threads";
    EXPECT_EQ(memcmp(m.volume, one.volume, sizeof(double) * n), 0) << nt << " threads";
    EXPECT_EQ(memcmp(m.neighbour, one.neighbour, sizeof(int) * n * 6), 0) << nt << " threads";
    EXPECT_EQ(memcmp(m.face_centre, one.face_centre, sizeof(double) * n * 18), 0) << nt << " threads";
    EXPECT_EQ(memcmp(m.face_area, one.face_area, sizeof(double) * n * 18), 0) << nt << " threads";
    expect_same_faces(m.interior, one.interior, 2, "interior faces");
    for (int b = 0; b < MA_NBC; b++) expect_same_faces(m.bc[b], one.bc[b], 1, ma_bc_name(b));
    ma_mesh_free(&m);
  }
  ma_mesh_free(&one);
}

TEST(MiniaeroMesh, ClosedCellsOutwardBoundariesSlotsOnce) {
  for (double angle : {0.0, 30.0}) {
    ma_inputs in = box(MA_RAMP, 6, 4, 3, angle);
    ma_mesh m;
    char err[256];
    ASSERT_EQ(ma_mesh_build(&in, &m, err, sizeof err), UM_SUCCESS) << err;
    std::vector<double> sum(3 * m.ncells, 0.0);
    std::vector<int> slot_used(6 * m.ncells, 0);
    double vol = 0;
    for (int c = 0; c < m.ncells; c++) vol += m.volume[c];
    for (int f = 0; f < m.interior.n; f++)
      for (int d = 0; d < 3; d++) {
        sum[3 * m.interior.cell[2 * f] + d] += m.interior.area[3 * f + d];
        sum[3 * m.interior.cell[2 * f + 1] + d] -= m.interior.area[3 * f + d];
        if (d == 0) slot_used[m.interior.slot[2 * f]]++, slot_used[m.interior.slot[2 * f + 1]]++;
      }
    for (int b = 0; b < MA_NBC; b++)
      for (int f = 0; f < m.bc[b].n; f++) {
        const int c = m.bc[b].cell[f];
        double out = 0;
        for (int d = 0; d < 3; d++) {
          sum[3 * c + d] += m.bc[b].area[3 * f + d];
          out += m.bc[b].area[3 * f + d] * (m.bc[b].centre[3 * f + d] - m.centre[3 * c + d]);
        }
        EXPECT_GT(out, 0) << "boundary face " << f << " of kind " << ma_bc_name(b) << " points into its cell";
        slot_used[m.bc[b].slot[f]]++;
      }
    for (int c = 0; c < m.ncells; c++)
      for (int d = 0; d < 3; d++) EXPECT_NEAR(sum[3 * c + d], 0.0, 1e-14) << "cell " << c << " is not closed";
    for (int s = 0; s < 6 * m.ncells; s++) EXPECT_EQ(slot_used[s], 1) << "slot " << s;
    if (angle == 0) EXPECT_NEAR(vol, 2.0 * 1.5 * 0.5, 1e-12);
    else EXPECT_LT(vol, 2.0 * 1.5 * 0.5);
    // every neighbour relation is mutual
    for (int c = 0; c < m.ncells; c++)
      for (int f = 0; f < 6; f++) {
        const int o = m.neighbour[6 * c + f];
        if (o == c) continue;
        bool back = false;
        for (int g = 0; g < 6; g++) back |= m.neighbour[6 * o + g] == c;
        EXPECT_TRUE(back);
      }
    ma_mesh_free(&m);
  }
}

TEST(MiniaeroMesh, FoldedRampIsRefused) {
  ma_inputs in = box(MA_RAMP, 8, 2, 1, 60.0);  // rise 1 * tan 60 > ly
  ma_mesh m;
  char err[256] = "";
  EXPECT_EQ(ma_mesh_build(&in, &m, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("folds the mesh"), std::string::npos) << err;
}

// ---- the generator by blocks ----------------------------------------------------------------------------------

template <class T>
int differ(const T *a, const T *b, size_t n) {  // rows that are not the same bits
  return std::memcmp(a, b, n * sizeof(T)) != 0;
}

// The blocks of P ranks, end to end, are the whole mesh bit for bit: every problem (its boundary kinds), thin and
// bent boxes, and block boundaries anywhere (inside a row of cells, inside a cell's faces, inside a boundary group).
TEST(MiniaeroMeshBlocks, BlocksEndToEndAreTheWholeMesh) {
  struct Case {
    int problem, nx, ny, nz;
    double angle;
  } cases[] = {{MA_SOD, 7, 3, 2, 0.0}, {MA_RAMP, 6, 4, 3, 30.0}, {MA_FLAT_PLATE, 5, 3, 4, 0.0},
               {MA_RAMP, 1, 1, 1, 10.0}, {MA_SOD, 9, 1, 1, 0.0},  {MA_FLAT_PLATE, 1, 5, 1, 0.0}};
  for (const Case &k : cases) {
    ma_inputs in = box(k.problem, k.nx, k.ny, k.nz, k.angle);
    ma_mesh m;
    char err[256];
    ASSERT_EQ(ma_mesh_build(&in, &m, err, sizeof err), UM_SUCCESS) << err;
    long long gsize[MA_NSETS];
    ASSERT_EQ(ma_mesh_counts(&in, gsize, err, sizeof err), UM_SUCCESS) << err;
    EXPECT_EQ(gsize[MA_SET_CELLS], m.ncells);
    EXPECT_EQ(gsize[MA_SET_FACES], m.interior.n);
    for (int b = 0; b < MA_NBC; b++) EXPECT_EQ(gsize[MA_SET_BC + b], m.bc[b].n);
    for (int P : {1, 2, 3, 5, 7, 13}) {
      for (int r = 0; r < P; r++) {
        long long first[MA_NSETS], count[MA_NSETS];
        for (int s = 0; s < MA_NSETS; s++) {
          first[s] = r * gsize[s] / P;
          count[s] = (r + 1) * gsize[s] / P - first[s];
        }
        ma_block b;
        ASSERT_EQ(ma_block_build(&in, first, count, &b, err, sizeof err), UM_SUCCESS) << err;
        int bad = 0;
        const size_t c0 = (size_t)first[0], nc = (size_t)b.count[0];
        bad += differ(b.centre, m.centre + 3 * c0, 3 * nc) + differ(b.volume, m.volume + c0, nc);
        bad += differ(b.face_centre, m.face_centre + 18 * c0, 18 * nc);
        bad += differ(b.face_area, m.face_area + 18 * c0, 18 * nc);
        for (size_t i = 0; i < 6 * nc; i++) bad += b.neighbour[i] != m.neighbour[6 * c0 + i];
        for (int s = 0; s < MA_NSETS - 1; s++) {
          const ma_faces &w = s ? m.bc[s - 1] : m.interior;
          const ma_block_faces &f = b.faces[s];
          const size_t a = s ? 1 : 2, f0 = (size_t)first[1 + s];
          EXPECT_EQ(f.n, count[1 + s]);
          for (size_t i = 0; i < a * (size_t)f.n; i++)
            bad += f.cell[i] != w.cell[a * f0 + i] || f.slot[i] != w.slot[a * f0 + i];
          bad += differ(f.area, w.area + 3 * f0, 3 * (size_t)f.n);
          bad += differ(f.centre, w.centre + 3 * f0, 3 * (size_t)f.n);
        }
        EXPECT_EQ(bad, 0) << ma_problem_name(k.problem) << " " << k.nx << "x" << k.ny << "x" << k.nz << ": rank " << r
                          << " of " << P;
        ma_block_free(&b);
      }
    }
    ma_mesh_free(&m);
  }
}

TEST(MiniaeroMeshBlocks, RejectsABlockOutsideTheMeshAndAFoldedCell) {
  ma_inputs in = box(MA_SOD, 4, 3, 2);
  long long first[MA_NSETS] = {0}, count[MA_NSETS] = {0};
  char err[256] = "";
  ma_block b;
  first[MA_SET_FACES] = 40, count[MA_SET_FACES] = 1;  // 3*3*2 + 4*2*2 + 4*3*1 = 46 faces: [40, 41) is in
  EXPECT_EQ(ma_block_build(&in, first, count, &b, err, sizeof err), UM_SUCCESS) << err;
  ma_block_free(&b);
  first[MA_SET_FACES] = 46;
  EXPECT_EQ(ma_block_build(&in, first, count, &b, err, sizeof err), UM_ERR_ARG);
  EXPECT_NE(std::string(err).find("faces"), std::string::npos) << err;
  EXPECT_EQ(b.centre, nullptr);
  in = box(MA_RAMP, 8, 2, 1, 60.0);  // the folded ramp of FoldedRampIsRefused: the block with a folded cell says so
  long long all[MA_NSETS], none[MA_NSETS] = {0};
  ASSERT_EQ(ma_mesh_counts(&in, all, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(ma_block_build(&in, none, all, &b, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("folds the mesh"), std::string::npos) << err;
}

void conserved(double rho, double u, double v, double w, double T, double *U) {
  const double e = T * MA_RGAS / (MA_GAMMA - 1.0) + 0.5 * (u * u + v * v + w * w);
  U[0] = rho, U[1] = rho * u, U[2] = rho * v, U[3] = rho * w, U[4] = rho * e;
}

TEST(MiniaeroKernels, RoeOfEqualStatesIsThePhysicalFlux) {
  double U[5], V[5], F[5];
  conserved(1.2, 30.0, -5.0, 2.0, 300.0, U);
  ma_prim(U, V);
  const double A[3] = {0.3, -0.2, 0.7};
  ma_roe(V, V, A, F);
  const double un = V[1] * A[0] + V[2] * A[1] + V[3] * A[2], p = V[0] * MA_RGAS * V[4];
  const double H = MA_CP_FLUX * V[4] + 0.5 * (V[1] * V[1] + V[2] * V[2] + V[3] * V[3]);
  EXPECT_NEAR(F[0], V[0] * un, 1e-9);
  for (int d = 0; d < 3; d++) EXPECT_NEAR(F[1 + d], V[0] * un * V[1 + d] + p * A[d], 1e-6);
  EXPECT_NEAR(F[4], V[0] * un * H, 1e-3);
}

TEST(MiniaeroKernels, RoeIsConservativeAndUpwinds) {
  double UL[5], UR[5], VL[5], VR[5], F[5], Fr[5];
  conserved(1.0, 10.0, 0.0, 0.0, 300.0, UL);
  conserved(0.5, -20.0, 3.0, 0.0, 250.0, UR);
  ma_prim(UL, VL);
  ma_prim(UR, VR);
  const double A[3] = {1.0, 0.0, 0.0}, Am[3] = {-1.0, 0.0, 0.0};
  ma_roe(VL, VR, A, F);
  ma_roe(VR, VL, Am, Fr);  // the same face seen from the other side
  for (int k = 0; k < 5; k++) EXPECT_NEAR(F[k], -Fr[k], 1e-9 * (1 + std::fabs(F[k])));
  // supersonic flow to the right takes the left state's flux
  conserved(1.0, 800.0, 0.0, 0.0, 300.0, UL);
  conserved(0.9, 790.0, 0.0, 0.0, 310.0, UR);
  ma_prim(UL, VL);
  ma_prim(UR, VR);
  ma_roe(VL, VR, A, F);
  EXPECT_NEAR(F[0], UL[1], 1e-9 * UL[1]);
}

TEST(MiniaeroKernels, SlipWallPassesNoMass) {
  double U[5], F[5];
  conserved(1.1, 40.0, -25.0, 10.0, 280.0, U);
  const double A[3] = {0.0, -2.0, 0.0};
  ma_bc_flux(1, U, A, nullptr, nullptr, F);
  EXPECT_NEAR(F[0], 0.0, 1e-9);
  EXPECT_NEAR(F[1], 0.0, 1e-6);
  EXPECT_NEAR(F[3], 0.0, 1e-6);
  EXPECT_NEAR(F[4], 0.0, 1e-3);
  EXPECT_GT(-F[2], 0.0);  // pressure pushes the cell away from the wall (+y)
}

TEST(MiniaeroKernels, VenkatakrishnanLimiter) {
  EXPECT_EQ(ma_venkat(1.0, -1.0, 0.0, 0.01), 1.0);
  EXPECT_NEAR(ma_venkat(1.0, -1.0, 1e-9, 0.0), 1.0, 1e-6);    // small change: unlimited
  EXPECT_LT(ma_venkat(0.1, -0.1, 1.0, 0.0), 0.2);              // overshoot: limited hard
  EXPECT_LT(ma_venkat(0.1, -0.1, -1.0, 0.0), 0.2);
  EXPECT_GT(ma_venkat(0.1, -0.1, 1.0, 1e6), 0.99);             // a large epsilon relaxes it
}

}  // namespace
