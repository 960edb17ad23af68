# SPDX-License-Identifier: GPL-3.0-or-later
# analysis tests: head statistics, rollout and flow against hand-computed answers (faithfulness.md A.2).
attn_add_qt_test(tst_analysis LABELS analysis LIBS attn_engine)
# Masks' effects: recomputation under several masks vs the fp64 reference, causal leakage, padding.
attn_add_qt_test(tst_maskeffects LABELS analysis LIBS attn_testsupport attn_engine)

# Faithfulness and equivariance (faithfulness.h, equivariance.h, metrics.h): metric primitives against the
# Appendix table, permutation/leakage properties on random models, the suite on the sample models, and the
# CLI verbs `equivariance` and `faithfulness` (run with QProcess, exports checked against docs/schema).
attn_add_qt_test(tst_metrics LABELS analysis LIBS attn_engine)
attn_add_qt_test(tst_equivariance LABELS analysis LIBS attn_engine Qt6::Core SOURCES jsonschema.cpp)
target_compile_definitions(tst_equivariance PRIVATE ATTNSCOPE_SCHEMA_DIR="${PROJECT_SOURCE_DIR}/docs/schema")
attn_add_qt_test(tst_faithfulness LABELS analysis LIBS attn_engine Qt6::Core SOURCES jsonschema.cpp)
target_compile_definitions(tst_faithfulness PRIVATE ATTNSCOPE_SCHEMA_DIR="${PROJECT_SOURCE_DIR}/docs/schema")
set_tests_properties(tst_faithfulness PROPERTIES TIMEOUT 300)
# Model-parameter randomization (Model::withRandomizedParameters, the suite's cascading check, Appendix A.1 toy).
attn_add_qt_test(tst_randomization LABELS analysis LIBS attn_engine Qt6::Core SOURCES jsonschema.cpp)
target_compile_definitions(tst_randomization PRIVATE ATTNSCOPE_SCHEMA_DIR="${PROJECT_SOURCE_DIR}/docs/schema")
attn_add_qt_test(tst_cli_analyses LABELS cli LIBS Qt6::Core SOURCES jsonschema.cpp)
target_compile_definitions(tst_cli_analyses PRIVATE ATTNSCOPE_CLI_PATH="$<TARGET_FILE:attnscope-cli>"
                                                    ATTNSCOPE_SCHEMA_DIR="${PROJECT_SOURCE_DIR}/docs/schema"
                                                    ATTNSCOPE_DOCS_DIR="${PROJECT_SOURCE_DIR}/docs")
add_dependencies(tst_cli_analyses attnscope-cli)
set_tests_properties(tst_cli_analyses PROPERTIES TIMEOUT 300)
# Dataset statistics (stats.h) against hand-computed cases and NumPy/SciPy/scikit-learn known answers
# (tests/fixtures/stats, tools/make_stats_fixtures.py).
attn_add_qt_test(tst_stats LABELS analysis LIBS attn_engine Qt6::Core)
# Dataset runs (dataset.h): readers, preparation against rationale-bert, shards, results files, merge, summary,
# and the documents against docs/schema/dataset-*.schema.json.
attn_add_qt_test(tst_dataset LABELS analysis LIBS attn_engine Qt6::Core SOURCES jsonschema.cpp)
target_compile_definitions(tst_dataset PRIVATE ATTNSCOPE_SCHEMA_DIR="${PROJECT_SOURCE_DIR}/docs/schema")
set_tests_properties(tst_dataset PROPERTIES TIMEOUT 300)
