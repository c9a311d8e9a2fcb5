// OneDnnConvolution: oneDNN convolution primitives (one per distinct piece shape and post-ops,
// cached; a bias and an activation run inside the primitive) over pieces of the output, and the filter's reorder into the primitives' layout, both spread over
// the host's pool with every oneDNN call held to its thread.
#include "plugins/cpu/kernels/conv_onednn.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "plugins/cpu/kernels/gemm/parallel.h"

#if TESSERA_CPU_HAVE_ONEDNN
#include <dnnl.hpp>
#if DNNL_CPU_RUNTIME != DNNL_RUNTIME_OMP && DNNL_CPU_RUNTIME != DNNL_RUNTIME_SEQ
#error "the CPU plugin needs an OpenMP or sequential build of oneDNN"
#endif
#endif

namespace tessera::cpu {

#if TESSERA_CPU_HAVE_ONEDNN
namespace {

// Contexts a plan keeps for its next runs (more are made when runs overlap, and dropped after).
constexpr size_t kMaxIdleContexts = 2;
// Pieces are balanced when the last round of pieces keeps this share of the threads busy.
constexpr double kMinBalance = 0.85;
// Below this many flops the whole convolution is one piece.
constexpr double kMinParallelFlops = 1e7;
// A filter larger than a core's cache is cut by output channels rather than streamed by every
// thread; channel groups fall on multiples of kChannelAlign.
constexpr double kCoreCacheBytes = 1 << 20;
constexpr int64_t kChannelAlign = 64;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

dnnl::engine& Engine() {
  static dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

// A 64-byte-aligned buffer.
class Buffer {
 public:
  explicit Buffer(size_t size) : storage_(new char[size + 64]), size_(size) {}
  void* data() const {
    const uintptr_t address = reinterpret_cast<uintptr_t>(storage_.get());
    return reinterpret_cast<void*>((address + 63) & ~uintptr_t{63});
  }
  size_t size() const { return size_; }

 private:
  std::unique_ptr<char[]> storage_;
  size_t size_;
};

// Images [image, image + images), output rows [row0, row1) and output channels [oc0, oc1) of
// each, read from input rows [in_row0, in_row0 + in_rows) with the given extra paddings (the
// bottom one may be negative: trailing input rows the window never reaches).
struct Piece {
  int64_t image = 0, images = 0, row0 = 0, row1 = 0, oc0 = 0, oc1 = 0;
  int64_t in_row0 = 0, in_rows = 0, pad_top = 0, pad_bottom = 0;
  int64_t channels() const { return oc1 - oc0; }
  std::vector<int64_t> Key(const ConvGeometry& g) const {
    return {images,        row1 - row0,     in_rows,         pad_top,
            pad_bottom,    channels(),      g.in_cols,       g.in_depth,
            g.out_cols,    g.filter_rows,   g.filter_cols,   g.stride_rows,
            g.stride_cols, g.dilation_rows, g.dilation_cols, g.pad_left};
  }
};

struct Primitive {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
};

struct Reorder {
  dnnl::memory::desc from, to;
  dnnl::reorder primitive;
  dnnl::memory::desc scratch;
};

// Cuts the output into pieces so that the threads end together: whole images when there are
// enough of them; else groups of output channels when the filter is larger than an image or than
// a core's cache (each thread then reads only its share of the filter); else bands of output
// rows.
std::vector<Piece> PlanPieces(const ConvGeometry& g, int threads) {
  const double flops = 2.0 * static_cast<double>(g.batch * g.out_rows * g.out_cols) *
                       static_cast<double>(g.out_depth * g.gemm_depth());
  int64_t bands = 1;
  int64_t channel_groups = 1;
  int64_t images_per_piece = g.batch;
  if (threads > 1 && flops >= kMinParallelFlops) {
    // A few pieces per thread for short convolutions (pool threads wake late; the calling thread
    // takes their pieces meanwhile).
    const double per_thread = flops / threads;
    const int64_t wanted = threads * (per_thread < 2e8 ? 4 : per_thread < 1e9 ? 2 : 1);
    const double filter_bytes = 4.0 * static_cast<double>(g.gemm_depth() * g.out_depth);
    const double image_bytes = 4.0 * static_cast<double>(g.in_rows * g.in_cols * g.in_depth);
    images_per_piece = 1;
    if (g.batch >= wanted) {
      // As few pieces of whole images as keep the threads busy: every piece streams the whole
      // filter.
      const int64_t images = CeilDiv(g.batch, wanted);
      const int64_t pieces = CeilDiv(g.batch, images);
      const double balance = static_cast<double>(g.batch) /
                             static_cast<double>(threads * images * CeilDiv(pieces, threads));
      if (balance >= kMinBalance) images_per_piece = images;
    }
    if (images_per_piece == 1) {
      const bool by_channels = g.out_depth >= 2 * kChannelAlign &&
                               (filter_bytes > kCoreCacheBytes || filter_bytes > image_bytes);
      int64_t& cuts = by_channels ? channel_groups : bands;
      const int64_t limit =
          by_channels ? g.out_depth / kChannelAlign : std::min<int64_t>(g.out_rows, 8 * threads);
      // One channel group per thread: with one image, each group's piece reorders its own part
      // of the filter and waits for no other (Plan::fused). Bands wait for the whole filter's
      // reorder, so short convolutions get a few per thread.
      cuts = std::min(limit, CeilDiv(by_channels ? threads : wanted, g.batch));
      // Enough pieces for the last round to keep the threads busy.
      for (int64_t candidate = cuts; candidate <= limit; ++candidate) {
        const int64_t pieces = g.batch * candidate;
        const double balance =
            static_cast<double>(pieces) / static_cast<double>(threads * CeilDiv(pieces, threads));
        if (balance >= kMinBalance) {
          cuts = candidate;
          break;
        }
      }
    }
  }
  std::vector<Piece> pieces;
  const int64_t band_rows = CeilDiv(g.out_rows, bands);
  const int64_t window = (g.filter_rows - 1) * g.dilation_rows + 1;
  for (int64_t image = 0; image < g.batch; image += images_per_piece) {
    for (int64_t row0 = 0; row0 < g.out_rows; row0 += band_rows) {
      for (int64_t group = 0; group < channel_groups; ++group) {
        Piece piece;
        piece.image = image;
        piece.images = std::min(images_per_piece, g.batch - image);
        piece.row0 = row0;
        piece.row1 = std::min(g.out_rows, row0 + band_rows);
        // Channel groups on multiples of kChannelAlign (oneDNN's filter blocks).
        const int64_t blocks = CeilDiv(g.out_depth, kChannelAlign);
        piece.oc0 = std::min(g.out_depth, blocks * group / channel_groups * kChannelAlign);
        piece.oc1 = std::min(g.out_depth, blocks * (group + 1) / channel_groups * kChannelAlign);
        const int64_t first = piece.row0 * g.stride_rows - g.pad_top;
        const int64_t end = (piece.row1 - 1) * g.stride_rows - g.pad_top + window;
        piece.in_row0 = std::max<int64_t>(0, first);
        const int64_t in_end = piece.row1 == g.out_rows ? g.in_rows : std::min(g.in_rows, end);
        piece.in_rows = in_end - piece.in_row0;
        piece.pad_top = piece.in_row0 - first;
        piece.pad_bottom = end - in_end;
        pieces.push_back(piece);
      }
    }
  }
  return pieces;
}

dnnl::memory::dims Dims(std::initializer_list<int64_t> values) {
  return dnnl::memory::dims(values.begin(), values.end());
}

}  // namespace

struct RunContext;

// Everything a run of one geometry on a given number of threads needs, built once per kernel:
// the pieces, their primitives, the filter's layouts and its reorders, and the memory sizes.
struct Plan {
  // Output channels [oc0, oc1) of the filter in one primitive layout, at `offset` in the run's
  // filter buffer.
  struct Group {
    int64_t oc0, oc1;
    dnnl::memory::desc weights;
    size_t offset;
  };
  struct ReorderItem {
    std::shared_ptr<Reorder> reorder;
    size_t offset;  // of its target in the filter buffer
  };
  std::vector<Piece> pieces;
  std::vector<std::shared_ptr<Primitive>> primitives;  // one per piece
  std::vector<int> group_of;                           // one per piece
  std::vector<Group> groups;
  std::vector<ReorderItem> reorders;
  // Each piece has its own channel group and reorder, so one item reorders its group's filter
  // and then runs its piece, with no wait for the other reorders.
  bool fused = false;
  size_t scratch = 64;     // bytes of the largest scratchpad
  size_t filter_size = 0;  // bytes of the reordered filter
  size_t staging = 0;      // floats a piece of some channels writes before its copy into place
  bool declined = false;   // oneDNN has no fast primitive here: the caller uses another path

