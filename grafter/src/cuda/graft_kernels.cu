// graft's CUDA kernels (see graft_kernels.hpp). One grid-stride pass per
// call; each block reduces its threads' partials in a fixed tree and writes
// one partial; the last block to finish folds the partials in block order,
// so the float64 sums repeat bit for bit for a given n.

#include "cuda/graft_kernels.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstring>
#include <type_traits>

namespace graft::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 2048;
constexpr int kVec = 8;  // elements per vectorised step (16, 32 or 64 bytes)
constexpr long long kNoIndex = 0x7fffffffffffffffLL;

// What a pass does: write the candidates, write and measure them, or only
// measure what writing them would do (the target is then only read).
enum class pass { write, write_measured, measure };

// The type ATen computes a dtype's arithmetic in.
template <typename T>
using math_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

__device__ inline float to_math(float v) { return v; }
__device__ inline float to_math(__half v) { return __half2float(v); }
__device__ inline float to_math(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ inline double to_math(double v) { return v; }

// Rounds to T as c10's device conversions do (to nearest even).
template <typename T>
__device__ inline T from_math(math_t<T> v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(v);
  } else {
    return v;
  }
}

// c10::convert on the device: the same type as it is (bits kept), any other
// through its math type, and float64 into a 16-bit type through float, as
// c10::Half and c10::BFloat16 take it.
template <typename Dst, typename Src>
__device__ inline Dst convert(Src v) {
  if constexpr (std::is_same_v<Src, Dst>) {
    return v;
  } else if constexpr (std::is_same_v<Dst, double>) {
    return static_cast<double>(to_math(v));
  } else {
    return from_math<Dst>(static_cast<float>(to_math(v)));
  }
}

// `source * scale` of one value: the product in the math type, rounded to Src.
template <typename Src, bool kScaled>
__device__ inline Src candidate_of(Src s, math_t<Src> factor) {
  if constexpr (kScaled) {
    return from_math<Src>(to_math(s) * factor);
  } else {
    return s;
  }
}

// The difference of a target's old and new value, as the CPU passes take
// it: float32's for two float32 or two bfloat16 values, else float64's.
template <typename Dst>
__device__ inline double difference(Dst old_value, Dst new_value) {
  if constexpr (std::is_same_v<Dst, float> || std::is_same_v<Dst, __nv_bfloat16>) {
    return static_cast<double>(to_math(old_value) - to_math(new_value));
  } else {
    return static_cast<double>(to_math(old_value)) - static_cast<double>(to_math(new_value));
  }
}

struct sums {
  long long nan, inf, finite;
  double min, max, sum;
};

struct partial {
  double xx, yy, xy, dd, dx, abs, max;
  long long max_index, first_nan;
  long long x_nan, x_inf, y_nan, y_inf;
  sums before, candidate;
};

__device__ inline sums empty_sums() { return {0, 0, 0, CUDART_INF, -CUDART_INF, 0.0}; }

__device__ inline partial empty_partial() {
  return {0, 0, 0, 0, 0, 0, -CUDART_INF, -1, kNoIndex, 0, 0, 0, 0, empty_sums(), empty_sums()};
}

__device__ inline void add_value(sums& s, double v) {
  const bool finite = fabs(v) < CUDART_INF;
  s.nan += v != v;
  s.inf += fabs(v) == CUDART_INF;
  s.finite += finite;
  if (finite) {
    s.min = fmin(s.min, v);
    s.max = fmax(s.max, v);
    s.sum += v;
  }
}

// a: target before, b: target after, d: their difference, c: the candidate
// in the source dtype.
__device__ inline void add(partial& p, double a, double b, double d, double c, long long i) {
  const double abs_d = fabs(d);
  p.xx += a * a;
  p.yy += b * b;
  p.xy += a * b;
  p.dd += d * d;
  p.dx += d * a;
  p.abs += abs_d;
  if (abs_d > p.max) {  // indices grow within a thread: the first maximum stays
    p.max = abs_d;
    p.max_index = i;
  }
  if (abs_d != abs_d && p.first_nan == kNoIndex) p.first_nan = i;
  p.x_nan += a != a;
  p.x_inf += fabs(a) == CUDART_INF;
  p.y_nan += b != b;
  p.y_inf += fabs(b) == CUDART_INF;
  add_value(p.before, a);
  add_value(p.candidate, c);
}

__device__ inline void combine(sums& into, const sums& next) {
  into.nan += next.nan;
  into.inf += next.inf;
  into.finite += next.finite;
  into.min = fmin(into.min, next.min);
  into.max = fmax(into.max, next.max);
  into.sum += next.sum;
}

