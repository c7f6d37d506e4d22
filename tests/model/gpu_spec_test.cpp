#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "model/builtin_texts.hpp"
#include "model/gpu_spec.hpp"
#include "model_test_support.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

const std::string minimal_gpu = R"({
  "peak_bf16_flops": 100e12,
  "memory_bandwidth_bytes_per_s": 1e12,
  "memory_bytes": 17179869184,
  "link_bandwidth_bytes_per_s": 32e9
})";

using test::replaced;

std::string gpu_parse_error(const std::string& text) {
  return test::parse_error(parse_gpu_spec, text, "gpu.json");
}

TEST(GpuSpec, BuiltinsInOrderWithTheirOwnNames) {
  const auto names = builtin_gpu_names();
  ASSERT_EQ(names.size(), 6u);
  EXPECT_EQ(names[0], "h100");
  EXPECT_EQ(names[5], "rtx4090");
  for (const auto name : names) {
    SCOPED_TRACE(std::string(name));
    const auto gpu = builtin_gpu(name);
    ASSERT_TRUE(gpu.has_value()) << gpu.error();
    EXPECT_EQ(gpu->name, name);
    EXPECT_FALSE(gpu->description.empty());
    EXPECT_FALSE(check_gpu_spec(*gpu).has_value());
    // Built-ins leave the efficiency factors at their documented defaults.
    EXPECT_EQ(gpu->compute_efficiency, default_compute_efficiency);
    EXPECT_EQ(gpu->memory_efficiency, default_memory_efficiency);
    EXPECT_EQ(gpu->step_overhead_s, default_step_overhead_s);
    // Only the Hopper GPUs hold less of their benchmark rates than the reference A100 (fitted on
    // the fidelity set for the H100; the H200 has the same chip and power).
    const bool hopper = name == "h100" || name == "h200";
    EXPECT_EQ(gpu->sustained_share, hopper ? 0.6595 : 1.0);
  }
}

// Every datasheet figure in a built-in file carries its citation.
TEST(GpuSpec, BuiltinFilesCiteEveryFigure) {
  for (const auto& builtin : detail::builtin_gpu_texts()) {
    SCOPED_TRACE(std::string(builtin.file));
    const auto doc = nlohmann::json::parse(builtin.text);
    ASSERT_TRUE(doc.contains("source"));
    for (const char* field : {"peak_bf16_flops", "memory_bandwidth_bytes_per_s", "memory_bytes",
                              "link_bandwidth_bytes_per_s"}) {
      ASSERT_TRUE(doc.contains(field)) << field;
      ASSERT_TRUE(doc["source"].contains(field)) << field;
      EXPECT_GT(doc["source"][field].get<std::string>().size(), 20u) << field;
    }
  }
}

TEST(GpuSpec, DatasheetFigures) {
  const auto h100 = *builtin_gpu("h100");
  EXPECT_EQ(h100.peak_bf16_flops, 989.4e12);
  EXPECT_EQ(h100.memory_bandwidth_bytes_per_s, 3.35e12);
  EXPECT_EQ(h100.memory_bytes, 81559ull << 20);
  EXPECT_EQ(h100.link_bandwidth_bytes_per_s, 450e9);
  const auto h200 = *builtin_gpu("h200");
  EXPECT_EQ(h200.memory_bandwidth_bytes_per_s, 4.8e12);
  EXPECT_EQ(h200.memory_bytes, 143771ull << 20);
  const auto a100 = *builtin_gpu("a100-80g");
  EXPECT_EQ(a100.peak_bf16_flops, 312e12);
  EXPECT_EQ(a100.memory_bandwidth_bytes_per_s, 2.039e12);
  EXPECT_EQ(builtin_gpu("a100-40g")->memory_bandwidth_bytes_per_s, 1.555e12);
  EXPECT_EQ(builtin_gpu("l40s")->peak_bf16_flops, 362.05e12);
  EXPECT_EQ(builtin_gpu("rtx4090")->memory_bandwidth_bytes_per_s, 1008e9);
}

