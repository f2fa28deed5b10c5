/* The runner's side of checkpoints (checkpoint.c): the checkpoint.* settings read before the app runs, and what
 * the checkpoints did, for the JSON. Internal to umrun/. */
#ifndef UMRUN_CHECKPOINT_RUN_H
#define UMRUN_CHECKPOINT_RUN_H
#include <stdio.h>

#include "um/app.h"
#include "um/config.h"

/* checkpoint.every, .dir, .keep, .on_signal, .stop_after, .restart (--restart) into run->ckpt, marked read. */
int umrun_ckpt_settings(um_app_run *run, um_config *cfg, char *err, size_t len);
/* ,"checkpoints": {...} of the run's JSON (nothing when checkpoints are off). */
void umrun_ckpt_json(FILE *f, const um_app_run *run);
/* A note on stderr when checkpoint settings or --restart were given but the app never called um_app_resume (an app
 * without steps to continue, SIAC's one filter pass): they did nothing. */
void umrun_ckpt_note_unused(const um_app_run *run, const char *prog);
/* run->ckpt released, the signal handlers it installed given back. */
void umrun_ckpt_free(um_app_run *run);

#endif
