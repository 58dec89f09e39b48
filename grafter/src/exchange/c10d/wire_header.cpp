#include "exchange/c10d/wire_header.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include <ATen/Functions.h>

#include <graft/error.hpp>

#include "exchange/c10d/messages.hpp"
#include "exchange/graftable.hpp"
#include "exchange/header_check.hpp"

namespace graft::detail {
namespace {

// "GRFT" and the layout version: a peer built from another graft version is
// named as such instead of being read as garbage.
constexpr std::int64_t kHeaderVersion = 3;
constexpr std::int64_t kMagicVersion = (std::int64_t{0x47524654} << 16) | kHeaderVersion;

enum slot : std::int64_t {
  kSlotMagic = 0,
  kSlotSequence,
  kSlotFingerprint,
  kSlotDirection,
  kSlotGraftRank,
  kSlotState,
  kSlotDtype,
  kSlotNdim,
  kSlotShape,
  kSlotExtrasBytes = kSlotShape + kMaxHeaderDims,
  kSlotRoute,
  kSlotReceivesOn,
  kSlotName,
  kSlotCount = kSlotName + static_cast<std::int64_t>(kHeaderNameBytes / sizeof(std::int64_t)),
};

std::int64_t to_slot(std::uint64_t value) {
  std::int64_t out = 0;
  std::memcpy(&out, &value, sizeof(out));
  return out;
}

std::uint64_t from_slot(std::int64_t value) {
  std::uint64_t out = 0;
  std::memcpy(&out, &value, sizeof(out));
  return out;
}

std::string hex(std::uint64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

std::string call_text(const wire_header& h) {
  std::ostringstream out;
  out << "'" << h.name << "' (sequence " << h.sequence << ", fingerprint " << hex(h.fingerprint)
      << ", " << to_string(h.direction) << ")";
  return out.str();
}

[[noreturn]] void bad_header(int graft_rank, const std::string& what) {
  GRAFT_THROW(exchange_error,
              "exchange header from graft rank " + std::to_string(graft_rank) + " is invalid: " +
                  what + "; both sides must run the same graft version");
}

// NCCL moves device memory only: a CUDA payload for a CPU target would need
// a CUDA buffer on the receiving rank first, which a CPU-only process lacks
// (it finds out after its sender has posted, and the sender then waits out
// the timeout), and on a shared host that buffer lands on whatever device is
// current, where NCCL may refuse a second rank. So devices must not be mixed
// on the NCCL route; a CPU tensor sent to a CUDA target travels over Gloo and
// is fine.
void check_receiver_devices(const std::vector<wire_header>& headers, const rank_layout& layout) {
  const wire_header* cuda_sender = nullptr;
  const wire_header* cpu_receiver = nullptr;
  for (const wire_header& h : headers) {
    if (h.state == payload_state::present && h.route == payload_route::nccl && cuda_sender == nullptr) cuda_sender = &h;
    if (h.receives_on == receiver_device::cpu && cpu_receiver == nullptr) cpu_receiver = &h;
  }
  if (cuda_sender == nullptr || cpu_receiver == nullptr) return;
  GRAFT_THROW(mixed_device_error,
              rank_text(layout, cuda_sender->graft_rank) + " sends a CUDA tensor over NCCL for " +
                  call_text(*cuda_sender) + ", but " + rank_text(layout, cpu_receiver->graft_rank) +
                  " receives into a CPU tensor (or none): backend=nccl does not mix CPU and CUDA tensors in one "
                  "call. Put the receiving side's tensor on a CUDA device, move the sender's to the CPU, or use "
                  "backend=gloo, which carries any mix through host memory. Nothing was exchanged");
}

}  // namespace

std::int64_t header_slots() { return kSlotCount; }

at::Tensor encode_header(const wire_header& header) {
  at::Tensor slots = at::zeros({kSlotCount}, at::kLong);
  std::int64_t* s = slots.data_ptr<std::int64_t>();
  s[kSlotMagic] = kMagicVersion;
  s[kSlotSequence] = to_slot(header.sequence);
  s[kSlotFingerprint] = to_slot(header.fingerprint);
  s[kSlotDirection] = header.direction == direction::b2t ? 0 : 1;
  s[kSlotGraftRank] = header.graft_rank;
  s[kSlotState] = static_cast<std::int64_t>(header.state);
  s[kSlotDtype] = static_cast<std::int64_t>(header.dtype);
  s[kSlotNdim] = static_cast<std::int64_t>(std::min<std::size_t>(header.shape.size(), kMaxHeaderDims));
  std::copy_n(header.shape.begin(), s[kSlotNdim], s + kSlotShape);
  s[kSlotExtrasBytes] = header.extras_bytes;
  s[kSlotRoute] = static_cast<std::int64_t>(header.route);
  s[kSlotReceivesOn] = static_cast<std::int64_t>(header.receives_on);
  std::memcpy(s + kSlotName, header.name.data(), std::min(header.name.size(), kHeaderNameBytes));
  return slots;
}

wire_header decode_header(const at::Tensor& slots, int graft_rank) {
  if (slots.scalar_type() != at::kLong || slots.numel() != kSlotCount) {
    bad_header(graft_rank, "expected " + std::to_string(kSlotCount) + " int64 slots");
  }
  const at::Tensor c = slots.contiguous();
  const std::int64_t* s = c.data_ptr<std::int64_t>();
  if (s[kSlotMagic] != kMagicVersion) {
    bad_header(graft_rank, "magic/version " + hex(from_slot(s[kSlotMagic])) + ", this build speaks " +
                               hex(from_slot(kMagicVersion)));
  }
  if (s[kSlotGraftRank] != graft_rank) {
    bad_header(graft_rank, "it claims graft rank " + std::to_string(s[kSlotGraftRank]));
  }
  if (s[kSlotDirection] != 0 && s[kSlotDirection] != 1) {
    bad_header(graft_rank, "direction " + std::to_string(s[kSlotDirection]));
  }
  if (s[kSlotState] < 0 || s[kSlotState] > static_cast<std::int64_t>(payload_state::refused)) {
    bad_header(graft_rank, "payload state " + std::to_string(s[kSlotState]));
  }
  if (s[kSlotDtype] < 0 || s[kSlotDtype] >= static_cast<std::int64_t>(c10::ScalarType::NumOptions)) {
    bad_header(graft_rank, "dtype " + std::to_string(s[kSlotDtype]));
  }
  if (s[kSlotRoute] != 0 && s[kSlotRoute] != 1) {
    bad_header(graft_rank, "payload route " + std::to_string(s[kSlotRoute]));
  }
  if (s[kSlotReceivesOn] < 0 || s[kSlotReceivesOn] > static_cast<std::int64_t>(receiver_device::cuda)) {
    bad_header(graft_rank, "receiver device " + std::to_string(s[kSlotReceivesOn]));
  }
  if (s[kSlotExtrasBytes] < 0) {
    bad_header(graft_rank, "extras length " + std::to_string(s[kSlotExtrasBytes]));
  }
  wire_header h;
  h.sequence = from_slot(s[kSlotSequence]);
  h.fingerprint = from_slot(s[kSlotFingerprint]);
  h.direction = s[kSlotDirection] == 0 ? direction::b2t : direction::t2b;
  h.graft_rank = graft_rank;
  h.state = static_cast<payload_state>(s[kSlotState]);
  h.dtype = static_cast<c10::ScalarType>(s[kSlotDtype]);
  const std::int64_t ndim = s[kSlotNdim];
  if (ndim < 0 || ndim > kMaxHeaderDims) bad_header(graft_rank, "ndim " + std::to_string(ndim));
  h.shape.assign(s + kSlotShape, s + kSlotShape + ndim);
  if (std::any_of(h.shape.begin(), h.shape.end(), [](std::int64_t d) { return d < 0; })) {
    bad_header(graft_rank, "negative size in shape");
  }
  h.extras_bytes = s[kSlotExtrasBytes];
  h.route = static_cast<payload_route>(s[kSlotRoute]);
  h.receives_on = static_cast<receiver_device>(s[kSlotReceivesOn]);
  const char* name = reinterpret_cast<const char*>(s + kSlotName);
  h.name.assign(name, strnlen(name, kHeaderNameBytes));
  return h;
}

std::optional<std::string> cannot_travel(const at::Tensor& t) {
  if (std::optional<std::string> why = ungraftable_reason(t)) return why;
  if (t.dim() <= kMaxHeaderDims) return std::nullopt;
  return "it has " + std::to_string(t.dim()) + " dimensions and the c10d exchange carries at most " +
         std::to_string(kMaxHeaderDims) + "; reshape it (merge leading dimensions) before the dump call";
}

void check_wire_headers(const std::vector<wire_header>& headers, const wire_header& mine,
                        const rank_layout& layout, const std::optional<std::string>& my_refusal) {
  std::vector<call_header> calls;
  for (const wire_header& h : headers) calls.push_back({h.sequence, h.fingerprint, h.direction, h.name});
  check_headers(calls, mine.graft_rank);
  // This rank's own reason first: only it knows which rule the tensor broke.
  if (mine.state == payload_state::refused && my_refusal) {
    GRAFT_THROW(exchange_error, rank_text(layout, mine.graft_rank) + " cannot send its tensor for " +
                                    call_text(mine) + ": " + *my_refusal + ". Nothing was exchanged");
  }
  check_receiver_devices(headers, layout);
  for (const wire_header& h : headers) {
    const role side = h.graft_rank < layout.baseline_world_size ? role::baseline : role::target;
    if (h.state != payload_state::refused || !is_sender(side, mine.direction)) continue;
    GRAFT_THROW(exchange_error, rank_text(layout, h.graft_rank) + " cannot send its tensor for " +
                                    call_text(h) +
                                    ": it has no raw bytes the exchange can carry (sparse, quantized, nested, "
                                    "on the meta device, or more than " + std::to_string(kMaxHeaderDims) +
                                    " dimensions); that rank's error names the reason and the fix. "
                                    "Nothing was exchanged");
  }
}

}  // namespace graft::detail
