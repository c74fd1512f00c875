// arrow_interop: a small helper that uses Arrow C++ (as shipped in the pyarrow
// wheel) to write and read Tensor / SparseTensor IPC messages, so that the Rust
// crate can be checked against the reference implementation.
// Build with tests/interop/build.sh PYTHON OUT_BINARY.
//
//   arrow_interop write OUT_FILE            case specs on stdin, one per line
//   arrow_interop read FILE                 one JSON line per message on stdout
//   arrow_interop roundtrip FILE OUT_FILE   read with Arrow, write again with Arrow
//   arrow_interop time-convert KIND SHAPE NNZ REPS [INDEX]
//                                           time Arrow's dense <-> sparse converters
//   arrow_interop time-io FILE REPS         time Arrow's IPC read and write of the
//                                           first message of FILE (JSON on stdout)
//
// write: each non-blank stdin line is whitespace separated key=value tokens
// (no duplicate keys, no keys foreign to the kind) and becomes ONE message
// appended to OUT_FILE (truncated first; no EOS marker). Lists are comma
// separated; an empty value is an empty list.
//   common     kind= type= shape= [names=]
//              type: int8..int64 uint8..uint64 float16 float32 float64
//              shape: "" = rank 0; names: one entry per dim, entries may be
//              empty; must be empty for rank 0; omitted = no dim names
//   dense      values= [layout=row|col|strided]   (rank 0: row or col only)
//   coo csr csc csf   values= [index=int64]        (dense row-major -> Arrow)
//   coo_explicit      coords= nzvalues= [nnz=] [canonical=0|1]
//                     [coords_layout=row|col] [index=int64]
//                     nnz defaults to len(nzvalues); canonical omitted =
//                     Arrow's auto-detection
//   csr_explicit csc_explicit   indptr= indices= nzvalues= [index=int64]
// values/nzvalues are ROW-MAJOR logical values of `type`; integers are
// decimal and must fit the type (out of range is an error, not a wrap);
// floats take anything strtod takes (nan, inf, -inf, -0, 1e-3, ...);
// float32 is rounded once by strtof, float16 via double ->
// arrow::util::Float16::FromDouble (round to nearest even).
//
// read: one JSON object per message; see DescribeBody for the fields. A
// message Arrow refuses gives {"offset":N,"error":"..."}; when its framing
// is still readable the next message is read, otherwise exit 1. Each message
// is decoded in a forked child (ARROW_INTEROP_NO_FORK=1 disables), so an
// Arrow abort is reported as an error line too.

#include <arrow/buffer.h>
#include <arrow/io/file.h>
#include <arrow/io/memory.h>
#include <arrow/ipc/message.h>
#include <arrow/ipc/reader.h>
#include <arrow/ipc/writer.h>
#include <arrow/memory_pool.h>
#include <arrow/result.h>
#include <arrow/sparse_tensor.h>
#include <arrow/status.h>
#include <arrow/tensor.h>
#include <arrow/type.h>
#include <arrow/util/float16.h>

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

// The tensor IPC functions are deprecated in Arrow 26; build.sh also passes
// -Wno-deprecated-declarations, this keeps the file quiet with other flags.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

using arrow::Buffer;
using arrow::DataType;
using arrow::Result;
using arrow::Status;
using arrow::Tensor;

// Limits for what `read` prints.
constexpr int64_t kMaxDenseExpansion = 100000;   // "dense" of sparse tensors
constexpr int64_t kMaxDenseValues = 10000000;    // "values" of dense tensors
constexpr int64_t kMaxValidationSteps = 50000000;

// ---------------------------------------------------------------------------
// Small helpers

std::vector<std::string> SplitOn(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  out.push_back(cur);
  return out;
}

// An empty string is an empty list; otherwise comma separated items (empty
// items are kept, and rejected later by the number parsers).
std::vector<std::string> SplitList(const std::string& s) {
  if (s.empty()) return {};
  return SplitOn(s, ',');
}

bool CheckedMul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

Result<int64_t> ShapeProduct(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return Status::Invalid("negative dimension ", d);
    if (!CheckedMul(n, d, &n)) return Status::Invalid("shape product overflows int64");
  }
  return n;
}

// Calls f(index, linear_position) for every element of `shape` in row-major
// logical order. Rank 0 has exactly one element (empty index).
template <typename F>
void ForEachIndex(const std::vector<int64_t>& shape, F&& f) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d <= 0) return;
    n *= d;
  }
  const int nd = static_cast<int>(shape.size());
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    f(idx, k);
    for (int d = nd - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

int64_t OffsetOf(const std::vector<int64_t>& idx, const std::vector<int64_t>& strides) {
  int64_t off = 0;
  for (size_t i = 0; i < idx.size(); ++i) off += idx[i] * strides[i];
  return off;
}

Result<std::shared_ptr<Buffer>> BufferFromBytes(const std::string& bytes) {
  ARROW_ASSIGN_OR_RAISE(std::unique_ptr<Buffer> buf,
                        arrow::AllocateBuffer(static_cast<int64_t>(bytes.size())));
  if (!bytes.empty()) std::memcpy(buf->mutable_data(), bytes.data(), bytes.size());
  return std::shared_ptr<Buffer>(std::move(buf));
}

Result<std::shared_ptr<Buffer>> ZeroBuffer(int64_t size) {
  ARROW_ASSIGN_OR_RAISE(std::unique_ptr<Buffer> buf, arrow::AllocateBuffer(size));
  if (size > 0) std::memset(buf->mutable_data(), 0, static_cast<size_t>(size));
  return std::shared_ptr<Buffer>(std::move(buf));
}

// ---------------------------------------------------------------------------
// Types

struct TypeName {
  const char* name;
  arrow::Type::type id;
};

const TypeName kTypeNames[] = {
    {"int8", arrow::Type::INT8},         {"int16", arrow::Type::INT16},
    {"int32", arrow::Type::INT32},       {"int64", arrow::Type::INT64},
    {"uint8", arrow::Type::UINT8},       {"uint16", arrow::Type::UINT16},
    {"uint32", arrow::Type::UINT32},     {"uint64", arrow::Type::UINT64},
    {"float16", arrow::Type::HALF_FLOAT}, {"float32", arrow::Type::FLOAT},
    {"float64", arrow::Type::DOUBLE},
};

std::string TypeIdName(const std::shared_ptr<DataType>& type) {
  if (!type) return "null";
  for (const auto& t : kTypeNames) {
    if (t.id == type->id()) return t.name;
  }
  return type->ToString();
}

std::shared_ptr<DataType> TypeFromId(arrow::Type::type id) {
  switch (id) {
    case arrow::Type::INT8: return arrow::int8();
    case arrow::Type::INT16: return arrow::int16();
    case arrow::Type::INT32: return arrow::int32();
    case arrow::Type::INT64: return arrow::int64();
    case arrow::Type::UINT8: return arrow::uint8();
    case arrow::Type::UINT16: return arrow::uint16();
    case arrow::Type::UINT32: return arrow::uint32();
    case arrow::Type::UINT64: return arrow::uint64();
    case arrow::Type::HALF_FLOAT: return arrow::float16();
    case arrow::Type::FLOAT: return arrow::float32();
    case arrow::Type::DOUBLE: return arrow::float64();
    default: return nullptr;
  }
}

Result<std::shared_ptr<DataType>> ParseTypeName(const std::string& name, bool integer_only) {
  for (const auto& t : kTypeNames) {
    if (name == t.name) {
      if (integer_only && !arrow::is_integer(t.id)) {
        return Status::Invalid("'", name, "' is not an integer type");
      }
      return TypeFromId(t.id);
    }
  }
  return Status::Invalid("unknown type '", name, "'");
}

int ByteWidth(const std::shared_ptr<DataType>& type) {
  return type ? type->byte_width() : -1;
}

// ---------------------------------------------------------------------------
// Number parsing (spec values -> native little-endian bytes)

template <typename T>
void AppendRaw(std::string* out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out->append(b, sizeof(T));
}

Status ParseIntegerInto(const std::string& tok, arrow::Type::type id, std::string* out) {
  if (tok.empty()) return Status::Invalid("empty number");
  bool neg = tok[0] == '-';
  int64_t s = 0;
  uint64_t u = 0;
  errno = 0;
  char* end = nullptr;
  if (neg) {
    long long v = std::strtoll(tok.c_str(), &end, 10);
    s = v;
  } else {
    unsigned long long v = std::strtoull(tok.c_str(), &end, 10);
    u = v;
  }
  if (end == tok.c_str() || *end != '\0') {
    return Status::Invalid("not an integer: '", tok, "'");
  }
  if (errno == ERANGE) return Status::Invalid("integer out of range: '", tok, "'");
  auto check_signed = [&](int64_t lo, int64_t hi, int64_t* v) -> Status {
    if (neg) {
      if (s < lo) return Status::Invalid("integer out of range for type: '", tok, "'");
      *v = s;
    } else {
      if (u > static_cast<uint64_t>(hi)) {
        return Status::Invalid("integer out of range for type: '", tok, "'");
      }
      *v = static_cast<int64_t>(u);
    }
    return Status::OK();
  };
  auto check_unsigned = [&](uint64_t hi, uint64_t* v) -> Status {
    if (neg) {
      if (s != 0) return Status::Invalid("negative value for unsigned type: '", tok, "'");
      *v = 0;
    } else {
      if (u > hi) return Status::Invalid("integer out of range for type: '", tok, "'");
      *v = u;
    }
    return Status::OK();
  };
  int64_t sv = 0;
  uint64_t uv = 0;
  switch (id) {
    case arrow::Type::INT8:
      ARROW_RETURN_NOT_OK(check_signed(INT8_MIN, INT8_MAX, &sv));
      AppendRaw<int8_t>(out, static_cast<int8_t>(sv));
      break;
    case arrow::Type::INT16:
      ARROW_RETURN_NOT_OK(check_signed(INT16_MIN, INT16_MAX, &sv));
      AppendRaw<int16_t>(out, static_cast<int16_t>(sv));
      break;
    case arrow::Type::INT32:
      ARROW_RETURN_NOT_OK(check_signed(INT32_MIN, INT32_MAX, &sv));
      AppendRaw<int32_t>(out, static_cast<int32_t>(sv));
      break;
    case arrow::Type::INT64:
      ARROW_RETURN_NOT_OK(check_signed(INT64_MIN, INT64_MAX, &sv));
      AppendRaw<int64_t>(out, sv);
      break;
    case arrow::Type::UINT8:
      ARROW_RETURN_NOT_OK(check_unsigned(UINT8_MAX, &uv));
      AppendRaw<uint8_t>(out, static_cast<uint8_t>(uv));
      break;
    case arrow::Type::UINT16:
      ARROW_RETURN_NOT_OK(check_unsigned(UINT16_MAX, &uv));
      AppendRaw<uint16_t>(out, static_cast<uint16_t>(uv));
      break;
    case arrow::Type::UINT32:
      ARROW_RETURN_NOT_OK(check_unsigned(UINT32_MAX, &uv));
      AppendRaw<uint32_t>(out, static_cast<uint32_t>(uv));
      break;
    case arrow::Type::UINT64:
      ARROW_RETURN_NOT_OK(check_unsigned(UINT64_MAX, &uv));
      AppendRaw<uint64_t>(out, uv);
      break;
    default:
      return Status::Invalid("not an integer type");
  }
  return Status::OK();
}

Status ParseFloatInto(const std::string& tok, arrow::Type::type id, std::string* out) {
  if (tok.empty()) return Status::Invalid("empty number");
  char* end = nullptr;
  if (id == arrow::Type::FLOAT) {
    // strtof rounds the decimal string directly to binary32 (single rounding).
    float f = std::strtof(tok.c_str(), &end);
    if (end == tok.c_str() || *end != '\0') {
      return Status::Invalid("not a number: '", tok, "'");
    }
    AppendRaw<float>(out, f);
    return Status::OK();
  }
  double d = std::strtod(tok.c_str(), &end);
  if (end == tok.c_str() || *end != '\0') {
    return Status::Invalid("not a number: '", tok, "'");
  }
  if (id == arrow::Type::DOUBLE) {
    AppendRaw<double>(out, d);
  } else if (id == arrow::Type::HALF_FLOAT) {
    // double -> binary16 with round-to-nearest-even (Arrow's conversion).
    AppendRaw<uint16_t>(out, arrow::util::Float16::FromDouble(d).bits());
  } else {
    return Status::Invalid("not a floating point type");
  }
  return Status::OK();
}

Status ParseNumberInto(const std::string& tok, const std::shared_ptr<DataType>& type,
                       std::string* out) {
  const auto id = type->id();
  if (arrow::is_integer(id)) return ParseIntegerInto(tok, id, out);
  return ParseFloatInto(tok, id, out);
}

// Parses a comma separated list into packed native bytes; *count = items.
Status ParseNumberList(const std::string& what, const std::string& text,
                       const std::shared_ptr<DataType>& type, std::string* bytes,
                       int64_t* count) {
  bytes->clear();
  auto items = SplitList(text);
  for (size_t i = 0; i < items.size(); ++i) {
    Status st = ParseNumberInto(items[i], type, bytes);
    if (!st.ok()) {
      return Status::Invalid(what, "[", i, "]: ", st.message());
    }
  }
  *count = static_cast<int64_t>(items.size());
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Write mode

struct Spec {
  std::map<std::string, std::string> kv;

  bool Has(const std::string& k) const { return kv.count(k) != 0; }
  std::string Get(const std::string& k, const std::string& dflt = "") const {
    auto it = kv.find(k);
    return it == kv.end() ? dflt : it->second;
  }
};

Result<Spec> ParseSpecLine(const std::string& line) {
  Spec spec;
  std::istringstream in(line);
  std::string tok;
  while (in >> tok) {
    auto eq = tok.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::Invalid("token '", tok, "' is not key=value");
    }
    std::string key = tok.substr(0, eq);
    std::string value = tok.substr(eq + 1);
    if (spec.kv.count(key)) return Status::Invalid("duplicate key '", key, "'");
    spec.kv[key] = value;
  }
  return spec;
}

Status CheckKeys(const Spec& spec, const std::string& kind,
                 const std::set<std::string>& allowed) {
  static const std::set<std::string> common = {"kind", "type", "shape", "names"};
  for (const auto& kv : spec.kv) {
    if (!common.count(kv.first) && !allowed.count(kv.first)) {
      return Status::Invalid("key '", kv.first, "' is not valid for kind=", kind);
    }
  }
  return Status::OK();
}

Result<std::vector<int64_t>> ParseShape(const std::string& text) {
  std::vector<int64_t> shape;
  for (const auto& item : SplitList(text)) {
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || end == item.c_str() || *end != '\0' || errno == ERANGE || v < 0) {
      return Status::Invalid("bad shape entry '", item, "'");
    }
    shape.push_back(v);
  }
  return shape;
}

