#pragma once
// The policy family and its parameters (docs/policy.md, "Policy families"): the reference
// runtime's EWMA controller (docs/policy.md, "The reference runtime"), one static level, tiering
// by age, or sinks+recent. Only the chosen family's fields are shown; ranges and help are the
// option table's. Edits keep q8 age <= q4 age <= q3 age (q3: 0 = off) by carrying the others
// along, so only valid family settings leave the box.
#include <QWidget>

#include "policy/policy_config.hpp"

class QComboBox;
class QFormLayout;
class QSpinBox;

namespace kvscope::ui {

class FamilyBox : public QWidget {
  Q_OBJECT
 public:
  explicit FamilyBox(QWidget* parent = nullptr);

  // Shows `config`'s family and parameters without emitting changed.
  void showConfig(const policy_config& config);
  // Writes the family and its parameters into `config` (the EWMA fields are left alone).
  void applyTo(policy_config& config) const;

  QComboBox* familyBox() const { return family_; }
  QComboBox* fixedLevelBox() const { return fixedLevel_; }
  QSpinBox* q8AgeBox() const { return q8Age_; }
  QSpinBox* q4AgeBox() const { return q4Age_; }
  QSpinBox* q3AgeBox() const { return q3Age_; }
  QSpinBox* sinkBox() const { return sinks_; }
  QSpinBox* recentBox() const { return recent_; }

 Q_SIGNALS:
  // The user changed the family or one of its parameters; `why` says what moved along, if anything.
  void changed(const QString& why);

 private:
  void showRows();  // the rows of the chosen family
  void onAge(const QSpinBox* moved);

  QFormLayout* form_ = nullptr;
  QComboBox* family_ = nullptr;
  QComboBox* fixedLevel_ = nullptr;
  QSpinBox* q8Age_ = nullptr;
  QSpinBox* q4Age_ = nullptr;
  QSpinBox* q3Age_ = nullptr;  // 0: q3 off
  QSpinBox* sinks_ = nullptr;
  QSpinBox* recent_ = nullptr;
};

}  // namespace kvscope::ui
