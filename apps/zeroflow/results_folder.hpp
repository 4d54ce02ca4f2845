#pragma once
// The results of `zeroflow run` / `score` in their output folder, as one set: a run writes them to a
// staging folder first and moves them in together when it has succeeded, so that a folder never
// holds files from two runs side by side, and a failed or interrupted run leaves the folder as it
// was. Earlier results are replaced only when asked (--force), and then all of them, stale ones
// (figures/, evaluation.json, another layout's files) included.
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "interrupt.hpp"

namespace zeroflow::cli {

/// @brief The names a run's results have in its folder: beats.csv, summary.json, report.html,
/// model.safetensors (model.pt of earlier versions), figures, evaluation.json (`zeroflow evaluate`), runs.csv (several
/// recordings), points.csv (`zeroflow timeseries`).
[[nodiscard]] const std::vector<std::string>& result_names();

/// @brief Results of earlier runs in `out`: its entries named in result_names(), the result
/// entries of the recording folders its runs.csv lists, and those of `recording_folders` (the
/// folders of this run's recordings, by name inside `out`). Links are listed as themselves.
[[nodiscard]] std::vector<std::filesystem::path> earlier_results(const std::filesystem::path& out,
                                                                 const std::vector<std::string>& recording_folders);

/// @brief The one line that refuses to replace `earlier` (results found in `out`) without --force.
/// @brief The one rule for a command's inputs among the results it replaces: an earlier result that
/// is itself an input is kept (dropped from `earlier`); an input inside an earlier result folder
/// (or one whose folder is such a result, as a WFDB header's signal files are beside it) stops the
/// command, since replacing that folder would delete it.
/// @throws zeroflow::error naming the input and the result folder
[[nodiscard]] std::vector<std::filesystem::path> keep_inputs(const std::filesystem::path& out,
                                                             std::vector<std::filesystem::path> earlier,
                                                             const std::vector<std::filesystem::path>& inputs);

/// @brief Refuses to write `target` over a file the command reads (`inputs`): the same file, by
/// any name.
/// @throws zeroflow::error naming both
void refuse_to_overwrite_input(const std::filesystem::path& target, const std::vector<std::filesystem::path>& inputs,
                               const std::string& what);

[[nodiscard]] std::string refusal_to_replace(const std::filesystem::path& out,
                                             const std::vector<std::filesystem::path>& earlier);

/// @brief An exclusive lock (flock) on a folder, held while the object lives: two commands never
/// write into one output folder at the same time. Nothing is left in the folder.
class folder_lock {
 public:
  /// @throws zeroflow::error when another process holds the lock, or the folder cannot be opened
  explicit folder_lock(const std::filesystem::path& folder);
  ~folder_lock();
  folder_lock(const folder_lock&) = delete;
  folder_lock& operator=(const folder_lock&) = delete;

 private:
  int fd_ = -1;
};

/// @brief A hidden folder inside `out` where a run writes its results; commit() moves them into
/// `out`, discard() (or the destructor, when not committed, or an interrupt) removes it with all it
/// holds.
class staged_results {
 public:
  /// @throws zeroflow::error when the folder cannot be made (`out` not writable, disk full)
  explicit staged_results(const std::filesystem::path& out);
  ~staged_results();
  staged_results(const staged_results&) = delete;
  staged_results& operator=(const staged_results&) = delete;

  /// The staging folder: write the results here, under the names they will have in `out`.
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

  /// @brief Moves the earlier results `replaced` out of the way, then every entry of the staging
  /// folder into `out` (a folder into a folder of the same name that is already there, entry by
  /// entry), then removes the earlier results and any recording folder they leave empty. On
  /// failure every move is undone and the earlier results are back.
  /// @throws zeroflow::error naming the entry that could not be moved
  void commit(const std::vector<std::filesystem::path>& replaced);

  /// @brief Removes the staging folder (and earlier results set aside by an unfinished commit go
  /// back); a no-op after commit(). Never throws. Safe from another thread (an interrupt).
  void discard() noexcept;

 private:
  std::filesystem::path out_, path_;
  std::mutex lock_;
  bool done_ = false;
  std::optional<undo_on_interrupt> undo_;  // last: unregistered before what it uses goes
};

/// @brief `message` with every mention of the staging folder `staging` said as `out`, where its
/// results were to go: a person never sees the hidden folder (a disk-full error names their file).
[[nodiscard]] std::string in_terms_of_out(std::string message, const std::filesystem::path& staging,
                                          const std::filesystem::path& out);

/// @brief Calls `work(staging)`; an exception whose message names `staging` is thrown again as a
/// zeroflow::error that names `out` in its place (in_terms_of_out), any other as it is.
void with_staging_named_as_out(const std::filesystem::path& staging, const std::filesystem::path& out,
                               const std::function<void(const std::filesystem::path&)>& work);

/// What a command writes into an output folder, for write_results.
struct results_request {
  std::filesystem::path out;  ///< the output folder (made when missing)
  bool force = false;         ///< --force: earlier results may be replaced
  /// The names of the results this command writes in `out`; empty: result_names(), and then every
  /// earlier result (earlier_results) counts, a batch's recording folders included.
  std::vector<std::string> names;
  std::vector<std::string> recording_folders;  ///< this run's recording folders inside `out` (a batch)
  std::vector<std::filesystem::path> inputs;   ///< files the command reads: never earlier results to replace
};

/// @brief Writes a command's results as one set: makes `out` where missing, locks it, refuses its
/// earlier results unless `force`, runs `work` with a staging folder inside `out` to write the
/// results in (under their final names), and moves them in together when `work` returns. When
/// `work` throws or the command is interrupted, `out` is left as it was (and taken back when this
/// made it).
/// @throws zeroflow::error when `out` cannot be a folder or locked, when it holds earlier results
///         and `force` is not set (before `work` runs), or what `work` throws
void write_results(const results_request& request, const std::function<void(const std::filesystem::path&)>& work);

}  // namespace zeroflow::cli
