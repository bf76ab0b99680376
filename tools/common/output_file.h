// Output files are written whole or not at all. The bytes go to a file without a name (O_TMPFILE)
// in the target's folder, are flushed to disk, get a temporary name beside the target, and are renamed
// over it: a run killed at any point leaves the old file or none, never part of one, and (except in the
// microseconds between naming and renaming) no temporary file. Where the filesystem lacks O_TMPFILE
// the bytes go to a hidden temporary file, `.<name>.tmp.<pid>.<n>`, which a run killed mid-write
// leaves behind (docs/isolation.md).
//
// Test hook: with TOUCHSTONE_TEST_STOP_MID_WRITE set to a suffix of the path, the writer stops itself
// (SIGSTOP) after half the bytes, so a test can kill it mid-write deterministically.
#ifndef TOUCHSTONE_TOOLS_COMMON_OUTPUT_FILE_H_
#define TOUCHSTONE_TOOLS_COMMON_OUTPUT_FILE_H_

#include <string>

#include "runtime/status.h"

namespace touchstone {

// Errors (kUsage, naming --<flag> and the path): the folder is missing or not writable, the write or
// the rename failed. The target is then unchanged.
Status WriteFileAtomically(const std::string& path, const std::string& contents, const std::string& flag);

}  // namespace touchstone

#endif  // TOUCHSTONE_TOOLS_COMMON_OUTPUT_FILE_H_
