"""numpy / scipy side of the .npy and .npz tests (tests/npy.rs, tests/npz.rs) and of
examples/compare_npz.rs. Run with the venv's python:

    numpy_npz.py write-npy DIR    numpy.save files + DIR/manifest.json of expected values
    numpy_npz.py write-npz DIR    scipy.sparse.save_npz files + DIR/manifest.json
    numpy_npz.py check-npy DIR    numpy.load every file of DIR/manifest.json (written by Rust)
    numpy_npz.py check-npz DIR    scipy.sparse.load_npz likewise
    numpy_npz.py write-bundles DIR  numpy.savez / savez_compressed bundles of named arrays
                                  (plus an object array and a pickle) + DIR/manifest.json
    numpy_npz.py check-bundles DIR  numpy.load every bundle of DIR/manifest.json (written by
                                  Rust): member names, dtypes, shapes and bytes
    numpy_npz.py time-npy FILE REPS / time-npz FILE REPS
                                  best-of-REPS seconds of load and save, as JSON

Expected values are exact: the little-endian row-major bytes of the (dense) array in hex.
Every mode prints one JSON document on stdout.
"""

import io
import json
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

DTYPES = ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8"]
NAMES = {
    "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
    "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
    "f2": "float16", "f4": "float32", "f8": "float64",
}
SHAPES = [(), (5,), (0,), (2, 3), (3, 0), (2, 3, 4), (2, 1, 3, 2), (0, 2, 3, 1)]


def le_hex(a):
    """Little-endian, row-major bytes of an array, in hex."""
    a = np.asarray(a)
    return a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes(order="C").hex()


def values(dt, n, rng):
    if dt.startswith("f"):
        v = rng.standard_normal(n) * 100
        v[: min(n, 3)] = [np.nan, -0.0, np.inf][: min(n, 3)]
        return v.astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)


def write_npy(d):
    rng = np.random.default_rng(7)
    out = []
    for dt in DTYPES:
        for shape in SHAPES:
            n = int(np.prod(shape))
            base = values(dt, n, rng).reshape(shape)
            endians = ["<", ">"] if dt[1] != "1" else ["|"]
            for e in endians:
                for order in ["C", "F"]:
                    a = np.asarray(base, dtype=np.dtype(dt).newbyteorder(e if e != "|" else "="))
                    # (ascontiguousarray would make a 0-d array 1-d)
                    a = np.asfortranarray(a) if order == "F" else np.array(a, order="C")
                    name = f"{dt}_{e.replace('<', 'le').replace('>', 'be').replace('|', 'na')}_{order}_{'x'.join(map(str, shape)) or 'scalar'}.npy"
                    np.save(os.path.join(d, name), a)
                    out.append({
                        "file": name,
                        "dtype": NAMES[dt],
                        "shape": list(a.shape),
                        "fortran": bool(order == "F" and a.ndim > 1 and not a.flags.c_contiguous),
                        "hex": le_hex(a),
                    })
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(out, f)
    return {"files": len(out)}


