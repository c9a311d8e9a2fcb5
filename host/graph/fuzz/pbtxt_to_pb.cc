// Build-time tool: converts a text-format GraphDef seed into the binary form the fuzzer mutates.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "google/protobuf/text_format.h"
#include "host/framework/proto/graph.pb.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s in.pbtxt out.pb\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  tensorflow::GraphDef def;
  if (!google::protobuf::TextFormat::ParseFromString(text, &def)) {
    std::fprintf(stderr, "%s: not a text GraphDef\n", argv[1]);
    return 1;
  }
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  if (!def.SerializeToOstream(&out)) {
    std::fprintf(stderr, "%s: cannot write\n", argv[2]);
    return 1;
  }
  return 0;
}
