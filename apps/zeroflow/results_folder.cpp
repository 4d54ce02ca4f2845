#include "results_folder.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

#include "commands.hpp"
#include "csv_line.hpp"
#include "error_text.hpp"
#include "output_folders.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/csv_row.hpp"

namespace zeroflow::cli {

namespace fs = std::filesystem;

namespace {

bool present(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

bool real_folder(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(fs::symlink_status(p, ec));
}

void add_results_of(const fs::path& folder, std::set<fs::path>& found) {
  for (const auto& name : result_names())
    if (present(folder / name)) found.insert(folder / name);
}

/// The recording folders an earlier runs.csv lists: names directly inside `out`.
std::vector<std::string> folders_listed_in(const fs::path& runs_csv) {
  std::vector<std::string> names;
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(runs_csv, ec))) return names;
  std::ifstream in(runs_csv, std::ios::binary);
  std::string line;
  std::size_t out_column = std::string::npos;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto cells = io::split_csv_row(line);
    if (out_column == std::string::npos) {
      const auto it = std::find(cells.begin(), cells.end(), "out");
      if (it == cells.end()) return names;  // not a runs.csv of zeroflow: nothing to go by
      out_column = static_cast<std::size_t>(it - cells.begin());
      continue;
    }
    if (out_column >= cells.size()) continue;
    const std::string name = fs::path(unguarded_cell(cells[out_column])).filename().string();
    if (!name.empty() && name != "." && name != "..") names.push_back(name);
  }
  return names;
}

std::string pid_suffix() { return std::to_string(::getpid()) + ".tmp"; }

}  // namespace

const std::vector<std::string>& result_names() {
  // model.pt: what earlier zeroflows wrote instead of model.safetensors (a rerun replaces it too).
  static const std::vector<std::string> names = {"beats.csv",       "summary.json", "report.html",  "model.safetensors",
                                                 "model.pt",        "beats.atr",    "episodes.csv", "figures",
                                                 "evaluation.json", "runs.csv",     "points.csv",   "events.csv"};
  return names;
}

std::vector<fs::path> earlier_results(const fs::path& out, const std::vector<std::string>& recording_folders) {
  std::set<fs::path> found;
  if (!real_folder(out)) return {};
  add_results_of(out, found);
  std::vector<std::string> folders = folders_listed_in(out / "runs.csv");
  folders.insert(folders.end(), recording_folders.begin(), recording_folders.end());
  for (const auto& name : folders)
    if (real_folder(out / name)) add_results_of(out / name, found);
  return {found.begin(), found.end()};
}

namespace {

/// `path` made absolute and free of links and dots where it exists (as far as it exists).
fs::path resolved(const fs::path& path) {
  std::error_code ec;
  auto p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path, ec).lexically_normal() : p;
}

/// Whether `inner` is `outer` or lies inside it (both resolved).
bool within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o) {
    if (o->empty()) continue;  // a trailing separator
    if (i == inner.end() || *i != *o) return false;
    ++i;
  }
  return true;
}

}  // namespace

std::vector<fs::path> keep_inputs(const fs::path& out, std::vector<fs::path> earlier,
                                  const std::vector<fs::path>& inputs) {
  std::erase_if(earlier, [&](const fs::path& p) {
    return std::any_of(inputs.begin(), inputs.end(), [&](const fs::path& input) {
      std::error_code ec;
      return fs::equivalent(p, input, ec);
    });
  });
  for (const auto& p : earlier) {
    if (!real_folder(p)) continue;
    const fs::path folder = resolved(p);
    for (const auto& input : inputs) {
      const fs::path file = resolved(input);
      if (within(file, folder) || within(file.parent_path(), folder))
        ZF_THROW(error, input.string(), " is read by this command and lies in ", p.string(),
                 ", which replacing the earlier results would delete; move it out of ", out.string(),
                 " or choose another --out");
    }
  }
  return earlier;
}

void refuse_to_overwrite_input(const fs::path& target, const std::vector<fs::path>& inputs, const std::string& what) {
  for (const auto& input : inputs) {
    std::error_code ec;
    if (fs::equivalent(target, input, ec) || resolved(target) == resolved(input))
      ZF_THROW(error, "cannot write ", what, " to ", target.string(), ": it is ", input.string(),
               ", which this command reads (or the run it evaluates read); choose another file");
  }
}

std::string refusal_to_replace(const fs::path& out, const std::vector<fs::path>& earlier) {
  std::string names;
  for (std::size_t i = 0; i < earlier.size() && i < 4; ++i)
    names += (i ? ", " : "") + earlier[i].lexically_relative(out).string();
  if (earlier.size() > 4) names += ", ...";
  return out.string() + " already holds the results of an earlier run (" + names +
         "); add --force to replace them all, or choose another --out";
}

folder_lock::folder_lock(const fs::path& folder) {
  fd_ = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) ZF_THROW(error, "cannot open the output folder ", folder.string(), ": ", std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int why = errno;
    ::close(fd_);
    fd_ = -1;
    if (why == EWOULDBLOCK)
      ZF_THROW(error, "another zeroflow is writing into ", folder.string(),
               "; wait for it to finish or choose another --out");
    ZF_THROW(error, "cannot lock the output folder ", folder.string(), ": ", std::strerror(why));
  }
}

folder_lock::~folder_lock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

