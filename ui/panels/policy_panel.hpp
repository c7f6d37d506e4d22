#pragma once
// The policy's family, the controller's four numbers (slider + spin box each), the level range
// and the presets. Only
// valid configs leave the panel: moving q8 above q4 carries q4 along (and back), min above max
// carries max, and the note under the controls says what moved and why.
#include <QWidget>

#include <array>

#include "common/meta_types.hpp"

class QComboBox;
class QGridLayout;
class QDoubleSpinBox;
class QLabel;
class QLayout;
class QSlider;

namespace kvscope::ui {

class FamilyBox;

class PolicyPanel : public QWidget {
  Q_OBJECT
 public:
  enum Field { q8Threshold, q4Threshold, hysteresis, ewmaAlpha };

  explicit PolicyPanel(QWidget* parent = nullptr);
  policy_config config() const { return config_; }
  QSlider* slider(Field f) const { return sliders_[f]; }
  QDoubleSpinBox* spinBox(Field f) const { return spins_[f]; }
  QComboBox* minLevelBox() const { return minBox_; }
  QComboBox* maxLevelBox() const { return maxBox_; }
  QComboBox* presetBox() const { return presetBox_; }
  FamilyBox* familyBox() const { return family_; }
  QString note() const;

 public Q_SLOTS:
  // Shows a config without emitting policyChanged (it came from the engine or a file).
  // Invalid configs are refused with the reason in the note.
  bool setConfig(const kvscope::policy_config& config);

 Q_SIGNALS:
  // A new valid config the user made.
  void policyChanged(const kvscope::policy_config& config);

 private:
  void buildFields(QGridLayout* grid, int firstRow);  // the four numbers, a row each
  QLayout* buildLevels();  // min … max level
  void onValue(Field f, double value);
  void onLevels(bool minMoved);
  void onPreset(int index);
  void onFamily(const QString& why);
  void showConfig();
  void commit(const QString& why);
  void showNote(const QString& text);
  float fieldValue(Field f) const;
  void setFieldValue(policy_config& c, Field f, float v) const;

  policy_config config_{};
  std::array<QSlider*, 4> sliders_{};
  std::array<QDoubleSpinBox*, 4> spins_{};
  std::array<QLabel*, 4> fieldLabels_{};
  QLabel* levelsLabel_ = nullptr;
  FamilyBox* family_ = nullptr;
  QComboBox* minBox_ = nullptr;
  QComboBox* maxBox_ = nullptr;
  QComboBox* presetBox_ = nullptr;
  QLabel* note_ = nullptr;
  QLabel* summary_ = nullptr;
  bool updating_ = false;
};

}  // namespace kvscope::ui
