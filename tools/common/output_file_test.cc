// WriteFileAtomically: the whole contents or the old file, never part; no temporary left behind; errors
// name the flag and leave the target alone.
#include "tools/common/output_file.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace touchstone {
namespace {

std::string Folder(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  mkdir(dir.c_str(), 0755);
  return dir;
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  return names;
}

TEST(OutputFileTest, WritesAndReplacesWhole) {
  const std::string dir = Folder("whole");
  const std::string path = dir + "/report.json";
  ASSERT_TRUE(WriteFileAtomically(path, "first", "report_json").ok());
  EXPECT_EQ(Read(path), "first");
  const std::string big(3 << 20, 'x');
  ASSERT_TRUE(WriteFileAtomically(path, big, "report_json").ok());
  EXPECT_EQ(Read(path), big);
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"report.json"});
}

TEST(OutputFileTest, MissingFolderIsAUsageErrorNamingTheFlag) {
  Status status = WriteFileAtomically(Folder("x") + "/missing/report.json", "data", "report_json");
  EXPECT_EQ(status.code(), StatusCode::kUsage);
  EXPECT_NE(status.message().find("--report_json: cannot write"), std::string::npos) << status.message();
}

TEST(OutputFileTest, FailedRenameKeepsTheTargetAndLeavesNoTemporary) {
  const std::string dir = Folder("rename");
  const std::string target = dir + "/is_a_folder";
  mkdir(target.c_str(), 0755);
  mkdir((target + "/inside").c_str(), 0755);  // rename over a non-empty folder fails
  Status status = WriteFileAtomically(target, "data", "output");
  EXPECT_EQ(status.code(), StatusCode::kUsage);
  EXPECT_NE(status.message().find("cannot replace"), std::string::npos) << status.message();
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"is_a_folder"});
}

// A writer killed halfway (stopped by the test hook, then SIGKILLed) leaves the old file untouched.
TEST(OutputFileTest, KilledMidWriteLeavesTheOldFile) {
  const std::string dir = Folder("killed");
  const std::string path = dir + "/out.csv";
  ASSERT_TRUE(WriteFileAtomically(path, "old contents\n", "op_profiling_output_file").ok());
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setenv("TOUCHSTONE_TEST_STOP_MID_WRITE", "/out.csv", 1);
    WriteFileAtomically(path, std::string(1 << 20, 'n'), "op_profiling_output_file");
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, WUNTRACED), child);
  ASSERT_TRUE(WIFSTOPPED(status));  // halfway through the write
  EXPECT_EQ(Read(path), "old contents\n");
  kill(child, SIGKILL);
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(Read(path), "old contents\n");
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"out.csv"});
}

}  // namespace
}  // namespace touchstone
