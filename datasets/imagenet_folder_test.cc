#include "datasets/imagenet_folder.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

namespace touchstone {
namespace {

std::string MakeSet(const std::vector<std::string>& files, const std::string& labels) {
  char pattern[] = "/tmp/imagenet_folder_testXXXXXX";
  std::string root = mkdtemp(pattern);
  mkdir((root + "/images").c_str(), 0755);
  mkdir((root + "/images/subdir").c_str(), 0755);  // directories are not images
  for (const std::string& f : files) std::ofstream(root + "/images/" + f) << "x";
  std::ofstream(root + "/labels.txt") << labels;
  return root;
}

TEST(ImageNetFolderTest, SortedPairedDenylistedAndLimited) {
  const std::string root = MakeSet({"b.jpg", "a.jpg", ".hidden.jpg", "c.JPG"}, "l0\r\nl1\nl2\nl3\n");
  std::ofstream(root + "/deny.txt") << "3\n1\n";
  auto set = LoadImageNetSet(root + "/images", root + "/labels.txt", root + "/deny.txt", 0);
  ASSERT_TRUE(set.ok()) << set.status().message();
  // Sorted: .hidden.jpg, a.jpg, b.jpg, c.JPG; denylist removes numbers 1 and 3.
  ASSERT_EQ(set.value().size(), 2u);
  EXPECT_EQ(set.value()[0].path, root + "/images/a.jpg");
  EXPECT_EQ(set.value()[0].label, "l1");
  EXPECT_EQ(set.value()[1].path, root + "/images/c.JPG");
  EXPECT_EQ(set.value()[1].label, "l3");
  auto limited = LoadImageNetSet(root + "/images", root + "/labels.txt", "", 1);
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited.value().size(), 1u);
}

TEST(ImageNetFolderTest, RefusesMismatchesAndBadDenylists) {
  const std::string root = MakeSet({"a.jpg", "b.jpg"}, "only one\n");
  auto mismatch = LoadImageNetSet(root + "/images", root + "/labels.txt", "", 0);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.status().message().find("1 labels for 2 images"), std::string::npos);
  std::ofstream(root + "/labels.txt") << "x\ny\n";
  std::ofstream(root + "/deny.txt") << "7\n";
  EXPECT_FALSE(LoadImageNetSet(root + "/images", root + "/labels.txt", root + "/deny.txt", 0).ok());
  EXPECT_FALSE(LoadImageNetSet(root + "/missing", root + "/labels.txt", "", 0).ok());
}

TEST(ImageNetFolderTest, ClassFolders) {
  char pattern[] = "/tmp/class_folders_testXXXXXX";
  const std::string root = mkdtemp(pattern);
  for (const std::string c : {"zebra", "ant"}) {
    mkdir((root + "/" + c).c_str(), 0755);
    for (const std::string f : {"2.jpg", "1.jpg", "3.jpg"}) std::ofstream(root + "/" + c + "/" + f) << "x";
  }
  auto set = LoadClassFolders(root, 2);
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set.value().size(), 4u);
  EXPECT_EQ(set.value()[0].label, "ant");
  EXPECT_EQ(set.value()[0].path, root + "/ant/1.jpg");
  EXPECT_EQ(set.value()[3].label, "zebra");
  EXPECT_EQ(set.value()[3].path, root + "/zebra/2.jpg");
  EXPECT_FALSE(LoadClassFolders(root + "/none", 0).ok());
}

}  // namespace
}  // namespace touchstone
