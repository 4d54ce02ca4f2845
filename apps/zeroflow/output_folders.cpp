#include "output_folders.hpp"

#include <sys/stat.h>

#include <set>
#include <system_error>

#include "zeroflow/core/error.hpp"

namespace zeroflow::cli {

namespace {

constexpr std::size_t max_name_bytes = 200;  // room for "-N" under the usual 255-byte limit

bool unsafe_char(unsigned char c) {
  // Control characters, both separators, and what Windows and SMB shares refuse in a name.
  return c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == ':' || c == '*' || c == '?' || c == '"' || c == '<' ||
         c == '>' || c == '|';
}

/// The name as a case-insensitive file system compares it (ASCII case only; other letters are kept).
std::string fold_case(const std::string& name) {
  std::string folded = name;
  for (auto& c : folded)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return folded;
}

/// lstat's identity of `path`, or false when it is missing or not a real directory (a link is not).
bool directory_identity(const std::filesystem::path& path, std::uintmax_t& device, std::uintmax_t& inode) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  device = static_cast<std::uintmax_t>(st.st_dev);
  inode = static_cast<std::uintmax_t>(st.st_ino);
  return true;
}

}  // namespace

std::string folder_name_for(const std::filesystem::path& input) {
  std::string name = input.stem().string();
  for (auto& c : name)
    if (unsafe_char(static_cast<unsigned char>(c))) c = '_';
  // Leading dots would make ".", "..", or a hidden folder; trailing dots and spaces are dropped by
  // Windows, which would merge "x." with "x".
  name.erase(0, name.find_first_not_of('.'));
  while (!name.empty() && (name.back() == '.' || name.back() == ' ')) name.pop_back();
  if (name.size() > max_name_bytes) {
    std::size_t cut = max_name_bytes;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
    name.resize(cut);
  }
  return name.empty() ? std::string("recording") : name;
}

std::vector<std::string> distinct_folder_names(const std::vector<std::string>& inputs,
                                               const std::vector<std::string>& reserved) {
  std::set<std::string> taken;
  for (const auto& name : reserved) taken.insert(fold_case(name));
  // First every input's own name, so that a later "x-2.csv" keeps "x-2" and a repeated "x" goes round it.
  std::vector<std::string> names(inputs.size());
  std::vector<std::string> wanted(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    wanted[i] = folder_name_for(inputs[i]);
    if (taken.insert(fold_case(wanted[i])).second) names[i] = wanted[i];
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!names[i].empty()) continue;
    for (int n = 2;; ++n) {
      auto candidate = wanted[i] + "-" + std::to_string(n);
      if (taken.insert(fold_case(candidate)).second) {
        names[i] = std::move(candidate);
        break;
      }
    }
  }
  return names;
}

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
