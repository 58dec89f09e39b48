# Sourced by each ci/ script before it does anything: with -h or --help as
# the first argument, prints the script's header comment (what it does, its
# usage and environment) and exits 0, before anything is installed, built or
# run.
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  sed -n '2,/^set -euo pipefail$/{/^#/{s/^# \{0,1\}//;p}}' "$0"
  exit 0
fi
