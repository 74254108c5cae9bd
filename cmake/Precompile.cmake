# Precompiled headers. A cold build spent most of its time parsing the same
# headers again in every translation unit: -fsyntax-only took 12 of
# core/torch/Executor.cpp's 15.5 s (libtorch), 5.8 of views/GraphScene.cpp's
# 8.5 s (Qt) and 2.6 of core/ir/Graph.cpp's 5.6 s (the standard library,
# nlohmann/json). Each target parses its set once into a .gch and every file of
# it loads that instead. The sets name system headers only, so that the
# generated cmake_pch.hxx is the same in every clone and ccache (told to accept
# precompiled headers: FUSEBOX_CCACHE_LAUNCHER) reuses one clone's objects in
# another, as it did without them. -DFUSEBOX_PCH=OFF builds without them (a
# file that forgot an #include then fails to compile, as it should).
option(FUSEBOX_PCH "Precompile the standard, Qt, libtorch and Catch2 headers" ON)

set(FUSEBOX_PCH_STD
  "<algorithm>" "<cstdint>" "<filesystem>" "<fstream>" "<functional>" "<map>" "<memory>" "<optional>"
  "<set>" "<sstream>" "<string>" "<string_view>" "<unordered_map>" "<utility>" "<vector>"
  "<nlohmann/json.hpp>")
set(FUSEBOX_PCH_QT "<QtWidgets/QtWidgets>")
# What core/torch includes most (libtorch's IR, modules and tensors).
set(FUSEBOX_PCH_TORCH "<ATen/ATen.h>" "<torch/csrc/jit/ir/ir.h>" "<torch/csrc/jit/api/module.h>")

# fusebox_precompile(TARGET [QT] [TORCH]): TARGET's files are compiled with the
# standard set and the named ones precompiled.
function(fusebox_precompile target)
  if(NOT FUSEBOX_PCH)
    return()
  endif()
  cmake_parse_arguments(PCH "QT;TORCH" "" "" ${ARGN})
  set(headers ${FUSEBOX_PCH_STD})
  if(PCH_QT)
    list(APPEND headers ${FUSEBOX_PCH_QT})
  endif()
  if(PCH_TORCH)
    list(APPEND headers ${FUSEBOX_PCH_TORCH})
  endif()
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()
