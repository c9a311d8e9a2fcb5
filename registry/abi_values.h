// Reading enum values that plugins wrote: a C plugin may store any int in an enum field, which
// C++ must not load as the enum type, so the host reads the raw integer and validates it.
#ifndef TESSERA_REGISTRY_ABI_VALUES_H_
#define TESSERA_REGISTRY_ABI_VALUES_H_

#include <cstring>
#include <type_traits>

#include "tessera/plugin_api/plugin_api.h"

namespace tessera {

// The integer stored in an enum field (no enum-typed load, so no undefined behaviour).
template <typename Enum>
int RawEnumValue(const Enum& value) {
  static_assert(std::is_enum_v<Enum> && sizeof(Enum) == sizeof(int), "a C enum field");
  int raw;
  std::memcpy(&raw, &value, sizeof(raw));
  return raw;
}

// True for the TSR_DataType values this ABI defines (TSR_DTYPE_INVALID excluded).
inline bool IsValidDataType(int raw) { return raw >= TSR_DTYPE_FLOAT && raw <= TSR_DTYPE_UINT64; }

}  // namespace tessera

#endif  // TESSERA_REGISTRY_ABI_VALUES_H_
