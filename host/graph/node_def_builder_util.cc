// UniqueNames and the small NodeDef helpers of the GraphDef rewrites.
#include "host/graph/node_def_builder_util.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessera {

std::string UniqueNames::NewName(const std::string& wanted) {
  if (names_.insert(wanted).second) return wanted;
  for (int& n = next_suffix_[wanted];;) {
    std::string name = absl::StrCat(wanted, "_", ++n);
    if (names_.insert(name).second) return name;
  }
}

std::string OutputName(const std::string& node, int index) {
  return index == 0 ? node : absl::StrCat(node, ":", index);
}

std::string TypeListString(const std::vector<DataType>& types) {
  std::vector<std::string> names;
  names.reserve(types.size());
  for (DataType type : types) names.push_back(DataTypeString(type));
  return absl::StrCat("[", absl::StrJoin(names, ", "), "]");
}

void SetTypeAttr(tensorflow::NodeDef* node, absl::string_view name, DataType type) {
  (*node->mutable_attr())[std::string(name)].set_type(static_cast<tensorflow::DataType>(type));
}

void SetResultsOp(const std::vector<DataType>& types, tensorflow::NodeDef* node) {
  if (types.empty()) {
    node->set_op("NoOp");
  } else if (types.size() == 1) {
    node->set_op("Identity");
    SetTypeAttr(node, "T", types[0]);
  } else {
    node->set_op("IdentityN");
    tensorflow::AttrValue::ListValue* list = (*node->mutable_attr())["T"].mutable_list();
    for (DataType type : types) list->add_type(static_cast<tensorflow::DataType>(type));
  }
}

}  // namespace tessera
