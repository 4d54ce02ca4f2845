#include "interrupt.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "zeroflow/io/atomic_file.hpp"

namespace zeroflow::cli {

namespace {

int wake_pipe[2] = {-1, -1};
std::atomic<bool> interrupting{false};

/// What an interrupt undoes. Never destroyed: the interrupt's thread may use it while the
/// process exits.
struct undo_list {
  std::mutex lock;  // held by the interrupt's thread until the process ends
  std::vector<std::pair<std::size_t, std::function<void()>>> actions;
  std::size_t next_id = 0;
  bool finished = false;
};

undo_list& undos() {
  static auto* list = new undo_list;
  return *list;
}

extern "C" void on_signal(int signal_number) {
  // Only async-signal-safe calls here: the byte wakes the thread that does the work.
  const int saved = errno;
  const auto byte = static_cast<unsigned char>(signal_number);
  [[maybe_unused]] const auto written = ::write(wake_pipe[1], &byte, 1);
  errno = saved;
}

[[noreturn]] void act_on_interrupt(int signal_number) {
  interrupting = true;
  io::abandon_writes();  // first: no temporary is created or renamed into place after this
  auto& list = undos();
  list.lock.lock();  // kept: the command's thread stops at its next registration or unregistration
  bool removed = false;
  if (!list.finished) {
    for (auto it = list.actions.rbegin(); it != list.actions.rend(); ++it) {
      try {
        it->second();
      } catch (...) {
        // Removal failed: what is left is for the person to see.
      }
      removed = true;
    }
  }
  std::fprintf(stderr, "zeroflow: error: interrupted (%s)%s\n", signal_number == SIGINT ? "SIGINT" : "SIGTERM",
               removed ? "; the unfinished outputs were removed" : "");
  std::fflush(stderr);
  ::_exit(128 + signal_number);
}

void watch() {
  unsigned char byte = 0;
  for (;;) {
    const auto got = ::read(wake_pipe[0], &byte, 1);
    if (got == 1) act_on_interrupt(byte);
    if (got == 0 || (got < 0 && errno != EINTR)) return;  // no pipe: the handlers cannot wake us
  }
}

}  // namespace

void handle_interrupts() {
  if (::pipe2(wake_pipe, O_CLOEXEC) != 0) return;  // without the pipe, the signals keep their default
  std::thread(watch).detach();
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // reads and writes of the command go on until the clean-up stops them
  for (const int signal_number : {SIGINT, SIGTERM}) {
    // A signal the parent chose to ignore (a background job of a script, nohup) stays ignored.
    struct sigaction previous {};
    if (::sigaction(signal_number, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
    ::sigaction(signal_number, &action, nullptr);
  }
}

bool interrupted() noexcept { return interrupting.load(); }

void wait_for_interrupt_exit() {
  for (;;) ::pause();
}

undo_on_interrupt::undo_on_interrupt(std::function<void()> undo) {
  auto& list = undos();
  const std::lock_guard guard(list.lock);
  id_ = list.next_id++;
  list.actions.emplace_back(id_, std::move(undo));
}

undo_on_interrupt::~undo_on_interrupt() {
  auto& list = undos();
  const std::lock_guard guard(list.lock);  // waits for good while an interrupt is undoing
  for (auto it = list.actions.begin(); it != list.actions.end(); ++it) {
    if (it->first == id_) {
      list.actions.erase(it);
      return;
    }
  }
}

void finish_command() {
  auto& list = undos();
  const std::lock_guard guard(list.lock);
  list.finished = true;
}

}  // namespace zeroflow::cli
