// Metrics: a registry of metric families rendered in the Prometheus text
// exposition format (version 0.0.4), for GET /metrics.
//
// A family has a name, a help text and label names; WithLabels() returns the
// child for one tuple of label values, created on first use and kept for the
// registry's lifetime, so a caller may keep the reference and update it
// without any lookup. Families render in registration order, children sorted
// by label values; a family without labels renders its single child even
// before the first update.
//
// Thread-safety: registration, WithLabels(), updates and Render() are all
// safe to call concurrently. References returned stay valid for the
// registry's lifetime.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "service/http/metric_values.h"

namespace deltacommit::http {

using LabelValues = std::vector<std::string>;

class Metrics {
 public:
  template <typename Value>
  class Family;

  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // REQUIRES: `name` matches [a-zA-Z_:][a-zA-Z0-9_:]* and is not registered
  // yet; label names match [a-zA-Z_][a-zA-Z0-9_]* ("le" not for histograms).
  Family<Counter>& AddCounter(std::string name, std::string help,
                              std::vector<std::string> label_names = {});
  Family<Gauge>& AddGauge(std::string name, std::string help,
                          std::vector<std::string> label_names = {});
  // REQUIRES: `upper_bounds` finite and strictly ascending.
  Family<Histogram>& AddHistogram(std::string name, std::string help,
                                  std::vector<std::string> label_names,
                                  std::vector<double> upper_bounds);

  // Every family, in the text exposition format.
  std::string Render() const;

  // What the family types share; public for Family<> only.
  class FamilyBase;

 private:
  template <typename Value>
  Family<Value>& Register(std::unique_ptr<Family<Value>> family);

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<FamilyBase>> families_;  // guarded by mu_
};

class Metrics::FamilyBase {
 public:
  FamilyBase(std::string name, std::string help, std::string type,
             std::vector<std::string> label_names);
  virtual ~FamilyBase() = default;
  void Render(std::string& out) const;
  const std::string& name() const { return name_; }

 protected:
  // Appends the sample lines of every child.
  virtual void RenderChildren(std::string& out) const = 0;
  // {a="x",b="y"}, or "" when there are no labels and no `extra`; `extra`
  // is one more label, already formatted, such as le="0.5".
  std::string LabelText(const LabelValues& values,
                        std::string_view extra = {}) const;

  const std::string name_;
  const std::string help_;
  const std::string type_;
  const std::vector<std::string> label_names_;
};

template <typename Value>
class Metrics::Family : public Metrics::FamilyBase {
 public:
  Family(std::string name, std::string help, std::string type,
         std::vector<std::string> label_names, std::vector<double> bounds = {});

  // REQUIRES: one value per label name.
  Value& WithLabels(const LabelValues& values);
  // The child of a family without labels.
  Value& Get() { return WithLabels({}); }

 private:
  void RenderChildren(std::string& out) const override;

  const std::vector<double> bounds_;  // histograms only
  mutable std::mutex mu_;
  std::map<LabelValues, std::unique_ptr<Value>> children_;  // guarded by mu_
};

}  // namespace deltacommit::http
