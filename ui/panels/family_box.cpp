#include "panels/family_box.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QSignalBlocker>
#include <QSpinBox>

#include "common/option_widgets.hpp"

namespace kvscope::ui {
namespace {

QString familyHelp(policy_family f) {
  switch (f) {
    case policy_family::ewma:
      return QObject::tr("One level for every cold block, from the EWMA of the pressure and its thresholds "
                         "(the reference runtime's controller).");
    case policy_family::fixed: return QObject::tr("Every cold block at one fixed level, whatever the pressure.");
    case policy_family::age:
      return QObject::tr("Blocks go to q8 once this many tokens old, to q4 once older still (vLLM issue #49198).");
    case policy_family::sinks_recent:
      return QObject::tr("The first and last tokens of a sequence stay fp16, the rest at one level "
                         "(vLLM PR #41684).");
  }
  return {};
}

}  // namespace

FamilyBox::FamilyBox(QWidget* parent) : QWidget(parent) {
  form_ = new QFormLayout(this);
  form_->setContentsMargins(0, 0, 0, 0);
  form_->setVerticalSpacing(3);
  family_ = new QComboBox;
  family_->setObjectName(QStringLiteral("family"));
  for (const std::string& name : policy_family_names()) {
    const auto f = parse_policy_family(name);
    family_->addItem(QString::fromStdString(name), static_cast<int>(*f));
    family_->setItemData(family_->count() - 1, familyHelp(*f), Qt::ToolTipRole);
  }
  family_->setToolTip(optionToolTip("family"));
  fixedLevel_ = levelComboBox("fixed-level");
  q8Age_ = optionSpinBox("q8-age-tokens");
  q4Age_ = optionSpinBox("q4-age-tokens");
  sinks_ = optionSpinBox("sink-tokens");
  recent_ = optionSpinBox("recent-tokens");
  form_->addRow(tr("family"), family_);
  form_->addRow(tr("level"), fixedLevel_);
  form_->addRow(tr("q8 from age"), q8Age_);
  form_->addRow(tr("q4 from age"), q4Age_);
  form_->addRow(tr("fp16 sinks"), sinks_);
  form_->addRow(tr("fp16 recent"), recent_);

  connect(family_, &QComboBox::currentIndexChanged, this, [this] {
    showRows();
    Q_EMIT changed(QString());
  });
  connect(fixedLevel_, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT changed(QString()); });
  connect(q8Age_, &QSpinBox::valueChanged, this, [this] { onAge(true); });
  connect(q4Age_, &QSpinBox::valueChanged, this, [this] { onAge(false); });
  for (QSpinBox* box : {sinks_, recent_}) {
    connect(box, &QSpinBox::valueChanged, this, [this] { Q_EMIT changed(QString()); });
  }
  showConfig(policy_config{});
}

void FamilyBox::showConfig(const policy_config& config) {
  {
    const QSignalBlocker b1(family_), b2(fixedLevel_), b3(q8Age_), b4(q4Age_), b5(sinks_), b6(recent_);
    family_->setCurrentIndex(family_->findData(static_cast<int>(config.family)));
    fixedLevel_->setCurrentIndex(ordinal(config.fixed_level));
    q8Age_->setValue(static_cast<int>(config.q8_age_tokens));
    q4Age_->setValue(static_cast<int>(config.q4_age_tokens));
    sinks_->setValue(static_cast<int>(config.sink_tokens));
    recent_->setValue(static_cast<int>(config.recent_tokens));
  }
  showRows();
}

void FamilyBox::applyTo(policy_config& config) const {
  config.family = static_cast<policy_family>(family_->currentData().toInt());
  config.fixed_level = precision_from_ordinal(fixedLevel_->currentIndex());
  config.q8_age_tokens = static_cast<std::uint32_t>(q8Age_->value());
  config.q4_age_tokens = static_cast<std::uint32_t>(q4Age_->value());
  config.sink_tokens = static_cast<std::uint32_t>(sinks_->value());
  config.recent_tokens = static_cast<std::uint32_t>(recent_->value());
}

void FamilyBox::showRows() {
  const auto f = static_cast<policy_family>(family_->currentData().toInt());
  form_->setRowVisible(fixedLevel_, f == policy_family::fixed || f == policy_family::sinks_recent);
  form_->setRowVisible(q8Age_, f == policy_family::age);
  form_->setRowVisible(q4Age_, f == policy_family::age);
  form_->setRowVisible(sinks_, f == policy_family::sinks_recent);
  form_->setRowVisible(recent_, f == policy_family::sinks_recent);
}

void FamilyBox::onAge(bool q8Moved) {
  QString why;
  if (q4Age_->value() < q8Age_->value()) {
    QSpinBox* other = q8Moved ? q4Age_ : q8Age_;
    const QSignalBlocker block(other);
    other->setValue(q8Moved ? q8Age_->value() : q4Age_->value());
    why = q8Moved ? tr("q4 age moved up with q8: q4_age_tokens must be >= q8_age_tokens.")
                  : tr("q8 age moved down with q4: q4_age_tokens must be >= q8_age_tokens.");
  }
  Q_EMIT changed(why);
}

}  // namespace kvscope::ui