Result<std::vector<std::string>> ParseNames(const Spec& spec, size_t ndim) {
  if (!spec.Has("names")) return std::vector<std::string>{};
  const std::string text = spec.Get("names");
  if (ndim == 0) {
    if (!text.empty()) return Status::Invalid("names= must be empty for rank 0");
    return std::vector<std::string>{};
  }
  auto names = SplitOn(text, ',');
  if (names.size() != ndim) {
    return Status::Invalid("names has ", names.size(), " entries, shape has ", ndim);
  }
  return names;
}

Result<std::shared_ptr<DataType>> IndexTypeOf(const Spec& spec) {
  return ParseTypeName(spec.Get("index", "int64"), /*integer_only=*/true);
}

// Row-major dense tensor from spec values.
Result<std::shared_ptr<Tensor>> MakeRowMajorTensor(const std::shared_ptr<DataType>& type,
                                                   const std::vector<int64_t>& shape,
                                                   const std::vector<std::string>& names,
                                                   const std::string& row_bytes) {
  ARROW_ASSIGN_OR_RAISE(auto buf, BufferFromBytes(row_bytes));
  return Tensor::Make(type, buf, shape, {}, names);
}

Result<std::shared_ptr<Tensor>> BuildDense(const Spec& spec,
                                           const std::shared_ptr<DataType>& type,
                                           const std::vector<int64_t>& shape,
                                           const std::vector<std::string>& names,
                                           bool allow_layout) {
  ARROW_ASSIGN_OR_RAISE(int64_t n, ShapeProduct(shape));
  std::string bytes;
  int64_t count = 0;
  ARROW_RETURN_NOT_OK(ParseNumberList("values", spec.Get("values"), type, &bytes, &count));
  if (count != n) {
    return Status::Invalid("values has ", count, " entries, product(shape) is ", n);
  }
  const std::string layout = allow_layout ? spec.Get("layout", "row") : "row";
  const int w = ByteWidth(type);
  const auto& fw = static_cast<const arrow::FixedWidthType&>(*type);

  if (layout == "row") {
    return MakeRowMajorTensor(type, shape, names, bytes);
  }
  if (layout == "col") {
    std::vector<int64_t> strides;
    ARROW_RETURN_NOT_OK(arrow::internal::ComputeColumnMajorStrides(fw, shape, &strides));
    int64_t nbytes = 0;
    if (!CheckedMul(n, w, &nbytes)) return Status::Invalid("tensor too large");
    ARROW_ASSIGN_OR_RAISE(auto buf, ZeroBuffer(nbytes));
    uint8_t* dst = buf->mutable_data();
    ForEachIndex(shape, [&](const std::vector<int64_t>& idx, int64_t k) {
      std::memcpy(dst + OffsetOf(idx, strides), bytes.data() + k * w, w);
    });
    return Tensor::Make(type, buf, shape, strides, names);
  }
  if (layout == "strided") {
    if (shape.empty()) return Status::Invalid("layout=strided needs rank >= 1");
    std::vector<int64_t> big = shape;
    if (!CheckedMul(big.back(), 2, &big.back())) return Status::Invalid("shape too large");
    ARROW_ASSIGN_OR_RAISE(int64_t big_n, ShapeProduct(big));
    int64_t nbytes = 0;
    if (!CheckedMul(big_n, w, &nbytes)) return Status::Invalid("tensor too large");
    std::vector<int64_t> strides;
    ARROW_RETURN_NOT_OK(arrow::internal::ComputeRowMajorStrides(fw, big, &strides));
    strides.back() = 2 * static_cast<int64_t>(w);
    ARROW_ASSIGN_OR_RAISE(auto buf, ZeroBuffer(nbytes));
    uint8_t* dst = buf->mutable_data();
    ForEachIndex(shape, [&](const std::vector<int64_t>& idx, int64_t k) {
      std::memcpy(dst + OffsetOf(idx, strides), bytes.data() + k * w, w);
    });
    return Tensor::Make(type, buf, shape, strides, names);
  }
  return Status::Invalid("unknown layout '", layout, "'");
}

Status WriteOneTensor(const Tensor& t, arrow::io::OutputStream* out) {
  int32_t metadata_length = 0;
  int64_t body_length = 0;
  return arrow::ipc::WriteTensor(t, out, &metadata_length, &body_length);
}

