#include "panels/load_panel.hpp"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <climits>
#include <cmath>

#include "common/utf8_text.hpp"
#include "panels/engine_options_box.hpp"
#include "load/generator_spec.hpp"
#include "load/open_load.hpp"
#include "common/run_setup.hpp"

namespace kvscope::ui {
namespace {

QDoubleSpinBox* doubleBox(double lo, double hi, int decimals, double value, const QString& tip) {
  auto* b = new QDoubleSpinBox;
  b->setRange(lo, hi);
  b->setDecimals(decimals);
  b->setValue(value);
  b->setToolTip(tip);
  b->setKeyboardTracking(false);
  b->setMinimumWidth(50);  // not the width of the largest value: the dock is narrow
  return b;
}

QSpinBox* intBox(int lo, int hi, int value, const QString& tip) {
  auto* b = new QSpinBox;
  b->setRange(lo, hi);
  b->setValue(value);
  b->setToolTip(tip);
  b->setKeyboardTracking(false);
  b->setMinimumWidth(50);
  return b;
}

}  // namespace

LoadPanel::LoadPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("loadPanel"));
  // The settings scroll (the dock is short); the buttons, progress and message below them stay
  // in view.
  auto* top = new QVBoxLayout(this);
  top->setContentsMargins(0, 0, 0, 0);
  top->setSpacing(2);
  auto* form = new QWidget;
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  top->addWidget(scroll, 1);
  auto* outer = new QVBoxLayout(form);
  outer->setContentsMargins(6, 4, 6, 4);
  outer->setSpacing(4);
  engine_ = new EngineOptionsBox;
  outer->addWidget(engine_);
  outer->addWidget(buildLoadBox());
  outer->addStretch();
  scroll->setWidget(form);
  top->addLayout(buildFooter());
  wire();
  showRun(demoSession());
}

QGroupBox* LoadPanel::buildLoadBox() {
  // The load: generated or a trace.
  auto* loadBox = new QGroupBox(tr("Load"));
  auto* loadLayout = new QVBoxLayout(loadBox);
  loadLayout->setContentsMargins(6, 4, 6, 4);
  auto* sources = new QHBoxLayout;
  generated_ = new QRadioButton(tr("generated"));
  trace_ = new QRadioButton(tr("trace file"));
  auto* group = new QButtonGroup(this);
  group->addButton(generated_);
  group->addButton(trace_);
  generated_->setChecked(true);
  sources->addWidget(generated_);
  sources->addWidget(trace_);
  sources->addStretch();
  loadLayout->addLayout(sources);
  loadLayout->addWidget(buildGenerator());
  loadLayout->addWidget(buildTraceBox());
  return loadBox;
}

QWidget* LoadPanel::buildGenerator() {
  generatorBox_ = new QWidget;
  auto* gen = new QFormLayout(generatorBox_);
  gen->setContentsMargins(0, 0, 0, 0);
  gen->setVerticalSpacing(3);
  rate_ = doubleBox(0.01, 1e6, 2, 6, tr("Mean arrivals per simulated second"));
  rate_->setObjectName(QStringLiteral("rate"));
  burstiness_ = doubleBox(0.01, 1000, 2, 1, tr("Shape of the gaps between arrivals: 1 = Poisson; "
                                               "below 1 burstier, above 1 more regular"));
  duration_ = doubleBox(0, 1e9, 1, 25, tr("Stop generating at this simulated time (0 = no limit; "
                                          "then give a count)"));
  duration_->setSuffix(tr(" s"));
  duration_->setSpecialValueText(tr("no limit"));
  count_ = intBox(0, INT_MAX, 0, tr("Stop after this many requests (0 = no limit; then give a duration)"));
  count_->setSpecialValueText(tr("no limit"));
  prefixGroups_ = intBox(0, 1 << 24, 0, tr("Requests share the prompt prefix of one of this many groups "
                                           "(popular groups more often), which the prefix cache can "
                                           "share (0 = none)"));
  prefixGroups_->setSpecialValueText(tr("none"));
  prefixLen_ = intBox(1, 1 << 24, 256, tr("Tokens of each group's shared prefix"));
  prefixLen_->setPrefix(tr("of "));
  prefixLen_->setSuffix(tr(" tokens"));
  seed_ = intBox(0, INT_MAX, 1, tr("Seed of the generated load and of the synthetic K/V data"));
  seed_->setObjectName(QStringLiteral("loadSeed"));
  const auto pair = [](QWidget* a, QWidget* b) {
    auto* w = new QWidget;
    auto* row = new QHBoxLayout(w);
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(4);
    row->addWidget(a, 1);
    row->addWidget(b, 1);
    return w;
  };
  gen->addRow(tr("arrivals /s"), rate_);
  gen->addRow(tr("burstiness"), burstiness_);
  gen->addRow(tr("prompt"), makeDistEditor(prompt_, tr("prompt")));
  gen->addRow(tr("output"), makeDistEditor(output_, tr("output")));
  gen->addRow(tr("stop after"), pair(duration_, count_));
  gen->addRow(tr("prefix groups"), pair(prefixGroups_, prefixLen_));
  gen->addRow(tr("seed"), seed_);
  spec_ = new QLineEdit;
  spec_->setReadOnly(true);
  spec_->setObjectName(QStringLiteral("spec"));
  spec_->setToolTip(tr("The same load for kvscope-cli: --load '<this>'"));
  gen->addRow(tr("as spec"), spec_);
  return generatorBox_;
}

