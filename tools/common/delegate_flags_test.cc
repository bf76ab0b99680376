// The delegate flag group through a real FlagTable: --help lists the providers' flags, delegates come
// out in command-line order, and bad plugin options are usage errors naming the item.
#include "tools/common/delegate_flags.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace touchstone {
namespace {

std::string PluginPath() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/touchstone/delegates/sample/libsample_delegate_plugin.so";
}

struct Parsed {
  int32_t num_threads = 1;
  std::string delegate;
  FlagTable table;
  DelegateFlagGroup group;
  Status status;
  explicit Parsed(std::vector<std::string> args) {
    table.AddInt("num_threads", &num_threads, "threads");
    table.AddString("delegate", &delegate, "by name");
    group.AddTo(&table);
    args.insert(args.begin(), "tool");
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    bool help = false;
    status = table.Parse(static_cast<int>(argv.size()), argv.data(), &help, nullptr);
  }
};

TEST(DelegateFlagGroupTest, HelpListsEveryProvidersFlags) {
  Parsed p({});
  const std::string usage = p.table.Usage("tool");
  for (const char* text :
       {"Delegate provider COMMON", "--max_delegated_partitions=0", "--min_nodes_per_partition=0",
        "Delegate provider EXTERNAL", "--external_delegate_path=\"\"", "--external_delegate_options=\"\"",
        "Delegate provider SAMPLE", "--use_sample_delegate=false"}) {
    EXPECT_NE(usage.find(text), std::string::npos) << text << "\n" << usage;
  }
}

// The providers' declared limits and the group's own are the table's: refused at parse, shown in --help.
TEST(DelegateFlagGroupTest, DeclaredLimitsAreTheTables) {
  EXPECT_EQ(Parsed({"--xnnpack_8bit=always"}).status.message(), "--xnnpack_8bit=always: must be one of auto, xnnpack");
  EXPECT_EQ(Parsed({"--gpu_backend=metal"}).status.message(),
            "--gpu_backend=metal: must be one of \"\", vulkan, cl, gl");
  EXPECT_EQ(Parsed({"--gpu_device_index=-2"}).status.message(), "--gpu_device_index=-2: must be at least -1");
  EXPECT_EQ(Parsed({"--max_tensor_memory_mb=0"}).status.exit_code(), 2);
  EXPECT_TRUE(Parsed({"--gpu_backend=cl", "--gpu_device_index=-1", "--xnnpack_fp32=xnnpack"}).status.ok());
  const std::string usage = Parsed({}).table.Usage("tool");
  for (const char* text : {"(one of auto, xnnpack)", "(one of \"\", vulkan, cl, gl)", "(at least -1)"}) {
    EXPECT_NE(usage.find(text), std::string::npos) << text << "\n" << usage;
  }
}

TEST(DelegateFlagGroupTest, DelegatesInCommandLineOrder) {
  {
    Parsed p({"--external_delegate_path=" + PluginPath(), "--num_threads=2", "--use_sample_delegate"});
    ASSERT_TRUE(p.status.ok()) << p.status.message();
    auto created = p.group.CreateDelegates(p.table, {2});
    ASSERT_TRUE(created.ok()) << created.status().message();
    ASSERT_EQ(created.value().size(), 2u);
    EXPECT_EQ(created.value()[0].provider, "EXTERNAL");
    EXPECT_EQ(created.value()[1].provider, "SAMPLE");
  }
  {
    Parsed p({"--use_sample_delegate=true", "--max_delegated_partitions=2", "--external_delegate_path=" + PluginPath(),
              "--external_delegate_options=min_nodes_per_partition:2"});
    ASSERT_TRUE(p.status.ok()) << p.status.message();
    EXPECT_EQ(p.group.params().GetInt("max_delegated_partitions"), 2);
    auto created = p.group.CreateDelegates(p.table, {});
    ASSERT_TRUE(created.ok()) << created.status().message();
    ASSERT_EQ(created.value().size(), 2u);
    EXPECT_EQ(created.value()[0].provider, "SAMPLE");
    EXPECT_EQ(created.value()[1].provider, "EXTERNAL");
  }
}

// TFLite's --delegate=<name> stands for its provider's flag at --delegate's place; the parsed flags
// keep saying what the command line gave.
TEST(DelegateFlagGroupTest, DelegateByName) {
  Parsed p({"--delegate=SAMPLE", "--external_delegate_path=" + PluginPath()});
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  DelegateRequest request;
  request.by_name = p.delegate;
  auto created = p.group.CreateDelegates(p.table, request);
  ASSERT_TRUE(created.ok()) << created.status().message();
  ASSERT_EQ(created.value().size(), 2u);
  EXPECT_EQ(created.value()[0].provider, "SAMPLE");
  EXPECT_EQ(created.value()[1].provider, "EXTERNAL");
  EXPECT_FALSE(p.group.params().GetBool("use_sample_delegate"));
  request.by_name = "NO_SUCH_DELEGATE";
  created = p.group.CreateDelegates(p.table, request);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), StatusCode::kUsage);
}

TEST(DelegateFlagGroupTest, BadValuesAndOptions) {
  Parsed bad_bool({"--use_sample_delegate=perhaps"});
  EXPECT_EQ(bad_bool.status.code(), StatusCode::kUsage);
  Parsed bad_item({"--external_delegate_path=" + PluginPath(), "--external_delegate_options=a:1;novalue"});
  ASSERT_TRUE(bad_item.status.ok());
  auto created = bad_item.group.CreateDelegates(bad_item.table, {});
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), StatusCode::kUsage);
  EXPECT_NE(created.status().message().find("'novalue'"), std::string::npos) << created.status().message();
  Parsed missing({"--external_delegate_path=/nonexistent/plugin.so"});
  created = missing.group.CreateDelegates(missing.table, {});
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), StatusCode::kInvalidInput);
}

// The isolation flags come with the delegate flags; the FAIL line's names come from the flags before the
// delegates exist, and from the created delegates after.
TEST(DelegateFlagGroupTest, IsolationFlagsAndDelegateNames) {
  Parsed p({"--delegate_isolation=process", "--delegate_timeout_secs=7", "--use_sample_delegate",
            "--external_delegate_path=" + PluginPath()});
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  const std::string usage = p.table.Usage("tool");
  EXPECT_NE(usage.find("Delegate isolation"), std::string::npos) << usage;
  EXPECT_TRUE(p.group.isolation().process());
  EXPECT_EQ(p.group.isolation().delegate_timeout_secs, 7);
  EXPECT_EQ(p.group.RequestedDelegates(p.table), "EXTERNAL (libsample_delegate_plugin.so), SAMPLE");
  auto created = p.group.CreateDelegates(p.table, {});
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(DescribeDelegates(created.value(), p.group.params()), "SAMPLE, EXTERNAL (libsample_delegate_plugin.so)");
  Parsed none({});
  EXPECT_FALSE(none.group.isolation().process());
  EXPECT_EQ(none.group.max_tensor_bytes(), uint64_t{16} << 30);
  Parsed limited({"--max_tensor_memory_mb=3"});
  ASSERT_TRUE(limited.status.ok()) << limited.status.message();
  EXPECT_EQ(limited.group.max_tensor_bytes(), uint64_t{3} << 20);
  EXPECT_EQ(none.group.RequestedDelegates(none.table), "");
}

}  // namespace
}  // namespace touchstone
