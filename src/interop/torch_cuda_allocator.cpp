/// @file torch_cuda_allocator.cpp
/// Finding and loading the LibTorch backend (torch_backend.hpp), and the calls that reach LibTorch
/// only through it: its CUDA allocator's routing (torch_cuda_allocator.hpp).
#include "zeroflow/interop/torch_cuda_allocator.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "torch_backend.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"

// Defined by the backend; null unless this program was linked with it.
extern "C" zeroflow::interop::detail::torch_backend* zeroflow_torch_backend(int version) __attribute__((weak));

namespace zeroflow::interop {

namespace detail {

namespace {

using factory_fn = torch_backend* (*)(int version);
constexpr const char* factory_name = "zeroflow_torch_backend";
constexpr const char* library_name = "libzeroflow_torch.so";

std::mutex loading;
torch_backend* loaded = nullptr;
memory::resource_ptr pending_route;  // LibTorch's allocator goes to it once the backend loads

torch_backend* from_factory(void* symbol, const std::string& where) {
  torch_backend* backend = reinterpret_cast<factory_fn>(symbol)(torch_backend_version);
  if (backend == nullptr)
    ZF_THROW(error, "the LibTorch backend ", where, " belongs to another zeroflow version; reinstall zeroflow");
  if (pending_route) {
    backend->route_cuda_allocator(pending_route);
    pending_route.reset();
  }
  return backend;
}

/// The folder of the program or library this code is part of (the CLI, the Python module).
std::filesystem::path own_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&from_factory), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  const auto path = std::filesystem::canonical(info.dli_fname, ec);
  return ec ? std::filesystem::path(info.dli_fname).parent_path() : path.parent_path();
}

/// Where the backend may be: beside the binary, in its lib/ or ../lib/ (installed trees, the
/// wheel), then where this build put it.
std::vector<std::filesystem::path> candidates(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> paths;
  if (!folder.empty()) {
    paths.push_back(folder / library_name);
    paths.push_back(folder / "lib" / library_name);
    paths.push_back(folder.parent_path() / library_name);
    paths.push_back(folder.parent_path() / "lib" / library_name);
  }
#ifdef ZEROFLOW_TORCH_BACKEND_BUILD_PATH
  paths.emplace_back(ZEROFLOW_TORCH_BACKEND_BUILD_PATH);
#endif
#ifdef ZEROFLOW_TORCH_BACKEND_INSTALL_PATH
  paths.emplace_back(ZEROFLOW_TORCH_BACKEND_INSTALL_PATH);
#endif
  return paths;
}

/// The backend when this program was linked with its code (the tests): its factory resolves.
torch_backend* linked_backend() {
  if (loaded == nullptr && &zeroflow_torch_backend != nullptr)
    loaded = from_factory(reinterpret_cast<void*>(&zeroflow_torch_backend), "linked into this program");
  return loaded;
}

}  // namespace

torch_backend* loaded_torch_backend() {
  const std::lock_guard lock(loading);
  return linked_backend();
}

torch_backend& load_torch_backend() {
  const std::lock_guard lock(loading);
  if (torch_backend* backend = linked_backend()) return *backend;
  const std::filesystem::path folder = own_folder();
  std::string failures;
  for (const auto& path : candidates(folder)) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) continue;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      failures += "; " + path.string() + ": " + (why != nullptr ? why : "cannot be loaded");
      continue;
    }
    void* symbol = dlsym(handle, factory_name);
    if (symbol == nullptr) {
      failures += "; " + path.string() + " is no zeroflow LibTorch backend";
      continue;
    }
    loaded = from_factory(symbol, path.string());
    return *loaded;
  }
  ZF_THROW(error, "this zeroflow has no usable LibTorch backend (", library_name, " beside ",
           folder.empty() ? std::string("the program") : folder.string(), failures,
           "): routing PyTorch's CUDA memory to zeroflow's pool needs it; runs, scoring and training do not. "
           "Install torch and rebuild zeroflow with ZEROFLOW_TORCH=ON (pip install 'zeroflow[torch]')");
}

}  // namespace detail

void route_torch_allocator_to(memory::resource_ptr r) {
  detail::load_torch_backend().route_cuda_allocator(std::move(r));
}

void route_torch_allocator_when_loaded(memory::resource_ptr r) {
  ZF_EXPECTS(r != nullptr, "route_torch_allocator_when_loaded: no resource");
  if (detail::torch_backend* backend = detail::loaded_torch_backend()) {
    if (!backend->cuda_allocator_routed()) backend->route_cuda_allocator(std::move(r));
    return;
  }
  const std::lock_guard lock(detail::loading);
  detail::pending_route = std::move(r);
}

std::string torch_backend_file() {
  if (&zeroflow_torch_backend != nullptr) return "linked into this program";
  for (const auto& path : detail::candidates(detail::own_folder())) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) return path.string();
  }
  return {};
}

bool torch_allocator_routed() {
  detail::torch_backend* backend = detail::loaded_torch_backend();
  return backend != nullptr && backend->cuda_allocator_routed();
}

torch_allocation_counts torch_allocation_counts_now() {
  detail::torch_backend* backend = detail::loaded_torch_backend();
  return backend != nullptr ? backend->cuda_allocation_counts() : torch_allocation_counts{};
}

}  // namespace zeroflow::interop
