/* The runner's side of checkpoints (checkpoint.c): the checkpoint.* settings read before the app runs, and what
 * the checkpoints did, for the JSON. Internal to umrun/. */
#ifndef UMRUN_CHECKPOINT_RUN_H
#define UMRUN_CHECKPOINT_RUN_H
#include <stdio.h>

#include "um/app.h"
#include "um/checkpoint.h"
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

/* The app's settings (the physics text of a checkpoint, `there`) against this run's: *n how many differ, listed
 * into diffs. An earlier build's text is compared as it was written (its keys not physics now left out; without
 * file contents, the files by name only, which `say` notes on the log). */
int umrun_ckpt_physics_differ(um_app_run *run, const char *there, int say, char *diffs, size_t len, int *n);

/* ---- what differs at a restart (checkpoint_diff.c) ---- */

/* The key = value lines of `there` (a checkpoint's) and `here` (this run's) compared: how many keys differ, each
 * listed into out as "key: x in the checkpoint, y now", joined with sep (a key only one side has: "(default)"). */
int umrun_ckpt_diff_lines(const char *there, const char *here, char *out, size_t len, const char *sep);
/* Rank 0 at a restart from f: the settings of how it runs that differ (here: this run's settings text), then the
 * ranks and the backend that runs the loops when they differ, listed on run->log. */
void umrun_ckpt_say_changes(um_app_run *run, const um_checkpoint_file *f, const char *here);

/* ---- the folder (checkpoint_dir.c) ---- */

/* A checkpoint found in a folder: its path and step. */
typedef struct {
  char path[4096];
  long step;
} umrun_ck_found;

/* The app's checkpoints (<app>-step<N>.h5) in folder dir, newest first (*out malloc'd, *n of them); -1 when dir
 * cannot be read. */
int umrun_ckpt_list(const char *dir, const char *app, umrun_ck_found **out, int *n);
/* Rank 0, checkpoint `step` complete: it and the newest keep - 1 of the app's other checkpoints in dir kept (an
 * earlier run's of higher steps never remove the one just written), the rest removed, and the temporaries of its
 * writers killed mid-write (<app>-step<M>.h5.tmp.*, M <= step). */
void umrun_ckpt_prune(const char *dir, const char *app, int keep, long step);
/* Before the first step of a run that writes checkpoints (collective): dir made and writable, and holding no
 * checkpoint of the app with other physics; else the run's error (UM_ERR_CONFIG: exit status 1). */
int umrun_ckpt_dir_check(um_app_run *run, const char *dir);
/* Where the checkpoints are: *dir, checkpoint.dir (NULL or "": not set), made output.dir/checkpoints when not set,
 * the outputs' folder (in buf, len bytes), or "checkpoints" (the current folder) when output.dir is empty (no
 * outputs); rank 0 says where when the run writes them (writes). restart (checkpoint.restart, NULL: none) must
 * exist: else UM_ERR_CONFIG with the message in err, naming the folder of this run's checkpoints. */
int umrun_ckpt_paths(const um_app_run *run, const char **dir, char *buf, size_t buflen, const char *restart, int writes,
                     char *err, size_t len);
/* --restart DIR holding none of the app's checkpoints: "; DIR/checkpoints holds N ...: did you mean --restart
 * DIR/checkpoints?" (in buf) when that folder holds some, else "". */
const char *umrun_ckpt_sub_hint(const char *dir, const char *app, char *buf, size_t len);

#endif
