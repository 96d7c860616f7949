// SPDX-License-Identifier: BSD-3-Clause
// symmerctl's side of the control socket (see daemon_client.hpp).
#include "daemon_client.hpp"

#include <iostream>
#include <sstream>
#include <stdexcept>

#include "control_client.hpp"

namespace symmer::ctl {

void add_daemon_options(CLI::App& cmd, DaemonOptions& options) {
  cmd.add_option("--socket", options.socket,
                 "symmerd's control socket (default $SYMMERD_SOCKET, your own daemon's, or "
                 "/run/symmer/symmerd.sock)");
  cmd.add_flag("--json", options.json, "print the daemon's JSON reply");
}

nlohmann::json ask(const DaemonOptions& options, const nlohmann::json& request) {
  const std::string socket = options.socket.empty() ? daemon::client_socket_path() : options.socket;
  auto reply = daemon::send_request(socket, request);
  if (!reply) throw std::runtime_error(reply.error().message);
  return *reply;
}

int run_request(const DaemonOptions& options, const nlohmann::json& request,
                const std::function<void(const nlohmann::json&)>& human) {
  nlohmann::json reply;
  try {
    reply = ask(options, request);
  } catch (const std::runtime_error& e) {
    std::cerr << "symmerctl: " << e.what() << "\n";
    return kExitNoDaemon;
  }
  const bool ok = reply.value("ok", false);
  if (options.json)
    std::cout << reply.dump(2) << "\n";
  else if (ok)
    human(reply);
  if (!ok) {
    if (!options.json) std::cerr << "symmerctl: " << reply.value("error", "request failed") << "\n";
    return reply.value("denied", false) ? kExitDenied : 1;
  }
  return 0;
}

void add_segment_dir_option(CLI::App& cmd, DaemonOptions& options) {
  cmd.add_option("--dir", options.dir,
                 "without symmerd: where the node segments are (default $SYMMER_SHM_DIR or "
                 "/dev/shm)");
}

int run_request_or_local(const DaemonOptions& options, const nlohmann::json& request,
                         const std::function<nlohmann::json()>& local,
                         const std::function<void(const nlohmann::json&)>& human) {
  try {
    (void)ask(options, {{"request", "status"}});
  } catch (const std::runtime_error& e) {
    std::cerr << "symmerctl: no symmerd answers (" << e.what()
              << "); embedded mode: figures from the jobs' node segments\n";
    const nlohmann::json reply = local();
    if (options.json)
      std::cout << reply.dump(2) << "\n";
    else
      human(reply);
    return 0;
  }
  return run_request(options, request, human);
}

std::string format_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(header.size(), 0);
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  std::ostringstream out;
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string v = c < cells.size() ? cells[c] : "";
      text += v;
      if (c + 1 < width.size()) text += std::string(width[c] - v.size() + 2, ' ');
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << "\n";
  };
  line(header);
  for (const auto& row : rows) line(row);
  return out.str();
}

std::string cell(const nlohmann::json& value) {
  if (value.is_null()) return "-";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
  if (value.is_number_float()) {
    std::ostringstream s;
    s.setf(std::ios::fixed);
    s.precision(3);
    s << value.get<double>();
    return s.str();
  }
  return value.dump();
}

}  // namespace symmer::ctl
