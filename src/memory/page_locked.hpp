#pragma once
// Private to src/memory: giving back page-locked host memory (pinned_resource, mapped_resource).
#include "zeroflow/core/stream.hpp"

namespace zeroflow::memory {

/// cudaFreeHost of `p` once the work queued on `stream` (the block's last user) is done. A stream
/// destroyed before the block is given back cannot be waited on; waiting for the whole device
/// instead still frees the block rather than leaking it. CUDA builds only.
void free_page_locked(void* p, stream_view stream);

}  // namespace zeroflow::memory
