// Writes the TensorFlow 1 test SavedModel (testdata/tf1_half_plus_two.meta.pbtxt, its variables
// saved by its own saver) into a folder, for test suites that cannot build one themselves (the C
// API's, in C).
//   make_test_saved_model DIR
#include <cstdio>
#include <filesystem>

#include "host/saved_model/saved_model_test_util.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_test_saved_model DIR\n");
    return 2;
  }
  absl::StatusOr<tensorflow::MetaGraphDef> meta =
      tessera::ReadMetaGraphDefFile(TESSERA_SAVED_MODEL_TESTDATA "/tf1_half_plus_two.meta.pbtxt");
  if (!meta.ok()) {
    std::fprintf(stderr, "%s\n", meta.status().ToString().c_str());
    return 1;
  }
  std::filesystem::remove_all(argv[1]);
  absl::Status status = tessera::testing::WriteTf1SavedModelTo(argv[1], *meta);
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
