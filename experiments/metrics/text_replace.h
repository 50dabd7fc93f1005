#pragma once
// Literal, global, left-to-right, non-overlapping replacement, as Python's str.replace and a
// Perl s/literal/.../g do it. Shared by the tokenizers.
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

}  // namespace recurlab::metrics
