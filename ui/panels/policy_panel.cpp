#include "panels/policy_panel.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QStringList>
#include <QVBoxLayout>

#include <cmath>
#include <iterator>
#include <optional>
#include <utility>

#include "panels/family_box.hpp"
#include "common/option_widgets.hpp"
#include "run/option_table.hpp"
#include "common/theme.hpp"

namespace kvscope::ui {
namespace {

constexpr int sliderSteps = 1000;  // a slider moves in 0.001 steps of its field's unit

// Ranges and help are core's option table's, as kvscope-cli's flags give them; the labels are
// the panel's own, short enough for the side column.
struct FieldInfo {
  const char* flag;
  const char* label;
};
const FieldInfo fieldInfo[] = {
    {"q8-threshold", "q8 threshold"}, {"q4-threshold", "q4 threshold"}, {"hysteresis", "hysteresis"},
    {"ewma-alpha", "EWMA alpha"},     {"q3-threshold", "q3 threshold"},
};
static_assert(std::size(fieldInfo) == std::size_t{PolicyPanel::fieldCount});
// Top to bottom: the thresholds in the order the levels come, then the EWMA's own numbers.
constexpr PolicyPanel::Field rowOrder[] = {PolicyPanel::q8Threshold, PolicyPanel::q4Threshold,
                                           PolicyPanel::q3Threshold, PolicyPanel::hysteresis,
                                           PolicyPanel::ewmaAlpha};

// The field's range as kvscope-cli accepts it.
std::pair<double, double> fieldRange(const FieldInfo& info) {
  const option_spec* spec = find_option(info.flag);
  return spec ? std::pair{spec->min, spec->max} : std::pair{0.0, 1.0};  // the table has them all
}

// Keeps q8 <= q4 <= q3 and a q3 threshold's max level at q3 by carrying the fields the user did
// not move, q3 below q4 excepted (a config the panel emits must validate); says what moved, for
// the note.
QString carryAlong(policy_config& c, PolicyPanel::Field moved) {
  QStringList why;
  if (moved == PolicyPanel::q8Threshold && c.q4_threshold < c.q8_threshold) {
    c.q4_threshold = c.q8_threshold;
    why << QObject::tr("q4 threshold moved up with q8: q4_threshold must be >= q8_threshold.");
  }
  if (moved != PolicyPanel::q3Threshold && c.q3_threshold && *c.q3_threshold < c.q4_threshold) {
    c.q3_threshold = c.q4_threshold;
    why << QObject::tr("q3 threshold moved up with q4: q3_threshold must be >= q4_threshold.");
  }
  if (moved == PolicyPanel::q3Threshold && c.q3_threshold) {
    // q3 is the extra level: set below q4 it starts at q4, rather than pulling the reference
    // runtime's thresholds down (one arrow step up from "off" would otherwise zero them).
    if (*c.q3_threshold < c.q4_threshold) {
      c.q3_threshold = c.q4_threshold;
      why << QObject::tr("q3 threshold set to the q4 threshold: q3_threshold must be >= q4_threshold.");
    }
    if (c.max_level != precision::q3) {
      c.max_level = precision::q3;
      why << QObject::tr("max level moved to q3: a q3 threshold needs max_level q3.");
    }
  }
  if (moved != PolicyPanel::q8Threshold && c.q4_threshold < c.q8_threshold) {
    c.q8_threshold = c.q4_threshold;
    why << QObject::tr("q8 threshold moved down with q4: q4_threshold must be >= q8_threshold.");
  }
  return why.join(QLatin1Char(' '));
}

}  // namespace

PolicyPanel::PolicyPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("policyPanel"));
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(6, 4, 6, 4);
  auto* grid = new QGridLayout;
  grid->setHorizontalSpacing(6);
  grid->setVerticalSpacing(3);
  outer->addLayout(grid);

  presetBox_ = new QComboBox;
  presetBox_->setObjectName(QStringLiteral("preset"));
  for (std::string_view name : policy_preset_names()) {
    presetBox_->addItem(QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size())));
  }
  presetBox_->addItem(tr("custom"));
  presetBox_->setToolTip(tr("Start from a named preset; any change makes it 'custom'."));
  grid->addWidget(new QLabel(tr("preset")), 0, 0);
  grid->addWidget(presetBox_, 0, 1, 1, 2);

  family_ = new FamilyBox;
  family_->setObjectName(QStringLiteral("familyBox"));
  grid->addWidget(family_, 1, 0, 1, 3);
  const int levelsRow = buildFields(grid, 2);
  levelsLabel_ = new QLabel(tr("levels"));
  grid->addWidget(levelsLabel_, levelsRow, 0);
  grid->addLayout(buildLevels(), levelsRow, 1, 1, 2);
  grid->setColumnStretch(1, 1);

  summary_ = new QLabel;
  summary_->setWordWrap(true);
  summary_->setObjectName(QStringLiteral("policySummary"));
  outer->addWidget(summary_);
  note_ = new QLabel;
  note_->setWordWrap(true);
  note_->setObjectName(QStringLiteral("policyNote"));
  note_->setVisible(false);
  outer->addWidget(note_);
  outer->addStretch();

  connect(minBox_, &QComboBox::currentIndexChanged, this, [this] { onLevels(true); });
  connect(maxBox_, &QComboBox::currentIndexChanged, this, [this] { onLevels(false); });
  connect(presetBox_, &QComboBox::activated, this, &PolicyPanel::onPreset);
  connect(family_, &FamilyBox::changed, this, &PolicyPanel::onFamily);
  showConfig();
}

