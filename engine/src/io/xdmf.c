/* XDMF descriptions of meshes in HDF5 files, for ParaView (see um/hdf5io.h).
 * The HDF5 file, when present, is probed for each dataset's shape and number
 * type; the .xmf is written through a unique temporary and renamed when complete. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "h5util.h"
#include "um/safe_file.h"
#include "um/hdf5io.h"

static void xml_put(FILE *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&apos;", f); break;
    default: fputc(*s, f);
    }
  }
}

typedef struct {
  const char *num; /* "Float", "Int", "UInt" */
  int prec;
} xnum;

/* Number type of dataset `name` and check of its shape, when the HDF5 file is
 * open (fid >= 0); defaults otherwise. */
static int xdmf_probe(hid_t fid, const char *h5, const char *name, unsigned long long rows, unsigned long long cols,
                      xnum def, xnum *out, char *err, size_t errlen) {
  *out = def;
  if (fid < 0) return UM_SUCCESS;
  if (!um__h5_path_exists(fid, name))
    return um_format_error(err, errlen, UM_ERR_IO, "XDMF: dataset '%s' not found in HDF5 file '%s'; write it first", name, h5);
  hid_t d = H5Dopen2(fid, name, H5P_DEFAULT);
  if (d < 0) {
    H5Eclear2(H5E_DEFAULT);
    return um_format_error(err, errlen, UM_ERR_IO, "XDMF: '%s' in HDF5 file '%s' is not a dataset", name, h5);
  }
  hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
  H5T_class_t c = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
  size_t sz = t >= 0 ? H5Tget_size(t) : 0;
  H5T_sign_t sg = c == H5T_INTEGER ? H5Tget_sign(t) : H5T_SGN_ERROR;
  int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  hsize_t dims[2] = {0, 1};
  if (rank >= 1 && rank <= 2) H5Sget_simple_extent_dims(sp, dims, NULL);
  if (t >= 0) H5Tclose(t);
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  H5Eclear2(H5E_DEFAULT);
  if (rank < 1 || rank > 2 || dims[0] != rows || (rank == 2 ? dims[1] : 1) != cols)
    return um_format_error(err, errlen, UM_ERR_ARG,
                "XDMF: dataset '%s' in '%s' has shape [%llu][%llu] (rank %d) but [%llu][%llu] was given", name, h5,
                (unsigned long long)dims[0], (unsigned long long)(rank == 2 ? dims[1] : 1), rank, rows, cols);
  if (c == H5T_FLOAT)
    out->num = "Float";
  else if (c == H5T_INTEGER)
    out->num = sg == H5T_SGN_NONE ? "UInt" : "Int";
  else
    return um_format_error(err, errlen, UM_ERR_ARG, "XDMF: dataset '%s' in '%s' is not numeric", name, h5);
  out->prec = (int)sz;
  return UM_SUCCESS;
}

static void xdmf_item(FILE *f, const char *indent, unsigned long long rows, unsigned long long cols, xnum n,
                      const char *h5, const char *name) {
  fprintf(f, "%s<DataItem Dimensions=\"%llu %llu\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">", indent,
          rows, cols, n.num, n.prec);
  xml_put(f, h5);
  fputc(':', f);
  if (name[0] != '/') fputc('/', f);
  xml_put(f, name);
  fputs("</DataItem>\n", f);
}

