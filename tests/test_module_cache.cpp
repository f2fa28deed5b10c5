// The CUDA backend's disk cache of compiled modules: the entry reader and writer (engine/src/backends/cuda/
// module_cache.c, built in every build). An entry is a hit only when it is a regular file of this user's whose
// header, key, image and checksum agree with each other and with the file's size; anything else (a FIFO, a link
// to /dev/zero, a file cut short, one larger than its bound, another user's) is a miss the caller rebuilds: never
// a hang, a crash or an allocation of what a header merely claims. The writer never writes through a planted link.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "backends/cuda/module_cache.h"

namespace {

// A reader that hangs is killed (SIGALRM), never waited for.
struct HangGuard {
  HangGuard() { alarm(120); }
  ~HangGuard() { alarm(0); }
};

struct Folder {
  std::string dir;
  Folder() {
    char d[] = "/tmp/um-modcache-XXXXXX";
    dir = mkdtemp(d) ? d : "";
  }
  ~Folder() {
    for (const char *f : {"/e.cubin", "/target", "/e.cubin.big"}) unlink((dir + f).c_str());
    rmdir(dir.c_str());
  }
  std::string entry() const { return dir + "/e.cubin"; }
};

const std::string kKey = std::string("um-cuda-jit 1; nvrtc 13.0\0--gpu-architecture=sm_90\0", 50);
const std::string kImage = "\x7f" "ELF a module image, here only bytes";

std::string read_text(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream t;
  t << f.rdbuf();
  return t.str();
}
void write_text(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

// 1, 0 or -1 as umj_cache_read says; a hit's image into *img.
int read_entry(const std::string &path, const std::string &key = kKey, std::string *img = nullptr) {
  void *image = nullptr;
  size_t bytes = 0;
  HangGuard g;
  const int rc = umj_cache_read(path.c_str(), key.data(), key.size(), &image, &bytes);
  if (rc == 1 && img) img->assign(static_cast<const char *>(image), bytes);
  if (rc == 1) EXPECT_EQ(static_cast<const char *>(image)[bytes], '\0') << "a PTX image is a C string";
  if (rc != 1) EXPECT_EQ(image, nullptr);
  free(image);
  return rc;
}

std::string good_entry(const Folder &f) {
  EXPECT_EQ(umj_cache_write(f.entry().c_str(), kKey.data(), kKey.size(), kImage.data(), kImage.size()), 0);
  return read_text(f.entry());
}

TEST(ModuleCache, AnEntryReadsBackAndAnotherKeyMisses) {
  Folder f;
  ASSERT_FALSE(f.dir.empty());
  EXPECT_EQ(read_entry(f.entry()), 0) << "no file: a plain miss";
  good_entry(f);
  std::string img;
  EXPECT_EQ(read_entry(f.entry(), kKey, &img), 1);
  EXPECT_EQ(img, kImage);
  std::string other = kKey;
  other[3] = 'X';
  EXPECT_EQ(read_entry(f.entry(), other), -1) << "another key of the same length: stale";
  EXPECT_EQ(read_entry(f.entry(), kKey + "x"), -1) << "another key length: stale";
  struct stat st;
  ASSERT_EQ(stat(f.entry().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 022, 0u) << "an entry is writable by nobody but its owner";
}

TEST(ModuleCache, AFifoIsAMissNotAHang) {
  Folder f;
  ASSERT_EQ(mkfifo(f.entry().c_str(), 0600), 0);
  EXPECT_EQ(read_entry(f.entry()), -1);
}

TEST(ModuleCache, ALinkToDevZeroIsAMissNotAHang) {
  Folder f;
  ASSERT_EQ(symlink("/dev/zero", f.entry().c_str()), 0);
  EXPECT_EQ(read_entry(f.entry()), -1);
}

TEST(ModuleCache, ALinkToAGoodEntryIsNotFollowed) {
  Folder f;
  const std::string good = good_entry(f);
  ASSERT_EQ(rename(f.entry().c_str(), (f.dir + "/target").c_str()), 0);
  ASSERT_EQ(symlink((f.dir + "/target").c_str(), f.entry().c_str()), 0);
  EXPECT_EQ(read_entry(f.entry()), -1) << "a cache file is never read through a link";
}

TEST(ModuleCache, TruncatedOrPaddedEntriesAreMisses) {
  Folder f;
  const std::string good = good_entry(f);
  for (size_t cut : {size_t(0), size_t(7), size_t(31), size_t(32), size_t(40), good.size() - 1}) {
    write_text(f.entry(), good.substr(0, cut));
    EXPECT_EQ(read_entry(f.entry()), -1) << "cut to " << cut << " bytes";
  }
  write_text(f.entry(), good + "x");
  EXPECT_EQ(read_entry(f.entry()), -1) << "a byte past what the header claims";
  std::string flipped = good;
  flipped.back() ^= 1;
  write_text(f.entry(), flipped);
  EXPECT_EQ(read_entry(f.entry()), -1) << "the checksum does not match";
}

// A header that claims a huge image is refused before anything is allocated; a file over the bound is never read.
TEST(ModuleCache, OversizedEntriesAreMisses) {
  Folder f;
  std::string claim = good_entry(f);
  for (int i = 0; i < 8; i++) claim[16 + i] = '\xff';  // image bytes: 2^64 - 1
  write_text(f.entry(), claim);
  EXPECT_EQ(read_entry(f.entry()), -1);
  for (int i = 0; i < 8; i++) claim[16 + i] = i == 3 ? '\x40' : '\0';  // 1 GiB: over the bound
  write_text(f.entry(), claim);
  EXPECT_EQ(read_entry(f.entry()), -1);
  // a sparse file larger than any entry may be (nothing is read or allocated)
  const int fd = open(f.entry().c_str(), O_WRONLY | O_TRUNC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(UMJ_CACHE_IMAGE_MAX + 4096)), 0);
  close(fd);
  EXPECT_EQ(read_entry(f.entry()), -1);
}

TEST(ModuleCache, AnotherUsersOrAGroupWritableEntryIsAMiss) {
  Folder f;
  good_entry(f);
  ASSERT_EQ(chmod(f.entry().c_str(), 0664), 0);
  EXPECT_EQ(read_entry(f.entry()), -1) << "writable by the group";
  ASSERT_EQ(chmod(f.entry().c_str(), 0644), 0);
  EXPECT_EQ(read_entry(f.entry()), 1);
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user";
  ASSERT_EQ(chown(f.entry().c_str(), 65534, 65534), 0);
  EXPECT_EQ(read_entry(f.entry()), -1) << "another user's";
}

// A link planted at the entry's path is replaced by the entry; its target keeps its bytes.
TEST(ModuleCache, TheWriterNeverWritesThroughALink) {
  Folder f;
  write_text(f.dir + "/target", "precious\n");
  ASSERT_EQ(symlink((f.dir + "/target").c_str(), f.entry().c_str()), 0);
  EXPECT_EQ(umj_cache_write(f.entry().c_str(), kKey.data(), kKey.size(), kImage.data(), kImage.size()), 0);
  EXPECT_EQ(read_text(f.dir + "/target"), "precious\n");
  struct stat st;
  ASSERT_EQ(lstat(f.entry().c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode)) << "the link itself was replaced";
  EXPECT_EQ(read_entry(f.entry()), 1);
}

}  // namespace
