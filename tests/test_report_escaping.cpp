// umrun --report renders every string of a results file as text: no element, attribute or event handler
// from the input reaches the HTML page or the markdown beside it.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "json.h"
#include "um/report.h"
#include "tools.h"
}

#include "test_files.hpp"

using umtest::has;
using umtest::slurp;
using umtest::TempDir;

namespace {
// every string field of a results file holds this: an element, an event handler
// and quotes that would close an attribute
const std::string kMarkup = R"(<script>alert(1)</script><img src=x onerror=alert(2)>\"' onmouseover=alert(3) x=\"&amp;)";

std::string results_with_markup() {
  const std::string P = "\"" + kMarkup + "\"";
  std::string loop = R"({"name": )" + P + R"(, "iteration_set": )" + P +
                     R"(, "args": [{"pattern": )" + P + R"(, "map": )" + P +
                     R"(}], "set_size": 100, "bytes_per_call": 8000, "calls": 10, "seconds": 0.001, "ops_estimate": 20,
       "plan": {"block_size": 256, "blocks": 1, "block_colours": 1, "thread_colours_mean": 1, "thread_colours_max": 1,
                "reuse_factor": 1, "shared_bytes_mean": 0}})";
  std::string run = R"({"app": )" + P + R"(, "backend": )" + P + R"(, "strategy": )" + P + R"(, "layout": )" + P +
                    R"(, "reorder": )" + P + R"(, "status": "ok", "loops": [)" + loop + R"(],
       "mesh": {"sets": [{"name": )" + P + R"(, "size": 100}], "maps": [{"name": )" + P + R"(, "from": )" + P +
                    R"(, "to": )" + P + R"(, "arity": 2}]},
       "device": {"name": )" + P + R"(, "copy_gb_per_s": 100}})";
  std::string c = R"({"id": )" + P + R"(, "case": )" + P + R"(, "app": )" + P + R"(, "config": )" + P +
                  R"(, "backend": )" + P + R"(, "strategy": )" + P + R"(, "layout": )" + P + R"(, "reorder": )" + P +
                  R"(, "block_size_axis": 64, "status": "pass", "message": )" + P + R"(, "run": )" + run + "}";
  return R"({"format": "um-suite-results-1", "suite": )" + P + R"(, "started": )" + P +
         R"(, "um": {"commit": )" + P + R"(, "version": )" + P + R"(},
     "machine": {"host": )" + P + R"(, "cpu": )" + P + R"(, "host_copy_gb_per_s": 50,
                 "gpu": {"name": )" + P + R"(, "compute_capability": )" + P + R"(, "driver": )" + P +
         R"(, "cuda_runtime": )" + P + R"(, "copy_gb_per_s": 100}},
     "summary": {"runs": 2, "pass": 2}, "cases": [)" + c + ", " + c + "]}";
}

// The tags of a page, and the attributes each carries: a minimal HTML tokenizer
// (comments and the style element's text skipped), enough to see every element
// and attribute the page creates.
struct Tag {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attrs;
};
std::vector<Tag> parse_tags(const std::string &h) {
  std::vector<Tag> tags;
  size_t i = 0;
  while ((i = h.find('<', i)) != std::string::npos) {
    if (!h.compare(i, 4, "<!--")) {
      i = h.find("-->", i);
      continue;
    }
    size_t j = i + 1;
    const bool closing = j < h.size() && h[j] == '/';
    if (closing) j++;
    size_t k = j;
    while (k < h.size() && (isalnum((unsigned char)h[k]) || h[k] == '!')) k++;
    Tag t;
    t.name = h.substr(j, k - j);
    for (auto &ch : t.name) ch = (char)tolower((unsigned char)ch);
    // attributes: name[=value] with quoted or bare values, up to '>'
    while (k < h.size() && h[k] != '>') {
      while (k < h.size() && (isspace((unsigned char)h[k]) || h[k] == '/')) k++;
      size_t a = k;
      while (k < h.size() && !isspace((unsigned char)h[k]) && h[k] != '=' && h[k] != '>') k++;
      std::string an = h.substr(a, k - a), av;
      if (k < h.size() && h[k] == '=') {
        k++;
        if (h[k] == '"' || h[k] == '\'') {
          char q = h[k++];
          size_t e = h.find(q, k);
          av = h.substr(k, e - k);
          k = e + 1;
        } else {
          size_t e = k;
          while (e < h.size() && !isspace((unsigned char)h[e]) && h[e] != '>') e++;
          av = h.substr(k, e - k);
          k = e;
        }
      }
      if (!an.empty()) t.attrs.push_back({an, av});
    }
    tags.push_back(t);
    if (t.name == "style" && !closing) k = h.find("</style>", k);
    i = k;
  }
  return tags;
}
}  // namespace

