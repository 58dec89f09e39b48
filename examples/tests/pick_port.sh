# Sourced by the world scripts: pick_port prints a port below the kernel's
# ephemeral range, from which outgoing connections and other tests' free
# ports are drawn (a random port inside it can be taken by the time rank 0
# binds it), and on which nothing listens yet.
pick_port() {
  local low
  low="$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)"
  [ "$low" -gt 11000 ] || low=32768
  for _ in $(seq 100); do
    local candidate=$((10000 + RANDOM % (low - 10000)))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then
      echo "$candidate"
      return
    fi
  done
  echo "$(basename "$0"): no free port below $low on 127.0.0.1" >&2
  exit 2
}
