#pragma once
// The policy's family, the controller's numbers (slider + spin box each), the level range and
// the presets. Only valid configs leave the panel: moving q8 above q4 carries q4 along (and
// back); q4 above q3 carries q3, and q3 set below q4 starts at q4; a max level short of q3
// turns the q3 threshold off (its row is shown only with max level q3); min above max carries max. The note under the controls says
// what moved and why.
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
  // q3Threshold last: the others keep their numbers (and object names). 0 leaves q3 off.
  enum Field { q8Threshold, q4Threshold, hysteresis, ewmaAlpha, q3Threshold };
  static constexpr int fieldCount = 5;

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
  int buildFields(QGridLayout* grid, int firstRow);  // the numbers, a row each; the next free row
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
  void showSummary();

  policy_config config_{};
  std::array<QSlider*, fieldCount> sliders_{};
  std::array<QDoubleSpinBox*, fieldCount> spins_{};
  std::array<QLabel*, fieldCount> fieldLabels_{};
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
