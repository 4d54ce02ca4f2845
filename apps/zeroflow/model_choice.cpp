#include "model_choice.hpp"

#include <filesystem>

namespace zeroflow::cli {

CLI::Validator model_name() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text == "lightvae" || text == "mlp") return {};
        if (text == "monai")
          return "MONAI's VarAutoEncoder runs in Python only (PyPI monai): use "
                 "zeroflow.sklearn.VAEOutlierDetector(model=\"monai\"); `zeroflow run` trains lightvae or mlp";
        std::error_code ec;
        if (text.ends_with(".safetensors") || text.ends_with(".pt") || std::filesystem::is_regular_file(text, ec))
          return "'" + text +
                 "' is a model file: `zeroflow run --model` names the model to train (lightvae or mlp); "
                 "to score with a saved model use `zeroflow score INPUT --model " +
                 text + "`";
        return "'" + text + "' is no model zeroflow run trains; expected lightvae or mlp";
      },
      "lightvae|mlp");
}

}  // namespace zeroflow::cli
