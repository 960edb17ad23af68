# SPDX-License-Identifier: GPL-3.0-or-later
# Plain C++ engine tests (no Qt at all). tst_engine_plain proves the engine builds, links and runs without Qt:
# it links attn_engine only and has its own main(); a non-zero exit code is a failure.
# testsupport.cpp is plain C++ too; it is compiled into this executable rather than linked as a library, so the
# link line holds nothing but the engine.

add_executable(tst_engine_plain tst_engine_plain.cpp testsupport.cpp)
target_link_libraries(tst_engine_plain PRIVATE attn_engine)
target_include_directories(tst_engine_plain PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
# qt_standard_project_setup() turns AUTOMOC on project-wide; nothing here needs Qt's tools.
set_target_properties(tst_engine_plain PROPERTIES AUTOMOC OFF AUTOUIC OFF AUTORCC OFF)
add_test(NAME tst_engine_plain COMMAND tst_engine_plain)
set_tests_properties(tst_engine_plain PROPERTIES LABELS engine TIMEOUT 120)

get_target_property(_plain_links tst_engine_plain LINK_LIBRARIES)
foreach(_lib IN LISTS _plain_links)
  if(_lib MATCHES "Qt")
    message(FATAL_ERROR "tst_engine_plain links ${_lib}: it must prove the engine works without Qt")
  endif()
endforeach()
