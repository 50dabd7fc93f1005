#include "tasks/qa/json_document.h"

#include <stdexcept>

namespace recurlab::experiments::qa {

nlohmann::json parseJsonDocument(const std::string& bytes, const std::string& name) {
  try {
    return nlohmann::json::parse(bytes);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(name + ": malformed JSON at byte offset " +
                             std::to_string(e.byte > 0 ? e.byte - 1 : 0) + " (from 0): " +
                             e.what());
  } catch (const nlohmann::json::exception& e) {
    // Number overflow (out_of_range 406) carries no position, only the number's text: the
    // first place that text starts a token is where it was read.
    const std::string what = e.what();
    std::string where;
    const auto open = what.find("parsing '");
    if (open != std::string::npos) {
      const auto from = open + 9;
      const auto close = what.find('\'', from);
      if (close != std::string::npos) {
        const std::string number = what.substr(from, close - from);
        for (size_t at = bytes.find(number); at != std::string::npos; at = bytes.find(number, at + 1)) {
          const char before = at ? bytes[at - 1] : ' ';
          if (before != '-' && before != '.' && (before < '0' || before > '9') && before != 'e' &&
              before != 'E' && before != '+') {
            where = " at byte offset " + std::to_string(at) + " (from 0)";
            break;
          }
        }
      }
    }
    throw std::runtime_error(name + ": a JSON value cannot be read" + where + ": " + what);
  }
}

}  // namespace recurlab::experiments::qa
