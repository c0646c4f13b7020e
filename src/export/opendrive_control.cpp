// SPDX-License-Identifier: Apache-2.0
// The OpenDRIVE map's junctions, signals, signs, crosswalks, controllers and side file
// (docs/opendrive.md). Based on: ASAM OpenDRIVE 1.4H and 1.8, sections on junctions
// (connections, lane links, controllers), signals (1000001 dynamic traffic lights, 206 stop,
// 205 yield, validity) and objects (crosswalk with a cornerLocal outline).
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cityforge/core/format.hpp"
#include "export/detail/opendrive_writer.hpp"

namespace cityforge::exporter::detail {

double Writer::stop_s(std::uint32_t k, bool forward) const {
  const double len = detail::geometry_length(m_geo[k]);
  const double back = std::min(0.5 * len, m_config.crosswalk_width_m + m_config.stop_line_gap_m);
  return forward ? len - back : back;
}

/// Heads and signs per approach: traffic lights grouped by the phases their movements are
/// green in (one controller per group and junction), stop and yield signs where movements give
/// way at stop and yield junctions.
void Writer::build_heads() {
  const auto& lanes = m_roads.lanes.lanes;
  m_heads.assign(m_roads.sections.size(), {});
  m_phase_controllers.assign(m_roads.lanes.signals.size(), {});
  for (std::uint32_t j = 0; j < m_roads.intersections.size(); ++j) {
    const roads::Intersection& x = m_roads.intersections[j];
    const bool lights = m_plan_of[j] != SIZE_MAX;
    const roads::SignalPlan* plan = lights ? &m_roads.lanes.signals[m_plan_of[j]] : nullptr;
    if (plan != nullptr) m_phase_controllers[m_plan_of[j]].assign(plan->phases.size(), {});
    std::map<std::string, std::string> controller_of;  // phase signature -> controller id
    std::map<std::tuple<std::uint32_t, bool, std::string>, std::size_t> head_of;
    for (const LaneId c : m_connectors[j]) {
      const Lane& con = lanes[c];
      if (con.predecessors.empty()) continue;
      const LaneRef in = m_ref[con.predecessors[0]];
      if (in.road < 0) continue;
      std::string key;
      int type = 1000001;
      if (lights) {
        for (std::size_t p = 0; p < plan->phases.size(); ++p) {
          const auto& g = plan->phases[p].green;
          key += std::binary_search(g.begin(), g.end(), c) ? '1' : '0';
        }
      } else if ((con.tags & roads::kYield) != 0U &&
                 (x.control == roads::Control::stop || x.control == roads::Control::yield)) {
        type = x.control == roads::Control::stop ? 206 : 205;
        key = "sign";
      } else {
        continue;
      }
      const auto road = static_cast<std::uint32_t>(in.road);
      const bool forward = in.id < 0;
      auto [it, fresh] = head_of.try_emplace({road, forward, key}, m_heads[road].size());
      if (fresh) {
        Head h;
        h.road = road;
        h.forward = forward;
        h.type = type;
        if (lights) {
          auto [cit, new_controller] = controller_of.try_emplace(key, num_id(m_controllers.size()));
          if (new_controller) {
            m_controllers.emplace_back(cit->second, std::vector<std::string>{});
            for (std::size_t p = 0; p < key.size(); ++p)
              if (key[p] == '1') m_phase_controllers[m_plan_of[j]][p].push_back(cit->second);
          }
          h.controller = cit->second;
        }
        m_heads[road].push_back(h);
      }
      auto& ids = m_heads[road][it->second].lanes;
      if (std::find(ids.begin(), ids.end(), in.id) == ids.end()) ids.push_back(in.id);
    }
    if (lights) ++m_stats.signalised_junctions;
  }
}

void Writer::objects_of(std::uint32_t k) {
  const layout::RoadEdge& edge = m_city.network.edges[k];
  if (m_crosswalks[k].empty() && !edge.bridge && !edge.tunnel) {
    m_x.raw("    <objects/>\n");
    return;
  }
  const auto& geo = m_geo[k];
  const std::string where = "road " + std::to_string(k) + " crosswalk";
  m_x.raw("    <objects>\n");
  for (const LaneId c : m_crosswalks[k]) {
    const Lane& l = m_roads.lanes.lanes[c];
    const Vec2 a = xy(l.points.front());
    const Vec2 b = xy(l.points.back());
    const Vec2 mid = (a + b) * 0.5;
    const Vec2 st = detail::geometry_project(geo, mid);
    const double s_mid = st.x;
    const double t_mid = st.y;
    const double across = distance(a, b);
    const double along = l.width_m;
    m_x.raw("      <object");
    m_x.attr("type", "crosswalk");
    m_x.attr("name", "crosswalk");
    m_x.attr("id", num_id(c));
    m_x.attr("s", s_mid, where);
    m_x.attr("t", t_mid, where);
    m_x.raw(" zOffset=\"0\" validLength=\"0\" orientation=\"none\"");
    m_x.attr("length", along, where);
    m_x.attr("width", across, where);
    m_x.raw(" height=\"0\" hdg=\"0\" pitch=\"0\" roll=\"0\">\n        <outline>\n");
    const double us[4] = {-0.5 * along, 0.5 * along, 0.5 * along, -0.5 * along};
    const double vs[4] = {-0.5 * across, -0.5 * across, 0.5 * across, 0.5 * across};
    for (int i = 0; i < 4; ++i) {
      m_x.raw("          <cornerLocal");
      m_x.attr("u", us[i], where);
      m_x.attr("v", vs[i], where);
      m_x.raw(" z=\"0\" height=\"0\"/>\n");
    }
    m_x.raw("        </outline>\n      </object>\n");
    ++m_stats.crosswalks;
  }
  // Imported bridges and tunnels span the whole road (the XSD wants tunnels before bridges).
  // Their id is the road's: one per road at most.
  if (edge.tunnel || edge.bridge) {
    m_x.raw(edge.tunnel ? "      <tunnel s=\"0\"" : "      <bridge s=\"0\"");
    m_x.attr("length", detail::geometry_length(geo), where);
    std::string name = edge.tunnel ? "tunnel" : "bridge";
    if (edge.osm_way != 0) name += " of OSM way " + std::to_string(edge.osm_way);
    m_x.attr("name", name);
    m_x.attr("id", num_id(k));
    m_x.attr("type", edge.tunnel ? "standard" : "concrete");
    m_x.raw("/>\n");
    ++(edge.tunnel ? m_stats.tunnels : m_stats.bridges);
  }
  m_x.raw("    </objects>\n");
}

void Writer::signals_of(std::uint32_t k) {
  if (m_heads[k].empty()) {
    m_x.raw("    <signals/>\n");
    return;
  }
  const layout::RoadEdge& edge = m_city.network.edges[k];
  const std::string where = "road " + std::to_string(k) + " signal";
  m_x.raw("    <signals>\n");
  for (const Head& h : m_heads[k]) {
    const std::string id = num_id(m_signal_count++);
    m_x.raw("      <signal");
    m_x.attr("s", stop_s(k, h.forward), where);
    m_x.attr("t", (h.forward ? -1.0 : 1.0) * (0.5 * edge.width_m + 0.3), where);
    m_x.attr("id", id);
    m_x.attr("name", h.type == 1000001 ? "traffic light" : h.type == 206 ? "stop" : "yield");
    m_x.attr("dynamic", h.type == 1000001 ? "yes" : "no");
    m_x.attr("orientation", h.forward ? "+" : "-");
    m_x.attr("zOffset", h.type == 1000001 ? "2.5" : "1.8");
    m_x.attr("country", "OpenDRIVE");
    m_x.attr_int("type", h.type);
    m_x.attr("subtype", "-1");
    m_x.raw(" value=\"-1\" height=\"0.9\" width=\"0.6\">\n");
    // One validity per run of consecutive lane ids.
    std::vector<int> ids = h.lanes;
    std::sort(ids.begin(), ids.end());
    for (std::size_t i = 0; i < ids.size();) {
      std::size_t j = i;
      while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1)
        ++j;
      m_x.raw("        <validity");
      m_x.attr_int("fromLane", ids[i]);
      m_x.attr_int("toLane", ids[j]);
      m_x.raw("/>\n");
      i = j + 1;
    }
    m_x.raw("      </signal>\n");
    if (h.type == 1000001) {
      for (auto& [cid, signals] : m_controllers)
        if (cid == h.controller) signals.push_back(id);
      ++m_stats.traffic_lights;
    } else {
      ++m_stats.signs;
    }
  }
  m_x.raw("    </signals>\n");
}