QWidget* LoadPanel::buildTraceBox() {
  traceBox_ = new QWidget;
  auto* grid = new QGridLayout(traceBox_);
  grid->setContentsMargins(0, 0, 0, 0);
  path_ = new QLineEdit;
  path_->setPlaceholderText(tr("drop a trace on the window, or Open trace…"));
  path_->setToolTip(tr("Azure 2023/2024, BurstGPT, Mooncake, Vidur or kvscope JSONL trace"));
  open_ = new QPushButton(tr("Open trace…"));
  open_->setToolTip(tr("Choose a trace and run it (Ctrl+O)"));
  format_ = new QComboBox;
  for (const std::string& name : load_format_names()) format_->addItem(QString::fromStdString(name));
  format_->setToolTip(tr("Trace format; auto detects it from the first line"));
  format_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  format_->setMinimumContentsLength(6);
  skipBadRows_ = new QCheckBox(tr("skip bad rows"));
  skipBadRows_->setToolTip(tr("Skip malformed rows (and say how many) instead of refusing the trace"));
  grid->addWidget(path_, 0, 0, 1, 3);
  grid->addWidget(open_, 1, 0);
  grid->addWidget(format_, 1, 1);
  grid->addWidget(skipBadRows_, 1, 2);
  return traceBox_;
}

QLayout* LoadPanel::buildFooter() {
  auto* footer = new QVBoxLayout;
  footer->setContentsMargins(6, 0, 6, 4);
  footer->setSpacing(3);
  auto* actions = new QHBoxLayout;
  apply_ = new QPushButton(tr("Restart with these settings"));
  apply_->setObjectName(QStringLiteral("applyLoad"));
  apply_->setToolTip(tr("Build a new engine from the settings above; the current run goes on "
                        "until the new one is ready, and stays if they cannot run"));
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setVisible(false);
  actions->addWidget(apply_);
  actions->addWidget(cancel_);
  actions->addStretch();
  footer->addLayout(actions);
  progress_ = new QProgressBar;
  progress_->setRange(0, 1000);
  progress_->setTextVisible(false);
  progress_->setMaximumHeight(8);
  progress_->setVisible(false);
  footer->addWidget(progress_);
  message_ = new QLabel;
  message_->setObjectName(QStringLiteral("loadMessage"));
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  footer->addWidget(message_);
  return footer;
}

void LoadPanel::wire() {
  for (QDoubleSpinBox* b : {rate_, burstiness_, duration_, prompt_.a, prompt_.b, output_.a, output_.b}) {
    connect(b, &QDoubleSpinBox::valueChanged, this, &LoadPanel::updatePreview);
  }
  for (QSpinBox* b : {count_, prefixGroups_, prefixLen_}) {
    connect(b, &QSpinBox::valueChanged, this, &LoadPanel::updatePreview);
  }
  connect(seed_, &QSpinBox::valueChanged, this, [this](int v) {
    updatePreview();
    Q_EMIT seedChanged(static_cast<std::uint64_t>(v));
  });
  for (DistEditor* d : {&prompt_, &output_}) {
    connect(d->kind, &QComboBox::currentIndexChanged, this, [this, d] {
      updateDistLabels(*d);
      updatePreview();
    });
  }
  connect(engine_, &EngineOptionsBox::changed, this, &LoadPanel::updatePreview);  // the spec's block size
  connect(generated_, &QRadioButton::toggled, this, &LoadPanel::updateSourceEnabled);
  connect(open_, &QPushButton::clicked, this, &LoadPanel::openTraceRequested);
  connect(apply_, &QPushButton::clicked, this, &LoadPanel::applyRequested);
  connect(cancel_, &QPushButton::clicked, this, &LoadPanel::cancelRequested);
}

