// The C++ graph-building API in one include: Scope, Output/Input and every typed op wrapper.
//
//   Scope root = Scope::NewRootScope();
//   auto x = ops::Placeholder(root.WithOpName("x"), TSR_DTYPE_FLOAT);
//   auto y = ops::MatMul(root, x, {{1.f}, {2.f}}, ops::MatMul::TransposeA(false));
//   absl::StatusOr<tensorflow::GraphDef> graph = root.ToGraphDef();
#ifndef TESSERA_HOST_CLIENT_OPS_H_
#define TESSERA_HOST_CLIENT_OPS_H_

#include "host/client/array_ops.h"
#include "host/client/conv3d_ops.h"
#include "host/client/conv_ops.h"
#include "host/client/data_flow_ops.h"
#include "host/client/image_ops.h"
#include "host/client/math_ops.h"
#include "host/client/nn_ops.h"
#include "host/client/output.h"
#include "host/client/random_ops.h"
#include "host/client/scope.h"
#include "host/client/state_ops.h"
#include "host/client/training_ops.h"

#endif  // TESSERA_HOST_CLIENT_OPS_H_
