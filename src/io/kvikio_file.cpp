#include "kvikio_file.hpp"

#ifndef ZEROFLOW_HAS_KVIKIO
#define ZEROFLOW_HAS_KVIKIO 0
#endif

#include <cstdlib>
#include <string>
#include <system_error>

#include "zeroflow/core/error.hpp"

#if ZEROFLOW_HAS_KVIKIO
#include <dlfcn.h>

#include <algorithm>
#include <exception>
#include <fstream>
#include <kvikio/compat_mode.hpp>
#include <kvikio/defaults.hpp>
#include <kvikio/file_handle.hpp>
#include <kvikio/shim/cufile.hpp>
#include <kvikio/version_config.hpp>
#include <mutex>
#include <thread>
#endif

namespace zeroflow::io::detail {

#if ZEROFLOW_HAS_KVIKIO

namespace {

constexpr const char* nvidia_fs_proc = "/proc/driver/nvidia-fs/version";

// KvikIO finds libcufile with dlopen("libcufile.so.0"), i.e. only on the loader's search path.
// The build may have found it elsewhere (a wheel's folder): loading it first under its soname
// lets KvikIO's dlopen find the copy already loaded.
void load_cufile_once() noexcept {
  static std::once_flag once;
  std::call_once(once, [] {
    if (::dlopen("libcufile.so.0", RTLD_NOW | RTLD_GLOBAL) != nullptr) return;
#ifdef ZEROFLOW_CUFILE_LIBRARY
    (void)::dlopen(ZEROFLOW_CUFILE_LIBRARY, RTLD_NOW | RTLD_GLOBAL);
#endif
  });
}

// KvikIO's own thread pool has one thread unless told otherwise; reads of large files need many.
void size_thread_pool_once(unsigned threads) {
  static std::once_flag once;
  std::call_once(once, [threads] {
    if (std::getenv("KVIKIO_NTHREADS") != nullptr || std::getenv("KVIKIO_NUM_THREADS") != nullptr) return;
    const unsigned n = threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
    kvikio::defaults::set_thread_pool_nthreads(std::min(n, 64u));
  });
}

std::string nvidia_fs_version() {
  std::ifstream in(nvidia_fs_proc);
  std::string line;
  std::getline(in, line);
  return line;
}

// KvikIO's messages start with the place in its sources that threw; a person needs the rest.
std::string kvikio_reason(const std::exception& e) {
  if (const auto* sys = dynamic_cast<const std::system_error*>(&e)) return sys->code().message();
  std::string text = e.what();
  for (const char* marker : {"pp:", ".c:"}) {
    const std::size_t at = text.rfind(marker);
    if (at == std::string::npos) continue;
    const std::size_t colon = text.find(": ", at);
    if (colon != std::string::npos) text = text.substr(colon + 2);
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? "an unknown failure" : text;
}

}  // namespace

bool kvikio_built_in() noexcept { return true; }

void probe_kvikio(gds_status& status) noexcept {
  status.kvikio_built_in = true;
  status.kvikio_version = KvikIO_VERSION;
  try {
    load_cufile_once();
    std::error_code ec;
    status.nvidia_fs_driver = std::filesystem::exists(nvidia_fs_proc, ec);
    status.cufile_library = kvikio::is_cufile_library_available();
    const bool compat = kvikio::defaults::is_compat_mode_preferred();
    status.gds_active = status.cufile_library && status.nvidia_fs_driver && !compat;
    if (status.gds_active) {
      status.mode = "GDS";
      status.reason = "cuFile with the nvidia-fs driver (" + nvidia_fs_version() +
                      "): bytes go from the drive to GPU memory by DMA";
    } else {
      status.mode = "compatibility";
      const std::string kvikio_compat =
          ", so KvikIO reads in its compatibility mode: POSIX reads into pinned "
          "bounce buffers, then copies to the GPU";
      if (kvikio::defaults::compat_mode() == kvikio::CompatMode::ON)
        status.reason =
            "KVIKIO_COMPAT_MODE asks for KvikIO's compatibility mode" + kvikio_compat.substr(kvikio_compat.find(':'));
      else if (!status.cufile_library)
        status.reason = "libcufile cannot be loaded" + kvikio_compat;
      else if (!status.nvidia_fs_driver && compat)
        status.reason = "the nvidia-fs kernel driver is not loaded (no /proc/driver/nvidia-fs)" + kvikio_compat;
      else if (!status.nvidia_fs_driver)
        status.reason =
            "the nvidia-fs kernel driver is not loaded (no /proc/driver/nvidia-fs), so cuFile runs in "
            "its own compatibility mode: POSIX reads inside cuFile, then copies to the GPU";
      else
        status.reason = "cuFile cannot run GDS here" + kvikio_compat;
    }
  } catch (const std::exception& e) {
    status.mode = "unavailable";
    status.reason = "KvikIO could not start: " + kvikio_reason(e);
  } catch (...) {
    status.mode = "unavailable";
    status.reason = "KvikIO could not start";
  }
}

bool kvikio_read(const std::filesystem::path& path, std::uint64_t offset, std::size_t bytes, void* device_dst,
                 unsigned threads) {
  load_cufile_once();
  size_thread_pool_once(threads);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) ZF_THROW(error, "cannot read ", path.string(), ": ", ec.message());
  if (offset > size || bytes > size - offset)
    ZF_THROW(error, "reading ", path.string(), ": it has ", size, " bytes, fewer than the ", offset + bytes,
             " needed (was it truncated?)");
  if (bytes == 0) return false;
  try {
    kvikio::FileHandle file(path.string(), "r");
    // cuFile without nvidia-fs falls back to POSIX reads of its own: that is no GDS either.
    std::error_code no_driver;
    const bool gds = !file.get_compat_mode_manager().is_compat_mode_preferred() &&
                     std::filesystem::exists(nvidia_fs_proc, no_driver);
    const std::size_t got = file.pread(device_dst, bytes, static_cast<std::size_t>(offset)).get();
    if (got != bytes)
      ZF_THROW(error, "reading ", path.string(), " at byte ", offset + got,
               ": the file ended early (was it truncated while being read?)");
    return gds;
  } catch (const zeroflow::error&) {
    throw;
  } catch (const std::exception& e) {
    ZF_THROW(error, "reading ", path.string(), " with KvikIO: ", kvikio_reason(e),
             " (`io`=posix reads without KvikIO)");
  }
}

#else  // a build without KvikIO

bool kvikio_built_in() noexcept { return false; }

void probe_kvikio(gds_status& status) noexcept {
  status.kvikio_built_in = false;
  status.mode = "unavailable";
  status.reason =
      "this zeroflow was built without KvikIO (a CUDA build finds it in .venv after scripts/setup, "
      "see cmake/ZeroflowKvikIO.cmake)";
}

bool kvikio_read(const std::filesystem::path&, std::uint64_t, std::size_t, void*, unsigned) {
  ZF_THROW(invalid_argument,
           "`io`=kvikio: this zeroflow was built without KvikIO; use `io`=auto, posix or mmap "
           "(or rebuild with KvikIO: scripts/setup, then a CUDA build)");
}

#endif

}  // namespace zeroflow::io::detail
