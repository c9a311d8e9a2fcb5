// A bounds-checked reader of the dynamic symbol table and dynamic section of an ELF64 file.
#include "kit/elf_file.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tessera::plugin_check {
namespace {

class Reader {
 public:
  Reader(const std::string& path, std::string bytes) : path_(path), bytes_(std::move(bytes)) {}

  // Copies a T from `offset`; false when it does not fit in the file.
  template <typename T>
  bool Read(uint64_t offset, T* out) const {
    if (offset > bytes_.size() || bytes_.size() - offset < sizeof(T)) return false;
    std::memcpy(out, bytes_.data() + offset, sizeof(T));
    return true;
  }

  // The NUL-terminated string at `offset` within the string table section `strtab`.
  bool String(const Elf64_Shdr& strtab, uint64_t offset, std::string* out) const {
    if (offset >= strtab.sh_size || strtab.sh_offset > bytes_.size() ||
        bytes_.size() - strtab.sh_offset < strtab.sh_size) {
      return false;
    }
    const char* begin = bytes_.data() + strtab.sh_offset + offset;
    const size_t room = strtab.sh_size - offset;
    const size_t length = strnlen(begin, room);
    if (length == room) return false;
    out->assign(begin, length);
    return true;
  }

  absl::Status Invalid(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat(path_, ": ", what));
  }

 private:
  std::string path_;
  std::string bytes_;
};

}  // namespace

absl::StatusOr<ElfDynamicInfo> ReadElfDynamicInfo(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  Reader reader(path, std::string(std::istreambuf_iterator<char>(file), {}));
  Elf64_Ehdr header;
  if (!reader.Read(0, &header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return reader.Invalid("not an ELF file");
  }
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB) {
    return absl::UnimplementedError(
        absl::StrCat(path, ": only 64-bit little-endian ELF files are read"));
  }
  if (header.e_shentsize != sizeof(Elf64_Shdr)) return reader.Invalid("unexpected section size");
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  for (size_t i = 0; i < sections.size(); ++i) {
    if (!reader.Read(header.e_shoff + i * sizeof(Elf64_Shdr), &sections[i])) {
      return reader.Invalid("section headers out of bounds");
    }
  }
  ElfDynamicInfo info;
  for (const Elf64_Shdr& section : sections) {
    if (section.sh_type != SHT_DYNSYM && section.sh_type != SHT_DYNAMIC) continue;
    if (section.sh_link >= sections.size()) return reader.Invalid("bad string table link");
    const Elf64_Shdr& strtab = sections[section.sh_link];
    if (section.sh_type == SHT_DYNSYM) {
      for (uint64_t offset = sizeof(Elf64_Sym); offset + sizeof(Elf64_Sym) <= section.sh_size;
           offset += sizeof(Elf64_Sym)) {  // entry 0 is the null symbol
        Elf64_Sym symbol;
        std::string name;
        if (!reader.Read(section.sh_offset + offset, &symbol) ||
            !reader.String(strtab, symbol.st_name, &name)) {
          return reader.Invalid("dynamic symbol table out of bounds");
        }
        const int binding = ELF64_ST_BIND(symbol.st_info);
        const int visibility = ELF64_ST_VISIBILITY(symbol.st_other);
        if (name.empty() || (binding != STB_GLOBAL && binding != STB_WEAK)) continue;
        if (symbol.st_shndx == SHN_UNDEF) {
          info.undefined.push_back(name);
        } else if (visibility == STV_DEFAULT || visibility == STV_PROTECTED) {
          info.exported.push_back(name);
        }
      }
    } else {
      for (uint64_t offset = 0; offset + sizeof(Elf64_Dyn) <= section.sh_size;
           offset += sizeof(Elf64_Dyn)) {
        Elf64_Dyn entry;
        if (!reader.Read(section.sh_offset + offset, &entry)) {
          return reader.Invalid("dynamic section out of bounds");
        }
        if (entry.d_tag == DT_NULL) break;
        if (entry.d_tag != DT_RUNPATH && entry.d_tag != DT_RPATH) continue;
        std::string value;
        if (!reader.String(strtab, entry.d_un.d_val, &value)) {
          return reader.Invalid("RUNPATH string out of bounds");
        }
        info.search_paths.push_back(value);
      }
    }
  }
  return info;
}

std::vector<std::string> SearchPathProblems(const std::string& value) {
  std::vector<std::string> problems;
  for (absl::string_view entry : absl::StrSplit(value, ':')) {
    if (entry.empty()) {
      problems.push_back("an empty entry: the current directory");
    } else if (entry[0] != '/' && entry.rfind("$ORIGIN", 0) != 0 &&
               entry.rfind("${ORIGIN}", 0) != 0) {
      problems.push_back(absl::StrCat("'", entry, "', a relative entry: depends on the current "
                                      "directory"));
    }
  }
  return problems;
}

}  // namespace tessera::plugin_check
