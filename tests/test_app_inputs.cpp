// Every file um and its apps read is a regular file, checked before it is read (a FIFO or a device is
// refused at once), and the apps' meshes and decks are checked: a repeated Gmsh triangle, an impossible
// element count, a BookLeaf deck that sets a group or an entry twice are refused with the line named.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

extern "C" {
#include "airfoil/naca0012.h"
#include "bookleaf/bookleaf.h"
#include "miniaero/miniaero.h"
#include "um/config.h"
#include "um/hdf5io.h"
#include "um/reorder.h"
#include "um/um.h"
#include "um/validate.h"
#include "volna/volna.h"
}
extern "C" {
#include "json.h"
}

#include "test_files.hpp"

namespace {

using umtest::has;
using umtest::TempDir;

}  // namespace

// ---- every reader refuses what is not a regular file -----------------------------------------------

// A FIFO (no writer: opening it for reading would wait for ever) and /dev/zero
// (reading it never ends) given to every reader of the tree: each refuses at
// once, saying it is not a regular file. Before: the reference's field file
// /dev/zero grew memory to 6.5 GB, a FIFO hung the config, suite, --validate
// and mesh readers. The readers run in a child with an alarm: a hang fails.
TEST(InputFiles, EveryReaderRefusesAFifoOrADeviceAtOnce) {
  TempDir t("readers");
  const std::string fifo = t / "in.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  { std::ofstream(t / "ref_fifo.ref.yaml") << "app: jacobi\ncase: x\nprovenance: {code: c, command: c}\n"
                                              "fields:\n  - {name: u, file: in.fifo, rel_tol: 1.0e-6}\n"; }
  { std::ofstream(t / "ref_zero.ref.yaml") << "app: jacobi\ncase: x\nprovenance: {code: c, command: c}\n"
                                              "fields:\n  - {name: u, file: /dev/zero, rel_tol: 1.0e-6}\n"; }
  { std::ofstream(t / "u.txt") << "1 2 3\n"; }
  pid_t pid = fork();
  if (pid == 0) {
    alarm(20);
    int bad = 0;
    char err[2048];
    auto refused = [&](int failed, int bit) {
      if (!failed || !has(err, "not a regular file")) {
        fprintf(stderr, "reader %d: %s\n", bit, failed ? err : "accepted the input");
        bad |= 1 << bit;
      }
    };
    for (const std::string &in : {fifo, std::string("/dev/zero")}) {
      um_config *cfg = nullptr;
      err[0] = 0;
      refused(um_config_load_file(in.c_str(), &cfg, err, sizeof err) != 0, 0);
      um_ref *ref = nullptr;
      err[0] = 0;
      refused(um_ref_load(in.c_str(), &ref, err, sizeof err) != 0, 1);
      size_t len;
      err[0] = 0;
      refused(uj_read_file(in.c_str(), 1 << 20, &len, err, sizeof err) == nullptr, 2);
      um_field_result fr;
      err[0] = 0;
      refused(um_field_compare_files((t / "u.txt").c_str(), in.c_str(), 1e-6, 0, 4, &fr, err, sizeof err) != 0, 3);
      airfoil_mesh am;
      err[0] = 0;
      refused(airfoil_mesh_read_text(in.c_str(), &am, err, sizeof err) != 0, 4);
      vl_mesh vm;
      err[0] = 0;
      refused(vl_mesh_gmsh(in.c_str(), &vm, err, sizeof err) != 0, 5);
      vl_deck vd;
      err[0] = 0;
      refused(vl_deck_read(in.c_str(), &vd, err, sizeof err) != 0, 6);
      bl_deck bd;
      err[0] = 0;
      refused(bl_deck_read(&bd, in.c_str(), err, sizeof err) != 0, 7);
      ma_inputs mi;
      err[0] = 0;
      refused(ma_inputs_read(in.c_str(), &mi, err, sizeof err) != 0, 8);
      um_options o;
      um_options_default(&o);
      o.backend = "seq";
      um_context *ctx = nullptr;
      if (um_init(&ctx, &o) == UM_SUCCESS) {
        um_set *s = nullptr;
        snprintf(err, sizeof err, "%s", um_hdf5_read_set(ctx, in.c_str(), "cells", &s) ? um_error_message(ctx) : "");
        refused(s == nullptr && err[0], 9);
        um_reordering *r = nullptr;
        snprintf(err, sizeof err, "%s", um_reordering_load(ctx, in.c_str(), &r, nullptr) ? um_error_message(ctx) : "");
        refused(r == nullptr && err[0], 10);
        um_finalize(&ctx);
      }
    }
    // a reference whose field file is a FIFO or a device is refused when it is loaded, before any run
    for (const char *r : {"ref_fifo.ref.yaml", "ref_zero.ref.yaml"}) {
      um_ref *ref = nullptr;
      err[0] = 0;
      refused(um_ref_load((t / r).c_str(), &ref, err, sizeof err) != 0, 11);
      um_ref_free(ref);
    }
    _exit(bad);
  }
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st)) << "a reader hung (killed by signal " << (WIFSIGNALED(st) ? WTERMSIG(st) : 0) << ")";
  EXPECT_EQ(WEXITSTATUS(st), 0) << "bit k: reader k accepted a FIFO or /dev/zero or said something else (stderr)";
}

