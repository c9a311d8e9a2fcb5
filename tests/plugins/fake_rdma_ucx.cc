// A library named as the rdma plugin's implementation whose table has another version, for the
// plugin's refusal of a mismatched implementation (rdma_transport_test).
#include "plugins/rdma/ucx_table.h"

namespace {
const tessera::rdma::UcxTable kWrongTable = {tessera::rdma::kUcxTableVersion + 1};
}  // namespace

extern "C" TSR_PLUGIN_EXPORT const tessera::rdma::UcxTable* tessera_rdma_ucx_table() {
  return &kWrongTable;
}
