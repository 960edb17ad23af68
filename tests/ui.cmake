# SPDX-License-Identifier: GPL-3.0-or-later
# ui tests: widgets and models offscreen (QT_QPA_PLATFORM=offscreen, set by attn_add_qt_test).
attn_add_qt_test(tst_ui_models LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_ui_runner LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_ui_heatmap LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_ui_mainwindow LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_ui_lineview LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_ui_equivariance LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_ui_faithfulness LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_ui_dataset LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_ui_pipeline LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_lessons LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_ui_masks LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_ui_compare LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_ui_xyplot LABELS ui LIBS attn_ui)
# Session files: round trip, schema (docs/schema/session.schema.json), malformed files, atomic saves.
attn_add_qt_test(tst_ui_session LABELS ui LIBS attn_ui SOURCES jsonschema.cpp)
target_compile_definitions(tst_ui_session PRIVATE ATTNSCOPE_SCHEMA_DIR="${PROJECT_SOURCE_DIR}/docs/schema")
set_tests_properties(tst_ui_session PROPERTIES TIMEOUT 300)
