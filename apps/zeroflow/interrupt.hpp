#pragma once
// SIGINT (Ctrl-C) and SIGTERM end a command at once, with exit code 128 + the signal (130, 143),
// one error line, and nothing half-done: the temporaries of files being written go
// (io::abandon_writes), and so does whatever the command registered as unfinished (a staging
// folder, an output folder it made, a recording written without its labels).
//
// A signal that the parent process ignores (a background job of a script, nohup) stays ignored.
//
// The handler itself only wakes a thread of its own (a byte down a pipe); that thread does the
// clean-up and ends the process, so the clean-up may use the file system freely while the
// command's own thread is stopped at its next file operation or keeps computing.
#include <cstddef>
#include <functional>

namespace zeroflow::cli {

/// @brief Installs the SIGINT and SIGTERM handlers and the thread that acts on them; call once,
/// first thing in main.
void handle_interrupts();

/// @brief True once an interrupt is being handled: the command's thread must then report nothing
/// (the process ends with the interrupt's exit code and line) and wait (wait_for_interrupt_exit).
[[nodiscard]] bool interrupted() noexcept;

/// @brief Waits for the interrupt's thread to end the process.
[[noreturn]] void wait_for_interrupt_exit();

/// @brief While alive, `undo` runs if the command is interrupted (the newest registration
/// first). Destroying it unregisters `undo`; during an interrupt it waits for the process to end
/// instead, so that what `undo` uses stays alive while it runs.
class undo_on_interrupt {
 public:
  explicit undo_on_interrupt(std::function<void()> undo);
  ~undo_on_interrupt();
  undo_on_interrupt(const undo_on_interrupt&) = delete;
  undo_on_interrupt& operator=(const undo_on_interrupt&) = delete;

 private:
  std::size_t id_;
};

/// @brief Marks the command finished: an interrupt from now on removes nothing. Waits for the
/// process to end when an interrupt's clean-up is already under way.
void finish_command();

}  // namespace zeroflow::cli