void Writer::junction_xml(std::uint32_t j) {
  const auto& lanes = m_roads.lanes.lanes;
  m_x.raw("  <junction");
  m_x.attr("name", "");
  m_x.attr("id", num_id(j));
  m_x.raw(">\n");
  std::size_t n = 0;
  for (const LaneId c : m_connectors[j]) {
    const Lane& lane = lanes[c];
    if (lane.predecessors.empty()) continue;
    const LaneRef in = m_ref[lane.predecessors[0]];
    write_connection(m_x, n++,
                     {static_cast<std::size_t>(in.road),
                      static_cast<std::size_t>(m_ref[c].road),
                      {{in.id, -1}}});
  }
  // Ramps, and the freeway between an interchange's diverge and merge.
  const auto ramps = m_fw.at_node.find(j);
  if (ramps != m_fw.at_node.end()) {
    for (const detail::OdrConnection& c : ramps->second)
      write_connection(m_x, n++, c);
  }
  if (m_plan_of[j] != SIZE_MAX) {
    std::vector<std::string> seen;
    for (const auto& phase : m_phase_controllers[m_plan_of[j]])
      for (const std::string& cid : phase)
        if (std::find(seen.begin(), seen.end(), cid) == seen.end()) seen.push_back(cid);
    std::sort(seen.begin(), seen.end(), [](const std::string& a, const std::string& b) {
      return std::stoll(a) < std::stoll(b);
    });
    for (std::size_t i = 0; i < seen.size(); ++i) {
      m_x.raw("    <controller");
      m_x.attr("id", seen[i]);
      m_x.attr("type", "0");
      m_x.attr_int("sequence", static_cast<long long>(i));
      m_x.raw("/>\n");
    }
  }
  m_x.raw("  </junction>\n");
  ++m_stats.junctions;
}

