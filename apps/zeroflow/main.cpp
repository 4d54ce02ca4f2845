// zeroflow: GPU-resident ECG outlier detection from the command line.
// Exit codes: 0 success, 1 failure, 2 usage error (a flag or argument CLI11 refuses), 128 + the
// signal when interrupted (130 for SIGINT, 143 for SIGTERM). A failure prints one line on stderr,
// "zeroflow: error: ...".
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "commands.hpp"
#include "error_text.hpp"
#include "interrupt.hpp"
#include "zeroflow/config.hpp"

namespace {

constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

/// The subcommand that was being parsed, for the pointer to its --help.
std::string help_hint(const CLI::App& app) {
  const auto chosen = app.get_subcommands();
  return chosen.empty() ? "zeroflow --help" : "zeroflow " + chosen.front()->get_name() + " --help";
}

int fail(const std::string& message, int code) {
  if (zeroflow::cli::interrupted()) zeroflow::cli::wait_for_interrupt_exit();  // its own line and code
  std::fprintf(stderr, "zeroflow: error: %s\n", message.c_str());
  return code;
}

/// The command is done and every file it wrote is closed and in place: what normal exit would
/// still do is tear down LibTorch's and CUDA's libraries object by object, which the operating
/// system does at once by ending the process. Sanitizer builds exit normally, so that their leak
/// checks at exit still run.
[[noreturn]] void end_process(int code) {
  std::fflush(nullptr);
#if defined(__SANITIZE_ADDRESS__)
  std::exit(code);
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  std::exit(code);
#endif
#endif
  std::_Exit(code);
}

}  // namespace

int main(int argc, char** argv) {
  zeroflow::cli::handle_interrupts();
  CLI::App app{"zeroflow " ZEROFLOW_VERSION
               " - GPU-resident, zero-copy ECG outlier detection: load a recording, segment it into heartbeats, "
               "train a VAE, score every beat, write a report."};
  app.require_subcommand(1);
  app.set_version_flag("--version", ZEROFLOW_VERSION);
  app.footer("Exit codes: 0 success, 1 failure, 2 usage error, 130 interrupted (SIGINT; 143 for SIGTERM).");
  zeroflow::cli::add_run(app);
  zeroflow::cli::add_score(app);
  zeroflow::cli::add_generate(app);
  zeroflow::cli::add_demo(app);
  zeroflow::cli::add_evaluate(app);
  zeroflow::cli::add_correct(app);
  zeroflow::cli::add_info(app);
  zeroflow::cli::add_generate_electricity(app);
  zeroflow::cli::add_timeseries(app);
  zeroflow::cli::add_train_population(app);
  int code = 0;
  try {
    // A first word that is no command and no flag is named back, with the commands there are.
    if (argc > 1 && argv[1][0] != '-') {
      std::string commands;
      bool known = false;
      for (auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        known = known || sub->check_name(argv[1]);
        commands += (commands.empty() ? "" : ", ") + sub->get_name();
      }
      if (!known)
        throw CLI::ValidationError(std::string("unknown command \"") + argv[1] + "\"; the commands are " + commands);
    }
    app.parse(argc, argv);           // runs the chosen subcommand's callback
  } catch (const CLI::Success& e) {  // --help, --version
    code = app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11's own codes (105, 106, 109...) say nothing to a script; every usage error is 2.
    code = fail(zeroflow::cli::one_line(e.what()) + " (see " + help_hint(app) + ")", exit_usage);
  } catch (const std::exception& e) {
    code = fail(zeroflow::cli::message_of(e), exit_failure);
  } catch (...) {
    code = fail("an unexpected error that zeroflow could not describe", exit_failure);
  }
  zeroflow::cli::finish_command();
  end_process(code);
}
