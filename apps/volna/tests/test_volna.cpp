// Volna's deck reader, formula parser and interpreter, meshes (upstream's numbering, Gmsh), the
// exact dam break and properties of the flux kernels (lake at rest, symmetry, conservation).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "um/gmsh.h"
#include "volna.h"
#include "volna_kernels.h"
}

namespace {

// ---- formulas ----------------------------------------------------------------------

struct Expr {
  vl_expr *e = nullptr;
  std::string err;
  explicit Expr(const char *text, int line = 1) {
    char buf[1024] = "";
    if (vl_expr_parse(text, "deck.vln", line, &e, buf, sizeof buf)) err = buf;
  }
  ~Expr() { vl_expr_free(e); }
  float operator()(float x, float y = 0, float t = 0) const { return vl_expr_eval(e, x, y, t); }
  std::string c() const {
    std::string s(vl_expr_to_c(e, nullptr, 0) + 1, '\0');
    vl_expr_to_c(e, &s[0], s.size());
    s.resize(s.size() - 1);
    return s;
  }
};

TEST(VolnaExpr, PrecedenceAndOperatorsAsC) {
  EXPECT_EQ(Expr("return 1+2*x;")(3), 7.0f);
  EXPECT_EQ(Expr("(1+2)*x")(3), 9.0f);
  EXPECT_EQ(Expr("-x*-2 - -1")(3), 7.0f);
  EXPECT_EQ(Expr("8/2/2")(0), 2.0f);
  EXPECT_EQ(Expr("1 - 2 - 3")(0), -4.0f);
  EXPECT_EQ(Expr("x < 1 + 1")(1.5f), 1.0f);  // + binds tighter than <
  EXPECT_EQ(Expr("x <= 2 && x >= 2 || 0")(2), 1.0f);
  EXPECT_EQ(Expr("x == 2")(2), 1.0f);
  EXPECT_EQ(Expr("x != 2")(2), 0.0f);
  EXPECT_EQ(Expr("!x")(0), 1.0f);
  EXPECT_EQ(Expr("x > 0 ? 5 : x < -1 ? 6 : 7")(-0.5f), 7.0f);
  EXPECT_EQ(Expr("x > 0 ? 5 : x < -1 ? 6 : 7")(-2), 6.0f);
  EXPECT_EQ(Expr("1/2")(0), 0.5f) << "numbers are float as upstream writes them (1.0f/2.0f), not C ints";
  EXPECT_EQ(Expr("t*y")(0, 3, 2), 6.0f);
  EXPECT_FLOAT_EQ(Expr("g")(0), 9.81f);
  EXPECT_FLOAT_EQ(Expr("pow(x, 2) + fmin(x, 1) + fmax(x, 1) + fmod(x, 2) + atan2(0, 1)")(3), 9 + 1 + 3 + 1);
  EXPECT_FLOAT_EQ(Expr("M_PI")(0), 3.14159265f);
}

TEST(VolnaExpr, FloatArithmeticAsUpstreamCompilesIt) {
  // upstream's pre-processor writes .2f, -5.0f, ... and evaluates in float: the same bits
  Expr e(" return .2*(-5-x)*(x<0)-(x>=0)+.2*(t<1)*exp(-(x+3-2*t)*(x+3-2*t)-y*y)+.2*(t>=1)*exp(-(x+1)*(x+1)-y*y);");
  ASSERT_TRUE(e.err.empty()) << e.err;
  EXPECT_TRUE(vl_expr_uses_t(e.e));
  for (float x : {-7.3f, -3.0f, -0.1f, 0.0f, 0.7f, 4.2f})
    for (float y : {-1.5f, 0.0f, 0.3f})
      for (float t : {0.0f, 0.5f, 1.0f, 2.5f}) {
        const float want = .2f * (-5.0f - x) * (x < 0.0f) - (x >= 0.0f) +
                           .2f * (t < 1.0f) * expf(-(x + 3.0f - 2.0f * t) * (x + 3.0f - 2.0f * t) - y * y) +
                           .2f * (t >= 1.0f) * expf(-(x + 1.0f) * (x + 1.0f) - y * y);
        EXPECT_EQ(e(x, y, t), want) << x << " " << y << " " << t;
      }
  EXPECT_FALSE(vl_expr_uses_t(Expr("x*y").e));
}

TEST(VolnaExpr, BlockEvaluationIsTheSameArithmetic) {
  Expr e("return x > 0 ? .2*exp(-(x+3-2*t)*(x+3-2*t)-y*y) : -fmin(x, y)/3 + (t >= 1 && !(y < 0));");
  ASSERT_TRUE(e.err.empty()) << e.err;
  std::vector<float> ws(vl_expr_workspace(e.e)), x(VL_EXPR_BLOCK), y(VL_EXPR_BLOCK), out(VL_EXPR_BLOCK);
  for (int n : {1, 7, VL_EXPR_BLOCK}) {
    for (int k = 0; k < n; k++) x[k] = -3.0f + 0.37f * k, y[k] = 1.1f - 0.13f * k;
    vl_expr_eval_block(e.e, n, x.data(), y.data(), 1.25f, ws.data(), out.data());
    for (int k = 0; k < n; k++) EXPECT_EQ(out[k], e(x[k], y[k], 1.25f)) << n << " " << k;
  }
}

TEST(VolnaExpr, GeneratedCIsTheSameExpressionInFloat) {
  Expr e("return -1+.8*exp(-(x*x+y*y)/4) * (t < 1 && y >= 0 || !x ? sqrt(g) : 0);");
  ASSERT_TRUE(e.err.empty()) << e.err;
  const std::string c = e.c();
  EXPECT_NE(c.find("um_expf("), std::string::npos) << c;  // expf, or its portable twin in reproducible mode
  EXPECT_NE(c.find("sqrtf(9.810000420e+00f)"), std::string::npos) << c;  // g baked in, exactly
  EXPECT_NE(c.find("8.000000119e-01f"), std::string::npos) << c;         // .8f, 9 digits: the float exactly
  EXPECT_EQ(c.find("return"), std::string::npos) << c;
  for (char ch : c) EXPECT_TRUE(std::strchr("0123456789.e+-*/()<>=!?:,&|fxytabcdeghilmnopqrstuw_ ", ch)) << c;
}

TEST(VolnaExpr, ErrorsNameFileLineColumnAndWhatToDo) {
  Expr a("return -1 + xx;", 7);
  EXPECT_NE(a.err.find("deck.vln:7:13: in the formula: unknown name 'xx'"), std::string::npos) << a.err;
  EXPECT_NE(a.err.find("the variables are x, y, t and g"), std::string::npos) << a.err;
  Expr b("return (x + 1;", 3);
  EXPECT_NE(b.err.find("deck.vln:3:"), std::string::npos) << b.err;
  EXPECT_NE(b.err.find("')' expected"), std::string::npos) << b.err;
  Expr c("return x\n  + 2 3;", 10);
  EXPECT_NE(c.err.find("deck.vln:11:"), std::string::npos) << "the second line of the formula: " << c.err;
  EXPECT_NE(Expr("").err.find("an empty formula"), std::string::npos);
  EXPECT_NE(Expr("x % 2").err.find("fmod"), std::string::npos);
  EXPECT_NE(Expr("exp(x, y)").err.find("')' expected"), std::string::npos);
  EXPECT_NE(Expr("pow(x)").err.find("two arguments"), std::string::npos);
  EXPECT_NE(Expr("1.5.3").err.find("malformed"), std::string::npos) << Expr("1.5.3").err;
  EXPECT_NE(Expr("system(1)").err.find("unknown name 'system'"), std::string::npos);
  EXPECT_NE(Expr("1e39 * x").err.find("too large for a float"), std::string::npos);
  std::string deep(5000, '(');
  EXPECT_NE(Expr(deep.c_str()).err.find("too deeply"), std::string::npos);
  std::string longf = "x";
  for (int i = 0; i < 3000; i++) longf += "+x";
  EXPECT_NE(Expr(longf.c_str()).err.find("too long"), std::string::npos);
}

// ---- decks -----------------------------------------------------------------------------

struct Deck {
  vl_deck d;
  std::string err;
  int rc;
  explicit Deck(const std::string &text) {
    char buf[2048] = "";
    rc = vl_deck_parse(text.c_str(), text.size(), "case.vln", ".", &d, buf, sizeof buf);
    err = buf;
  }
  ~Deck() {
    if (!rc) vl_deck_free(&d);
  }
};

const char *kLandslide =
    "Time { end = 4 }\n"
    "Mesh Rectangle -10 30 -10 10 80 40\n"
    "PhysicalParams { g = 9.81 }\n"
    "# a comment line\n"
    "NumericalParams { cfl = .45 }   # and a trailing one\n"
    "Init { istart = 0 istep = 1 } Bathymetry { return .2*(-5-x)*(x<0)-(x>=0);}\n"
    "OutputTime { istep = 100 } \"cout\"\n"
    "OutputConservedQuantities { istep = 100 } \"cout\"\n"
    "OutputLocation { step = .5 } \"gauge\" { x = 1.5 y = -2 }\n";

TEST(VolnaDeck, ReadsUpstreamsStatements) {
  Deck k(kLandslide);
  ASSERT_EQ(k.rc, 0) << k.err;
  const vl_deck &d = k.d;
  EXPECT_EQ(d.final_time, 4.0);
  EXPECT_TRUE(d.rectangle);
  EXPECT_EQ(d.nx, 80);
  EXPECT_EQ(d.ny, 40);
  EXPECT_EQ(d.xmin, -10.0f);
  EXPECT_EQ(d.ymax, 10.0f);
  EXPECT_EQ(d.g, 9.81f);
  EXPECT_EQ(d.cfl, 0.45f);
  ASSERT_EQ(d.nevents, 4);
  EXPECT_EQ(d.events[0].kind, VL_INIT_BATHYMETRY);
  EXPECT_EQ(d.events[0].post_update, 0);
  EXPECT_EQ(d.events[0].timer.istep, 1u);
  EXPECT_EQ(d.events[0].timer.iend, (unsigned)INT_MAX);
  EXPECT_EQ(d.events[0].line, 6);
  ASSERT_NE(d.events[0].formula, nullptr);
  EXPECT_EQ(vl_expr_eval(d.events[0].formula, -6, 0, 0), .2f * 1.0f);
  EXPECT_EQ(d.events[1].kind, VL_OUT_TIME);
  EXPECT_EQ(d.events[1].post_update, 1);
  EXPECT_EQ(d.events[1].timer.istep, 100u);
  EXPECT_STREQ(d.events[1].stream, "cout");
  EXPECT_EQ(d.events[3].kind, VL_OUT_LOCATION);
  EXPECT_EQ(d.events[3].x, 1.5f);
  EXPECT_EQ(d.events[3].y, -2.0f);
  EXPECT_EQ(d.events[3].timer.step, 0.5);
  EXPECT_EQ(d.events[3].timer.istep, (unsigned)INT_MAX) << "a time step turns iteration steps off, as upstream";
}

TEST(VolnaDeck, ErrorsNameTheLineAndWhatToDo) {
  auto err = [](const std::string &t) { return Deck(t).err; };
  const std::string head = "Time { end = 1 }\nMesh Rectangle 0 1 0 1 2 2\n";
  EXPECT_NE(err(head + "Friction { n = 1 }\n").find("case.vln:3: unknown statement 'Friction'"), std::string::npos);
  EXPECT_NE(err(head + "PhysicalParams { g = fast }\n").find("case.vln:3: PhysicalParams g: a number expected"),
            std::string::npos);
  EXPECT_NE(err(head + "PhysicalParams { h = 1 }\n").find("unknown setting 'h'"), std::string::npos);
  EXPECT_NE(err(head + "NumericalParams { cfl = 2 }\n").find("must be in (0, 1]"), std::string::npos);
  EXPECT_NE(err(head + "Init { istart = 0 } Eta \"eta.txt\"\n").find("case.vln:3: Init Eta from the file"),
            std::string::npos);
  EXPECT_NE(err(head + "Init { } Pressure { return 1; }\n").find("'Pressure' is not something to initialise"),
            std::string::npos);
  EXPECT_NE(err(head + "Init { istep = -1 } Eta { return 1; }\n").find("istep = -1"), std::string::npos);
  EXPECT_NE(err(head + "Init { } Eta { return 1 +; }\n").find("case.vln:3:26: in the formula"), std::string::npos);
  EXPECT_NE(err(head + "Init { } Eta { return 1;\n").find("no closing '}'"), std::string::npos);
  EXPECT_NE(err(head + "OutputTime { istep = 1 } cout\n").find("'\"' expected"), std::string::npos);
  EXPECT_NE(err(head + "OutputLocation { } \"g\"\n").find("the point is missing"), std::string::npos);
  EXPECT_NE(err(head + "BoundaryCondition 1 SubCriticalInflowEta x\n").find("reflective"), std::string::npos);
  EXPECT_NE(err("Time { end = 1 }\n").find("no Mesh statement"), std::string::npos);
  EXPECT_NE(err("Mesh Rectangle 0 1 0 1 2 2\n").find("no end time"), std::string::npos);
  EXPECT_NE(err("Time { end = 0 }\nMesh Rectangle 0 1 0 1 2 2\n").find("case.vln:1: Time end = 0: must be > 0"),
            std::string::npos);
  EXPECT_NE(err("Time { end = 1 }\nMesh Rectangle 1 1 0 1 2 2\n").find("case.vln:2:"), std::string::npos);
  EXPECT_NE(err("Time { end = 1 }\nMesh Rectangle 0 1 0 1 0 2\n").find("must be >= 1"), std::string::npos);
  EXPECT_NE(err("Time { end = 1 } Time { end = 2 }\nMesh Rectangle 0 1 0 1 2 2\n").find("one statement per line"),
            std::string::npos);
  EXPECT_NE(err("Time { end = 1 }\nMesh \"square.stl\"\n").find(".msh"), std::string::npos);
}

// Before: a value a double holds but a float does not (1e39) became inf and another message ("no end time", "a
// degenerate triangle", "initial state not finite", a gauge's note); a NUL byte cut a formula short; a second Mesh
// replaced the first; upstream's old "Init eta { }" and a UTF-8 byte order mark gave puzzling messages.
TEST(VolnaDeck, ValuesBeyondAFloatAndOtherSlipsAreNamedAtTheirLine) {
  auto says = [](const std::string &deck, const std::string &what) {
    const std::string e = Deck(deck).err;
    EXPECT_NE(e.find(what), std::string::npos) << e;
  };
  const std::string head = "Time { end = 1 }\nMesh Rectangle 0 1 0 1 2 2\n", nul(1, '\0');
  says("Time { end = 1e39 }\nMesh Rectangle 0 1 0 1 2 2\n", "case.vln:1: Time end = 1e+39: too large for a float");
  says("Time { end = 1 }\nMesh Rectangle 0 1e39 0 1 2 2\n", "case.vln:2: Mesh Rectangle xmax = 1e+39: too large");
  says("Time { end = 1 }\nMesh Rectangle -3e38 3e38 0 1 2 2\n",
       "case.vln:2: Mesh Rectangle -3e+38 3e+38 0 1: the width or height is too large for a float");
  says(head + "Init { } GaussianLandslide { A = 1e39 V = 1 lx = 1 ly = 1 }\n",
       "case.vln:3: GaussianLandslide A = 1e+39: too large for a float");
  says(head + "OutputLocation { istep = 1 } \"g\" { x = 1e39 y = 0.5 }\n",
       "case.vln:3: OutputLocation x = 1e+39: too large for a float");
  says(head + "Init { end = -1e39 } Eta { return 1; }\n", "case.vln:3: end = -1e+39: too large for a float");
  says(head + "Init { } Eta { return 1;" + nul + " garbage ( }\n", "case.vln:3: a NUL byte in the deck");
  says(head + "\n" + nul, "case.vln:4: a NUL byte");
  says(head + "Mesh Rectangle 0 1 0 1 4 4\n", "case.vln:3: a second Mesh statement (the first is at line 2)");
  says(head + "Init eta { return 1; }\n",
       "case.vln:3: Init eta { ... }: upstream's old form of initial values, which upstream Volna refuses too "
       "(\"Unsupported method of specifiying initial values: please use Init events\"); write it as an Init event: "
       "Init { istart = 0 iend = 0 } Eta { ... }");
  says(head + "Init Bathymetry {return -1;}\n", "Init Bathymetry { ... }: upstream's old form");
  says(head + "Init Eta { return 1; }\n", "'{' expected after Init, found 'Eta'");
  says("\xEF\xBB\xBFInit { } Eta { return 1 +; }\n" + head, "case.vln:1:26: in the formula"); // columns after it
  Deck ok("\xEF\xBB\xBF" + head);
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_EQ(ok.d.final_time, 1.0f);
}

// Timers as upstream's timer_happens and processEvents run them: one that could never fire, or a value with no
// meaning, is refused at its line with what to write; every timer the shipped decks use (and upstream's step = -1)
// still parses. Before, each of the refused ones parsed and the run went on silently.
TEST(VolnaDeck, TimersThatCouldNeverRunAreRefused) {
  const std::string head = "Time { end = 1 }\nMesh Rectangle 0 1 0 1 2 2\n";
  auto refused = [&](const std::string &timer, const std::string &what) {
    const Deck k(head + "OutputTime { " + timer + " } \"cout\"\n");
    EXPECT_NE(k.rc, 0) << timer;
    EXPECT_NE(k.err.find("case.vln:3: " + what), std::string::npos) << timer << ": " << k.err;
  };
  refused("istep = 0", "istep = 0: the event would run at iteration 0 only");
  refused("istep = -1", "istep = -1: a whole number of steps >= 1 expected; upstream's -1 convention is step = -1");
  refused("step = 0", "step = 0: the time between two runs of the event must be > 0 seconds");
  refused("step = -2", "step = -2: the time between two runs");
  refused("start = -1", "start = -1: the run starts at t = 0");
  refused("start = 5 end = 2", "start = 5, end = 2: the event would never run");
  refused("end = -1", "start = 0, end = -1: the event would never run");
  refused("start = 2 end = 2", "start = 2, end = 2: the event would never run");
  refused("istart = 4 iend = 2", "istart = 4, iend = 2: the event would never run");
  refused("istart = 5 iend = 5", "istart = 5, iend = 5: the event would never run");
  refused("istart = 5", "istart = 5 with istep = 1: the event would never run");
  refused("istart = 2 istep = 5 iend = 5", "istart = 2 with istep = 5 and iend not above it");
  // upstream's parser refuses a negative istep whatever step is; with step given the advice is to remove it
  refused("istep = -1 step = 0.01", "istep = -1: a whole number of steps >= 1 expected (upstream's parser refuses it "
                                    "too); with step = 0.01 given, istep is void (upstream's pre-processor): remove");
  // start > 0 by iterations: at iteration istep alone, if the first istep steps reach start (else never); ran silently
  refused("start = 0.01", "start = 0.01 with istep = 1 and no step: the event would run only if the first 1 time "
                          "step reach t = start, and else never");
  refused("istep = 10 start = 0.5", "start = 0.5 with istep = 10 and no step");
  // by time, first due at t >= step: never below end (and not at t = 0)
  refused("start = 0.2 step = 2 end = 0.5", "step = 2, end = 0.5: the event would never run");
  refused("istart = 1 step = 0.5 end = 0.5", "step = 0.5, end = 0.5: the event would never run");
  const char *const kept[] = {"istep = 100", "istart = 0 iend = 0", "istart = 0 istep = 1", "istart = 0 iend = 5",
                              "istart = 3 istep = 3", "istart = 2 istep = 2 iend = 3", "step = -1",
                              "start = 0.3 step = 0.1", "start = 0 end = 0", "istart = 5 step = -1",
                              // step = R makes istep void (upstream's pre-processor: istep = INT_MAX)
                              "istep = 0 step = 0.01", "istep = 0 step = -1", "step = 0.01 istep = 0",
                              "istep = 7 istart = 9 step = 0.5", "start = 0 end = 0.5 step = 2"};
  for (const char *t : kept) {
    const Deck k(head + "OutputTime { " + t + " } \"cout\"\n");
    EXPECT_EQ(k.rc, 0) << t << ": " << k.err;
  }
  const Deck init(head + "Init { istart = 4 iend = 2 } Eta { return 1; }\n");
  EXPECT_NE(init.err.find("case.vln:3: istart = 4, iend = 2"), std::string::npos) << init.err;
  const Deck ok(head + "OutputTime { istep = 0 step = 0.01 } \"cout\"\n");
  ASSERT_EQ(ok.rc, 0) << ok.err;
  EXPECT_EQ(ok.d.events[0].timer.istep, (unsigned)INT_MAX);
  // a timer over several lines: the error names the line of the key concerned (the last given of those), not the
  // closing brace's (before: line 7 for each)
  auto line_of = [&](const std::string &body, const std::string &what) {
    const Deck k(head + "OutputTime {\n" + body + "} \"cout\"\n");
    EXPECT_NE(k.err.find(what), std::string::npos) << body << ": " << k.err;
  };
  line_of("istart = 3\nistep = 2\n\n", "case.vln:5: istart = 3 with istep = 2");
  line_of("istep = 2\nistart = 3\n\n", "case.vln:5: istart = 3 with istep = 2");
  line_of("istart = 3\n\n\n", "case.vln:4: istart = 3 with istep = 1");
  line_of("istep = 0\nstart = 0\n\n", "case.vln:4: istep = 0");
  line_of("\nstep = 0\n\n", "case.vln:5: step = 0:");
  line_of("start = 5\n\nend = 2\n", "case.vln:6: start = 5, end = 2");
  line_of("start = 0.5\n\n\n", "case.vln:4: start = 0.5 with istep = 1");
}

// ---- meshes ----------------------------------------------------------------------------

TEST(VolnaMesh, RectangleNumberedAsUpstream) {
  vl_mesh m;
  char err[256];
  ASSERT_EQ(vl_mesh_rectangle(0, 2, 0, 1, 2, 1, &m, err, sizeof err), 0) << err;
  ASSERT_EQ(m.nnodes, 6);
  ASSERT_EQ(m.ncells, 4);
  ASSERT_EQ(m.nedges, 3 * 2 * 1 + 2 + 1);
  // nodes x fastest; cells i outer, j inner: (LL, UL, UR), (LL, LR, UR)
  EXPECT_EQ(m.node_xy[2 * 4], 1.0f);
  EXPECT_EQ(m.node_xy[2 * 4 + 1], 1.0f);
  const int cn[12] = {0, 3, 4, 0, 1, 4, 1, 4, 5, 1, 2, 5};
  for (int i = 0; i < 12; i++) EXPECT_EQ(m.cell_nodes[i], cn[i]) << i;
  // edges sorted by (smaller node, larger node)
  const int en[9][2] = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 4}, {1, 5}, {2, 5}, {3, 4}, {4, 5}};
  for (int e = 0; e < 9; e++) {
    // an edge's nodes are those its left cell shares
    const int c = m.edge_cells[2 * e];
    int shared = 0;
    for (int k = 0; k < 3; k++) shared += m.cell_nodes[3 * c + k] == en[e][0] || m.cell_nodes[3 * c + k] == en[e][1];
    EXPECT_EQ(shared, 2) << "edge " << e;
  }
  // edge (0,4), the first diagonal: cells 1 (left, the larger) and 0
  EXPECT_EQ(m.edge_cells[2 * 2], 1);
  EXPECT_EQ(m.edge_cells[2 * 2 + 1], 0);
  EXPECT_EQ(m.is_boundary[2], 0);
  // edge (0,1): boundary, cell 1 twice
  EXPECT_EQ(m.edge_cells[0], 1);
  EXPECT_EQ(m.edge_cells[1], 1);
  EXPECT_EQ(m.is_boundary[0], 1);
  // cell -> edges ascending; cell -> cells: neighbours in edge order, then itself
  const int ce0[3] = {1, 2, 7}, cc0[3] = {1, 0, 0};
  for (int k = 0; k < 3; k++) {
    EXPECT_EQ(m.cell_edges[k], ce0[k]);
    EXPECT_EQ(m.cell_cells[k], cc0[k]);
  }
  const int cc2[3] = {1, 3, 2};  // cell 2: edges (1,4) -> 1, (1,5) -> 3, (4,5) boundary
  for (int k = 0; k < 3; k++) EXPECT_EQ(m.cell_cells[6 + k], cc2[k]);
  // geometry
  EXPECT_EQ(m.cell_area[0], 0.5f);
  EXPECT_FLOAT_EQ(m.cell_xy[0], 1.0f / 3.0f);
  EXPECT_FLOAT_EQ(m.cell_xy[1], 2.0f / 3.0f);
  for (int e = 0; e < m.nedges; e++) {
    const float *n = m.edge_normal + 2 * e;
    EXPECT_NEAR(n[0] * n[0] + n[1] * n[1], 1.0f, 1e-6f);
    // pointing away from the left cell
    const int c = m.edge_cells[2 * e];
    const float *a = m.node_xy + 2 * en[e][0], *b = m.node_xy + 2 * en[e][1];
    const float dx = 0.5f * (a[0] + b[0]) - m.cell_xy[2 * c], dy = 0.5f * (a[1] + b[1]) - m.cell_xy[2 * c + 1];
    EXPECT_GT(dx * n[0] + dy * n[1], 0.0f) << "edge " << e;
  }
  vl_mesh_free(&m);
}

