"""pyarrow's side of tests/parquet.rs.

`parquet_check.py read DIR`: reads every `*.parquet` file of DIR with
`pyarrow.parquet.read_table` and prints, as one JSON object keyed by file name, what pyarrow
sees: the schema metadata, each field's type, extension name and field metadata, and the
values (the cells of a fixed-shape tensor column through `to_numpy_ndarray()`, the storage
of other extension columns and plain columns through `to_pylist()`).

`parquet_check.py write DIR`: writes with `pyarrow.parquet.write_table`
- `fixed.parquet`: a `fixed_shape_tensor` column of float32 cells of shape (3, 4) with
  dimension names, from `from_numpy_ndarray` of `arange(24).reshape(2, 3, 4)`, in two row
  groups;
- `coo.parquet`: a COO table of a 5 x 7 float64 matrix with this crate's schema metadata
  (`arrow_tensor_ipc.sparse_tensor`), int32 coordinate columns `row`, `col`;
and prints the pyarrow version.

`parquet_check.py codecs DIR`: writes the same two tables with every codec pyarrow writes,
as `fixed-CODEC.parquet` and `coo-CODEC.parquet` for CODEC in `CODECS`.

`parquet_check.py flat DIR`: writes a table of required columns of every integer width
(signed and unsigned) and both float widths, 6000 rows of runs, few distinct values and
extremes, as `flat-VARIANT.parquet` for each variant in `FLAT_VARIANTS` (dictionary or
not, PLAIN, DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT, data page v1 and v2, snappy and
uncompressed, small pages and row groups).

`parquet_check.py refuses DIR`: reads every `*.parquet` file of DIR and prints, keyed by
file name, the message of the exception `pyarrow.parquet.read_table` raised, or null when
it read the file.
"""

import json
import pathlib
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def describe(table):
    fields = []
    for field, column in zip(table.schema, table.columns):
        column = column.combine_chunks()
        entry = {
            "name": field.name,
            "type": str(field.type),
            "metadata": {
                k.decode(): v.decode() for k, v in (field.metadata or {}).items()
            },
        }
        if isinstance(field.type, pa.BaseExtensionType):
            entry["extension"] = field.type.extension_name
            if isinstance(field.type, pa.FixedShapeTensorType):
                cells = column.to_numpy_ndarray()
                entry["shape"] = list(cells.shape)
                entry["values"] = cells.reshape(-1).tolist()
                entry["dim_names"] = field.type.dim_names
            else:
                entry["values"] = column.storage.to_pylist()
        else:
            entry["values"] = column.to_pylist()
        fields.append(entry)
    return {
        "rows": table.num_rows,
        "metadata": {
            k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()
        },
        "fields": fields,
    }


def read(directory):
    out = {}
    for path in sorted(directory.glob("*.parquet")):
        out[path.name] = describe(pq.read_table(path))
    return out


CODECS = ["none", "snappy", "gzip", "brotli", "lz4", "zstd"]


def refuses(directory):
    out = {}
    for path in sorted(directory.glob("*.parquet")):
        try:
            pq.read_table(path)
            out[path.name] = None
        except Exception as e:  # noqa: BLE001 (any refusal is the answer)
            out[path.name] = str(e)
    return out


def fixed_table():
    cells = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    tensor_type = pa.fixed_shape_tensor(pa.float32(), (3, 4), dim_names=["y", "x"])
    storage = pa.FixedShapeTensorArray.from_numpy_ndarray(cells).storage
    column = pa.ExtensionArray.from_storage(tensor_type, storage)
    return pa.table({"t": column})


def coo_table():
    rows = np.array([0, 1, 3, 4], dtype=np.int32)
    cols = np.array([2, 0, 6, 5], dtype=np.int32)
    values = np.array([1.5, -2.0, 3.25, 4.0])
    meta = {
        "arrow_tensor_ipc.sparse_tensor": json.dumps(
            {
                "shape": [5, 7],
                "format": "COO",
                "index_type": "int32",
                "dim_names": ["row", "col"],
            }
        )
    }
    schema = pa.schema(
        [
            pa.field("row", pa.int32(), nullable=False),
            pa.field("col", pa.int32(), nullable=False),
            pa.field("value", pa.float64(), nullable=False),
        ],
        metadata=meta,
    )
    return pa.table([rows, cols, values], schema=schema)


def write(directory):
    pq.write_table(fixed_table(), directory / "fixed.parquet", row_group_size=1)
    pq.write_table(coo_table(), directory / "coo.parquet")
    return {}


def codecs(directory):
    for codec in CODECS:
        pq.write_table(
            fixed_table(),
            directory / f"fixed-{codec}.parquet",
            row_group_size=1,
            compression=codec,
        )
        pq.write_table(coo_table(), directory / f"coo-{codec}.parquet", compression=codec)
    return {}


def flat_table():
    rng = np.random.default_rng(5)
    n = 6000
    i = np.arange(n)
    raw = np.where(
        (i // 97) % 3 == 0,
        i // 13,
        np.where((i // 97) % 3 == 1, rng.integers(0, 50, n), rng.integers(-(2**62), 2**62, n)),
    ).astype(np.int64)
    raw[::211] = np.iinfo(np.int64).max
    raw[::307] = np.iinfo(np.int64).min
    columns, fields = [], []
    for name in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
        columns.append(pa.array(raw.astype(np.dtype(name))))
        fields.append(pa.field(name, getattr(pa, name)(), nullable=False))
    columns.append(pa.array((raw % 1000).astype(np.float32) / 8))
    fields.append(pa.field("float32", pa.float32(), nullable=False))
    columns.append(pa.array(raw.astype(np.float64) / 3))
    fields.append(pa.field("float64", pa.float64(), nullable=False))
    return pa.table(columns, schema=pa.schema(fields))


INTEGERS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]

FLAT_VARIANTS = {
    "dictionary-v1-snappy": dict(),
    "dictionary-v2-none": dict(data_page_version="2.0", compression="none"),
    "plain-v1-none": dict(use_dictionary=False, compression="none"),
    "plain-v2-snappy": dict(use_dictionary=False, data_page_version="2.0"),
    "delta-v1-snappy": dict(
        use_dictionary=False,
        column_encoding={**{c: "DELTA_BINARY_PACKED" for c in INTEGERS}, "float32": "PLAIN", "float64": "PLAIN"},
    ),
    "delta-v2-none": dict(
        use_dictionary=False,
        data_page_version="2.0",
        compression="none",
        column_encoding={**{c: "DELTA_BINARY_PACKED" for c in INTEGERS}, "float32": "PLAIN", "float64": "PLAIN"},
    ),
    "split-v1-snappy": dict(use_dictionary=False, use_byte_stream_split=True),
    "split-v2-none": dict(
        use_dictionary=False, use_byte_stream_split=True, data_page_version="2.0", compression="none"
    ),
}


def flat(directory):
    table = flat_table()
    for name, options in FLAT_VARIANTS.items():
        pq.write_table(
            table,
            directory / f"flat-{name}.parquet",
            row_group_size=2500,
            data_page_size=3000,
            **options,
        )
    return {"variants": sorted(FLAT_VARIANTS)}


def main():
    mode, directory = sys.argv[1], pathlib.Path(sys.argv[2])
    modes = {"read": read, "write": write, "codecs": codecs, "refuses": refuses, "flat": flat}
    result = modes[mode](directory)
    result["pyarrow"] = pa.__version__
    print(json.dumps(result))


if __name__ == "__main__":
    main()
