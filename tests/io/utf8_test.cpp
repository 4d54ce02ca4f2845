// io::utf8_char_length and io::is_utf8 against a reference that decodes the code point and then
// applies RFC 3629's rules to its value (shortest form, no surrogates, at most U+10FFFF), on every
// sequence of one to three bytes and on seeded random four-byte ones; and against an encoder.
#include "zeroflow/io/utf8.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>

namespace io = zeroflow::io;

namespace {

/// The length of the valid character that `s` starts with, by decoding: 0 when there is none.
std::size_t reference_length(const std::string& s) {
  if (s.empty()) return 0;
  const auto b = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(s[i])); };
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (b(0) < 0x80) return 1;
  if ((b(0) & 0xE0) == 0xC0) {
    n = 2, cp = b(0) & 0x1F;
  } else if ((b(0) & 0xF0) == 0xE0) {
    n = 3, cp = b(0) & 0x0F;
  } else if ((b(0) & 0xF8) == 0xF0) {
    n = 4, cp = b(0) & 0x07;
  } else {
    return 0;  // a continuation byte or 0xF8..0xFF
  }
  if (s.size() < n) return 0;
  for (std::size_t i = 1; i < n; ++i) {
    if ((b(i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i) & 0x3F);
  }
  const std::uint32_t shortest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < shortest[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
  return n;
}

std::string encode(std::uint32_t cp) {
  std::string s;
  const auto put = [&](std::uint32_t v) { s += static_cast<char>(v); };
  if (cp < 0x80) {
    put(cp);
  } else if (cp < 0x800) {
    put(0xC0 | (cp >> 6)), put(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    put(0xE0 | (cp >> 12)), put(0x80 | ((cp >> 6) & 0x3F)), put(0x80 | (cp & 0x3F));
  } else {
    put(0xF0 | (cp >> 18)), put(0x80 | ((cp >> 12) & 0x3F)), put(0x80 | ((cp >> 6) & 0x3F)), put(0x80 | (cp & 0x3F));
  }
  return s;
}

}  // namespace

TEST(Utf8, EverySequenceOfUpToThreeBytes) {
  std::string s(3, '\0');
  for (unsigned a = 0; a < 256; ++a) {
    s.assign(1, static_cast<char>(a));
    ASSERT_EQ(io::utf8_char_length(s, 0), reference_length(s)) << a;
    for (unsigned b = 0; b < 256; ++b) {
      s.assign({static_cast<char>(a), static_cast<char>(b)});
      ASSERT_EQ(io::utf8_char_length(s, 0), reference_length(s)) << a << ' ' << b;
      for (unsigned c = 0; c < 256; ++c) {
        s.assign({static_cast<char>(a), static_cast<char>(b), static_cast<char>(c)});
        ASSERT_EQ(io::utf8_char_length(s, 0), reference_length(s)) << a << ' ' << b << ' ' << c;
      }
    }
  }
}

TEST(Utf8, RandomFourByteSequencesAndOffsets) {
  std::mt19937_64 rng(77);
  std::uniform_int_distribution<unsigned> byte(0, 255), high(0x80, 0xBF), lead(0xE0, 0xFF);
  for (int trial = 0; trial < 200000; ++trial) {
    // Leads of three- and four-byte forms with continuation bytes mostly, so that most are close calls.
    std::string s = {static_cast<char>(lead(rng))};
    for (int k = 0; k < 3; ++k) s += static_cast<char>(trial % 5 == 0 ? byte(rng) : high(rng));
    ASSERT_EQ(io::utf8_char_length(s, 0), reference_length(s)) << trial;
    const std::string padded = "ab" + s;
    ASSERT_EQ(io::utf8_char_length(padded, 2), reference_length(s)) << "at an offset, trial " << trial;
  }
  EXPECT_EQ(io::utf8_char_length("abc", 3), 0U) << "past the end";
  EXPECT_EQ(io::utf8_char_length("", 0), 0U);
}

TEST(Utf8, EveryCodePointEncodedIsOneCharacter) {
  for (std::uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const std::string s = encode(cp);
    ASSERT_EQ(io::utf8_char_length(s, 0), s.size()) << std::hex << cp;
  }
  // Surrogates and the code points after U+10FFFF, encoded the same way, are not.
  for (std::uint32_t cp : {0xD800U, 0xDBFFU, 0xDC00U, 0xDFFFU, 0x110000U, 0x13FFFFU})
    EXPECT_EQ(io::utf8_char_length(encode(cp), 0), 0U) << std::hex << cp;
}

TEST(Utf8, WholeTexts) {
  EXPECT_TRUE(io::is_utf8(""));
  EXPECT_TRUE(io::is_utf8("plain ASCII, with \t and \n"));
  EXPECT_TRUE(io::is_utf8("\xC2\xB5V, \xE2\x82\xAC, \xF0\x9F\x92\x93"));  // µV, €, a heart
  EXPECT_FALSE(io::is_utf8("\xB5V"));                                     // Latin-1 µ
  EXPECT_FALSE(io::is_utf8("ok \xE2\x82"));                               // cut short at the end
  EXPECT_FALSE(io::is_utf8("\xC0\xAF"));                                  // an overlong '/'
  EXPECT_FALSE(io::is_utf8("\xED\xA0\x80"));                              // a surrogate
  EXPECT_FALSE(io::is_utf8(std::string("a\xFF", 2)));
  // A text is valid exactly when every character the reference finds is, from start to end.
  std::mt19937_64 rng(78);
  const std::string pieces[] = {"a",    "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x92\x93",
                                "\x80", "\xC3",     "\xF5",         "\xED\xA0\x80"};
  for (int trial = 0; trial < 20000; ++trial) {
    std::string text;
    for (int k = std::uniform_int_distribution<int>(0, 8)(rng); k > 0; --k)
      text += pieces[std::uniform_int_distribution<std::size_t>(0, 7)(rng)];
    bool valid = true;
    for (std::size_t i = 0; i < text.size() && valid;) {
      const std::size_t n = reference_length(text.substr(i));
      valid = n > 0;
      i += n;
    }
    ASSERT_EQ(io::is_utf8(text), valid) << trial;
  }
}
