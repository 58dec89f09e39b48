#!/usr/bin/env bash
# Who may join a running graft world: real graft_client processes on
# 127.0.0.1, a world of its own per mode, and a process that must not join it.
#
#   world_admission.sh CLIENT MODE
#   MODE: foreign_token      a process with another world token, during the run
#         tokenless_foreign  a process without the token a world was given
#         late_duplicate     a second process for a rank, after the world formed
#         forming_duplicate  two processes for one rank while the world forms (both refused)
#         worlds_in_turn     two worlds, one after the other, on one port
#         garbage            random bytes to the store port, while forming and during the run
set -euo pipefail
client="$1"
mode="$2"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

source "$(dirname "$0")/pick_port.sh"
port="$(pick_port)"
export DUMPER_GRAFTER_ENABLE=1 DUMPER_GRAFTER_MASTER_ADDRESS=127.0.0.1 DUMPER_GRAFTER_MASTER_PORT=$port
export DUMPER_GRAFTER_TIMEOUT=20 DUMPER_GRAFTER_B2T_FILTER="True"
export DUMPER_GRAFTER_BASELINE_WORLD_SIZE=1 DUMPER_GRAFTER_TARGET_WORLD_SIZE=1
unset DUMPER_GRAFTER_WORLD_TOKEN
# Long enough (several seconds here) that a process started once the world
# formed arrives while it still runs; checked below, not assumed.
layers=1500

fail() { echo "FAIL: $*" >&2; for f in "$work"/*; do echo "--- $f" >&2; tail -c 3000 "$f" >&2; done; exit 1; }

launch() {  # name role rank world_size [layers]
  DUMPER_GRAFTER_ROLE=$2 RANK=$3 WORLD_SIZE=$4 \
    timeout 90 "$client" --layers "${5:-$layers}" --events "$work/$1.jsonl" >"$work/$1.out" 2>"$work/$1.err" &
  eval "pid_$1=$!"
}

await_event() {  # name kind: until the process's events file holds one
  for _ in $(seq 3000); do
    grep -qs "\"kind\":\"$2\"" "$work/$1.jsonl" && return
    sleep 0.01
  done
  fail "$1 wrote no $2 event within 30 s"
}

event_pid() {  # name: the process's pid, as its events say
  grep -o '"pid":[0-9]*' "$work/$1.jsonl" | head -1 | cut -d: -f2
}

await_exit() {  # name: its exit status must be 0 (the host program carries on whatever graft says)
  local pid_var="pid_$1"
  wait "${!pid_var}" || fail "$1 exited with status $?"
}

# The world of names baseline and target ran whole: every call grafted, the last value right.
world_ran_whole() {
  local grafts
  grafts="$(grep -c '"kind":"recv_grafted"' "$work/target.jsonl" || true)"
  [ "$grafts" -eq $((3 * layers)) ] || fail "the world grafted $grafts of $((3 * layers)) calls"
  grep -qF "{\"call\":$((3 * layers - 1)),\"layer_id\":$((layers - 1)),\"name\":\"mlp_output\"" "$work/target.out" ||
    fail "the target did not print its last call"
  ! grep -q '"kind":"group_error"' "$work/baseline.jsonl" "$work/target.jsonl" || fail "the world had a group_error"
}

# The refused process's one group_error holds each needle.
refused_with() {  # name needle...
  local name="$1"
  shift
  grep -q '"kind":"group_error"' "$work/$name.jsonl" || fail "$name was not refused"
  for needle in "$@"; do
    grep '"kind":"group_error"' "$work/$name.jsonl" | grep -qF -- "$needle" || fail "$name's group_error lacks: $needle"
  done
  ! grep -q '"kind":"recv_grafted"' "$work/$name.jsonl" || fail "$name received a graft"
}

# The refusal came while the world still ran (so the test proved something).
refused_during_run() {  # name
  local refused last
  refused="$(grep -o '"time":[0-9.]*' "$work/$1.jsonl" | head -1 | cut -d: -f2)"
  last="$(grep -o '"time":[0-9.]*' "$work/target.jsonl" | tail -1 | cut -d: -f2)"
  awk -v a="$refused" -v b="$last" 'BEGIN { exit !(a < b) }' ||
    fail "$1 was refused at $refused, after the world's last event at $last: start it earlier"
}

case "$mode" in
  foreign_token|tokenless_foreign)
    export DUMPER_GRAFTER_WORLD_TOKEN=alpha
    launch baseline baseline 0 1
    launch target target 0 1
    await_event target group_init
    if [ "$mode" = foreign_token ]; then
      DUMPER_GRAFTER_WORLD_TOKEN=beta launch foreign target 0 1
      expected="that world's token differs from this process's DUMPER_GRAFTER_WORLD_TOKEN"
    else
      (unset DUMPER_GRAFTER_WORLD_TOKEN; launch foreign target 0 1; wait) &
      pid_foreign=$!
      expected="that world has a world token and this process has none"
    fi
    await_exit foreign
    await_exit baseline
    await_exit target
    refused_with foreign "not admitted to the graft world there" "$expected" "That world carries on"
    refused_during_run foreign
    world_ran_whole
    ! grep -q alpha "$work"/*.jsonl "$work"/*.err || fail "the token's text was written out"
    ;;
  late_duplicate)
    launch baseline baseline 0 1
    launch target target 0 1
    await_event target group_init
    launch duplicate target 0 1
    await_exit duplicate
    await_exit baseline
    await_exit target
    refused_with duplicate "not admitted: graft rank 1 (target rank 0) is held by pid $(event_pid target) on" \
      "That world carries on"
    refused_during_run duplicate
    world_ran_whole
    ;;
  forming_duplicate)
    # A 1+2 world whose graft rank 2 never comes: two processes claim graft
    # rank 1 before the world can form, and every process is refused, naming both.
    export DUMPER_GRAFTER_TARGET_WORLD_SIZE=2
    launch baseline baseline 0 1 4
    launch first target 0 2 4
    launch second target 0 2 4
    for name in first second baseline; do await_exit $name; done
    for name in first second baseline; do
      refused_with $name "graft rank 1 (target rank 0) was claimed by two processes, pid" \
        "pid $(event_pid first) on" "pid $(event_pid second) on" "so the graft world does not form"
    done
    ;;
  worlds_in_turn)
    layers=20
    for world in alpha beta; do
      export DUMPER_GRAFTER_WORLD_TOKEN=$world
      launch baseline baseline 0 1
      launch target target 0 1
      await_exit baseline
      await_exit target
      world_ran_whole
      mv "$work/target.jsonl" "$work/$world.target.jsonl"
      mv "$work/baseline.jsonl" "$work/$world.baseline.jsonl"
    done
    ;;
  garbage)
    launch baseline baseline 0 1
    for _ in $(seq 500); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.01; done
    head -c 65536 /dev/urandom >"/dev/tcp/127.0.0.1/$port" 2>/dev/null || true
    launch target target 0 1
    await_event target group_init
    for _ in 1 2 3; do head -c 65536 /dev/urandom >"/dev/tcp/127.0.0.1/$port" 2>/dev/null || true; done
    printf '\x00\x03\x00\x00\x00\x00\x00\x00\x00layout/1\xff\xff' >"/dev/tcp/127.0.0.1/$port" 2>/dev/null || true
    await_exit baseline
    await_exit target
    world_ran_whole
    ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
echo "$mode: the world kept to its own processes"
