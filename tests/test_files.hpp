// Files for tests: a private temporary folder (removed with its contents), a whole file as a string.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace umtest {

inline bool has(const std::string &s, const std::string &what) { return s.find(what) != std::string::npos; }

inline std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// <tmp>/um_test_<tag>_<pid>, empty at the start, removed at the end
struct TempDir {
  std::filesystem::path dir;
  explicit TempDir(const std::string &tag) {
    dir = std::filesystem::temp_directory_path() / ("um_test_" + tag + "_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~TempDir() { std::filesystem::remove_all(dir); }
  std::string operator/(const std::string &f) const { return (dir / f).string(); }
  int count_tmp() const {  // files whose name holds ".tmp" (a safe write's temporary)
    int n = 0;
    for (auto &e : std::filesystem::directory_iterator(dir)) n += has(e.path().filename().string(), ".tmp");
    return n;
  }
};

}  // namespace umtest
