# SPDX-License-Identifier: GPL-3.0-or-later
# Safe output files (engine/include/attnscope/fileio.h): symlinks, FIFOs, devices, read-only folders, /dev/full,
# multi-file commits. Label engine.
attn_add_qt_test(tst_files LABELS engine LIBS attn_engine)

# Limits on sizes read from files (config.json fields, the memory budget for weights, 50 000 safetensors tensors);
# the config.json regression inputs of tests/fuzz replayed. Label engine.
attn_add_qt_test(tst_limits LABELS engine LIBS attn_engine)

# attnscope-cli under issue 14's hostile inputs: /dev/full, invalid UTF-8, --text-file, --max-memory, option
# ranges, figure refusals, the --npy pair on failure. Label cli.
attn_add_qt_test(tst_reliability_cli LABELS cli LIBS Qt6::Core)
target_compile_definitions(tst_reliability_cli PRIVATE ATTNSCOPE_CLI_PATH="$<TARGET_FILE:attnscope-cli>")
add_dependencies(tst_reliability_cli attnscope-cli)
set_tests_properties(tst_reliability_cli PROPERTIES TIMEOUT 300)