TEST(GpuSpec, OptionalFieldsAndOverrides) {
  const auto gpu = parse_gpu_spec(minimal_gpu, "cards/my-card.json");
  ASSERT_TRUE(gpu.has_value()) << gpu.error();
  EXPECT_EQ(gpu->name, "my-card");
  EXPECT_EQ(gpu->memory_bytes, 16ull << 30);
  EXPECT_EQ(gpu->compute_efficiency, default_compute_efficiency);

  const auto tuned = parse_gpu_spec(
      replaced(minimal_gpu, "\"memory_bytes\": 17179869184",
               R"("memory_bytes": "80 GB", "name": "tuned", "compute_efficiency": 0.45,
                  "memory_efficiency": 1, "step_overhead_s": 0, "source": {"x": "y"})"),
      "gpu.json");
  ASSERT_TRUE(tuned.has_value()) << tuned.error();
  EXPECT_EQ(tuned->name, "tuned");
  EXPECT_EQ(tuned->memory_bytes, 80'000'000'000u);
  EXPECT_EQ(tuned->compute_efficiency, 0.45);
  EXPECT_EQ(tuned->memory_efficiency, 1.0);
  EXPECT_EQ(tuned->step_overhead_s, 0.0);
}

TEST(GpuSpec, BadBandwidthIsAnError) {
  EXPECT_EQ(gpu_parse_error(replaced(minimal_gpu, "\"memory_bandwidth_bytes_per_s\": 1e12",
                                 "\"memory_bandwidth_bytes_per_s\": 0")),
            "gpu.json: field 'memory_bandwidth_bytes_per_s': expected bytes/s in [1e10, 1e14] (an "
            "H100 SXM: 3.35e12), got number 0");
  EXPECT_EQ(gpu_parse_error(replaced(minimal_gpu, "\"link_bandwidth_bytes_per_s\": 32e9",
                                 "\"link_bandwidth_bytes_per_s\": -32e9")),
            "gpu.json: field 'link_bandwidth_bytes_per_s': expected bytes/s in [1e9, 1e13] (NVLink "
            "4: 4.5e11 each way), got number -32000000000.0");
  EXPECT_EQ(gpu_parse_error(replaced(minimal_gpu, "\"peak_bf16_flops\": 100e12",
                                 "\"peak_bf16_flops\": \"fast\"")),
            "gpu.json: field 'peak_bf16_flops': expected FLOP/s in [1e12, 1e17] (an H100 SXM: "
            "9.89e14), got string \"fast\"");
}

// Figures no GPU has made step times infinite or zero: a bandwidth of 1e-300 printed TTFT inf
// and TPOT -nan with exit 0, and hung the GUI's latency panel.
TEST(GpuSpec, FiguresOutsideAnyGpuAreRefused) {
  const std::pair<const char*, const char*> beyond[] = {
      {"\"memory_bandwidth_bytes_per_s\": 1e12", "\"memory_bandwidth_bytes_per_s\": 1e-300"},
      {"\"memory_bandwidth_bytes_per_s\": 1e12", "\"memory_bandwidth_bytes_per_s\": 1e300"},
      {"\"peak_bf16_flops\": 100e12", "\"peak_bf16_flops\": 1e-300"},
      {"\"peak_bf16_flops\": 100e12", "\"peak_bf16_flops\": 1e20"},
      {"\"link_bandwidth_bytes_per_s\": 32e9", "\"link_bandwidth_bytes_per_s\": 1e-300"},
      {"\"memory_bytes\": 17179869184", "\"memory_bytes\": 1"},
      {"\"memory_bytes\": 17179869184", "\"memory_bytes\": \"1 EiB\""},
      {"\"peak_bf16_flops\": 100e12", "\"peak_bf16_flops\": 100e12, \"compute_efficiency\": 1e-300"},
      {"\"peak_bf16_flops\": 100e12", "\"peak_bf16_flops\": 100e12, \"memory_efficiency\": 0.001"},
  };
  for (const auto& [from, to] : beyond) {
    const auto error = gpu_parse_error(replaced(minimal_gpu, from, to));
    EXPECT_NE(error.find("expected "), std::string::npos) << to << ": " << error;
  }
  gpu_spec gpu = *builtin_gpu("h100");
  gpu.memory_bandwidth_bytes_per_s = 1e-300;
  ASSERT_TRUE(check_gpu_spec(gpu).has_value());
  EXPECT_NE(check_gpu_spec(gpu)->find("got 1e-300"), std::string::npos) << *check_gpu_spec(gpu);
}

TEST(GpuSpec, OtherErrorsAreNamed) {
  EXPECT_EQ(gpu_parse_error(replaced(minimal_gpu, "\"peak_bf16_flops\": 100e12,", "")),
            "gpu.json: field 'peak_bf16_flops': missing");
  EXPECT_EQ(gpu_parse_error(replaced(minimal_gpu, "\"memory_bytes\": 17179869184,", "")),
            "gpu.json: field 'memory_bytes': missing");
  EXPECT_EQ(gpu_parse_error(replaced(minimal_gpu, "\"memory_bytes\": 17179869184",
                                 "\"memory_bytes\": \"lots\"")),
            "gpu.json: field 'memory_bytes': expected a size in [1 GiB, 16 TiB] such as \"80 GiB\", "
            "got \"lots\"");
  EXPECT_EQ(gpu_parse_error(replaced(minimal_gpu, "\"peak_bf16_flops\": 100e12",
                                 "\"peak_bf16_flops\": 100e12, \"compute_efficency\": 0.5"))
                .rfind("gpu.json: field 'compute_efficency': unknown field (expected ", 0),
            0u);
  EXPECT_EQ(gpu_parse_error(replaced(minimal_gpu, "\"peak_bf16_flops\": 100e12",
                                 "\"peak_bf16_flops\": 100e12, \"memory_efficiency\": 1.5")),
            "gpu.json: field 'memory_efficiency': expected a number in [0.01, 1], got number 1.5");
  EXPECT_EQ(gpu_parse_error(replaced(minimal_gpu, "\"peak_bf16_flops\": 100e12",
                                 "\"peak_bf16_flops\": 100e12, \"sustained_share\": 0")),
            "gpu.json: field 'sustained_share': expected a number in [0.05, 1], got number 0");
  EXPECT_EQ(gpu_parse_error(replaced(minimal_gpu, "\"peak_bf16_flops\": 100e12",
                                 "\"peak_bf16_flops\": 100e12, \"step_overhead_s\": 400")),
            "gpu.json: field 'step_overhead_s': expected seconds in [0, 1], got number 400");
  EXPECT_EQ(gpu_parse_error("{oops").rfind("gpu.json: invalid JSON", 0), 0u);
  EXPECT_EQ(gpu_parse_error("3"), "gpu.json: expected a JSON object, got number");
}

TEST(GpuSpec, CheckCatchesBadStructs) {
  gpu_spec gpu = *builtin_gpu("h100");
  EXPECT_FALSE(check_gpu_spec(gpu).has_value());
  gpu.memory_bandwidth_bytes_per_s = -1;
  ASSERT_TRUE(check_gpu_spec(gpu).has_value());
  EXPECT_EQ(check_gpu_spec(gpu)->rfind("h100: field 'memory_bandwidth_bytes_per_s'", 0), 0u);
  gpu = *builtin_gpu("h100");
  gpu.memory_bytes = 0;
  EXPECT_EQ(check_gpu_spec(gpu),
            "h100: field 'memory_bytes': expected a size in [1 GiB, 16 TiB] such as \"80 GiB\", got 0");
}

TEST(GpuSpec, ResolveTakesANameOrAJsonPath) {
  EXPECT_EQ(resolve_gpu("l40s")->memory_bandwidth_bytes_per_s, 864e9);
  test::temp_dir dir;
  const auto path = dir.file("lab.json");
  test::write_text(path, minimal_gpu);
  const auto lab = resolve_gpu(path);
  ASSERT_TRUE(lab.has_value()) << lab.error();
  EXPECT_EQ(lab->name, "lab");
  const auto unknown = resolve_gpu("b200");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error(),
            "unknown GPU 'b200' (built-in: h100, h200, a100-80g, a100-40g, l40s, rtx4090; or a "
            "GPU file path ending in .json)");
}

}  // namespace
}  // namespace kvscope
