// File names, header checks, shape and dtype validation for tensor bundles.
#include "host/checkpoint/bundle_format.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "host/framework/proto/types.pb.h"

namespace tessera {
namespace checkpoint {

std::string MetaFilename(absl::string_view prefix) { return absl::StrCat(prefix, ".index"); }

std::string DataFilename(absl::string_view prefix, int shard_id, int num_shards) {
  char suffix[64];
  std::snprintf(suffix, sizeof(suffix), ".data-%05d-of-%05d", shard_id, num_shards);
  return absl::StrCat(prefix, suffix);
}

tensorflow::BundleHeaderProto MakeHeader(int num_shards) {
  tensorflow::BundleHeaderProto header;
  header.set_num_shards(num_shards);
  header.set_endianness(HostIsLittleEndian() ? tensorflow::BundleHeaderProto::LITTLE
                                             : tensorflow::BundleHeaderProto::BIG);
  header.mutable_version()->set_producer(kTensorBundleVersion);
  header.mutable_version()->set_min_consumer(kTensorBundleMinConsumer);
  return header;
}

absl::Status CheckHeader(const tensorflow::BundleHeaderProto& header, absl::string_view file) {
  if (header.num_shards() < 1) {
    return absl::DataLossError(absl::StrCat("checkpoint index '", file, "' is corrupt: header has ",
                                            header.num_shards(), " data shards"));
  }
  if (header.endianness() != tensorflow::BundleHeaderProto::LITTLE &&
      header.endianness() != tensorflow::BundleHeaderProto::BIG) {
    return absl::DataLossError(absl::StrCat("checkpoint index '", file,
                                            "' is corrupt: header has unknown byte order ",
                                            static_cast<int>(header.endianness())));
  }
  const tensorflow::VersionDef& version = header.version();
  if (version.producer() < kTensorBundleMinProducer) {
    return absl::FailedPreconditionError(
        absl::StrCat("checkpoint '", file, "' has producer version ", version.producer(),
                     ", below the oldest this reader supports (", kTensorBundleMinProducer, ")"));
  }
  if (version.min_consumer() > kTensorBundleVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("checkpoint '", file, "' needs a reader of version ", version.min_consumer(),
                     " or newer; this reader is version ", kTensorBundleVersion));
  }
  const auto& bad = version.bad_consumers();
  if (std::find(bad.begin(), bad.end(), kTensorBundleVersion) != bad.end()) {
    return absl::FailedPreconditionError(
        absl::StrCat("checkpoint '", file, "' disallows reader version ", kTensorBundleVersion));
  }
  return absl::OkStatus();
}

absl::StatusOr<TensorShape> ShapeFromProto(const tensorflow::TensorShapeProto& proto) {
  if (proto.unknown_rank()) return absl::InvalidArgumentError("shape has unknown rank");
  if (proto.dim_size() > kMaxStoredRank) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape has rank ", proto.dim_size(), ", above ", kMaxStoredRank));
  }
  TensorShape shape;
  int64_t elements = 1;
  for (const tensorflow::TensorShapeProto::Dim& dim : proto.dim()) {
    if (dim.size() < 0) {
      return absl::InvalidArgumentError(absl::StrCat("shape has dimension ", dim.size()));
    }
    if (dim.size() > 0 && elements > std::numeric_limits<int64_t>::max() / dim.size()) {
      return absl::InvalidArgumentError("shape has more elements than int64 holds");
    }
    elements *= dim.size();
    shape.AddDim(dim.size());
  }
  return shape;
}

void ShapeToProto(const TensorShape& shape, tensorflow::TensorShapeProto* proto) {
  proto->Clear();
  for (int64_t dim : shape.dims()) proto->add_dim()->set_size(dim);
}

std::string StoredDtypeName(int dtype) {
  const auto value = static_cast<TSR_DataType>(dtype);
  if (dtype >= 1 && dtype <= 23) return DataTypeString(value);
  if (tensorflow::DataType_IsValid(dtype)) {
    return tensorflow::DataType_Name(static_cast<tensorflow::DataType>(dtype));
  }
  return absl::StrCat("unknown dtype ", dtype);
}

absl::Status CheckSupportedDtype(int dtype, absl::string_view key) {
  if (dtype >= 1 && dtype <= 23 && IsDenseDataType(static_cast<TSR_DataType>(dtype))) {
    return absl::OkStatus();
  }
  if (dtype == tensorflow::DT_STRING) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat("tensor '", key, "' has dtype ",
                                               StoredDtypeName(dtype),
                                               ", which Tessera's host tensors cannot hold"));
}

void ByteSwapElements(DataType dtype, char* data, size_t bytes) {
  size_t unit = DataTypeSize(dtype);
  if (dtype == TSR_DTYPE_COMPLEX64 || dtype == TSR_DTYPE_COMPLEX128) unit /= 2;
  if (unit <= 1) return;
  for (size_t i = 0; i + unit <= bytes; i += unit) std::reverse(data + i, data + i + unit);
}

}  // namespace checkpoint
}  // namespace tessera
