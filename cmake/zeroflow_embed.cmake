# zeroflow_embed(<output.cpp> NAMESPACE <ns> INPUTS <file>... [COMMENT <text>])
#   Generates <output.cpp>, each input a std::string_view constant in <ns> (cmake/embed_assets.cmake
#   says how), again whenever an input or the script changes. Add it to a target's sources.
function(zeroflow_embed output)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "NAMESPACE;COMMENT" "INPUTS")
  add_custom_command(OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} -DNAMESPACE=${arg_NAMESPACE} "-DINPUTS=${arg_INPUTS}"
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_assets.cmake
    DEPENDS ${arg_INPUTS} ${PROJECT_SOURCE_DIR}/cmake/embed_assets.cmake
    COMMENT "${arg_COMMENT}" VERBATIM)
endfunction()