Status WriteOneSparse(const arrow::SparseTensor& t, arrow::io::OutputStream* out) {
  int32_t metadata_length = 0;
  int64_t body_length = 0;
  return arrow::ipc::WriteSparseTensor(t, out, &metadata_length, &body_length);
}

Status BuildCooExplicit(const Spec& spec, const std::shared_ptr<DataType>& type,
                        const std::vector<int64_t>& shape,
                        const std::vector<std::string>& names,
                        arrow::io::OutputStream* out) {
  ARROW_ASSIGN_OR_RAISE(auto index_type, IndexTypeOf(spec));
  const int64_t ndim = static_cast<int64_t>(shape.size());

  std::string values;
  int64_t nvalues = 0;
  ARROW_RETURN_NOT_OK(
      ParseNumberList("nzvalues", spec.Get("nzvalues"), type, &values, &nvalues));
  int64_t nnz = nvalues;
  if (spec.Has("nnz")) {
    const std::string t = spec.Get("nnz");
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(t.c_str(), &end, 10);
    if (t.empty() || *end != '\0' || errno == ERANGE || v < 0) {
      return Status::Invalid("bad nnz '", t, "'");
    }
    nnz = v;
  }
  if (nvalues != nnz) {
    return Status::Invalid("nzvalues has ", nvalues, " entries, nnz is ", nnz);
  }

  std::string coords;
  int64_t ncoords = 0;
  ARROW_RETURN_NOT_OK(
      ParseNumberList("coords", spec.Get("coords"), index_type, &coords, &ncoords));
  int64_t expected = 0;
  if (!CheckedMul(nnz, ndim, &expected) || ncoords != expected) {
    return Status::Invalid("coords has ", ncoords, " entries, nnz*ndim is ", nnz, "*",
                           ndim);
  }

  const std::vector<int64_t> coords_shape = {nnz, ndim};
  const auto& index_fw = static_cast<const arrow::FixedWidthType&>(*index_type);
  const int iw = index_fw.byte_width();
  const std::string layout = spec.Get("coords_layout", "row");
  std::vector<int64_t> strides;
  if (layout == "row") {
    ARROW_RETURN_NOT_OK(
        arrow::internal::ComputeRowMajorStrides(index_fw, coords_shape, &strides));
  } else if (layout == "col") {
    ARROW_RETURN_NOT_OK(
        arrow::internal::ComputeColumnMajorStrides(index_fw, coords_shape, &strides));
  } else {
    return Status::Invalid("unknown coords_layout '", layout, "'");
  }
  ARROW_ASSIGN_OR_RAISE(auto coords_buf, ZeroBuffer(static_cast<int64_t>(coords.size())));
  uint8_t* dst = coords_buf->mutable_data();
  ForEachIndex(coords_shape, [&](const std::vector<int64_t>& idx, int64_t k) {
    std::memcpy(dst + OffsetOf(idx, strides), coords.data() + k * iw, iw);
  });
  ARROW_ASSIGN_OR_RAISE(auto coords_tensor,
                        Tensor::Make(index_type, coords_buf, coords_shape, strides));

  std::shared_ptr<arrow::SparseCOOIndex> index;
  if (spec.Has("canonical")) {
    const std::string c = spec.Get("canonical");
    if (c != "0" && c != "1") return Status::Invalid("canonical must be 0 or 1");
    ARROW_ASSIGN_OR_RAISE(index, arrow::SparseCOOIndex::Make(coords_tensor, c == "1"));
  } else {
    ARROW_ASSIGN_OR_RAISE(index, arrow::SparseCOOIndex::Make(coords_tensor));
  }
  ARROW_ASSIGN_OR_RAISE(auto data, BufferFromBytes(values));
  ARROW_ASSIGN_OR_RAISE(auto st,
                        arrow::SparseCOOTensor::Make(index, type, data, shape, names));
  return WriteOneSparse(*st, out);
}

template <typename IndexClass, typename MatrixClass>
Status BuildCsxExplicit(const Spec& spec, const std::shared_ptr<DataType>& type,
                        const std::vector<int64_t>& shape,
                        const std::vector<std::string>& names,
                        arrow::io::OutputStream* out) {
  ARROW_ASSIGN_OR_RAISE(auto index_type, IndexTypeOf(spec));
  std::string indptr, indices, values;
  int64_t n_indptr = 0, n_indices = 0, n_values = 0;
  ARROW_RETURN_NOT_OK(
      ParseNumberList("indptr", spec.Get("indptr"), index_type, &indptr, &n_indptr));
  ARROW_RETURN_NOT_OK(
      ParseNumberList("indices", spec.Get("indices"), index_type, &indices, &n_indices));
  ARROW_RETURN_NOT_OK(
      ParseNumberList("nzvalues", spec.Get("nzvalues"), type, &values, &n_values));
  if (n_values != n_indices) {
    return Status::Invalid("nzvalues has ", n_values, " entries, indices has ",
                           n_indices);
  }
  ARROW_ASSIGN_OR_RAISE(auto indptr_buf, BufferFromBytes(indptr));
  ARROW_ASSIGN_OR_RAISE(auto indices_buf, BufferFromBytes(indices));
  ARROW_ASSIGN_OR_RAISE(auto data, BufferFromBytes(values));
  // Explicit vectors: a braced {n} would select the (shape, non_zero_length)
  // overload of Make instead of (indptr_shape, indices_shape).
  const std::vector<int64_t> indptr_shape = {n_indptr};
  const std::vector<int64_t> indices_shape = {n_indices};
  ARROW_ASSIGN_OR_RAISE(auto index,
                        IndexClass::Make(index_type, index_type, indptr_shape,
                                         indices_shape, indptr_buf, indices_buf));
  ARROW_ASSIGN_OR_RAISE(auto st, MatrixClass::Make(index, type, data, shape, names));
  return WriteOneSparse(*st, out);
}

Status WriteCase(const Spec& spec, arrow::io::OutputStream* out) {
  if (!spec.Has("kind")) return Status::Invalid("missing kind=");
  if (!spec.Has("type")) return Status::Invalid("missing type=");
  if (!spec.Has("shape")) return Status::Invalid("missing shape=");
  const std::string kind = spec.Get("kind");
  ARROW_ASSIGN_OR_RAISE(auto type, ParseTypeName(spec.Get("type"), false));
  ARROW_ASSIGN_OR_RAISE(auto shape, ParseShape(spec.Get("shape")));
  ARROW_ASSIGN_OR_RAISE(auto names, ParseNames(spec, shape.size()));

  if (kind == "dense") {
    ARROW_RETURN_NOT_OK(CheckKeys(spec, kind, {"values", "layout"}));
    ARROW_ASSIGN_OR_RAISE(auto t, BuildDense(spec, type, shape, names, true));
    return WriteOneTensor(*t, out);
  }
  if (kind == "coo" || kind == "csr" || kind == "csc" || kind == "csf") {
    ARROW_RETURN_NOT_OK(CheckKeys(spec, kind, {"values", "index"}));
    ARROW_ASSIGN_OR_RAISE(auto index_type, IndexTypeOf(spec));
    ARROW_ASSIGN_OR_RAISE(auto t, BuildDense(spec, type, shape, names, false));
    if (kind == "coo") {
      ARROW_ASSIGN_OR_RAISE(auto st, arrow::SparseCOOTensor::Make(*t, index_type));
      return WriteOneSparse(*st, out);
    }
    if (kind == "csr") {
      ARROW_ASSIGN_OR_RAISE(auto st, arrow::SparseCSRMatrix::Make(*t, index_type));
      return WriteOneSparse(*st, out);
    }
    if (kind == "csc") {
      ARROW_ASSIGN_OR_RAISE(auto st, arrow::SparseCSCMatrix::Make(*t, index_type));
      return WriteOneSparse(*st, out);
    }
    ARROW_ASSIGN_OR_RAISE(auto st, arrow::SparseCSFTensor::Make(*t, index_type));
    return WriteOneSparse(*st, out);
  }
  if (kind == "coo_explicit") {
    ARROW_RETURN_NOT_OK(CheckKeys(
        spec, kind, {"nnz", "coords", "nzvalues", "canonical", "coords_layout", "index"}));
    return BuildCooExplicit(spec, type, shape, names, out);
  }
  if (kind == "csr_explicit") {
    ARROW_RETURN_NOT_OK(CheckKeys(spec, kind, {"indptr", "indices", "nzvalues", "index"}));
    return BuildCsxExplicit<arrow::SparseCSRIndex, arrow::SparseCSRMatrix>(spec, type,
                                                                           shape, names,
                                                                           out);
  }
  if (kind == "csc_explicit") {
    ARROW_RETURN_NOT_OK(CheckKeys(spec, kind, {"indptr", "indices", "nzvalues", "index"}));
    return BuildCsxExplicit<arrow::SparseCSCIndex, arrow::SparseCSCMatrix>(spec, type,
                                                                           shape, names,
                                                                           out);
  }
  return Status::Invalid("unknown kind '", kind, "'");
}