// Threads interleave indices, so ties go to the smaller index explicitly.
__device__ inline void combine(partial& into, const partial& next) {
  into.xx += next.xx;
  into.yy += next.yy;
  into.xy += next.xy;
  into.dd += next.dd;
  into.dx += next.dx;
  into.abs += next.abs;
  if (next.max > into.max ||
      (next.max == into.max && next.max_index >= 0 && next.max_index < into.max_index)) {
    into.max = next.max;
    into.max_index = next.max_index;
  }
  into.first_nan = next.first_nan < into.first_nan ? next.first_nan : into.first_nan;
  into.x_nan += next.x_nan;
  into.x_inf += next.x_inf;
  into.y_nan += next.y_nan;
  into.y_inf += next.y_inf;
  combine(into.before, next.before);
  combine(into.candidate, next.candidate);
}

template <typename T>
__device__ inline T shfl(T v, int offset) {
  return __shfl_down_sync(0xffffffffu, v, offset);
}

__device__ inline sums shfl(const sums& s, int o) {
  return {shfl(s.nan, o), shfl(s.inf, o), shfl(s.finite, o), shfl(s.min, o), shfl(s.max, o), shfl(s.sum, o)};
}

__device__ inline partial shfl(const partial& p, int o) {
  return {shfl(p.xx, o),        shfl(p.yy, o),        shfl(p.xy, o),        shfl(p.dd, o),
          shfl(p.dx, o),        shfl(p.abs, o),       shfl(p.max, o),       shfl(p.max_index, o),
          shfl(p.first_nan, o), shfl(p.x_nan, o),     shfl(p.x_inf, o),     shfl(p.y_nan, o),
          shfl(p.y_inf, o),     shfl(p.before, o),    shfl(p.candidate, o)};
}

// The block's total, valid in thread 0. blockDim.x == kThreads. Called twice
// by the last block: its __syncthreads between the calls keeps the second
// call's stores out of the first call's reads.
__device__ partial block_reduce(partial p) {
  __shared__ partial warp_totals[kThreads / 32];
  for (int o = 16; o > 0; o >>= 1) combine(p, shfl(p, o));
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  if (lane == 0) warp_totals[warp] = p;
  __syncthreads();
  if (warp == 0) {
    p = lane < kThreads / 32 ? warp_totals[lane] : empty_partial();
    for (int o = 16; o > 0; o >>= 1) combine(p, shfl(p, o));
  }
  return p;
}

// Another block's partial, read from L2: this block's L1 may not see it.
__device__ inline partial load_partial(const partial* from) {
  static_assert(sizeof(partial) % sizeof(unsigned long long) == 0, "whole 8-byte words");
  constexpr int kWords = sizeof(partial) / sizeof(unsigned long long);
  unsigned long long words[kWords];
  const auto* source = reinterpret_cast<const unsigned long long*>(from);
  for (int w = 0; w < kWords; ++w) words[w] = __ldcg(source + w);
  partial p;
  memcpy(&p, words, sizeof p);
  return p;
}

__device__ inline graft_sums to_graft_sums(const partial& p) {
  const bool has_nan = p.first_nan != kNoIndex;
  const auto to_value_sums = [](const sums& s) {
    return value_sums{s.nan, s.inf, s.finite, s.min, s.max, s.sum};
  };
  return graft_sums{p.xx,      p.yy,      p.xy,      p.dd,      p.dx,      p.abs,
                    has_nan ? CUDART_NAN : p.max,
                    has_nan ? p.first_nan : p.max_index,
                    p.x_nan,   p.x_inf,   p.y_nan,   p.y_inf,
                    to_value_sums(p.before), to_value_sums(p.candidate)};
}

