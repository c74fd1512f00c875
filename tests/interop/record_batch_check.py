"""Helper of tests/record_batch_interop.rs: pyarrow's side of the record-batch interop suite.

    record_batch_check.py read DIR    pyarrow opens every stream / file listed in
                                      DIR/manifest.json (written by our crate) and compares
                                      what it reads with the expected values listed there.
    record_batch_check.py write DIR   pyarrow writes fixed- and variable-shape tensor columns
                                      (and bad inputs) into DIR and lists them, with what
                                      pyarrow itself reads from them, in DIR/manifest.json.
    record_batch_check.py permutations DIR
                                      for every permutation of rank 3 and 4, a fixed-shape
                                      column with that permutation in DIR, and pyarrow's
                                      readings and writing of it beside the definition's.

Prints one JSON object on stdout. Exit status 0 means the script ran; the Rust side decides
from the JSON whether the cases passed (every failure is listed with its reason).

Permutations follow the canonical extension spec: logical dimension i of a cell is physical
dimension permutation[i] (the logical view is numpy's `physical.transpose(permutation)`).
"""

import json
import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.ipc

DTYPES = [
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64",
]


def is_involution(p):
    return all(p[p[i]] == i for i in range(len(p)))


def open_ipc(path, ipc):
    buf = pa.py_buffer(open(path, "rb").read())
    if ipc == "stream":
        reader = pa.ipc.open_stream(buf)
        return reader.schema, list(reader)
    reader = pa.ipc.open_file(buf)
    return reader.schema, [reader.get_batch(i) for i in range(reader.num_record_batches)]


def spec_view(flat, rows, physical, permutation):
    """The logical view of `rows` cells of row-major `physical` shape (spec semantics)."""
    nd = flat.reshape([rows] + list(physical))
    if permutation:
        nd = nd.transpose([0] + [p + 1 for p in permutation])
    return nd


def values_of(array):
    """The numpy values of a primitive array (no nulls)."""
    return array.to_numpy(zero_copy_only=False)


class Case:
    def __init__(self, case):
        self.case = case
        self.errors = []

    def check(self, cond, what):
        if not cond:
            self.errors.append(what)
        return cond


# ---------------------------------------------------------------------------------------
# read: our output, pyarrow reads.

