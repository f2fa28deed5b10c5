/** @file um/base.h
 * The vocabulary every other header uses: error codes, access modes, types, layouts, strategies, the opaque objects and the log callback.
 * Part of the public API: include um/um.h. */
#ifndef UM_BASE_H
#define UM_BASE_H

#include <stddef.h>
#include <stdint.h>
#include "um/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- error codes --------------------------------------------------------- */
/** The error codes every function that can fail returns (0 is success). */
typedef enum {
  UM_SUCCESS = 0,          /**< no error                                    */
  UM_ERR_ARG = 1,          /**< bad argument to an API call                  */
  UM_ERR_ALLOC = 2,        /**< out of memory                                */
  UM_ERR_IO = 3,           /**< file missing, unreadable or malformed        */
  UM_ERR_CONFIG = 4,       /**< bad configuration value or file              */
  UM_ERR_UNSUPPORTED = 5,  /**< feature or backend not built / not available */
  UM_ERR_BACKEND = 6,      /**< failure inside a backend (CUDA, OpenMP, ...) */
  UM_ERR_VALIDATION = 7,   /**< a result failed validation                   */
  UM_ERR_PLAN = 8,         /**< plan construction or plan check failed       */
  UM_ERR_INTERNAL = 9,     /**< bug: please report                           */
  UM_ERR_DIVERGED = 10,    /**< a global reduction became NaN or infinite    */
  UM_ERR_STOPPED = 11      /**< the run stopped at a checkpoint, as asked (a signal, checkpoint.stop_after) */
} um_error;

/** The name of an error code ("UM_ERR_ARG", ...); "UM_ERR_UNKNOWN" for codes outside um_error. */
const char *um_error_name(int code);
/** Seconds on a monotonic clock (for intervals): the one timer of the engine, apps and runner. */
double um_wtime(void);
/** For functions that report through a caller's buffer: format the message into
 * err (if err != NULL and errlen > 0) and return code.
 * @param err    the caller's buffer, may be NULL
 * @param errlen its size in bytes (0: nothing written)
 * @param code   returned as it is
 * @param fmt    printf format of the message
 * @return code */
int um_format_error(char *err, size_t errlen, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---- enums ----------------------------------------------------------------*/
/** Access mode of a loop argument (OP2's). */
typedef enum {
  UM_READ = 0, /**< read only                                                      */
  UM_WRITE,    /**< written only: every element's value is overwritten             */
  UM_RW,       /**< read and written                                               */
  UM_INC,      /**< incremented (through a map: contributions summed; a global: a sum) */
  UM_MIN,      /**< global reduction to the minimum                                */
  UM_MAX       /**< global reduction to the maximum                                */
} um_access;
/** Type of the values of a dat, a constant or a global argument. */
typedef enum {
  UM_DOUBLE = 0, /**< double */
  UM_FLOAT,      /**< float  */
  UM_INT         /**< int    */
} um_type;
/** Storage layout of a dat. */
typedef enum {
  UM_AOS = 0,     /**< array of structures: the dim values of an element together  */
  UM_SOA,         /**< structure of arrays: one column of rows values per component */
  UM_LAYOUT_AUTO  /**< decided at the first loop: SoA if only ever accessed directly, AoS otherwise */
} um_layout;
/** How a backend runs loops that increment through maps (the conflicts between elements). */
typedef enum {
  UM_STRATEGY_AUTO = 0,     /**< the backend's default                              */
  UM_STRATEGY_COLOURED,     /**< blocks of one block colour in parallel (CPU)       */
  UM_STRATEGY_ATOMICS,      /**< increments through maps with atomics (GPU)         */
  UM_STRATEGY_GLOBAL,       /**< global element colouring (GPU)                     */
  UM_STRATEGY_HIERARCHICAL  /**< block + thread colouring, shared-memory staging    */
} um_strategy;

/** The name of an access mode ("READ", "INC", ...; "?" if out of range). */
const char *um_access_name(um_access a);
/** The name of a type ("double", "float", "int"). */
const char *um_type_name(um_type t);
/** Bytes per value of a type (sizeof(double), ...). */
size_t um_type_size(um_type t);
/** The name of a layout ("aos", "soa", "auto"). */
const char *um_layout_name(um_layout l);
/** The name of a strategy ("auto", "coloured", "atomics", "global", "hierarchical"). */
const char *um_strategy_name(um_strategy s);
/** Parse a type name ("double", "float", "int") into *out; UM_ERR_ARG if unknown. */
int um_type_parse(const char *s, um_type *out);
/** Parse a layout name ("aos", "soa", "auto") into *out; UM_ERR_ARG if unknown. */
int um_layout_parse(const char *s, um_layout *out);
/** Parse a strategy name (as um_strategy_name writes it) into *out; UM_ERR_ARG if unknown. */
int um_strategy_parse(const char *s, um_strategy *out);

/* ---- objects ------------------------------------------------------------- */
/** A context: everything of a run hangs off it (sets, maps, dats, plans, the
 * backend, statistics, the last error). Created by um_init, freed by um_finalize. */
typedef struct um_context um_context;
/** A set: a collection of mesh entities (cells, edges, nodes, ...). Declared with um_decl_set. */
typedef struct um_set um_set;
/** A map: every element of one set connected to `arity` elements of another. Declared with um_decl_map. */
typedef struct um_map um_map;
/** A dat: `dim` values of one type per element of a set. Declared with um_decl_dat. */
typedef struct um_dat um_dat;

/** Messages the engine has for a person (warnings, progress of slow steps,
 * verbose details). The library never prints: it hands them to this callback
 * (umrun prints them on stderr); without one they are dropped. */
typedef enum {
  UM_LOG_WARNING = 0, /**< something the person running should know about          */
  UM_LOG_INFO = 1,    /**< progress and choices (um_options.verbose >= 1)           */
  UM_LOG_DEBUG = 2    /**< details (um_options.verbose >= 2)                        */
} um_log_level;
/** The log callback (um_options.log): `user` is um_options.log_user; `message` has no final newline. */
typedef void (*um_log_fn)(void *user, um_log_level level, const char *message);

#ifdef __cplusplus
}
#endif
#endif