QWidget* LoadPanel::makeDistEditor(DistEditor& d, const QString& what) {
  auto* w = new QWidget;
  auto* row = new QHBoxLayout(w);
  row->setContentsMargins(0, 0, 0, 0);
  row->setSpacing(4);
  d.kind = new QComboBox;
  for (const QString& k : {tr("fixed"), tr("uniform"), tr("lognormal"), tr("zipf")}) d.kind->addItem(k);
  d.kind->setToolTip(tr("Distribution of %1 lengths in tokens").arg(what));
  d.kind->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  d.kind->setMinimumContentsLength(5);
  d.a = doubleBox(0, 1 << 24, 1, 512, QString());
  d.b = doubleBox(0, 1 << 24, 2, 0, QString());
  row->addWidget(d.kind);
  row->addWidget(d.a, 3);
  row->addWidget(d.b, 2);
  updateDistLabels(d);
  return w;
}

void LoadPanel::updateDistLabels(DistEditor& d) {
  // The parameter names go inside the boxes (as prefixes) to keep the rows narrow.
  static const char* const names[4][2] = {{"", ""}, {"mean ", "± "}, {"median ", "σ "}, {"s ", "max "}};
  static const char* const tips[4][2] = {
      {"Always this many tokens", ""},
      {"Mean length", "Range ratio: lengths are uniform in mean·(1 ± ratio), ratio in [0, 1]"},
      {"Median length", "Spread sigma: median·e^(sigma·Z), sigma in [0, 4]"},
      {"Exponent s: P(n) ∝ n^-s", "Largest length"}};
  const int k = std::max(0, d.kind->currentIndex());
  d.a->setPrefix(tr(names[k][0]));
  d.b->setPrefix(tr(names[k][1]));
  d.a->setToolTip(tr(tips[k][0]));
  d.b->setToolTip(tr(tips[k][1]));
  d.a->setDecimals(k == 3 ? 2 : 0);  // lengths are whole tokens; a Zipf exponent is not
  d.b->setDecimals(k == 3 ? 0 : 2);
  d.b->setVisible(k != 0);
}

expected<std::string, QString> LoadPanel::generatorSpec() const {
  generator_spec g;
  g.rate = rate_->value();
  g.burstiness = burstiness_->value();
  const auto dist = [](const DistEditor& d) {
    return length_dist{static_cast<length_dist::kind>(std::max(0, d.kind->currentIndex())), d.a->value(),
                       d.b->value()};
  };
  g.prompt = dist(prompt_);
  g.output = dist(output_);
  if (duration_->value() > 0) g.duration_s = duration_->value();
  if (count_->value() > 0) g.count = static_cast<std::uint64_t>(count_->value());
  g.seed = static_cast<std::uint64_t>(seed_->value());
  if (prefixGroups_->value() > 0) {
    g.prefix_groups = static_cast<std::uint32_t>(prefixGroups_->value());
    g.prefix_tokens = static_cast<std::uint32_t>(prefixLen_->value());
  }
  g.block_size = engine_->blockSize();  // prefixes are hashed per block, as the engine does
  // Through the parser, so every rule of the spec (ranges, duration or count) is checked once.
  const std::string text = to_string(g);
  const auto back = parse_generator_spec(text);
  if (!back) return unexpected{QString::fromStdString(back.error())};
  return text;
}