  // Contexts of finished runs, kept for the next ones (at most kMaxIdleContexts).
  mutable std::mutex mu;
  mutable std::vector<std::unique_ptr<RunContext>> idle;
};

// What one run of a plan needs besides the plan, made on a plan's first run and reused by the
// later ones, so that a run allocates nothing: the filter in the primitives' layout, per worker a
// stream, a scratchpad and a staging buffer, and per item the memory objects of its arguments
// (pointed at each run's input and output with set_data_handle). Concurrent runs of one plan each
// take their own.
struct RunContext {
  struct ReorderArguments {
    dnnl::memory from, to, scratch;
  };
  struct PieceArguments {
    dnnl::memory src, weights, bias, dst, scratch;
  };
  Buffer filter;
  std::vector<dnnl::stream> streams;
  std::vector<Buffer> scratchpads;
  std::vector<Buffer> stagings;
  std::vector<ReorderArguments> reorders;  // one per Plan::reorders
  std::vector<PieceArguments> pieces;      // one per Plan::pieces

  RunContext(const Plan& plan, int workers) : filter(std::max<size_t>(plan.filter_size, 64)) {
    char* filters = static_cast<char*>(filter.data());
    for (int i = 0; i < workers; ++i) {
      streams.emplace_back(Engine());
      scratchpads.emplace_back(plan.scratch);
      if (plan.staging > 0) stagings.emplace_back(plan.staging * sizeof(float));
    }
    for (const Plan::ReorderItem& item : plan.reorders) {
      ReorderArguments args;
      args.from = dnnl::memory(item.reorder->from, Engine(), DNNL_MEMORY_NONE);
      args.to = dnnl::memory(item.reorder->to, Engine(), filters + item.offset);
      if (item.reorder->scratch.get_size() > 0) {
        args.scratch = dnnl::memory(item.reorder->scratch, Engine(), DNNL_MEMORY_NONE);
      }
      reorders.push_back(std::move(args));
    }
    for (size_t i = 0; i < plan.pieces.size(); ++i) {
      const Primitive& primitive = *plan.primitives[i];
      const Plan::Group& group = plan.groups[plan.group_of[i]];
      PieceArguments args;
      args.src = dnnl::memory(primitive.pd.src_desc(), Engine(), DNNL_MEMORY_NONE);
      args.weights = dnnl::memory(group.weights, Engine(), filters + group.offset);
      args.dst = dnnl::memory(primitive.pd.dst_desc(), Engine(), DNNL_MEMORY_NONE);
      if (primitive.pd.bias_desc().get_size() > 0) {
        args.bias = dnnl::memory(primitive.pd.bias_desc(), Engine(), DNNL_MEMORY_NONE);
      }
      if (primitive.pd.scratchpad_desc().get_size() > 0) {
        args.scratch = dnnl::memory(primitive.pd.scratchpad_desc(), Engine(), DNNL_MEMORY_NONE);
      }
      pieces.push_back(std::move(args));
    }
  }
};

struct OneDnnConvolution::Impl {
  std::mutex mu;
  std::map<std::vector<int64_t>, std::shared_ptr<const Plan>> plans;
  std::map<std::vector<int64_t>, std::shared_ptr<Primitive>> primitives;
  std::map<std::vector<int64_t>, std::shared_ptr<Reorder>> reorders;