int RunWrite(const std::string& path) {
  auto maybe_out = arrow::io::FileOutputStream::Open(path, /*append=*/false);
  if (!maybe_out.ok()) {
    std::cerr << "arrow_interop: cannot open " << path << ": "
              << maybe_out.status().ToString() << "\n";
    return 1;
  }
  auto out = *maybe_out;
  std::string line;
  int64_t lineno = 0;
  while (std::getline(std::cin, line)) {
    ++lineno;
    if (line.find_first_not_of(" \t\r\n\v\f") == std::string::npos) continue;
    Status st;
    auto spec = ParseSpecLine(line);
    if (!spec.ok()) {
      st = spec.status();
    } else {
      st = WriteCase(*spec, out.get());
    }
    if (!st.ok()) {
      std::cerr << "arrow_interop: line " << lineno << ": " << st.ToString() << "\n";
      (void)out->Close();
      return 1;
    }
  }
  Status st = out->Close();
  if (!st.ok()) {
    std::cerr << "arrow_interop: closing " << path << ": " << st.ToString() << "\n";
    return 1;
  }
  return 0;
}

// ---------------------------------------------------------------------------
// JSON writer

class Json {
 public:
  std::string& str() { return s_; }

  void Key(const char* k) {
    Sep();
    String(k);
    s_.push_back(':');
    pending_value_ = true;
  }

  void BeginObject() { Sep(); s_.push_back('{'); first_.push_back(true); }
  void EndObject() { s_.push_back('}'); first_.pop_back(); }
  void BeginArray() { Sep(); s_.push_back('['); first_.push_back(true); }
  void EndArray() { s_.push_back(']'); first_.pop_back(); }

  void Int(int64_t v) { Sep(); s_ += std::to_string(v); }
  void UInt(uint64_t v) { Sep(); s_ += std::to_string(v); }
  void Bool(bool v) { Sep(); s_ += v ? "true" : "false"; }
  void Null() { Sep(); s_ += "null"; }

  void Double(double d) {
    Sep();
    if (std::isnan(d)) {
      s_ += "\"NaN\"";
    } else if (std::isinf(d)) {
      s_ += d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    } else {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.17g", d);
      s_ += buf;
    }
  }

  void Str(const std::string& v) {
    Sep();
    String(v);
  }

 private:
  void Sep() {
    if (pending_value_) {
      pending_value_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) s_.push_back(',');
      first_.back() = false;
    }
  }

  // Escapes a byte string. Valid UTF-8 passes through; invalid bytes are
  // written as \u00XX (i.e. interpreted as Latin-1) so the output stays valid.
  void String(const std::string& v) {
    s_.push_back('"');
    const auto* p = reinterpret_cast<const unsigned char*>(v.data());
    const size_t n = v.size();
    size_t i = 0;
    char buf[8];
    while (i < n) {
      unsigned char c = p[i];
      if (c == '"') { s_ += "\\\""; ++i; continue; }
      if (c == '\\') { s_ += "\\\\"; ++i; continue; }
      if (c < 0x20) {
        switch (c) {
          case '\n': s_ += "\\n"; break;
          case '\r': s_ += "\\r"; break;
          case '\t': s_ += "\\t"; break;
          case '\b': s_ += "\\b"; break;
          case '\f': s_ += "\\f"; break;
          default:
            std::snprintf(buf, sizeof(buf), "\\u%04x", c);
            s_ += buf;
        }
        ++i;
        continue;
      }
      if (c < 0x80) { s_.push_back(static_cast<char>(c)); ++i; continue; }
      size_t len = Utf8SeqLen(p + i, n - i);
      if (len == 0) {
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        s_ += buf;
        ++i;
      } else {
        s_.append(reinterpret_cast<const char*>(p + i), len);
        i += len;
      }
    }
    s_.push_back('"');
  }

  // Length of a valid UTF-8 sequence starting at p, or 0 if invalid.
  static size_t Utf8SeqLen(const unsigned char* p, size_t avail) {
    unsigned char c = p[0];
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
    else return 0;
    if (avail < len) return 0;
    for (size_t k = 1; k < len; ++k) {
      if ((p[k] & 0xC0) != 0x80) return 0;
      cp = (cp << 6) | (p[k] & 0x3F);
    }
    if (len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return 0;
    if (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) return 0;
    return len;
  }

  std::string s_;
  std::vector<bool> first_;
  bool pending_value_ = false;
};

// Appends one element of a numeric type read from p (unaligned-safe).
void ElementJson(Json* j, arrow::Type::type id, const uint8_t* p) {
  switch (id) {
    case arrow::Type::INT8: { int8_t v; std::memcpy(&v, p, 1); j->Int(v); break; }
    case arrow::Type::INT16: { int16_t v; std::memcpy(&v, p, 2); j->Int(v); break; }
    case arrow::Type::INT32: { int32_t v; std::memcpy(&v, p, 4); j->Int(v); break; }
    case arrow::Type::INT64: { int64_t v; std::memcpy(&v, p, 8); j->Int(v); break; }
    case arrow::Type::UINT8: { uint8_t v; std::memcpy(&v, p, 1); j->UInt(v); break; }
    case arrow::Type::UINT16: { uint16_t v; std::memcpy(&v, p, 2); j->UInt(v); break; }
    case arrow::Type::UINT32: { uint32_t v; std::memcpy(&v, p, 4); j->UInt(v); break; }
    case arrow::Type::UINT64: { uint64_t v; std::memcpy(&v, p, 8); j->UInt(v); break; }
    case arrow::Type::HALF_FLOAT: {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      j->Double(arrow::util::Float16::FromBits(bits).ToDouble());
      break;
    }
    case arrow::Type::FLOAT: { float v; std::memcpy(&v, p, 4); j->Double(v); break; }
    case arrow::Type::DOUBLE: { double v; std::memcpy(&v, p, 8); j->Double(v); break; }
    default: j->Null(); break;
  }
}

// Bytes readable from the start of `buf`. Normally buf->size(); with a
// message body given and `buf` pointing into it, up to the end of the body.
// (Arrow's reader takes a CSF index Buffer.length as an element count, so the
// Buffer objects it builds for CSF indices are shorter than the tensors they
// back; the elements are still inside the body.)
int64_t ReadableBytes(const std::shared_ptr<Buffer>& buf, const Buffer* body) {
  if (!buf) return 0;
  int64_t size = buf->size();
  if (body && body->data() && buf->data() && buf->data() >= body->data() &&
      buf->data() <= body->data() + body->size()) {
    const int64_t to_end = (body->data() + body->size()) - buf->data();
    if (to_end > size) size = to_end;
  }
  return size;
}

// Checks that every element of the tensor lies within its data buffer (or,
// with `body`, within the message body, see ReadableBytes).
Status CheckTensorExtent(const Tensor& t, const char* what, const Buffer* body = nullptr) {
  if (!t.type() || TypeFromId(t.type()->id()) == nullptr) {
    return Status::Invalid(what, ": unsupported type");
  }
  const auto& shape = t.shape();
  const auto& strides = t.strides();
  if (strides.size() != shape.size()) {
    return Status::Invalid(what, ": strides/shape length mismatch");
  }
  for (int64_t d : shape) {
    if (d < 0) return Status::Invalid(what, ": negative dimension");
    if (d == 0) return Status::OK();  // no elements
  }
  __int128 lo = 0, hi = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    __int128 span = static_cast<__int128>(shape[i] - 1) * strides[i];
    if (span < 0) lo += span; else hi += span;
  }
  const int64_t size = ReadableBytes(t.data(), body);
  if (lo < 0 || hi + t.type()->byte_width() > size || (size > 0 && !t.raw_data())) {
    return Status::Invalid(what, ": elements lie outside the data buffer (",
                           size, " bytes)");
  }
  return Status::OK();
}

// Writes the elements of a tensor in row-major logical order, through strides.
void TensorValuesJson(Json* j, const Tensor& t) {
  const auto id = t.type()->id();
  const uint8_t* base = t.raw_data();
  j->BeginArray();
  ForEachIndex(t.shape(), [&](const std::vector<int64_t>& idx, int64_t) {
    ElementJson(j, id, base + OffsetOf(idx, t.strides()));
  });
  j->EndArray();
}

void IntVectorJson(Json* j, const std::vector<int64_t>& v) {
  j->BeginArray();
  for (int64_t x : v) j->Int(x);
  j->EndArray();
}

void DimNamesJson(Json* j, const std::vector<std::string>& names, size_t ndim) {
  j->BeginArray();
  for (size_t i = 0; i < ndim; ++i) j->Str(i < names.size() ? names[i] : std::string());
  j->EndArray();
}

std::string VersionName(arrow::ipc::MetadataVersion v) {
  return "V" + std::to_string(static_cast<int>(v) + 1);
}

std::string ErrorLine(int64_t offset, const std::string& message) {
  Json j;
  j.BeginObject();
  j.Key("offset");
  j.Int(offset);
  j.Key("error");
  j.Str(message);
  j.EndObject();
  return j.str();
}

// Index values as Arrow's sparse->dense converters read them: 1-4 byte
// integers unsigned, 8 byte integers as int64.
int64_t ArrowIndexValue(const uint8_t* p, int w) {
  switch (w) {
    case 1: return p[0];
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case 8: { int64_t v; std::memcpy(&v, p, 8); return v; }
    default: return 0;
  }
}

// Raw, contiguous view of an index tensor the way ToTensor reads it.
struct RawIndex {
  const uint8_t* data = nullptr;
  int w = 0;
  int64_t count = 0;  // elements readable from the buffer
  int64_t Get(int64_t i) const { return ArrowIndexValue(data + i * w, w); }
};

Result<RawIndex> RawOf(const Tensor& t, int64_t needed, const char* what,
                       const Buffer* body = nullptr) {
  RawIndex r;
  r.w = t.type()->byte_width();
  if (r.w != 1 && r.w != 2 && r.w != 4 && r.w != 8) {
    return Status::Invalid(what, ": bad index width");
  }
  r.data = t.raw_data();
  const int64_t size = ReadableBytes(t.data(), body);
  r.count = size / r.w;
  if (needed > r.count) {
    return Status::Invalid(what, ": buffer holds ", r.count, " elements, needs ", needed);
  }
  return r;
}

