/* Fuzz run.tune's cache reader (engine/src/tune/tune_cache.c): any bytes as tune.txt, read for one loop whose
 * settings and key are fixed (a seq-like backend with two kernel variants): a choice that is one of the loop's
 * settings, within every bound, or nothing; each note names the file and a line; never a crash, a hang, a leak or
 * undefined behaviour. A choice found is written back (um__tune_cache_write) and must read back the same. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune/tune.h"
#include "fuzz_file.h"

extern const um_backend_def um_backend_seq;

#define KEY 0x0123456789abcdefull

static const char *const variants[] = {"plain", "other", NULL};
static um_backend_def fuzz_backend;
static const um_backend_def *fuzz_list[1];
static char path[96];

/* every note names the file and a line (or says the file is not read) */
static void on_log(void *user, um_log_level level, const char *msg) {
  (void)user, (void)level;
  char where[128];
  snprintf(where, sizeof where, "%s:", path);
  if (!strstr(msg, where) && !strstr(msg, "the tuning cache is not read")) abort();
}

/* The loop's settings as tuning lists them: block sizes 64, 128, 256 whole, then 64 gathered. */
static void listing(um_tune_info *T) {
  memset(T, 0, sizeof *T);
  const int blocks[4] = {64, 128, 256, 64};
  for (int k = 0; k < 4; k++) {
    T->trial[k].strategy = UM_STRATEGY_COLOURED;
    T->trial[k].block_size = blocks[k];
    T->trial[k].split = k == 3 ? UM_SPLIT_GATHER : UM_SPLIT_OFF;
    T->trial[k].seconds = -1;
  }
  T->ntrials = 4;
  T->chosen = -1;
}

/* A choice read: the listed settings first, then variants 1.. with one of them, every field within bounds. */
static void check(um_context *ctx, const um_tune_info *T) {
  um_tune_info L;
  listing(&L);
  if (T->ntrials < 4 || T->ntrials > 5 || T->chosen < 0 || T->chosen >= T->ntrials || T->trial[T->chosen].seconds < 0)
    abort();
  for (int k = 0; k < T->ntrials; k++) {
    const um_tune_trial *t = &T->trial[k], *l = &L.trial[k < 4 ? k : 0];
    if (k < 4 && (t->strategy != l->strategy || t->block_size != l->block_size || t->split != l->split || t->variant))
      abort();
    if (k == 4 && (t->variant != 1 || t->block_size < 1 || t->block_size > (1 << 20) || !um_backend_variant_name(ctx, 1)))
      abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static um_context *ctx;
  if (!ctx) {
    fuzz_backend = um_backend_seq;
    fuzz_backend.name = "fuzz";
    fuzz_backend.priority = -100;
    fuzz_backend.variants = variants;
    fuzz_list[0] = &fuzz_backend;
    um_options o;
    um_options_default(&o);
    o.backend = "fuzz";
    o.extra_backends = fuzz_list;
    o.nextra_backends = 1;
    o.log = on_log;
    if (um_init(&ctx, &o) != UM_SUCCESS) abort();
    snprintf(path, sizeof path, "/tmp/um_fuzz_tune_%ld.txt", (long)getpid());
  }
  if (fuzz_write_file(path, data, size)) return 0;
  um_tune_info T;
  int line = 0;
  for (int note_all = 0; note_all < 2; note_all++) {
    listing(&T);
    if (um__tune_cache_read(ctx, path, KEY, &T, note_all, &line)) check(ctx, &T);
  }
  unlink(path);
  if (line) { /* the choice written back reads back the same */
    um_tune_info back;
    um__tune_cache_write(ctx, path, KEY, "fuzz\nloop", &T);
    listing(&back);
    if (!um__tune_cache_read(ctx, path, KEY, &back, 1, &line) || back.chosen != T.chosen || back.ntrials != T.ntrials)
      abort();
    unlink(path);
  }
  return 0;
}
