"""Round trips: every layout x value type x index type, ranks 0..5, zero-size dimensions,
dimension names, NaN and -0.0; from numpy, scipy and pyarrow inputs."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
import scipy.sparse as sp

import arrow_tensor_ipc as ati
from conftest import INDEX_TYPES, VALUE_TYPES, needs, random_dense, same_bits, same_values

SHAPES = {
    0: [()],
    1: [(5,), (0,)],
    2: [(3, 4), (0, 3), (4, 1)],
    3: [(2, 3, 4), (2, 0, 3)],
    4: [(2, 3, 1, 2)],
    5: [(2, 1, 2, 3, 2)],
}
RANKS = {"coo": range(6), "csr": [2], "csc": [2], "csf": range(2, 6)}


def names_for(rank: int, seed: int) -> list[str] | None:
    """No names, all named, or some unnamed (""), by seed."""
    if seed % 3 == 0:
        return None
    return [("" if seed % 3 == 2 and d % 2 else f"dim{d}") for d in range(rank)]


def stored_mask(a: np.ndarray) -> np.ndarray:
    """Where a sparse layout stores a value: not equal to zero (NaN is stored, -0.0 not)."""
    return (a != 0) | (np.isnan(a) if a.dtype.kind == "f" else False)


@pytest.mark.parametrize("vt", VALUE_TYPES)
def test_dense_every_rank_and_layout(vt: str) -> None:
    rng = np.random.default_rng(1)
    seed = 0
    for rank, shapes in SHAPES.items():
        for shape in shapes:
            a = random_dense(rng, shape, vt)
            for view in (a, np.asfortranarray(a) if rank else a, a[..., ::2] if rank else a, a.T):
                seed += 1
                names = names_for(rank, seed)
                m = ati.loads(ati.dumps(view, dim_names=names))
                assert isinstance(m, ati.Tensor)
                assert m.format == "dense"
                assert m.shape == view.shape
                assert m.dtype == np.dtype(vt)
                assert m.dim_names == tuple(names or [""] * rank)
                assert same_bits(m.to_numpy(), view)
                assert same_bits(m.values, view)
                assert m.nnz == np.count_nonzero(view)
                # Our own message as input: the same bytes again.
                assert ati.dumps(m) == ati.dumps(view, dim_names=names)


@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "csf"])
@pytest.mark.parametrize("vt", VALUE_TYPES)
def test_sparse_every_index_type_and_rank(layout: str, vt: str) -> None:
    rng = np.random.default_rng(2)
    seed = 0
    for it in INDEX_TYPES:
        for rank in RANKS[layout]:
            for shape in SHAPES[rank]:
                seed += 1
                a = random_dense(rng, shape, vt)
                names = names_for(rank, seed)
                data = ati.dumps(
                    a, format=layout, index_type=it, arrow_compatible=False, dim_names=names
                )
                m = ati.loads(data)
                assert isinstance(m, ati.SparseTensor)
                assert m.format == layout.upper()
                assert m.shape == shape and m.dtype == np.dtype(vt)
                assert m.dim_names == tuple(names or [""] * rank)
                mask = stored_mask(a)
                assert m.nnz == int(mask.sum())
                assert same_values(m.to_numpy(), a)
                assert m.to_numpy().flags.writeable
                if layout == "coo":
                    assert m.coords.dtype == np.dtype(it)
                    assert m.coords.shape == (m.nnz, rank)
                    assert m.is_canonical
                    if rank:
                        assert np.array_equal(m.coords, np.argwhere(mask))
                    assert same_values(m.values, a[mask] if rank else a.reshape(-1)[mask.reshape(-1)])
                elif layout in ("csr", "csc"):
                    assert m.indptr.dtype == np.dtype(it) and m.indices.dtype == np.dtype(it)
                    assert len(m.indptr) == shape[0 if layout == "csr" else 1] + 1
                    assert m.axis_order is None and m.is_canonical is None
                else:
                    assert m.axis_order == tuple(range(rank))
                    assert len(m.indptr) == rank - 1 and len(m.indices) == rank
                    assert all(x.dtype == np.dtype(it) for x in m.indptr + m.indices)
                # Lookups agree with the dense contents.
                for idx in list(np.argwhere(mask)[:3]) + [np.zeros(rank, int)]:
                    if a.size:
                        got = m.get(tuple(idx))
                        want = a[tuple(idx)]
                        assert (np.isnan(got) and np.isnan(want)) if a.dtype.kind == "f" and np.isnan(want) else got == want
                # Our own message as input re-encodes to the same bytes.
                assert ati.dumps(m, arrow_compatible=False) == data


@pytest.mark.parametrize("vt", VALUE_TYPES)
def test_csf_axis_orders_and_conversions(vt: str) -> None:
    rng = np.random.default_rng(3)
    a = random_dense(rng, (3, 2, 4), vt)
    for order in ([2, 0, 1], [1, 2, 0], "ascending_size", "identity"):
        m = ati.loads(ati.dumps(a, format="csf", axis_order=order))
        if isinstance(order, str):
            want = {"ascending_size": (1, 0, 2), "identity": (0, 1, 2)}[order]
        else:
            want = tuple(order)
        assert m.axis_order == want
        assert same_values(m.to_numpy(), a)
        for fmt in ("coo", "csf", "dense"):
            assert same_values(m.to_format(fmt).to_numpy(), a)
    csr = ati.loads(ati.dumps(a[0], format="csr"))
    for fmt in ("coo", "csc", "csf", "csr", "dense"):
        assert same_values(csr.to_format(fmt, index_type="int64").to_numpy(), a[0])


def test_nan_and_negative_zero_are_kept() -> None:
    a = np.array([[np.nan, -0.0, 1.0], [0.0, -np.inf, -0.0]], dtype=np.float64)
    nan = np.frombuffer(np.uint64(0x7FF8_0000_DEAD_BEEF).tobytes(), np.float64)[0]
    a[0, 0] = nan  # a NaN with a payload
    dense = ati.loads(ati.dumps(a))
    assert same_bits(dense.to_numpy(), a)  # -0.0 and the payload survive dense messages
    coo = ati.loads(ati.dumps(a, format="coo"))
    assert coo.nnz == 3  # NaN, 1.0 and -inf are stored; -0.0 is a zero
    assert same_bits(coo.values[:1], a[0, :1])
    assert np.signbit(coo.to_numpy()[0, 1]) == np.False_  # a zero comes back as +0.0


# ---------------------------------------------------------------------------------------
# scipy


SCIPY_TYPES = [t for t in VALUE_TYPES if t != "float16"]  # scipy.sparse has no float16


@pytest.mark.parametrize("kind", ["coo", "csr", "csc"])
@pytest.mark.parametrize("container", ["array", "matrix"])
@pytest.mark.parametrize("vt", SCIPY_TYPES)
def test_from_scipy(kind: str, container: str, vt: str) -> None:
    rng = np.random.default_rng(4)
    make = getattr(sp, f"{kind}_{container}")
    for shape in [(5, 7), (0, 4), (3, 0), (1, 1)]:
        a = random_dense(rng, shape, vt, specials=False)
        m = make(a)
        msg = ati.loads(ati.dumps(m, dim_names=["rows", "cols"]))
        assert msg.format == kind.upper()
        assert msg.dim_names == ("rows", "cols")
        assert msg.nnz == m.nnz
        back = msg.to_scipy()
        assert type(back) is getattr(sp, f"{kind}_array")
        assert back.shape == shape and back.dtype == np.dtype(vt)
        assert same_values(back.toarray(), a)
        assert same_values(msg.to_numpy(), a)


def test_from_scipy_non_canonical() -> None:
    # Duplicates and unsorted coordinates: COO keeps them (non-canonical, summed when read
    # as dense), CSR/CSC are made canonical by scipy on the way.
    row = np.array([2, 0, 2, 1], dtype=np.int32)
    col = np.array([1, 3, 1, 0], dtype=np.int32)
    val = np.array([1.0, 2.0, 4.0, 8.0])
    coo = sp.coo_array((val, (row, col)), shape=(3, 4))
    msg = ati.loads(ati.dumps(coo))
    assert msg.format == "COO" and not msg.is_canonical and msg.nnz == 4
    assert np.array_equal(msg.to_numpy(), coo.toarray())
    assert msg.get((2, 1)) == 5.0  # duplicates summed
    assert np.array_equal(msg.to_scipy().toarray(), coo.toarray())
    assert np.array_equal(msg.to_format("coo").coords, [[0, 3], [1, 0], [2, 1]])
    csr = sp.csr_array((val, (row, col)), shape=(3, 4))
    csr.indices[:] = csr.indices  # keep scipy's layout
    unsorted = sp.csr_array(
        (np.array([1.0, 2.0, 3.0]), np.array([3, 0, 1]), np.array([0, 2, 3, 3])), shape=(3, 4)
    )
    assert not unsorted.has_sorted_indices
    for m in (csr, unsorted, unsorted.tocsc()):
        msg = ati.loads(ati.dumps(m))
        assert np.array_equal(msg.to_numpy(), m.toarray())


@needs("scipy", "1.15")  # scipy's n-D coo_array
def test_scipy_nd_coo() -> None:
    a = random_dense(np.random.default_rng(5), (2, 3, 4), "int32")
    m = sp.coo_array(a)
    msg = ati.loads(ati.dumps(m))
    assert msg.shape == (2, 3, 4) and np.array_equal(msg.to_numpy(), a)
    assert np.array_equal(msg.to_scipy().toarray(), a)


def test_scipy_index_types() -> None:
    a = random_dense(np.random.default_rng(6), (6, 5), "float64", specials=False)
    for it in ("int8", "int16", "int32", "int64"):
        msg = ati.loads(ati.dumps(sp.csr_array(a), index_type=it))
        assert msg.indptr.dtype == np.dtype(it)
        assert np.array_equal(msg.to_scipy().toarray(), a)


# ---------------------------------------------------------------------------------------
# pyarrow


@pytest.mark.parametrize("vt", VALUE_TYPES)
def test_from_pyarrow(vt: str) -> None:
    rng = np.random.default_rng(7)
    a = random_dense(rng, (4, 3), vt)
    names = ["x", "y"]
    tensor = pa.Tensor.from_numpy(a, dim_names=names)
    msg = ati.loads(ati.dumps(tensor))
    assert msg.dim_names == ("x", "y") and same_bits(msg.to_numpy(), a)
    assert msg.to_pyarrow().equals(tensor)
    assert msg.to_pyarrow().dim_names == names
    # Arrow C++'s dense-to-sparse converters miscount -0.0 (they write broken indices,
    # which we refuse): give them no -0.0.
    a = np.where(a == 0, np.zeros((), a.dtype), a)
    for cls in (pa.SparseCOOTensor, pa.SparseCSRMatrix, pa.SparseCSCMatrix, pa.SparseCSFTensor):
        st = cls.from_dense_numpy(a, dim_names=names)
        msg = ati.loads(ati.dumps(st))
        assert msg.dim_names == ("x", "y")
        assert same_values(msg.to_numpy(), a)
        back = msg.to_pyarrow()
        assert type(back) is cls
        assert back.equals(st), cls
        assert list(back.dim_names) == names


def test_pyarrow_csf_axis_order_and_rank() -> None:
    a = random_dense(np.random.default_rng(8), (3, 2, 4, 2), "float32")
    for order in ([0, 1, 2, 3], [3, 1, 0, 2], [1, 0, 2, 3], [2, 3, 1, 0]):
        ours = ati.loads(ati.dumps(a, format="csf", axis_order=order))
        st = ours.to_pyarrow()
        assert isinstance(st, pa.SparseCSFTensor)
        again = ati.loads(ati.dumps(st))
        assert again.axis_order == tuple(order)
        assert same_values(again.to_numpy(), a)
        assert [x.tolist() for x in again.indices] == [x.tolist() for x in ours.indices]
    a = np.where(a == 0, np.zeros((), a.dtype), a)  # no -0.0 for Arrow's converter
    coo = pa.SparseCOOTensor.from_dense_numpy(a)
    assert same_values(ati.loads(ati.dumps(coo)).to_numpy(), a)


def test_pyarrow_buffer_input() -> None:
    a = np.arange(10, dtype=np.int64)
    buf = pa.py_buffer(ati.dumps(a))
    m = ati.loads(buf)
    assert np.array_equal(m.to_numpy(), a)
    assert np.shares_memory(m.to_numpy(), np.frombuffer(buf, np.uint8))