// Checks that Arrow's ToTensor only touches memory inside the buffers for
// this sparse tensor (Arrow itself does not check index contents).
Status ValidateForToTensor(const arrow::SparseTensor& st, const Buffer* body) {
  const auto& shape = st.shape();
  const int ndim = static_cast<int>(shape.size());
  const int vw = st.type()->byte_width();
  const int64_t nvalues = st.data() ? st.data()->size() / vw : 0;
  int64_t steps = 0;
  auto step = [&]() -> Status {
    if (++steps > kMaxValidationSteps) return Status::Invalid("index too large to check");
    return Status::OK();
  };

  switch (st.format_id()) {
    case arrow::SparseTensorFormat::COO: {
      const auto& idx = static_cast<const arrow::SparseCOOIndex&>(*st.sparse_index());
      const int64_t nnz = idx.non_zero_length();
      int64_t total = 0;
      if (!CheckedMul(nnz, ndim, &total)) return Status::Invalid("coords too large");
      ARROW_ASSIGN_OR_RAISE(auto raw, RawOf(*idx.indices(), total, "coords"));
      if (nnz > nvalues) return Status::Invalid("values buffer shorter than nnz");
      for (int64_t i = 0; i < nnz; ++i) {
        for (int d = 0; d < ndim; ++d) {
          ARROW_RETURN_NOT_OK(step());
          int64_t c = raw.Get(i * ndim + d);
          if (c < 0 || c >= shape[d]) {
            return Status::Invalid("coordinate ", c, " of non-zero ", i,
                                   " (as ToTensor reads the buffer) is outside dimension ",
                                   d, " of size ", shape[d]);
          }
        }
      }
      return Status::OK();
    }
    case arrow::SparseTensorFormat::CSR:
    case arrow::SparseTensorFormat::CSC: {
      if (ndim != 2) return Status::Invalid("CSX tensor is not rank 2");
      const bool csr = st.format_id() == arrow::SparseTensorFormat::CSR;
      std::shared_ptr<Tensor> indptr_t, indices_t;
      if (csr) {
        const auto& idx = static_cast<const arrow::SparseCSRIndex&>(*st.sparse_index());
        indptr_t = idx.indptr();
        indices_t = idx.indices();
      } else {
        const auto& idx = static_cast<const arrow::SparseCSCIndex&>(*st.sparse_index());
        indptr_t = idx.indptr();
        indices_t = idx.indices();
      }
      const int64_t other = csr ? shape[1] : shape[0];
      ARROW_ASSIGN_OR_RAISE(auto indptr, RawOf(*indptr_t, indptr_t->size(), "indptr"));
      ARROW_ASSIGN_OR_RAISE(auto indices, RawOf(*indices_t, 0, "indices"));
      const int64_t rows = indptr_t->size() - 1;
      if (rows > (csr ? shape[0] : shape[1])) {
        return Status::Invalid("indptr longer than compressed dimension + 1");
      }
      int64_t consumed = 0;
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t start = indptr.Get(i), stop = indptr.Get(i + 1);
        if (start >= stop) continue;
        if (start < 0 || stop > indices.count) {
          return Status::Invalid("indptr range [", start, ",", stop, ") of ", i,
                                 " outside indices (", indices.count, " readable)");
        }
        for (int64_t k = start; k < stop; ++k) {
          ARROW_RETURN_NOT_OK(step());
          const int64_t c = indices.Get(k);
          if (c < 0 || c >= other) {
            return Status::Invalid("index ", c, " at position ", k,
                                   " outside dimension of size ", other);
          }
          if (++consumed > nvalues) return Status::Invalid("values buffer too short");
        }
      }
      return Status::OK();
    }
    case arrow::SparseTensorFormat::CSF: {
      const auto& idx = static_cast<const arrow::SparseCSFIndex&>(*st.sparse_index());
      if (ndim < 2) return Status::Invalid("CSF tensor of rank < 2");
      if (static_cast<int>(idx.indptr().size()) != ndim - 1 ||
          static_cast<int>(idx.indices().size()) != ndim ||
          static_cast<int>(idx.axis_order().size()) != ndim) {
        return Status::Invalid("CSF index arrays do not match the rank");
      }
      for (int64_t a : idx.axis_order()) {
        if (a < 0 || a >= ndim) return Status::Invalid("axis_order entry ", a, " out of range");
      }
      std::vector<RawIndex> indptr, indices;
      for (int d = 0; d < ndim - 1; ++d) {
        ARROW_ASSIGN_OR_RAISE(auto r, RawOf(*idx.indptr()[d], idx.indptr()[d]->size(),
                                            "indptr", body));
        indptr.push_back(r);
      }
      for (int d = 0; d < ndim; ++d) {
        ARROW_ASSIGN_OR_RAISE(auto r, RawOf(*idx.indices()[d], 0, "indices", body));
        indices.push_back(r);
      }
      const auto& order = idx.axis_order();
      // Iterative depth-first walk mirroring Arrow's recursive expansion.
      struct Frame { int dim; int64_t i, stop; };
      std::vector<Frame> stack;
      stack.push_back({0, 0, idx.indptr()[0]->size() - 1});
      while (!stack.empty()) {
        Frame& f = stack.back();
        if (f.i >= f.stop) { stack.pop_back(); continue; }
        const int64_t i = f.i++;
        const int dim = f.dim;
        ARROW_RETURN_NOT_OK(step());
        if (i < 0 || i >= indices[dim].count) {
          return Status::Invalid("position ", i, " outside indices[", dim, "]");
        }
        const int64_t c = indices[dim].Get(i);
        if (c < 0 || c >= shape[order[dim]]) {
          return Status::Invalid("index ", c, " in indices[", dim,
                                 "] outside dimension of size ", shape[order[dim]]);
        }
        if (dim == ndim - 1) {
          if (i >= nvalues) return Status::Invalid("values buffer too short");
        } else {
          if (i + 1 >= indptr[dim].count) {
            return Status::Invalid("position ", i, " outside indptr[", dim, "]");
          }
          const int64_t s = indptr[dim].Get(i), e = indptr[dim].Get(i + 1);
          if (s < e) stack.push_back({dim + 1, s, e});
        }
      }
      return Status::OK();
    }
    default:
      return Status::Invalid("unknown sparse format");
  }
}

Status TensorJson(Json* j, const Tensor& t, const char* what,
                  const Buffer* body = nullptr) {
  ARROW_RETURN_NOT_OK(CheckTensorExtent(t, what, body));
  TensorValuesJson(j, t);
  return Status::OK();
}

