// MIT-format annotation files (the layout wfdb_annotations.cpp reads back).
#include "zeroflow/io/wfdb_annotation_writer.hpp"

#include <ostream>

#include "wfdb_annotation_codes.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"

namespace zeroflow::io {

namespace {

using detail::aux_code;
using detail::skip_code;
constexpr std::int64_t max_interval = 1023;

void put_word(std::ostream& out, unsigned word) {
  const char bytes[2] = {static_cast<char>(word & 0xFFu), static_cast<char>((word >> 8) & 0xFFu)};
  out.write(bytes, 2);
}

}  // namespace

int annotation_code_of_class(char aami_class) noexcept {
  switch (aami_class) {
    case 'N':
      return annotation_code::normal;
    case 'S':
      return annotation_code::supraventricular;
    case 'V':
      return annotation_code::pvc;
    default:
      return annotation_code::unknown;
  }
}

void write_wfdb_annotations(const std::filesystem::path& path, std::span<const annotation> annotations) {
  std::int64_t previous = 0;
  for (std::size_t i = 0; i < annotations.size(); ++i) {
    const annotation& a = annotations[i];
    ZF_EXPECTS(a.sample >= previous, "annotation ", i, " at sample ", a.sample, " comes before sample ", previous);
    ZF_EXPECTS(a.code >= 1 && a.code <= 49, "annotation ", i, ": code ", a.code, " is not an annotation code (1-49)");
    ZF_EXPECTS(a.aux.size() <= 255, "annotation ", i, ": its text has ", a.aux.size(), " bytes (at most 255)");
    previous = a.sample;
  }
  write_atomically(path, [&](std::ostream& out) {
    std::int64_t at = 0;
    for (const annotation& a : annotations) {
      std::int64_t interval = a.sample - at;
      if (interval > max_interval) {
        // SKIP: a 32-bit interval, high 16-bit word first (PDP-11 order), then the annotation at 0.
        ZF_EXPECTS(interval <= 0x7FFFFFFF, "annotations more than 2^31 samples apart");
        put_word(out, skip_code << 10);
        const auto wide = static_cast<std::uint32_t>(interval);
        put_word(out, wide >> 16);
        put_word(out, wide & 0xFFFFu);
        interval = 0;
      }
      put_word(out, (static_cast<unsigned>(a.code) << 10) | static_cast<unsigned>(interval));
      at = a.sample;
      if (!a.aux.empty()) {
        put_word(out, (aux_code << 10) | static_cast<unsigned>(a.aux.size()));
        out.write(a.aux.data(), static_cast<std::streamsize>(a.aux.size()));
        if (a.aux.size() % 2 != 0) out.put('\0');  // texts are padded to whole words
      }
    }
    put_word(out, 0);  // the end of the file
  });
}

}  // namespace zeroflow::io
