#pragma once
/// @file host_device.hpp
/// Marks for functions that host and device code share, so that the CPU and the GPU run the same
/// arithmetic from one definition: under nvcc they are __host__ __device__, for the host compiler
/// nothing (ZF_HD) or inline (ZF_HD_INLINE, for definitions in headers that must inline on both).
#if defined(__CUDACC__)
#define ZF_HD __host__ __device__
#define ZF_HD_INLINE __host__ __device__ __forceinline__
#else
#define ZF_HD
#define ZF_HD_INLINE inline
#endif
