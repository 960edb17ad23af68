# SPDX-License-Identifier: GPL-3.0-or-later
# CLI suites (Qt Test, label "cli"): tst_cli runs the built attnscope-cli with QProcess, as scripts do; tst_export
# checks the engine's export functions (engine/include/attnscope/export.h) behind `info` and `run` directly.
# Both validate real exports against docs/schema/run.schema.json with the subset checker in jsonschema.cpp.

attn_add_qt_test(tst_cli LABELS cli LIBS Qt6::Core SOURCES jsonschema.cpp)
target_compile_definitions(tst_cli PRIVATE ATTNSCOPE_CLI_PATH="$<TARGET_FILE:attnscope-cli>"
                                           ATTNSCOPE_SCHEMA_DIR="${PROJECT_SOURCE_DIR}/docs/schema")
add_dependencies(tst_cli attnscope-cli)
set_tests_properties(tst_cli PROPERTIES TIMEOUT 120)

attn_add_qt_test(tst_export LABELS cli LIBS attn_engine Qt6::Core SOURCES jsonschema.cpp)
target_compile_definitions(tst_export PRIVATE ATTNSCOPE_SCHEMA_DIR="${PROJECT_SOURCE_DIR}/docs/schema"
                                              ATTNSCOPE_PROJECT_VERSION="${PROJECT_VERSION}")

# attnscope-cli figure (headless figures of every workspace's views); links attn_ui to list the registered views.
attn_add_qt_test(tst_cli_figure LABELS cli LIBS attn_ui Qt6::Svg)
target_compile_definitions(tst_cli_figure PRIVATE ATTNSCOPE_CLI_PATH="$<TARGET_FILE:attnscope-cli>"
                                                  ATTNSCOPE_DOCS_DIR="${PROJECT_SOURCE_DIR}/docs")
add_dependencies(tst_cli_figure attnscope-cli)
set_tests_properties(tst_cli_figure PROPERTIES TIMEOUT 600)

# Dataset runs through attnscope-cli (--dataset, --shard, --resume, merge); docs/cli.md's dataset examples.
attn_add_qt_test(tst_cli_dataset LABELS cli LIBS Qt6::Core SOURCES jsonschema.cpp)
target_compile_definitions(tst_cli_dataset PRIVATE ATTNSCOPE_CLI_PATH="$<TARGET_FILE:attnscope-cli>"
                                                   ATTNSCOPE_SCHEMA_DIR="${PROJECT_SOURCE_DIR}/docs/schema"
                                                   ATTNSCOPE_DOCS_DIR="${PROJECT_SOURCE_DIR}/docs")
add_dependencies(tst_cli_dataset attnscope-cli)
set_tests_properties(tst_cli_dataset PROPERTIES TIMEOUT 300)

# Every attnscope-cli example of README.md and docs/cli.md: its text is in the sample model's training words, and
# it runs as written (bench and a reader's own dataset files aside).
attn_add_qt_test(tst_cli_docs LABELS cli LIBS Qt6::Core)
target_compile_definitions(tst_cli_docs PRIVATE ATTNSCOPE_CLI_PATH="$<TARGET_FILE:attnscope-cli>"
                                                ATTNSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(tst_cli_docs attnscope-cli)
set_tests_properties(tst_cli_docs PROPERTIES TIMEOUT 600)
