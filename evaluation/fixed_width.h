// Text in a fixed-width column, the width counted in bytes as printf's "%-*s" and iostream's std::setw
// count it. fmt's widths count code points (a UTF-8 tensor name would be padded with fewer spaces), so
// the tables that pad names which may not be ASCII pad with these and print the result with "{}".
#ifndef TOUCHSTONE_EVALUATION_FIXED_WIDTH_H_
#define TOUCHSTONE_EVALUATION_FIXED_WIDTH_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace touchstone {

// Left-aligned: `text` then spaces up to `width` bytes ("%-*s"); text longer than that is kept whole.
inline std::string PadRight(std::string_view text, size_t width) {
  std::string out(text);
  if (out.size() < width) out.append(width - out.size(), ' ');
  return out;
}

// Right-aligned: spaces, then `text` ("%*s", std::right << std::setw).
inline std::string PadLeft(std::string_view text, size_t width) {
  return text.size() < width ? std::string(width - text.size(), ' ') + std::string(text) : std::string(text);
}

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_FIXED_WIDTH_H_