  // Caches stay small: a kernel sees few shapes, and a new one only costs a rebuild. Plans are
  // fewer: each keeps its runs' memory (a reordered filter, scratchpads and stagings).
  static constexpr size_t kMaxCached = 64;
  static constexpr size_t kMaxPlans = 8;

  std::shared_ptr<const Plan> GetPlan(const ConvGeometry& g, int threads,
                                      const ConvPostOps& post) {
    std::vector<int64_t> key = {
        threads,       g.batch,       g.in_rows,      g.in_cols,       g.in_depth,
        g.filter_rows, g.filter_cols, g.filter_depth, g.out_depth,     g.out_rows,
        g.out_cols,    g.stride_rows, g.stride_cols,  g.dilation_rows, g.dilation_cols,
        g.pad_top,     g.pad_bottom,  g.pad_left,     g.pad_right};
    AppendPostOpsKey(post, &key);
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = plans.find(key);
      if (it != plans.end()) return it->second;
    }
    std::shared_ptr<const Plan> plan = BuildPlan(g, threads, post);
    std::lock_guard<std::mutex> lock(mu);
    if (plans.size() >= kMaxPlans) plans.clear();
    plans.emplace(key, plan);
    return plan;
  }

  std::shared_ptr<const Plan> BuildPlan(const ConvGeometry& g, int threads,
                                        const ConvPostOps& post) {
    auto plan = std::make_shared<Plan>();
    plan->declined = true;
    if (g.groups() != 1) return plan;
    plan->pieces = PlanPieces(g, threads);
    try {
      // Primitives are built with OpenMP held to one thread: oneDNN sizes its work for the
      // threads it will run on.
      SingleThreadedOpenMp single_threaded;
      for (const Piece& piece : plan->pieces) {
        if (piece.in_rows <= 0) return plan;
        plan->primitives.push_back(GetPrimitive(g, piece, post));
        if (plan->primitives.back() == nullptr) return plan;
        const dnnl::memory::desc weights = plan->primitives.back()->pd.weights_desc();
        size_t group = 0;
        while (group < plan->groups.size() && plan->groups[group].oc0 != piece.oc0) ++group;
        if (group == plan->groups.size()) {
          plan->groups.push_back({piece.oc0, piece.oc1, weights, plan->filter_size});
          plan->filter_size += (weights.get_size() + 63) / 64 * 64;
        }
        if (plan->groups[group].weights != weights) return plan;
        plan->group_of.push_back(static_cast<int>(group));
        plan->scratch =
            std::max(plan->scratch, plan->primitives.back()->pd.scratchpad_desc().get_size());
        if (piece.channels() != g.out_depth) {
          plan->staging = std::max<size_t>(plan->staging, piece.images * (piece.row1 - piece.row0) *
                                                              g.out_cols * piece.channels());
        }
      }
      if (plan->groups.size() == 1) {
        // One filter for every piece: its reorder cut along output channels on the layout's
        // channel blocks (when the layout has no padding to fill).
        const dnnl_memory_desc_t& raw = plan->groups[0].weights.data;
        int64_t block = 1;
        for (int i = 0; i < raw.format_desc.blocking.inner_nblks; ++i) {
          if (raw.format_desc.blocking.inner_idxs[i] == 0) {
            block *= raw.format_desc.blocking.inner_blks[i];
          }
        }
        bool padded = false;
        for (int i = 0; i < raw.ndims; ++i) padded |= raw.padded_dims[i] != raw.dims[i];
        const int64_t blocks = CeilDiv(g.out_depth, block);
        const int64_t parts = padded ? 1 : std::min<int64_t>(blocks, threads);
        for (int64_t part = 0; part < parts; ++part) {
          const int64_t o0 = blocks * part / parts * block;
          const int64_t o1 = std::min(g.out_depth, blocks * (part + 1) / parts * block);
          plan->reorders.push_back({GetReorder(g, plan->groups[0].weights, o0, o1), 0});
        }
      } else {
        for (const Plan::Group& group : plan->groups) {
          plan->reorders.push_back(
              {GetReorder(g, group.weights, group.oc0, group.oc1), group.offset});
        }
        plan->fused = plan->groups.size() == plan->pieces.size();
      }
      for (const Plan::ReorderItem& item : plan->reorders) {
        plan->scratch = std::max(plan->scratch, item.reorder->scratch.get_size());
      }
    } catch (const dnnl::error&) {
      return plan;
    }
    plan->declined = false;
    return plan;
  }

