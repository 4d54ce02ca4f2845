#pragma once
/// @file host_device.hpp
/// Marks for functions that host and device code share, so that the CPU and the GPU run the same
/// arithmetic from one definition: ZF_HD is __host__ __device__ under nvcc and nothing for the
/// host compiler (a definition in a header adds `inline`); ZF_HD_INLINE also forces inlining on
/// the device, for the small functions of a hot loop.
#if defined(__CUDACC__)
#define ZF_HD __host__ __device__
#define ZF_HD_INLINE __host__ __device__ __forceinline__
#else
#define ZF_HD
#define ZF_HD_INLINE inline
#endif
