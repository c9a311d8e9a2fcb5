// What the end-to-end tests of the `tessera` program share: a small graph (in .pbtxt and .pb) and
// its feed written to a fresh folder per test, and running the program with its stdout, stderr
// and exit status collected.
#ifndef TESSERA_TESTS_END_TO_END_CLI_TEST_UTIL_H_
#define TESSERA_TESTS_END_TO_END_CLI_TEST_UTIL_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/client/npy.h"
#include "host/framework/proto/graph.pb.h"

namespace tessera {

// x [?, 2] -> dense/MatMul (x . w) -> y = dense/MatMul + b.
inline constexpr char kGraphText[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value {
        shape {
          dim { size: -1 }
          dim { size: 2 }
        }
      }
    }
  }
  node {
    name: "w"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {
            dim { size: 2 }
            dim { size: 2 }
          }
          float_val: 1
          float_val: 2
          float_val: 3
          float_val: 4
        }
      }
    }
  }
  node {
    name: "b"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 2 } }
          float_val: 10
          float_val: 20
        }
      }
    }
  }
  node {
    name: "dense/MatMul"
    op: "MatMul"
    input: "x"
    input: "w"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "y"
    op: "AddV2"
    input: "dense/MatMul"
    input: "b"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

struct Result {
  int exit_status = -1;
  std::string out;
  std::string err;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline std::string Quote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir_ = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/tessera_cli_e2e_", getpid(), "_",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    // The graph in both formats, and the feed x = identity matrix.
    std::ofstream(Path("graph.pbtxt")) << kGraphText;
    tensorflow::GraphDef def;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kGraphText, &def));
    std::ofstream(Path("graph.pb"), std::ios::binary) << def.SerializeAsString();
    ASSERT_TRUE(WriteNpy(Tensor::FromVector<float>({2, 2}, {1, 0, 0, 1}), Path("x.npy")).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // Runs `tessera ARGS...` and collects its exit status, stdout and stderr; `env` is set for
  // the program only.
  Result Tessera(const std::vector<std::string>& args,
                 const std::map<std::string, std::string>& env = {}) const {
    std::string command;
    for (const auto& [name, value] : env) command += name + "=" + Quote(value) + " ";
    command += Quote(TESSERA_CLI);
    for (const std::string& arg : args) command += " " + Quote(arg);
    command += " >" + Quote(Path("stdout.txt")) + " 2>" + Quote(Path("stderr.txt"));
    int status = std::system(command.c_str());
    Result result;
    result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = ReadFile(Path("stdout.txt"));
    result.err = ReadFile(Path("stderr.txt"));
    return result;
  }

  // Expects a usage error: exit status 2, nothing on stdout, `message` on stderr.
  void ExpectUsageError(const std::vector<std::string>& args, const std::string& message) const {
    Result r = Tessera(args);
    EXPECT_EQ(r.exit_status, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, message + "\n");
  }

  std::string dir_;
};

}  // namespace tessera

#endif  // TESSERA_TESTS_END_TO_END_CLI_TEST_UTIL_H_
