// SaveV2, RestoreV2 and MergeV2Checkpoints over host/checkpoint's tensor bundles, with
// TensorFlow's input checks and messages.
#include "host/kernels/checkpoint_kernels.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/checkpoint/bundle_format.h"
#include "host/checkpoint/bundle_merge.h"
#include "host/checkpoint/bundle_reader.h"
#include "host/checkpoint/bundle_writer.h"
#include "host/checkpoint/file_io.h"
#include "host/checkpoint/tensor_slice.h"
#include "host/graph/graph.h"
#include "host/runtime/device.h"

namespace tessera {
namespace {

constexpr int kFixedInputs = 3;  // prefix, tensor_names, shape_and_slices

// A string input in host memory whose strings can be read.
absl::Status CheckStringInput(const TSR_KernelContext* ctx, int index, const char* name) {
  const Tensor& t = ctx->inputs[index];
  if (t.dtype() != TSR_DTYPE_STRING || !t.host_accessible() || !t.HoldsStrings()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx->info->op, " node '", ctx->info->name, "': input ", name,
                     " must be a string tensor in host memory, got ", DataTypeString(t.dtype())));
  }
  return absl::OkStatus();
}

// TensorFlow's checks of prefix, tensor_names and shape_and_slices (SaveV2 and RestoreV2).
absl::Status ValidateInputs(const TSR_KernelContext* ctx, bool is_save) {
  RETURN_IF_ERROR(CheckStringInput(ctx, 0, "prefix"));
  RETURN_IF_ERROR(CheckStringInput(ctx, 1, "tensor_names"));
  RETURN_IF_ERROR(CheckStringInput(ctx, 2, "shape_and_slices"));
  const Tensor& prefix = ctx->inputs[0];
  const Tensor& names = ctx->inputs[1];
  const Tensor& slices = ctx->inputs[2];
  if (prefix.NumElements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input prefix should have a single element, got ", prefix.NumElements(), " instead."));
  }
  if (names.shape().rank() != 1 || slices.shape().rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input tensor_names and shape_and_slices should be an 1-D tensors, got ",
        names.shape().DebugString(), " and ", slices.shape().DebugString(), " instead."));
  }
  if (names.NumElements() != slices.NumElements()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor_names and shape_and_slices have different number of elements: ",
                     names.NumElements(), " vs. ", slices.NumElements()));
  }
  if (is_save && ctx->num_inputs != names.NumElements() + kFixedInputs) {
    return absl::InvalidArgumentError(absl::StrCat("Got ", names.NumElements(),
                                                   " tensor names but ",
                                                   ctx->num_inputs - kFixedInputs, " tensors."));
  }
  return absl::OkStatus();
}

class SaveV2Kernel final : public OpKernel {
 public:
  explicit SaveV2Kernel(Device* device) : OpKernel({false, false, false}), device_(device) {}

  absl::Status Compute(TSR_KernelContext* ctx) override {
    RETURN_IF_ERROR(ValidateInputs(ctx, /*is_save=*/true));
    const std::string& prefix = ctx->inputs[0].flat<std::string>()[0];
    const absl::Span<std::string> names = ctx->inputs[1].flat<std::string>();
    const absl::Span<std::string> specs = ctx->inputs[2].flat<std::string>();
    ASSIGN_OR_RETURN(std::unique_ptr<checkpoint::BundleWriter> writer,
                     checkpoint::BundleWriter::Create(prefix));
    for (size_t i = 0; i < names.size(); ++i) {
      ASSIGN_OR_RETURN(Tensor value, OnHost(ctx->inputs[kFixedInputs + i]));
      if (specs[i].empty()) {
        RETURN_IF_ERROR(writer->Add(names[i], value));
        continue;
      }
      ASSIGN_OR_RETURN(checkpoint::ShapeAndSlice spec, checkpoint::ParseShapeAndSlice(specs[i]));
      if (spec.slice_shape != value.shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Slice in shape_and_slice specification does not match the shape of the tensor to "
            "save: ",
            specs[i], ", tensor: ", value.shape().DebugString()));
      }
      RETURN_IF_ERROR(writer->AddSlice(names[i], spec.full_shape, spec.slice, value));
    }
    return writer->Finish();
  }

 private:
  // The value in host memory: as it is, or copied out of the device's memory.
  absl::StatusOr<Tensor> OnHost(const Tensor& value) const {
    if (value.host_accessible()) return value;
    Tensor host;
    RETURN_IF_ERROR(device_->CopyToHost(value, &host));
    return host;
  }

  Device* device_;
};

