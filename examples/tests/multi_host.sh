#!/usr/bin/env bash
# Two hosts on one machine: the baseline side runs in one network namespace,
# the target side in another, joined by a veth pair with private addresses of
# its own. A graft world of real graft_client processes forms over that link,
# never over 127.0.0.1, and grafts.
#
#   multi_host.sh CLIENT MODE
#   MODE: 1x1 | 2x2   (baseline world size x target world size)
#         1x1_default_interface: 1x1 without GLOO_SOCKET_IFNAME, where this
#         host's name resolves to a loopback address in both namespaces
#         1x1_unreachable_interface: 1x1 with GLOO_SOCKET_IFNAME=lo on both
#         sides, so that neither can reach the address the other listens on:
#         the world fails as it forms, on both sides within the timeout
#
# Needs root and iproute2 (`ip netns`). Where namespaces cannot be made it
# says why on stderr and exits 77, which ctest reports as skipped.
set -euo pipefail
client="$1"
mode="$2"

ifname=1
case "$mode" in
  1x1) B=1 T=1; export DUMPER_GRAFTER_B2T_FILTER="name == 'attn_output'" ;;
  1x1_default_interface) B=1 T=1 ifname=0; export DUMPER_GRAFTER_B2T_FILTER="name == 'attn_output'" ;;
  1x1_unreachable_interface) B=1 T=1 ifname=lo; export DUMPER_GRAFTER_B2T_FILTER="name == 'attn_output'" ;;
  2x2) B=2 T=2; export DUMPER_GRAFTER_B2T_FILTER="name == 'attn_output' and layer_id == 1" ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac

skip() { echo "SKIPPED: multi_host_$mode: $*" >&2; exit 77; }

# Names and addresses of this run's own, so that parallel runs never meet.
prefix="graft-mh-$$"
ns_base="$prefix-base" ns_targ="$prefix-targ"
veth_base="gmh$$b" veth_targ="gmh$$t"
subnet="10.$(($$ / 256 % 256)).$(($$ % 256))"
addr_base="$subnet.1" addr_targ="$subnet.2"
work="$(mktemp -d)"
made=()

ipc() { timeout 10 ip "$@"; }

