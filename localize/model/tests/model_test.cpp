// The localize model on its own (grafter disabled): seeded, and each planted
// bug changes the logits while the alt kernels only reorder rounding.
#include "model.hpp"

#include <gtest/gtest.h>

#include <graft/error.hpp>

namespace loc = graft::harness::localize;

namespace {

at::Tensor run(loc::model_options options) {
  graft::grafter disabled(graft::graft_config{}, graft::side_rank{});
  return loc::model(options).forward(disabled).to(at::kDouble);
}

double rel_diff(const at::Tensor& x, const at::Tensor& y) {
  return 1.0 - 2.0 * (x * y).sum().item<double>() / ((x * x).sum() + (y * y).sum()).item<double>();
}

}  // namespace

TEST(Model, SameSeedSameLogitsOtherSeedOtherLogits) {
  loc::model_options o;
  const at::Tensor a = run(o);
  EXPECT_EQ(a.sizes(), (std::vector<std::int64_t>{o.seq_len, o.vocab}));
  EXPECT_TRUE(at::equal(a, run(o)));
  o.seed = 1;
  EXPECT_GT(rel_diff(a, run(o)), 1e-2);
}

TEST(Model, EveryBugChangesTheLogitsFarAboveReorderingNoise) {
  loc::model_options o;
  const at::Tensor clean = run(o);
  for (const auto& name : loc::bug_kind_names()) {
    if (name == "none") continue;
    o.bug = *loc::parse_bug_kind(name);
    o.bug_layer = 1;
    // Reordering sums moves float32 logits by < 1e-10 (AltKernelsAgreeToRounding).
    EXPECT_GT(rel_diff(clean, run(o)), 1e-8) << name;
  }
}

TEST(Model, AltKernelsAgreeToRounding) {
  loc::model_options o;
  const at::Tensor standard = run(o);
  o.kernel_choice = loc::kernels::alt;
  const double d = rel_diff(standard, run(o));
  EXPECT_LT(d, 1e-10);
}

TEST(Model, BFloat16RunsCloseToFloat32) {
  loc::model_options o;
  const at::Tensor f32 = run(o);
  o.dtype = at::kBFloat16;
  const double d = rel_diff(f32, run(o));
  EXPECT_GT(d, 0.0);
  EXPECT_LT(d, 1e-2);
}

TEST(Model, InvalidOptionsNameTheOption) {
  loc::model_options o;
  o.heads = 5;
  EXPECT_THROW(o.validate(), graft::config_error);
  o = {};
  o.bug = loc::bug_kind::attn_scale;
  o.bug_layer = o.layers;
  try {
    o.validate();
    FAIL() << "expected a config_error";
  } catch (const graft::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("--bug-layer"), std::string::npos) << e.what();
  }
  o = {};
  o.hidden = 10000;
  o.heads = 1;
  try {
    o.validate();
    FAIL() << "expected a config_error";
  } catch (const graft::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("--layers 4 --hidden 10000 --vocab 64 --seq-len 8: the built-in model would need "
                                         "18319 MiB per rank, more than its 4096 MiB"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(loc::to_string(loc::bug_kind::mlp_bf16), "mlp_bf16");
  EXPECT_FALSE(loc::parse_bug_kind("typo").has_value());
}