TEST(VolnaMesh, EveryCellIsClosed) {
  vl_mesh m;
  char err[256];
  ASSERT_EQ(vl_mesh_rectangle(-10, 30, -10, 10, 16, 8, &m, err, sizeof err), 0) << err;
  EXPECT_EQ(m.nedges, 3 * 16 * 8 + 16 + 8);
  std::vector<double> s(2 * m.ncells, 0.0);
  int boundary = 0;
  for (int e = 0; e < m.nedges; e++) {
    const int l = m.edge_cells[2 * e], r = m.edge_cells[2 * e + 1];
    const double nx = m.edge_normal[2 * e] * m.edge_length[e], ny = m.edge_normal[2 * e + 1] * m.edge_length[e];
    s[2 * l] += nx, s[2 * l + 1] += ny;
    if (m.is_boundary[e]) {
      boundary++;
      EXPECT_EQ(l, r);
    } else {
      EXPECT_GT(l, r);
      s[2 * r] -= nx, s[2 * r + 1] -= ny;
    }
  }
  EXPECT_EQ(boundary, 2 * (16 + 8));
  for (int c = 0; c < m.ncells; c++) EXPECT_NEAR(std::hypot(s[2 * c], s[2 * c + 1]), 0.0, 1e-5) << "cell " << c;
  vl_mesh_free(&m);
}