// Before: the app name went raw into text and into id/href attributes, so a
// results file received from another machine put a <script> element in the page.
TEST(ReportEscaping, AReportOfAResultsFileFullOfMarkupRendersItAsText) {
  TempDir t("report");
  const std::string res = t / "results.json", page = t / "report.html";
  { std::ofstream(res) << results_with_markup(); }
  std::vector<std::string> args = {"--report", page, res};
  std::vector<char *> argv;
  for (auto &a : args) argv.push_back(a.data());
  ASSERT_EQ(umrun_report_main(nullptr, (int)argv.size(), argv.data()), 0);
  const std::string h = slurp(page), md = slurp(t / "report.md");
  ASSERT_TRUE(has(h, "</html>"));
  const std::set<std::string> allowed = {"!doctype", "html", "head", "meta", "title", "style", "body", "h1", "h2",
                                         "h3",       "p",    "code", "em",   "table", "tr",    "th",   "td", "a",
                                         "svg",      "text", "line", "rect", "circle",
                                         // the page's own: scrolling boxes, <details> rows, the glossary
                                         "div", "details", "summary", "dl", "dt", "dd"};
  int nanchors = 0;
  for (const Tag &tag : parse_tags(h)) {
    EXPECT_TRUE(allowed.count(tag.name)) << "an element from the input: <" << tag.name << ">";
    for (auto &[an, av] : tag.attrs) {
      std::string low = an;
      for (auto &ch : low) ch = (char)tolower((unsigned char)ch);
      EXPECT_FALSE(low.rfind("on", 0) == 0) << "an event handler attribute: " << an << "=" << av;
      EXPECT_FALSE(has(low, "src")) << an;
      if (low == "href") {
        nanchors++;
        EXPECT_TRUE(av.size() > 1 && av[0] == '#' && av.find_first_not_of(
            "#abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == std::string::npos)
            << "href=" << av;
      }
      if (low == "id") EXPECT_EQ(av.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"),
                                 std::string::npos) << "id=" << av;
    }
  }
  EXPECT_GT(nanchors, 0);
  EXPECT_TRUE(has(h, "&lt;script&gt;alert(1)&lt;/script&gt;")) << "the markup is shown as text";
  // the markdown beside it: markdown passes HTML through, so no tag survives there either
  ASSERT_FALSE(md.empty());
  for (size_t i = md.find('<'); i != std::string::npos; i = md.find('<', i + 1))
    ADD_FAILURE() << "raw '<' in the markdown: " << md.substr(i, 40);
  EXPECT_TRUE(has(md, "&lt;script&gt;"));
}

// JSON strings are UTF-8: a path in another encoding (a byte of no UTF-8 sequence) is written as U+FFFD, so the
// results file parses; UTF-8 text (accents, CJK) and control characters as before. The runner's own JSON reader
// reads it back.
TEST(ReportEscaping, JsonStringsAreAlwaysUtf8) {
  char *buf = nullptr;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  ASSERT_NE(f, nullptr);
  um_json_string(f, "/tmp/bad\xff\xc3(\xe9t\xc3\xa9 \xe6\x97\xa5\"\n\x01\xed\xa0\x80");
  fclose(f);
  const std::string got(buf, n);
  free(buf);
  EXPECT_EQ(got, "\"/tmp/bad\\ufffd\\ufffd(\\ufffdt\xc3\xa9 \xe6\x97\xa5\\\"\\n\\u0001\\ufffd\\ufffd\\ufffd\"");
  uj *v = nullptr;
  char err[256] = "";
  ASSERT_EQ(uj_parse(got.c_str(), got.size(), "test", &v, err, sizeof err), 0) << err;
  uj_free(v);
}
