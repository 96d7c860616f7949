// SPDX-License-Identifier: BSD-3-Clause
// Locality metric (see locality_metric.hpp).
#include "symmer/analysis/locality_metric.hpp"

#include <algorithm>

#include "candidates.hpp"
#include "symmer/topology/node_model.hpp"

namespace symmer::analysis {
namespace {

using Prices = std::array<double, 5>;
constexpr const Prices& kPrice = LocalityMetric::kSecondsPerByte;

double price(const topology::NodeModel& node, int a, int b) {
  if (a < 0 || b < 0) return 0.0;  // unknown placement: no opinion
  if (a == b) return kPrice[0];
  const int level = node.shared_cache_level(a, b);
  if (level >= 1 && level <= 2) return kPrice[0];
  if (level >= 3) return kPrice[1];
  const auto& ca = node.cores()[static_cast<std::size_t>(a)];
  const auto& cb = node.cores()[static_cast<std::size_t>(b)];
  if (ca.numa_node == cb.numa_node) return kPrice[2];
  if (ca.package == cb.package) return kPrice[3];
  return kPrice[4];
}

// Where off-node traffic is processed: the interrupt core when one stands out, else the
// NIC's local cores.
struct ProtocolSite {
  int core = -1;
  std::vector<int> nic_cores;
};

ProtocolSite protocol_site(const topology::NodeModel& node, const WindowSample& w) {
  ProtocolSite site;
  double best = LocalityMetric::kProtocolCoreIrqShare;
  for (std::size_t c = 0; c < w.core_irq_share.size(); ++c)
    if (w.core_irq_share[c] >= best) best = w.core_irq_share[c], site.core = static_cast<int>(c);
  if (site.core < 0) {
    const auto nics = node.nics();
    if (!nics.empty()) site.nic_cores = nics.front().local_cores;
  }
  return site;
}

double remote_price(const topology::NodeModel& node, const ProtocolSite& site, int core) {
  if (core < 0) return 0.0;
  if (site.core >= 0) return price(node, core, site.core);
  if (site.nic_cores.empty() ||
      site.nic_cores.size() == node.cores().size())  // every core is as close
    return 0.0;
  const bool near =
      std::find(site.nic_cores.begin(), site.nic_cores.end(), core) != site.nic_cores.end();
  return near ? kPrice[1] : kPrice[3];
}

// Symmetric local traffic (bytes both ways) and off-node bytes per local rank.
struct Traffic {
  std::map<int, std::map<int, double>> pair;  // local -> local -> bytes
  std::map<int, double> remote;               // local -> bytes off node
};

Traffic traffic_of(const WindowSample& w) {
  Traffic t;
  for (const auto& r : w.ranks) {
    for (const auto& [peer, bytes] : r.bytes_to_local) {
      if (w.find_local(peer) == nullptr) continue;
      t.pair[r.local_rank][peer] += static_cast<double>(bytes);
      t.pair[peer][r.local_rank] += static_cast<double>(bytes);
    }
    for (const auto& [node, bytes] : r.bytes_to_node)
      t.remote[r.local_rank] += static_cast<double>(bytes);
  }
  return t;
}

double model_gain(const topology::NodeModel& node, const WindowSample& w,
                  std::span<const Move> moves) {
  if (moves.empty() || w.ranks.empty() || w.duration_ns == 0) return 0.0;
  const Traffic t = traffic_of(w);
  const ProtocolSite site = protocol_site(node, w);
  const auto after = cores_after(w, moves);
  const auto core_in = [](const std::map<int, int>& m, int r) {
    const auto it = m.find(r);
    return it == m.end() ? -1 : it->second;
  };
  std::map<int, int> before;
  for (const auto& r : w.ranks) before[r.local_rank] = r.core;

  // Only edges touching a moved rank change; count each such edge once.
  std::vector<int> moved;
  for (const auto& m : moves) moved.push_back(m.local_rank);
  const auto is_moved = [&](int r) {
    return std::find(moved.begin(), moved.end(), r) != moved.end();
  };
  double saved = 0.0;
  for (int r : moved) {
    const auto it = t.pair.find(r);
    if (it != t.pair.end())
      for (const auto& [peer, bytes] : it->second) {
        if (is_moved(peer) && peer < r) continue;  // counted from the other end
        saved += bytes * (price(node, core_in(before, r), core_in(before, peer)) -
                          price(node, core_in(after, r), core_in(after, peer)));
      }
    const auto rt = t.remote.find(r);
    if (rt != t.remote.end())
      saved += rt->second * (remote_price(node, site, core_in(before, r)) -
                             remote_price(node, site, core_in(after, r)));
  }
  return saved / (w.duration_s() * static_cast<double>(w.ranks.size()));
}

}  // namespace

MetricResult LocalityMetric::evaluate(const MetricContext& context) const {
  const WindowSample& w = context.evidence;
  const auto& node = context.node;
  MetricResult result;
  if (w.ranks.size() < 2 || w.duration_ns == 0) return result;
  const Traffic t = traffic_of(w);
  const double d = w.duration_s();

  nlohmann::json heavy = nlohmann::json::array();
  std::vector<int> involved;
  double lost = 0.0;
  for (const auto& [a, peers] : t.pair)
    for (const auto& [b, bytes] : peers) {
      if (b <= a || bytes / d < kHeavyBytesPerSecond) continue;
      const int ca = w.find_local(a)->core;
      const int cb = w.find_local(b)->core;
      if (ca < 0 || cb < 0) continue;
      const double p = price(node, ca, cb);
      if (p <= kPrice[1]) continue;  // already share a cache
      lost += bytes * (p - kPrice[1]);
      involved.push_back(a);
      involved.push_back(b);
      heavy.push_back({{"ranks", {a, b}},
                       {"cores", {ca, cb}},
                       {"bytes_per_s", bytes / d},
                       {"shared_cache_level", node.shared_cache_level(ca, cb)}});
    }
  bool counters = !w.ranks.empty();
  for (const auto& r : w.ranks) counters = counters && r.cache_misses.has_value();

  result.symptom.severity = lost / (d * static_cast<double>(w.ranks.size()));
  result.symptom.present = !heavy.empty();
  result.symptom.evidence = {
      {"split_heavy_pairs", heavy},
      {"cache_misses", counters ? "available" : "unavailable: per-peer bytes alone"}};
  if (!result.symptom.present) return result;

  // Counters, when present, must show the moved ranks missing more than the median rank.
  std::vector<double> miss_rates;
  if (counters)
    for (const auto& r : w.ranks) miss_rates.push_back(static_cast<double>(*r.cache_misses));
  std::sort(miss_rates.begin(), miss_rates.end());
  const double median = miss_rates.empty() ? 0.0 : miss_rates[miss_rates.size() / 2];

  const auto gain = [&](const WindowSample& win, std::span<const Move> moves) {
    return model_gain(node, win, moves);
  };
  for (auto& p : detail::price_candidates(
           context, name(), detail::candidate_moves(context, involved), gain, 1.0,
           [&](std::span<const Move>) {
             return nlohmann::json{
                 {"split_heavy_pairs", heavy},
                 {"cache_misses", counters ? "available" : "unavailable: per-peer bytes alone"}};
           })) {
    double factor = kBytesOnlyConfidence;
    if (counters) {
      double most = 0.0;
      for (const auto& m : p.moves)
        most = std::max(most, static_cast<double>(*w.find_local(m.local_rank)->cache_misses));
      factor = most >= median ? 1.0 : 0.6;
      p.evidence["moved_rank_misses"] = most;
      p.evidence["median_misses"] = median;
    }
    p.confidence *= factor;
    result.proposals.push_back(std::move(p));
  }
  return result;
}

double LocalityMetric::predict(const MetricContext& context, std::span<const Move> moves) const {
  return model_gain(context.node, context.evidence, moves);
}

}  // namespace symmer::analysis