// Writes this block's partial; the last block to do so folds every partial,
// thread t taking partials t, t + kThreads, ...: a fixed order for a fixed
// grid, whichever block comes last.
__device__ void finish(partial p, partial* partials, graft_sums* result, unsigned* finished_blocks) {
  __shared__ bool last;
  p = block_reduce(p);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = p;
    __threadfence();  // the partial is visible before the count says so
    last = atomicAdd(finished_blocks, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  partial total = empty_partial();
  for (unsigned b = threadIdx.x; b < gridDim.x; b += kThreads) combine(total, load_partial(partials + b));
  total = block_reduce(total);
  if (threadIdx.x == 0) *result = to_graft_sums(total);
}

template <typename T>
__device__ inline void load_vec(const T* p, T (&out)[kVec]) {
  static_assert(sizeof(T) * kVec % 16 == 0, "whole 16-byte words");
  constexpr int kWords = sizeof(T) * kVec / 16;
  uint4 words[kWords];
  for (int w = 0; w < kWords; ++w) words[w] = reinterpret_cast<const uint4*>(p)[w];
  memcpy(out, words, sizeof(out));
}

template <typename T>
__device__ inline void store_vec(T* p, const T (&in)[kVec]) {
  constexpr int kWords = sizeof(T) * kVec / 16;
  uint4 words[kWords];
  memcpy(words, in, sizeof(words));
  for (int w = 0; w < kWords; ++w) reinterpret_cast<uint4*>(p)[w] = words[w];
}

// Source element type Src, target Dst. For pass::measure `source` is the
// candidate and the target is only read.
template <typename Src, typename Dst, pass kPass, bool kScaled>
__global__ void __launch_bounds__(kThreads)
    pass_kernel(const Src* source, Dst* target, long long n, double scale, bool vectorised, partial* partials,
                graft_sums* result, unsigned* finished_blocks) {
  constexpr bool kWrite = kPass != pass::measure;
  constexpr bool kMeasure = kPass != pass::write;
  const math_t<Src> factor = static_cast<math_t<Src>>(scale);
  partial p = empty_partial();
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const auto one = [&](Src s, Dst old_value, long long i) -> Dst {
    const Src c = candidate_of<Src, kScaled>(s, factor);
    const Dst new_value = convert<Dst>(c);
    if constexpr (kMeasure) {
      add(p, static_cast<double>(to_math(old_value)), static_cast<double>(to_math(new_value)),
          difference(old_value, new_value), static_cast<double>(to_math(c)), i);
    }
    return new_value;
  };
  long long done = 0;
  if (vectorised) {
    const long long groups = n / kVec;
    for (long long g = first; g < groups; g += stride) {
      Src s[kVec];
      Dst d[kVec]{};
      load_vec(source + g * kVec, s);
      if constexpr (kMeasure) load_vec(target + g * kVec, d);
      Dst out[kVec];
      for (int k = 0; k < kVec; ++k) out[k] = one(s[k], d[k], g * kVec + k);
      if constexpr (kWrite) store_vec(target + g * kVec, out);
    }
    done = groups * kVec;
  }
  for (long long i = done + first; i < n; i += stride) {
    const Dst out = one(source[i], kMeasure ? target[i] : Dst{}, i);
    if constexpr (kWrite) target[i] = out;
  }
  if constexpr (kMeasure) finish(p, partials, result, finished_blocks);
}

template <typename T>
__global__ void __launch_bounds__(kThreads) read_both_kernel(const T* x, const T* y, long long n, float* out) {
  float total = 0.0f;
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = first; i < n; i += stride) total += static_cast<float>(to_math(x[i]) + to_math(y[i]));
  for (int o = 16; o > 0; o >>= 1) total += __shfl_down_sync(0xffffffffu, total, o);
  if ((threadIdx.x & 31) == 0) out[blockIdx.x * (kThreads / 32) + (threadIdx.x >> 5)] = total;
}

int blocks_for(long long n) {
  const long long per_block = static_cast<long long>(kThreads) * kVec;
  const long long wanted = (n + per_block - 1) / per_block;
  return static_cast<int>(wanted < 1 ? 1 : (wanted > kMaxBlocks ? kMaxBlocks : wanted));
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// scale rounded to T: the factor the kernels multiply by, as ATen 1.x rounds
// a Python number to the tensor's dtype (exact in T whenever the recv path
// takes this pass, see scale_is_exact).
template <typename T>
double round_scale(double scale) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(__float2half_rn(static_cast<float>(scale)));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(__float2bfloat16_rn(static_cast<float>(scale)));
  } else {
    return static_cast<math_t<T>>(scale);
  }
}

// Queues one pass, after checking that nothing is pending that the launch
// check below would take for its own failure.
template <typename Src, typename Dst, pass kPass>
cudaError_t launch(const void* source, void* target, long long n, double scale, const workspace* ws,
                   cudaStream_t stream) {
  if (const cudaError_t pending = cudaPeekAtLastError(); pending != cudaSuccess) return pending;
  partial* partials = nullptr;
  graft_sums* result = nullptr;
  unsigned* finished_blocks = nullptr;
  if constexpr (kPass != pass::write) {
    partials = static_cast<partial*>(ws->partials());
    result = ws->result();
    finished_blocks = ws->finished_blocks();
    if (const cudaError_t e = cudaMemsetAsync(finished_blocks, 0, sizeof(unsigned), stream); e != cudaSuccess) {
      return e;
    }
  }
  const int blocks = blocks_for(n);
  const bool vectorised = aligned16(source) && aligned16(target);
  const auto* s = static_cast<const Src*>(source);
  auto* t = static_cast<Dst*>(target);
  const double factor = round_scale<Src>(scale);
  if constexpr (kPass == pass::measure) {
    pass_kernel<Src, Dst, kPass, false>
        <<<blocks, kThreads, 0, stream>>>(s, t, n, factor, vectorised, partials, result, finished_blocks);
  } else if (scale == 1.0) {
    pass_kernel<Src, Dst, kPass, false>
        <<<blocks, kThreads, 0, stream>>>(s, t, n, factor, vectorised, partials, result, finished_blocks);
  } else {
    pass_kernel<Src, Dst, kPass, true>
        <<<blocks, kThreads, 0, stream>>>(s, t, n, factor, vectorised, partials, result, finished_blocks);
  }
  return cudaGetLastError();
}

