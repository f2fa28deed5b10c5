/** @file um/hdf5io.h
 * HDF5 mesh I/O in OP2's file layout, and XDMF descriptions for ParaView.
 *
 * File layout (that of OP2-Common, op2/src/externlib/op_hdf5.cpp, so files
 * written by OP2's op_dump_to_hdf5 / op_write_const_hdf5 -- e.g. Airfoil's
 * new_grid.h5 -- can be read here, and files written here can be read by OP2):
 *
 * @verbatim
 *   set   "<set>"   int32 dataset of shape [1] holding the set size.
 *   map   "<map>"   int dataset [from_size][arity], 0-based targets; attributes
 *                   "size" int32[1] = from_size, "dim" int32[1] = arity,
 *                   "type" scalar fixed-length string (10 bytes) = "int".
 *   dat   "<dat>"   dataset [set_size][dim] of native double / float / int32;
 *                   attributes "size" int32[1] = dim * sizeof(type) (bytes per
 *                   element, as OP2's op_dat->size), "dim" int32[1] = dim,
 *                   "type" scalar fixed-length string = "double"/"float"/"int".
 *   const "<name>"  dataset [dim] of native double / float / int32; attributes
 *                   "dim" int32[1] = dim, "type" scalar string as for dats.
 * @endverbatim
 *
 * Names may contain '/' (OP2 allows "/group/p_x"): groups are created on write.
 * Like OP2 since 2017, the readers take shape and element type from the
 * dataset itself (dataspace and HDF5 datatype), not from the attributes.
 * A rank-1 dataset [n] is read as a dat / map with one column.
 *
 * Types: file 64-bit float <-> UM_DOUBLE, 32-bit float <-> UM_FLOAT, any
 * integer width <-> UM_INT (range-checked). Reading a float dataset as another
 * um_type is refused (no silent precision change).
 *
 * All functions return UM_SUCCESS or an um_error code, with the message (file,
 * dataset, what was wrong, HDF5's own error text where there is one, and a
 * hint) stored in the context: um_error_message(ctx). HDF5's automatic
 * error-stack printing is switched off during each call and restored after.
 *
 * Writers never leave a half-written file: they write "<path>.tmp" (a copy of
 * `<path>` when adding to an existing file) and rename it over `<path>` only after
 * the HDF5 file was closed successfully; on failure the .tmp file is removed.
 * (Adding one dataset to an existing file therefore copies the file: to dump a
 * whole context use um_hdf5_write_mesh.)
 */
#ifndef UM_HDF5IO_H
#define UM_HDF5IO_H

#include <stddef.h>
#include "um/um.h"

