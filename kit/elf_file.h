// Reads what the ABI suite checks in a plugin's shared object: its dynamic symbols and its
// RUNPATH/RPATH. Internal to kit/.
#ifndef TESSERA_KIT_ELF_FILE_H_
#define TESSERA_KIT_ELF_FILE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tessera::plugin_check {

struct ElfDynamicInfo {
  // Global or weak symbols of .dynsym that the library defines with default or protected
  // visibility: what it exports.
  std::vector<std::string> exported;
  // Symbols of .dynsym left for the loader to resolve elsewhere.
  std::vector<std::string> undefined;
  // The values of DT_RUNPATH and DT_RPATH, in the order they appear.
  std::vector<std::string> search_paths;
};

// Parses a 64-bit little-endian ELF file. NOT_FOUND when it cannot be read, INVALID_ARGUMENT
// naming the file when it is not such an ELF file or its tables are out of bounds, UNIMPLEMENTED
// for other ELF classes.
absl::StatusOr<ElfDynamicInfo> ReadElfDynamicInfo(const std::string& path);

// The problems of one RUNPATH/RPATH value, as scripts/check_runpath.py states them: an empty
// entry (the current directory) or a relative one. Empty when there are none.
std::vector<std::string> SearchPathProblems(const std::string& value);

}  // namespace tessera::plugin_check

#endif  // TESSERA_KIT_ELF_FILE_H_