// ---- invalid meshes and decks are refused ----------------------------------------------------------

namespace {
std::string gmsh(const std::string &elements, int n) {
  return "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n$EndNodes\n$Elements\n" +
         std::to_string(n) + "\n" + elements + "$EndElements\n";
}
}  // namespace

// Before: a duplicated boundary triangle ran to exit 0 (each of its edges had two
// cells, so the edge check passed); a huge $Elements count said "the number of
// elements expected".
TEST(AppInputs, AGmshMeshWithARepeatedTriangleOrAnImpossibleCountIsRefused) {
  char err[1024] = "";
  vl_mesh m;
  const std::string ok = gmsh("1 2 2 0 1 1 2 3\n2 2 2 0 1 1 3 4\n", 2);
  ASSERT_EQ(vl_mesh_gmsh_parse(ok.c_str(), ok.size(), "ok.msh", &m, err, sizeof err), 0) << err;
  vl_mesh_free(&m);
  // the repeated triangle's edges each have two cells (itself and its copy): no edge check can see it
  const std::string dup = gmsh("1 2 2 0 1 1 2 3\n2 2 2 0 1 2 3 1\n", 2);
  EXPECT_NE(vl_mesh_gmsh_parse(dup.c_str(), dup.size(), "dup.msh", &m, err, sizeof err), 0);
  EXPECT_TRUE(has(err, "dup.msh:14: this triangle (nodes 1 2 3) repeats the one at line 13")) << err;
  const std::string huge = gmsh("1 2 2 0 1 1 2 3\n", 0).replace(gmsh("", 0).find("$Elements\n0") + 10, 1, "99999999999");
  EXPECT_NE(vl_mesh_gmsh_parse(huge.c_str(), huge.size(), "huge.msh", &m, err, sizeof err), 0);
  EXPECT_TRUE(has(err, "$Elements claims 99999999999 elements, more than the file can hold")) << err;
}

// Before: the last of two settings won silently (the YAML configs refuse duplicates).
TEST(AppInputs, ABookLeafDeckThatSetsAGroupOrAnEntryTwiceIsRefused) {
  char err[1024] = "";
  bl_deck d;
  bl_deck_default(&d);
  const std::string ok = "&CONTROL\n time_end=1.0\n/\n";
  ASSERT_EQ(bl_deck_parse(&d, ok.c_str(), ok.size(), "ok", err, sizeof err), UM_SUCCESS) << err;
  const std::string key = "&CONTROL\n time_end=1.0\n dt_max=0.1\n time_end=2.0\n/\n";
  bl_deck_default(&d);
  EXPECT_EQ(bl_deck_parse(&d, key.c_str(), key.size(), "key", err, sizeof err), UM_ERR_CONFIG);
  EXPECT_TRUE(has(err, "key:4") && has(err, "time_end") && has(err, "set twice in the deck (also at line 2)")) << err;
  const std::string group = "&CONTROL\n time_end=1.0\n/\n&MESH\n/\n&CONTROL\n dt_max=0.1\n/\n";
  bl_deck_default(&d);
  EXPECT_EQ(bl_deck_parse(&d, group.c_str(), group.size(), "group", err, sizeof err), UM_ERR_CONFIG);
  EXPECT_TRUE(has(err, "group:6") && has(err, "namelist &CONTROL appears twice (first at line 1)")) << err;
}