// Builds the JSON description of one message (everything after the common
// header fields). Returns an error if the message cannot be described.
Status DescribeBody(Json* j, const arrow::ipc::Message& msg) {
  using arrow::ipc::MessageType;
  if (msg.type() == MessageType::TENSOR) {
    ARROW_ASSIGN_OR_RAISE(auto t, arrow::ipc::ReadTensor(msg));
    ARROW_RETURN_NOT_OK(CheckTensorExtent(*t, "tensor"));
    ARROW_ASSIGN_OR_RAISE(int64_t n, ShapeProduct(t->shape()));
    j->Key("kind"); j->Str("tensor");
    j->Key("type"); j->Str(TypeIdName(t->type()));
    j->Key("shape"); IntVectorJson(j, t->shape());
    j->Key("dim_names"); DimNamesJson(j, t->dim_names(), t->shape().size());
    j->Key("strides"); IntVectorJson(j, t->strides());
    j->Key("values");
    if (n > kMaxDenseValues) {
      j->Null();
    } else {
      TensorValuesJson(j, *t);
    }
    return Status::OK();
  }
  if (msg.type() != MessageType::SPARSE_TENSOR) {
    return Status::Invalid("message type ", static_cast<int>(msg.type()),
                           " is neither Tensor nor SparseTensor");
  }

  ARROW_ASSIGN_OR_RAISE(auto st, arrow::ipc::ReadSparseTensor(msg));
  if (!st->type() || TypeFromId(st->type()->id()) == nullptr) {
    return Status::Invalid("unsupported value type");
  }
  const int64_t nnz = st->non_zero_length();
  const int vw = st->type()->byte_width();
  const int64_t data_size = st->data() ? st->data()->size() : 0;
  int64_t needed = 0;
  if (nnz < 0 || !CheckedMul(nnz, vw, &needed) || needed > data_size) {
    return Status::Invalid("values buffer holds ", data_size, " bytes, nnz ", nnz,
                           " needs ", needed);
  }
  j->Key("kind"); j->Str("sparse_tensor");
  j->Key("type"); j->Str(TypeIdName(st->type()));
  j->Key("shape"); IntVectorJson(j, st->shape());
  j->Key("dim_names"); DimNamesJson(j, st->dim_names(), st->shape().size());
  j->Key("nnz"); j->Int(nnz);

  switch (st->format_id()) {
    case arrow::SparseTensorFormat::COO: {
      const auto& idx = static_cast<const arrow::SparseCOOIndex&>(*st->sparse_index());
      const auto& coords = idx.indices();
      ARROW_RETURN_NOT_OK(CheckTensorExtent(*coords, "coords"));
      if (coords->ndim() != 2) return Status::Invalid("coords tensor is not 2-D");
      j->Key("format"); j->Str("COO");
      j->Key("index_type"); j->Str(TypeIdName(coords->type()));
      j->Key("is_canonical"); j->Bool(idx.is_canonical());
      // The indicesStrides Arrow read (its ToTensor ignores them: it reads the
      // buffer as a row-major matrix whatever they say).
      j->Key("coords_strides");
      j->BeginArray();
      for (int64_t s : coords->strides()) j->Int(s);
      j->EndArray();
      j->Key("coords");
      j->BeginArray();
      const auto id = coords->type()->id();
      for (int64_t i = 0; i < coords->shape()[0]; ++i) {
        j->BeginArray();
        for (int64_t d = 0; d < coords->shape()[1]; ++d) {
          ElementJson(j, id,
                      coords->raw_data() + i * coords->strides()[0] + d * coords->strides()[1]);
        }
        j->EndArray();
      }
      j->EndArray();
      break;
    }
    case arrow::SparseTensorFormat::CSR:
    case arrow::SparseTensorFormat::CSC: {
      const bool csr = st->format_id() == arrow::SparseTensorFormat::CSR;
      std::shared_ptr<Tensor> indptr, indices;
      if (csr) {
        const auto& idx = static_cast<const arrow::SparseCSRIndex&>(*st->sparse_index());
        indptr = idx.indptr();
        indices = idx.indices();
      } else {
        const auto& idx = static_cast<const arrow::SparseCSCIndex&>(*st->sparse_index());
        indptr = idx.indptr();
        indices = idx.indices();
      }
      j->Key("format"); j->Str(csr ? "CSR" : "CSC");
      j->Key("indptr_type"); j->Str(TypeIdName(indptr->type()));
      j->Key("indices_type"); j->Str(TypeIdName(indices->type()));
      j->Key("indptr"); ARROW_RETURN_NOT_OK(TensorJson(j, *indptr, "indptr"));
      j->Key("indices"); ARROW_RETURN_NOT_OK(TensorJson(j, *indices, "indices"));
      break;
    }
    case arrow::SparseTensorFormat::CSF: {
      const auto& idx = static_cast<const arrow::SparseCSFIndex&>(*st->sparse_index());
      j->Key("format"); j->Str("CSF");
      j->Key("indptr_type");
      if (idx.indptr().empty()) j->Null(); else j->Str(TypeIdName(idx.indptr()[0]->type()));
      j->Key("indices_type");
      if (idx.indices().empty()) j->Null(); else j->Str(TypeIdName(idx.indices()[0]->type()));
      j->Key("axis_order"); IntVectorJson(j, idx.axis_order());
      j->Key("indptr");
      j->BeginArray();
      const Buffer* body = msg.body().get();
      for (const auto& t : idx.indptr()) {
        ARROW_RETURN_NOT_OK(TensorJson(j, *t, "indptr", body));
      }
      j->EndArray();
      j->Key("indices");
      j->BeginArray();
      for (const auto& t : idx.indices()) {
        ARROW_RETURN_NOT_OK(TensorJson(j, *t, "indices", body));
      }
      j->EndArray();
      break;
    }
    default:
      return Status::Invalid("unknown sparse format");
  }

  j->Key("values");
  j->BeginArray();
  const auto vid = st->type()->id();
  for (int64_t i = 0; i < nnz; ++i) ElementJson(j, vid, st->raw_data() + i * vw);
  j->EndArray();

  j->Key("dense");
  auto size = ShapeProduct(st->shape());
  if (!size.ok() || *size > kMaxDenseExpansion) {
    j->Null();
  } else {
    Status valid = ValidateForToTensor(*st, msg.body().get());
    if (!valid.ok()) {
      j->Null();
      j->Key("dense_error");
      j->Str("not expanded: " + valid.message());
    } else {
      auto dense = st->ToTensor();
      if (!dense.ok()) {
        j->Null();
        j->Key("dense_error");
        j->Str(dense.status().ToString());
      } else {
        Status ext = CheckTensorExtent(**dense, "dense");
        if (!ext.ok()) {
          j->Null();
          j->Key("dense_error");
          j->Str(ext.ToString());
        } else {
          TensorValuesJson(j, **dense);
        }
      }
    }
  }
  return Status::OK();
}

std::string DescribeMessage(const arrow::ipc::Message& msg, int64_t offset) {
  Json j;
  j.BeginObject();
  j.Key("offset"); j.Int(offset);
  j.Key("metadata_version"); j.Str(VersionName(msg.metadata_version()));
  j.Key("metadata_length"); j.Int(msg.metadata() ? msg.metadata()->size() : 0);
  j.Key("body_length"); j.Int(msg.body_length());
  Status st = DescribeBody(&j, msg);
  if (!st.ok()) return ErrorLine(offset, st.ToString());
  j.EndObject();
  return j.str();
}

