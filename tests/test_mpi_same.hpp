// What um_mpi_tests' files share: a seq context with the engine's default options, and the check that every rank got
// the same code and the same words.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#define OMPI_SKIP_MPICXX 1  // the C API only (no C++ bindings to link)
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "um/um.h"

// A context on the seq backend with the engine's default options (nullptr if um_init failed, which is reported).
inline um_context *seq_context() {
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  um_context *ctx = nullptr;
  const int rc = um_init(&ctx, &o);
  EXPECT_EQ(rc, UM_SUCCESS) << um_error_message(ctx);
  return rc == UM_SUCCESS ? ctx : nullptr;
}

// The same code and the same words on every rank (a hash of the message, compared across the ranks).
inline void expect_same_everywhere(int rc, const std::string &msg) {
  const long long h = (long long)(std::hash<std::string>{}(msg) >> 2), mine[4] = {rc, -rc, h, -h};
  long long all[4];
  MPI_Allreduce(mine, all, 4, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(all[0], -all[1]) << "the ranks' codes differ";
  EXPECT_EQ(all[2], -all[3]) << "the ranks' messages differ; here: " << msg;
}
