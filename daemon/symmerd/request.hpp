// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// symmerd's control requests (protocol and who may do what: daemon/README.md). Each request
// is one file, <name>_request.cpp, that registers its handler in the table here, so a new
// request is one new file:
//
//   namespace {
//   nlohmann::json jobs(Daemon& daemon, const nlohmann::json& request,
//                       const PeerCredentials& peer) { ...; return reply_ok({...}); }
//   const bool registered = register_request({"jobs", jobs});
//   }  // namespace

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "daemon.hpp"
#include "peer_credentials.hpp"
#include "symmer/expected.hpp"

namespace symmer::daemon {

/// Answers one request; may throw std::exception (the reply then names the request and what).
using RequestHandler =
    std::function<nlohmann::json(Daemon&, const nlohmann::json& request, const PeerCredentials&)>;

/// A control request: the "request" word that selects it and its handler.
struct Request {
  std::string name;
  RequestHandler handle;
};

/// Adds `request` to the table (call from a namespace-scope initializer). Returns true, so
/// `const bool registered = register_request({...});` keeps the registration.
bool register_request(Request request);

/// The request called `name`; nullptr when there is none.
const Request* find_request(const std::string& name);

/// Every request's name, sorted.
std::vector<std::string> request_names();

/// A successful reply: `body` with "ok": true.
nlohmann::json reply_ok(nlohmann::json body = nlohmann::json::object());
/// A failed reply: "ok": false and the `message`.
nlohmann::json reply_failure(const std::string& message);
/// A refusal: "ok": false, "denied": true and "permission denied: uid N may not `what`".
nlohmann::json reply_denied(const PeerCredentials& peer, const std::string& what);

/// The job a request names in "job": its segment file name, its job id in hex, or a unique
/// prefix of either. Errors: kInvalidArgument (not a string, empty, ambiguous), kNotFound.
Expected<ManagedJob*> find_job(const DaemonState& state, const nlohmann::json& request);

/// Which per-job switch set_switch changes.
enum class JobSwitch { kPaused, kAdviceOnly };

/// Sets `which` to `on` for the job the request names, or for every job without "job"
/// (pause/resume and advice requests); the reply, or the refusal.
nlohmann::json set_switch(Daemon& daemon, const nlohmann::json& request,
                          const PeerCredentials& peer, JobSwitch which, bool on);

}  // namespace symmer::daemon
