#include "run_option_flags.hpp"

#include <CLI/CLI.hpp>

#include "run/calibration_fit.hpp"

namespace kvscope::cli {

void run_option_flags::add_to(CLI::App& cmd, unsigned place, const engine_options& defaults) {
  if (place & (in_simulate | in_bench)) {
    cmd.add_option("--calibration", calibration_path_,
                   "Roofline efficiencies and step overhead fitted by `kvscope-cli calibrate` "
                   "(options typed explicitly win)")
        ->check(CLI::ExistingFile);
  }
  for (const auto& spec : option_table()) {
    if (!(spec.places & place)) continue;
    auto& t = typed_.emplace_back(typed{&spec, {}, false});
    if (spec.negated) {
      cmd.add_flag("--no-" + std::string(spec.flag), t.given, std::string(spec.help));
    } else {
      cmd.add_option("--" + std::string(spec.flag), t.text, option_help(spec, defaults))
          ->type_name(spec.kind == option_kind::choice ? "WORD"
                      : spec.kind == option_kind::byte_size ? "SIZE"
                      : spec.kind == option_kind::count    ? "INT"
                      : spec.kind == option_kind::text     ? (spec.choices ? "NAME|FILE" : "TEXT")
                                                            : "NUMBER");
    }
  }
}

expected<void, std::string> run_option_flags::apply(engine_options& options) const {
  std::string calibrated_gpu;
  if (!calibration_path_.empty()) {
    const auto c = read_calibration(calibration_path_);
    if (!c) return unexpected{"--calibration: " + c.error()};
    apply_calibration(options, *c);
    calibrated_gpu = c->gpu;
  }
  for (const auto& t : typed_) {
    if (t.spec->negated) {
      if (t.given) t.spec->set(options, false);
      continue;
    }
    if (t.text.empty()) continue;
    auto value = parse_option_text(*t.spec, t.text);
    if (!value) return unexpected{value.error()};
    t.spec->set(options, *value);
  }
  if (!calibrated_gpu.empty() && options.gpu != calibrated_gpu) {
    return unexpected{"--calibration: fitted on GPU '" + calibrated_gpu + "', but --gpu is '" +
                      options.gpu + "'"};
  }
  return {};
}

expected<std::optional<calibration>, std::string> run_option_flags::calibration_given() const {
  if (calibration_path_.empty()) return std::optional<calibration>{};
  auto c = read_calibration(calibration_path_);
  if (!c) return unexpected{"--calibration: " + c.error()};
  return std::optional<calibration>{std::move(*c)};
}

std::vector<std::string> run_option_flags::given() const {
  std::vector<std::string> out;
  for (const auto& t : typed_) {
    if (t.spec->negated) {
      if (t.given) out.push_back("--no-" + std::string(t.spec->flag));
    } else if (!t.text.empty()) {
      out.push_back("--" + std::string(t.spec->flag) + " " + t.text);
    }
  }
  return out;
}

std::vector<named_path> run_option_flags::file_inputs() const {
  std::vector<named_path> out{{"--calibration", calibration_path_}};
  for (const auto& t : typed_) {
    if (option_names_file(*t.spec, t.text)) out.push_back({"--" + std::string(t.spec->flag), t.text});
  }
  return out;
}

std::string with_flag_name(const std::string& message) {
  const auto colon = message.find(": ");
  if (colon == std::string::npos) return message;
  const auto* spec = find_option(std::string_view(message).substr(0, colon));
  if (!spec || spec->key.empty()) return message;
  return "--" + std::string(spec->flag) + message.substr(colon);
}

}  // namespace kvscope::cli
