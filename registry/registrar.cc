// Registration calls made by plugins during TSR_Plugin_Init.
#include "registry/registrar.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "registry/abi_op_def_builder.h"
#include "registry/abi_status.h"

namespace tessera {
namespace {

absl::Status CheckOpen(const TSR_Registrar* registrar, absl::string_view call) {
  if (registrar == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(call, ": registrar is NULL"));
  }
  if (!registrar->open) {
    return absl::FailedPreconditionError(absl::StrCat(
        call, ": plugin '", registrar->origin.plugin_name,
        "' registered after TSR_Plugin_Init returned (registration is only allowed during Init)"));
  }
  if (registrar->init_thread != std::this_thread::get_id()) {
    return absl::FailedPreconditionError(
        absl::StrCat(call, ": plugin '", registrar->origin.plugin_name,
                     "' registered from a thread other than the one running TSR_Plugin_Init"));
  }
  return absl::OkStatus();
}

// Remembers a refused registration and hands the plugin its own copy of the error.
TSR_Status* Refuse(TSR_Registrar* registrar, absl::Status status) {
  if (registrar != nullptr) registrar->errors.push_back(status);
  return ToAbiStatus(status);
}

}  // namespace

TSR_Status* RegistrarRegisterDeviceType(TSR_Registrar* registrar,
                                        const TSR_DeviceTypeRegistration* registration) {
  absl::Status open = CheckOpen(registrar, "Registrar_RegisterDeviceType");
  if (!open.ok()) return Refuse(registrar, open);
  if (registration == nullptr) {
    return Refuse(registrar, absl::InvalidArgumentError("device type registration is NULL"));
  }
  absl::StatusOr<DeviceTypeSpec> spec = MakeDeviceTypeSpec(*registration, registrar->origin);
  if (!spec.ok()) return Refuse(registrar, spec.status());
  for (const DeviceTypeSpec& existing : registrar->registrations.device_types) {
    if (existing.device_type == spec->device_type) {
      return Refuse(registrar,
                    absl::AlreadyExistsError(absl::StrCat("device type '", spec->device_type,
                                                          "' is registered twice by plugin '",
                                                          registrar->origin.plugin_name, "'")));
    }
  }
  registrar->registrations.device_types.push_back(*std::move(spec));
  return nullptr;
}

TSR_Status* RegistrarRegisterOp(TSR_Registrar* registrar, TSR_OpDefBuilder* builder) {
  absl::Status open = CheckOpen(registrar, "Registrar_RegisterOp");
  if (!open.ok()) {
    OpDefBuilderDestroy(builder);  // consumed also on failure
    return Refuse(registrar, open);
  }
  absl::StatusOr<OpSpec> spec = FinishOpDef(builder);
  if (!spec.ok()) return Refuse(registrar, spec.status());
  for (const OpSpec& existing : registrar->registrations.ops) {
    if (existing.name == spec->name) {
      return Refuse(registrar, absl::AlreadyExistsError(absl::StrCat(
                                   "op '", spec->name, "' is registered twice by plugin '",
                                   registrar->origin.plugin_name, "'")));
    }
  }
  spec->origin = registrar->origin;
  registrar->registrations.ops.push_back(*std::move(spec));
  return nullptr;
}

TSR_Status* RegistrarRegisterKernel(TSR_Registrar* registrar,
                                    const TSR_KernelRegistration* registration) {
  absl::Status open = CheckOpen(registrar, "Registrar_RegisterKernel");
  if (!open.ok()) return Refuse(registrar, open);
  if (registration == nullptr) {
    return Refuse(registrar, absl::InvalidArgumentError("kernel registration is NULL"));
  }
  absl::StatusOr<KernelSpec> spec = MakeKernelSpec(*registration, registrar->origin);
  if (!spec.ok()) return Refuse(registrar, spec.status());
  registrar->registrations.kernels.push_back(*std::move(spec));
  return nullptr;
}

TSR_Status* RegistrarRegisterTransport(TSR_Registrar* registrar,
                                       const TSR_TransportRegistration* registration) {
  absl::Status open = CheckOpen(registrar, "Registrar_RegisterTransport");
  if (!open.ok()) return Refuse(registrar, open);
  if (registration == nullptr) {
    return Refuse(registrar, absl::InvalidArgumentError("transport registration is NULL"));
  }
  absl::StatusOr<TransportSpec> spec = MakeTransportSpec(*registration, registrar->origin);
  if (!spec.ok()) return Refuse(registrar, spec.status());
  for (const TransportSpec& existing : registrar->registrations.transports) {
    if (existing.name == spec->name) {
      return Refuse(registrar, absl::AlreadyExistsError(absl::StrCat(
                                   "transport '", spec->name, "' is registered twice by plugin '",
                                   registrar->origin.plugin_name, "'")));
    }
  }
  registrar->registrations.transports.push_back(*std::move(spec));
  return nullptr;
}

}  // namespace tessera