def read_fixed(c, k):
    schema, batches = open_ipc(c["path"], c["ipc"])
    k.check(len(batches) == c["batches"], f"{len(batches)} batches, expected {c['batches']}")
    field = schema.field(c["column"])
    ty = field.type
    if not k.check(isinstance(ty, pa.FixedShapeTensorType), f"field type {ty} is not a FixedShapeTensorType"):
        return
    k.check(not field.nullable, "field is nullable")
    # (pyarrow gives the type its own storage type, a nullable item, whatever was written:
    # the non-nullable item we write is checked against arrow-rs, which insists on it.)
    k.check(str(ty.value_type) == {"float16": "halffloat", "float32": "float", "float64": "double"}.get(c["dtype"], c["dtype"]),
            f"value type {ty.value_type}, expected {c['dtype']}")
    perm = list(ty.permutation) if ty.permutation is not None else None
    physical = list(ty.shape)
    physical_names = list(ty.dim_names) if ty.dim_names is not None else None
    if c["physical_shape"] is not None:
        k.check(physical == c["physical_shape"], f"shape {physical}, expected {c['physical_shape']}")
        k.check(perm == c["permutation"], f"permutation {perm}, expected {c['permutation']}")
        k.check(physical_names == c["physical_dim_names"],
                f"dim_names {physical_names}, expected {c['physical_dim_names']}")
    # Whatever the physical order (free for dimensions of size 1), the logical cells are
    # the expected ones: logical dimension i is physical dimension perm[i].
    logical = [physical[p] for p in perm] if perm else physical
    k.check(logical == c["shape"][1:], f"logical cell shape {logical} (shape {physical}, permutation {perm}), expected {c['shape'][1:]}")
    if physical_names is not None:
        names = [physical_names[p] for p in perm] if perm else physical_names
        k.check(names == c["logical_dim_names"], f"logical names {names}, expected {c['logical_dim_names']}")
    else:
        k.check(c["logical_dim_names"] is None, "no dim_names")
    expected = open(c["expected"], "rb").read()
    shape = c["shape"]
    arrays = [b.column(c["column"]) for b in batches]
    for a in arrays:
        k.check(isinstance(a, pa.FixedShapeTensorArray), f"column is {type(a).__name__}")
    rows = sum(len(a) for a in arrays)
    k.check(rows == shape[0], f"{rows} rows, expected {shape[0]}")
    # The storage values, viewed as the spec says.
    flat = np.concatenate([values_of(a.storage.flatten()) for a in arrays]) if arrays else np.array([])
    k.check(str(flat.dtype) == c["dtype"], f"storage dtype {flat.dtype}")
    view = spec_view(flat, rows, physical, perm)
    k.check(list(view.shape) == shape, f"storage view shape {list(view.shape)}, expected {shape}")
    k.check(np.ascontiguousarray(view).tobytes() == expected, "storage values differ")
    if perm is None or is_involution(perm):
        # pyarrow's own conversion (Arrow C++ ToTensor); see `pins` for other permutations.
        nds = [a.to_numpy_ndarray() for a in arrays]
        nd = np.concatenate(nds) if len(nds) > 1 else nds[0]
        k.check(list(nd.shape) == shape, f"to_numpy_ndarray shape {list(nd.shape)}, expected {shape}")
        k.check(str(nd.dtype) == c["dtype"], f"to_numpy_ndarray dtype {nd.dtype}")
        k.check(np.ascontiguousarray(nd).tobytes() == expected, "to_numpy_ndarray values differ")
    for a in arrays:
        t = a.to_tensor()
        k.check(list(t.shape)[1:] == shape[1:], f"to_tensor shape {t.shape}, expected cells {shape[1:]}")
        names = c["logical_dim_names"]
        k.check(t.dim_names == ([""] + names if names else []),
                f"to_tensor dim_names {t.dim_names}, expected {names}")


def read_variable(c, k):
    schema, batches = open_ipc(c["path"], c["ipc"])
    k.check(len(batches) == c["batches"], f"{len(batches)} batches, expected {c['batches']}")
    field = schema.field(c["column"])
    ty = field.type
    if not k.check(getattr(ty, "extension_name", None) == "arrow.variable_shape_tensor",
                   f"field type {ty} is not arrow.variable_shape_tensor"):
        return
    text = str(ty)
    k.check(f"ndim={c['ndim']}" in text, f"{text}: expected ndim={c['ndim']}")
    if c["dim_names"]:
        want = "dim_names=[" + ",".join(c["dim_names"]) + "]"
        k.check(want in text, f"{text}: expected {want}")
    else:
        k.check("dim_names" not in text, f"{text}: unexpected dim_names")
    k.check("permutation" not in text, f"{text}: unexpected permutation")
    expected = open(c["expected"], "rb").read()
    shapes, data = [], []
    for b in batches:
        arr = b.column(c["column"])
        storage = arr.storage
        k.check(storage.null_count == 0, "null cells")
        d = storage.field("data")
        s = storage.field("shape")
        # (pyarrow gives the type its own storage type, nullable fields, whatever was written.)
        for i in range(len(storage)):
            shape = [int(x) for x in values_of(s[i].values)] if c["ndim"] else []
            vals = values_of(d[i].values)
            k.check(str(vals.dtype) == c["dtype"], f"row {i}: dtype {vals.dtype}")
            k.check(vals.size == int(np.prod(shape, dtype=np.int64)), f"row {i}: {vals.size} values for {shape}")
            shapes.append(shape)
            data.append(vals.tobytes())
    k.check(shapes == c["shapes"], f"shapes {shapes}, expected {c['shapes']}")
    k.check(b"".join(data) == expected, "values differ")