std::string msh(const std::string &elements, int n) {
  return "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n5 2 0 0\n$EndNodes\n"
         "$Elements\n" + std::to_string(n) + "\n" + elements + "$EndElements\n";
}

TEST(VolnaMesh, GmshTrianglesAndClearErrors) {
  vl_mesh m;
  char err[512] = "";
  std::string ok = msh("1 15 2 0 1 1\n2 1 2 0 1 1 2\n3 2 2 0 1 1 2 3\n4 2 2 0 1 1 3 4\n", 4);
  ASSERT_EQ(vl_mesh_gmsh_parse(ok.c_str(), ok.size(), "sq.msh", &m, err, sizeof err), 0) << err;
  EXPECT_EQ(m.ncells, 2);
  EXPECT_EQ(m.nedges, 5);
  EXPECT_EQ(m.cell_nodes[3], 0);
  EXPECT_EQ(m.cell_nodes[5], 3);
  vl_mesh_free(&m);
  std::string quad = msh("1 2 2 0 1 1 2 3\n2 3 2 0 1 1 2 3 4\n", 2);
  EXPECT_NE(vl_mesh_gmsh_parse(quad.c_str(), quad.size(), "q.msh", &m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("q.msh:15: element 2 is a quadrangle (Gmsh type 3)"), std::string::npos) << err;
  std::string deg = msh("1 2 2 0 1 1 2 5\n", 1);
  EXPECT_NE(vl_mesh_gmsh_parse(deg.c_str(), deg.size(), "d.msh", &m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("d.msh:14: a degenerate triangle"), std::string::npos) << err;
  std::string missing = msh("1 2 2 0 1 1 2 9\n", 1);
  EXPECT_NE(vl_mesh_gmsh_parse(missing.c_str(), missing.size(), "m.msh", &m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("node 9, which $Nodes does not define"), std::string::npos) << err;
  std::string bin = "$MeshFormat\n2.2 1 8\n";
  EXPECT_NE(vl_mesh_gmsh_parse(bin.c_str(), bin.size(), "b.msh", &m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("binary"), std::string::npos) << err;
  std::string v4 = "$MeshFormat\n4.1 0 8\n";
  EXPECT_NE(vl_mesh_gmsh_parse(v4.c_str(), v4.size(), "v4.msh", &m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("format 2"), std::string::npos) << err;
  std::string three = msh("1 2 2 0 1 1 2 3\n2 2 2 0 1 1 2 4\n3 2 2 0 1 2 1 3\n", 3);
  EXPECT_NE(vl_mesh_gmsh_parse(three.c_str(), three.size(), "t.msh", &m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("belongs to 3 triangles"), std::string::npos) << err;
}

// the shared reader itself (um/gmsh.h): doubles, z ignored, tags, skipped lines and points, file lines
TEST(VolnaMesh, SharedGmshReader) {
  um_gmsh_mesh g;
  char err[512] = "";
  const std::string text =
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n2 7 \"sea\"\n$EndPhysicalNames\n"
      "$Nodes\n4\n10 0 0 5\n20 0.1234567890123 0 -1\n30 1 1 0\n40 0 1 0\n$EndNodes\n"
      "$Elements\n4\n1 15 2 0 1 10\n2 1 2 0 1 10 20\n5 2 2 7 1 10 20 30\n6 2 0 10 30 40\n$EndElements\n";
  ASSERT_EQ(um_gmsh_parse(text.c_str(), text.size(), "g.msh", &g, err, sizeof err), 0) << err;
  EXPECT_EQ(g.nnodes, 4);
  EXPECT_EQ(g.ntris, 2);
  EXPECT_EQ(g.nskipped, 2);
  EXPECT_EQ(g.xy[2], 0.1234567890123);  // double, not float
  EXPECT_EQ(g.node_id[3], 40);
  EXPECT_EQ(g.tri[0], 0);
  EXPECT_EQ(g.tri[1], 1);
  EXPECT_EQ(g.tri[5], 3);
  EXPECT_EQ(g.tri_tag[0], 7);
  EXPECT_EQ(g.tri_tag[1], 0);  // no tags
  EXPECT_EQ(g.tri_id[1], 6);
  EXPECT_EQ(g.tri_line[0], 19);
  um_gmsh_free(&g);
  um_gmsh_free(&g);  // twice is safe
  const std::string v4 = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n";
  EXPECT_NE(um_gmsh_parse(v4.c_str(), v4.size(), "v4.msh", &g, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("v4.msh:2: Gmsh format 4.1"), std::string::npos) << err;
  EXPECT_NE(std::string(err).find("-format msh22"), std::string::npos) << err;
  EXPECT_EQ(g.xy, nullptr);
  const std::string bin = "$MeshFormat\n2.2 1 8\n";
  EXPECT_NE(um_gmsh_parse(bin.c_str(), bin.size(), "b.msh", &g, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("-format msh22"), std::string::npos) << err;
  const std::string junk = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 0 0 x\n$EndNodes\n";
  EXPECT_NE(um_gmsh_parse(junk.c_str(), junk.size(), "j.msh", &g, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("j.msh:6: node 1 of 1: 'id x y z' expected"), std::string::npos) << err;
  const std::string none = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 0 0\n$EndNodes\n"
                           "$Elements\n1\n1 15 2 0 1 1\n$EndElements\n";
  EXPECT_NE(um_gmsh_parse(none.c_str(), none.size(), "n.msh", &g, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("n.msh: no triangles"), std::string::npos) << err;
  EXPECT_NE(um_gmsh_read("/nonexistent/x.msh", &g, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("/nonexistent/x.msh: cannot open the mesh"), std::string::npos) << err;
}

// what a Gmsh file is refused for, at its line: a count that disagrees with the lines, a node not finite, an id
// twice, a line or point element with the wrong nodes. Before: a count too small dropped the elements after it
// (exit 0); nan / inf nodes, repeated element ids and lines or points naming no node were accepted.
std::string gmsh_err(const std::string &nodes, int nn, const std::string &elements, int ne) {
  const std::string text = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n" + std::to_string(nn) + "\n" + nodes +
                           "$EndNodes\n$Elements\n" + std::to_string(ne) + "\n" + elements + "$EndElements\n";
  um_gmsh_mesh g;
  char err[512] = "";
  if (um_gmsh_parse(text.c_str(), text.size(), "c.msh", &g, err, sizeof err)) return err;
  um_gmsh_free(&g);
  return "";
}

TEST(VolnaMesh, GmshCountsAndIdsAreChecked) {
  auto says = [](const std::string &nodes, int nn, const std::string &elements, int ne, const std::string &what) {
    const std::string e = gmsh_err(nodes, nn, elements, ne);
    EXPECT_NE(e.find(what), std::string::npos) << e;
  };
  const std::string n4 = "1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n"; // lines 6-9; $EndNodes 10, elements from 13
  const std::string e2 = "1 2 2 0 1 1 2 3\n2 2 2 0 1 1 3 4\n";
  EXPECT_EQ(gmsh_err(n4, 4, e2, 2), "");
  says(n4, 4, e2, 1, "c.msh:14: $Elements says 1 but more element lines follow");
  says(n4, 4, e2, 3, "c.msh:15: $Elements says 3 but '$EndElements' comes after 2 element lines: fix the count");
  says(n4, 3, e2, 2, "c.msh:9: $Nodes says 3 but more node lines follow");
  says(n4, 5, e2, 2, "c.msh:10: $Nodes says 5 but '$EndNodes' comes after 4 node lines");
  const std::string open = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 1 1 0\n$EndNodes\n"
                           "$Elements\n1\n1 2 2 0 1 1 2 3\n";
  um_gmsh_mesh g;
  char err[512] = "";
  EXPECT_NE(um_gmsh_parse(open.c_str(), open.size(), "o.msh", &g, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("the file ends before $EndElements"), std::string::npos) << err;
  says("1 0 0 0\n2 1 0 0\n3 nan 1 0\n4 0 1 0\n", 4, e2, 2, "c.msh:8: node 3 at (nan, 1, 0): coordinates must be");
  says("1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 -inf 0\n", 4, e2, 2, "c.msh:9: node 4 at (0, -inf, 0)");
  says("1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 1e999\n", 4, e2, 2, "c.msh:9: node 4 at (0, 1, inf)");
  says("1 0 0 0\n2 1 0 0\n1 1 1 0\n4 0 1 0\n", 4, e2, 2,
       "c.msh:8: node id 1 appears twice in $Nodes (first at line 6)");
  says(n4, 4, e2 + "1 2 2 0 1 2 3 4\n", 3, "c.msh:15: element id 1 appears twice in $Elements (first at line 13)");
  says(n4, 4, "7 15 2 0 1 1\n7 1 2 0 1 1 2\n" + e2, 4, "c.msh:14: element id 7 appears twice"); // lines, points too
  says(n4, 4, "5 1 2 0 1 1 99\n" + e2, 3, "c.msh:13: line element 5 refers to node 99, which $Nodes does not define");
  says(n4, 4, "5 1 2 0 1\n" + e2, 3, "c.msh:13: line element 5 has 0 nodes, 2 expected");
  says(n4, 4, e2 + "5 15 2 0 1 1 2\n", 3, "c.msh:15: point element 5 has 2 nodes, 1 expected");
  says(n4, 4, e2 + "5 15 2 0 1 0\n", 3, "c.msh:15: point element 5 refers to node 0");
}

// Volna's mesh_xmin (GaussianLandslide's floor at x < 0) is of the cells' nodes: a node no triangle uses moved it
// (the final volume 10.9996 -> 2009 with one at x = -1000). Nodes beyond a float are refused (Volna's are floats).
TEST(VolnaMesh, UnusedNodesAreNotPartOfTheMesh) {
  vl_mesh m;
  char err[512] = "";
  const std::string text = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n"
                           "5 -1000 0 0\n$EndNodes\n$Elements\n2\n1 2 2 0 1 1 2 3\n2 2 2 0 1 1 3 4\n$EndElements\n";
  ASSERT_EQ(vl_mesh_gmsh_parse(text.c_str(), text.size(), "u.msh", &m, err, sizeof err), 0) << err;
  EXPECT_EQ(m.xmin, 0.0f);
  vl_mesh_free(&m);
  std::string big = text;
  big.replace(big.find("5 -1000 0 0"), 11, "5 -1e39 0 0");
  EXPECT_NE(vl_mesh_gmsh_parse(big.c_str(), big.size(), "b.msh", &m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("b.msh: node 5 (Gmsh id 5) at (-1e+39, 0): too large for a float"), std::string::npos)
      << err;
}

// ---- the exact dam break -----------------------------------------------------------------

TEST(VolnaStoker, MiddleStateAndStructure) {
  double hm, um, s;
  vl_stoker_state(9.81, 2.0, 1.0, &hm, &um, &s);
  EXPECT_NEAR(hm, 1.453841, 5e-7);
  EXPECT_NEAR(um, 1.305834, 5e-7);
  EXPECT_NEAR(s, 4.183128, 5e-7);
  double h, u;
  vl_stoker(9.81, 2, 1, 50, 10, 4, &h, &u);  // undisturbed left
  EXPECT_EQ(h, 2.0);
  EXPECT_EQ(u, 0.0);
  vl_stoker(9.81, 2, 1, 50, 90, 4, &h, &u);  // ahead of the shock
  EXPECT_EQ(h, 1.0);
  EXPECT_EQ(u, 0.0);
  vl_stoker(9.81, 2, 1, 50, 60, 4, &h, &u);  // middle state
  EXPECT_NEAR(h, 1.453841, 5e-7);
  vl_stoker(9.81, 2, 1, 50, 40, 4, &h, &u);  // inside the rarefaction: u = 2/3 (c_L + xi)
  EXPECT_NEAR(u, 2.0 / 3.0 * (std::sqrt(9.81 * 2) + (40.0 - 50.0) / 4.0), 1e-12);
  EXPECT_NEAR(std::sqrt(9.81 * h), std::sqrt(9.81 * 2) - u / 2, 1e-12);  // Riemann invariant u + 2c
}

// ---- the connectivity over threads ------------------------------------------------------------

// A rectangle's cells with the nodes and the cells renumbered at random and each triangle's nodes rotated: a mesh
// whose sides come in no order. Only nodes and cells: vl_mesh_finish_threads makes the rest.
vl_mesh shuffled(int nx, int ny, unsigned seed) {
  vl_mesh r, s;
  char err[256];
  EXPECT_EQ(vl_mesh_rectangle(-3, 5, -1, 2, nx, ny, &r, err, sizeof err), 0) << err;
  std::mt19937 rng(seed);
  std::vector<int> node(r.nnodes), cell(r.ncells);
  for (int i = 0; i < r.nnodes; i++) node[i] = i;
  for (int i = 0; i < r.ncells; i++) cell[i] = i;
  std::shuffle(node.begin(), node.end(), rng);
  std::shuffle(cell.begin(), cell.end(), rng);
  std::memset(&s, 0, sizeof s);
  s.nnodes = r.nnodes, s.ncells = r.ncells;
  s.node_xy = (float *)malloc(sizeof(float) * 2 * (r.nnodes + 3));
  s.cell_nodes = (int *)malloc(sizeof(int) * 3 * (r.ncells + 2));
  for (int i = 0; i < r.nnodes; i++)
    s.node_xy[2 * node[i]] = r.node_xy[2 * i], s.node_xy[2 * node[i] + 1] = r.node_xy[2 * i + 1];
  for (int c = 0; c < r.ncells; c++) {
    const int rot = (int)(rng() % 3);
    for (int k = 0; k < 3; k++) s.cell_nodes[3 * cell[c] + k] = node[r.cell_nodes[3 * c + (k + rot) % 3]];
  }
  vl_mesh_free(&r);
  return s;
}

vl_mesh copy_cells(const vl_mesh &s) {
  vl_mesh m;
  std::memset(&m, 0, sizeof m);
  m.nnodes = s.nnodes, m.ncells = s.ncells;
  m.node_xy = (float *)malloc(sizeof(float) * 2 * s.nnodes);
  m.cell_nodes = (int *)malloc(sizeof(int) * 3 * s.ncells);
  std::memcpy(m.node_xy, s.node_xy, sizeof(float) * 2 * s.nnodes);
  std::memcpy(m.cell_nodes, s.cell_nodes, sizeof(int) * 3 * s.ncells);
  return m;
}

// Upstream's pre-processor's connectivity from a sort of the sides by (lower node, upper node, cell): edges in
// that order, each with its (larger, smaller) cell or its cell twice, each cell's edges in increasing number and
// its neighbours in the order of their edges, then itself. vl_mesh_finish_threads gives it on any thread count, the
// geometry the same bits.
TEST(VolnaMesh, ConnectivityIsTheSortedSidesForAnyThreadCount) {
  for (const std::array<int, 3> &c : {std::array<int, 3>{1, 1, 1}, {5, 3, 2}, {17, 11, 3}, {40, 9, 4}}) {
    vl_mesh s = shuffled(c[0], c[1], (unsigned)c[2]);
    std::vector<std::array<int, 3>> sides; // (lower, upper, cell)
    for (int i = 0; i < s.ncells; i++)
      for (int j = 0; j < 3; j++) {
        const int a = s.cell_nodes[3 * i + j], b = s.cell_nodes[3 * i + (j + 1) % 3];
        sides.push_back({std::min(a, b), std::max(a, b), i});
      }
    std::sort(sides.begin(), sides.end());
    std::vector<int> ecells, bnd;
    std::vector<std::vector<std::array<int, 2>>> around(s.ncells); // (edge, neighbour or -1)
    for (size_t i = 0; i < sides.size();) {
      const bool in = i + 1 < sides.size() && sides[i + 1][0] == sides[i][0] && sides[i + 1][1] == sides[i][1];
      const int c1 = sides[i][2], c2 = in ? sides[i + 1][2] : -1, e = (int)bnd.size();
      ecells.push_back(std::max(c1, c2)), ecells.push_back(in ? std::min(c1, c2) : c1), bnd.push_back(!in);
      around[c1].push_back({e, c2});
      if (in) around[c2].push_back({e, c1});
      i += in ? 2 : 1;
    }
    vl_mesh one{};
    for (int nt : {1, 2, 4}) {
      vl_mesh m = copy_cells(s);
      char err[256];
      ASSERT_EQ(vl_mesh_finish_threads(&m, nt, "shuffled", nullptr, err, sizeof err), 0) << err;
      ASSERT_EQ(m.nedges, (int)bnd.size());
      EXPECT_EQ(std::vector<int>(m.edge_cells, m.edge_cells + 2 * m.nedges), ecells) << nt;
      EXPECT_EQ(std::vector<int>(m.is_boundary, m.is_boundary + m.nedges), bnd) << nt;
      for (int i = 0; i < m.ncells; i++) {
        std::vector<int> ce, cc;
        for (const auto &x : around[i]) ce.push_back(x[0]);
        for (const auto &x : around[i])
          if (x[1] >= 0) cc.push_back(x[1]);
        while (cc.size() < 3) cc.push_back(i);
        EXPECT_EQ(std::vector<int>(m.cell_edges + 3 * i, m.cell_edges + 3 * i + 3), ce) << nt << " cell " << i;
        EXPECT_EQ(std::vector<int>(m.cell_cells + 3 * i, m.cell_cells + 3 * i + 3), cc) << nt << " cell " << i;
      }
      if (nt == 1) {
        one = m;
        continue;
      }
      EXPECT_EQ(std::memcmp(m.cell_xy, one.cell_xy, sizeof(float) * 2 * m.ncells), 0) << nt;
      EXPECT_EQ(std::memcmp(m.cell_area, one.cell_area, sizeof(float) * m.ncells), 0) << nt;
      EXPECT_EQ(std::memcmp(m.edge_normal, one.edge_normal, sizeof(float) * 2 * m.nedges), 0) << nt;
      EXPECT_EQ(std::memcmp(m.edge_length, one.edge_length, sizeof(float) * m.nedges), 0) << nt;
      vl_mesh_free(&m);
    }
    vl_mesh_free(&one);
    vl_mesh_free(&s);
  }
}

// A broken mesh is named alike on any thread count: the edge of three triangles, the triangle given twice (alone,
// so that its edges pass), the degenerate triangle that the serial scans meet first.
TEST(VolnaMesh, BrokenMeshNamedAlikeForAnyThreadCount) {
  vl_mesh s = shuffled(9, 7, 5), t = copy_cells(s);
  const int nn = s.nnodes, nc = s.ncells;
  for (int k = 0; k < 3; k++) s.node_xy[2 * (nn + k)] = 9.0f + k, s.node_xy[2 * (nn + k) + 1] = 7.0f + (k == 2);
  char err0[256];
  ASSERT_EQ(vl_mesh_finish(&t, "t", nullptr, err0, sizeof err0), 0) << err0;
  int e = 0, shared[3], ns = 0; // an interior edge's nodes: those its two cells share
  while (t.is_boundary[e]) e++;
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 3; j++)
      if (t.cell_nodes[3 * t.edge_cells[2 * e] + k] == t.cell_nodes[3 * t.edge_cells[2 * e + 1] + j])
        shared[ns++] = t.cell_nodes[3 * t.edge_cells[2 * e] + k];
  vl_mesh_free(&t);
  ASSERT_EQ(ns, 2);
  struct Case {
    const char *expect;
    int add[6], nadd, nodes;
  } cases[] = {
      {"belongs to 3 triangles", {shared[0], shared[1], nn}, 1, nn + 1},
      {"repeats cell", {nn, nn + 1, nn + 2, nn + 2, nn, nn + 1}, 2, nn + 3},
      {"degenerate triangle", {nn, nn + 1, nn}, 1, nn + 3},
  };
  for (const Case &c : cases) {
    std::string first;
    for (int nt : {1, 2, 4}) {
      s.ncells = nc + c.nadd, s.nnodes = c.nodes;
      std::memcpy(s.cell_nodes + 3 * nc, c.add, sizeof(int) * 3 * c.nadd);
      vl_mesh m = copy_cells(s);
      char err[512] = "";
      EXPECT_NE(vl_mesh_finish_threads(&m, nt, "broken", nullptr, err, sizeof err), 0) << c.expect;
      vl_mesh_free(&m);
      EXPECT_NE(std::string(err).find(c.expect), std::string::npos) << err;
      if (nt == 1) first = err;
      EXPECT_EQ(err, first) << nt;
    }
  }
  s.ncells = nc, s.nnodes = nn;
  vl_mesh_free(&s);
}

// ---- the flux kernels ------------------------------------------------------------------------

struct Residual {
  vl_mesh m;
  std::vector<float> res;
  float dt = INFINITY;
  Residual(int nx, int ny, const std::vector<float> &values) {
    char err[256];
    vl_g = 9.81f;
    vl_eps = 1e-6f;
    EXPECT_EQ(vl_mesh_rectangle(-10, 10, -5, 5, nx, ny, &m, err, sizeof err), 0) << err;
    res.assign(4 * m.ncells, 0.0f);
    std::vector<float> bsrc(2 * m.nedges), flux(3 * m.nedges), eig(m.nedges);
    for (int e = 0; e < m.nedges; e++) {
      const int l = m.edge_cells[2 * e], r = m.edge_cells[2 * e + 1];
      vl_compute_fluxes(&values[4 * l], &values[4 * r], &m.edge_length[e], &m.edge_normal[2 * e], &m.is_boundary[e],
                        &bsrc[2 * e], &flux[3 * e], &eig[e]);
    }
    for (int c = 0; c < m.ncells; c++) {
      const int *ce = &m.cell_edges[3 * c];
      vl_numerical_fluxes(&eig[ce[0]], &eig[ce[1]], &eig[ce[2]], &m.edge_length[ce[0]], &m.edge_length[ce[1]],
                          &m.edge_length[ce[2]], &m.cell_area[c], &res[4 * c], &dt);
    }
    for (int e = 0; e < m.nedges; e++) {
      const int l = m.edge_cells[2 * e], r = m.edge_cells[2 * e + 1];
      vl_space_discretization(&res[4 * l], &res[4 * r], &flux[3 * e], &bsrc[2 * e], &m.edge_normal[2 * e],
                              &m.is_boundary[e], &m.cell_area[l], &m.cell_area[r]);
    }
  }
  ~Residual() { vl_mesh_free(&m); }
};

TEST(VolnaKernels, LakeAtRestStaysAtRest) {
  // still water (eta = 0) over a bump that pokes out of the water: hydrostatic reconstruction balances
  // the pressure against the bottom's slope, wet and dry
  vl_mesh probe;
  char err[256];
  ASSERT_EQ(vl_mesh_rectangle(-10, 10, -5, 5, 20, 10, &probe, err, sizeof err), 0);
  std::vector<float> v(4 * probe.ncells);
  for (int c = 0; c < probe.ncells; c++) {
    const float x = probe.cell_xy[2 * c], y = probe.cell_xy[2 * c + 1];
    const float zb = -1.0f + 1.5f * std::exp(-(x * x + y * y) / 4.0f);
    v[4 * c] = zb < 0 ? -zb : 1e-6f, v[4 * c + 1] = 0, v[4 * c + 2] = 0, v[4 * c + 3] = zb;
  }
  vl_mesh_free(&probe);
  Residual r(20, 10, v);
  for (int c = 0; c < r.m.ncells; c++)
    for (int k = 0; k < 3; k++) EXPECT_NEAR(r.res[4 * c + k], 0.0f, 2e-6f) << "cell " << c << " component " << k;
  EXPECT_GT(r.dt, 0.0f);
  EXPECT_TRUE(std::isfinite(r.dt));
}

TEST(VolnaKernels, MassIsConservedAndTheFluxIsAntisymmetric) {
  vl_mesh probe;
  char err[256];
  ASSERT_EQ(vl_mesh_rectangle(-10, 10, -5, 5, 12, 6, &probe, err, sizeof err), 0);
  std::vector<float> v(4 * probe.ncells);
  for (int c = 0; c < probe.ncells; c++) {
    const float x = probe.cell_xy[2 * c], y = probe.cell_xy[2 * c + 1];
    v[4 * c] = 1.0f + 0.3f * std::sin(x) * std::cos(y), v[4 * c + 1] = 0.2f * std::cos(x + y);
    v[4 * c + 2] = -0.1f * std::sin(2 * y), v[4 * c + 3] = -1.0f - 0.05f * x;
  }
  vl_mesh_free(&probe);
  Residual r(12, 6, v);
  // walls: the total mass change sums to zero (each interior flux leaves one cell and enters the other)
  double mass = 0, scale = 0;
  for (int c = 0; c < r.m.ncells; c++) mass += r.res[4 * c] * r.m.cell_area[c], scale += std::fabs(r.res[4 * c] * r.m.cell_area[c]);
  EXPECT_LT(std::fabs(mass), 1e-5 * scale);
  // the flux across an edge seen from the other side (states swapped, normal reversed) is the negative
  const float a[4] = {1.3f, 0.4f, -0.2f, -1.0f}, b[4] = {0.8f, -0.1f, 0.3f, -0.9f}, n[2] = {0.6f, 0.8f},
              nm[2] = {-0.6f, -0.8f}, len = 2.0f;
  const int wall = 0;
  float s1[2], f1[3], e1, s2[2], f2[3], e2;
  vl_compute_fluxes(a, b, &len, n, &wall, s1, f1, &e1);
  vl_compute_fluxes(b, a, &len, nm, &wall, s2, f2, &e2);
  for (int k = 0; k < 3; k++) EXPECT_NEAR(f1[k], -f2[k], 1e-6f) << k;
  EXPECT_FLOAT_EQ(e1, e2);
  EXPECT_FLOAT_EQ(s1[0], s2[1]);
  // a wall lets no mass through
  const int bnd = 1;
  vl_compute_fluxes(a, a, &len, n, &bnd, s1, f1, &e1);
  EXPECT_NEAR(f1[0], 0.0f, 1e-6f);
}

}  // namespace
