#pragma once
// Private to src/io/wfdb: the pseudo-annotation codes of WFDB's MIT annotation format (the upper
// six bits of a word) that its reader and its writer share.
namespace zeroflow::io::detail {

/// Skip: the next two words hold a longer interval than the word's ten bits.
constexpr unsigned skip_code = 59;
/// Aux: the word's low bits give the length of the text that follows.
constexpr unsigned aux_code = 63;

}  // namespace zeroflow::io::detail
