#include "tools/common/flags.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace touchstone {
namespace {

// Parses `args`, the command line after the program's name, with `table`; the parser's warnings go to
// `warnings` and whether --help was asked for to `help` (either may be nullptr).
Status ParseArgs(FlagTable* table, std::vector<std::string> args, std::vector<std::string>* warnings = nullptr,
                 bool* help = nullptr) {
  args.insert(args.begin(), "tool");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  bool help_asked = false;
  return table->Parse(static_cast<int>(argv.size()), argv.data(), help != nullptr ? help : &help_asked, warnings);
}

// A table of a few of benchmark_model's flags, one of each type.
struct BenchmarkFlags {
  std::string graph;
  int32_t num_runs = 50;
  int32_t warmup_runs = 1;
  float min_secs = 1.0f;
  bool use_reference_kernels = false;
  FlagTable table;
  BenchmarkFlags() {
    table.AddString("graph", &graph, "");
    table.AddInt("num_runs", &num_runs, "");
    table.AddInt("warmup_runs", &warmup_runs, "");
    table.AddFloat("min_secs", &min_secs, "");
    table.AddBool("use_reference_kernels", &use_reference_kernels, "");
  }
};

TEST(FlagTableTest, ParsesTypesAndBareBooleans) {
  BenchmarkFlags f;
  ASSERT_TRUE(
      ParseArgs(&f.table, {"--graph=m.tflite", "--num_runs=3", "--min_secs=0.25", "--use_reference_kernels"}).ok());
  EXPECT_EQ(f.graph, "m.tflite");
  EXPECT_EQ(f.num_runs, 3);
  EXPECT_FLOAT_EQ(f.min_secs, 0.25f);
  EXPECT_TRUE(f.use_reference_kernels);
}

TEST(FlagTableTest, UnknownFlagAndBadValueAreUsageErrors) {
  int32_t runs = 0;
  FlagTable table;
  table.AddInt("num_runs", &runs, "");
  Status s = ParseArgs(&table, {"--num_rnus=3"});
  EXPECT_EQ(s.code(), StatusCode::kUsage);
  EXPECT_NE(s.message().find("--num_rnus"), std::string::npos);
  EXPECT_EQ(ParseArgs(&table, {"--num_runs=three"}).code(), StatusCode::kUsage);
}

TEST(FlagTableTest, IgnoredFlagsWarn) {
  FlagTable table;
  table.AddIgnored("use_nnapi", "no NNAPI on this platform");
  std::vector<std::string> warnings;
  ASSERT_TRUE(ParseArgs(&table, {"--use_nnapi=true"}, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("use_nnapi"), std::string::npos);
}

TEST(FlagTableTest, PositionsFollowTheCommandLine) {
  bool a = false, b = false;
  std::string c;
  FlagTable table;
  table.AddGroup("Group one");
  table.AddBool("a", &a, "");
  table.AddBool("b", &b, "");
  table.AddString("c", &c, "");
  ASSERT_TRUE(ParseArgs(&table, {"--b", "--c=x", "--a=false", "--b=true"}).ok());
  EXPECT_EQ(table.Position("b"), 4);  // the last occurrence
  EXPECT_EQ(table.Position("c"), 2);
  EXPECT_EQ(table.Position("a"), 3);
  EXPECT_EQ(table.Position("d"), 0);
  const std::string usage = table.Usage("tool");
  EXPECT_NE(usage.find("Group one:\n  --a=false"), std::string::npos) << usage;
  EXPECT_EQ(ParseArgs(&table, {"--=x"}).code(), StatusCode::kUsage);  // a group has no name to match
}

// What TFLite's parser refuses stays refused: no '--name value', no short or single-dash flags, no
// operands, booleans true|false|1|0 only, integers in decimal; a value is taken whole.
TEST(FlagTableTest, KeepsTfliteSyntax) {
  auto parse = [](std::vector<std::string> args, std::string* s, int32_t* n, bool* b) {
    FlagTable table;
    table.AddString("graph", s, "");
    table.AddInt("num_runs", n, "");
    table.AddBool("verbose", b, "");
    return ParseArgs(&table, args);
  };
  std::string s;
  int32_t n = 0;
  bool b = false;
  Status needs = parse({"--graph", "m.tflite"}, &s, &n, &b);
  EXPECT_EQ(needs.code(), StatusCode::kUsage);
  EXPECT_EQ(needs.message(), "--graph needs a value (--graph=...)");
  Status bare = parse({"--verbose", "false"}, &s, &n, &b);
  EXPECT_EQ(bare.message(), "unexpected argument 'false' (flags are written --name=value)");
  EXPECT_EQ(parse({"-num_runs=3"}, &s, &n, &b).code(), StatusCode::kUsage);
  EXPECT_EQ(parse({"-v"}, &s, &n, &b).code(), StatusCode::kUsage);
  EXPECT_EQ(parse({"-"}, &s, &n, &b).code(), StatusCode::kUsage);
  EXPECT_EQ(parse({"--"}, &s, &n, &b).message(), "unknown flag -- (see --help)");
  for (const char* value : {"yes", "on", "", "{}", "TRUE"}) {
    EXPECT_EQ(parse({std::string("--verbose=") + value}, &s, &n, &b).message(),
              std::string("--verbose=") + value + ": expected true or false");
  }
  for (const char* value : {"0x10", "1e3", "3.0", "", "010x"}) {
    EXPECT_EQ(parse({std::string("--num_runs=") + value}, &s, &n, &b).code(), StatusCode::kUsage) << value;
  }
  ASSERT_TRUE(parse({"--num_runs=010"}, &s, &n, &b).ok());
  EXPECT_EQ(n, 10);  // decimal, as strtoll with base 10
  ASSERT_TRUE(parse({"--graph=a=b,c d", "--verbose=1"}, &s, &n, &b).ok());
  EXPECT_EQ(s, "a=b,c d");
  EXPECT_TRUE(b);
  for (const char* value : {"--num_runs=5", "-x", "[a,b]", "{}", ""}) {
    ASSERT_TRUE(parse({std::string("--graph=") + value}, &s, &n, &b).ok()) << value;
    EXPECT_EQ(s, value);
  }
  ASSERT_TRUE(parse({"--num_runs=3", "--num_runs=7", "--verbose", "--verbose=0"}, &s, &n, &b).ok());
  EXPECT_EQ(n, 7);
  EXPECT_FALSE(b);
}

TEST(FlagTableTest, HelpCountsOnlyBeforeTheFirstError) {
  int32_t n = 0;
  FlagTable table;
  table.AddInt("num_runs", &n, "");
  bool help = false;
  EXPECT_EQ(ParseArgs(&table, {"--help", "--num_runs=x"}, nullptr, &help).code(), StatusCode::kUsage);
  EXPECT_TRUE(help);
  EXPECT_EQ(ParseArgs(&table, {"--num_runs=x", "-h"}, nullptr, &help).code(), StatusCode::kUsage);
  EXPECT_FALSE(help);
  EXPECT_EQ(ParseArgs(&table, {"--nope", "--helpfull"}, nullptr, &help).code(), StatusCode::kUsage);
  EXPECT_FALSE(help);
}

TEST(FlagTableTest, RangesAreDeclaredCheckedAndShown) {
  int32_t runs = 50, threads = -1;
  int64_t seed = 1;
  float secs = 150.0f, width = 1.0f;
  FlagTable table;
  table.AddInt("num_runs", &runs, "runs").AtLeast(1);
  table.AddInt("num_threads", &threads, "threads").AtLeast(1).OrExactly(-1);
  table.AddInt64("seed", &seed, "seed").InRange(0, 4294967295.0);
  table.AddFloat("max_secs", &secs, "seconds").GreaterThan(0);
  table.AddFloat("width", &width, "width").GreaterThan(0).AtMost(4);
  auto parse = [&table](const std::string& arg) { return ParseArgs(&table, {arg}); };
  EXPECT_EQ(parse("--num_runs=0").message(), "--num_runs=0: must be at least 1");
  EXPECT_EQ(parse("--num_runs=0").exit_code(), 2);
  EXPECT_TRUE(parse("--num_runs=1").ok());
  EXPECT_EQ(parse("--num_threads=0").message(), "--num_threads=0: must be at least 1 or -1");
  EXPECT_EQ(parse("--num_threads=-2").code(), StatusCode::kUsage);
  EXPECT_TRUE(parse("--num_threads=-1").ok());
  EXPECT_EQ(parse("--seed=4294967296").message(), "--seed=4294967296: must be in [0, 4294967295]");
  EXPECT_EQ(parse("--seed=-1").code(), StatusCode::kUsage);
  EXPECT_TRUE(parse("--seed=4294967295").ok());
  EXPECT_EQ(seed, 4294967295LL);
  EXPECT_EQ(parse("--max_secs=0").message(), "--max_secs=0: must be greater than 0");
  EXPECT_TRUE(parse("--max_secs=0.001").ok());
  EXPECT_EQ(parse("--width=4.5").message(), "--width=4.5: must be in (0, 4]");
  EXPECT_EQ(parse("--width=0").code(), StatusCode::kUsage);
  EXPECT_TRUE(parse("--width=4").ok());
  EXPECT_EQ(runs, 1);  // a refused value leaves the flag as it was
  const std::string usage = table.Usage("tool");
  for (const char* text : {"--num_runs=50", "runs (at least 1)\n", "threads (at least 1 or -1)\n",
                           "seed (in [0, 4294967295])\n", "seconds (greater than 0)\n", "width (in (0, 4])\n"}) {
    EXPECT_NE(usage.find(text), std::string::npos) << text << "\n" << usage;
  }
}

TEST(FlagTableTest, ChoicesAreDeclaredCheckedAndShown) {
  std::string mode = "stdout", backend;
  FlagTable table;
  table.AddString("mode", &mode, "output mode").OneOf({"stdout", "csv", "proto"});
  table.AddString("backend", &backend, "backend").OneOf({"", "vulkan"});
  Status s = ParseArgs(&table, {"--mode=xml"});
  EXPECT_EQ(s.code(), StatusCode::kUsage);
  EXPECT_EQ(s.message(), "--mode=xml: must be one of stdout, csv, proto");
  EXPECT_EQ(mode, "stdout");
  ASSERT_TRUE(ParseArgs(&table, {"--mode=csv", "--backend="}).ok());
  EXPECT_EQ(mode, "csv");
  EXPECT_EQ(ParseArgs(&table, {"--backend=cl"}).message(), "--backend=cl: must be one of \"\", vulkan");
  const std::string usage = table.Usage("tool");
  EXPECT_NE(usage.find("output mode (one of stdout, csv, proto)\n"), std::string::npos) << usage;
  EXPECT_NE(usage.find("backend (one of \"\", vulkan)\n"), std::string::npos) << usage;
}

TEST(FlagTableDeathTest, LimitsOfTheWrongKindAbort) {
  std::string text;
  int32_t number = 0;
  FlagTable table;
  EXPECT_DEATH(table.AddString("s", &text, "").AtLeast(1), "--s cannot take bounds");
  EXPECT_DEATH(table.AddInt("n", &number, "").OneOf({"1"}), "--n cannot take choices");
  EXPECT_DEATH(
      {
        table.AddInt("twice", &number, "");
        table.AddInt("twice", &number, "");
      },
      "--twice is declared twice");
  EXPECT_DEATH(table.AddString(kFlagFileFlag, &text, ""), "--config is declared twice");
}

TEST(FlagTableTest, UnknownFlagSuggestsTheNearestName) {
  BenchmarkFlags f;
  auto error = [&f](const std::string& arg) { return ParseArgs(&f.table, {arg}).message(); };
  EXPECT_EQ(error("--grpah=m.tflite"), "unknown flag --grpah; did you mean --graph? (see --help)");
  EXPECT_EQ(error("--num_rnus=3"), "unknown flag --num_rnus; did you mean --num_runs? (see --help)");
  EXPECT_EQ(error("--use_refrence_kernels"),
            "unknown flag --use_refrence_kernels; did you mean --use_reference_kernels? (see --help)");
  EXPECT_EQ(error("--Graph=x"), "unknown flag --Graph; did you mean --graph? (see --help)");
  EXPECT_EQ(error("--confg=x"), "unknown flag --confg; did you mean --config? (see --help)");
  EXPECT_EQ(error("--threads=2"), "unknown flag --threads (see --help)");  // nothing near
  EXPECT_EQ(error("--g=2"), "unknown flag --g (see --help)");
}

std::string WriteFlagFile(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// A table as a tool has one, parsed from `args`.
struct FileTool {
  std::string graph, shape;
  int32_t num_runs = 50;
  bool use_a = false, use_b = false;
  FlagTable table;
  bool help = false;
  std::vector<std::string> warnings;
  FileTool() {
    table.AddString("graph", &graph, "");
    table.AddString("input_layer_shape", &shape, "");
    table.AddInt("num_runs", &num_runs, "").AtLeast(1);
    table.AddBool("use_a", &use_a, "");
    table.AddBool("use_b", &use_b, "");
    table.AddIgnored("use_nnapi", "no NNAPI here");
  }
  Status Parse(std::vector<std::string> args) { return ParseArgs(&table, std::move(args), &warnings, &help); }
};

TEST(FlagFileTest, ReadsNameValueLines) {
  const std::string path =
      WriteFlagFile("lines.ini",
                    "# a comment\n; another\n\ngraph = m.tflite\nnum_runs=7\r\n  use_a = true  \nuse_nnapi = 1\n"
                    "input_layer_shape = 1,224,224,3:1,10\n");
  FileTool t;
  ASSERT_TRUE(t.Parse({"--config=" + path}).ok());
  EXPECT_EQ(t.graph, "m.tflite");
  EXPECT_EQ(t.num_runs, 7);
  EXPECT_TRUE(t.use_a);
  EXPECT_EQ(t.shape, "1,224,224,3:1,10");  // whole: no splitting at commas
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_EQ(t.warnings[0], "--use_nnapi is not applicable here and was ignored (no NNAPI here)");
  EXPECT_EQ(t.table.given(),
            (std::vector<std::string>{"graph", "num_runs", "use_a", "use_nnapi", "input_layer_shape"}));
  const auto values = t.table.GivenValues();
  ASSERT_EQ(values.size(), 5u);
  EXPECT_EQ(values[1], std::make_pair(std::string("num_runs"), std::string("7")));
}

TEST(FlagFileTest, QuotesKeepSpacesAndEmptyValues) {
  const std::string path = WriteFlagFile("quotes.ini", "graph = \" a b \"\ninput_layer_shape = ''\n");
  FileTool t;
  t.shape = "x";
  ASSERT_TRUE(t.Parse({"--config=" + path}).ok());
  EXPECT_EQ(t.graph, " a b ");
  EXPECT_EQ(t.shape, "");
}

TEST(FlagFileTest, TheCommandLineOverridesTheFile) {
  const std::string path = WriteFlagFile("override.ini", "num_runs = 7\ngraph = file.tflite\n");
  for (const auto& args : {std::vector<std::string>{"--num_runs=3", "--config=" + path},
                           std::vector<std::string>{"--config=" + path, "--num_runs=3"}}) {
    FileTool t;
    ASSERT_TRUE(t.Parse(args).ok());
    EXPECT_EQ(t.num_runs, 3);
    EXPECT_EQ(t.graph, "file.tflite");
  }
}

TEST(FlagFileTest, TheFilesFlagsStandWhereConfigStands) {
  const std::string path = WriteFlagFile("order.ini", "use_b = true\nuse_a = true\n");
  FileTool t;
  ASSERT_TRUE(t.Parse({"--graph=m.tflite", "--config=" + path, "--num_runs=2"}).ok());
  EXPECT_EQ(t.table.given(), (std::vector<std::string>{"graph", "use_b", "use_a", "num_runs"}));
  EXPECT_EQ(t.table.Position("use_b"), 2);
  EXPECT_EQ(t.table.Position("use_a"), 3);
  EXPECT_EQ(t.table.Position("num_runs"), 4);
  EXPECT_EQ(t.table.Position(kFlagFileFlag), 0);
  // A flag the command line gives is the command line's, at its place there.
  FileTool both;
  ASSERT_TRUE(both.Parse({"--config=" + path, "--use_a=false"}).ok());
  EXPECT_FALSE(both.use_a);
  EXPECT_EQ(both.table.given(), (std::vector<std::string>{"use_b", "use_a"}));
  EXPECT_EQ(both.table.Position("use_a"), 2);
}

TEST(FlagFileTest, AnEmptyNameReadsNoFile) {
  FileTool t;
  ASSERT_TRUE(t.Parse({"--config="}).ok());
  EXPECT_TRUE(t.table.given().empty());
}

TEST(FlagFileTest, BadFilesAreUsageErrorsNamingTheFileAndLine) {
  auto error = [](const std::vector<std::string>& args) {
    FileTool t;
    Status s = t.Parse(args);
    EXPECT_EQ(s.exit_code(), 2) << s.message();
    return s.message();
  };
  const std::string missing = testing::TempDir() + "/missing.ini";
  EXPECT_EQ(error({"--config=" + missing}),
            "--config=" + missing + ": cannot read the flag file (No such file or directory)");
  EXPECT_EQ(error({"--config=" + testing::TempDir()}), "--config=" + testing::TempDir() + ": not a file");
  EXPECT_EQ(error({"--config=/dev/zero"}), "--config=/dev/zero: not a file");
  EXPECT_EQ(error({"--config"}), "--config needs a value (--config=FILE)");
  const std::string ok = WriteFlagFile("ok.ini", "num_runs = 2\n");
  EXPECT_EQ(error({"--config=" + ok, "--config=" + ok}), "--config is given twice: one flag file per run");
  struct Case {
    const char* text;
    const char* error;
  };
  for (const Case& c : std::vector<Case>{
           {"graph = m\nuse_a\n", ":2: expected name = value, got 'use_a'"},
           {"grpah = m\n", ":1: unknown flag --grpah; did you mean --graph?"},
           {"num_runs = 0\n", ":1: --num_runs=0: must be at least 1"},
           {"\nuse_a = yes\n", ":2: --use_a=yes: expected true or false"},
           {"graph = a\ngraph = b\n", ":2: --graph is set twice (also on line 1)"},
           {"[tool]\ngraph = a\n", ":1: sections are not supported; write name = value lines"},
           {"config = other.ini\n", ":1: a flag file cannot name another (config)"},
           {"--graph = a\n", ":1: write the name without '--' (graph = ...)"},
       }) {
    const std::string path = WriteFlagFile("bad.ini", c.text);
    EXPECT_EQ(error({"--config=" + path}), path + c.error) << c.text;
  }
  // A bad line is refused even where the command line overrides it.
  const std::string bad = WriteFlagFile("overridden.ini", "num_runs = many\n");
  EXPECT_EQ(error({"--config=" + bad, "--num_runs=3"}), bad + ":1: --num_runs=many: expected an integer");
}

TEST(FlagFileTest, HelpBeforeABadFileStillWins) {
  FileTool t;
  EXPECT_EQ(t.Parse({"--help", "--config=" + testing::TempDir() + "/missing.ini"}).code(), StatusCode::kUsage);
  EXPECT_TRUE(t.help);
}

TEST(FlagFileTest, UsageListsTheFlagFile) {
  FileTool t;
  const std::string usage = t.table.Usage("tool");
  EXPECT_NE(usage.find("Flag file (docs/tools.md):\n  --config=\"\"  "), std::string::npos) << usage;
}

}  // namespace
}  // namespace touchstone
