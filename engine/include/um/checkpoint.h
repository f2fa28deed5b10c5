/** @file um/checkpoint.h
 * Checkpoints: the dats a run's next steps need, with the caller's own values (an app's time, step, running sums)
 * and texts (options, provenance), written into one HDF5 file in the global numbering, by blocks, and read back by
 * blocks on any number of ranks, any backend, layout, strategy or reordering.
 *
 * Which dats: the engine records what the loops of each step do to every dat, once um_checkpoint_mark started the
 * steps (call it after the set-up, before the first step) and um_checkpoint_step ends each one. A dat is saved
 * when the steps changed it (a loop wrote it, or um_dat_update) and a step read it before overwriting it, or it
 * changed without being read since; it is skipped when nothing changed it since the mark (the set-up of a restart
 * makes it again, the same way) or when every step that touched it began by overwriting it whole (a direct
 * UM_WRITE over its own set: OP2's rule). um_checkpoint_plan lists every dat with its reason.
 *
 * The file (HDF5, format 1):
 * @verbatim
 *   um_checkpoint        int [1]: the format (1); written last, before the file is renamed into place
 *   dats/<dat>           [set size][dim] of the dat's type, rows in the declared order (before any reordering)
 *   state/<name>         uint8 [n]: a value of the caller's (um_checkpoint_value), byte for byte
 *   meta/<key>           uint8 [n]: a text of the caller's (um_checkpoint_text); meta/dats lists the plan
 *   sets/<set>           int [1]: the set's size over every rank (a 64-bit integer when it passes INT_MAX)
 *   partition/<set>      int [set size]: the rank that owned each element (distributed, not reordered)
 * @endverbatim
 * Every dataset of dats/, state/ and meta/ carries an attribute "checksum" (16 hex digits): a hash of its rows and
 * their numbers that does not depend on how many ranks wrote or read it. The file is written through a unique
 * temporary beside the path, flushed and renamed into place: a path holds a complete checkpoint or nothing new.
 *
 * All calls are collective on a distributed context and return UM_SUCCESS or an um_error code with the message in
 * um_error_message(ctx), the same on every rank.
 */
#ifndef UM_CHECKPOINT_H
#define UM_CHECKPOINT_H

#include <stddef.h>
#include "um/um.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The format this build writes and reads. */
#define UM_CHECKPOINT_FORMAT 1

/** The steps begin: forget what the set-up did to the dats and record what each step's loops do. A dat that
 *  um_checkpoint_restore filled counts as changed: the next checkpoint saves it unless the steps overwrite it first. */
int um_checkpoint_mark(um_context *ctx);
/** A step ended (call it at each step boundary, on every rank). */
int um_checkpoint_step(um_context *ctx);

/** One dat's fate in the next checkpoint (um_checkpoint_plan). */
typedef struct {
  const um_dat *dat;  /**< the dat */
  int saved;          /**< 1 saved, 0 skipped */
  char reason[200];   /**< why, in words */
} um_checkpoint_dat;

/** Every dat of ctx in declaration order with its fate: out must hold um_dat_count(ctx) entries; *n gets their
 * number. Local (no communication): every rank makes the same plan, as every rank runs the same loops. */
int um_checkpoint_plan(const um_context *ctx, um_checkpoint_dat *out, int *n);

/** A value of the caller's saved byte for byte (an app's time, step, dt, counters, history). */
typedef struct {
  const char *name;   /**< its dataset's name under state/ */
  const void *data;   /**< bytes at data (rank 0's are written; every rank holds the same) */
  size_t bytes;       /**< how many */
} um_checkpoint_value;

/** A text of the caller's (options, provenance, the app's name). */
typedef struct {
  const char *key;    /**< its dataset's name under meta/ */
  const char *text;   /**< NUL-terminated */
} um_checkpoint_text;

/** What a checkpoint holds besides the dats. */
typedef struct {
  const um_checkpoint_value *values; /**< nvalues entries */
  int nvalues;                       /**< entries of values */
  const um_checkpoint_text *texts;   /**< ntexts entries */
  int ntexts;                        /**< entries of texts */
} um_checkpoint_content;

/** What writing or reading a checkpoint cost. */
typedef struct {
  double bytes;    /**< bytes of dats and values written or read (over every rank) */
  double seconds;  /**< wall time, the slowest rank's */
  int saved;       /**< dats saved (written) or restored (read) */
  int skipped;     /**< dats the plan skipped (written), or ctx's dats the checkpoint does not hold (read) */
  int unknown;     /**< read: dats the checkpoint holds that ctx does not declare (not read) */
} um_checkpoint_cost;

/** Write a checkpoint of ctx's dats (um_checkpoint_plan's saved ones) and c's values and texts to `path` (a new
 * file, through a temporary renamed into place; an existing file at path is replaced only once the new one is
 * complete). cost may be NULL. The engine's own fetches are not recorded as accesses of the steps. */
int um_checkpoint_write(um_context *ctx, const char *path, const um_checkpoint_content *c, um_checkpoint_cost *cost);

/** A checkpoint file opened for reading (um_checkpoint_open). */
typedef struct um_checkpoint_file um_checkpoint_file;

/** Open `path` on every rank and check that it is a complete checkpoint of this format: a missing, truncated or
 * foreign file (not HDF5, no um_checkpoint dataset) or another format is UM_ERR_IO (UM_ERR_CONFIG for another
 * format) naming what is wrong; meta/ texts are read and their checksums checked. */
int um_checkpoint_open(um_context *ctx, const char *path, um_checkpoint_file **out);
/** The text meta/KEY of an open checkpoint, NUL-terminated; NULL when it has none. */
const char *um_checkpoint_text_get(const um_checkpoint_file *f, const char *key);
/** The value state/NAME into out (bytes must be its size): absent, of another size or whose checksum does not
 * match is UM_ERR_IO naming it. */
int um_checkpoint_value_get(um_context *ctx, const um_checkpoint_file *f, const char *name, void *out, size_t bytes);
/** 1 when the checkpoint holds the value state/NAME, else 0 (no read, no communication: a caller tells a file that
 * lost a value every one of its checkpoints holds, a corrupt one, from one of another version). */
int um_checkpoint_value_has(const um_checkpoint_file *f, const char *name);
/** Every dat the checkpoint holds into ctx's dat of that name, each rank reading its block of the rows and the rows
 * going to the ranks that hold them (um_dat_update_block_original_order). A dat ctx declares with another set size,
 * dim or type, and a dataset whose checksum does not match, are UM_ERR_IO naming it; dats are only updated once
 * every dataset was read and checked. A dat the checkpoint holds that ctx does not declare (one another backend's
 * or setting's path declares) is not read: cost->unknown counts them. cost may be NULL. */
int um_checkpoint_restore(um_context *ctx, um_checkpoint_file *f, um_checkpoint_cost *cost);
/** Read every dataset of dats/ and state/ by blocks and check its checksum, changing nothing (a scan for the
 * newest good checkpoint). */
int um_checkpoint_verify(um_context *ctx, um_checkpoint_file *f);
/** Close it (NULL: nothing). */
void um_checkpoint_close(um_checkpoint_file *f);

/** A fingerprint of ctx's mesh as text (sets with their sizes, maps with their arity and a hash of their rows in
 * the declared numbering), the same on any number of ranks: a restart compares it with the checkpoint's. */
int um_checkpoint_mesh_hash(um_context *ctx, char *out, size_t n);

#ifdef __cplusplus
}
#endif
#endif
