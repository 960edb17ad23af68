# SPDX-License-Identifier: GPL-3.0-or-later
# CLI suites (Qt Test, label "cli"): they run the built attnscope-cli with QProcess, as scripts do.

attn_add_qt_test(tst_cli LABELS cli LIBS Qt6::Core)
target_compile_definitions(tst_cli PRIVATE ATTNSCOPE_CLI_PATH="$<TARGET_FILE:attnscope-cli>")
add_dependencies(tst_cli attnscope-cli)
set_tests_properties(tst_cli PROPERTIES TIMEOUT 60)
