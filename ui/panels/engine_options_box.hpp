#pragma once
// The engine a load runs on: the model preset, the GPU whose step times are modelled, the KV budget, the payload mode, and the paging
// options that shape what the block map shows (block size, the hot fp16 tail each sequence
// keeps, how many cold blocks the policy re-stores per step). Ranges, units and help come
// from core's option table, as kvscope-cli's flags do. Nothing here runs anything: the load
// panel applies these with its load when the user restarts.
#include <QGroupBox>

#include "engine/engine_options.hpp"
#include "util/expected.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace kvscope::ui {

class EngineOptionsBox : public QGroupBox {
  Q_OBJECT
 public:
  explicit EngineOptionsBox(QWidget* parent = nullptr);

  // Shows `options` (without emitting changed).
  void showOptions(const engine_options& options);
  // Writes the fields into `options`, or says which field is not valid.
  expected<void, QString> apply(engine_options& options) const;
  std::uint32_t blockSize() const;

  QComboBox* modelBox() const { return model_; }
  QComboBox* gpuBox() const { return gpu_; }
  QLineEdit* budgetEdit() const { return budget_; }
  QComboBox* payloadBox() const { return payload_; }
  QSpinBox* blockSizeBox() const { return blockSize_; }
  QSpinBox* tailTokensBox() const { return tailTokens_; }
  QSpinBox* migrationBatchBox() const { return migrationBatch_; }

 Q_SIGNALS:
  void changed();  // any field, as the user edits it

 private:
  void buildChoices();  // the model, GPU and payload boxes
  void updateHint();

  QComboBox* model_ = nullptr;
  QComboBox* gpu_ = nullptr;
  QLineEdit* budget_ = nullptr;
  QLabel* budgetHint_ = nullptr;
  QComboBox* payload_ = nullptr;
  QSpinBox* blockSize_ = nullptr;
  QSpinBox* tailTokens_ = nullptr;
  QSpinBox* migrationBatch_ = nullptr;
};

}  // namespace kvscope::ui