// Runs DescribeMessage in a forked child so that an Arrow abort (ARROW_CHECK)
// or a crash on a malformed message becomes an error line instead of killing
// the whole run. Set ARROW_INTEROP_NO_FORK=1 to run in-process.
std::string DescribeIsolated(const arrow::ipc::Message& msg, int64_t offset) {
  const char* nofork = std::getenv("ARROW_INTEROP_NO_FORK");
  if (nofork && *nofork && std::strcmp(nofork, "0") != 0) {
    return DescribeMessage(msg, offset);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  int fds[2];
  if (pipe(fds) != 0) return DescribeMessage(msg, offset);
  // The child's stderr goes to a temporary file, so that an Arrow check
  // message can be quoted in the error line (and is then echoed to stderr).
  FILE* errf = std::tmpfile();
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    if (errf) std::fclose(errf);
    return DescribeMessage(msg, offset);
  }
  if (pid == 0) {
    close(fds[0]);
    if (errf) dup2(fileno(errf), STDERR_FILENO);
    std::string s = DescribeMessage(msg, offset);
    const char* p = s.data();
    size_t left = s.size();
    while (left > 0) {
      ssize_t n = write(fds[1], p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        _exit(3);
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string child_err;
  if (errf) {
    std::rewind(errf);
    char ebuf[4096];
    size_t n;
    while ((n = std::fread(ebuf, 1, sizeof(ebuf), errf)) > 0) child_err.append(ebuf, n);
    std::fclose(errf);
    if (!child_err.empty()) {
      std::fwrite(child_err.data(), 1, child_err.size(), stderr);
      std::fflush(stderr);
    }
  }
  // Last non-empty line of what the child printed to stderr.
  std::string last;
  {
    size_t end = child_err.find_last_not_of(" \t\r\n");
    if (end != std::string::npos) {
      size_t start = child_err.find_last_of('\n', end);
      start = (start == std::string::npos) ? 0 : start + 1;
      last = child_err.substr(start, end - start + 1);
    }
  }
  const std::string detail = last.empty() ? "" : ": " + last;
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char* name = strsignal(sig);
    return ErrorLine(offset, "arrow_interop: decoding the message killed the process "
                             "with signal " + std::to_string(sig) + " (" +
                             (name ? name : "?") + ")" + detail);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || out.empty()) {
    return ErrorLine(offset, "arrow_interop: decoding the message failed (child status " +
                                 std::to_string(status) + ")" + detail);
  }
  return out;
}

// Finds the end of the message starting at `pos` from its framing and the
// Message.bodyLength field, without Arrow. Used only to skip over a message
// Arrow refused, so that the following messages can still be read.
bool FrameEnd(arrow::io::RandomAccessFile* file, int64_t pos, int64_t file_size,
              int64_t* end) {
  auto read_at = [&](int64_t at, int64_t n, std::string* out) -> bool {
    if (at < 0 || n < 0 || at + n > file_size) return false;
    out->resize(static_cast<size_t>(n));
    auto r = file->ReadAt(at, n, out->data());
    return r.ok() && *r == n;
  };
  std::string b;
  if (!read_at(pos, 4, &b)) return false;
  int32_t first;
  std::memcpy(&first, b.data(), 4);
  int64_t header = 4;
  int32_t len = first;
  if (first == -1) {
    if (!read_at(pos + 4, 4, &b)) return false;
    std::memcpy(&len, b.data(), 4);
    header = 8;
  }
  if (len <= 0) return false;
  std::string meta;
  if (!read_at(pos + header, len, &meta)) return false;
  auto u32 = [&](int64_t at, uint32_t* v) {
    if (at < 0 || at + 4 > len) return false;
    std::memcpy(v, meta.data() + at, 4);
    return true;
  };
  auto u16 = [&](int64_t at, uint16_t* v) {
    if (at < 0 || at + 2 > len) return false;
    std::memcpy(v, meta.data() + at, 2);
    return true;
  };
  uint32_t root;
  if (!u32(0, &root)) return false;
  uint32_t soff_raw;
  if (!u32(root, &soff_raw)) return false;
  const int64_t vtable = static_cast<int64_t>(root) - static_cast<int32_t>(soff_raw);
  uint16_t vt_size;
  if (!u16(vtable, &vt_size) || vt_size < 4) return false;
  int64_t body_length = 0;
  // Message fields: version(0) header_type(1) header(2) bodyLength(3).
  const int64_t slot = 4 + 2 * 3;
  if (slot + 2 <= vt_size) {
    uint16_t fo;
    if (!u16(vtable + slot, &fo)) return false;
    if (fo != 0) {
      const int64_t at = static_cast<int64_t>(root) + fo;
      if (at < 0 || at + 8 > len) return false;
      std::memcpy(&body_length, meta.data() + at, 8);
    }
  }
  if (body_length < 0) return false;
  const int64_t e = pos + header + len;
  if (body_length > file_size - e) return false;
  *end = e + body_length;
  return true;
}

int RunRead(const std::string& path) {
  auto maybe_file = arrow::io::ReadableFile::Open(path);
  if (!maybe_file.ok()) {
    std::cerr << "arrow_interop: cannot open " << path << ": "
              << maybe_file.status().ToString() << "\n";
    return 1;
  }
  auto file = *maybe_file;
  auto maybe_size = file->GetSize();
  if (!maybe_size.ok()) {
    std::cerr << "arrow_interop: " << maybe_size.status().ToString() << "\n";
    return 1;
  }
  const int64_t file_size = *maybe_size;
  auto reader = arrow::ipc::MessageReader::Open(file.get());
  for (;;) {
    auto pos = file->Tell();
    if (!pos.ok()) {
      std::cerr << "arrow_interop: " << pos.status().ToString() << "\n";
      return 1;
    }
    auto next = reader->ReadNextMessage();
    if (!next.ok()) {
      std::string line = ErrorLine(*pos, next.status().ToString());
      std::fwrite(line.data(), 1, line.size(), stdout);
      std::fputc('\n', stdout);
      int64_t end = 0;
      if (FrameEnd(file.get(), *pos, file_size, &end) && end > *pos &&
          file->Seek(end).ok()) {
        reader = arrow::ipc::MessageReader::Open(file.get());
        continue;
      }
      std::fflush(stdout);
      std::cerr << "arrow_interop: stream broken at offset " << *pos << ": "
                << next.status().ToString() << "\n";
      return 1;
    }
    std::unique_ptr<arrow::ipc::Message> msg = std::move(*next);
    if (!msg) break;  // EOS marker or end of file
    std::string line = DescribeIsolated(*msg, *pos);
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
  }
  std::fflush(stdout);
  return std::ferror(stdout) ? 1 : 0;
}

// ---------------------------------------------------------------------------
// Roundtrip mode

int RunRoundtrip(const std::string& in_path, const std::string& out_path) {
  auto maybe_file = arrow::io::ReadableFile::Open(in_path);
  if (!maybe_file.ok()) {
    std::cerr << "arrow_interop: cannot open " << in_path << ": "
              << maybe_file.status().ToString() << "\n";
    return 1;
  }
  auto file = *maybe_file;
  auto maybe_out = arrow::io::FileOutputStream::Open(out_path, /*append=*/false);
  if (!maybe_out.ok()) {
    std::cerr << "arrow_interop: cannot open " << out_path << ": "
              << maybe_out.status().ToString() << "\n";
    return 1;
  }
  auto out = *maybe_out;
  auto reader = arrow::ipc::MessageReader::Open(file.get());
  int64_t index = 0;
  for (;; ++index) {
    int64_t offset = file->Tell().ValueOr(-1);
    auto fail = [&](const Status& st) {
      std::cerr << "arrow_interop: message " << index << " at offset " << offset << ": "
                << st.ToString() << "\n";
      (void)out->Close();
      return 1;
    };
    auto next = reader->ReadNextMessage();
    if (!next.ok()) return fail(next.status());
    std::unique_ptr<arrow::ipc::Message> msg = std::move(*next);
    if (!msg) break;
    Status st;
    if (msg->type() == arrow::ipc::MessageType::TENSOR) {
      auto t = arrow::ipc::ReadTensor(*msg);
      st = t.ok() ? WriteOneTensor(**t, out.get()) : t.status();
    } else if (msg->type() == arrow::ipc::MessageType::SPARSE_TENSOR) {
      auto t = arrow::ipc::ReadSparseTensor(*msg);
      st = t.ok() ? WriteOneSparse(**t, out.get()) : t.status();
    } else {
      st = Status::Invalid("message type ", static_cast<int>(msg->type()),
                           " is neither Tensor nor SparseTensor");
    }
    if (!st.ok()) return fail(st);
  }
  Status st = out->Close();
  if (!st.ok()) {
    std::cerr << "arrow_interop: closing " << out_path << ": " << st.ToString() << "\n";
    return 1;
  }
  return 0;
}

// ---------------------------------------------------------------------------
// Time mode
//
// time-convert KIND SHAPE NNZ REPS [INDEX]: builds a float64 row-major dense
// tensor of SHAPE (e.g. 4096x4096 or 200x200x200) holding NNZ non-zeros at
// pseudo-random positions, then REPS times (after one untimed warm-up) times
// Arrow's dense -> sparse converter for KIND (coo csr csc csf:
// SparseCOOTensor / SparseCSRMatrix / SparseCSCMatrix / SparseCSFTensor::Make
// with index type INDEX, default int64) and ToTensor back. Prints one JSON
// line with the medians (to_sparse_s, to_dense_s) and minima (*_min_s) in
// seconds.
//
// The input is the one examples/compare_convert.rs builds: splitmix64 seeded
// with kTimeSeed; each draw r gives position r % total, and when that
// element is still zero it becomes ((r >> 32) % 1000) + 1; draws continue
// until NNZ elements are set.

constexpr uint64_t kTimeSeed = 0x243F6A8885A308D3ULL;

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0.0;
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

struct Timings {
  double to_sparse_median = 0, to_sparse_min = 0, to_dense_median = 0, to_dense_min = 0;
};

template <typename SparseType>
Status TimeKind(const Tensor& dense, const std::shared_ptr<DataType>& index_type,
                int reps, Timings* out, int64_t* nnz, bool* same) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> ts, td;
  for (int rep = -1; rep < reps; ++rep) {
    auto t0 = Clock::now();
    ARROW_ASSIGN_OR_RAISE(auto sparse, SparseType::Make(dense, index_type));
    auto t1 = Clock::now();
    ARROW_ASSIGN_OR_RAISE(auto back, sparse->ToTensor());
    auto t2 = Clock::now();
    if (rep < 0) {
      *nnz = sparse->non_zero_length();
      *same = back->Equals(dense);
      continue;
    }
    ts.push_back(std::chrono::duration<double>(t1 - t0).count());
    td.push_back(std::chrono::duration<double>(t2 - t1).count());
  }
  out->to_sparse_median = Median(ts);
  out->to_sparse_min = *std::min_element(ts.begin(), ts.end());
  out->to_dense_median = Median(td);
  out->to_dense_min = *std::min_element(td.begin(), td.end());
  return Status::OK();
}

int RunTimeConvert(int argc, char** argv) {
  // argv: time-convert KIND SHAPE NNZ REPS [INDEX]
  const std::string kind = argv[2];
  std::vector<int64_t> shape;
  for (const std::string& d : SplitOn(argv[3], 'x')) {
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(d.c_str(), &end, 10);
    if (d.empty() || *end != '\0' || errno != 0 || v <= 0) {
      std::cerr << "arrow_interop: bad SHAPE " << argv[3] << "\n";
      return 2;
    }
    shape.push_back(v);
  }
  char* end = nullptr;
  const long long nnz_arg = std::strtoll(argv[4], &end, 10);
  const long long reps = std::strtoll(argv[5], nullptr, 10);
  const std::string index_name = argc > 6 ? argv[6] : "int64";
  auto total = ShapeProduct(shape);
  if (!total.ok() || nnz_arg < 0 || nnz_arg > *total || reps <= 0) {
    std::cerr << "arrow_interop: bad NNZ or REPS\n";
    return 2;
  }
  auto index_type = ParseTypeName(index_name, /*integer_only=*/true);
  if (!index_type.ok()) {
    std::cerr << "arrow_interop: bad INDEX " << index_name << "\n";
    return 2;
  }
  const int64_t n = *total;
  auto maybe_buf = arrow::AllocateBuffer(n * 8);
  if (!maybe_buf.ok()) {
    std::cerr << "arrow_interop: " << maybe_buf.status().ToString() << "\n";
    return 1;
  }
  std::shared_ptr<Buffer> buf = std::move(*maybe_buf);
  double* data = reinterpret_cast<double*>(buf->mutable_data());
  std::fill_n(data, n, 0.0);
  uint64_t state = kTimeSeed;
  for (long long placed = 0; placed < nnz_arg;) {
    uint64_t r = SplitMix64(&state);
    uint64_t pos = r % static_cast<uint64_t>(n);
    if (data[pos] == 0.0) {
      data[pos] = static_cast<double>((r >> 32) % 1000 + 1);
      ++placed;
    }
  }
  Tensor dense(arrow::float64(), buf, shape);
  Timings tm;
  int64_t nnz = 0;
  bool same = false;
  Status st;
  if (kind == "coo") {
    st = TimeKind<arrow::SparseCOOTensor>(dense, *index_type, reps, &tm, &nnz, &same);
  } else if (kind == "csr") {
    st = TimeKind<arrow::SparseCSRMatrix>(dense, *index_type, reps, &tm, &nnz, &same);
  } else if (kind == "csc") {
    st = TimeKind<arrow::SparseCSCMatrix>(dense, *index_type, reps, &tm, &nnz, &same);
  } else if (kind == "csf") {
    st = TimeKind<arrow::SparseCSFTensor>(dense, *index_type, reps, &tm, &nnz, &same);
  } else {
    std::cerr << "arrow_interop: bad KIND " << kind << " (coo|csr|csc|csf)\n";
    return 2;
  }
  if (!st.ok()) {
    std::cerr << "arrow_interop: " << st.ToString() << "\n";
    return 1;
  }
  std::printf(
      "{\"kind\":\"%s\",\"shape\":\"%s\",\"nnz\":%lld,\"index\":\"%s\",\"reps\":%lld,"
      "\"to_sparse_s\":%.9g,\"to_dense_s\":%.9g,\"to_sparse_min_s\":%.9g,"
      "\"to_dense_min_s\":%.9g,\"roundtrip_equal\":%s}\n",
      kind.c_str(), argv[3], static_cast<long long>(nnz), index_name.c_str(), reps,
      tm.to_sparse_median, tm.to_dense_median, tm.to_sparse_min, tm.to_dense_min,
      same ? "true" : "false");
  return 0;
}

// ---------------------------------------------------------------------------
// time-io: Arrow C++'s IPC read and write of one message, for
// examples/compare.rs. FILE holds one message (written by this crate); it is
// loaded into a 64-byte aligned in-memory buffer once. After one warm-up, REPS
// repetitions time (medians):
//   read_s       ReadTensor / ReadSparseTensor from an io::BufferReader over
//                the buffer (zero-copy: the tensor's buffers slice it);
//   read_mmap_s  MemoryMappedFile::Open(FILE) + ReadTensor / ReadSparseTensor
//                (map, parse, zero-copy slices, unmap on release);
//   write_s      WriteTensor / WriteSparseTensor of the decoded tensor into a
//                BufferOutputStream created with the message's size as
//                capacity (no regrowth), then Finish();
//   write_fresh_s (dense only) the same write of a copy of the tensor whose
//                data sits in a buffer of its own (AllocateBuffer: page-aligned
//                at large sizes) rather than inside the loaded message.

Result<std::shared_ptr<Buffer>> LoadAligned(const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto file, arrow::io::ReadableFile::Open(path));
  ARROW_ASSIGN_OR_RAISE(int64_t size, file->GetSize());
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<Buffer> buf, arrow::AllocateBuffer(size));
  ARROW_ASSIGN_OR_RAISE(int64_t got,
                        file->ReadAt(0, size, const_cast<uint8_t*>(buf->data())));
  if (got != size) return Status::IOError("short read of ", path);
  return buf;
}