  // Whether there is a bias, the activation and its alpha's bits.
  static void AppendPostOpsKey(const ConvPostOps& post, std::vector<int64_t>* key) {
    uint32_t alpha_bits = 0;
    std::memcpy(&alpha_bits, &post.leakyrelu_alpha, sizeof(alpha_bits));
    key->push_back(post.bias != nullptr);
    key->push_back(static_cast<int64_t>(post.activation));
    key->push_back(alpha_bits);
  }

  std::shared_ptr<Primitive> GetPrimitive(const ConvGeometry& g, const Piece& piece,
                                          const ConvPostOps& post) {
    std::vector<int64_t> key = piece.Key(g);
    AppendPostOpsKey(post, &key);
    std::lock_guard<std::mutex> lock(mu);
    auto it = primitives.find(key);
    if (it != primitives.end()) return it->second;
    using dnnl::memory;
    const memory::desc src(Dims({piece.images, g.in_depth, piece.in_rows, g.in_cols}),
                           memory::data_type::f32, memory::format_tag::nhwc);
    const memory::desc weights(Dims({piece.channels(), g.in_depth, g.filter_rows, g.filter_cols}),
                               memory::data_type::f32, memory::format_tag::any);
    const memory::desc dst(
        Dims({piece.images, piece.channels(), piece.row1 - piece.row0, g.out_cols}),
        memory::data_type::f32, memory::format_tag::nhwc);
    const int64_t pad_right = (g.out_cols - 1) * g.stride_cols +
                              (g.filter_cols - 1) * g.dilation_cols + 1 - g.in_cols - g.pad_left;
    const memory::dims strides = Dims({g.stride_rows, g.stride_cols});
    const memory::dims dilations = Dims({g.dilation_rows - 1, g.dilation_cols - 1});
    const memory::dims pad_before = Dims({piece.pad_top, g.pad_left});
    const memory::dims pad_after = Dims({piece.pad_bottom, pad_right});
    const auto desc =
        post.bias != nullptr
            ? dnnl::convolution_forward::desc(
                  dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
                  weights,
                  memory::desc(Dims({piece.channels()}), memory::data_type::f32,
                               memory::format_tag::a),
                  dst, strides, dilations, pad_before, pad_after)
            : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                              dnnl::algorithm::convolution_direct, src, weights,
                                              dst, strides, dilations, pad_before, pad_after);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    // Elu and LeakyRelu run as oneDNN post-ops. Its Relu and clip (Relu6) take max(x, 0), which
    // turns a NaN into 0 where TensorFlow's keeps it, so Run applies those itself.
    if (post.activation == FusedActivation::kElu ||
        post.activation == FusedActivation::kLeakyRelu) {
      dnnl::post_ops ops;
      if (post.activation == FusedActivation::kElu) {
        ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_elu, 1.0f, 0.0f);
      } else {
        ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, post.leakyrelu_alpha, 0.0f);
      }
      attr.set_post_ops(ops);
    }
    dnnl::convolution_forward::primitive_desc pd(desc, attr, Engine());
    // oneDNN's reference implementation is far slower than im2col and a GEMM.
    if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0) return nullptr;
    auto primitive = std::make_shared<Primitive>(Primitive{pd, dnnl::convolution_forward(pd)});
    if (primitives.size() >= kMaxCached) primitives.clear();
    primitives.emplace(key, primitive);
    return primitive;
  }

  // The reorder of filter output channels [o0, o1) from HWIO into `to`'s layout: into that part
  // of `to` when `to` holds every output channel, else into all of `to`.
  std::shared_ptr<Reorder> GetReorder(const ConvGeometry& g, const dnnl::memory::desc& to,
                                      int64_t o0, int64_t o1) {
    using dnnl::memory;
    const memory::desc hwio(Dims({g.out_depth, g.in_depth, g.filter_rows, g.filter_cols}),
                            memory::data_type::f32, memory::format_tag::hwio);
    const memory::dims dims = Dims({o1 - o0, g.in_depth, g.filter_rows, g.filter_cols});
    const memory::dims offsets = Dims({o0, 0, 0, 0});
    const bool all_channels = o0 == 0 && o1 == g.out_depth;
    const bool whole_target = to.dims()[0] == o1 - o0;
    const memory::desc from = all_channels ? hwio : hwio.submemory_desc(dims, offsets);
    const memory::desc to_part = whole_target ? to : to.submemory_desc(dims, offsets);
    std::vector<int64_t> key = {g.out_depth, g.in_depth, g.filter_rows, g.filter_cols,
                                o0,          o1,         whole_target};
    const dnnl_memory_desc_t& raw = to.data;
    key.insert(key.end(), raw.format_desc.blocking.strides,
               raw.format_desc.blocking.strides + raw.ndims);
    key.insert(key.end(), raw.format_desc.blocking.inner_blks,
               raw.format_desc.blocking.inner_blks + raw.format_desc.blocking.inner_nblks);
    key.insert(key.end(), raw.format_desc.blocking.inner_idxs,
               raw.format_desc.blocking.inner_idxs + raw.format_desc.blocking.inner_nblks);
    std::lock_guard<std::mutex> lock(mu);
    auto it = reorders.find(key);
    if (it != reorders.end()) return it->second;
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::reorder::primitive_desc pd(Engine(), from, Engine(), to_part, attr);
    auto reorder =
        std::make_shared<Reorder>(Reorder{from, to_part, dnnl::reorder(pd), pd.scratchpad_desc()});
    if (reorders.size() >= kMaxCached) reorders.clear();
    reorders.emplace(key, reorder);
    return reorder;
  }
};

