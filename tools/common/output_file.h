// Output files are written whole or not at all: to a temporary name beside the target, then renamed.
#ifndef TOUCHSTONE_TOOLS_COMMON_OUTPUT_FILE_H_
#define TOUCHSTONE_TOOLS_COMMON_OUTPUT_FILE_H_

#include <string>

#include "runtime/status.h"

namespace touchstone {

Status WriteFileAtomically(const std::string& path, const std::string& contents, const std::string& flag);

}  // namespace touchstone

#endif  // TOUCHSTONE_TOOLS_COMMON_OUTPUT_FILE_H_
