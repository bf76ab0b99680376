#include "tools/common/version.h"

#include "tools/common/version_stamp.h"

namespace touchstone {

std::string TouchstoneVersion() { return TOUCHSTONE_VERSION_STAMP; }

}  // namespace touchstone
