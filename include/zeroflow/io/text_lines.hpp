#pragma once
/// @file text_lines.hpp
/// The lines of a small text file held in memory (labels, beats.csv), with their line numbers for
/// error messages: LF or CRLF line ends, a last line with or without its line break, and a UTF-8
/// byte order mark (spreadsheet exports write one) that is no part of the first line.
#include <cstddef>
#include <iterator>
#include <string_view>

namespace zeroflow::io {

/// One line of a text.
struct text_line {
  std::size_t number = 0;  ///< 1-based, counting every line (empty ones included)
  std::string_view text;   ///< the line without its line break ("\n" or "\r\n"); may be empty
};

/// @brief The lines of `text`, in order, for a range-for loop. Views into `text`, which must
/// outlive the loop.
///
/// A line ends at "\n"; one "\r" before it (or at the end of the text) is dropped. A line break
/// at the very end of the text starts no further line, so "a\n" and "a" both hold the line "a",
/// "" holds none and "\n" one empty line. Empty lines are given, not skipped: whether they count
/// is the reader's decision. A "\r" anywhere else stays in the line.
class text_lines {
 public:
  /// @param text the whole text; a leading UTF-8 byte order mark (EF BB BF) is skipped
  explicit text_lines(std::string_view text) noexcept
      : text_{text.starts_with(byte_order_mark) ? text.substr(byte_order_mark.size()) : text} {}

  class iterator {
   public:
    using value_type = text_line;
    using difference_type = std::ptrdiff_t;

    iterator() = default;
    explicit iterator(std::string_view rest) noexcept : rest_{rest} { advance(); }

    const text_line& operator*() const noexcept { return line_; }
    const text_line* operator->() const noexcept { return &line_; }
    iterator& operator++() noexcept {
      advance();
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator before = *this;
      advance();
      return before;
    }
    friend bool operator==(const iterator& it, std::default_sentinel_t) noexcept { return it.done_; }

   private:
    void advance() noexcept {
      if (rest_.empty()) {
        done_ = true;
        return;
      }
      const std::size_t end = rest_.find('\n');
      std::string_view line = rest_.substr(0, end);
      rest_ = end == std::string_view::npos ? std::string_view{} : rest_.substr(end + 1);
      if (line.ends_with('\r')) line.remove_suffix(1);
      line_ = {line_.number + 1, line};
    }

    std::string_view rest_;
    text_line line_;
    bool done_ = false;
  };

  [[nodiscard]] iterator begin() const noexcept { return iterator{text_}; }
  [[nodiscard]] std::default_sentinel_t end() const noexcept { return {}; }

  /// The UTF-8 encoding of U+FEFF.
  static constexpr std::string_view byte_order_mark = "\xEF\xBB\xBF";

 private:
  std::string_view text_;
};

}  // namespace zeroflow::io
