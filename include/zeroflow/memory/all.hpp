#pragma once
/// @file all.hpp
/// Every memory resource, adaptor and allocation helper in one include.
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/arena_resource.hpp"
#include "zeroflow/memory/cuda_pool_resource.hpp"
#include "zeroflow/memory/host_resource.hpp"
#include "zeroflow/memory/leak_tracking_adaptor.hpp"
#include "zeroflow/memory/limiting_adaptor.hpp"
#include "zeroflow/memory/logging_adaptor.hpp"
#include "zeroflow/memory/mapped_resource.hpp"
#include "zeroflow/memory/peer.hpp"
#include "zeroflow/memory/pinned_resource.hpp"
#include "zeroflow/memory/resource.hpp"
#include "zeroflow/memory/statistics_adaptor.hpp"
