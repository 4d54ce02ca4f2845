// Built instead of the png_*.cpp figures when cmake found no cairo (ZEROFLOW_HAS_CAIRO == 0).
#include "zeroflow/core/error.hpp"
#include "zeroflow/report/png_figures.hpp"

namespace zeroflow::report {

std::vector<std::filesystem::path> write_png_figures(const pipeline::run_result&, const pipeline::run_options&,
                                                     const std::filesystem::path& folder) {
  ZF_THROW(error, "cannot write PNG figures to ", folder.string(),
           ": this zeroflow was built without cairo; install libcairo2-dev and rebuild");
}

}  // namespace zeroflow::report
