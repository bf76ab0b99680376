// The provider registry: what is registered, flag names and defaults, and the order delegates are
// created in (the command-line order of their enabling flags).
#include "delegates/providers/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "delegates/providers/delegate_provider.h"

namespace touchstone {
namespace {

TEST(RegistryTest, ProvidersAndFlags) {
  const std::vector<DelegateProvider>& providers = RegisteredDelegateProviders();
  std::set<std::string> names, flags;
  for (const DelegateProvider& p : providers) {
    EXPECT_TRUE(names.insert(p.name).second) << p.name;
    EXPECT_FALSE(p.description.empty()) << p.name;
    for (const ProviderFlag& f : p.flags) {
      EXPECT_TRUE(flags.insert(f.name).second) << "flag declared twice: " << f.name;
      EXPECT_FALSE(f.help.empty()) << f.name;
    }
    if (!p.enabling_flag.empty()) {
      bool found = false;
      for (const ProviderFlag& f : p.flags) found = found || f.name == p.enabling_flag;
      EXPECT_TRUE(found) << p.name << ": enabling flag not among its flags";
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"COMMON", "EXTERNAL", "STABLE_DELEGATE", "SAMPLE", "GPU", "XNNPACK"}));
  for (const char* f :
       {"max_delegated_partitions", "min_nodes_per_partition", "external_delegate_path", "external_delegate_options",
        "stable_delegate_settings_file", "use_sample_delegate", "use_xnnpack", "xnnpack_force_fp16",
        "xnnpack_weight_cache_file_path", "use_gpu", "gpu_precision_loss_allowed", "gpu_experimental_enable_quant",
        "gpu_inference_for_sustained_speed", "gpu_backend", "gpu_device_index"}) {
    EXPECT_EQ(flags.count(f), 1u) << f;
  }
  // The tools' own flags are not redeclared by providers.
  for (const char* f : {"num_threads", "use_reference_kernels", "graph", "require_full_delegation"}) {
    EXPECT_EQ(flags.count(f), 0u) << f;
  }
}

TEST(RegistryTest, DefaultsCreateNoDelegate) {
  const ProviderParams params = DefaultParams(RegisteredDelegateProviders());
  EXPECT_EQ(params.GetInt("max_delegated_partitions"), 0);
  EXPECT_FALSE(params.GetBool("use_sample_delegate"));
  EXPECT_EQ(params.GetString("external_delegate_path"), "");
  StatusOr<std::vector<ProvidedDelegate>> created = CreateDelegates(RegisteredDelegateProviders(), params);
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_TRUE(created.value().empty());
}

// A provider that makes a bare delegate when its flag is set.
DelegateProvider Fake(const std::string& name, const std::string& flag) {
  DelegateProvider p;
  p.name = name;
  p.description = "fake";
  p.flags = {ProviderFlag::Bool(flag, false, "enable")};
  p.enabling_flag = flag;
  p.create = [flag](const ProviderParams& params) -> StatusOr<TfLiteDelegatePtr> {
    if (!params.GetBool(flag)) return TfLiteDelegatePtr(nullptr, [](TfLiteDelegate*) {});
    if (params.GetBool("fail")) return ExecutionError(flag + " cannot start");
    return TfLiteDelegatePtr(new TfLiteDelegate(TfLiteDelegateCreate()), [](TfLiteDelegate* d) { delete d; });
  };
  return p;
}

std::vector<std::string> Order(const std::vector<DelegateProvider>& providers, const ProviderParams& params) {
  StatusOr<std::vector<ProvidedDelegate>> created = CreateDelegates(providers, params);
  EXPECT_TRUE(created.ok());
  std::vector<std::string> names;
  if (created.ok()) {
    for (const ProvidedDelegate& d : created.value()) {
      EXPECT_NE(d.delegate, nullptr);
      names.push_back(d.provider);
    }
  }
  return names;
}

TEST(RegistryTest, DelegatesFollowTheCommandLineOrder) {
  const std::vector<DelegateProvider> providers = {Fake("A", "use_a"), Fake("B", "use_b"), Fake("C", "use_c")};
  ProviderParams params = DefaultParams(providers);
  params.SetBool("use_c", true, 1);
  params.SetBool("use_a", true, 3);
  EXPECT_EQ(Order(providers, params), (std::vector<std::string>{"C", "A"}));
  params.SetBool("use_b", true, 2);
  EXPECT_EQ(Order(providers, params), (std::vector<std::string>{"C", "B", "A"}));
  params.SetBool("use_c", false, 4);  // given, but off
  EXPECT_EQ(Order(providers, params), (std::vector<std::string>{"B", "A"}));
}

TEST(RegistryTest, AFailingProviderStopsCreation) {
  std::vector<DelegateProvider> providers = {Fake("A", "use_a")};
  providers[0].flags.push_back(ProviderFlag::Bool("fail", false, "fail"));
  ProviderParams params = DefaultParams(providers);
  params.SetBool("use_a", true, 1);
  params.SetBool("fail", true, 2);
  StatusOr<std::vector<ProvidedDelegate>> created = CreateDelegates(providers, params);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), StatusCode::kExecution);
  EXPECT_EQ(created.status().message(), "use_a cannot start");
}

