#include "output_folders.hpp"

#include <sys/stat.h>

#include <system_error>

#include "zeroflow/core/error.hpp"

namespace zeroflow::cli {

namespace {

/// lstat's identity of `path`, or false when it is missing or not a real directory (a link is not).
bool directory_identity(const std::filesystem::path& path, std::uintmax_t& device, std::uintmax_t& inode) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  device = static_cast<std::uintmax_t>(st.st_dev);
  inode = static_cast<std::uintmax_t>(st.st_ino);
  return true;
}

}  // namespace

output_folder make_output_folder(const std::filesystem::path& folder, const std::filesystem::path& within) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!within.empty()) {
    // A link (even one left by someone else) named like the folder would take the outputs elsewhere.
    const auto inside = fs::weakly_canonical(within, ec);
    if (ec || fs::is_symlink(fs::symlink_status(folder)) || fs::weakly_canonical(folder, ec).parent_path() != inside)
      throw error("cannot write into " + folder.string() + ": it is a link or leads out of " + within.string() +
                  "; remove it or choose another --out");
  }
  output_folder made;
  made.path = folder;
  // The outermost missing directory: the one a failure takes back with everything below it.
  for (auto p = fs::absolute(folder, ec); !ec && !p.empty(); p = p.parent_path()) {
    if (fs::exists(fs::symlink_status(p))) break;
    made.created = p;
    if (p == p.parent_path()) break;
  }
  fs::create_directories(folder, ec);
  if (ec) throw error("cannot create the output folder " + folder.string() + ": " + ec.message());
  if (!fs::is_directory(folder))
    throw error("cannot write into " + folder.string() + ": it exists and is not a folder");
  if (!made.created.empty()) {
    made.created_in = fs::weakly_canonical(made.created.parent_path(), ec);
    if (ec || !directory_identity(made.created, made.device, made.inode)) made.created.clear();  // unsure: keep it
  }
  return made;
}

void remove_created(const output_folder& folder) noexcept {
  namespace fs = std::filesystem;
  if (folder.created.empty()) return;
  try {
    std::uintmax_t device = 0, inode = 0;
    std::error_code ec;
    // Still the directory this run made (not a link or another folder put in its place), still in
    // the folder it was made in.
    if (!directory_identity(folder.created, device, inode) || device != folder.device || inode != folder.inode) return;
    const auto resolved = fs::weakly_canonical(folder.created, ec);
    if (ec || resolved.parent_path() != folder.created_in || resolved.filename() != folder.created.filename()) return;
    fs::remove_all(folder.created, ec);
  } catch (...) {
    // Out of memory while building a path: leave the folder.
  }
}

}  // namespace zeroflow::cli
