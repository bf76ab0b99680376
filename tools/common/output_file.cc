#include "tools/common/output_file.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace touchstone {

Status WriteFileAtomically(const std::string& path, const std::string& contents, const std::string& flag) {
  const std::string temp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return UsageError("--" + flag + ": cannot write " + path);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out.good()) {
      out.close();
      std::remove(temp.c_str());
      return UsageError("--" + flag + ": writing " + path + " failed");
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return UsageError("--" + flag + ": cannot replace " + path);
  }
  return Status::Ok();
}

}  // namespace touchstone