#ifdef __cplusplus
extern "C" {
#endif

/** For programs, before their first HDF5 call (umrun calls it at its start): HDF5's own clean-up at the process's
 * exit is not installed. A file whose close failed (a full disk, the file size limit) stays open inside HDF5, and
 * HDF5 1.10's clean-up at exit crashes on it (SIGSEGV after the write error was reported, hiding the exit status);
 * every file um writes is closed by um itself (or given up after its error), so nothing is lost. */
void um_hdf5_no_exit_cleanup(void);

/* ---- reading -------------------------------------------------------------- */

/** Declare a set named `name` whose size is the integer stored in dataset `name`
 * (OP2: op_decl_set_hdf5). */
int um_hdf5_read_set(um_context *ctx, const char *file, const char *name, um_set **out);

/** Declare set `name` by blocks (um/distributed.h: um_decl_set_block): its size from dataset `name`, this
 * rank's block the block partitioner's range (um_block_range); on one rank the whole set (um_hdf5_read_set).
 * The map and dat readers below then read only the block's rows of their datasets (an HDF5 hyperslab of
 * [block_begin, block_begin + count) rows): no rank reads or holds the whole mesh. Every rank opens the file
 * read-only on its own (serial HDF5 suffices). */
int um_hdf5_read_set_block(um_context *ctx, const char *file, const char *name, um_set **out);
/** After reading a mesh by blocks (collective: every rank calls it once it has read, with its outcome rc): what only
 * some ranks' rows show (a map entry out of range, a dataset a rank cannot read, a file one rank cannot open) fails
 * every rank at once rather than leave the others waiting in um_distribute. Returns rc where this rank failed;
 * where only other ranks did, the first of them's code with "rank R of P could not read its block of <file>: <its
 * message>" (every rank says the one reason); UM_SUCCESS where every rank read its block. One rank: rc. */
int um_hdf5_read_agree(um_context *ctx, int rc, const char *file);

/** Declare a map from -> to named `name` from dataset `name` [from_size][arity].
 * The arity is taken from the file; rows must equal um_set_size(from) and every
 * entry must lie in [0, um_set_size(to)). (OP2: op_decl_map_hdf5) A from-set declared by blocks: the block's
 * rows, declared with um_decl_map_block (both sets by blocks). */
int um_hdf5_read_map(um_context *ctx, const char *file, um_set *from, um_set *to, const char *name,
                     um_map **out);
/** The same, also requiring the file's arity to equal `arity` (> 0). */
int um_hdf5_read_map_expect(um_context *ctx, const char *file, um_set *from, um_set *to, int arity,
                            const char *name, um_map **out);

/** Declare a dat on `set` named `name` from dataset `name` [set_size][dim]; dim
 * and type come from the file (64-bit float -> UM_DOUBLE, 32-bit float ->
 * UM_FLOAT, integer -> UM_INT). Rows must equal um_set_size(set). A set declared by blocks: the block's rows
 * (integers then only as 32-bit signed in the file). */
int um_hdf5_read_dat(um_context *ctx, const char *file, um_set *set, const char *name, um_dat **out);
/** The same, also requiring dim (> 0) and type to match the file (OP2:
 * op_decl_dat_hdf5(set, dim, type, file, name)). */
int um_hdf5_read_dat_expect(um_context *ctx, const char *file, um_set *set, int dim, um_type type,
                            const char *name, um_dat **out);

/** Read the global constant in dataset `name` (dim values) into out, which must
 * hold dim values of `type` (OP2: op_get_const_hdf5). Does not declare it: pass
 * the values to um_decl_const if kernels need them. */
int um_hdf5_read_const(um_context *ctx, const char *file, const char *name, int dim, um_type type,
                       void *out);

/* ---- writing -------------------------------------------------------------- */
/** Add the set as dataset "<set>" (its size) to `file`. Each writer adds one
 * dataset to `file` (created if absent; a dataset of the same name is
 * replaced), atomically as described above. */
int um_hdf5_write_set(um_context *ctx, const char *file, const um_set *set);
/** Add the map as dataset "<map>" [from_size][arity] to `file` (atomically, as above): its rows in the declared
 * numbering (um_map_fetch_block_original_order: a reordered context writes the rows it was declared with). */
int um_hdf5_write_map(um_context *ctx, const char *file, const um_map *map);
/** Add the dat as dataset "<dat>" [set_size][dim] to `file`: its rows fetched by blocks in the declared order
 * (um_dat_fetch_block_original_order), written as AoS whatever the layout/device/reordering. */
int um_hdf5_write_dat(um_context *ctx, const char *file, const um_dat *dat);
/** Add the constant `name` (dim values of type at data) to `file` (atomically, as above). */
int um_hdf5_write_const(um_context *ctx, const char *file, const char *name, int dim, um_type type,
                        const void *data);

/** Write a new file (replacing any old one) holding every set, map and dat
 * declared in ctx (OP2: op_dump_to_hdf5). */
int um_hdf5_write_mesh(um_context *ctx, const char *file);

/* ---- writing by blocks -------------------------------------------------------
 * Every writer above writes maps and dats by blocks, on one process as on many: rank 0 creates the file's
 * temporary with every dataset of its global shape; then each rank fetches its block of the rows in the global
 * numbering (um/distributed.h: um_dat_fetch_block, um_map_fetch_block; no rank holds a whole set) and the ranks
 * write their hyperslabs one after the other, in rank order (um_in_turn: a token passed from rank to rank; the
 * build's serial HDF5 suffices); then rank 0 renames the temporary over the file. A failure on any rank (a full
 * disk, a folder where the file goes) is every rank's error, with the lowest failing rank's message, and leaves no
 * file. The file's bytes do not depend on the number of ranks (datasets are allocated when created, never filled,
 * and carry no times). Collective on a distributed context; the ranks write one file, so its folder must be one
 * every rank sees. */

/** A dataset whose rows the ranks hold by blocks (um_hdf5_write_blocks). */
typedef struct {
  const char *name; /**< dataset name ('/' makes groups) */
  long long rows; /**< rows over all ranks (64-bit: a global count; each rank's block stays an int) */
  int cols; /**< values per row (> 0) */
  um_type type; /**< UM_DOUBLE, UM_FLOAT or UM_INT (a map: UM_INT whatever is given) */
  int map; /**< 1: written as a map (OP2's map attributes), 0: as a dat */
  const void *block; /**< this rank's rows, AoS: um_block_range(rows, rank, nranks) of them, from the first */
} um_hdf5_rows;

/** Write a new file (replacing any old one) in OP2's layout from arrays the ranks hold by blocks, for outputs of
 * meshes that are not a context's (a generated mesh's nodes, a field in an order of the app's own): sets
 * set_names[i] of set_sizes[i] elements, then the datasets rows[0 .. nrows), each rank giving its block of each
 * (um_rows_to_blocks brings rows to their blocks). ctx is the run's context (its ranks write the file, its error
 * holds the message). Collective on a distributed context. */
int um_hdf5_write_blocks(um_context *ctx, const char *file, int nsets, const char *const *set_names,
                         const int *set_sizes, int nrows, const um_hdf5_rows *rows);
/** um_hdf5_write_blocks with 64-bit set sizes: a set of more than INT_MAX elements over the ranks (one declared by
 * blocks, um_set_gsize) is written as OP2 writes a size (one int) up to INT_MAX and as a 64-bit integer past it
 * (um's readers take either). Collective on a distributed context. */
int um_hdf5_write_blocks64(um_context *ctx, const char *file, int nsets, const char *const *set_names,
                           const long long *set_sizes, int nrows, const um_hdf5_rows *rows);

/* ---- XDMF ------------------------------------------------------------------ */
/** Write an XDMF 2 file describing a mesh stored in the HDF5 file `h5_name`
 * (as referenced from the .xmf, normally a name relative to it): node
 * coordinates in dataset node_coords_dat [nnodes][coord_dim] (coord_dim 2 or
 * 3), cells in map cell_map [ncells][nodes_per_cell] (0-based), and cell-centred
 * fields cell_dats[i] [ncells][cell_dat_dims[i]].
 * Topology: 2 nodes -> Polyline, 3 -> Triangle, 4 -> Quadrilateral (2D) or
 * Tetrahedron (3D), 8 -> Hexahedron. Field dims 1 -> Scalar, 3 -> Vector,
 * 6 -> Tensor6, 9 -> Tensor, others -> Matrix.
 * Number types are taken from the HDF5 file when it can be opened (relative to
 * the .xmf's folder), otherwise assumed 64-bit float (coords, fields) and
 * 32-bit int (cells). Written atomically (.tmp + rename). nnodes and ncells are
 * global counts, 64-bit (a mesh declared by blocks may pass INT_MAX elements).
 * Returns UM_SUCCESS, UM_ERR_ARG, UM_ERR_UNSUPPORTED or UM_ERR_IO, with a
 * message in err (if err != NULL). */
int um_xdmf_write(const char *xmf_path, const char *h5_name, const char *node_coords_dat, long long nnodes,
                  int coord_dim, const char *cell_map, long long ncells, int nodes_per_cell,
                  const char *const *cell_dats, const int *cell_dat_dims, int ncell_dats, char *err,
                  size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
