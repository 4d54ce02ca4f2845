/// @file nccl_group.cpp
/// nccl_group (nccl_group.hpp): NCCL's communicator behind the gradient_group interface, NCCL
/// itself loaded with dlopen on first use.
#include "zeroflow/model/nccl_group.hpp"

#include "zeroflow/core/error.hpp"

#if defined(ZEROFLOW_HAS_NCCL)
#include <dlfcn.h>
#include <nccl.h>

#include <cstring>
#include <mutex>
#include <string_view>
#endif

namespace zeroflow::model {

#if defined(ZEROFLOW_HAS_NCCL)

namespace {

/// The NCCL functions zeroflow calls, from the loaded library.
struct nccl_api {
  decltype(&::ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&::ncclCommInitRank) init_rank = nullptr;
  decltype(&::ncclCommDestroy) destroy = nullptr;
  decltype(&::ncclCommAbort) abort = nullptr;
  decltype(&::ncclAllReduce) all_reduce = nullptr;
  decltype(&::ncclBroadcast) broadcast = nullptr;
  decltype(&::ncclGetErrorString) error_string = nullptr;
};

template <class F>
void bind(void* library, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(library, name));
  if (f == nullptr) ZF_THROW(error, "the NCCL library lacks ", name, " (NCCL 2.12 or newer is needed)");
}

const nccl_api& nccl() {
  static nccl_api api;
  static std::once_flag once;
  std::call_once(once, [] {
    void* library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    std::string why = library == nullptr ? dlerror() : "";
#ifdef ZEROFLOW_NCCL_LIBRARY_PATH
    if (library == nullptr) library = dlopen(ZEROFLOW_NCCL_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);
#endif
    if (library == nullptr)
      ZF_THROW(error, "training on several GPUs needs NCCL, which could not be loaded (", why,
               "); install it (e.g. the nvidia-nccl-cu13 wheel or the distribution's libnccl2) where the dynamic "
               "loader finds it");
    bind(library, "ncclGetUniqueId", api.get_unique_id);
    bind(library, "ncclCommInitRank", api.init_rank);
    bind(library, "ncclCommDestroy", api.destroy);
    bind(library, "ncclCommAbort", api.abort);
    bind(library, "ncclAllReduce", api.all_reduce);
    bind(library, "ncclBroadcast", api.broadcast);
    bind(library, "ncclGetErrorString", api.error_string);
  });
  if (api.get_unique_id == nullptr) ZF_THROW(error, "NCCL could not be loaded (see the first error)");
  return api;
}

void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) ZF_THROW(error, "NCCL ", what, " failed: ", nccl().error_string(r));
}

constexpr char hex_digits[] = "0123456789abcdef";

}  // namespace

struct nccl_group::state {
  ncclComm_t comm = nullptr;
  int rank = 0;
  int size = 1;
};

std::string nccl_group::new_identity() {
  ncclUniqueId id{};
  check(nccl().get_unique_id(&id), "making a group's identity");
  std::string text;
  for (const char c : id.internal) {
    const auto byte = static_cast<unsigned char>(c);
    text += hex_digits[byte >> 4];
    text += hex_digits[byte & 15];
  }
  return text;
}

nccl_group::nccl_group(const std::string& identity, int rank, int size) : state_{std::make_unique<state>()} {
  ZF_EXPECTS(size >= 1 && rank >= 0 && rank < size, "a group's rank must be in [0, ", size, "), got ", rank);
  ncclUniqueId id{};
  ZF_EXPECTS(identity.size() == 2 * sizeof id.internal, "a group's identity is ", 2 * sizeof id.internal,
             " hex digits, got ", identity.size(), " characters");
  for (std::size_t i = 0; i < sizeof id.internal; ++i) {
    const auto digit = [&](char c) {
      const char* p = std::strchr(hex_digits, c);
      ZF_EXPECTS(c != '\0' && p != nullptr, "a group's identity holds '", c, "', not a hex digit");
      return static_cast<int>(p - hex_digits);
    };
    id.internal[i] = static_cast<char>(digit(identity[2 * i]) * 16 + digit(identity[2 * i + 1]));
  }
  state_->rank = rank;
  state_->size = size;
  check(nccl().init_rank(&state_->comm, size, id, rank), "joining the group");
}

nccl_group::~nccl_group() {
  if (state_ && state_->comm != nullptr) (void)nccl().destroy(state_->comm);
}

int nccl_group::rank() const { return state_->rank; }
int nccl_group::size() const { return state_->size; }

void nccl_group::sum(float* data, std::int64_t n, stream_view stream) {
  check(nccl().all_reduce(data, data, static_cast<std::size_t>(n), ncclFloat32, ncclSum, state_->comm, stream.value()),
        "summing over the group");
}

void nccl_group::sum(double* data, std::int64_t n, stream_view stream) {
  check(nccl().all_reduce(data, data, static_cast<std::size_t>(n), ncclFloat64, ncclSum, state_->comm, stream.value()),
        "summing over the group");
}

void nccl_group::broadcast(float* data, std::int64_t n, int root, stream_view stream) {
  check(nccl().broadcast(data, data, static_cast<std::size_t>(n), ncclFloat32, root, state_->comm, stream.value()),
        "broadcasting over the group");
}

#else

struct nccl_group::state {};

namespace {
[[noreturn]] void no_nccl() {
  ZF_THROW(error,
           "training on several GPUs needs NCCL, and this zeroflow was built without it (CUDA and nccl.h "
           "are needed when it is configured)");
}
}  // namespace

std::string nccl_group::new_identity() { no_nccl(); }
nccl_group::nccl_group(const std::string&, int, int) { no_nccl(); }
nccl_group::~nccl_group() = default;
int nccl_group::rank() const { return 0; }
int nccl_group::size() const { return 1; }
void nccl_group::sum(float*, std::int64_t, stream_view) { no_nccl(); }
void nccl_group::sum(double*, std::int64_t, stream_view) { no_nccl(); }
void nccl_group::broadcast(float*, std::int64_t, int, stream_view) { no_nccl(); }

#endif

}  // namespace zeroflow::model