static int xdmf_impl(const char *xmf_path, const char *h5_name, const char *node_coords_dat, long long nnodes,
                     int coord_dim, const char *cell_map, long long ncells, int nodes_per_cell,
                     const char *const *cell_dats, const int *cell_dat_dims, int ncell_dats, char *err,
                     size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (!xmf_path || !h5_name || !node_coords_dat || !cell_map)
    return um_format_error(err, errlen, UM_ERR_ARG, "um_xdmf_write: xmf_path, h5_name, node_coords_dat and cell_map must not be NULL");
  if (nnodes < 0 || ncells < 0 || ncell_dats < 0 || (ncell_dats > 0 && (!cell_dats || !cell_dat_dims)))
    return um_format_error(err, errlen, UM_ERR_ARG,
                "um_xdmf_write: nnodes (%lld), ncells (%lld) and ncell_dats (%d) must be >= 0, and cell_dats / "
                "cell_dat_dims given when ncell_dats > 0",
                nnodes, ncells, ncell_dats);
  if (coord_dim != 2 && coord_dim != 3)
    return um_format_error(err, errlen, UM_ERR_UNSUPPORTED, "um_xdmf_write: coord_dim %d is not supported (2 or 3)", coord_dim);
  const char *topo = NULL;
  switch (nodes_per_cell) {
  case 2: topo = "Polyline"; break;
  case 3: topo = "Triangle"; break;
  case 4: topo = coord_dim == 2 ? "Quadrilateral" : "Tetrahedron"; break;
  case 8: topo = "Hexahedron"; break;
  default:
    return um_format_error(err, errlen, UM_ERR_UNSUPPORTED,
                "um_xdmf_write: %d nodes per cell is not supported (2 polyline, 3 triangle, 4 quadrilateral/"
                "tetrahedron, 8 hexahedron)",
                nodes_per_cell);
  }
  for (int i = 0; i < ncell_dats; i++)
    if (!cell_dats[i] || cell_dat_dims[i] <= 0)
      return um_format_error(err, errlen, UM_ERR_ARG, "um_xdmf_write: cell dat %d has no name or dim %d <= 0", i,
                  cell_dat_dims[i]);

  /* The HDF5 file, relative to the .xmf's folder unless absolute. */
  char *h5path = NULL;
  const char *slash = strrchr(xmf_path, '/');
  size_t dirlen = (h5_name[0] == '/' || !slash) ? 0 : (size_t)(slash - xmf_path + 1);
  h5path = (char *)malloc(dirlen + strlen(h5_name) + 1);
  if (!h5path) return um_format_error(err, errlen, UM_ERR_ALLOC, "cannot write '%s': out of memory", xmf_path);
  memcpy(h5path, xmf_path, dirlen);
  strcpy(h5path + dirlen, h5_name);
  hid_t fid = H5I_INVALID_HID;
  if (um_read_check(h5path, 0, NULL, 0) == 0 && H5Fis_hdf5(h5path) > 0) fid = H5Fopen(h5path, H5F_ACC_RDONLY, H5P_DEFAULT);
  H5Eclear2(H5E_DEFAULT);

  const xnum fdef = {"Float", 8}, idef = {"Int", 4};
  xnum ncoord, ncell;
  xnum *ndat = (xnum *)calloc((size_t)(ncell_dats > 0 ? ncell_dats : 1), sizeof(xnum));
  int rc = ndat ? UM_SUCCESS : um_format_error(err, errlen, UM_ERR_ALLOC, "cannot write '%s': out of memory", xmf_path);
  if (!rc) rc = xdmf_probe(fid, h5path, node_coords_dat, (unsigned long long)nnodes, (unsigned long long)coord_dim,
                           fdef, &ncoord, err, errlen);
  if (!rc) rc = xdmf_probe(fid, h5path, cell_map, (unsigned long long)ncells, (unsigned long long)nodes_per_cell,
                           idef, &ncell, err, errlen);
  for (int i = 0; i < ncell_dats && !rc; i++)
    rc = xdmf_probe(fid, h5path, cell_dats[i], (unsigned long long)ncells, (unsigned long long)cell_dat_dims[i],
                    fdef, &ndat[i], err, errlen);
  if (fid >= 0) H5Fclose(fid);
  H5Eclear2(H5E_DEFAULT);
  free(h5path);
  if (!rc && ncell.num[0] == 'F')
    rc = um_format_error(err, errlen, UM_ERR_ARG, "XDMF: cell map '%s' holds floating-point values; it must be integer",
              cell_map);
  if (rc) {
    free(ndat);
    return rc;
  }

  um_safe_file sf;
  char why[1200];
  if (um_safe_open(&sf, xmf_path, why, sizeof why) != 0) {
    free(ndat);
    return um_format_error(err, errlen, UM_ERR_IO, "%s", why); /* names the file: a user's message */
  }
  FILE *f = sf.f;
  fputs("<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n  <Domain>\n"
        "    <Grid Name=\"mesh\" GridType=\"Uniform\">\n",
        f);
  fprintf(f, "      <Topology TopologyType=\"%s\" NumberOfElements=\"%lld\" NodesPerElement=\"%d\">\n", topo, ncells,
          nodes_per_cell);
  xdmf_item(f, "        ", (unsigned long long)ncells, (unsigned long long)nodes_per_cell, ncell, h5_name, cell_map);
  fputs("      </Topology>\n", f);
  fprintf(f, "      <Geometry GeometryType=\"%s\">\n", coord_dim == 2 ? "XY" : "XYZ");
  xdmf_item(f, "        ", (unsigned long long)nnodes, (unsigned long long)coord_dim, ncoord, h5_name,
            node_coords_dat);
  fputs("      </Geometry>\n", f);
  for (int i = 0; i < ncell_dats; i++) {
    int d = cell_dat_dims[i];
    const char *at = d == 1 ? "Scalar" : d == 3 ? "Vector" : d == 6 ? "Tensor6" : d == 9 ? "Tensor" : "Matrix";
    const char *base = strrchr(cell_dats[i], '/');
    base = base ? base + 1 : cell_dats[i];
    fputs("      <Attribute Name=\"", f);
    xml_put(f, base);
    fprintf(f, "\" AttributeType=\"%s\" Center=\"Cell\">\n", at);
    xdmf_item(f, "        ", (unsigned long long)ncells, (unsigned long long)d, ndat[i], h5_name, cell_dats[i]);
    fputs("      </Attribute>\n", f);
  }
  fputs("    </Grid>\n  </Domain>\n</Xdmf>\n", f);
  free(ndat);
  if (um_safe_commit(&sf, why, sizeof why) != 0)
    return um_format_error(err, errlen, UM_ERR_IO, "%s", why); /* names the file: a user's message */
  return UM_SUCCESS;
}

int um_xdmf_write(const char *xmf_path, const char *h5_name, const char *node_coords_dat, long long nnodes,
                  int coord_dim, const char *cell_map, long long ncells, int nodes_per_cell,
                  const char *const *cell_dats, const int *cell_dat_dims, int ncell_dats, char *err,
                  size_t errlen) {
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = xdmf_impl(xmf_path, h5_name, node_coords_dat, nnodes, coord_dim, cell_map, ncells, nodes_per_cell,
                     cell_dats, cell_dat_dims, ncell_dats, err, errlen);
  um__h5_quiet_off(&q);
  return rc;
}
