// Writes seed inputs for bundle_reader_fuzzer into a folder: small checkpoints written by
// BundleWriter (whole tensors of several dtypes, slices, an empty checkpoint), each packed both
// ways the fuzzer reads them: the raw index, and the index's entries as records.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include "host/checkpoint/bundle_format.h"
#include "host/checkpoint/bundle_writer.h"
#include "host/checkpoint/coding.h"
#include "host/checkpoint/file_io.h"
#include "host/checkpoint/table_reader.h"

namespace {

using tessera::Tensor;
using tessera::TensorShape;
using tessera::checkpoint::BundleWriter;
using tessera::checkpoint::TensorSlice;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool WriteSeed(const std::filesystem::path& folder, const std::string& name,
               const std::function<bool(BundleWriter*)>& fill) {
  const std::string prefix = (folder / ("tmp_" + name)).string();
  auto writer = BundleWriter::Create(prefix);
  if (!writer.ok() || !fill(writer->get()) || !(*writer)->Finish().ok()) return false;
  const std::string index = ReadAll(tessera::checkpoint::MetaFilename(prefix));
  const std::string data = ReadAll(tessera::checkpoint::DataFilename(prefix, 0, 1));
  std::string seed;
  tessera::checkpoint::PutFixed32(&seed, static_cast<uint32_t>(index.size()));
  seed += index + data;
  std::ofstream(folder / (name + ".bin"), std::ios::binary) << seed;
  // The same checkpoint as records (all entries but the header, which the fuzzer adds).
  auto entries = tessera::checkpoint::ReadTable(*tessera::checkpoint::NewMemoryFile("", index));
  if (!entries.ok()) return false;
  std::string records;
  for (size_t i = 1; i < entries->size(); ++i) {
    tessera::checkpoint::PutVarint64(&records, (*entries)[i].first.size());
    records += (*entries)[i].first;
    tessera::checkpoint::PutVarint64(&records, (*entries)[i].second.size());
    records += (*entries)[i].second;
  }
  std::string record_seed;
  tessera::checkpoint::PutFixed32(&record_seed,
                                  static_cast<uint32_t>(records.size()) | 0x80000000u);
  record_seed += records + data;
  std::ofstream(folder / (name + "_records.bin"), std::ios::binary) << record_seed;
  std::filesystem::remove(tessera::checkpoint::MetaFilename(prefix));
  std::filesystem::remove(tessera::checkpoint::DataFilename(prefix, 0, 1));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bundle_fuzz_seeds OUTPUT_FOLDER\n");
    return 2;
  }
  const std::filesystem::path folder(argv[1]);
  std::filesystem::create_directories(folder);
  bool ok = true;
  ok &= WriteSeed(folder, "empty", [](BundleWriter*) { return true; });
  ok &= WriteSeed(folder, "dtypes", [](BundleWriter* w) {
    return w->Add("a/float", Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4})).ok() &&
           w->Add("b/int64", Tensor::Vector<int64_t>({7, -8, 9})).ok() &&
           w->Add("c/bool", Tensor::Scalar<bool>(true)).ok() &&
           w->Add("d/empty", Tensor(TSR_DTYPE_DOUBLE, TensorShape{0, 3})).ok();
  });
  ok &= WriteSeed(folder, "slices", [](BundleWriter* w) {
    const TensorShape full{4, 2};
    return w->AddSlice("w", full, TensorSlice{{0, 2}, {0, -1}},
                       Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4}))
               .ok() &&
           w->AddSlice("w", full, TensorSlice{{2, 2}, {0, -1}},
                       Tensor::FromVector<float>({2, 2}, {5, 6, 7, 8}))
               .ok() &&
           w->Add("step", Tensor::Scalar<int64_t>(42)).ok();
  });
  if (!ok) {
    std::fprintf(stderr, "bundle_fuzz_seeds: could not write the seeds into '%s'\n", argv[1]);
    return 1;
  }
  return 0;
}
