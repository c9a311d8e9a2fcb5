// OneDnnConvolution: oneDNN convolution primitives (one per distinct piece shape, cached) over
// pieces of the output, and the filter's reorder into the primitives' layout, both spread over
// the host's pool with every oneDNN call held to its thread.
#include "plugins/cpu/kernels/conv_onednn.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
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
// enough of them; else, for a filter too large for a core's cache, groups of output channels
// (each thread then streams only its share of the filter); else bands of output rows.
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
      const bool by_channels = filter_bytes > kCoreCacheBytes && g.out_depth >= 2 * kChannelAlign;
      int64_t& cuts = by_channels ? channel_groups : bands;
      const int64_t limit =
          by_channels ? g.out_depth / kChannelAlign : std::min<int64_t>(g.out_rows, 8 * threads);
      cuts = std::min(limit, CeilDiv(wanted, g.batch));
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

struct OneDnnConvolution::Impl {
  std::mutex mu;
  std::map<std::vector<int64_t>, std::shared_ptr<Primitive>> primitives;
  std::map<std::vector<int64_t>, std::shared_ptr<Reorder>> reorders;
  std::vector<std::unique_ptr<Buffer>> free_buffers;

  // Caches stay small: a kernel sees few shapes, and a new one only costs a rebuild.
  static constexpr size_t kMaxCached = 64;

  std::shared_ptr<Primitive> GetPrimitive(const ConvGeometry& g, const Piece& piece) {
    const std::vector<int64_t> key = piece.Key(g);
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
    dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src, weights, dst,
        Dims({g.stride_rows, g.stride_cols}), Dims({g.dilation_rows - 1, g.dilation_cols - 1}),
        Dims({piece.pad_top, g.pad_left}), Dims({piece.pad_bottom, pad_right}));
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
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

  std::unique_ptr<Buffer> TakeBuffer(size_t size) {
    std::lock_guard<std::mutex> lock(mu);
    for (auto it = free_buffers.begin(); it != free_buffers.end(); ++it) {
      if ((*it)->size() >= size && (*it)->size() <= 2 * size) {
        std::unique_ptr<Buffer> buffer = std::move(*it);
        free_buffers.erase(it);
        return buffer;
      }
    }
    return std::make_unique<Buffer>(size);
  }
  void ReturnBuffer(std::unique_ptr<Buffer> buffer) {
    std::lock_guard<std::mutex> lock(mu);
    if (free_buffers.size() >= 2) free_buffers.erase(free_buffers.begin());
    free_buffers.push_back(std::move(buffer));
  }
};

OneDnnConvolution::OneDnnConvolution() : impl_(std::make_unique<Impl>()) {}
OneDnnConvolution::~OneDnnConvolution() = default;

bool OneDnnConvolution::Available() { return true; }

