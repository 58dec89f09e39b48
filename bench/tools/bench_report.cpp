// graft_bench_report: the bench suite's report and regression tool.
//
//   graft_bench_report report [--out DIR] [--page REPORTS] FILE.json...
//       writes DIR/report.md (ratios vs floors and targets) and DIR/ratio.svg,
//       then REPORTS/index.html, the page of the whole reports folder
//   graft_bench_report compare [--threshold 0.10] BASE.json NEW.json
//       flags regressions of the median ratio (exit 1), says when noise hides them
//   graft_bench_report validate FILE.json...
//       checks that each file is Google Benchmark JSON with at least one result
//   graft_bench_report --help
//
// Exit status: 0 fine, 1 regression (compare), 2 bad input or usage.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <graft/harness/report_page.hpp>

#include "compare.hpp"
#include "render.hpp"
#include "results.hpp"
#include "targets.hpp"

namespace {

constexpr int kBadInput = 2;

const char* const kUsage =
    "usage: graft_bench_report report [--out DIR] [--page REPORTS] FILE.json...\n"
    "       graft_bench_report compare [--threshold FRACTION] BASE.json NEW.json\n"
    "       graft_bench_report validate FILE.json...\n"
    "       graft_bench_report --help\n";

const char* const kHelp =
    "\n"
    "report    reads the Google Benchmark JSON files of one bench run (one per\n"
    "          executable) and writes DIR/report.md, every figure as a ratio to\n"
    "          its floor from the same file against its target, and\n"
    "          DIR/ratio.svg, each case's time / its floor's vs size (floors\n"
    "          at 1.0). DIR defaults to reports/bench. With --page, then\n"
    "          writes REPORTS/index.html, one page of everything in REPORTS\n"
    "          (graft run, its snapshot diffs, bench*/ folders, localize runs).\n"
    "compare   sets two runs side by side and flags a benchmark whose median ratio\n"
    "          to its floor (or median time, without a floor) grew by more than\n"
    "          FRACTION (default 0.10) and more than twice the runs' combined cv;\n"
    "          within that noise it says \"too noisy to tell\". A judged benchmark\n"
    "          missing or failed in NEW is LOST.\n"
    "validate  checks that each file is Google Benchmark JSON with results.\n"
    "\n"
    "Exit status: 0 fine, 1 a regression or a lost benchmark (compare), 2 bad\n"
    "input or usage.\n";

int usage(const std::string& problem) {
  std::cerr << "graft_bench_report: " << problem << "\n" << kUsage;
  return kBadInput;
}

// Each line of message (one per bad file) on stderr, prefixed with the tool's name.
void print_error(const std::string& message) {
  std::istringstream lines(message);
  for (std::string line; std::getline(lines, line);) std::cerr << "graft_bench_report: " << line << "\n";
}

bool wants_help(const std::vector<std::string>& args) {
  return std::find_if(args.begin(), args.end(), [](const std::string& a) {
           return a == "--help" || a == "-h";
         }) != args.end();
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw graft_bench::bad_input("cannot write " + path.string());
}

int report(std::vector<std::string> args) {
  std::filesystem::path dir = "reports/bench";
  std::optional<std::filesystem::path> page;
  std::vector<std::string> inputs;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--out") {
      if (++i == args.size()) return usage("--out needs a directory");
      dir = args[i];
    } else if (args[i] == "--page") {
      if (++i == args.size()) return usage("--page needs the reports folder, e.g. reports");
      page = args[i];
    } else {
      inputs.push_back(args[i]);
    }
  }
  if (inputs.empty()) return usage("report needs at least one JSON file");
  const auto files = graft_bench::read_files(inputs);
  const auto results = graft_bench::merge_results(files);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw graft_bench::bad_input("--out '" + dir.string() + "': cannot create this folder (" + ec.message() +
                                 "); pass --out DIR, a folder you can write");
  }
  const auto rows = graft_bench::build_rows(results);
  write_file(dir / "report.md", graft_bench::markdown_report(results, rows, files));
  write_file(dir / "ratio.svg", graft_bench::ratio_svg(rows));
  std::cout << "wrote " << (dir / "report.md").string() << " and " << (dir / "ratio.svg").string() << "\n";
  if (page) std::cout << "wrote " << graft::harness::write_report_page(*page).string() << "\n";
  return 0;
}

int compare(std::vector<std::string> args) {
  graft_bench::compare_options options;
  std::vector<std::string> files;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--threshold") {
      if (++i == args.size()) return usage("--threshold needs a fraction, e.g. 0.10");
      try {
        std::size_t used = 0;
        options.threshold = std::stod(args[i], &used);
        if (used != args[i].size() || !(options.threshold > 0) || !std::isfinite(options.threshold)) {
          throw std::invalid_argument(args[i]);
        }
      } catch (const std::exception&) {
        return usage("--threshold '" + args[i] + "' is not a positive fraction such as 0.10");
      }
    } else {
      files.push_back(args[i]);
    }
  }
  if (files.size() != 2) return usage("compare needs exactly BASE.json and NEW.json");
  return graft_bench::compare_runs(files[0], files[1], options, std::cout);
}

// Every file is checked, so that one run names all of its bad files.
int validate(const std::vector<std::string>& files) {
  if (files.empty()) return usage("validate needs at least one JSON file");
  int status = 0;
  for (const std::string& f : files) {
    try {
      const auto results = graft_bench::read_file(f).results;
      std::size_t skipped = 0;
      for (const auto& r : results) skipped += r.error.empty() ? 0 : 1;
      std::cout << f << ": " << results.size() << " benchmark(s), " << skipped << " skipped\n";
    } catch (const graft_bench::bad_input& e) {
      print_error(e.what());
      status = kBadInput;
    }
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage("missing subcommand");
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (wants_help({argv + 1, argv + argc}) || command == "help") {
    std::cout << kUsage << kHelp;
    return 0;
  }
  try {
    if (command == "report") return report(args);
    if (command == "compare") return compare(args);
    if (command == "validate") return validate(args);
  } catch (const std::exception& e) {
    print_error(e.what());
    return kBadInput;
  }
  return usage("unknown subcommand '" + command + "'");
}