class RestoreV2Kernel final : public OpKernel {
 public:
  RestoreV2Kernel(Device* device, std::vector<DataType> dtypes)
      : OpKernel({false, false, false}), device_(device), dtypes_(std::move(dtypes)) {}

  absl::Status Compute(TSR_KernelContext* ctx) override {
    RETURN_IF_ERROR(CheckStringInput(ctx, 1, "tensor_names"));
    const int64_t num_names = ctx->inputs[1].NumElements();
    if (num_names != static_cast<int64_t>(dtypes_.size())) {
      return absl::InvalidArgumentError(absl::StrCat("Got ", num_names, " tensor names, but ",
                                                     dtypes_.size(), " expected dtypes."));
    }
    RETURN_IF_ERROR(ValidateInputs(ctx, /*is_save=*/false));
    const std::string& prefix = ctx->inputs[0].flat<std::string>()[0];
    const absl::Span<std::string> names = ctx->inputs[1].flat<std::string>();
    const absl::Span<std::string> specs = ctx->inputs[2].flat<std::string>();
    ASSIGN_OR_RETURN(std::unique_ptr<checkpoint::BundleReader> reader,
                     checkpoint::BundleReader::Open(prefix));

    // Every dtype is checked before anything is read, and all mismatches are reported together.
    std::vector<std::string> mismatches;
    for (size_t i = 0; i < names.size(); ++i) {
      DataType stored;
      TensorShape shape;
      RETURN_IF_ERROR(reader->LookupDtypeAndShape(names[i], &stored, &shape));
      if (stored != dtypes_[i]) {
        mismatches.push_back(absl::StrCat(
            "tensor_name = ", names[i], "; expected dtype ", DataTypeString(dtypes_[i]),
            " does not equal original dtype ", DataTypeString(stored)));
      }
    }
    if (!mismatches.empty()) {
      return absl::InvalidArgumentError(absl::StrJoin(mismatches, "\n"));
    }
    for (size_t i = 0; i < names.size(); ++i) {
      ASSIGN_OR_RETURN(Tensor value, reader->LookupShapeAndSlice(names[i], specs[i]));
      if (device_->host_memory() || value.dtype() == TSR_DTYPE_STRING) {
        ctx->outputs[i] = std::move(value);
      } else {
        RETURN_IF_ERROR(device_->CopyFromHost(value, &ctx->outputs[i]));
      }
    }
    return absl::OkStatus();
  }

 private:
  Device* device_;
  std::vector<DataType> dtypes_;
};

class MergeV2CheckpointsKernel final : public OpKernel {
 public:
  MergeV2CheckpointsKernel(bool delete_old_dirs, bool allow_missing_files)
      : OpKernel({false, false, false}),
        delete_old_dirs_(delete_old_dirs),
        allow_missing_files_(allow_missing_files) {}

