/* python/cmake: an empty <stdint.h> (see stddef.h beside it): int64_t and the other fixed-width types are cffi's
 * own. */