int PolicyPanel::buildFields(QGridLayout* grid, int firstRow) {
  int row = firstRow;
  for (const Field field : rowOrder) {
    const int f = field;
    const QString help = optionToolTip(fieldInfo[f].flag);
    auto* label = new QLabel(tr(fieldInfo[f].label));
    label->setToolTip(help);
    const auto [low, high] = fieldRange(fieldInfo[f]);
    auto* slider = new QSlider(Qt::Horizontal);
    slider->setRange(static_cast<int>(std::lround(low * sliderSteps)),
                     static_cast<int>(std::lround(high * sliderSteps)));
    slider->setPageStep(50);
    slider->setToolTip(help);
    slider->setMinimumWidth(90);
    auto* spin = new QDoubleSpinBox;
    spin->setRange(low, high);
    spin->setDecimals(3);
    spin->setSingleStep(0.01);
    // Typing "0.85" must not apply 0, 0.8 and 0.85 to the live run on the way: the value is
    // applied on Enter or when the box loses focus (arrows and a focused wheel apply at once).
    spin->setKeyboardTracking(false);
    spin->setToolTip(help);
    if (field == q3Threshold) spin->setSpecialValueText(tr("off"));  // 0: q3 stays off
    slider->setObjectName(QStringLiteral("slider%1").arg(f));
    spin->setObjectName(QStringLiteral("spin%1").arg(f));
    sliders_[static_cast<std::size_t>(f)] = slider;
    spins_[static_cast<std::size_t>(f)] = spin;
    fieldLabels_[static_cast<std::size_t>(f)] = label;
    grid->addWidget(label, row, 0);
    grid->addWidget(slider, row, 1);
    grid->addWidget(spin, row, 2);
    ++row;
    connect(slider, &QSlider::valueChanged, this,
            [this, field](int v) { onValue(field, v / static_cast<double>(sliderSteps)); });
    connect(spin, &QDoubleSpinBox::valueChanged, this, [this, field](double v) { onValue(field, v); });
  }
  return row;
}

QLayout* PolicyPanel::buildLevels() {
  minBox_ = levelComboBox("min-level");
  maxBox_ = levelComboBox("max-level");
  auto* levels = new QHBoxLayout;
  levels->addWidget(minBox_);
  levels->addWidget(new QLabel(QStringLiteral("…")));
  levels->addWidget(maxBox_);
  levels->addStretch();
  return levels;
}

QString PolicyPanel::note() const { return note_->text(); }

void PolicyPanel::showNote(const QString& text) {
  note_->setText(text);
  note_->setVisible(!text.isEmpty());  // an empty line would still take room in a short dock
}

float PolicyPanel::fieldValue(Field f) const {
  switch (f) {
    case q8Threshold: return config_.q8_threshold;
    case q4Threshold: return config_.q4_threshold;
    case hysteresis: return config_.hysteresis;
    case ewmaAlpha: return config_.ewma_alpha;
    case q3Threshold: return config_.q3_threshold.value_or(0.0f);
  }
  return 0;
}

void PolicyPanel::setFieldValue(policy_config& c, Field f, float v) const {
  switch (f) {
    case q8Threshold: c.q8_threshold = v; break;
    case q4Threshold: c.q4_threshold = v; break;
    case hysteresis: c.hysteresis = v; break;
    case ewmaAlpha: c.ewma_alpha = v; break;
    case q3Threshold: c.q3_threshold = v == 0.0f ? std::nullopt : std::optional<float>(v); break;  // 0: off
  }
}