def read_coo(c, k):
    schema, batches = open_ipc(c["path"], c["ipc"])
    k.check(len(batches) == 1, f"{len(batches)} batches")
    table = pa.Table.from_batches(batches, schema=schema)
    k.check(table.column_names == c["columns"], f"columns {table.column_names}, expected {c['columns']}")
    meta = json.loads(schema.metadata[b"arrow_tensor_ipc.sparse_tensor"])
    k.check(meta["shape"] == c["shape"], f"metadata shape {meta['shape']}")
    k.check(meta["format"] == c["format"], f"metadata format {meta['format']}")
    k.check(meta["index_type"] == c["index_type"], f"metadata index_type {meta['index_type']}")
    ndim = len(c["shape"])
    coords = []
    for d in range(ndim):
        f = schema.field(d)
        k.check(str(f.type) == c["index_type"], f"column {f.name}: type {f.type}")
        k.check(not f.nullable, f"column {f.name} is nullable")
        col = values_of(table.column(d).combine_chunks())
        coords.append([int(x) for x in col])
    k.check(coords == c["coords"], "coordinates differ from the COO conversion")
    vals = values_of(table.column("value").combine_chunks())
    k.check(str(vals.dtype) == c["dtype"], f"value dtype {vals.dtype}")
    k.check(vals.tobytes() == open(c["values"], "rb").read(), "values differ")
    # The table, scattered into a dense array, is the tensor.
    dense = np.zeros(c["shape"], dtype=c["dtype"])
    if ndim:
        dense[tuple(np.array(coords, dtype=np.int64).reshape(ndim, -1))] = vals
    elif len(vals):
        dense[()] = vals[0]
    k.check(dense.tobytes() == open(c["dense"], "rb").read(), "the table scattered is not the dense tensor")


def read_all(d):
    cases = json.load(open(os.path.join(d, "manifest.json")))
    failures = []
    for c in cases:
        k = Case(c)
        try:
            {"fixed": read_fixed, "variable": read_variable, "coo": read_coo}[c["kind"]](c, k)
        except Exception as e:  # pyarrow refusing the input is a failure of the case
            k.errors.append(f"{type(e).__name__}: {e}")
        if k.errors:
            failures.append({"name": c["name"], "errors": k.errors})
    return {"checked": len(cases), "failures": failures}


# ---------------------------------------------------------------------------------------
# write: pyarrow writes, we read.

def sample(dtype, n, seed):
    """n values of dtype: a pattern with the type's extremes (and NaN, -0.0, inf, subnormals)."""
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        v = rng.standard_normal(n).astype(dtype) * 100
        specials = np.array([np.nan, -0.0, np.inf, -np.inf, np.finfo(dtype).tiny / 2,
                             np.finfo(dtype).max, 0.0], dtype=dtype)
        m = min(n, len(specials))
        v[:m] = specials[:m]
        return v
    info = np.iinfo(dtype)
    v = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dtype)
    if n >= 2:
        v[0], v[1] = info.min, info.max
    return v


def write_ipc(path, ipc, schema, batches):
    with pa.OSFile(path, "wb") as sink:
        w = pa.ipc.new_stream(sink, schema) if ipc == "stream" else pa.ipc.new_file(sink, schema)
        for b in batches:
            w.write_batch(b)
        w.close()