  absl::Status Compute(TSR_KernelContext* ctx) override {
    RETURN_IF_ERROR(CheckStringInput(ctx, 0, "checkpoint_prefixes"));
    RETURN_IF_ERROR(CheckStringInput(ctx, 1, "destination_prefix"));
    const Tensor& prefixes = ctx->inputs[0];
    const Tensor& destination = ctx->inputs[1];
    if (prefixes.shape().rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input checkpoint_prefixes should be an 1-D tensor, got ",
                       prefixes.shape().DebugString(), " instead."));
    }
    if (destination.shape().rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input destination_prefix should be a scalar tensor, got ",
                       destination.shape().DebugString(), " instead."));
    }
    const std::vector<std::string> inputs(prefixes.flat<std::string>().begin(),
                                          prefixes.flat<std::string>().end());
    const std::string& merged = destination.flat<std::string>()[0];
    RETURN_IF_ERROR(checkpoint::MergeBundles(inputs, merged, allow_missing_files_));
    if (delete_old_dirs_) {
      // As TensorFlow: each input's directory is removed when it is now empty; failures (it holds
      // other files, or an earlier input's removal took it) are ignored.
      const std::string merged_dir = checkpoint::Dirname(merged);
      for (const std::string& input : inputs) {
        const std::string dir = checkpoint::Dirname(input);
        if (dir == merged_dir || dir.empty()) continue;
        checkpoint::RemoveEmptyDirectory(dir).IgnoreError();
      }
    }
    return absl::OkStatus();
  }

 private:
  bool delete_old_dirs_;
  bool allow_missing_files_;
};

absl::StatusOr<std::vector<DataType>> DtypesAttr(const Node& node) {
  const tensorflow::AttrValue* value = node.attr("dtypes");
  if (value == nullptr || value->value_case() != tensorflow::AttrValue::kList) {
    return absl::InvalidArgumentError(
        absl::StrCat(node.DebugString(), " needs a list(type) attribute 'dtypes'"));
  }
  std::vector<DataType> dtypes;
  for (int t : value->list().type()) dtypes.push_back(static_cast<DataType>(t));
  return dtypes;
}

bool BoolAttrOr(const Node& node, absl::string_view name, bool fallback) {
  const tensorflow::AttrValue* value = node.attr(name);
  return value == nullptr ? fallback : value->b();
}

}  // namespace

bool IsCheckpointKernelOp(absl::string_view op) {
  return op == "SaveV2" || op == "RestoreV2" || op == "MergeV2Checkpoints";
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateCheckpointKernel(const Node& node, Device* device) {
  const std::string& op = node.op();
  if (op == "SaveV2") return std::unique_ptr<OpKernel>(new SaveV2Kernel(device));
  if (op == "RestoreV2") {
    ASSIGN_OR_RETURN(std::vector<DataType> dtypes, DtypesAttr(node));
    return std::unique_ptr<OpKernel>(new RestoreV2Kernel(device, std::move(dtypes)));
  }
  if (op == "MergeV2Checkpoints") {
    return std::unique_ptr<OpKernel>(new MergeV2CheckpointsKernel(
        BoolAttrOr(node, "delete_old_dirs", true), BoolAttrOr(node, "allow_missing_files", false)));
  }
  return absl::NotFoundError(absl::StrCat("op '", op, "' has no checkpoint kernel"));
}

void CheckpointKernelMemoryTypes(const Node& node, std::vector<bool>* inputs_on_host,
                                 std::vector<bool>* outputs_on_host) {
  // SaveV2's tensors follow its three string inputs; RestoreV2's outputs are all tensors.
  const int string_inputs = node.op() == "SaveV2" ? kFixedInputs : node.num_inputs();
  inputs_on_host->assign(node.num_inputs(), false);
  for (int i = 0; i < string_inputs && i < node.num_inputs(); ++i) (*inputs_on_host)[i] = true;
  outputs_on_host->assign(node.num_outputs(), false);
  // A string tensor saved or restored stays in host memory whatever the device.
  for (int i = 0; i < node.num_inputs(); ++i) {
    if (BaseType(node.input_type(i)) == TSR_DTYPE_STRING) (*inputs_on_host)[i] = true;
  }
  for (int i = 0; i < node.num_outputs(); ++i) {
    if (BaseType(node.output_type(i)) == TSR_DTYPE_STRING) (*outputs_on_host)[i] = true;
  }
}

}  // namespace tessera