staged_results::staged_results(const fs::path& out) : out_(out) {
  std::error_code ec;
  // The caller holds the folder's lock, so staging folders already here are left by a run that was
  // killed outright (SIGKILL, a power cut): nobody will finish them.
  for (const auto& entry : fs::directory_iterator(out_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(".zeroflow-", 0) == 0 && name.size() > 4 && name.substr(name.size() - 4) == ".tmp")
      fs::remove_all(entry.path(), ec);
  }
  path_ = out_ / (".zeroflow-run-" + pid_suffix());
  undo_.emplace([this] { discard(); });  // registered before the folder exists, so none escapes
  fs::remove_all(path_, ec);
  if (!fs::create_directory(path_, ec) || ec)
    ZF_THROW(error, "cannot write into the output folder ", out_.string(), ": ",
             ec ? ec.message() : std::string("a file of that name is in the way"));
}

staged_results::~staged_results() { discard(); }

void staged_results::discard() noexcept {
  try {
    const std::lock_guard guard(lock_);
    if (done_) return;
    done_ = true;
    // The command's thread may still add a file while an interrupt removes the folder.
    for (int attempt = 0; attempt < 5 && present(path_); ++attempt) {
      std::error_code ec;
      fs::remove_all(path_, ec);
    }
  } catch (...) {
    // Left for the person to see.
  }
}

void staged_results::commit(const std::vector<fs::path>& replaced) {
  const std::lock_guard guard(lock_);
  ZF_EXPECTS(!done_, "the results were already moved into ", out_.string());
  std::vector<std::pair<fs::path, fs::path>> moves;  // (from, to), undone in reverse on failure
  const auto move = [&](const fs::path& from, const fs::path& to) {
    std::error_code ec;
    fs::rename(from, to, ec);
    if (ec)
      ZF_THROW(error, "cannot move ", to.filename().string(), " into ", to.parent_path().string(), ": ", ec.message());
    moves.emplace_back(from, to);
  };
  const fs::path set_aside = out_ / (".zeroflow-replaced-" + pid_suffix());
  try {
    if (!replaced.empty()) {
      std::error_code ec;
      if (!fs::create_directory(set_aside, ec) || ec)
        ZF_THROW(error, "cannot replace the results in ", out_.string(), ": ", ec.message());
      for (std::size_t i = 0; i < replaced.size(); ++i) move(replaced[i], set_aside / std::to_string(i));
    }
    std::vector<fs::path> entries;
    for (const auto& entry : fs::directory_iterator(path_)) entries.push_back(entry.path());
    std::sort(entries.begin(), entries.end());
    for (const auto& entry : entries) {
      const fs::path target = out_ / entry.filename();
      if (!present(target)) {
        move(entry, target);
      } else if (real_folder(target) && real_folder(entry)) {
        // A recording's folder that is already there (with files of the person's own): the
        // results go in beside them.
        for (const auto& child : fs::directory_iterator(entry)) {
          const fs::path inside = target / child.path().filename();
          if (present(inside))
            ZF_THROW(error, "cannot write ", inside.string(), ": something of that name is in the way");
          move(child.path(), inside);
        }
      } else {
        ZF_THROW(error, "cannot write ", target.string(), ": something of that name is in the way");
      }
    }
  } catch (...) {
    for (auto it = moves.rbegin(); it != moves.rend(); ++it) {
      std::error_code ec;
      fs::rename(it->second, it->first, ec);
    }
    std::error_code ec;
    fs::remove(set_aside, ec);  // empty again
    throw;
  }
  done_ = true;
  std::error_code ec;
  fs::remove_all(set_aside, ec);
  fs::remove_all(path_, ec);
  // A recording folder of an earlier batch that held nothing but its results goes with them.
  for (const auto& p : replaced) {
    const fs::path folder = p.parent_path();
    if (folder != out_ && real_folder(folder) && fs::is_empty(folder, ec) && !ec) fs::remove(folder, ec);
  }
}

std::string in_terms_of_out(std::string message, const fs::path& staging, const fs::path& out) {
  // The folder's own name first, then what is inside it ("STAGING/x" becomes "OUT/x").
  const std::string hidden = staging.string();
  const std::string shown = out.string();
  for (std::size_t at = message.find(hidden); at != std::string::npos; at = message.find(hidden, at + shown.size()))
    message.replace(at, hidden.size(), shown);
  return message;
}

void with_staging_named_as_out(const fs::path& staging, const fs::path& out,
                               const std::function<void(const fs::path&)>& work) {
  try {
    work(staging);
  } catch (const std::exception& e) {
    const std::string message = message_of(e);  // a file system error's paths too
    if (message.find(staging.string()) == std::string::npos) throw;
    throw error(in_terms_of_out(message, staging, out));
  }
}

void write_results(const results_request& request, const std::function<void(const fs::path&)>& work) {
  const fs::path& out = request.out;
  const auto made = make_output_folder(out);
  const undo_on_interrupt remove_made([&made] { remove_created(made); });
  try {
    const folder_lock lock(out);
    std::vector<fs::path> earlier;
    if (request.names.empty()) {
      earlier = earlier_results(out, request.recording_folders);
    } else {
      for (const auto& name : request.names)
        if (present(out / name)) earlier.push_back(out / name);
    }
    earlier = keep_inputs(out, std::move(earlier), request.inputs);
    if (!earlier.empty() && !request.force) throw error(refusal_to_replace(out, earlier));
    staged_results staged(out);  // removed again if the work fails or is interrupted
    with_staging_named_as_out(staged.path(), out, work);
    if (!earlier.empty())
      progress("replacing the " + std::to_string(earlier.size()) + " earlier results in " + out.string());
    staged.commit(earlier);
  } catch (...) {
    if (interrupted()) wait_for_interrupt_exit();
    remove_created(made);  // a failed command leaves no folder behind that it made
    throw;
  }
}

}  // namespace zeroflow::cli