cleanup() {
  local pids
  pids="$(jobs -p)"
  if [ -n "$pids" ]; then
    kill $pids 2>/dev/null || true
    for _ in $(seq 50); do kill -0 $pids 2>/dev/null || break; sleep 0.1; done
    kill -9 $pids 2>/dev/null || true
  fi
  for ns in "${made[@]}"; do ipc netns delete "$ns" 2>/dev/null || true; done
  for veth in "$veth_base" "$veth_targ"; do ipc link delete "$veth" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

[ "$(id -u)" -eq 0 ] || skip "needs root to create network namespaces (running as uid $(id -u))"
command -v ip >/dev/null || skip "no 'ip' command: install iproute2"

# A run killed outright (SIGKILL, as on a ctest timeout) cannot clean up:
# remove namespaces whose creating script is gone.
for stale in $(ipc netns list 2>/dev/null | grep -o '^graft-mh-[0-9]*-[a-z]*' || true); do
  owner="${stale#graft-mh-}"
  kill -0 "${owner%%-*}" 2>/dev/null || ipc netns delete "$stale" 2>/dev/null || true
done

for ns in "$ns_base" "$ns_targ"; do
  why="$(ipc netns add "$ns" 2>&1)" || skip "'ip netns add $ns' failed: ${why:-no message} (unprivileged container?)"
  made+=("$ns")
done
# Made inside the namespaces, so no veth ever lingers in this one.
why="$(ipc -n "$ns_base" link add "$veth_base" type veth peer name "$veth_targ" netns "$ns_targ" 2>&1)" ||
  skip "cannot create a veth pair: 'ip link add $veth_base type veth' failed: ${why:-no message}"

fail() {
  echo "FAIL: multi_host_$mode: $*" >&2
  for ns in "$ns_base" "$ns_targ"; do echo "--- $ns" >&2; ipc -n "$ns" addr show >&2 || true; done
  for f in "$work"/*; do echo "--- $f" >&2; tail -c 3000 "$f" >&2; done
  exit 1
}

ipc -n "$ns_base" addr add "$addr_base/24" dev "$veth_base" || fail "cannot give $veth_base $addr_base"
ipc -n "$ns_targ" addr add "$addr_targ/24" dev "$veth_targ" || fail "cannot give $veth_targ $addr_targ"
for pair in "$ns_base:$veth_base" "$ns_targ:$veth_targ"; do
  ipc -n "${pair%%:*}" link set lo up || fail "cannot bring lo up in ${pair%%:*}"
  ipc -n "${pair%%:*}" link set "${pair#*:}" up || fail "cannot bring ${pair#*:} up in ${pair%%:*}"
done
# Both ends carry traffic once both veths are up (a veth has carrier only
# when its peer is up too).
link_up() {  # namespace veth
  ipc -n "$1" -o link show dev "$2" 2>/dev/null | grep -q 'state UP'
}
for _ in $(seq 100); do
  link_up "$ns_base" "$veth_base" && link_up "$ns_targ" "$veth_targ" && break
  sleep 0.1
done
link_up "$ns_base" "$veth_base" && link_up "$ns_targ" "$veth_targ" || fail "the veth pair did not come up within 10 s"

source "$(dirname "$0")/pick_port.sh"
port="$(pick_port)"
# Graft rank 0 (baseline rank 0) hosts the store, so the master address is
# the baseline host's.
export DUMPER_GRAFTER_ENABLE=1 DUMPER_GRAFTER_MASTER_ADDRESS=$addr_base DUMPER_GRAFTER_MASTER_PORT=$port
timeout_s=20
[ "$ifname" != lo ] || timeout_s=5
export DUMPER_GRAFTER_TIMEOUT=$timeout_s DUMPER_GRAFTER_GROUP_NAME="multi_host_$mode"
export DUMPER_GRAFTER_BASELINE_WORLD_SIZE=$B DUMPER_GRAFTER_TARGET_WORLD_SIZE=$T
export OMP_WAIT_POLICY=PASSIVE
unset DUMPER_GRAFTER_WORLD_TOKEN

# Without GLOO_SOCKET_IFNAME each process listens on the address it reaches
# the master address from: its veth's, whatever its host's name resolves to.
unset GLOO_SOCKET_IFNAME
launch() {  # namespace veth role rank world
  local interface=()
  case "$ifname" in
    0) ;;
    lo) interface=("GLOO_SOCKET_IFNAME=lo") ;;
    *) interface=("GLOO_SOCKET_IFNAME=$2") ;;
  esac
  env "${interface[@]}" DUMPER_GRAFTER_ROLE=$3 RANK=$4 WORLD_SIZE=$5 \
    ip netns exec "$1" timeout -k 5 60 "$client" --events "$work/$3$4.jsonl" >"$work/$3$4.out" 2>"$work/$3$4.err" &
  launched+=("$!:$3$4")
}

launched=()
started=$SECONDS
for ((r = 0; r < B; r++)); do launch "$ns_base" "$veth_base" baseline $r $B; done
for ((r = 0; r < T; r++)); do launch "$ns_targ" "$veth_targ" target $r $T; done
# Each process is bounded by its timeout (60 s, then killed): no wait here hangs.
for job in "${launched[@]}"; do
  wait "${job%%:*}" || fail "${job#*:} exited with status $? (124 or 137: it ran out of time)"
done
elapsed=$((SECONDS - started))

if [ "$ifname" = lo ]; then
  # Gloo waits five times its timeout for a pair's first connection; graft
  # holds it to its own. 4 s of slack: loading libtorch is in the count.
  [ "$elapsed" -le $((timeout_s + 4)) ] || fail "the failed world took ${elapsed} s to end, more than its ${timeout_s} s timeout plus 4 s"
  for name in baseline0 target0; do
    grep -q '"kind":"group_error"' "$work/$name.jsonl" || fail "$name logged no group_error"
    grep -q '"phase":"init"' "$work/$name.jsonl" || fail "$name's group_error is not of the init phase"
    ! grep -q '"kind":"recv_grafted"' "$work/$name.jsonl" || fail "$name grafted in a world that did not form"
  done
  echo "$mode: a world whose sides cannot reach each other failed on both sides in ${elapsed} s (timeout ${timeout_s} s)"
  exit 0
fi

expect_line() {  # file json-line
  grep -qF -- "$2" "$1" || fail "$1 lacks $2"
}
count() {  # events-name kind: how many such events the process wrote
  grep -c "\"kind\":\"$2\"" "$work/$1.jsonl" || true
}

names=()
for ((r = 0; r < B; r++)); do names+=("baseline$r"); done
for ((r = 0; r < T; r++)); do names+=("target$r"); done
for name in "${names[@]}"; do
  events="$work/$name.jsonl"
  [ "$(count "$name" group_init)" -eq 1 ] || fail "$name did not join the world once"
  # The world met at the veth address of the baseline's host, and nothing
  # (master address, message, peer) names a loopback address.
  masters="$(grep -o '"master_address":"[^"]*"' "$events" | sort -u)"
  [ "$masters" = "\"master_address\":\"$addr_base\"" ] || fail "$name's events name master addresses other than $addr_base: $masters"
  ! grep -Eq '(^|[^0-9.])127(\.[0-9]{1,3}){3}([^0-9]|$)|localhost' "$events" || fail "$name's events name a loopback address"
  others="$(grep -o '"kind":"[a-z_]*"' "$events" | sort -u | grep -Ev '"(group_init|send|recv_grafted)"' || true)"
  [ -z "$others" ] || fail "$name had unexpected events: $others"
done

case "$mode" in
  1x1*)
    expect_line "$work/target0.out" '{"call":1,"layer_id":0,"name":"attn_output","values":[0.0,2.0,4.0,6.0]}'
    expect_line "$work/target0.out" '{"call":4,"layer_id":1,"name":"attn_output","values":[0.0,5.0,10.0,15.0]}'
    expect_line "$work/target0.out" '{"call":2,"layer_id":0,"name":"mlp_output","values":[0.0,0.0,0.0,0.0]}'
    [ "$(count baseline0 send)" -eq 2 ] || fail "baseline0 expected to send twice"
    [ "$(count target0 recv_grafted)" -eq 2 ] || fail "target0 expected two grafts"
    ;;
  2x2)
    expect_line "$work/target0.out" '{"call":4,"layer_id":1,"name":"attn_output","values":[0.0,5.0,10.0,15.0]}'
    expect_line "$work/target1.out" '{"call":4,"layer_id":1,"name":"attn_output","values":[1000.0,1005.0,1010.0,1015.0]}'
    expect_line "$work/target1.out" '{"call":1,"layer_id":0,"name":"attn_output","values":[0.0,0.0,0.0,0.0]}'
    for r in 0 1; do
      [ "$(count baseline$r send)" -eq 1 ] || fail "baseline$r expected to send once"
      [ "$(count target$r recv_grafted)" -eq 1 ] || fail "target$r expected one graft"
    done
    ;;
esac
echo "$mode: a world of $B+$T processes formed over $addr_base <-> $addr_targ ($veth_base, $veth_targ) and grafted the expected values in ${elapsed} s"
