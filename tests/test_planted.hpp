// The host module cache's tests (test_hostc.cpp, test_hostc_trust.cpp): the modules in a cache folder, and a shared
// object a hostile user would plant there. UM_TEST_CC: the C compiler that builds it.
#ifndef UM_TEST_PLANTED_HPP
#define UM_TEST_PLANTED_HPP

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

// The modules (host-*.so) in dir.
inline std::vector<std::filesystem::path> modules_in(const std::filesystem::path &dir) {
  std::vector<std::filesystem::path> v;
  for (auto &e : std::filesystem::directory_iterator(dir)) {
    const std::string f = e.path().filename().string();
    if (f.rfind("host-", 0) == 0 && f.size() > 3 && f.compare(f.size() - 3, 3, ".so") == 0) v.push_back(e.path());
  }
  return v;
}

// A shared object whose constructor writes `marker`: what a hostile user would plant.
inline void build_planted(const std::filesystem::path &so, const std::filesystem::path &marker) {
  const std::filesystem::path src = so.string() + ".c";
  std::ofstream(src) << "#include <stdio.h>\n__attribute__((constructor)) static void planted(void) {\n"
                        "  FILE *f = fopen(\"" << marker.string() << "\", \"w\"); if (f) { fputs(\"ran\", f); fclose(f); }\n}\n"
                        "void um__compiled_range(void) {}\n";
  const std::string cmd = std::string(UM_TEST_CC) + " -shared -fPIC -o '" + so.string() + "' '" + src.string() + "'";
  ASSERT_EQ(system(cmd.c_str()), 0) << cmd;
  std::filesystem::remove(src);
}

#endif