void Writer::controllers_xml() {
  for (const auto& [cid, signals] : m_controllers) {
    m_x.raw("  <controller");
    m_x.attr("id", cid);
    m_x.attr("name", "phase group " + cid);
    m_x.raw(">\n");
    for (const std::string& s : signals) {
      m_x.raw("    <control");
      m_x.attr("signalId", s);
      m_x.attr("type", "0");
      m_x.raw("/>\n");
    }
    m_x.raw("  </controller>\n");
  }
  m_stats.controllers = m_controllers.size();
}

std::string Writer::side_json() const {
  std::string out = "{\"format\": \"cityforge-opendrive\", \"version\": 1,\n \"lanes\": [";
  bool first = true;
  for (const Lane& l : m_roads.lanes.lanes) {
    if (m_ref[l.id].road < 0) continue;
    out += first ? "\n  " : ",\n  ";
    first = false;
    out += "{\"lane\": " + std::to_string(l.id) + ", \"road\": \"" +
           std::to_string(m_ref[l.id].road) + "\", \"lane_id\": " + std::to_string(m_ref[l.id].id) +
           "}";
  }
  for (const auto& [id, ref] : m_fw.lanes) {
    out += first ? "\n  " : ",\n  ";
    first = false;
    out += "{\"lane\": " + std::to_string(id) + ", \"road\": \"" + std::to_string(ref.road) +
           "\", \"lane_id\": " + std::to_string(ref.id) + "}";
  }
  out += "],\n \"plans\": [";
  for (std::size_t p = 0; p < m_roads.lanes.signals.size(); ++p) {
    const roads::SignalPlan& plan = m_roads.lanes.signals[p];
    out += p == 0 ? "\n  " : ",\n  ";
    out += "{\"junction\": \"" + std::to_string(plan.intersection) +
           "\", \"offset_s\": " + format_g9(plan.offset_s) +
           ", \"cycle_s\": " + format_g9(plan.cycle_s()) + ", \"phases\": [";
    for (std::size_t i = 0; i < plan.phases.size(); ++i) {
      const roads::Phase& ph = plan.phases[i];
      out += i == 0 ? "" : ", ";
      out += "{\"green_s\": " + format_g9(ph.green_s) +
             ", \"yellow_s\": " + format_g9(ph.yellow_s) +
             ", \"all_red_s\": " + format_g9(ph.all_red_s) + ", \"green_controllers\": [";
      const auto& cs = m_phase_controllers[p][i];
      for (std::size_t c = 0; c < cs.size(); ++c)
        out += (c == 0 ? "\"" : ", \"") + cs[c] + "\"";
      out += "]}";
    }
    out += "]}";
  }
  out += "]}\n";
  return out;
}

}  // namespace cityforge::exporter::detail
