#include "main_window.hpp"

#include <QStatusBar>
#include <QTimer>

#include <qcustomplot.h>

#include "demo_pressure.hpp"
#include "policy/policy_controller.hpp"

namespace kvscope::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), policy_(std::make_unique<policy_controller>()) {
  setWindowTitle(tr("kvscope"));
  plot_ = new QCustomPlot(this);
  plot_->addGraph();
  plot_->graph(0)->setName(tr("KV cache usage"));
  plot_->addGraph();
  plot_->graph(1)->setName(tr("EWMA"));
  plot_->graph(1)->setPen(QPen(Qt::darkRed));
  plot_->yAxis->setRange(0, 1);
  plot_->xAxis->setLabel(tr("step"));
  plot_->yAxis->setLabel(tr("pressure"));
  plot_->legend->setVisible(true);
  setCentralWidget(plot_);
  resize(1000, 600);

  timer_ = new QTimer(this);
  connect(timer_, &QTimer::timeout, this, &MainWindow::advance);
  timer_->start(33);
}

MainWindow::~MainWindow() = default;

void MainWindow::advance() {
  const double p = demo_pressure(step_);
  (void)policy_->observe(p);
  plot_->graph(0)->addData(step_, p);
  plot_->graph(1)->addData(step_, policy_->ewma());
  plot_->xAxis->setRange(std::max(0, step_ - 300), std::max(300, step_));
  plot_->replot(QCustomPlot::rpQueuedReplot);
  statusBar()->showMessage(tr("step %1  pressure %2  level %3")
                               .arg(step_)
                               .arg(p, 0, 'f', 3)
                               .arg(QString::fromLatin1(tag(policy_->level()).data())));
  ++step_;
}

}  // namespace kvscope::ui