template <typename T, typename Read, typename Write>
Status TimeIo(const std::string& path, const std::shared_ptr<Buffer>& bytes, int reps,
              Read&& read, Write&& write, double* read_s, double* mmap_s,
              double* write_s, int64_t* written) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> tr, tm, tw;
  for (int rep = -1; rep < reps; ++rep) {
    auto t0 = Clock::now();
    std::shared_ptr<T> decoded;
    {
      arrow::io::BufferReader reader(bytes);
      ARROW_ASSIGN_OR_RAISE(decoded, read(&reader));
    }
    auto t1 = Clock::now();
    {
      ARROW_ASSIGN_OR_RAISE(auto mapped, arrow::io::MemoryMappedFile::Open(
                                             path, arrow::io::FileMode::READ));
      ARROW_ASSIGN_OR_RAISE(auto from_map, read(mapped.get()));
      from_map.reset();
      ARROW_RETURN_NOT_OK(mapped->Close());
    }
    auto t2 = Clock::now();
    std::shared_ptr<Buffer> out_buf;
    {
      ARROW_ASSIGN_OR_RAISE(auto out, arrow::io::BufferOutputStream::Create(bytes->size()));
      int32_t metadata_length = 0;
      int64_t body_length = 0;
      ARROW_RETURN_NOT_OK(write(*decoded, out.get(), &metadata_length, &body_length));
      ARROW_ASSIGN_OR_RAISE(out_buf, out->Finish());
    }
    auto t3 = Clock::now();
    *written = out_buf->size();
    out_buf.reset();
    if (rep < 0) continue;
    tr.push_back(std::chrono::duration<double>(t1 - t0).count());
    tm.push_back(std::chrono::duration<double>(t2 - t1).count());
    tw.push_back(std::chrono::duration<double>(t3 - t2).count());
  }
  *read_s = Median(tr);
  *mmap_s = Median(tm);
  *write_s = Median(tw);
  return Status::OK();
}

// WriteTensor of a copy of the message's tensor with its data in a fresh buffer
// (median of REPS after a warm-up), the counterpart of encoding a tensor built in
// memory rather than one read from a message.
Status TimeWriteFresh(const std::shared_ptr<Buffer>& bytes, int reps, double* write_s) {
  using Clock = std::chrono::steady_clock;
  arrow::io::BufferReader reader(bytes);
  ARROW_ASSIGN_OR_RAISE(auto decoded, arrow::ipc::ReadTensor(&reader));
  const int64_t size = decoded->data()->size();
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<Buffer> data, arrow::AllocateBuffer(size));
  if (size > 0) {
    std::memcpy(const_cast<uint8_t*>(data->data()), decoded->data()->data(), size);
  }
  ARROW_ASSIGN_OR_RAISE(auto fresh, Tensor::Make(decoded->type(), data, decoded->shape(),
                                                 decoded->strides(), decoded->dim_names()));
  std::vector<double> tw;
  for (int rep = -1; rep < reps; ++rep) {
    auto t0 = Clock::now();
    std::shared_ptr<Buffer> out_buf;
    {
      ARROW_ASSIGN_OR_RAISE(auto out, arrow::io::BufferOutputStream::Create(bytes->size()));
      int32_t metadata_length = 0;
      int64_t body_length = 0;
      ARROW_RETURN_NOT_OK(
          arrow::ipc::WriteTensor(*fresh, out.get(), &metadata_length, &body_length));
      ARROW_ASSIGN_OR_RAISE(out_buf, out->Finish());
    }
    auto t1 = Clock::now();
    out_buf.reset();
    if (rep >= 0) tw.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  *write_s = Median(tw);
  return Status::OK();
}

int RunTimeIo(const std::string& path, const std::string& reps_text) {
  char* end = nullptr;
  const long long reps = std::strtoll(reps_text.c_str(), &end, 10);
  if (reps_text.empty() || *end != '\0' || reps <= 0 || reps > 1000000) {
    std::cerr << "arrow_interop: bad REPS " << reps_text << "\n";
    return 2;
  }
  auto loaded = LoadAligned(path);
  if (!loaded.ok()) {
    std::cerr << "arrow_interop: " << loaded.status().ToString() << "\n";
    return 1;
  }
  std::shared_ptr<Buffer> bytes = *loaded;
  arrow::ipc::MessageType type;
  {
    arrow::io::BufferReader reader(bytes);
    auto msg = arrow::ipc::ReadMessage(&reader);
    if (!msg.ok() || *msg == nullptr) {
      std::cerr << "arrow_interop: no message in " << path << "\n";
      return 1;
    }
    type = (*msg)->type();
  }
  double read_s = 0, mmap_s = 0, write_s = 0;
  int64_t written = 0;
  Status st;
  const char* kind = "";
  if (type == arrow::ipc::MessageType::TENSOR) {
    kind = "tensor";
    st = TimeIo<Tensor>(
        path, bytes, static_cast<int>(reps),
        [](arrow::io::InputStream* in) { return arrow::ipc::ReadTensor(in); },
        [](const Tensor& t, arrow::io::OutputStream* out, int32_t* m, int64_t* b) {
          return arrow::ipc::WriteTensor(t, out, m, b);
        },
        &read_s, &mmap_s, &write_s, &written);
  } else if (type == arrow::ipc::MessageType::SPARSE_TENSOR) {
    kind = "sparse_tensor";
    st = TimeIo<arrow::SparseTensor>(
        path, bytes, static_cast<int>(reps),
        [](arrow::io::InputStream* in) { return arrow::ipc::ReadSparseTensor(in); },
        [](const arrow::SparseTensor& t, arrow::io::OutputStream* out, int32_t* m,
           int64_t* b) { return arrow::ipc::WriteSparseTensor(t, out, m, b); },
        &read_s, &mmap_s, &write_s, &written);
  } else {
    std::cerr << "arrow_interop: the first message of " << path
              << " is neither a Tensor nor a SparseTensor\n";
    return 1;
  }
  if (!st.ok()) {
    std::cerr << "arrow_interop: " << st.ToString() << "\n";
    return 1;
  }
  double write_fresh_s = -1;
  if (type == arrow::ipc::MessageType::TENSOR) {
    st = TimeWriteFresh(bytes, static_cast<int>(reps), &write_fresh_s);
    if (!st.ok()) {
      std::cerr << "arrow_interop: " << st.ToString() << "\n";
      return 1;
    }
  }
  std::printf(
      "{\"kind\":\"%s\",\"file_bytes\":%lld,\"reps\":%lld,\"read_s\":%.9g,"
      "\"read_mmap_s\":%.9g,\"write_s\":%.9g,\"write_fresh_s\":%.9g,"
      "\"written_bytes\":%lld}\n",
      kind, static_cast<long long>(bytes->size()), reps, read_s, mmap_s, write_s,
      write_fresh_s, static_cast<long long>(written));
  return 0;
}

int Usage() {
  std::cerr << "usage:\n"
               "  arrow_interop write OUT_FILE            (case specs on stdin)\n"
               "  arrow_interop read FILE\n"
               "  arrow_interop roundtrip FILE OUT_FILE\n"
               "  arrow_interop time-convert coo|csr|csc|csf SHAPE NNZ REPS [INDEX]\n"
               "  arrow_interop time-io FILE REPS\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  const std::string mode = argv[1];
  if (mode == "write" && argc == 3) return RunWrite(argv[2]);
  if (mode == "read" && argc == 3) return RunRead(argv[2]);
  if (mode == "roundtrip" && argc == 4) return RunRoundtrip(argv[2], argv[3]);
  if (mode == "time-convert" && (argc == 6 || argc == 7)) return RunTimeConvert(argc, argv);
  if (mode == "time-io" && argc == 4) return RunTimeIo(argv[2], argv[3]);
  return Usage();
}
