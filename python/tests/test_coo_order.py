"""COO coordinates stored column-major (``indicesStrides [w, w * nnz]``, as Arrow C++ writes
them when asked and as Arrow 0.15 did): every handoff reads them as the coordinates they
are, and what Python writes is row-major, which Arrow C++'s ``ToTensor`` (blind to the
strides) expands right."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import arrow_tensor_ipc as ati
from conftest import arrow_read, arrow_write, json_equal, json_values

# The example: (0,1) (1,0) (1,3) (2,3) in a 3 x 4 tensor, sorted and shuffled.
COORDS = [[0, 1], [1, 0], [1, 3], [2, 3]]
VALUES = [10, 20, 30, 40]
SHUFFLE = [2, 0, 3, 1]


def expected() -> np.ndarray:
    d = np.zeros((3, 4), dtype=np.int32)
    for (i, j), v in zip(COORDS, VALUES):
        d[i, j] = v
    return d


def spec(order: list[int], canonical: int, index: str) -> str:
    coords = ",".join(str(c) for k in order for c in COORDS[k])
    values = ",".join(str(VALUES[k]) for k in order)
    return (
        f"kind=coo_explicit type=int32 shape=3,4 index={index} canonical={canonical} "
        f"coords_layout=col coords={coords} nzvalues={values}"
    )


@pytest.fixture
def column_major(arrow_helper: Path, tmp_path: Path) -> list[tuple[ati.Message, list[int]]]:
    """Column-major COO messages written by Arrow C++, with the storage order of each."""
    cases = [(list(range(4)), 1, "int32"), (SHUFFLE, 0, "int64"), (SHUFFLE, 0, "uint8")]
    path = tmp_path / "column-major.arrows"
    arrow_write(arrow_helper, [spec(o, c, i) for o, c, i in cases], path)
    messages = ati.read(path)
    assert all(m._m.coords_order == "column" for m in messages)
    return [(m, order) for m, (order, _, _) in zip(messages, cases)]


def test_coords(column_major) -> None:
    for m, order in column_major:
        assert m.coords.tolist() == [COORDS[k] for k in order]


def test_get_and_to_numpy(column_major) -> None:
    for m, _ in column_major:
        assert np.array_equal(m.to_numpy(), expected())
        for (i, j), v in zip(COORDS, VALUES):
            assert m.get((i, j)) == v
        assert m.get((2, 0)) == 0


def test_to_scipy(column_major) -> None:
    for m, _ in column_major:
        assert np.array_equal(m.to_scipy().toarray(), expected())


def test_to_pyarrow(column_major) -> None:
    for m, _ in column_major:
        t = m.to_pyarrow()
        assert isinstance(t, pa.SparseCOOTensor)
        assert np.array_equal(t.to_tensor().to_numpy(), expected())


def test_to_format(column_major) -> None:
    for m, _ in column_major:
        for fmt in ("coo", "csr", "csc", "csf"):
            assert np.array_equal(m.to_format(fmt).to_numpy(), expected()), fmt


def test_dumps_writes_row_major_for_arrow(
    column_major, arrow_helper: Path, tmp_path: Path
) -> None:
    for k, (m, order) in enumerate(column_major):
        data = ati.dumps(m)
        back = ati.loads(data)
        assert back._m.coords_order == "row"
        assert back.coords.tolist() == [COORDS[i] for i in order]
        path = tmp_path / f"ours-{k}.arrows"
        path.write_bytes(data)
        (arrow,) = arrow_read(arrow_helper, path)
        assert arrow["coords"] == [COORDS[i] for i in order]
        assert arrow["dense"] is not None, arrow
        assert json_equal(arrow["dense"], json_values(expected())), arrow
