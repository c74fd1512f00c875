"""Both directions with Arrow C++ 26 (the library inside the pinned pyarrow wheel), through
the interop helper tests/interop/arrow_interop.cc: what Python writes, Arrow C++ reads with
the same contents; what Arrow C++ writes, Python reads with the same contents."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
import scipy.sparse as sp

import arrow_tensor_ipc as ati
from conftest import (
    VALUE_TYPES,
    arrow_read,
    arrow_write,
    json_equal,
    json_values,
    random_dense,
    same_bits,
    same_values,
)

SHAPES = [(), (5,), (3, 4), (0, 3), (2, 3, 2), (2, 1, 3, 2)]


def describe(m: ati.Message) -> dict:
    """A message as the helper describes one (the fields both sides know)."""
    d: dict = {
        "kind": "tensor" if m.format == "dense" else "sparse_tensor",
        "type": str(m.dtype),
        "shape": list(m.shape),
        "dim_names": list(m.dim_names),
    }
    if isinstance(m, ati.Tensor):
        d["values"] = json_values(m.to_numpy())
        return d
    d.update(nnz=m.nnz, format=m.format, values=json_values(m.values), dense=json_values(m.to_numpy()))
    if m.format == "COO":
        d.update(index_type=str(m.coords.dtype), is_canonical=m.is_canonical, coords=m.coords.tolist())
    elif m.format in ("CSR", "CSC"):
        d.update(
            indptr_type=str(m.indptr.dtype),
            indices_type=str(m.indices.dtype),
            indptr=m.indptr.tolist(),
            indices=m.indices.tolist(),
        )
    else:
        d.update(
            axis_order=list(m.axis_order),
            indptr=[x.tolist() for x in m.indptr],
            indices=[x.tolist() for x in m.indices],
            indices_type=str(m.indices[0].dtype),
        )
    return d


def check_same(arrow: dict, ours: dict, case: str, skip: tuple[str, ...] = ()) -> None:
    assert "error" not in arrow, f"{case}: Arrow failed: {arrow['error']}"
    for key, value in ours.items():
        if key in skip:
            continue
        got = arrow.get(key)
        if key in ("values", "dense"):
            assert json_equal(got, value), f"{case}: {key}: arrow {got} vs ours {value}"
        else:
            assert got == value, f"{case}: {key}: arrow {got!r} vs ours {value!r}"


def no_negative_zero(a: np.ndarray) -> np.ndarray:
    # Arrow C++'s dense-to-sparse converters miscount -0.0 (broken indices): keep it out
    # of what Arrow converts.
    return np.where(a == 0, np.zeros((), a.dtype), a)


def spec_value(v: object) -> str:
    if isinstance(v, float):
        if np.isnan(v):
            return "nan"
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v == 0 and np.signbit(v):
            return "-0"
        return repr(v)
    return str(v)


def spec(kind: str, a: np.ndarray, names: list[str] | None, index: str | None = None) -> str:
    s = f"kind={kind} type={a.dtype} shape={','.join(map(str, a.shape))}"
    if names is not None:
        s += " names=" + ",".join(names)
    if index:
        s += f" index={index}"
    return s + " values=" + ",".join(spec_value(v) for v in a.reshape(-1).tolist())


# ---------------------------------------------------------------------------------------
# Python writes, Arrow C++ reads.


@pytest.mark.parametrize("vt", VALUE_TYPES)
def test_arrow_reads_what_python_writes(vt: str, arrow_helper: Path, tmp_path: Path) -> None:
    rng = np.random.default_rng(10)
    objs: list = []
    for i, shape in enumerate(SHAPES):
        a = random_dense(rng, shape, vt)
        names = [f"d{k}" if (i + k) % 2 else "" for k in range(len(shape))] if i % 2 else None
        objs.append(ati.loads(ati.dumps(a, dim_names=names)))
        objs.append(ati.loads(ati.dumps(a, format="coo", dim_names=names)))
        if len(shape) == 2:
            for fmt in ("csr", "csc"):
                objs.append(ati.loads(ati.dumps(a, format=fmt, dim_names=names)))
        if len(shape) >= 2:
            objs.append(ati.loads(ati.dumps(a, format="csf", dim_names=names)))
            order = list(range(len(shape)))[::-1]
            objs.append(ati.loads(ati.dumps(a, format="csf", axis_order=order, index_type="int64")))
    if vt != "float16":
        b = random_dense(rng, (6, 5), vt, specials=False)
        objs += [sp.csr_array(b), sp.csc_matrix(b), sp.coo_array(b)]
    path = tmp_path / "ours.arrows"
    ati.write(path, objs)
    arrow = arrow_read(arrow_helper, path)
    ours = ati.read(path)
    assert len(arrow) == len(ours) == len(objs)
    for i, (x, m) in enumerate(zip(arrow, ours)):
        check_same(x, describe(m), f"{vt} message {i} ({m!r})")
    # pyarrow reads the dense ones too.
    for m in ours:
        if isinstance(m, ati.Tensor):
            t = pa.ipc.read_tensor(pa.py_buffer(ati.dumps(m)))
            assert same_bits(t.to_numpy(), m.to_numpy())
            assert tuple(t.dim_names or [""] * m.ndim) == m.dim_names


def test_arrow_reads_index_types(arrow_helper: Path, tmp_path: Path) -> None:
    a = no_negative_zero(random_dense(np.random.default_rng(11), (4, 5), "float32"))
    objs = []
    for it in ("int8", "int16", "int32", "int64"):
        for fmt in ("coo", "csr", "csc", "csf"):
            objs.append(ati.loads(ati.dumps(a, format=fmt, index_type=it)))
    path = tmp_path / "index.arrows"
    ati.write(path, objs)
    for i, (x, m) in enumerate(zip(arrow_read(arrow_helper, path), objs)):
        check_same(x, describe(m), f"message {i} ({m!r})")


def test_uint64_indices_need_arrow_compatible_false() -> None:
    a = np.eye(3)
    with pytest.raises(ati.ArrowTensorError):
        ati.dumps(a, format="csr", index_type="uint64")
    m = ati.loads(ati.dumps(a, format="csr", index_type="uint64", arrow_compatible=False))
    assert m.indptr.dtype == np.uint64 and same_values(m.to_numpy(), a)


# ---------------------------------------------------------------------------------------
# Arrow C++ writes, Python reads.


@pytest.mark.parametrize("vt", VALUE_TYPES)
def test_python_reads_what_arrow_writes(vt: str, arrow_helper: Path, tmp_path: Path) -> None:
    rng = np.random.default_rng(12)
    specs, expected = [], []
    for i, shape in enumerate(SHAPES):
        a = random_dense(rng, shape, vt)
        names = [f"n{k}" if k % 2 == 0 else "" for k in range(len(shape))] if i % 2 else None
        specs.append(spec("dense", a, names))
        expected.append(("dense", a))
        s = no_negative_zero(a)
        kinds = ["coo"] + (["csr", "csc"] if len(shape) == 2 else []) + (["csf"] if len(shape) >= 2 else [])
        for kind in kinds:
            if kind == "coo" and len(shape) == 0:
                continue  # Arrow C++ cannot convert a rank-0 tensor
            specs.append(spec(kind, s, names, index="int32" if i % 2 else None))
            expected.append((kind.upper(), s))
    path = tmp_path / "arrow.arrows"
    arrow_write(arrow_helper, specs, path)
    arrow = arrow_read(arrow_helper, path)
    for source in (path, path.read_bytes(), open(path, "rb")):
        ours = ati.read(source)
        assert len(ours) == len(specs)
        for line, (fmt, a), m, x in zip(specs, expected, ours, arrow):
            assert m.format == fmt, line
            assert m.shape == a.shape and m.dtype == a.dtype, line
            if fmt == "dense":
                assert same_bits(m.to_numpy(), a), line
            else:
                assert same_values(m.to_numpy(), a), line
            check_same(x, describe(m), line)
        if hasattr(source, "close"):
            source.close()


def test_python_reads_arrow_explicit_layouts(arrow_helper: Path, tmp_path: Path) -> None:
    specs = [
        # non-canonical COO with a duplicate, column-major coordinates
        "kind=coo_explicit type=float64 shape=3,4 index=int64 canonical=0 coords=2,1,0,3,2,1 nzvalues=1,2,4",
        "kind=coo_explicit type=int32 shape=3,4 index=int32 canonical=1 coords_layout=col coords=0,1,1,3,2,0 nzvalues=5,6,7",
        "kind=csr_explicit type=uint16 shape=3,4 index=int16 indptr=0,2,2,3 indices=0,3,1 nzvalues=1,2,3",
        "kind=csc_explicit type=float32 shape=2,3 indptr=0,1,1,2 indices=1,0 nzvalues=-1.5,2.5",
    ]
    path = tmp_path / "explicit.arrows"
    arrow_write(arrow_helper, specs, path)
    coo, col, csr, csc = ati.read(path)
    assert coo.format == "COO" and not coo.is_canonical
    assert coo.get((2, 1)) == 5.0  # duplicates summed
    assert coo.to_numpy()[2, 1] == 5.0 and coo.to_numpy()[0, 3] == 2.0
    assert col.coords.tolist() == [[0, 1], [1, 3], [2, 0]] and col.is_canonical
    assert np.array_equal(csr.to_scipy().toarray(), [[1, 0, 0, 2], [0, 0, 0, 0], [0, 3, 0, 0]])
    assert csr.indptr.dtype == np.int16
    assert np.array_equal(csc.to_numpy(), np.array([[0, 0, 2.5], [-1.5, 0, 0]], dtype=np.float32))
    for x, m in zip(arrow_read(arrow_helper, path), (coo, col, csr, csc)):
        # Arrow's ToTensor keeps one of the duplicates instead of their sum, and ignores
        # the strides of column-major coordinates (the helper does not expand those).
        check_same(x, describe(m), repr(m), skip=("dense",) if m in (coo, col) else ())
