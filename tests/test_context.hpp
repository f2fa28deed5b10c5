// A context for tests: a backend, its threads and block size, colours and chunks even on small meshes.
#pragma once

#include <gtest/gtest.h>

#include "um/um.h"

namespace umtest {

inline um_context *make_ctx(const char *backend, int nthreads = 0, int bs = 256) {
  um_options o;
  um_options_default(&o);
  o.backend = backend;
  o.nthreads = nthreads;
  o.block_size = bs;
  um_options_set(&o, "openmp.parallel_threshold", "0");
  um_context *ctx = nullptr;
  EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  return ctx;
}

}  // namespace umtest
