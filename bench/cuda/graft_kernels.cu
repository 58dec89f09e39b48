// graft's CUDA kernels (see graft_kernels.hpp). One grid-stride pass per
// call; each block reduces its threads' partials in a fixed tree and writes
// one partial; a one-block kernel folds the partials in block order, so the
// float64 sums repeat bit for bit for a given n.

#include "graft_kernels.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstring>

namespace graft::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 2048;
constexpr int kVec = 8;  // elements per vectorised step (16 or 32 bytes)
constexpr long long kNoIndex = 0x7fffffffffffffffLL;

__device__ inline float to_float(float v) { return v; }
__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ inline T from_float(float v);
template <>
__device__ inline float from_float<float>(float v) { return v; }
template <>
__device__ inline __half from_float<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

struct sums {
  long long nan, inf, finite;
  double min, max, sum;
};

struct partial {
  double xx, yy, xy, dd, abs, max;
  long long max_index, first_nan;
  long long x_nan, x_inf, y_nan, y_inf;
  sums before, candidate;
};

__device__ inline sums empty_sums() { return {0, 0, 0, CUDART_INF, -CUDART_INF, 0.0}; }

__device__ inline partial empty_partial() {
  return {0, 0, 0, 0, 0, -CUDART_INF, -1, kNoIndex, 0, 0, 0, 0, empty_sums(), empty_sums()};
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

// a: target before, b: target after, c: the candidate in the source dtype.
__device__ inline void add(partial& p, double a, double b, double c, long long i) {
  const double d = a - b;
  const double abs_d = fabs(d);
  p.xx += a * a;
  p.yy += b * b;
  p.xy += a * b;
  p.dd += d * d;
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
          shfl(p.abs, o),       shfl(p.max, o),       shfl(p.max_index, o), shfl(p.first_nan, o),
          shfl(p.x_nan, o),     shfl(p.x_inf, o),     shfl(p.y_nan, o),     shfl(p.y_inf, o),
          shfl(p.before, o),    shfl(p.candidate, o)};
}

// The block's total, valid in thread 0. blockDim.x == kThreads.
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

// Source element type Src, target Dst. kWrite: store the new value; without
// it this is measure(): `source` is y and `target` is x.
template <typename Src, typename Dst, bool kWrite, bool kScaled>
__global__ void __launch_bounds__(kThreads)
    write_measure_kernel(const Src* source, Dst* target, long long n, float scale, bool vectorised,
                         partial* partials) {
  partial p = empty_partial();
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const auto one = [&](Src s, Dst old_value, long long i) -> Dst {
    const Src c = kScaled ? from_float<Src>(to_float(s) * scale) : s;
    const Dst new_value = from_float<Dst>(to_float(c));
    add(p, to_float(old_value), to_float(new_value), to_float(c), i);
    return new_value;
  };
  long long done = 0;
  if (vectorised) {
    const long long groups = n / kVec;
    for (long long g = first; g < groups; g += stride) {
      Src s[kVec];
      Dst d[kVec];
      load_vec(source + g * kVec, s);
      load_vec(target + g * kVec, d);
      Dst out[kVec];
      for (int k = 0; k < kVec; ++k) out[k] = one(s[k], d[k], g * kVec + k);
      if (kWrite) store_vec(target + g * kVec, out);
    }
    done = groups * kVec;
  }
  for (long long i = done + first; i < n; i += stride) {
    const Dst out = one(source[i], target[i], i);
    if (kWrite) target[i] = out;
  }
  p = block_reduce(p);
  if (threadIdx.x == 0) partials[blockIdx.x] = p;
}

__global__ void __launch_bounds__(kThreads) fold_kernel(const partial* partials, int count, graft_sums* out) {
  partial p = empty_partial();
  // Thread t folds partials t, t + kThreads, ...: a fixed order for a fixed count.
  for (int b = threadIdx.x; b < count; b += kThreads) combine(p, partials[b]);
  p = block_reduce(p);
  if (threadIdx.x != 0) return;
  const bool has_nan = p.first_nan != kNoIndex;
  const auto to_value_sums = [](const sums& s) {
    return value_sums{s.nan, s.inf, s.finite, s.min, s.max, s.sum};
  };
  *out = graft_sums{p.xx,      p.yy,      p.xy,      p.dd,
                    p.abs,     has_nan ? CUDART_NAN : p.max,
                    has_nan ? p.first_nan : p.max_index,
                    p.x_nan,   p.x_inf,   p.y_nan,   p.y_inf,
                    to_value_sums(p.before), to_value_sums(p.candidate)};
}

