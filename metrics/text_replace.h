#pragma once
// Literal, global, left-to-right, non-overlapping replacement, as Python's str.replace and a
// Perl s/literal/.../g do it, and the same for a pair of character classes. Shared by the
// tokenizers.
#include <string>
#include <string_view>

namespace recurlab::metrics {

inline void replaceAll(std::string& text, std::string_view from, std::string_view to) {
  if (from.empty() || text.find(from) == std::string::npos) return;
  std::string out;
  out.reserve(text.size());
  size_t start = 0, at;
  while ((at = text.find(from, start)) != std::string::npos) {
    out.append(text, start, at - start);
    out.append(to);
    start = at + from.size();
  }
  out.append(text, start, std::string::npos);
  text.swap(out);
}

// Every leftmost, non-overlapping pair (a, b) of adjacent characters with first(a) and
// second(b) becomes left + a + middle + b + right, scanning left to right as Python's re.sub
// and Perl's s///g do for "(class)(class)". Bytes (std::string) or code points (std::u32string).
template <typename Char>
struct TextView {  // not deduced from the arguments: literals convert to it
  using type = std::basic_string_view<Char>;
};

template <typename Char, typename First, typename Second>
std::basic_string<Char> substitutePairs(const std::basic_string<Char>& text, First first,
                                        Second second, typename TextView<Char>::type left,
                                        typename TextView<Char>::type middle,
                                        typename TextView<Char>::type right) {
  std::basic_string<Char> out;
  out.reserve(text.size() + text.size() / 4);
  size_t i = 0;
  while (i < text.size()) {
    if (i + 1 < text.size() && first(text[i]) && second(text[i + 1])) {
      out += left;
      out += text[i];
      out += middle;
      out += text[i + 1];
      out += right;
      i += 2;
    } else {
      out += text[i++];
    }
  }
  return out;
}

}  // namespace recurlab::metrics
