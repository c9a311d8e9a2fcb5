// The Kernel base class and RegisterKernel<K>(), which builds a TSR_KernelRegistration whose C
// trampolines construct and run K and turn every exception into a status at the boundary.
#ifndef TESSERA_SDK_KERNEL_H_
#define TESSERA_SDK_KERNEL_H_

#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/host_api.h"
#include "tessera/sdk/kernel_context.h"
#include "tessera/sdk/status.h"

namespace tessera::sdk {

// A synchronous kernel. Compute may run concurrently for different steps: keep per-step data on
// the stack or in temporaries, never in members.
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual Status Compute(KernelContext& ctx) = 0;
};

// The dtypes a kernel accepts for one type attribute of its op.
struct TypeConstraint {
  std::string attr_name;
  std::vector<TSR_DataType> dtypes;
};

namespace internal {

// What a registration's user_data points at; lives until the process exits (the host may hold
// user_data for as long as the plugin is loaded, and plugins are never unloaded).
struct KernelInfo {
  std::string op_name;
};

inline KernelInfo* NewKernelInfo(const char* op_name) {
  static std::deque<KernelInfo>* infos = new std::deque<KernelInfo>();
  infos->push_back(KernelInfo{op_name});
  return &infos->back();
}

inline std::string Describe(const char* what, const char* node_name, const KernelInfo* info) {
  return StrCat(what, " of node '", node_name == nullptr ? "?" : node_name, "' (",
                info == nullptr ? "?" : info->op_name.c_str(), ")");
}

// Runs `body`, turning any exception into a status: StatusException keeps its code, everything
// else becomes INTERNAL naming the node.
template <typename Body, typename NameFn>
TSR_Status* GuardBoundary(const char* what, const KernelInfo* info, NameFn node_name,
                          Body&& body) noexcept {
  try {
    return body();
  } catch (const StatusException& e) {
    return MakeStatus(e.code(), e.what()).Release();
  } catch (const std::exception& e) {
    try {
      return Internal(Describe(what, node_name(), info), " threw an exception: ", e.what())
          .Release();
    } catch (...) {
      return HostApi()->Status_Create(TSR_CODE_INTERNAL, "kernel threw an exception");
    }
  } catch (...) {
    try {
      return Internal(Describe(what, node_name(), info), " threw an unknown exception").Release();
    } catch (...) {
      return HostApi()->Status_Create(TSR_CODE_INTERNAL, "kernel threw an exception");
    }
  }
}

template <typename K>
TSR_Status* CreateKernel(void* user_data, TSR_KernelConstruction* c_ctx, void** state) {
  const auto* info = static_cast<const KernelInfo*>(user_data);
  *state = nullptr;
  auto node_name = [c_ctx] { return HostApi()->KernelConstruction_GetNodeName(c_ctx); };
  return GuardBoundary("creating the kernel", info, node_name, [&]() -> TSR_Status* {
    KernelConstruction ctx(c_ctx);
    std::unique_ptr<Kernel> kernel;
    if constexpr (std::is_constructible_v<K, KernelConstruction&>) {
      kernel = std::make_unique<K>(ctx);
    } else {
      kernel = std::make_unique<K>();
    }
    if (!ctx.ok()) return ctx.TakeStatus().Release();
    *state = kernel.release();
    return nullptr;
  });
}

inline TSR_Status* ComputeKernel(void* state, TSR_KernelContext* c_ctx) {
  auto node_name = [c_ctx] { return HostApi()->KernelContext_GetNodeName(c_ctx); };
  return GuardBoundary("computing", nullptr, node_name, [&]() -> TSR_Status* {
    KernelContext ctx(c_ctx);
    return static_cast<Kernel*>(state)->Compute(ctx).Release();
  });
}

inline void DestroyKernel(void* state) { delete static_cast<Kernel*>(state); }

}  // namespace internal

// Registers kernel class K (derived from Kernel, constructible from KernelConstruction& or by
// default) for `op_name` on `device_type`. `host_memory_args` names inputs/outputs kept in host
// memory. Call during TSR_Plugin_Init only.
template <typename K>
Status RegisterKernel(TSR_Registrar* registrar, const char* op_name, const char* device_type,
                      const std::vector<TypeConstraint>& constraints, uint32_t flags = 0,
                      int32_t priority = 0, const std::vector<std::string>& host_memory_args = {}) {
  static_assert(std::is_base_of_v<Kernel, K>, "K must derive from tessera::sdk::Kernel");
  std::vector<TSR_TypeConstraint> c_constraints;
  c_constraints.reserve(constraints.size());
  for (const TypeConstraint& constraint : constraints) {
    TSR_TypeConstraint c{};
    c.struct_size = sizeof(TSR_TypeConstraint);
    c.attr_name = constraint.attr_name.c_str();
    c.dtypes = constraint.dtypes.data();
    c.num_dtypes = constraint.dtypes.size();
    c_constraints.push_back(c);
  }
  std::vector<const char*> c_host_memory_args;
  for (const std::string& arg : host_memory_args) c_host_memory_args.push_back(arg.c_str());

  TSR_KernelRegistration registration{};
  registration.struct_size = sizeof(TSR_KernelRegistration);
  registration.op_name = op_name;
  registration.device_type = device_type;
  registration.type_constraints = c_constraints.data();
  registration.num_type_constraints = c_constraints.size();
  registration.host_memory_args = c_host_memory_args.data();
  registration.num_host_memory_args = c_host_memory_args.size();
  registration.priority = priority;
  registration.flags = flags & ~static_cast<uint32_t>(TSR_KERNEL_FLAG_ASYNC);
  registration.user_data = internal::NewKernelInfo(op_name);
  registration.Create = &internal::CreateKernel<K>;
  registration.Compute = &internal::ComputeKernel;
  registration.Compute_Async = nullptr;
  registration.Destroy = &internal::DestroyKernel;
  return Status(HostApi()->Registrar_RegisterKernel(registrar, &registration));
}

}  // namespace tessera::sdk

#endif  // TESSERA_SDK_KERNEL_H_
