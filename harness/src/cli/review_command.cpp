// graft review: insta's review for graft's snapshots. Each pending snapshot is
// shown against its golden (or whole, when new) and accepted, rejected or
// skipped; --accept / --reject decide for all without asking.

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

#include <graft/harness/errors.hpp>
#include <graft/harness/json_format.hpp>
#include <graft/harness/snapshot.hpp>
#include <graft/harness/snapshot_diff.hpp>
#include <graft/harness/snapshot_store.hpp>

#include "cli/commands.hpp"

namespace graft::harness::cli {

namespace {

// A new snapshot is shown up to this many lines; the rest is in its file.
constexpr std::size_t kNewSnapshotLines = 60;

struct palette {
  bool on = false;
  std::string paint(const char* code, const std::string& text) const {
    return on ? std::string("\x1b[") + code + "m" + text + "\x1b[0m" : text;
  }
  std::string heading(const std::string& text) const { return paint("1", text); }
  std::string removed(const std::string& text) const { return paint("31", text); }
  std::string added(const std::string& text) const { return paint("32", text); }
  std::string faint(const std::string& text) const { return paint("2", text); }
};

// no-color.org: NO_COLOR set to anything but "" turns colour off unless the
// user asked for it on the command line.
bool colour_on(colour_mode mode) {
  if (mode != colour_mode::automatic) return mode == colour_mode::always;
  const char* no_color = std::getenv("NO_COLOR");
  return isatty(STDOUT_FILENO) == 1 && (no_color == nullptr || *no_color == '\0');
}

void show_differences(const std::vector<difference>& diffs, const palette& colours) {
  for (const auto& d : diffs) {
    std::cout << "  " << colours.heading(d.path) << "\n"
              << "    " << colours.removed("- " + d.expected) << "\n"
              << "    " << colours.added("+ " + d.actual) << "\n";
    if (!d.detail.empty()) std::cout << "      " << colours.faint(d.detail) << "\n";
  }
  std::cout << diffs.size() << " difference" << (diffs.size() == 1 ? "" : "s") << " from the golden\n";
}

void show_new(const std::filesystem::path& pending, const palette& colours) {
  std::istringstream text(format_json(load_snapshot(pending)));
  std::string line;
  std::size_t shown = 0, total = 0;
  for (; std::getline(text, line); ++total) {
    if (shown < kNewSnapshotLines) {
      std::cout << "    " << colours.added("+ " + line) << "\n";
      ++shown;
    }
  }
  if (total > shown) std::cout << "    ... " << total - shown << " more lines in " << pending.string() << "\n";
  std::cout << "new snapshot: no golden yet\n";
}

void show(const snapshot_dirs& dirs, const std::string& name, std::size_t index, std::size_t count,
          const palette& colours) {
  std::cout << colours.heading("── " + name + " (" + std::to_string(index) + " of " + std::to_string(count) + ") ──")
            << "\n  golden:  " << dirs.golden_path(name).string() << "\n  pending: " << dirs.pending_path(name).string()
            << "\n";
  if (!std::filesystem::exists(dirs.golden_path(name))) return show_new(dirs.pending_path(name), colours);
  const file_diff result = diff_snapshot_files(dirs.golden_path(name), dirs.pending_path(name));
  if (result.exit_code == 2) GRAFT_THROW(snapshot_error, result.problems.front());
  if (result.differences.empty()) {
    std::cout << "same as the golden within its tolerances\n";
  } else {
    show_differences(result.differences, colours);
  }
}

enum class decision { accept, reject, skip, stop };

// Asks until it gets an answer; end of input stops the review.
decision ask() {
  for (;;) {
    std::cout << "accept (a), reject (r), skip (s)? " << std::flush;
    std::string answer;
    if (!std::getline(std::cin, answer)) {
      std::cout << "\n";
      return decision::stop;
    }
    if (answer == "a" || answer == "accept") return decision::accept;
    if (answer == "r" || answer == "reject") return decision::reject;
    if (answer == "s" || answer == "skip") return decision::skip;
    std::cout << "'" << answer << "': answer a, r or s\n";
  }
}

decision decide(review_mode mode) {
  switch (mode) {
    case review_mode::accept_all: return decision::accept;
    case review_mode::reject_all: return decision::reject;
    case review_mode::ask: break;
  }
  return ask();
}

}  // namespace

int review_command(const paths& p, const std::vector<std::string>& names, review_mode mode, colour_mode colour) {
  const snapshot_dirs dirs{p.goldens(), p.snapshots()};
  if (is_ci_from_process_env()) {
    std::cerr << "graft review: refusing to review under CI (CI is set): review snapshots on a workstation "
                 "and commit the goldens\n";
    return 2;
  }
  const palette colours{colour_on(colour)};
  std::size_t accepted = 0, rejected = 0, skipped = 0;
  try {
    const std::vector<std::string> chosen = checked_pending_names(dirs, names);
    if (chosen.empty()) {
      std::cout << "nothing pending in " << p.snapshots().string() << "\n";
      return 0;
    }
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      const std::string& name = chosen[i];
      show(dirs, name, i + 1, chosen.size(), colours);
      const decision d = decide(mode);
      if (d == decision::stop) {
        skipped += chosen.size() - i;
        std::cout << "end of input: the rest stay pending\n";
        break;
      }
      if (d == decision::accept) {
        accept_pending(dirs, {name}, false);
        std::cout << colours.added("accepted") << " " << dirs.golden_path(name).string() << "\n\n";
        ++accepted;
      } else if (d == decision::reject) {
        reject_pending(dirs, {name});
        std::cout << colours.removed("rejected") << " (pending deleted, golden unchanged)\n\n";
        ++rejected;
      } else {
        std::cout << "skipped (still pending)\n\n";
        ++skipped;
      }
    }
  } catch (const snapshot_error& e) {
    std::cerr << "graft review: " << e.what() << "\n";
    return 2;
  }
  std::cout << accepted << " accepted, " << rejected << " rejected, " << skipped << " skipped"
            << (accepted > 0 ? "; commit the accepted goldens" : "") << "\n";
  return 0;
}

}  // namespace graft::harness::cli