def write_all(d):
    cases = []
    pins = {}
    seq = [0]

    def emit(kind, name, ipc, schema, batches, **extra):
        seq[0] += 1
        path = os.path.join(d, f"{seq[0]:03}-{name}.{'arrow' if ipc == 'file' else 'stream'}")
        write_ipc(path, ipc, schema, batches)
        case = {"kind": kind, "name": name, "path": path, "ipc": ipc, **extra}
        cases.append(case)
        return case

    def expected_file(name, data):
        p = os.path.join(d, f"{seq[0] + 1:03}-{name}.expected")
        open(p, "wb").write(data)
        return p

    # Fixed shape: (full array shape, transpose of the cell axes or None, dim_names).
    layouts = [
        ([3, 4], None, None),
        ([2, 3, 4], None, ["H", "W"]),
        ([2, 3, 4], [1, 0], None),              # transposed cells
        ([2, 3, 4], [1, 0], ["H", "W"]),
        ([3, 2, 3, 4], [2, 1, 0], ["C", "H", "W"]),  # Fortran-ordered cells
        ([2, 2, 3, 4], [0, 2, 1], None),
        ([2, 2, 3, 4], [1, 2, 0], ["a", "b", "c"]),  # not an involution
        ([2, 2, 3, 4], [2, 0, 1], None),             # not an involution
    ]
    for dtype in DTYPES:
        for li, (full, axes, names) in enumerate(layouts):
            n = int(np.prod(full))
            c_order = sample(dtype, n, li).reshape(full)
            if axes is None:
                x = c_order
            else:
                # A view whose cells are a permutation of a contiguous layout.
                x = c_order.transpose([0] + [a + 1 for a in axes])
            ipc = "stream" if li % 2 == 0 else "file"
            arr = pa.FixedShapeTensorArray.from_numpy_ndarray(x, dim_names=names)
            ty = arr.type
            # Three batches: the rows split 1 / rest / 0 rows (several batches, an empty one).
            parts = [arr[:1], arr[1:], arr[:0]]
            schema = pa.schema([pa.field("tensor", ty), pa.field("id", pa.int32())])
            batches = [pa.record_batch([p, pa.array(np.arange(len(p), dtype=np.int32))], schema=schema) for p in parts]
            perm = list(ty.permutation) if ty.permutation is not None else None
            flat = values_of(arr.storage.flatten())
            view = spec_view(flat, len(arr), list(ty.shape), perm)
            t = arr.to_tensor()
            nd = arr.to_numpy_ndarray()
            numpy_ok = list(nd.shape) == list(view.shape) and np.ascontiguousarray(nd).tobytes() == np.ascontiguousarray(view).tobytes()
            if perm is None or is_involution(perm):
                # pyarrow's own reading is the reference.
                expected = np.ascontiguousarray(nd).tobytes()
                if not numpy_ok:
                    pins.setdefault("involution_mismatch", []).append(f"{dtype} {full} {axes}")
            else:
                expected = np.ascontiguousarray(view).tobytes()
                pins.setdefault("non_involution_to_numpy_differs_from_spec", []).append(not numpy_ok)
                pins.setdefault("non_involution_to_tensor_shape_is_spec", []).append(list(t.shape) == list(view.shape))
                pins.setdefault("non_involution_from_numpy_is_input", []).append(
                    list(view.shape) == list(x.shape) and np.ascontiguousarray(view).tobytes() == np.ascontiguousarray(x).tobytes())
            emit("fixed", f"{dtype}-{'x'.join(map(str, full))}-{li}", ipc, schema, batches,
                 column="tensor", dtype=dtype, shape=list(t.shape), dim_names=t.dim_names,
                 permutation=perm, nullable_item=ty.storage_type.value_field.nullable,
                 rows=[len(p) for p in parts], expected=expected_file("e", expected))

    # Variable shape: pyarrow has no Python constructor; the C++ type is registered, so a
    # stream carrying the extension metadata by hand reads back as the type, and pyarrow's
    # `wrap_array` of that type then writes it the way pyarrow does.
    def variable_type(dtype, ndim, meta):
        item = pa.from_numpy_dtype(np.dtype(dtype))
        storage_type = pa.struct([
            pa.field("data", pa.list_(pa.field("item", item)), nullable=False),
            pa.field("shape", pa.list_(pa.field("item", pa.int32()), ndim), nullable=False),
        ])
        f = pa.field("tensor", storage_type, metadata={
            "ARROW:extension:name": "arrow.variable_shape_tensor",
            "ARROW:extension:metadata": json.dumps(meta)})
        sink = pa.BufferOutputStream()
        w = pa.ipc.new_stream(sink, pa.schema([f]))
        w.close()
        ty = pa.ipc.open_stream(sink.getvalue()).schema.field(0).type
        assert getattr(ty, "extension_name", None) == "arrow.variable_shape_tensor", ty
        # pyarrow's type has its own storage type (nullable fields), whatever the field said.
        return ty, ty.storage_type

    var_layouts = [
        (1, {}, [[3], [0], [5]]),
        (2, {"dim_names": ["H", "W"]}, [[2, 3], [1, 1], [4, 2]]),
        (2, {"permutation": [1, 0]}, [[2, 3], [3, 1]]),
        (3, {"permutation": [2, 0, 1], "dim_names": ["a", "b", "c"]}, [[2, 3, 4], [1, 2, 2]]),
        (3, {"uniform_shape": [2, None, 4]}, [[2, 1, 4], [2, 3, 4], [2, 0, 4]]),
    ]
    for dtype in DTYPES:
        for li, (ndim, meta, shapes) in enumerate(var_layouts):
            ty, storage_type = variable_type(dtype, ndim, meta)
            cells = [sample(dtype, int(np.prod(s)), 10 * li + i) for i, s in enumerate(shapes)]
            data = pa.array(cells, storage_type.field("data").type)
            shape = pa.FixedSizeListArray.from_arrays(pa.array(np.array(shapes, dtype=np.int32).ravel()), ndim)
            storage = pa.StructArray.from_arrays([data, shape], fields=list(storage_type))
            arr = ty.wrap_array(storage)
            schema = pa.schema([pa.field("tensor", ty)])
            half = len(shapes) // 2
            batches = [pa.record_batch([arr[:half]], schema=schema), pa.record_batch([arr[half:]], schema=schema)]
            perm = meta.get("permutation")
            logical = []
            expected = b""
            for s, v in zip(shapes, cells):
                nd = v.reshape(s)
                if perm:
                    nd = nd.transpose(perm)
                logical.append(list(nd.shape))
                expected += np.ascontiguousarray(nd).tobytes()
            names = meta.get("dim_names")
            ipc = "stream" if li % 2 == 0 else "file"
            emit("variable", f"var-{dtype}-{li}", ipc, schema, batches, column="tensor", dtype=dtype,
                 shapes=logical, dim_names=[names[p] for p in perm] if names and perm else names,
                 expected=expected_file("e", expected))

    # Bad inputs: each with the error our reader must give.
    def fixed_storage(dtype, size, values, mask=None):
        return pa.FixedSizeListArray.from_arrays(pa.array(values, pa.from_numpy_dtype(np.dtype(dtype))), size, mask=mask)

    ty = pa.fixed_shape_tensor(pa.int32(), [2, 2])
    st = fixed_storage("int32", 4, np.arange(16, dtype=np.int32), mask=pa.array([False, False, True, False]))
    arr = pa.ExtensionArray.from_storage(ty, st)
    schema = pa.schema([pa.field("images", ty)])
    emit("error", "null-cell", "stream", schema, [pa.record_batch([arr], schema=schema)],
         column="images", error={"kind": "NullCell", "column": "images", "row": 2, "what": "cell"})
    values = pa.array([0, 1, 2, 3, 4, None, 6, 7, 8, 9, 10, 11], pa.int32())
    arr = pa.ExtensionArray.from_storage(ty, pa.FixedSizeListArray.from_arrays(values, 4))
    emit("error", "null-value", "file", schema, [pa.record_batch([arr], schema=schema)],
         column="images", error={"kind": "NullCell", "column": "images", "row": 1, "what": "value in a cell"})

    def hand_field(name, storage_type, ext, meta):
        return pa.field(name, storage_type, metadata={"ARROW:extension:name": ext, "ARROW:extension:metadata": meta})

    for name, meta, storage, reason in [
        ("list-size", '{"shape":[2,2]}', fixed_storage("float32", 6, np.zeros(12, np.float32)), "not the product of the shape"),
        ("not-json", '{"shape":[2,', fixed_storage("float32", 4, np.zeros(8, np.float32)), "not JSON"),
        ("no-shape", '{"dim_names":["a"]}', fixed_storage("float32", 4, np.zeros(8, np.float32)), "without \"shape\""),
        ("null-shape", '{"shape":null}', fixed_storage("float32", 4, np.zeros(8, np.float32)), "without \"shape\""),
        ("names-count", '{"shape":[2,2],"dim_names":["a"]}', fixed_storage("float32", 4, np.zeros(8, np.float32)), "dim_names"),
        ("bad-permutation", '{"shape":[2,2],"permutation":[1,1]}', fixed_storage("float32", 4, np.zeros(8, np.float32)), "ermutation"),
        ("not-a-list", '{"shape":[2]}', pa.array([1, 2], pa.int32()), "fixed_size_list"),
    ]:
        f = hand_field("cells", storage.type, "arrow.fixed_shape_tensor", meta)
        schema = pa.schema([f])
        emit("error", name, "stream", schema, [pa.record_batch([storage], schema=schema)],
             column="cells", error={"kind": "InvalidColumn", "column": "cells", "reason": reason})

    # Variable shape: a null cell, a shape whose element count is not the row's value count.
    vty, vst = variable_type("int16", 2, {})
    data = pa.array([[1, 2], [3, 4, 5, 6], [7]], vst.field("data").type)
    shape = pa.FixedSizeListArray.from_arrays(pa.array([1, 2, 2, 2, 1, 1], pa.int32()), 2)
    storage = pa.StructArray.from_arrays([data, shape], fields=list(vst), mask=pa.array([False, True, False]))
    schema = pa.schema([pa.field("var", vty)])
    emit("error", "var-null-cell", "stream", schema, [pa.record_batch([vty.wrap_array(storage)], schema=schema)],
         column="var", error={"kind": "NullCell", "column": "var", "row": 1, "what": "cell"})
    shape = pa.FixedSizeListArray.from_arrays(pa.array([1, 2, 2, 2, 1, 2], pa.int32()), 2)
    storage = pa.StructArray.from_arrays([data, shape], fields=list(vst))
    emit("error", "var-count", "stream", schema, [pa.record_batch([vty.wrap_array(storage)], schema=schema)],
         column="var", error={"kind": "InvalidColumn", "column": "var", "reason": "row 2: 1 values for shape [1, 2]"})

    # COO tables: coordinates out of range, negative, null; a value that is null.
    def coo_table(cols, values, shape, nulls=False):
        fields = [pa.field(f"dim_{i}", pa.int32(), nullable=nulls) for i in range(len(cols))]
        fields.append(pa.field("value", pa.float64(), nullable=nulls))
        meta = {"arrow_tensor_ipc.sparse_tensor": json.dumps({"shape": shape, "format": "COO", "index_type": "int32"})}
        schema = pa.schema(fields, metadata=meta)
        arrays = [pa.array(c, pa.int32()) for c in cols] + [pa.array(values, pa.float64())]
        return schema, [pa.record_batch(arrays, schema=schema)]

    for name, cols, values, shape, err in [
        ("coo-out-of-range", [[0, 1, 2], [0, 3, 1]], [1.0, 2.0, 3.0], [3, 3],
         {"kind": "CoordinateOutOfBounds", "column": "dim_1", "row": 1, "value": 3, "dim": 1, "size": 3}),
        ("coo-negative", [[0, -1], [0, 0]], [1.0, 2.0], [3, 3],
         {"kind": "CoordinateOutOfBounds", "column": "dim_0", "row": 1, "value": -1, "dim": 0, "size": 3}),
        ("coo-null-coordinate", [[0, None], [0, 1]], [1.0, 2.0], [3, 3],
         {"kind": "NullCell", "column": "dim_0", "row": 1, "what": "coordinate"}),
        ("coo-null-value", [[0, 1], [0, 1]], [1.0, None], [3, 3],
         {"kind": "NullCell", "column": "value", "row": 1, "what": "value"}),
        ("coo-rank", [[0, 1]], [1.0, 2.0], [3, 3],
         {"kind": "CountMismatch", "what": "columns of a COO table of rank 2", "expected": 3, "found": 2}),
    ]:
        schema, batches = coo_table(cols, values, shape, nulls=True)
        emit("error", name, "stream", schema, batches, column=None, error=err)

    json.dump(cases, open(os.path.join(d, "manifest.json"), "w"), indent=1)
    return {"written": len(cases), "pins": pins}