// Calls body with a value of the element type for t (its type is all that matters).
template <typename Body>
cudaError_t with_type(dtype t, Body&& body) {
  switch (t) {
    case dtype::float32: return body(float{});
    case dtype::float16: return body(__half{});
    case dtype::bfloat16: return body(__nv_bfloat16{});
    case dtype::float64: return body(double{});
  }
  return cudaErrorInvalidValue;
}

template <pass kPass>
cudaError_t run_pass(const void* source, dtype source_type, void* target, dtype target_type, std::int64_t n,
                     double scale, const workspace* ws, cudaStream_t stream) {
  if (n <= 0 || (ws != nullptr && ws->partials() == nullptr)) return cudaErrorInvalidValue;
  return with_type(source_type, [&](auto s) {
    return with_type(target_type, [&](auto t) {
      return launch<decltype(s), decltype(t), kPass>(source, target, n, scale, ws, stream);
    });
  });
}

constexpr std::size_t kPartialsBytes = sizeof(partial) * kMaxBlocks;
constexpr std::size_t kResultOffset = (kPartialsBytes + 15) / 16 * 16;
constexpr std::size_t kCountOffset = (kResultOffset + sizeof(graft_sums) + 15) / 16 * 16;
// read_both writes one float per warp where measure writes one partial per block.
static_assert(sizeof(partial) >= sizeof(float) * (kThreads / 32), "read_both fits");

}  // namespace

std::size_t workspace::bytes() { return kCountOffset + sizeof(unsigned); }

workspace::~workspace() {
  if (owned_) cudaFree(buffer_);
}

cudaError_t workspace::reserve() {
  if (buffer_ != nullptr) return cudaSuccess;
  if (const cudaError_t e = cudaMalloc(&buffer_, bytes()); e != cudaSuccess) {
    buffer_ = nullptr;
    return e;
  }
  owned_ = true;
  return cudaSuccess;
}

graft_sums* workspace::result() const {
  return buffer_ == nullptr ? nullptr
                            : reinterpret_cast<graft_sums*>(static_cast<unsigned char*>(buffer_) + kResultOffset);
}

unsigned* workspace::finished_blocks() const {
  return buffer_ == nullptr ? nullptr
                            : reinterpret_cast<unsigned*>(static_cast<unsigned char*>(buffer_) + kCountOffset);
}

cudaError_t fused_write_measure(const void* source, dtype source_type, void* target, dtype target_type,
                                std::int64_t n, double scale, workspace& ws, cudaStream_t stream) {
  return run_pass<pass::write_measured>(source, source_type, target, target_type, n, scale, &ws, stream);
}

cudaError_t fused_write(const void* source, dtype source_type, void* target, dtype target_type,
                        std::int64_t n, double scale, cudaStream_t stream) {
  return run_pass<pass::write>(source, source_type, target, target_type, n, scale, nullptr, stream);
}

cudaError_t measure_graft(const void* candidate, dtype candidate_type, const void* target, dtype target_type,
                          std::int64_t n, workspace& ws, cudaStream_t stream) {
  // The target is only read: pass::measure never stores through it.
  return run_pass<pass::measure>(candidate, candidate_type, const_cast<void*>(target), target_type, n, 1.0, &ws,
                                 stream);
}

cudaError_t measure(const void* x, const void* y, dtype type, std::int64_t n, workspace& ws,
                    cudaStream_t stream) {
  return measure_graft(y, type, x, type, n, ws, stream);
}

cudaError_t read_both(const void* x, const void* y, dtype type, std::int64_t n, workspace& ws,
                      cudaStream_t stream) {
  if (n <= 0 || ws.partials() == nullptr) return cudaErrorInvalidValue;
  return with_type(type, [&](auto v) {
    using T = decltype(v);
    read_both_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(y), n, static_cast<float*>(ws.partials()));
    return cudaGetLastError();
  });
}

cudaError_t fetch(const workspace& ws, graft_sums* out, cudaStream_t stream) {
  if (ws.result() == nullptr) return cudaErrorInvalidValue;
  if (const cudaError_t e = cudaMemcpyAsync(out, ws.result(), sizeof(graft_sums), cudaMemcpyDeviceToHost, stream);
      e != cudaSuccess) {
    return e;
  }
  return cudaStreamSynchronize(stream);
}

}  // namespace graft::cuda
