"""Reading the fields um writes (HDF5 in OP2's layout, and the XDMF files beside them) into xarray, with h5py
underneath. The files hold the global numbering (every rank's rows in declared order), and so do the Datasets.

    ds = um.fields.open("out/airfoil/airfoil.h5")   # every set, map and dat of the file
    ds["p_q"].sel(p_q_dim=0)                        # rho per cell
    ds = um.fields.open("out/airfoil/airfoil.xmf")  # what ParaView shows: the mesh and its cell/node fields

In an HDF5 file a set is a one-value integer dataset (its size); a dat or map is a two-dimensional dataset with
the attributes ``dim`` and ``type`` (OP2's ``op_dump_to_hdf5`` layout). Each becomes a variable with dimensions
(its set, ``<name>_dim``): the set is the one whose size is the dataset's number of rows (``rows_<n>`` when no set,
or several, have that size); the attributes are kept, and the set sizes are the Dataset's attributes.
"""
import os
import xml.etree.ElementTree as ET

import h5py
import numpy as np
import xarray as xr


def _sets(f):
    sets = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and obj.shape in ((1,), ()) and obj.dtype.kind in "iu" \
                and "dim" not in obj.attrs:
            sets[name] = int(np.asarray(obj).ravel()[0])

    f.visititems(visit)
    return sets


def _row_dim(rows, sets):
    names = [s for s, n in sets.items() if n == rows]
    return names[0] if len(names) == 1 else "rows_%d" % rows


def _attrs(obj):
    out = {}
    for k, v in obj.attrs.items():
        v = v.decode() if isinstance(v, bytes) else v
        if isinstance(v, np.ndarray) and v.size == 1:
            v = v.item()
        out[k] = v
    return out


def open_hdf5(path):
    """Every set, dat and map of an HDF5 file um wrote, as an xarray Dataset (see the module's description)."""
    with h5py.File(path, "r") as f:
        sets = _sets(f)
        data = {}

        def visit(name, obj):
            if not isinstance(obj, h5py.Dataset) or name in sets:
                return
            a = np.asarray(obj)
            if a.ndim == 1:
                a = a.reshape(-1, 1)
            if a.ndim != 2:
                return
            var = name.replace("/", ".")
            data[var] = xr.Variable((_row_dim(a.shape[0], sets), var + "_dim"), a, attrs=_attrs(obj))

        f.visititems(visit)
        attrs = dict(_attrs(f), **{"set_" + k: v for k, v in sets.items()}, source=os.path.abspath(path))
    return xr.Dataset(data, attrs=attrs)


def _item(item, folder):
    """A DataItem's values: from the HDF5 file it names (file.h5:/path), or inline text."""
    text = (item.text or "").strip()
    dims = tuple(int(d) for d in item.get("Dimensions", "").split())
    if item.get("Format", "XML") == "HDF":
        file, _, dset = text.partition(":")
        with h5py.File(os.path.join(folder, file), "r") as f:
            a = np.asarray(f[dset])
    else:
        a = np.array(text.split(), dtype=np.float64)
    return a.reshape(dims) if dims and a.size == int(np.prod(dims)) else a


def open_xdmf(path):
    """The mesh and fields of an XDMF file (the first grid): ``connectivity`` (cell, corner), ``coordinates``
    (node, axis) and each Attribute with its centre's dimension (``cell`` or ``node``) and ``<name>_dim``."""
    root = ET.parse(path).getroot()
    folder = os.path.dirname(os.path.abspath(path))
    grid = root.find(".//Grid")
    if grid is None:
        raise ValueError("%s: no Grid in this XDMF file" % path)
    data = {}
    topo, geom = grid.find("Topology"), grid.find("Geometry")
    if topo is not None and topo.find("DataItem") is not None:
        data["connectivity"] = (("cell", "corner"), _item(topo.find("DataItem"), folder))
    if geom is not None and geom.find("DataItem") is not None:
        data["coordinates"] = (("node", "axis"), _item(geom.find("DataItem"), folder))
    for att in grid.findall("Attribute"):
        a = _item(att.find("DataItem"), folder)
        centre = {"Cell": "cell", "Node": "node"}.get(att.get("Center", "Node"), att.get("Center", "").lower())
        name = att.get("Name")
        data[name] = ((centre, name + "_dim"), a.reshape(a.shape[0], -1))
    attrs = {"grid": grid.get("Name", ""), "topology": topo.get("TopologyType", "") if topo is not None else "",
             "source": os.path.abspath(path)}
    return xr.Dataset(data, attrs=attrs)


def open(path):  # noqa: A001  (the package's name for it: um.fields.open)
    """An HDF5 (.h5, .hdf5) or XDMF (.xmf, .xdmf) file um wrote, as an xarray Dataset."""
    ext = os.path.splitext(str(path))[1].lower()
    if ext in (".xmf", ".xdmf"):
        return open_xdmf(path)
    if ext in (".h5", ".hdf5"):
        return open_hdf5(path)
    raise ValueError("%s: um.fields.open reads HDF5 (.h5, .hdf5) and XDMF (.xmf, .xdmf) files" % path)