expected<run_description, QString> LoadPanel::run(const run_description& base, const QString& trace) const {
  run_description s = base;
  s.commands.clear();
  s.steps = 0;
  if (auto applied = engine_->apply(s.options); !applied) return unexpected{applied.error()};
  s.options.seed = static_cast<std::uint64_t>(seed_->value());
  if (!trace.isEmpty() || traceSelected()) {
    const QString path = trace.isEmpty() ? path_->text().trimmed() : trace;
    if (path.isEmpty()) return unexpected{tr("choose a trace file first (Open trace…)")};
    s.load_spec = path.toStdString();
    // A newly chosen file is detected afresh; the panel's format applies to the path it shows.
    s.format = trace.isEmpty()
                   ? parse_load_format(format_->currentText().toStdString()).value_or(load_format::automatic)
                   : load_format::automatic;
    s.skip_bad_rows = skipBadRows_->isChecked();
  } else {
    const auto spec = generatorSpec();
    if (!spec) return unexpected{spec.error()};
    s.load_spec = *spec;
    s.format = load_format::automatic;
    s.skip_bad_rows = false;
  }
  if (auto resolved = resolve_run_setup(s); !resolved) return unexpected{QString::fromStdString(resolved.error())};
  return s;
}

void LoadPanel::showRun(const run_description& run) {
  const QSignalBlocker blockSeed(seed_);
  engine_->showOptions(run.options);
  if (isGenerated(run)) {
    if (const auto g = parse_generator_spec(run.load_spec)) {
      rate_->setValue(g->rate);
      burstiness_->setValue(g->burstiness);
      for (auto [editor, dist] : {std::pair{&prompt_, g->prompt}, std::pair{&output_, g->output}}) {
        editor->kind->setCurrentIndex(static_cast<int>(dist.shape));
        editor->a->setValue(dist.a);
        editor->b->setValue(dist.b);
      }
      duration_->setValue(g->duration_s.value_or(0));
      count_->setValue(static_cast<int>(std::min<std::uint64_t>(g->count.value_or(0), INT_MAX)));
      prefixGroups_->setValue(static_cast<int>(g->prefix_groups));
      if (g->prefix_groups > 0) prefixLen_->setValue(static_cast<int>(g->prefix_tokens));
      seed_->setValue(static_cast<int>(std::min<std::uint64_t>(g->seed, INT_MAX)));
    }
    generated_->setChecked(true);
  } else {
    path_->setText(QString::fromStdString(run.load_spec));
    format_->setCurrentText(qs(format_name(run.format)));
    skipBadRows_->setChecked(run.skip_bad_rows);
    seed_->setValue(static_cast<int>(std::min<std::uint64_t>(run.options.seed, INT_MAX)));
    trace_->setChecked(true);
  }
  updateSourceEnabled();
  updatePreview();
}

bool LoadPanel::traceSelected() const { return trace_->isChecked(); }
QString LoadPanel::tracePath() const { return path_->text(); }

void LoadPanel::setSeed(std::uint64_t seed) {
  const QSignalBlocker block(seed_);
  seed_->setValue(static_cast<int>(std::min<std::uint64_t>(seed, INT_MAX)));
  updatePreview();
}

std::uint64_t LoadPanel::seed() const { return static_cast<std::uint64_t>(seed_->value()); }

void LoadPanel::updateSourceEnabled() {
  generatorBox_->setEnabled(generated_->isChecked());
  path_->setEnabled(trace_->isChecked());
  format_->setEnabled(trace_->isChecked());
  skipBadRows_->setEnabled(trace_->isChecked());
}

void LoadPanel::updatePreview() {
  const auto spec = generatorSpec();
  spec_->setText(spec ? QString::fromStdString(*spec) : tr("not valid: %1").arg(spec.error()));
  spec_->setCursorPosition(0);
}

void LoadPanel::showProgress(double fraction, const QString& text) {
  const bool busy = fraction >= 0;
  progress_->setVisible(busy);
  cancel_->setVisible(busy);
  apply_->setEnabled(!busy);
  open_->setEnabled(!busy);
  if (busy) {
    progress_->setValue(static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * 1000)));
    message_->setStyleSheet(QString());
    message_->setText(text);
  }
}

void LoadPanel::showMessage(const QString& text, bool error) {
  message_->setStyleSheet(error ? QStringLiteral("color: #c0392b") : QString());
  message_->setText(text);
}

QString LoadPanel::message() const { return message_->text(); }

QComboBox* LoadPanel::modelBox() const { return engine_->modelBox(); }
QLineEdit* LoadPanel::budgetEdit() const { return engine_->budgetEdit(); }
QComboBox* LoadPanel::payloadBox() const { return engine_->payloadBox(); }

}  // namespace kvscope::ui
