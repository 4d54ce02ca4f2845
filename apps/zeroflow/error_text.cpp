#include "error_text.hpp"

#include <cstdio>
#include <filesystem>
#include <new>

#include "run_option_flags.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/utf8.hpp"

namespace zeroflow::cli {

namespace {

constexpr std::size_t longest_message = 2000;

// The nearest character boundary at or before `at` in UTF-8 text (a continuation byte is 10xxxxxx).
std::size_t boundary_before(const std::string& text, std::size_t at) {
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

}  // namespace

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\r' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
      ++i;
    } else if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = c >= 0x80 ? io::utf8_char_length(text, i) : 0; n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", c);
      out += escaped;
      ++i;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() <= longest_message) return out;
  // The reason comes last ("PATH: what was wrong"): a long message loses its middle (most often
  // a path), never its end.
  const std::size_t head = boundary_before(out, longest_message / 4);
  const std::size_t tail = boundary_before(out, out.size() - (longest_message - longest_message / 4));
  return out.substr(0, head) + " ... " + out.substr(tail);
}

std::string message_of(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr)
    return "out of memory: this machine has too little free memory for the recording and these parameters";
  if (const auto* fs_error = dynamic_cast<const std::filesystem::filesystem_error*>(&e)) {
    std::string where = fs_error->path1().string();
    if (!fs_error->path2().empty()) where += " -> " + fs_error->path2().string();
    return one_line((where.empty() ? std::string() : where + ": ") + fs_error->code().message());
  }
  // A broken precondition names the function whose check it is ("robust_zscore: the signal is
  // empty"): an input the command should have refused in its own terms first. The person sees
  // what was wrong, not the function.
  // The library names options as it knows them (`max_device_memory`); the person typed flags.
  if (dynamic_cast<const invalid_argument*>(&e) != nullptr)
    return one_line(in_flag_terms(without_function_name(e.what())));
  return one_line(in_flag_terms(e.what()));
}

std::string without_function_name(std::string_view message) {
  // "name_with_underscores: ..." (optionally "name::name: ..."), where the name is no file there.
  std::size_t i = 0;
  bool underscore = false;
  while (i < message.size() &&
         ((message[i] >= 'a' && message[i] <= 'z') || (message[i] >= '0' && message[i] <= '9') || message[i] == '_' ||
          (message[i] == ':' && i + 1 < message.size() && message[i + 1] == ':'))) {
    underscore = underscore || message[i] == '_';
    i += message[i] == ':' ? 2 : 1;
  }
  if (i == 0 || !underscore || message.compare(i, 2, ": ") != 0) return std::string(message);
  std::error_code ec;
  if (std::filesystem::exists(std::string(message.substr(0, i)), ec)) return std::string(message);  // a file's name
  return std::string(message.substr(i + 2));
}

}  // namespace zeroflow::cli
