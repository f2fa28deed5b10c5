/* What the engine's HDF5 users share (h5_read.c, h5_write.c, xdmf.c and
 * reorder/reorder_hdf5.c): HDF5's automatic error printing switched off per
 * call, failed HDF5 calls turned into um errors carrying HDF5's own text,
 * writes through a unique temporary renamed over <path> only when complete, and
 * attribute helpers. Internal to the engine. */
#ifndef UM_H5UTIL_H
#define UM_H5UTIL_H

#include <stddef.h>
#include <hdf5.h>

#include "um/um.h"
#include "um/safe_file.h"

/* ---- error printing and error text ------------------------------------------- */

/* The caller's automatic error handler, saved while it is switched off: the
 * engine reports HDF5 errors through its own messages. */
typedef struct {
  H5E_auto2_t func;
  void *data;
} um__h5_quiet;

void um__h5_quiet_on(um__h5_quiet *q);
void um__h5_quiet_off(const um__h5_quiet *q);

/* Record an error whose cause is a failed HDF5 call: the message, then HDF5's
 * text from its error stack (which is cleared). Returns code. */
int um__h5_fail(um_context *ctx, int code, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
#define H5_FAIL(ctx, code, ...) um__h5_fail((ctx), (code), __FILE__, __LINE__, __VA_ARGS__)

/* The native HDF5 type of an um_type; H5I_INVALID_HID if t is none. */
hid_t um__h5_native_of(um_type t);
int um__h5_valid_type(um_type t);

/* ---- files and links ---------------------------------------------------------- */

int um__file_exists(const char *path);

/* Does link `name` exist under loc? Every prefix is checked, so a missing
 * intermediate group reads as "no" rather than as an HDF5 error. */
int um__h5_path_exists(hid_t loc, const char *name);

/* ---- atomic writes: a unique temporary beside <path>, renamed over it when complete
 * (util/safe_file.h: removed on failure and, in umrun, on SIGINT/SIGTERM) ---- */

/* Create the temporary (sf->tmp, empty, closed) for path; 0, or -1 with why. */
int um__tmp_begin(um_safe_file *sf, const char *path, char *why, size_t whylen);

/* Finish a write: close the HDF5 file fid (skipped when fid < 0) and rename
 * the temporary over its path. Returns 0; on failure removes the temporary,
 * puts the reason in why and returns UM__TMP_CLOSE (HDF5's error stack says
 * more) or UM__TMP_RENAME. */
enum { UM__TMP_CLOSE = 1, UM__TMP_RENAME = 2 };
int um__tmp_commit(hid_t fid, um_safe_file *sf, char *why, size_t whylen);

/* Give up a write: close fid (if >= 0), remove the temporary, clear HDF5's error stack. */
void um__tmp_abort(hid_t fid, um_safe_file *sf);

/* ---- attributes (return < 0 on failure, the reason on HDF5's error stack) ---- */

/* Integer attribute; rank 0: scalar, rank 1: shape [1] (as OP2 writes them). */
herr_t um__h5_put_attr_int(hid_t loc, const char *name, int v, int rank);
/* Scalar fixed-length C string attribute of `fixed` bytes (0: strlen(s), at
 * least 1), zero-padded. */
herr_t um__h5_put_attr_str(hid_t loc, const char *name, const char *s, size_t fixed);
/* Read a fixed-length string attribute into buf; -1 if absent or not one. */
int um__h5_get_attr_str(hid_t loc, const char *name, char *buf, size_t len);
/* Read an integer attribute into *v; -1 if absent or unreadable. */
int um__h5_get_attr_int(hid_t loc, const char *name, int *v);

#endif