# ---------------------------------------------------------------------------------------
# permutations: pyarrow's reading and writing of every permutation of rank 3 and 4, beside
# the canonical definition (logical dimension i of a cell is physical dimension
# permutation[i], i.e. numpy.transpose(physical, permutation)).

def write_permutations(d):
    import itertools

    rows = 2
    cases = []
    for rank in (3, 4):
        physical = [2, 3, 4, 5][:rank]
        n = int(np.prod(physical))
        flat = np.arange(rows * n, dtype=np.int32)
        for perm in itertools.permutations(range(rank)):
            perm = list(perm)
            ty = pa.fixed_shape_tensor(pa.int32(), physical, permutation=perm)
            arr = pa.ExtensionArray.from_storage(ty, pa.FixedSizeListArray.from_arrays(pa.array(flat), n))
            path = os.path.join(d, "perm-" + "".join(map(str, perm)) + ".stream")
            schema = pa.schema([pa.field("cells", ty)])
            write_ipc(path, "stream", schema, [pa.record_batch([arr], schema=schema)])
            definition = spec_view(flat, rows, physical, perm)
            nd = arr.to_numpy_ndarray()
            t = arr.to_tensor()
            # pyarrow's writer, given the definition's logical array (whose memory is the
            # physical row-major layout), and its reader of what it wrote.
            written = pa.FixedShapeTensorArray.from_numpy_ndarray(definition)
            again = written.to_numpy_ndarray()
            cases.append({
                "path": path,
                "physical": physical,
                "permutation": perm,
                "rows": rows,
                "definition_shape": list(definition.shape),
                "definition_strides": [s // 4 for s in definition.strides],
                "definition": np.ascontiguousarray(definition).ravel().tolist(),
                "to_numpy_shape": list(nd.shape),
                "to_numpy_strides": [s // 4 for s in nd.strides],
                "to_numpy": np.ascontiguousarray(nd).ravel().tolist(),
                "to_tensor_shape": list(t.shape),
                "to_tensor_strides": [s // 4 for s in t.strides],
                "from_numpy_shape": list(written.type.shape),
                "from_numpy_permutation": list(written.type.permutation),
                "from_numpy_storage_is_physical": written.storage.flatten().to_numpy().tolist() == flat.tolist(),
                "round_trip_shape": list(again.shape),
                "round_trip_is_input": list(again.shape) == list(definition.shape)
                and np.ascontiguousarray(again).tobytes() == np.ascontiguousarray(definition).tobytes(),
            })
    json.dump(cases, open(os.path.join(d, "manifest.json"), "w"))
    return {"written": len(cases)}


def main():
    mode, d = sys.argv[1], sys.argv[2]
    out = {"read": read_all, "write": write_all, "permutations": write_permutations}[mode](d)
    out["pyarrow"] = pa.__version__
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
