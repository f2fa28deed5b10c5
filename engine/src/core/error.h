/* Errors inside the engine: stored in the context with a file:line trail. The functions and macros
 * are um/backend.h's (UM_BACKEND_ERROR, UM_BACKEND_CHECK); the core calls them by their short names. */
#ifndef UM_CORE_ERROR_H
#define UM_CORE_ERROR_H

#include <stdarg.h>
#include <stdio.h>
#include "um/backend.h"
#include "um/um.h"

#define UM_ERROR UM_BACKEND_ERROR
#define UM_CHECK UM_BACKEND_CHECK

/* Messages for the person running go through um_backend_log (um/backend.h). */

#endif
