/* Device profiles of the GPU generations, the strategy rule and staging. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cuda_internal.h"

static const cu_profile profiles[] = {
    /* strategy defaults: atomics measured fastest on the H100 (docs/benchmarks.md, "CUDA"); the
     * H200 is the same chip with faster memory; P100 / V100 / A100 not measured here: they keep
     * OP2's hierarchical colouring, designed for GPUs of that generation */
    {"auto", "", 0, 0, 0, 0, 0, UM_STRATEGY_ATOMICS, CU_STAGING_INC, CU_STAGING_NONE},
    {"p100", "P100", 60, 56, 49152, 65536, 732, UM_STRATEGY_HIERARCHICAL, CU_STAGING_INC, CU_STAGING_NONE},
    {"v100", "V100", 70, 80, 98304, 98304, 900, UM_STRATEGY_HIERARCHICAL, CU_STAGING_INC, CU_STAGING_NONE},
    {"a100", "A100", 80, 108, 166912, 167936, 1555, UM_STRATEGY_HIERARCHICAL, CU_STAGING_INC, CU_STAGING_NONE},
    {"h100", "H100", 90, 132, 232448, 233472, 3350, UM_STRATEGY_ATOMICS, CU_STAGING_INC, CU_STAGING_NONE},
    {"h200", "H200", 90, 132, 232448, 233472, 4800, UM_STRATEGY_ATOMICS, CU_STAGING_INC, CU_STAGING_NONE},
};
#define NPROFILES ((int)(sizeof profiles / sizeof profiles[0]))

static int contains(const char *s, const char *sub) { return sub && *sub && strstr(s, sub) != NULL; }

/* The profile named by cuda.profile (auto: the one whose GPU the device's name
 * contains, else one made from the device's own properties). A profile of
 * another GPU is allowed, with a warning: plans are sized for it. */
int cu_choose_profile(um_context *ctx, cu_state *S) {
  const cu_profile *found = NULL;
  for (int i = 1; i < NPROFILES; i++)
    if (contains(S->prop.name, profiles[i].gpu)) found = &profiles[i];
  const char *want = um_backend_option_value(ctx, "profile");
  int w = -1;
  for (int i = 0; i < NPROFILES && want; i++)
    if (strcasecmp(want, profiles[i].name) == 0) w = i;
  if (w < 0)
    return UM_BACKEND_ERROR(ctx, UM_ERR_ARG, "cuda.profile '%s' unknown: use auto, p100, v100, a100, h100 or h200",
                    want ? want : "");
  char warn[512] = "";
  if (w == 0) {
    if (found) S->profile = found;
    else {
      S->auto_profile = profiles[0];
      S->auto_profile.name = "device";
      S->auto_profile.sm = S->arch;
      S->auto_profile.nsm = S->prop.multiProcessorCount;
      S->auto_profile.smem_optin = (int)S->prop.sharedMemPerBlockOptin;
      S->auto_profile.smem_sm = (int)S->prop.sharedMemPerMultiprocessor;
      S->profile = &S->auto_profile;
    }
  } else {
    S->profile = &profiles[w];
    if (found != S->profile)
      snprintf(warn, sizeof warn,
               "profile %s describes an %s (sm_%d, %d multiprocessors, %d KB shared memory per block) but the GPU is "
               "'%s' (sm_%d, %d multiprocessors, %zu KB): plans are sized for the profile, timings are this GPU's",
               S->profile->name, S->profile->gpu, S->profile->sm, S->profile->nsm, S->profile->smem_optin / 1024,
               S->prop.name, S->arch, S->prop.multiProcessorCount, S->prop.sharedMemPerBlockOptin / 1024);
  }
  static const char *const staging_names[] = {"auto", "inc", "all", "none"};
  const char *st = um_backend_option_value(ctx, "staging");
  S->staging = CU_STAGING_AUTO;
  for (int i = 0; i < 4; i++)
    if (st && strcasecmp(st, staging_names[i]) == 0) S->staging = (cu_staging)i;
  snprintf(S->desc, sizeof S->desc,
           "%s (sm_%d, %d multiprocessors, %zu KB shared memory per block), profile %s%s%s", S->prop.name, S->arch,
           S->prop.multiProcessorCount, S->prop.sharedMemPerBlockOptin / 1024, S->profile->name,
           warn[0] ? "; WARNING: " : "", warn);
  if (warn[0]) um_backend_log(ctx, UM_LOG_WARNING, "um cuda: warning: %s", warn);
  return UM_SUCCESS;
}

/* The strategy rule of the CUDA backend: auto is the profile's choice (no state:
 * hierarchical, as when generating code without a GPU); coloured, the CPU's
 * word for block colouring, runs as hierarchical. */
int cu_strategy(um_context *ctx, void *state, um_strategy want, um_strategy *out) {
  (void)ctx;
  const cu_state *S = state;
  if (want == UM_STRATEGY_AUTO) want = S && S->profile ? S->profile->strategy : UM_STRATEGY_HIERARCHICAL;
  if (want == UM_STRATEGY_COLOURED) want = UM_STRATEGY_HIERARCHICAL;
  *out = want;
  return UM_SUCCESS;
}

/* What a strategy stages: cuda.staging, else the profile's default for it;
 * hierarchical colouring always stages at least the increments. */
cu_staging cu_staging_for(const cu_state *S, um_strategy s) {
  cu_staging st = S->staging;
  if (st == CU_STAGING_AUTO) st = s == UM_STRATEGY_ATOMICS ? S->profile->atomics_staging : S->profile->staging;
  if (st == CU_STAGING_NONE && s == UM_STRATEGY_HIERARCHICAL) st = CU_STAGING_INC;
  return st;
}