def write_npz(d):
    rng = np.random.default_rng(11)
    out = []
    cases = []
    # scipy.sparse has no float16: that dtype is written member by member below.
    for dt in DTYPES:
        if dt != "f2":
            cases.append((dt, (5, 7), 9))
    cases += [("f8", (0, 0), 0), ("f8", (4, 6), 0), ("f8", (1, 1), 1), ("i4", (30, 40), 200)]
    for dt, shape, nnz in cases:
        flat = rng.choice(shape[0] * shape[1], size=nnz, replace=False) if nnz else np.array([], dtype=np.int64)
        r, c = np.unravel_index(flat, shape) if nnz else (flat, flat)
        v = values(dt, nnz, rng)
        if dt.startswith("f"):
            v = np.where(v == 0, 1, v).astype(dt)  # keep explicit values non-zero... and NaN
        for fmt in ["csr", "csc", "coo"]:
            for kind in ["matrix", "array"]:
                for idx in ["i4", "i8"]:
                    for compressed in [False, True]:
                        ctor = getattr(sp, f"coo_{kind}")
                        m = ctor((v, (np.asarray(r, dtype=idx), np.asarray(c, dtype=idx))), shape=shape)
                        m = m.asformat(fmt)
                        if fmt in ("csr", "csc"):
                            m.indices = m.indices.astype(idx)
                            m.indptr = m.indptr.astype(idx)
                        else:
                            m.row = m.row.astype(idx)
                            m.col = m.col.astype(idx)
                        name = f"{fmt}_{kind}_{dt}_{idx}_{'z' if compressed else 's'}_{shape[0]}x{shape[1]}_{nnz}.npz"
                        sp.save_npz(os.path.join(d, name), m, compressed=compressed)
                        dense = m.toarray()
                        # (scipy may keep its own index dtype: record what it saved)
                        idx_saved = (m.indices if fmt != "coo" else m.row).dtype.str[1:]
                        out.append({
                            "file": name, "format": fmt, "dtype": NAMES[dt],
                            "index": NAMES[idx_saved], "shape": list(shape), "nnz": int(m.nnz),
                            "hex": le_hex(dense),
                        })
    # float16 values: numpy.savez of the members save_npz would write (scipy cannot hold them).
    m = sp.csr_matrix(np.array([[0, 1.5, 0], [-2.25, 0, 65504]], dtype="f4"))
    name = "csr_matrix_f2_i4_s_2x3_3.npz"
    np.savez(os.path.join(d, name), indices=m.indices, indptr=m.indptr, format=b"csr",
             shape=m.shape, data=m.data.astype("f2"))
    out.append({"file": name, "format": "csr", "dtype": "float16", "index": "int32",
                "shape": [2, 3], "nnz": 3, "hex": le_hex(m.toarray().astype("f2"))})
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(out, f)
    return {"files": len(out)}


def check_npy(d):
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)
    bad = []
    for m in manifest:
        a = np.load(os.path.join(d, m["file"]), allow_pickle=False)
        got = {
            "dtype": str(a.dtype),
            "shape": list(a.shape),
            "fortran": bool(a.ndim > 1 and a.flags.f_contiguous and not a.flags.c_contiguous),
            "hex": le_hex(a),
        }
        want = {k: m[k] for k in got}
        if got != want:
            bad.append({"file": m["file"], "got": got, "want": want})
    return {"checked": len(manifest), "bad": bad}


def check_npz(d):
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)
    bad = []
    for m in manifest:
        a = sp.load_npz(os.path.join(d, m["file"]))
        got = {
            "format": a.format, "dtype": str(a.dtype), "shape": list(a.shape),
            "nnz": int(a.nnz), "hex": le_hex(a.toarray()),
        }
        want = {k: m[k] for k in got}
        if got != want:
            bad.append({"file": m["file"], "got": got, "want": want})
    return {"checked": len(manifest), "bad": bad}


def bundle_arrays(rng):
    """Named arrays of every dtype, 0-d and empty ones, C and Fortran order, big-endian."""
    arrays = {}
    for i, dt in enumerate(DTYPES):
        shape = SHAPES[i % len(SHAPES)]
        a = values(dt, int(np.prod(shape)), rng).reshape(shape)
        arrays[f"a_{NAMES[dt]}"] = a
    arrays["scalar"] = np.float64(2.5) * np.ones(())
    arrays["empty"] = np.zeros((0, 3), dtype="i4")
    arrays["big_endian"] = np.arange(6, dtype=">i4").reshape(2, 3)
    arrays["fortran"] = np.asfortranarray(np.arange(6, dtype="f8").reshape(2, 3))
    return arrays


def describe(arrays):
    return [{"name": k, "dtype": str(np.dtype(v.dtype).newbyteorder("=")), "shape": list(v.shape),
             "hex": le_hex(v)} for k, v in arrays.items()]


