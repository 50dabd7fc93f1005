#pragma once
// The few pieces of Python's str semantics that sacreBLEU's scores depend on, on UTF-8 bytes:
// str.split() / str.rstrip() with Python's Unicode whitespace set (Multi30k's German text holds
// U+00A0 no-break spaces, which Python splits on and an ASCII split would not) and str.lower().
// No torch: shared by the BLEU tool and the MT task.
#include <string>
#include <string_view>
#include <vector>

namespace recurlab::metrics {

// Python's str.isspace() code points: \t\n\v\f\r, U+001C-001F, space, U+0085, U+00A0, U+1680,
// U+2000-200A, U+2028, U+2029, U+202F, U+205F, U+3000.
bool isPythonWhitespace(char32_t c);

// Python's str.split() with no argument: runs of whitespace separate, no empty pieces.
std::vector<std::string> splitPythonWhitespace(std::string_view text);

// Python's str.rstrip() with no argument.
std::string rstripPythonWhitespace(std::string_view text);

// Python's str.lower(): full Unicode lowercase mapping (glibc's C.UTF-8 tables), with the
// special mappings Python applies beyond the simple ones (U+0130 -> "i̇", final sigma).
// Invalid UTF-8 bytes are kept as they are.
std::string pythonLower(std::string_view text);

}  // namespace recurlab::metrics
