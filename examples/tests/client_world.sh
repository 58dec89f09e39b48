#!/usr/bin/env bash
# Launches a graft world of real graft_client processes on 127.0.0.1 and checks
# what each rank ends with.
#
#   client_world.sh CLIENT MODE [PLUGIN]
#   MODE: b2t_1x1 | b2t_2x2 | t2b_1x1 | plugin_1x1 | peer_never_arrives
#   PLUGIN (plugin_1x1): the example transform library of docs/transforms.md
set -euo pipefail
client="$1"
mode="$2"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

source "$(dirname "$0")/pick_port.sh"
port="$(pick_port)"
export DUMPER_GRAFTER_ENABLE=1 DUMPER_GRAFTER_MASTER_ADDRESS=127.0.0.1 DUMPER_GRAFTER_MASTER_PORT=$port
export DUMPER_GRAFTER_TIMEOUT=20 DUMPER_GRAFTER_GROUP_NAME="client_$mode"

case "$mode" in
  b2t_1x1) B=1 T=1; export DUMPER_GRAFTER_B2T_FILTER="name == 'attn_output'" ;;
  b2t_2x2) B=2 T=2; export DUMPER_GRAFTER_B2T_FILTER="name == 'attn_output' and layer_id == 1" ;;
  t2b_1x1) B=1 T=1; export DUMPER_GRAFTER_T2B_FILTER="name == 'attn_input'" ;;
  plugin_1x1) B=1 T=1; export DUMPER_GRAFTER_B2T_FILTER="name == 'mlp_output'"
    export DUMPER_GRAFTER_TRANSFORM_PATH="$3:scale_by_extras" ;;
  peer_never_arrives) B=1 T=1; export DUMPER_GRAFTER_B2T_FILTER="name == 'attn_output'" DUMPER_GRAFTER_TIMEOUT=2 ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
export DUMPER_GRAFTER_BASELINE_WORLD_SIZE=$B DUMPER_GRAFTER_TARGET_WORLD_SIZE=$T

launch() {  # role rank world
  DUMPER_GRAFTER_ROLE=$1 RANK=$2 WORLD_SIZE=$3 \
    timeout 60 "$client" --events "$work/$1$2.jsonl" >"$work/$1$2.out" 2>"$work/$1$2.err" &
}

fail() { echo "FAIL: $*" >&2; for f in "$work"/*; do echo "--- $f" >&2; cat "$f" >&2; done; exit 1; }

if [ "$mode" = peer_never_arrives ]; then
  launch baseline 0 1
  wait -n || fail "the baseline must exit normally when its peer never arrives"
  grep -q '"kind":"group_error"' "$work/baseline0.jsonl" || fail "no group_error event"
  grep -q '"phase":"init"' "$work/baseline0.jsonl" || fail "group_error is not from group creation"
  # The host program carried on: every dump call still printed its value.
  [ "$(wc -l <"$work/baseline0.out")" -eq 6 ] || fail "the baseline did not finish its six dump calls"
  echo "peer_never_arrives: baseline continued and reported the missing peer"
  exit 0
fi

for ((r = 0; r < B; r++)); do launch baseline $r $B; done
for ((r = 0; r < T; r++)); do launch target $r $T; done
for job in $(jobs -p); do wait "$job" || fail "a rank exited with status $?"; done

expect_line() {  # file json-line
  grep -qF -- "$2" "$1" || fail "$1 lacks $2"
}
case "$mode" in
  b2t_1x1)
    expect_line "$work/target0.out" '{"call":1,"layer_id":0,"name":"attn_output","values":[0.0,2.0,4.0,6.0]}'
    expect_line "$work/target0.out" '{"call":4,"layer_id":1,"name":"attn_output","values":[0.0,5.0,10.0,15.0]}'
    expect_line "$work/target0.out" '{"call":2,"layer_id":0,"name":"mlp_output","values":[0.0,0.0,0.0,0.0]}'
    [ "$(grep -c '"kind":"recv_grafted"' "$work/target0.jsonl")" -eq 2 ] || fail "expected two grafts"
    ;;
  b2t_2x2)
    expect_line "$work/target0.out" '{"call":4,"layer_id":1,"name":"attn_output","values":[0.0,5.0,10.0,15.0]}'
    expect_line "$work/target1.out" '{"call":4,"layer_id":1,"name":"attn_output","values":[1000.0,1005.0,1010.0,1015.0]}'
    expect_line "$work/target1.out" '{"call":1,"layer_id":0,"name":"attn_output","values":[0.0,0.0,0.0,0.0]}'
    ;;
  plugin_1x1)  # the plugin halves what the baseline sent (extras scale 0.5)
    expect_line "$work/target0.out" '{"call":2,"layer_id":0,"name":"mlp_output","values":[0.0,1.5,3.0,4.5]}'
    grep -q '"transform":"scale_by_extras"' "$work/target0.jsonl" || fail "the plugin was not used"
    ;;
  t2b_1x1)
    expect_line "$work/baseline0.out" '{"call":0,"layer_id":0,"name":"attn_input","values":[0.0,0.0,0.0,0.0]}'
    expect_line "$work/baseline0.out" '{"call":1,"layer_id":0,"name":"attn_output","values":[0.0,2.0,4.0,6.0]}'
    grep -q '"kind":"send"' "$work/target0.jsonl" || fail "the target did not send"
    ;;
esac
echo "$mode: every rank ended with the expected values"
