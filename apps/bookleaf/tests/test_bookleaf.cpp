// BookLeaf: the namelist reader, the mesh generator (upstream's numbering and
// geometry), the EOS and a few kernels, through the C API.
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include "bookleaf.h"
#include "bookleaf_mesh.h"
#include "bookleaf_kernels.h"
#include "um/um.h"
#include "test_files.hpp"

// the kernels' constants are those of the app (apps/bookleaf/bookleaf.c)

namespace {

std::string deck_path(const char *name) {
  return std::string(UM_SOURCE_DIR_FOR_TESTS) + "/validation/bookleaf/decks/" + name;
}

int parse(bl_deck *d, const std::string &text, std::string *err) {
  char e[1024] = "";
  bl_deck_default(d);
  int rc = bl_deck_parse(d, text.data(), text.size(), "t.deck", e, sizeof e);
  *err = e;
  return rc;
}

struct BookLeafDeck : ::testing::Test {
  bl_deck *d = new bl_deck;
  ~BookLeafDeck() override { delete d; }
};

TEST_F(BookLeafDeck, ScalarsArraysSectionsAndRepeats) {
  std::string err;
  ASSERT_EQ(parse(d,
                  "&CONTROL\n time_end=2.5d0, cvisc1 = 0.25 ! comment\n zdtnotreg(2)=.TRUE. /\n"
                  "&MESH\n region_dim(1,:)=100,25\n segment_typ(:)='LINE','ARC_A'\n"
                  " segment_pos(2,:)=1.0,2.0,3*0.5\n region_side(1,3,:)=1,7 /\n"
                  "&INITIAL_CONDITIONS\n kinematic_param(1,1)=-1.0\n kinematic_param(2:3,1)=0.75\n"
                  " energy(1)=2.5 density(1)=1.0\n/\n",
                  &err),
            UM_SUCCESS)
      << err;
  EXPECT_DOUBLE_EQ(d->time_end, 2.5);
  EXPECT_DOUBLE_EQ(d->cvisc1, 0.25);
  EXPECT_EQ(d->zdtnotreg[1], 1);
  EXPECT_EQ(d->zdtnotreg[0], 0);
  EXPECT_EQ(d->region_dim[0][0], 100);
  EXPECT_EQ(d->region_dim[1][0], 25);
  EXPECT_STREQ(d->segment_typ[0], "LINE");
  EXPECT_STREQ(d->segment_typ[1], "ARC_A");
  EXPECT_DOUBLE_EQ(d->segment_pos[1][1], 2.0);
  EXPECT_DOUBLE_EQ(d->segment_pos[4][1], 0.5);
  EXPECT_DOUBLE_EQ(d->segment_pos[5][1], 0.0); /* 3*0.5 fills positions 3..5 */
  EXPECT_EQ(d->region_side[0][2][0], 1);
  EXPECT_EQ(d->region_side[1][2][0], 7);
  EXPECT_DOUBLE_EQ(d->kinematic_param[0][0], -1.0);
  EXPECT_DOUBLE_EQ(d->kinematic_param[0][1], 0.75); /* one value for a section of two: the first only */
  EXPECT_DOUBLE_EQ(d->kinematic_param[0][2], 0.0);
  EXPECT_DOUBLE_EQ(d->energy[0], 2.5);
  EXPECT_EQ(bl_deck_line(d, "region_dim"), 5);
  EXPECT_EQ(bl_deck_line(d, "density"), 12);
}

/* Each entry of an array keeps the line of its own values (a message about segment 1 names segment 1's line, not the
 * last segment_pos line); the entry is the array's first dimension of BL_LN (eos_param(:, material)). */
TEST_F(BookLeafDeck, EntryLines) {
  std::string err;
  ASSERT_EQ(parse(d,
                  "&EOS\n eos_type(1)='ideal gas'\n eos_param(1,2)=1.4\n eos_type(99)='void'\n/\n"
                  "&MESH\n segment_pos(1,:)=0.0,0.0,\n 1.0,0.0\n segment_pos(2,:)=1.0,0.0,1.0,1.0\n/\n",
                  &err),
            UM_SUCCESS)
      << err;
  EXPECT_EQ(bl_deck_entry_line(d, "eos_type", 1), 2);
  EXPECT_EQ(bl_deck_entry_line(d, "eos_type", 99), 4);
  EXPECT_EQ(bl_deck_entry_line(d, "eos_type", 2), 0);
  EXPECT_EQ(bl_deck_entry_line(d, "eos_param", 2), 3);
  EXPECT_EQ(bl_deck_entry_line(d, "eos_param", 1), 0);
  EXPECT_EQ(bl_deck_entry_line(d, "segment_pos", 1), 8); /* its last value's line */
  EXPECT_EQ(bl_deck_entry_line(d, "segment_pos", 2), 9);
  EXPECT_EQ(bl_deck_line(d, "segment_pos"), 9);
  EXPECT_EQ(bl_deck_entry_line(d, "time_end", 1), 0); /* a scalar has no entries */
  EXPECT_EQ(bl_deck_entry_line(d, "segment_pos", 0), 0);
  EXPECT_EQ(bl_deck_entry_line(d, "segment_pos", BL_LN + 1), 0);
}

TEST_F(BookLeafDeck, ErrorsNameFileLineAndKey) {
  std::string err;
  EXPECT_EQ(parse(d, "&CONTROL\n time_end=1.0\n cfl=0.5\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("t.deck:3: cfl: unknown key in namelist &CONTROL"), std::string::npos) << err;
  EXPECT_EQ(parse(d, "&MESH\n density(1)=1.0\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("t.deck:2: density: unknown key in namelist &MESH (it belongs to &INITIAL_CONDITIONS)"),
            std::string::npos)
      << err;
  EXPECT_EQ(parse(d, "&MESH\n region_dim(101,1)=1\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("t.deck:2: region_dim: index 101 (dimension 1) is out of range: allowed 1 to 100"),
            std::string::npos)
      << err;
  EXPECT_EQ(parse(d, "&MESH\n region_dim(1,:)=1,2,3\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("more values than the section has elements"), std::string::npos) << err;
  EXPECT_EQ(parse(d, "&EOS\n eos_type(1)='ideal gas\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("t.deck:2: eos_type: unterminated string"), std::string::npos) << err;
  EXPECT_EQ(parse(d, "&CONTROL\n time_end=1.0\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("t.deck:1: namelist &CONTROL is not closed"), std::string::npos) << err;
  EXPECT_EQ(parse(d, "&ALE\n zeul=maybe\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("expected a logical"), std::string::npos) << err;
  EXPECT_EQ(parse(d, "&FOO\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("t.deck:1: unknown namelist &FOO"), std::string::npos) << err;
}

TEST_F(BookLeafDeck, EveryShippedDeckReads) {
  const char *names[] = {"sod_sm_lag_small", "sod_sm_eul_small", "noh_small", "noh_large", "sedov_lag_small",
                         "sedov_eul_small", "blast_sm_lag_small", "blast_sm_eul_small", "blast_sm_eul_medium",
                         "sod_mm_lag_small", "sod_sm_lag_medium", "sod_sm_lag_large", "sod_sm_eul_medium",
                         "sod_sm_eul_large"};
  for (const char *n : names) {
    char err[1024] = "";
    EXPECT_EQ(bl_deck_read(d, deck_path(n).c_str(), err, sizeof err), UM_SUCCESS) << n << ": " << err;
  }
  char err[1024] = "";
  ASSERT_EQ(bl_deck_read(d, deck_path("noh_small").c_str(), err, sizeof err), UM_SUCCESS);
  EXPECT_DOUBLE_EQ(d->zcut, 1.0e-40);                 /* &CUTOFF */
  EXPECT_DOUBLE_EQ(d->dencut, 1.0e-6);                /* default kept */
  EXPECT_DOUBLE_EQ(d->eos_param[0][0], 1.6666667);
  EXPECT_STREQ(d->segment_typ[3], "ARC_C");
}

// Fortran's null values (gfortran's reading of each deck below): `a,,b`, a leading comma, `r*`, an empty list leave
// their elements as they were and do not count as setting them. Before: a run of commas was one separator (the
// values after a null landed one element early) and `r*` stored an empty value.
TEST_F(BookLeafDeck, NullValuesLeaveTheirElementAndMoveOn) {
  std::string err;
  ASSERT_EQ(parse(d,
                  "&MESH\n segment_bc(:)='SLIPY','SLIPX',,'SLIPX'\n segment_typ(1:3)=2*,'ARC_A'\n"
                  " region_dim(1,:)= /\n&INITIAL_CONDITIONS\n energy(:)=,2.0\n energy(1)=2.5\n"
                  " density(1:3)=2*, 5 , ,\n kinematic_type(1)='3*x' /\n&INDICATORS region_name(1:2)='a' ,\n 'b'\n"
                  " region_name(4)=\n material_name(1)='m' /\n",
                  &err),
            UM_SUCCESS)
      << err;
  EXPECT_STREQ(d->segment_bc[0], "SLIPY");
  EXPECT_STREQ(d->segment_bc[1], "SLIPX");
  EXPECT_STREQ(d->segment_bc[2], "FREE"); /* the null: unchanged */
  EXPECT_STREQ(d->segment_bc[3], "SLIPX");
  EXPECT_STREQ(d->segment_bc[4], "FREE");
  EXPECT_STREQ(d->segment_typ[0], "");
  EXPECT_STREQ(d->segment_typ[2], "ARC_A");
  EXPECT_EQ(d->region_dim[0][0], 0);
  EXPECT_DOUBLE_EQ(d->energy[0], 2.5);
  EXPECT_DOUBLE_EQ(d->energy[1], 2.0);
  EXPECT_DOUBLE_EQ(d->density[0], -1.0);
  EXPECT_DOUBLE_EQ(d->density[2], 5.0);
  EXPECT_STREQ(d->region_name[1], "b"); /* a comma, then the next line's value: no null between */
  EXPECT_STREQ(d->region_name[3], "UNKNOWN");
  EXPECT_STREQ(d->kinematic_type[0], "3*x"); /* a quoted '*' is no repeat count */
  EXPECT_EQ(bl_deck_line(d, "energy"), 7);
  EXPECT_EQ(bl_deck_line(d, "region_dim"), 0); /* set nothing: no line to name */
  EXPECT_EQ(parse(d, "&MESH\n segment_bc(1:2)='A','B',,'C'\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("t.deck:2: segment_bc: more values than the section has elements"), std::string::npos) << err;
  EXPECT_EQ(parse(d, "&MESH\n segment_bc(:)=,'A'\n segment_bc(2)='B'\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("t.deck:3: segment_bc: element (2,1,1) set twice in the deck (also at line 2)"), std::string::npos)
      << err;
}

// Strided sections (lo:hi:stride, as gfortran reads them); before: "bad subscript '4:2'".
TEST_F(BookLeafDeck, StridedSections) {
  std::string err;
  ASSERT_EQ(parse(d,
                  "&MESH\n segment_bc(1:4:2)='SLIPY','SLIPY'\n segment_bc(2:4:2)=2*'SLIPX'\n"
                  " segment_typ(3:1:-1)='A','B','C'\n segment_pos(::4,1)=1.0,2.0\n/\n",
                  &err),
            UM_SUCCESS)
      << err;
  EXPECT_STREQ(d->segment_bc[0], "SLIPY");
  EXPECT_STREQ(d->segment_bc[1], "SLIPX");
  EXPECT_STREQ(d->segment_bc[2], "SLIPY");
  EXPECT_STREQ(d->segment_bc[3], "SLIPX");
  EXPECT_STREQ(d->segment_bc[4], "FREE");
  EXPECT_STREQ(d->segment_typ[0], "C");
  EXPECT_STREQ(d->segment_typ[2], "A");
  EXPECT_DOUBLE_EQ(d->segment_pos[0][0], 1.0);
  EXPECT_DOUBLE_EQ(d->segment_pos[0][4], 2.0); /* (5,1): the first index runs fastest */
  EXPECT_EQ(parse(d, "&MESH\n segment_bc(1:4:0)='A'\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("t.deck:2: segment_bc: subscript 1 has stride 0"), std::string::npos) << err;
  EXPECT_EQ(parse(d, "&MESH\n segment_bc(4:1)='A'\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("subscript 1 selects no element (4:1:1)"), std::string::npos) << err;
  EXPECT_EQ(parse(d, "&MESH\n segment_bc(1:101:50)='A'\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("the section 1:101:50 (dimension 1) is out of range: allowed 1 to 100"), std::string::npos) << err;
  EXPECT_EQ(parse(d, "&MESH\n segment_bc(1000)='A'\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("segment_bc: index 1000 (dimension 1) is out of range: allowed 1 to 100"), std::string::npos)
      << err;
  EXPECT_EQ(parse(d, "&MESH\n segment_bc(1:4:2:1)='A'\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("bad subscript"), std::string::npos) << err;
}

// nan and inf (strtod reads them) are refused at their line; before: dt_min=nan, zcut=nan, time_end=inf ran.
TEST_F(BookLeafDeck, NonFiniteNumbersAreRefusedAtTheirLine) {
  const char *const cases[][2] = {
      {"&CONTROL\n dt_min=nan\n/\n", "t.deck:2: dt_min: 'nan' is not a finite number"},
      {"&CONTROL\n\n time_end=inf /\n", "t.deck:3: time_end: 'inf' is not a finite number"},
      {"&CUTOFF zcut=NaN /\n", "t.deck:1: zcut: 'NaN' is not a finite number"},
      {"&INITIAL_CONDITIONS\n density(1)=-Infinity\n/\n", "t.deck:2: density: '-Infinity'"},
      {"&EOS\n eos_param(1:2,1)=2*inf\n/\n", "t.deck:2: eos_param: 'inf' is not a finite"},
      {"&CONTROL\n cvisc1=1.0d999\n/\n", "t.deck:2: cvisc1: expected a number, got '1.0d999'"},
      {"&CONTROL\n cvisc1=0x10\n/\n", "t.deck:2: cvisc1: expected a number, got '0x10'"}};
  for (const auto &c : cases) {
    std::string err;
    EXPECT_EQ(parse(d, c[0], &err), UM_ERR_CONFIG) << c[0];
    EXPECT_NE(err.find(c[1]), std::string::npos) << c[0] << ": " << err;
  }
}

// A title or note line outside the groups, $NAME ... $END and &END, as gfortran reads them; a line outside the
// groups that holds '=', '&' or '$' is refused (an entry outside its group, a header after other text: never skipped
// silently). Before: any text outside a group and '$' were refused.
TEST_F(BookLeafDeck, TitleLinesAndDollarDelimiters) {
  std::string err;
  ASSERT_EQ(parse(d,
                  "Sod shock tube, Lagrangian\n$CONTROL\n time_end=2.0\n$END\na note ! x=1\n"
                  "&EOS eos_type(1)='TAIT' &end\n$ALE zeul=.TRUE. /\n",
                  &err),
            UM_SUCCESS)
      << err;
  EXPECT_DOUBLE_EQ(d->time_end, 2.0);
  EXPECT_STREQ(d->eos_type[0], "TAIT");
  EXPECT_EQ(d->zeul, 1);
  EXPECT_EQ(parse(d, "CONTROL\n time_end=2.0\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("t.deck:2: 'time_end=2.0' is outside the namelist groups"), std::string::npos) << err;
  EXPECT_EQ(parse(d, "title &CONTROL time_end=2.0 /\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("t.deck:1: 'title &CONTROL time_end=2.0 /' is outside"), std::string::npos) << err;
  EXPECT_EQ(parse(d, "$CONTROL\n time_end=2.0\n$EOS\n/\n", &err), UM_ERR_CONFIG);
  EXPECT_NE(err.find("t.deck:3: namelist &CONTROL is not closed by '/' before the next '$'"), std::string::npos) << err;
}

struct BookLeafMesh : ::testing::Test {
  bl_deck *d = new bl_deck;
  bl_mesh m{};
  void build(const char *name) {
    char err[1024] = "";
    ASSERT_EQ(bl_deck_read(d, deck_path(name).c_str(), err, sizeof err), UM_SUCCESS) << err;
    ASSERT_EQ(bl_mesh_build(d, &m, err, sizeof err), UM_SUCCESS) << err;
  }
  ~BookLeafMesh() override {
    bl_mesh_free(&m);
    delete d;
  }
};

TEST_F(BookLeafMesh, SodNumberingAsUpstream) {
  build("sod_sm_lag_small");
  ASSERT_EQ(m.nel, 2500);
  ASSERT_EQ(m.nnd, 2626);
  /* element 1 = nodes 1, 27, 28, 2 (1-based, counter-clockwise), y index fastest */
  EXPECT_EQ(m.elnd[0], 0);
  EXPECT_EQ(m.elnd[1], 26);
  EXPECT_EQ(m.elnd[2], 27);
  EXPECT_EQ(m.elnd[3], 1);
  EXPECT_DOUBLE_EQ(m.x[26], 1.0);
  EXPECT_DOUBLE_EQ(m.y[1], 1.0);
  EXPECT_DOUBLE_EQ(m.x[2625], 100.0);
  EXPECT_DOUBLE_EQ(m.y[2625], 25.0);
  /* neighbours: element 1 sits in the corner: faces 0 (bottom) and 3 (left) are boundaries */
  EXPECT_EQ(m.elel[0], 0);
  EXPECT_EQ(m.elel[1], 25);
  EXPECT_EQ(m.elel[2], 1);
  EXPECT_EQ(m.elel[3], 0);
  EXPECT_EQ(m.elfc[1], 3); /* the right neighbour sees us across its face 3 */
  EXPECT_EQ(m.elfc[2], 0);
  /* node types: corners become walls, bottom slip-y, left slip-x, interior > 0 */
  EXPECT_EQ(m.indtype[0], -BL_WALL);
  EXPECT_EQ(m.indtype[26], -BL_SLIPY);
  EXPECT_EQ(m.indtype[1], -BL_SLIPX);
  EXPECT_GT(m.indtype[27], 0);
  /* regions: helium where the centroid's x > 50 */
  EXPECT_EQ(m.elreg[1249], 0);
  EXPECT_EQ(m.elreg[1250], 1);
  EXPECT_DOUBLE_EQ(m.density[1250], 0.125);
  EXPECT_DOUBLE_EQ(m.energy[0], 2.5);
  double vol = 0.0;
  for (int e = 0; e < m.nel; e++) {
    double cx[4], cy[4], v, cw[4];
    for (int k = 0; k < 4; k++) cx[k] = m.x[m.elnd[4 * e + k]], cy[k] = m.y[m.elnd[4 * e + k]];
    bl_geometry(cx, cy, nullptr, nullptr, nullptr, nullptr, cw, &v);
    EXPECT_NEAR(cw[0] + cw[1] + cw[2] + cw[3], v, 1e-12);
    vol += v;
  }
  EXPECT_NEAR(vol, 2500.0, 1e-9);
}

TEST_F(BookLeafMesh, NohArcsAndRadialInflow) {
  build("noh_small");
  ASSERT_EQ(m.nel, 75 * 30);
  /* every node lies on a circle of radius between 0.005 and 1, and moves inwards at speed 1 */
  for (int n = 0; n < m.nnd; n++) {
    const double r = std::sqrt(m.x[n] * m.x[n] + m.y[n] * m.y[n]);
    EXPECT_GE(r, 0.005 - 1e-12);
    EXPECT_LE(r, 1.0 + 1e-12);
    if (m.indtype[n] > 0) EXPECT_NEAR(m.u[n] * m.x[n] + m.v[n] * m.y[n], -r, 1e-12);
  }
  /* the slip-y bottom keeps no v, the slip-x left no u */
  for (int n = 0; n < m.nnd; n++) {
    if (m.indtype[n] == -BL_SLIPY) EXPECT_EQ(m.v[n], 0.0);
    if (m.indtype[n] == -BL_SLIPX) EXPECT_EQ(m.u[n], 0.0);
  }
}

TEST_F(BookLeafMesh, SedovSourceScaledByVolume) {
  build("sedov_lag_small");
  double cx[4], cy[4], v;
  for (int k = 0; k < 4; k++) cx[k] = m.x[m.elnd[k]], cy[k] = m.y[m.elnd[k]];
  bl_geometry(cx, cy, nullptr, nullptr, nullptr, nullptr, nullptr, &v);
  EXPECT_NEAR(v, 0.025 * 0.025, 1e-15);
  EXPECT_DOUBLE_EQ(m.energy[0], 0.2467966 / v);
  EXPECT_DOUBLE_EQ(m.energy[1], 0.0);
}

// ---- the generator by blocks ----------------------------------------------------------------------------------

template <class T>
bool same_bits(const T &a, const T &b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// The blocks of P ranks, end to end, are the whole mesh bit for bit (nodes, elements, neighbours, node types with
// the corner walls, regions, materials, initial state; the gather scheme's node -> element lists and the fused
// viscosity's far corners as bookleaf.c builds them from the whole mesh): regular decks, at their sizes and thin.
// The whole mesh over threads: the same arrays, bit for bit, for any count (regions, shapes, radial velocities: noh,
// sedov's volume-scaled source, several materials: sod_mm_circle's serial components).
TEST_F(BookLeafMesh, SameMeshForAnyThreadCount) {
  for (const char *name : {"noh_small", "sedov_lag_small", "sod_mm_circle_small", "blast_sm_lag_small"}) {
    char err[1024] = "";
    ASSERT_EQ(bl_deck_read(d, deck_path(name).c_str(), err, sizeof err), UM_SUCCESS) << err;
    bl_mesh one{};
    ASSERT_EQ(bl_mesh_build_threads(d, 1, &one, err, sizeof err), UM_SUCCESS) << err;
    const size_t ne = (size_t)one.nel, nn = (size_t)one.nnd;
    for (int nt : {2, 3, 4}) {
      bl_mesh t{};
      ASSERT_EQ(bl_mesh_build_threads(d, nt, &t, err, sizeof err), UM_SUCCESS) << err;
      ASSERT_EQ(t.nel, one.nel);
      ASSERT_EQ(t.ncp, one.ncp) << name;
      EXPECT_EQ(memcmp(t.elnd, one.elnd, sizeof(int) * 4 * ne), 0) << name << " " << nt;
      EXPECT_EQ(memcmp(t.elel, one.elel, sizeof(int) * 4 * ne), 0) << name << " " << nt;
      EXPECT_EQ(memcmp(t.elfc, one.elfc, sizeof(int) * 4 * ne), 0) << name << " " << nt;
      EXPECT_EQ(memcmp(t.elreg, one.elreg, sizeof(int) * ne), 0) << name << " " << nt;
      EXPECT_EQ(memcmp(t.elmat, one.elmat, sizeof(int) * ne), 0) << name << " " << nt;
      EXPECT_EQ(memcmp(t.density, one.density, sizeof(double) * ne), 0) << name << " " << nt;
      EXPECT_EQ(memcmp(t.energy, one.energy, sizeof(double) * ne), 0) << name << " " << nt;
      EXPECT_EQ(memcmp(t.indtype, one.indtype, sizeof(int) * nn), 0) << name << " " << nt;
      EXPECT_EQ(memcmp(t.u, one.u, sizeof(double) * nn), 0) << name << " " << nt;
      EXPECT_EQ(memcmp(t.v, one.v, sizeof(double) * nn), 0) << name << " " << nt;
      bl_mesh_free(&t);
    }
    bl_mesh_free(&one);
  }
}

// The gather scheme's node -> element lists (either layout of the corners) and the fused viscosity's far corners are
// the same over any thread count, and so is the first node or face a broken mesh fails at.
TEST_F(BookLeafMesh, NodeListsAndFarCornersForAnyThreadCount) {
  char err[1024] = "";
  ASSERT_EQ(bl_deck_read(d, deck_path("noh_small").c_str(), err, sizeof err), UM_SUCCESS) << err;
  d->region_dim[0][0] = d->region_dim[1][0] = 300; /* 90601 nodes: over the size the lists go over the threads */
  bl_mesh m{};
  ASSERT_EQ(bl_mesh_build_threads(d, 2, &m, err, sizeof err), UM_SUCCESS) << err;
  const size_t nn = (size_t)m.nnd, ne = (size_t)m.nel;
  std::vector<int> ndel1(4 * nn), corner1(4 * nn), ndel(4 * nn), corner(4 * nn), vn1(8 * ne), vn(8 * ne);
  ASSERT_EQ(bl_mesh_node_elements(&m, ndel1.data(), corner1.data(), 0, 1), -1);
  ASSERT_EQ(bl_mesh_visc_nodes(&m, vn1.data(), 1), -1);
  for (int nt : {2, 3}) {
    EXPECT_EQ(bl_mesh_node_elements(&m, ndel.data(), corner.data(), 0, nt), -1);
    EXPECT_EQ(ndel, ndel1) << nt;
    EXPECT_EQ(corner, corner1) << nt;
    EXPECT_EQ(bl_mesh_node_elements(&m, ndel.data(), corner.data(), 1, nt), -1);
    EXPECT_EQ(ndel, ndel1) << nt;
    for (size_t n = 0; n < nn; n++)
      for (int s = 0; s < 4; s++) ASSERT_EQ(corner[(size_t)s * nn + n], corner1[4 * n + s]) << n << " " << s;
    EXPECT_EQ(bl_mesh_visc_nodes(&m, vn.data(), nt), -1);
    EXPECT_EQ(vn, vn1) << nt;
  }
  /* two nodes made corners of 5 elements (the later one first in the elements' order), faces broken far apart */
  const int a = m.elnd[4 * (ne - 10)], b = m.elnd[4 * 7 + 2];
  m.elnd[4 * (ne - 9) + 1] = a, m.elnd[4 * (ne - 8) + 1] = a, m.elnd[4 * 8 + 1] = b, m.elnd[4 * 9 + 1] = b;
  m.elfc[4 * (ne - 5) + 2] ^= 1, m.elfc[4 * 20 + 3] ^= 1;
  const long long bad_node = bl_mesh_node_elements(&m, ndel1.data(), corner1.data(), 0, 1);
  const long long bad_face = bl_mesh_visc_nodes(&m, vn1.data(), 1);
  EXPECT_EQ(bad_node, b);
  EXPECT_GE(bad_face, 0);
  for (int nt : {2, 3}) {
    EXPECT_EQ(bl_mesh_node_elements(&m, ndel.data(), corner.data(), 1, nt), bad_node) << nt;
    EXPECT_EQ(bl_mesh_visc_nodes(&m, vn.data(), nt), bad_face) << nt;
  }
  bl_mesh_free(&m);
}

// The faces are paired as a sort of the faces by (lower node, upper node, face) pairs them: each edge's run in twos,
// a face alone on the boundary (the element itself across it, the face opposite); so on any thread count, and on
// meshes one element thin.
TEST_F(BookLeafMesh, FacesPairedAsTheirSortedNodesForAnyThreadCount) {
  struct Case {
    const char *name;
    int nx, ny; /* 0: the deck's; 1: one element thin */
  } cases[] = {{"noh_small", 0, 0}, {"sod_sm_lag_small", 0, 0}, {"sedov_lag_small", 0, 0},
               {"blast_sm_lag_small", 0, 0}, {"sod_sm_lag_small", 1, 7}, {"sod_sm_lag_small", 9, 1},
               {"noh_small", 1, 1}};
  for (const Case &c : cases) {
    const char *name = c.name;
    char err[1024] = "";
    ASSERT_EQ(bl_deck_read(d, deck_path(name).c_str(), err, sizeof err), UM_SUCCESS) << err;
    if (c.nx) d->region_dim[0][0] = c.nx, d->region_dim[1][0] = c.ny;
    for (int nt : {1, 2, 4}) {
      bl_mesh t{};
      ASSERT_EQ(bl_mesh_build_threads(d, nt, &t, err, sizeof err), UM_SUCCESS) << err;
      std::vector<std::vector<int>> faces; // (lower, upper, face)
      for (int s = 0; s < 4 * t.nel; s++) {
        const int a = t.elnd[s], b = t.elnd[4 * (s / 4) + (s % 4 + 1) % 4];
        faces.push_back({std::min(a, b), std::max(a, b), s});
      }
      std::sort(faces.begin(), faces.end());
      std::vector<int> elel(4 * t.nel), elfc(4 * t.nel);
      for (size_t i = 0; i < faces.size();) {
        const int s = faces[i][2];
        if (i + 1 < faces.size() && faces[i + 1][0] == faces[i][0] && faces[i + 1][1] == faces[i][1]) {
          const int u = faces[i + 1][2];
          elel[s] = u / 4, elfc[s] = u % 4, elel[u] = s / 4, elfc[u] = s % 4;
          i += 2;
        } else {
          elel[s] = s / 4, elfc[s] = (s % 4 + 2) % 4;
          i++;
        }
      }
      EXPECT_EQ(std::vector<int>(t.elel, t.elel + 4 * t.nel), elel) << name << " " << c.nx << " " << nt;
      EXPECT_EQ(std::vector<int>(t.elfc, t.elfc + 4 * t.nel), elfc) << name << " " << c.nx << " " << nt;
      bl_mesh_free(&t);
    }
  }
}

TEST_F(BookLeafMesh, BlocksEndToEndAreTheWholeMesh) {
  struct Case {
    const char *deck;
    int nx, ny;  // 0: the deck's
  } cases[] = {{"sod_sm_lag_small", 0, 0}, {"sedov_lag_small", 0, 0}, {"blast_sm_lag_small", 0, 0},
               {"sod_sm_lag_small", 7, 3}, {"sod_sm_lag_small", 1, 5}, {"sedov_lag_small", 4, 1},
               {"sod_sm_eul_small", 0, 0}, {"noh_small", 0, 0},        {"noh_small", 6, 5}};
  for (const Case &c : cases) {
    char err[1024] = "";
    ASSERT_EQ(bl_deck_read(d, deck_path(c.deck).c_str(), err, sizeof err), UM_SUCCESS) << err;
    if (c.nx) d->region_dim[0][0] = c.nx, d->region_dim[1][0] = c.ny;
    bl_mesh_free(&m);
    ASSERT_EQ(bl_mesh_build(d, &m, err, sizeof err), UM_SUCCESS) << err;
    long long nel, nnd;
    ASSERT_EQ(bl_mesh_counts(d, &nel, &nnd, err, sizeof err), UM_SUCCESS) << err;
    ASSERT_EQ(nel, m.nel);
    ASSERT_EQ(nnd, m.nnd);
    // the whole mesh's node -> element lists (bookleaf.c: declare_node_elements)
    std::vector<int> ndel(4 * m.nnd, 0), corner(4 * m.nnd, -1);
    for (int e = 0; e < m.nel; e++)
      for (int k = 0; k < 4; k++) {
        const int n = m.elnd[4 * e + k];
        int s = 0;
        while (corner[4 * n + s] >= 0) s++;
        ndel[4 * n + s] = e, corner[4 * n + s] = k;
      }
    for (int n = 0; n < m.nnd; n++)
      for (int s = 1; s < 4; s++)
        if (corner[4 * n + s] < 0) ndel[4 * n + s] = ndel[4 * n];
    for (int P : {1, 2, 3, 7}) {
      for (int r = 0; r < P; r++) {
        const long long first[2] = {r * nel / P, r * nnd / P};
        const long long count[2] = {(r + 1) * nel / P - first[0], (r + 1) * nnd / P - first[1]};
        bl_block b;
        const int what = BL_BLOCK_VISC | BL_BLOCK_NODE_ELEMENTS;
        ASSERT_EQ(bl_block_build(d, first, count, what, &b, err, sizeof err), UM_SUCCESS) << err;
        ASSERT_EQ(b.regular, 1) << c.deck;
        EXPECT_EQ(b.nreg, m.nreg);
        EXPECT_EQ(b.nmat, m.nmat);
        int bad = 0;
        for (int i = 0; i < b.count[0]; i++) {
          const long long e = first[0] + i;
          for (int k = 0; k < 4; k++) {
            const int n = m.elnd[4 * e + k], nb = m.elel[4 * e + k], f = m.elfc[4 * e + k];
            bad += b.elnd[4 * i + k] != n || b.elel[4 * i + k] != nb || b.elfc[4 * i + k] != f;
            bad += !same_bits(b.cx[4 * i + k], m.x[n]) || !same_bits(b.cy[4 * i + k], m.y[n]);
            bad += b.ctype[4 * i + k] != m.indtype[n];
            bad += b.visc[8 * i + 2 * k] != m.elnd[4 * nb + (f + 2) % 4];
            bad += b.visc[8 * i + 2 * k + 1] != m.elnd[4 * nb + (f + 3) % 4];
          }
          bad += b.elreg[i] != m.elreg[e] || b.elmat[i] != m.elmat[e];
          bad += !same_bits(b.density[i], m.density[e]) || !same_bits(b.energy[i], m.energy[e]);
        }
        for (int i = 0; i < b.count[1]; i++) {
          const long long n = first[1] + i;
          bad += b.indtype[i] != m.indtype[n];
          bad += !same_bits(b.x[i], m.x[n]) || !same_bits(b.y[i], m.y[n]);
          bad += !same_bits(b.u[i], m.u[n]) || !same_bits(b.v[i], m.v[n]);
          for (int s = 0; s < 4; s++)
            bad += b.ndel[4 * i + s] != ndel[4 * n + s] || b.ndcorner[4 * i + s] != corner[4 * n + s];
        }
        EXPECT_EQ(bad, 0) << c.deck << " " << c.nx << "x" << c.ny << ": rank " << r << " of " << P;
        bl_block_free(&b);
      }
    }
  }
}

// A mesh whose relaxation moves its points (Noh's arcs relaxed as EQUI, by the local metric: LIN1 and LIN2 start
// already relaxed, linear along the direction they relax) is not regular: the blocks that hold a moved node say so.
TEST_F(BookLeafMesh, BlocksOfAnIrregularMeshSaySo) {
  char err[1024] = "";
  ASSERT_EQ(bl_deck_read(d, deck_path("noh_small").c_str(), err, sizeof err), UM_SUCCESS) << err;
  std::snprintf(d->region_typ[0], BL_SLEN, "EQUI");
  long long nel, nnd;
  ASSERT_EQ(bl_mesh_counts(d, &nel, &nnd, err, sizeof err), UM_SUCCESS) << err;
  const long long first[2] = {0, 0}, count[2] = {nel, nnd};
  bl_block b;
  ASSERT_EQ(bl_block_build(d, first, count, 0, &b, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(b.regular, 0);
  EXPECT_EQ(b.elnd, nullptr);
  const long long bad_first[2] = {nel, 0}, one[2] = {1, 1};
  EXPECT_EQ(bl_block_build(d, bad_first, one, 0, &b, err, sizeof err), UM_ERR_ARG);
  EXPECT_NE(std::string(err).find("elements"), std::string::npos) << err;
}

// The region's sides meet within 1e-9 of its size (100 here: 1e-7), as upstream's exact comparison of the deck's own
// numbers would have them meet: a side 5e-8 off is taken, 2e-7 off is refused at its segment_pos line; a side listed
// backwards is reversed (upstream's setup_mesh_check_input), its nodes those of the deck as shipped.
TEST_F(BookLeafMesh, SidesMeetWithinTheRegionsSize) {
  const std::string sod = umtest::slurp(deck_path("sod_sm_lag_small"));
  ASSERT_FALSE(sod.empty()) << deck_path("sod_sm_lag_small");
  auto build_with = [&](const char *from, const char *to, bl_mesh *out, std::string *msg) {
    std::string text = sod, err;
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, std::strlen(from), to);
    EXPECT_EQ(parse(d, text, &err), UM_SUCCESS) << err;
    char e[1024] = "";
    const int rc = bl_mesh_build(d, out, e, sizeof e);
    *msg = e;
    return rc;
  };
  const char *side2 = "segment_pos(2,:)=100.0,0.0,100.0,25.0";
  std::string msg;
  EXPECT_EQ(build_with(side2, "segment_pos(2,:)=100.0,5.0e-8,100.0,25.0", &m, &msg), UM_SUCCESS) << msg;
  bl_mesh_free(&m);
  m = bl_mesh{};
  EXPECT_EQ(build_with(side2, "segment_pos(2,:)=100.0,2.0e-7,100.0,25.0", &m, &msg), UM_ERR_CONFIG);
  EXPECT_NE(msg.find("t.deck:25: segment_pos(1,:): region 1 is not closed: side 1 (segment 1) ends at (100, 0), but "
                     "side 2 (segment 2, line 26) runs from (100, 2e-07) to (100, 25), 2e-07 away"),
            std::string::npos)
      << msg;
  bl_mesh_free(&m);
  m = bl_mesh{};
  bl_mesh shipped{}, reversed{};
  ASSERT_EQ(build_with(side2, side2, &shipped, &msg), UM_SUCCESS) << msg;
  ASSERT_EQ(build_with(side2, "segment_pos(2,:)=100.0,25.0,100.0,0.0", &reversed, &msg), UM_SUCCESS) << msg;
  ASSERT_EQ(shipped.nnd, reversed.nnd);
  for (int n = 0; n < shipped.nnd; n++) {
    EXPECT_EQ(shipped.x[n], reversed.x[n]) << "node " << n;
    EXPECT_EQ(shipped.y[n], reversed.y[n]) << "node " << n;
    EXPECT_EQ(shipped.indtype[n], reversed.indtype[n]) << "node " << n;
  }
  bl_mesh_free(&shipped);
  bl_mesh_free(&reversed);
}

// A deck's mistakes named as such: a side naming a segment no segment_typ defines (before: "segment_typ: segment 9:
// unknown type ''"), a thermodynamic entry naming a region the deck does not have (before: "density: element 1251
// ... has density 0").
TEST_F(BookLeafMesh, UndefinedSegmentsAndRegionsAreNamed) {
  const std::string sod = umtest::slurp(deck_path("sod_sm_lag_small"));
  ASSERT_FALSE(sod.empty()) << deck_path("sod_sm_lag_small");
  const char *const cases[][3] = {
      {"region_side(1,4,:)=1,4", "region_side(1,4,:)=1,9",
       "t.deck:22: region_side: side 4 of region 1 names segment 9, which the deck does not define (no segment_typ(9)"},
      {"thermodynamic_value(2)=2", "thermodynamic_value(2)=7",
       "t.deck:45: thermodynamic_value: entry 2 names region 7, but the deck has regions 1..2"},
      {"thermodynamic_type(2)='region'", "thermodynamic_type(2)='material'",
       "t.deck:45: thermodynamic_value: entry 2 names material 2, but the deck has materials 1..1"}};
  for (const auto &c : cases) {
    std::string text = sod, err;
    const size_t at = text.find(c[0]);
    ASSERT_NE(at, std::string::npos) << c[0];
    text.replace(at, std::strlen(c[0]), c[1]);
    ASSERT_EQ(parse(d, text, &err), UM_SUCCESS) << err;
    char e[1024] = "";
    EXPECT_EQ(bl_mesh_build(d, &m, e, sizeof e), UM_ERR_CONFIG) << c[1];
    EXPECT_NE(std::string(e).find(c[2]), std::string::npos) << c[1] << ": " << e;
    bl_mesh_free(&m);
    m = bl_mesh{};
  }
}

TEST(BookLeafKernels, IdealGasEos) {
  bl_cut[4] = 1e-8, bl_cut[5] = 1e-6;
  bl_eos_type[0] = 1, bl_eos_param[0] = 1.4;
  const int mat = 0;
  const double rho = 1.0, e = 2.5;
  double p, cs2;
  bl_eos(&mat, &rho, &e, &p, &cs2);
  EXPECT_NEAR(p, 1.0, 1e-15);
  EXPECT_NEAR(cs2, 1.4 * 0.4 * 2.5, 1e-15);
  const double cold = 0.0;
  bl_eos(&mat, &rho, &cold, &p, &cs2);
  EXPECT_EQ(p, 0.0);
  EXPECT_EQ(cs2, 1e-6); /* ccut */
}

TEST(BookLeafKernels, UniformPressureForcesBalance) {
  /* a unit square: the pressure forces of the four corners sum to zero and push outwards */
  const double x0[2] = {0, 0}, x1[2] = {1, 0}, x2[2] = {1, 1}, x3[2] = {0, 1}, mass = 2.0;
  double iso[4], cnwt[4], vol, rho, vmin = 1e300;
  bl_geom(x0, x1, x2, x3, &mass, iso, cnwt, &vol, &rho, &vmin);
  EXPECT_DOUBLE_EQ(vol, 1.0);
  EXPECT_DOUBLE_EQ(rho, 2.0);
  for (int c = 0; c < 4; c++) EXPECT_DOUBLE_EQ(cnwt[c], 0.25);
  const double p = 3.0, visc[8] = {0};
  double f[8];
  bl_force(&p, iso, visc, f);
  EXPECT_NEAR(f[0] + f[1] + f[2] + f[3], 0.0, 1e-15);
  EXPECT_NEAR(f[4] + f[5] + f[6] + f[7], 0.0, 1e-15);
  EXPECT_LT(f[0], 0.0); /* corner 0 at the origin is pushed to -x, -y */
  EXPECT_LT(f[4], 0.0);
  EXPECT_GT(f[2], 0.0);
  EXPECT_GT(f[6], 0.0);
  /* work: moving the corners outwards at unit speed loses internal energy at the rate p dV/dt */
  const double u0[2] = {-1, -1}, u1[2] = {1, -1}, u2[2] = {1, 1}, u3[2] = {-1, 1};
  bl_cut[1] = 1e-40;
  double e = 10.0;
  const double dt = 0.1;
  bl_energy(f, u0, u1, u2, u3, &mass, &dt, &e);
  EXPECT_NEAR(e, 10.0 - 0.1 * 3.0 * 4.0 / 2.0, 1e-12); /* dV/dt = 4 (sides growing at 2) */
}

TEST(BookLeafKernels, ScatterSchemesAgree) {
  const double rho = 1.5, cnwt[4] = {0.1, 0.2, 0.3, 0.4}, cnmass[4] = {0.15, 0.0, 0.45, 0.6};
  const double cnf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  bl_cut[1] = 1e-40;
  double a[4][4] = {}, b[4][4] = {};
  bl_scatter(&rho, cnwt, cnmass, cnf, a[0], a[1], a[2], a[3]);
  for (int c = 0; c < 4; c++) bl_scatter_corner(&rho, cnwt, cnmass, cnf, &c, b[c]);
  for (int c = 0; c < 4; c++)
    for (int k = 0; k < 4; k++) EXPECT_EQ(a[c][k], b[c][k]);
  EXPECT_DOUBLE_EQ(a[1][0], 0.15); /* an empty corner takes its predecessor's mass */
  EXPECT_DOUBLE_EQ(a[2][3], 7.0);
}

TEST(BookLeafSod, ExactSolution) {
  EXPECT_EQ(bl_sod_density(-40.0, 10.0), 1.0);
  EXPECT_NEAR(bl_sod_density(0.0, 10.0), 0.42631942817849519385, 1e-15);
  EXPECT_NEAR(bl_sod_density(12.0, 10.0), 0.26557371170530706471, 1e-15);
  EXPECT_EQ(bl_sod_density(30.0, 10.0), 0.125);
  /* the rarefaction joins the left state continuously */
  EXPECT_NEAR(bl_sod_density(-std::sqrt(1.4) * 10.0 + 1e-9, 10.0), 1.0, 1e-6);
}

}  // namespace
