/** @file um/objects.h
 * Sets, maps, dats and constants: declaring them, finding them, reading and replacing their data.
 * Part of the public API: include um/um.h. */
#ifndef UM_OBJECTS_H
#define UM_OBJECTS_H

#include "um/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The longest name of a set, map, dat, constant, reduction, kernel or loop, in bytes. A name is 1 .. UM_MAX_NAME
 * bytes without control characters (newlines, tabs, ...); a longer one, or one with them, is refused. */
#define UM_MAX_NAME 128

/** Declare a set of `size` elements. Names must be unique per kind.
 * @param ctx  the context
 * @param size elements of the set (>= 0)
 * @param name the set's name, unique among sets
 * @param set  *set receives the set, owned by the context */
int um_decl_set(um_context *ctx, int size, const char *name, um_set **set);
/** Declare a map from -> to of `arity` targets per element: data holds
 * size(from) * arity 0-based indices into `to`, copied (and checked to lie in range). */
int um_decl_map(um_context *ctx, um_set *from, um_set *to, int arity, const int *data,
                const char *name, um_map **map);
/** um_decl_map handing the entries over: the context takes `data` (from malloc; freed by the context, at once
 * when the call fails: an entry out of range, ...) as the map's storage, without a copy. */
int um_decl_map_take(um_context *ctx, um_set *from, um_set *to, int arity, int *data, const char *name,
                     um_map **map);
/** Declare a dat of `dim` values of `type` per element of `set`, in the
 * options' default layout; data (AoS, size * dim values) is copied, NULL: zeros. */
int um_decl_dat(um_context *ctx, um_set *set, int dim, um_type type, const void *data,
                const char *name, um_dat **dat);
/** Declare a dat whose values the caller made in a buffer of its own, handing the buffer over: the context
 * takes `data` (from malloc; freed by the context, at once when the call fails) and keeps it as the dat's
 * storage without a copy (a copy only where the dat needs more rows than the set's: run.row_align > 1, or a
 * mesh already distributed). data holds um_set_decl_rows(set) = n rows of `dim` values in `layout`: UM_AOS
 * (value c of row i at i * dim + c) or UM_SOA / UM_LAYOUT_AUTO (at c * n + i). The dat then has that layout,
 * as um_decl_dat followed by um_dat_set_layout(layout) gives it (auto: decided at its first loop); pass
 * um_context_options(ctx)->layout for the layout um_decl_dat gives. For a large mesh this saves the copy and
 * the memory of the caller's array (at set-up, the first touch of fresh memory costs more than the copy). */
int um_decl_dat_take(um_context *ctx, um_set *set, int dim, um_type type, void *data, um_layout layout,
                     const char *name, um_dat **dat);
/** A global constant readable by kernels (see um/kernel.h, UM_CONST). The value
 * is copied now and published to devices; call again to change it. */
int um_decl_const(um_context *ctx, const char *name, int dim, um_type type, const void *data);

/** The set of that name, or NULL. */
um_set *um_find_set(const um_context *ctx, const char *name);
/** The map of that name, or NULL. */
um_map *um_find_map(const um_context *ctx, const char *name);
/** The dat of that name, or NULL. */
um_dat *um_find_dat(const um_context *ctx, const char *name);
/* The accessors below take NULL: "" for a name, 0 for a size or count, NULL for an object. */
/** The set's name. */
const char *um_set_name(const um_set *s);
/** Elements of the whole set (over every rank when distributed); -1 for a set declared by blocks whose global
 * size passes INT_MAX (um_set_gsize gives it). */
int um_set_size(const um_set *s);
/** Elements of the whole set (over every rank when distributed), 64-bit: a set declared by blocks
 * (um_decl_set_block) may have more than INT_MAX; each rank's part stays an int. */
long long um_set_gsize(const um_set *s);
/** The rows um_decl_dat takes for set s on this rank now: its declared block when the set is declared by blocks
 * (um_decl_set_block) and not yet distributed, else um_set_size. */
int um_set_decl_rows(const um_set *s);
/** Element ranges as OP2 lays them out for distributed runs: core elements touch no
 * halo, [0, size) are owned, then exec_halo elements executed redundantly and
 * nonexec_halo elements only read. On one rank core == size, halos 0. The core
 * elements are [um_set_core_begin(s), um_set_core_begin(s) + core). */
void um_set_ranges(const um_set *s, int *core, int *exec_halo, int *nonexec_halo);
/** The first core element (see um_set_ranges): 0, unless the distribution kept the owned elements in their
 * order because the core ones are a run of them that starts later (a block of a generated mesh, dist_ranges.c). */
int um_set_core_begin(const um_set *s);
/** The map's name. */
const char *um_map_name(const um_map *m);
/** Targets per element of the from-set. */
int um_map_arity(const um_map *m);
/** The set the map goes from (the one a loop iterates over). */
um_set *um_map_from(const um_map *m);
/** The set the map points into. */
um_set *um_map_to(const um_map *m);
/** The map's entries: from->size * arity, 0-based (this rank's, when distributed). */
const int *um_map_data(const um_map *m); /* from->size * arity, 0-based */
/** The dat's name. */
const char *um_dat_name(const um_dat *d);
/** The set the dat lives on. */
um_set *um_dat_set(const um_dat *d);
/** Rows allocated for the dat (>= its set's size plus halos): the SoA stride. */
int um_dat_rows(const um_dat *d);
/** Values per element. */
int um_dat_dim(const um_dat *d);
/** The type of the dat's values. */
um_type um_dat_type(const um_dat *d);
/** 1 if the dat could hold coordinates: 2 or 3 doubles (or floats) per element, and, when by_name, a name
 * that says so (x, xy, xyz, coords, coordinates, one containing coord, centre or center, or ending in _x, _xy,
 * _xyz): the default of mpi.partition_coords and of umrun --draw. */
int um_dat_is_coordinates(const um_dat *d, int by_name);
/** The dat's layout (UM_LAYOUT_AUTO until its first loop resolves it). */
um_layout um_dat_layout(const um_dat *d);
/** Sets declared on the context. */
int um_set_count(const um_context *ctx);
/** Maps declared on the context. */
int um_map_count(const um_context *ctx);
/** Dats declared on the context (the engine's temporaries not counted). */
int um_dat_count(const um_context *ctx);
/** Set i in declaration order (0 <= i < um_set_count), or NULL. */
um_set *um_set_at(const um_context *ctx, int i);
/** Map i in declaration order, or NULL. */
um_map *um_map_at(const um_context *ctx, int i);
/** Dat i in declaration order, or NULL. */
um_dat *um_dat_at(const um_context *ctx, int i);

/** Change a dat's storage layout (contents preserved). UM_LAYOUT_AUTO is
 * resolved at the first loop that uses the dat: SoA if only ever accessed
 * directly, AoS otherwise. */
int um_dat_set_layout(um_context *ctx, um_dat *dat, um_layout layout);

/** Copy a dat back to the host, always as AoS (size * dim values).
 * `bytes` must equal size*dim*sizeof(type). Collective when distributed: every
 * rank gets the whole set, a convenience for small meshes; outputs of large ones
 * fetch each rank's block (um_dat_fetch_block, um/distributed.h). */
int um_dat_fetch(um_context *ctx, const um_dat *dat, void *out, size_t bytes);
/** Replace a dat's values from AoS host data (the reverse of um_dat_fetch). */
int um_dat_update(um_context *ctx, um_dat *dat, const void *in, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
