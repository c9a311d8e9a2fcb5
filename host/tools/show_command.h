// `tessera show`: what a SavedModel (or a MetaGraphDef file) holds: tag-sets, saver, init op,
// collections and signatures with each input and output's dtype, shape and tensor.
#ifndef TESSERA_HOST_TOOLS_SHOW_COMMAND_H_
#define TESSERA_HOST_TOOLS_SHOW_COMMAND_H_

#include <ostream>

#include "absl/status/status.h"
#include "host/tools/cli_args.h"

namespace tessera {
namespace cli {

// Reads the files only (no plugin, no session). Errors start with "tessera show: ": files that
// cannot be read keep their code; a tag-set or signature that is not there is NOT_FOUND naming
// the ones that are.
absl::Status ShowCommand(const ShowArgs& args, std::ostream& out);

}  // namespace cli
}  // namespace tessera

#endif  // TESSERA_HOST_TOOLS_SHOW_COMMAND_H_
