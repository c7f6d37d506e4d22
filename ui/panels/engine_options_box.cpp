#include "panels/engine_options_box.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>
#include <climits>

#include "common/utf8_text.hpp"
#include "memory/model_shape.hpp"
#include "model/gpu_spec.hpp"
#include "common/option_widgets.hpp"
#include "run/option_table.hpp"
#include "common/run_setup.hpp"
#include "util/byte_size.hpp"

namespace kvscope::ui {
EngineOptionsBox::EngineOptionsBox(QWidget* parent) : QGroupBox(tr("Engine"), parent) {
  auto* form = new QFormLayout(this);
  form->setContentsMargins(6, 4, 6, 4);
  form->setVerticalSpacing(3);
  buildChoices();
  budget_ = new QLineEdit;
  budget_->setObjectName(QStringLiteral("budget"));
  budget_->setToolTip(tr("KV cache budget: 16MiB, 2GiB, 1.5GB or a byte count; auto sizes it as vLLM "
                         "does on the GPU chosen"));
  budgetHint_ = new QLabel;
  budgetHint_->setWordWrap(true);
  blockSize_ = optionSpinBox("block-size");
  tailTokens_ = optionSpinBox("tail-tokens");
  migrationBatch_ = optionSpinBox("migration-batch");
  form->addRow(tr("model"), model_);
  form->addRow(tr("GPU"), gpu_);
  form->addRow(tr("budget"), budget_);
  form->addRow(QString(), budgetHint_);
  form->addRow(tr("payload"), payload_);
  form->addRow(tr("block size"), blockSize_);
  form->addRow(tr("fp16 tail"), tailTokens_);
  form->addRow(tr("re-stored per step"), migrationBatch_);

  connect(budget_, &QLineEdit::textChanged, this, &EngineOptionsBox::changed);
  for (QComboBox* box : {model_, gpu_, payload_}) {
    connect(box, &QComboBox::currentIndexChanged, this, &EngineOptionsBox::changed);
  }
  for (QSpinBox* box : {blockSize_, tailTokens_, migrationBatch_}) {
    connect(box, &QSpinBox::valueChanged, this, &EngineOptionsBox::changed);
  }
  connect(this, &EngineOptionsBox::changed, this, &EngineOptionsBox::updateHint);
  showOptions(demoSession().options);
}

void EngineOptionsBox::buildChoices() {
  model_ = new QComboBox;
  model_->setObjectName(QStringLiteral("model"));
  for (const model_preset& m : model_presets()) {
    model_->addItem(qs(m.name));
    model_->setItemData(model_->count() - 1,
                        tr("%1 layers × %2 KV heads × head dim %3: %4 KiB of fp16 K/V per token")
                            .arg(m.shape.layers).arg(m.shape.kv_heads).arg(m.shape.head_dim)
                            .arg(static_cast<double>(m.shape.fp16_bytes_per_token()) / 1024.0, 0, 'f', 1),
                        Qt::ToolTipRole);
  }
  model_->setToolTip(tr("The model whose KV cache is simulated (its layers, KV heads and head size)"));
  // No GPU: steps take the linear timing model's time. A GPU: the roofline model on its
  // datasheet numbers, so latencies and goodput are that GPU's (docs/timing-model.md).
  gpu_ = new QComboBox;
  gpu_->setObjectName(QStringLiteral("gpu"));
  gpu_->addItem(tr("none (linear timing)"), QString());
  for (std::string_view name : builtin_gpu_names()) {
    gpu_->addItem(qs(name), qs(name));
    if (const auto spec = builtin_gpu(name)) {
      gpu_->setItemData(gpu_->count() - 1, QString::fromStdString(spec->description), Qt::ToolTipRole);
    }
  }
  gpu_->setToolTip(tr("The GPU whose step times are modelled (roofline on its datasheet numbers)"));
  payload_ = new QComboBox;
  payload_->setObjectName(QStringLiteral("payload"));
  payload_->addItem(tr("data — real K/V bytes, error measured"), QStringLiteral("data"));
  payload_->addItem(tr("accounting — sizes only (big models)"), QStringLiteral("accounting"));
  payload_->setToolTip(tr("data: blocks hold real bytes that are really quantized, and the error "
                          "is measured; accounting: only tables and byte counts, so any model size "
                          "fits in memory"));
  for (QComboBox* box : {model_, gpu_, payload_}) {
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(12);
  }
}

void EngineOptionsBox::showOptions(const engine_options& options) {
  {
    const QSignalBlocker b1(model_), b2(budget_), b3(payload_), b4(blockSize_), b5(tailTokens_), b6(migrationBatch_),
        b7(gpu_);
    const int m = model_->findText(QString::fromStdString(options.model));
    if (m >= 0) model_->setCurrentIndex(m);
    const QString gpu = QString::fromStdString(options.gpu);
    if (gpu_->findData(gpu) < 0) gpu_->addItem(gpu, gpu);  // a GPU file a session names
    gpu_->setCurrentIndex(gpu_->findData(gpu));
    budget_->setText(options.budget_bytes == 0 ? QStringLiteral("auto")
                                               : QString::fromStdString(budgetText(options.budget_bytes)));
    payload_->setCurrentIndex(options.payload == payload_mode::data ? 0 : 1);
    const auto shown = [](std::uint64_t v) { return static_cast<int>(std::min<std::uint64_t>(v, INT_MAX)); };
    blockSize_->setValue(shown(options.block_size));
    tailTokens_->setValue(shown(options.tail_tokens));
    migrationBatch_->setValue(shown(options.migration_batch));
  }
  updateHint();
}

expected<void, QString> EngineOptionsBox::apply(engine_options& options) const {
  const QString gpu = gpu_->currentData().toString();
  const bool automatic = budget_->text().trimmed() == QLatin1String("auto");
  if (automatic && gpu.isEmpty()) return unexpected{tr("budget: auto needs a GPU to size the cache on")};
  const auto budget = automatic ? std::optional<std::uint64_t>(0) : parse_byte_size(budget_->text().trimmed().toStdString());
  if (!budget) return unexpected{tr("budget: '%1' is not a size (e.g. 16MiB, 2GiB, auto)").arg(budget_->text())};
  options.model = model_->currentText().toStdString();
  options.gpu = gpu.toStdString();
  options.budget_bytes = *budget;
  options.payload = payload_->currentData().toString() == QLatin1String("data") ? payload_mode::data
                                                                                 : payload_mode::accounting;
  options.block_size = static_cast<std::uint32_t>(blockSize_->value());
  options.tail_tokens = static_cast<decltype(options.tail_tokens)>(tailTokens_->value());
  options.migration_batch = static_cast<decltype(options.migration_batch)>(migrationBatch_->value());
  return {};
}

std::uint32_t EngineOptionsBox::blockSize() const { return static_cast<std::uint32_t>(blockSize_->value()); }

void EngineOptionsBox::updateHint() {
  const auto budget = parse_byte_size(budget_->text().trimmed().toStdString());
  const auto shape = find_model_shape(model_->currentText().toStdString());
  if (budget_->text().trimmed() == QLatin1String("auto") && !gpu_->currentData().toString().isEmpty()) {
    budgetHint_->setText(tr("sized as vLLM sizes it on %1").arg(gpu_->currentText()));
    return;
  }
  if (!budget || !shape) {
    budgetHint_->setText(tr("<span style='color:#c0392b'>not a size</span>"));
    return;
  }
  const std::uint64_t frame = shape->frame_bytes(blockSize());
  budgetHint_->setText(tr("≈ %1 frames of %2 (one fp16 block of %3 tokens each)")
                           .arg(*budget / frame)
                           .arg(QString::fromStdString(format_byte_size(frame)))
                           .arg(blockSize()));
}

}  // namespace kvscope::ui
