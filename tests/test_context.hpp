// A context for tests: a backend, its threads and block size, colours and chunks even on small meshes.
#pragma once

#include <gtest/gtest.h>

#include "um/backend.h"
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

// A context on a test's own backend (um_options.extra_backends: one definition, named as the context's backend).
inline um_context *make_ctx_on(const um_backend_def *const *list) {
  um_options o;
  um_options_default(&o);
  o.backend = list[0]->name;
  o.extra_backends = list;
  o.nextra_backends = 1;
  um_context *ctx = nullptr;
  EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  return ctx;
}

}  // namespace umtest