void PolicyPanel::showConfig() {
  updating_ = true;
  for (int f = 0; f < fieldCount; ++f) {
    const double v = fieldValue(static_cast<Field>(f));
    const QSignalBlocker b1(sliders_[static_cast<std::size_t>(f)]), b2(spins_[static_cast<std::size_t>(f)]);
    sliders_[static_cast<std::size_t>(f)]->setValue(static_cast<int>(std::lround(v * sliderSteps)));
    spins_[static_cast<std::size_t>(f)]->setValue(v);
  }
  {
    const QSignalBlocker b1(minBox_), b2(maxBox_), b3(presetBox_);
    minBox_->setCurrentIndex(ordinal(config_.min_level));
    maxBox_->setCurrentIndex(ordinal(config_.max_level));
    int preset = presetBox_->count() - 1;  // custom
    const auto names = policy_preset_names();
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (policy_preset(names[i]) == config_) preset = static_cast<int>(i);
    }
    presetBox_->setCurrentIndex(preset);
  }
  family_->showConfig(config_);
  // The other families keep the controller's six fields but do not use them (docs/policy.md).
  const bool controller = config_.family == policy_family::ewma;
  for (std::size_t f = 0; f < fieldCount; ++f) {
    for (QWidget* w : {static_cast<QWidget*>(fieldLabels_[f]), static_cast<QWidget*>(sliders_[f]),
                       static_cast<QWidget*>(spins_[f])}) {
      w->setEnabled(controller);
    }
  }
  for (QWidget* w : {static_cast<QWidget*>(levelsLabel_), static_cast<QWidget*>(minBox_),
                     static_cast<QWidget*>(maxBox_)}) {
    w->setEnabled(controller);
  }
  // q3's threshold only where it can apply, with max level q3: the side column of a laptop
  // screen has no row to spare for a control most configs cannot use.
  const bool q3Row = config_.max_level == precision::q3;
  for (QWidget* w : {static_cast<QWidget*>(fieldLabels_[q3Threshold]), static_cast<QWidget*>(sliders_[q3Threshold]),
                     static_cast<QWidget*>(spins_[q3Threshold])}) {
    w->setVisible(q3Row);
  }
  showSummary();
  updating_ = false;
}

void PolicyPanel::showSummary() {
  if (config_.family != policy_family::ewma) {
    summary_->setText(tr("%1 (the controller's thresholds are kept but not used).")
                          .arg(QString::fromStdString(describe(config_))));
    return;
  }
  const double q8 = config_.q8_threshold, q4 = config_.q4_threshold, h = config_.hysteresis;
  QString text = tr("q8 when the EWMA ≥ %1 (back below %2), q4 when ≥ %3 (back below %4)")
                     .arg(q8, 0, 'f', 3).arg(std::max(0.0, q8 - h), 0, 'f', 3)
                     .arg(q4, 0, 'f', 3).arg(std::max(0.0, q4 - h), 0, 'f', 3);
  if (config_.q3_threshold) {
    const double q3 = *config_.q3_threshold;
    text += tr(", q3 when ≥ %1 (back below %2)").arg(q3, 0, 'f', 3).arg(std::max(0.0, q3 - h), 0, 'f', 3);
  }
  text += tr("; levels %1…%2.").arg(levelName(config_.min_level), levelName(config_.max_level));
  if (config_.max_level == precision::q3 && !config_.q3_threshold && config_.min_level != precision::q3) {
    text += tr(" q3 needs a q3 threshold.");
  }
  summary_->setText(text);
}

void PolicyPanel::commit(const QString& why) {
  showNote(why);
  showConfig();
  if (const auto reason = validate(config_)) {  // cannot happen through the controls; say so if it does
    showNote(tr("Not applied: %1").arg(QString::fromStdString(*reason)));
    return;
  }
  Q_EMIT policyChanged(config_);
}

void PolicyPanel::onValue(Field f, double value) {
  if (updating_) return;
  const auto v = static_cast<float>(value);
  if (v == fieldValue(f)) return;
  policy_config next = config_;
  setFieldValue(next, f, v);
  const QString why = carryAlong(next, f);
  config_ = next;
  commit(why);
}

void PolicyPanel::onLevels(bool minMoved) {
  if (updating_) return;
  policy_config next = config_;
  next.min_level = precision_from_ordinal(minBox_->currentIndex());
  next.max_level = precision_from_ordinal(maxBox_->currentIndex());
  QString why;
  if (ordinal(next.min_level) > ordinal(next.max_level)) {
    if (minMoved) {
      next.max_level = next.min_level;
      why = tr("max level moved with min: min_level must be <= max_level (less compact).");
    } else {
      next.min_level = next.max_level;
      why = tr("min level moved with max: min_level must be <= max_level (less compact).");
    }
  }
  if (next.q3_threshold && next.max_level != precision::q3) {
    next.q3_threshold.reset();
    why += (why.isEmpty() ? QString() : QStringLiteral(" ")) +
           tr("q3 threshold off: a q3 threshold needs max_level q3.");
  }
  config_ = next;
  commit(why);
}

void PolicyPanel::onFamily(const QString& why) {
  if (updating_) return;
  family_->applyTo(config_);
  commit(why);
}

void PolicyPanel::onPreset(int index) {
  const auto names = policy_preset_names();
  if (index < 0 || static_cast<std::size_t>(index) >= names.size()) return;  // "custom"
  config_ = *policy_preset(names[static_cast<std::size_t>(index)]);
  commit(tr("Preset '%1' loaded.").arg(presetBox_->itemText(index)));
}

bool PolicyPanel::setConfig(const policy_config& config) {
  if (const auto reason = validate(config)) {
    showNote(tr("Refused: %1").arg(QString::fromStdString(*reason)));
    return false;
  }
  config_ = config;
  showConfig();
  return true;
}

}  // namespace kvscope::ui