template <typename T>
__global__ void __launch_bounds__(kThreads) read_both_kernel(const T* x, const T* y, long long n, float* out) {
  float total = 0.0f;
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = first; i < n; i += stride) total += to_float(x[i]) + to_float(y[i]);
  for (int o = 16; o > 0; o >>= 1) total += __shfl_down_sync(0xffffffffu, total, o);
  if ((threadIdx.x & 31) == 0) out[blockIdx.x * (kThreads / 32) + (threadIdx.x >> 5)] = total;
}

int blocks_for(long long n) {
  const long long per_block = static_cast<long long>(kThreads) * kVec;
  const long long wanted = (n + per_block - 1) / per_block;
  return static_cast<int>(wanted < 1 ? 1 : (wanted > kMaxBlocks ? kMaxBlocks : wanted));
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// scale rounded to T, as a float: the factor the kernels multiply by.
template <typename T>
float to_float_host(double scale);
template <>
float to_float_host<float>(double scale) { return static_cast<float>(scale); }
template <>
float to_float_host<__half>(double scale) { return __half2float(__float2half_rn(static_cast<float>(scale))); }
template <>
float to_float_host<__nv_bfloat16>(double scale) {
  return __bfloat162float(__float2bfloat16_rn(static_cast<float>(scale)));
}

template <typename Src, typename Dst, bool kWrite>
cudaError_t launch(const void* source, void* target, long long n, double scale, workspace& ws,
                   cudaStream_t stream) {
  const int blocks = blocks_for(n);
  const bool vectorised = aligned16(source) && aligned16(target);
  auto* partials = static_cast<partial*>(ws.partials());
  const auto* s = static_cast<const Src*>(source);
  auto* t = static_cast<Dst*>(target);
  // The factor in the source dtype first, as ATen 1.x rounds a Python number.
  const float factor = to_float_host<Src>(scale);
  if (scale == 1.0) {
    write_measure_kernel<Src, Dst, kWrite, false><<<blocks, kThreads, 0, stream>>>(s, t, n, factor, vectorised, partials);
  } else {
    write_measure_kernel<Src, Dst, kWrite, true><<<blocks, kThreads, 0, stream>>>(s, t, n, factor, vectorised, partials);
  }
  fold_kernel<<<1, kThreads, 0, stream>>>(partials, blocks, ws.result());
  return cudaGetLastError();
}

// Calls body with a value of the element type for t (its type is all that matters).
template <typename Body>
cudaError_t with_type(dtype t, Body&& body) {
  switch (t) {
    case dtype::float32: return body(float{});
    case dtype::float16: return body(__half{});
    case dtype::bfloat16: return body(__nv_bfloat16{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace

workspace::~workspace() {
  cudaFree(partials_);
  cudaFree(result_);
}

cudaError_t workspace::reserve() {
  if (partials_ != nullptr) return cudaSuccess;
  // read_both writes one float per warp, measure one partial per block.
  const std::size_t bytes = sizeof(partial) * kMaxBlocks;
  static_assert(sizeof(partial) >= sizeof(float) * (kThreads / 32), "read_both fits");
  if (const cudaError_t e = cudaMalloc(&partials_, bytes); e != cudaSuccess) return e;
  return cudaMalloc(reinterpret_cast<void**>(&result_), sizeof(graft_sums));
}

cudaError_t fused_write_measure(const void* source, dtype source_type, void* target, dtype target_type,
                                std::int64_t n, double scale, workspace& ws, cudaStream_t stream) {
  if (n <= 0 || ws.partials() == nullptr) return cudaErrorInvalidValue;
  return with_type(source_type, [&](auto s) {
    return with_type(target_type, [&](auto t) {
      return launch<decltype(s), decltype(t), true>(source, target, n, scale, ws, stream);
    });
  });
}

cudaError_t measure(const void* x, const void* y, dtype type, std::int64_t n, workspace& ws,
                    cudaStream_t stream) {
  if (n <= 0 || ws.partials() == nullptr) return cudaErrorInvalidValue;
  return with_type(type, [&](auto v) {
    using T = decltype(v);
    // The write kernel without its store: y plays the source, x the target.
    return launch<T, T, false>(y, const_cast<void*>(x), n, 1.0, ws, stream);
  });
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
  if (const cudaError_t e = cudaMemcpyAsync(out, ws.result(), sizeof(graft_sums), cudaMemcpyDeviceToHost, stream);
      e != cudaSuccess) {
    return e;
  }
  return cudaStreamSynchronize(stream);
}

}  // namespace graft::cuda