def write_bundles(d):
    rng = np.random.default_rng(11)
    arrays = bundle_arrays(rng)
    out = []
    np.savez(os.path.join(d, "plain.npz"), **arrays)
    out.append({"file": "plain.npz", "members": describe(arrays)})
    np.savez_compressed(os.path.join(d, "compressed.npz"), **arrays)
    out.append({"file": "compressed.npz", "members": describe(arrays)})
    # Positional arguments: numpy names them arr_0, arr_1, ... (after the keyword ones).
    pos = [np.arange(4, dtype="i8"), np.ones((2, 2), dtype="f4")]
    named = np.int16(3) * np.ones((), "i2")
    np.savez(os.path.join(d, "positional.npz"), *pos, named=named)
    out.append({"file": "positional.npz",
                "members": describe({"named": named, "arr_0": pos[0], "arr_1": pos[1]})})
    np.savez(os.path.join(d, "empty_bundle.npz"))
    out.append({"file": "empty_bundle.npz", "members": []})
    # Refused: an object array (pickled elements), a pickle member, a bool array.
    np.savez(os.path.join(d, "object.npz"), ok=np.arange(3), obj=np.array([{"a": 1}, None], dtype=object))
    import pickle
    import zipfile
    with zipfile.ZipFile(os.path.join(d, "pickle.npz"), "w") as z:
        z.writestr("ok.npy", _npy_bytes(np.arange(3)))
        z.writestr("evil.npy", pickle.dumps({"a": [1, 2, 3]}, protocol=4))
    np.savez(os.path.join(d, "bool.npz"), flags=np.array([True, False]))
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(out, f)
    return {"files": len(out)}


def _npy_bytes(a):
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


def check_bundles(d):
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)
    bad = []
    for m in manifest:
        with np.load(os.path.join(d, m["file"]), allow_pickle=False) as z:
            got = describe({k: z[k] for k in z.files})
        if got != m["members"]:
            bad.append({"file": m["file"], "got": got, "want": m["members"]})
    return {"checked": len(manifest), "bad": bad}


def best(f, reps):
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return min(ts)


def time_npy(path, reps):
    with open(path, "rb") as f:
        raw = f.read()
    a = np.load(io.BytesIO(raw))

    def save():
        b = io.BytesIO()
        np.save(b, a)
    return {
        "load_s": best(lambda: np.load(io.BytesIO(raw)), reps),
        "save_s": best(save, reps),
    }


def time_npz(path, reps):
    with open(path, "rb") as f:
        raw = f.read()
    m = sp.load_npz(io.BytesIO(raw))
    # Whether the file's members are deflated decides how scipy saves it back.
    import zipfile
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        compressed = any(i.compress_type == zipfile.ZIP_DEFLATED for i in z.infolist())

    def save():
        b = io.BytesIO()
        sp.save_npz(b, m, compressed=compressed)
    return {
        "load_s": best(lambda: sp.load_npz(io.BytesIO(raw)), reps),
        "save_s": best(save, reps),
        "compressed": compressed,
    }


def main():
    mode = sys.argv[1]
    if mode == "write-npy":
        r = write_npy(sys.argv[2])
    elif mode == "write-npz":
        r = write_npz(sys.argv[2])
    elif mode == "check-npy":
        r = check_npy(sys.argv[2])
    elif mode == "check-npz":
        r = check_npz(sys.argv[2])
    elif mode == "write-bundles":
        r = write_bundles(sys.argv[2])
    elif mode == "check-bundles":
        r = check_bundles(sys.argv[2])
    elif mode == "time-npy":
        r = time_npy(sys.argv[2], int(sys.argv[3]))
    elif mode == "time-npz":
        r = time_npz(sys.argv[2], int(sys.argv[3]))
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(r))


if __name__ == "__main__":
    main()