TEST(RegistryTest, DelegateNamesAsTFLitesDelegateFlag) {
  // --delegate=<name>: providers enabled by a bool flag, matched case-insensitively.
  const std::vector<std::string> names = DelegateNames(RegisteredDelegateProviders());
  EXPECT_NE(std::find(names.begin(), names.end(), "sample"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "external"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "common"), names.end());
  const DelegateProvider* sample = FindProviderByDelegateName(RegisteredDelegateProviders(), "Sample");
  ASSERT_NE(sample, nullptr);
  EXPECT_EQ(sample->name, "SAMPLE");
  EXPECT_EQ(FindProviderByDelegateName(RegisteredDelegateProviders(), "external"), nullptr);  // path-enabled
  EXPECT_EQ(FindProviderByDelegateName(RegisteredDelegateProviders(), "no_such_delegate"), nullptr);

  const std::vector<DelegateProvider> providers = {Fake("A", "use_a"), Fake("B", "use_b")};
  ProviderParams params = DefaultParams(providers);
  params.SetBool("use_a", true, 1);
  ASSERT_TRUE(EnableDelegateByName(providers, "b", 2, &params).ok());
  EXPECT_TRUE(params.GetBool("use_b"));
  EXPECT_EQ(params.Position("use_b"), 2);
  EXPECT_EQ(Order(providers, params), (std::vector<std::string>{"A", "B"}));
  // Given both ways: the earlier position orders it.
  params.SetBool("use_a", true, 5);
  ASSERT_TRUE(EnableDelegateByName(providers, "A", 3, &params).ok());
  EXPECT_EQ(params.Position("use_a"), 3);
  Status unknown = EnableDelegateByName(providers, "xnnpack", 1, &params);
  EXPECT_EQ(unknown.code(), StatusCode::kUsage);
  EXPECT_NE(unknown.message().find("--delegate=xnnpack: no such delegate in this build (available: a, b"),
            std::string::npos)
      << unknown.message();
}

TEST(RegistryTest, XnnpackIsAppliedByDefaultOverTheOptimizedKernelsOnly) {
  ProviderParams params = DefaultParams(RegisteredDelegateProviders());
  params.SetBool("use_sample_delegate", true, 1);
  // Not said which kernels the tool runs: only what the command line names.
  StatusOr<std::vector<ProvidedDelegate>> created = CreateDelegates(RegisteredDelegateProviders(), params);
  ASSERT_TRUE(created.ok()) << created.status().message();
  ASSERT_EQ(created.value().size(), 1u);
  // The optimized kernels: XNNPACK too, after the delegates named (TFLite applies its default last).
  DeclareCpuKernels(false, &params);
  created = CreateDelegates(RegisteredDelegateProviders(), params);
  ASSERT_TRUE(created.ok()) << created.status().message();
  ASSERT_EQ(created.value().size(), 2u);
  EXPECT_EQ(created.value()[0].provider, "SAMPLE");
  EXPECT_EQ(created.value()[1].provider, "XNNPACK");
  EXPECT_EQ(created.value()[1].position, 0);
  // The reference kernels: not by default.
  DeclareCpuKernels(true, &params);
  created = CreateDelegates(RegisteredDelegateProviders(), params);
  ASSERT_TRUE(created.ok()) << created.status().message();
  ASSERT_EQ(created.value().size(), 1u);
  // Named on the command line, it takes its place there whatever the kernels.
  params.SetBool("use_xnnpack", true, 1);
  params.SetBool("use_sample_delegate", true, 2);
  created = CreateDelegates(RegisteredDelegateProviders(), params);
  ASSERT_TRUE(created.ok()) << created.status().message();
  ASSERT_EQ(created.value().size(), 2u);
  EXPECT_EQ(created.value()[0].provider, "XNNPACK");
  EXPECT_EQ(created.value()[1].provider, "SAMPLE");
}

TEST(RegistryTest, SampleProviderPassesTheCommonLimits) {
  ProviderParams params = DefaultParams(RegisteredDelegateProviders());
  params.SetBool("use_sample_delegate", true, 1);
  StatusOr<std::vector<ProvidedDelegate>> created = CreateDelegates(RegisteredDelegateProviders(), params);
  ASSERT_TRUE(created.ok()) << created.status().message();
  ASSERT_EQ(created.value().size(), 1u);
  EXPECT_EQ(created.value()[0].provider, "SAMPLE");
  EXPECT_NE(created.value()[0].delegate->Prepare, nullptr);
}

}  // namespace
}  // namespace touchstone
