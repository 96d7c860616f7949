// symmerctl: command-line view of the node and, with symmerd, its control client.
#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "symmer/topology/node_model.hpp"

int main(int argc, char** argv) {
  CLI::App app{"symmerctl: inspect and control symmer on this node"};
  app.require_subcommand(1);

  bool json = false;
  std::string xml;
  std::string synthetic;
  CLI::App* topology = app.add_subcommand("topology", "print the node model symmer and TSAR use");
  topology->add_flag("--json", json, "print JSON instead of text");
  auto* xml_opt =
      topology->add_option("--xml", xml, "load an hwloc XML export instead of this node");
  topology->add_option("--synthetic", synthetic, "load an hwloc synthetic description")
      ->excludes(xml_opt);

  CLI11_PARSE(app, argc, argv);

  try {
    using symmer::topology::NodeModel;
    const NodeModel model = !xml.empty()         ? NodeModel::from_xml_file(xml)
                            : !synthetic.empty() ? NodeModel::from_synthetic(synthetic)
                                                 : NodeModel::from_this_node();
    if (json)
      std::cout << model.to_json().dump(2) << "\n";
    else
      std::cout << model.to_text();
  } catch (const std::exception& e) {
    std::cerr << "symmerctl: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