bool OneDnnConvolution::Run(const ConvGeometry& g, const float* input, const float* filter,
                            float* output, TSR_ThreadPool* pool) {
  if (g.groups() != 1) return false;
  const int threads = UsableThreads(pool);
  const std::vector<Piece> pieces = PlanPieces(g, threads);
  // Each channel group of the pieces has its filter reordered into its own part of one buffer.
  struct Group {
    int64_t oc0, oc1;
    dnnl::memory::desc weights;
    size_t offset;
  };
  std::vector<Group> groups;
  std::vector<int> group_of(pieces.size());
  std::vector<std::shared_ptr<Primitive>> primitives;
  struct ReorderItem {
    std::shared_ptr<Reorder> reorder;
    size_t offset;  // of its target in the filter buffer
  };
  std::vector<ReorderItem> reorders;
  size_t scratch = 64;
  size_t filter_size = 0;
  size_t staging = 0;  // floats a piece of some channels writes before its copy into the output
  try {
    // Primitives are built with OpenMP held to one thread: oneDNN sizes its work for the
    // threads it will run on.
    SingleThreadedOpenMp single_threaded;
    for (size_t i = 0; i < pieces.size(); ++i) {
      const Piece& piece = pieces[i];
      if (piece.in_rows <= 0) return false;
      primitives.push_back(impl_->GetPrimitive(g, piece));
      if (primitives.back() == nullptr) return false;
      const dnnl::memory::desc weights = primitives.back()->pd.weights_desc();
      size_t group = 0;
      while (group < groups.size() && groups[group].oc0 != piece.oc0) ++group;
      if (group == groups.size()) {
        groups.push_back({piece.oc0, piece.oc1, weights, filter_size});
        filter_size += (weights.get_size() + 63) / 64 * 64;
      }
      if (groups[group].weights != weights) return false;
      group_of[i] = static_cast<int>(group);
      scratch = std::max(scratch, primitives.back()->pd.scratchpad_desc().get_size());
      if (piece.channels() != g.out_depth) {
        staging = std::max<size_t>(
            staging, piece.images * (piece.row1 - piece.row0) * g.out_cols * piece.channels());
      }
    }
    if (groups.size() == 1) {
      // One filter for every piece: its reorder cut along output channels on the layout's
      // channel blocks (when the layout has no padding to fill).
      const dnnl_memory_desc_t& raw = groups[0].weights.data;
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
        reorders.push_back({impl_->GetReorder(g, groups[0].weights, o0, o1), 0});
      }
    } else {
      for (const Group& group : groups) {
        reorders.push_back(
            {impl_->GetReorder(g, group.weights, group.oc0, group.oc1), group.offset});
      }
    }
    for (const ReorderItem& item : reorders) {
      scratch = std::max(scratch, item.reorder->scratch.get_size());
    }
  } catch (const dnnl::error&) {
    return false;
  }

  std::unique_ptr<Buffer> filter_buffer = impl_->TakeBuffer(filter_size);
  char* filters = static_cast<char*>(filter_buffer->data());
  // One pass over the pool: the filter's reorders first, then the pieces, which wait for the
  // last reorder to finish (it is already running on another worker).
  const int64_t parts = static_cast<int64_t>(reorders.size());
  const int64_t items = parts + static_cast<int64_t>(pieces.size());
  const int workers = ParallelWorkers(pool, items, 1e9);
  std::vector<Buffer> scratchpads;
  std::vector<std::unique_ptr<float[]>> stagings;
  for (int i = 0; i < workers; ++i) {
    scratchpads.emplace_back(scratch);
    stagings.emplace_back(staging > 0 ? new float[staging] : nullptr);
  }
  std::atomic<bool> failed{false};
  std::atomic<int64_t> parts_done{0};
  // The arguments of one execution, with the worker's scratchpad when the primitive needs one.
  auto arguments = [&](int worker, const dnnl::memory::desc& scratch_desc,
                       std::unordered_map<int, dnnl::memory> args) {
    if (scratch_desc.get_size() > 0) {
      args.emplace(DNNL_ARG_SCRATCHPAD,
                   dnnl::memory(scratch_desc, Engine(), scratchpads[worker].data()));
    }
    return args;
  };
  const int64_t in_image = g.in_rows * g.in_cols * g.in_depth;
  const int64_t out_image = g.out_rows * g.out_cols * g.out_depth;
  ParallelItems(pool, items, 1e9, [&](int worker, int64_t item) {
    try {
      dnnl::stream stream(Engine());
      if (item < parts) {
        const Reorder& reorder = *reorders[item].reorder;
        dnnl::memory from(reorder.from, Engine(), const_cast<float*>(filter));
        dnnl::memory to(reorder.to, Engine(), filters + reorders[item].offset);
        reorder.primitive.execute(
            stream, arguments(worker, reorder.scratch, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}));
        stream.wait();
        parts_done.fetch_add(1, std::memory_order_release);
        return;
      }
      while (parts_done.load(std::memory_order_acquire) < parts) std::this_thread::yield();
      if (failed) return;
      const Piece& piece = pieces[item - parts];
      const Primitive& primitive = *primitives[item - parts];
      const Group& group = groups[group_of[item - parts]];
      float* out = output + piece.image * out_image + piece.row0 * g.out_cols * g.out_depth;
      const bool staged = piece.channels() != g.out_depth;
      dnnl::memory src(primitive.pd.src_desc(), Engine(),
                       const_cast<float*>(input + piece.image * in_image +
                                          piece.in_row0 * g.in_cols * g.in_depth));
      dnnl::memory dst(primitive.pd.dst_desc(), Engine(), staged ? stagings[worker].get() : out);
      dnnl::memory weight_memory(group.weights, Engine(), filters + group.offset);
      primitive.conv.execute(
          stream,
          arguments(worker, primitive.pd.scratchpad_desc(),
                    {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weight_memory}, {DNNL_ARG_DST, dst}}));
      stream.wait();
      if (staged) {
        // The piece's channels into their columns of the output pixels.
        const int64_t pixels = piece.images * (piece.row1 - piece.row0) * g.out_cols;
        const float* staged_data = stagings[worker].get();
        for (int64_t p = 0; p < pixels; ++p) {
          std::copy(staged_data + p * piece.channels(), staged_data + (p + 1) * piece.channels(),
                    out + p * g.out_depth + piece.oc0);
        }
      }
    } catch (const dnnl::error&) {
      failed = true;
      if (item < parts) parts_done.fetch_add(1, std::memory_order_release);
    }
  });
  impl_->ReturnBuffer(std::move(filter_buffer));
  return !failed;
}

#else  // !TESSERA_CPU_HAVE_ONEDNN

struct OneDnnConvolution::Impl {};
OneDnnConvolution::OneDnnConvolution() = default;
OneDnnConvolution::~OneDnnConvolution() = default;
bool OneDnnConvolution::Available() { return false; }
bool OneDnnConvolution::Run(const ConvGeometry&, const float*, const float*, float*,
                            TSR_ThreadPool*) {
  return false;
}

#endif

}  // namespace tessera::cpu
