// The Touchstone version of this build, for reports and --version.
#ifndef TOUCHSTONE_TOOLS_COMMON_VERSION_H_
#define TOUCHSTONE_TOOLS_COMMON_VERSION_H_

#include <string>

namespace touchstone {

// `git describe --always --dirty --tags` of the checkout it was built from ("unknown" outside git).
std::string TouchstoneVersion();

}  // namespace touchstone

#endif  // TOUCHSTONE_TOOLS_COMMON_VERSION_H_
