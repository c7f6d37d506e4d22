#include <gtest/gtest.h>

#include <string>

#include "temp_dir.hpp"
#include "util/sha256.hpp"

namespace kvscope {
namespace {

// FIPS 180-4 examples, and lengths around the 55/56/64-byte padding edges.
TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(sha256_hex(std::string(55, 'x')).size(), 64u);
  EXPECT_NE(sha256_hex(std::string(56, 'x')), sha256_hex(std::string(57, 'x')));
}

TEST(Sha256, FileDigestIsTheBytesDigest) {
  test::temp_dir dir;
  const std::string content(70000, 'q');
  test::write_text(dir.file("f"), content);
  const auto d = sha256_file(dir.file("f"));
  ASSERT_TRUE(d) << d.error();
  EXPECT_EQ(*d, sha256_hex(content));
  EXPECT_FALSE(sha256_file(dir.file("missing")));
}

}  // namespace
}  // namespace kvscope