namespace {

// Executes `primitive` on `stream` with `args` (and `scratch` pointed at `scratchpad` when the
// primitive needs one) and waits.
void Execute(const dnnl::primitive& primitive, dnnl::stream& stream, const dnnl::memory& scratch,
             void* scratchpad, std::initializer_list<dnnl_exec_arg_t> given,
             const dnnl::memory* bias = nullptr) {
  dnnl_exec_arg_t args[5];
  int count = 0;
  for (const dnnl_exec_arg_t& arg : given) args[count++] = arg;
  if (scratch) {
    scratch.set_data_handle(scratchpad);
    args[count++] = {DNNL_ARG_SCRATCHPAD, scratch.get()};
  }
  if (bias != nullptr && *bias) args[count++] = {DNNL_ARG_BIAS, bias->get()};
  dnnl::error::wrap_c_api(dnnl_primitive_execute(primitive.get(), stream.get(), count, args),
                          "could not execute a primitive");
  stream.wait();
}

}  // namespace

OneDnnConvolution::OneDnnConvolution() : impl_(std::make_unique<Impl>()) {}
OneDnnConvolution::~OneDnnConvolution() = default;

bool OneDnnConvolution::Available() { return true; }

bool OneDnnConvolution::Run(const ConvGeometry& g, const float* input, const float* filter,
                            float* output, TSR_ThreadPool* pool, const ConvPostOps& post) {
  if (g.groups() != 1) return false;
  const int threads = UsableThreads(pool);
  const std::shared_ptr<const Plan> plan = impl_->GetPlan(g, threads, post);
  if (plan->declined) return false;
  // One pass over the pool: the filter's reorders first, then the pieces, which wait for the
  // last reorder to finish (it is already running on another worker). Fused plans run each
  // piece right after its own reorder.
  const int64_t parts = plan->fused ? 0 : static_cast<int64_t>(plan->reorders.size());
  const int64_t items = parts + static_cast<int64_t>(plan->pieces.size());
  std::unique_ptr<RunContext> context;
  {
    std::lock_guard<std::mutex> lock(plan->mu);
    if (!plan->idle.empty()) {
      context = std::move(plan->idle.back());
      plan->idle.pop_back();
    }
  }
  try {
    // A stream, a scratchpad and a staging buffer for each usable thread: the most workers
    // ParallelItems can start.
    if (context == nullptr) context = std::make_unique<RunContext>(*plan, threads);
  } catch (const dnnl::error&) {
    return false;
  }
  RunContext& run = *context;
  // Relu and Relu6 after each piece (see GetPrimitive).
  const bool own_activation = post.activation == FusedActivation::kRelu ||
                              post.activation == FusedActivation::kRelu6;
  FusedEpilogue epilogue;
  epilogue.activation = post.activation;
  std::atomic<bool> failed{false};
  std::atomic<int64_t> parts_done{0};
  const int64_t in_image = g.in_rows * g.in_cols * g.in_depth;
  const int64_t out_image = g.out_rows * g.out_cols * g.out_depth;
  auto reorder_filter = [&](int worker, size_t index) {
    RunContext::ReorderArguments& args = run.reorders[index];
    args.from.set_data_handle(const_cast<float*>(filter));
    Execute(plan->reorders[index].reorder->primitive, run.streams[worker], args.scratch,
            run.scratchpads[worker].data(),
            {{DNNL_ARG_FROM, args.from.get()}, {DNNL_ARG_TO, args.to.get()}});
  };
  ParallelItems(pool, items, 1e9, [&](int worker, int64_t item) {
    try {
      if (item < parts) {
        reorder_filter(worker, item);
        parts_done.fetch_add(1, std::memory_order_release);
        return;
      }
      const int64_t index = item - parts;
      if (plan->fused) {
        reorder_filter(worker, plan->group_of[index]);
      } else {
        while (parts_done.load(std::memory_order_acquire) < parts) std::this_thread::yield();
      }
      if (failed) return;
      const Piece& piece = plan->pieces[index];
      RunContext::PieceArguments& args = run.pieces[index];
      float* out = output + piece.image * out_image + piece.row0 * g.out_cols * g.out_depth;
      const bool staged = piece.channels() != g.out_depth;
      float* staging = staged ? static_cast<float*>(run.stagings[worker].data()) : nullptr;
      args.src.set_data_handle(const_cast<float*>(input + piece.image * in_image +
                                                  piece.in_row0 * g.in_cols * g.in_depth));
      args.dst.set_data_handle(staged ? staging : out);
      if (args.bias) args.bias.set_data_handle(const_cast<float*>(post.bias + piece.oc0));
      Execute(plan->primitives[index]->conv, run.streams[worker], args.scratch,
              run.scratchpads[worker].data(),
              {{DNNL_ARG_SRC, args.src.get()},
               {DNNL_ARG_WEIGHTS, args.weights.get()},
               {DNNL_ARG_DST, args.dst.get()}},
              &args.bias);
      const int64_t pixels = piece.images * (piece.row1 - piece.row0) * g.out_cols;
      if (own_activation) {
        // While the piece's output is still in this core's cache.
        epilogue.Activate(staged ? staging : out, pixels * piece.channels());
      }
      if (staged) {
        // The piece's channels into their columns of the output pixels.
        for (int64_t p = 0; p < pixels; ++p) {
          std::copy(staging + p * piece.channels(), staging + (p + 1) * piece.channels(),
                    out + p * g.out_depth + piece.oc0);
        }
      }
    } catch (const dnnl::error&) {
      failed = true;
      if (item < parts) parts_done.fetch_add(1, std::memory_order_release);
    }
  });
  std::lock_guard<std::mutex> lock(plan->mu);
  if (plan->idle.size() < kMaxIdleContexts) plan->idle.push_back(std::move(context));
  return !failed;
}

#else  // !TESSERA_CPU_HAVE_ONEDNN

struct OneDnnConvolution::Impl {};
OneDnnConvolution::OneDnnConvolution() = default;
OneDnnConvolution::~OneDnnConvolution() = default;
bool OneDnnConvolution::Available() { return false; }
bool OneDnnConvolution::Run(const ConvGeometry&, const float*, const float*, float*,
                            TSR_ThreadPool*, const ConvPostOps&) {
  return false;
}

#endif

}  // namespace tessera::cpu
