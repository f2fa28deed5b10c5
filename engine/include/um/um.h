/** @file um/um.h
 * um: parallel loops over unstructured meshes (public C API).
 *
 * Vocabulary follows OP2: a *set* is a collection of mesh entities, a *map*
 * connects every element of one set to `arity` elements of another, a *dat*
 * holds `dim` values of one type per element of a set, and a *par_loop*
 * applies a user *kernel* to every element of a set, passing one pointer per
 * *arg*. An arg names a dat accessed directly (UM_ID), a dat reached through
 * a map at index `idx`, or a global value, together with an *access mode*.
 *
 * Every function that can fail returns an int error code (UM_SUCCESS == 0).
 * The message of the last error, with the file:line trail through which it
 * propagated, is kept in the context: um_error_message(ctx).
 */
#ifndef UM_UM_H
#define UM_UM_H

/* The API by subject; each header includes what it needs of the others. */
#include "um/base.h"
#include "um/options.h"
#include "um/option_decl.h"
#include "um/context.h"
#include "um/objects.h"
#include "um/args.h"
#include "um/loop.h"
#include "um/distributed.h"
#include "um/stats.h"
/* Automatic loop splitting, reproducible mode and per-loop tuning */
#include "um/transform.h"

#endif
