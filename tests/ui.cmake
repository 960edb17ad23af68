# SPDX-License-Identifier: GPL-3.0-or-later
# ui tests: widgets and models offscreen (QT_QPA_PLATFORM=offscreen, set by attn_add_qt_test).
attn_add_qt_test(tst_ui_models LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_ui_runner LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_ui_heatmap LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_ui_mainwindow LABELS ui LIBS attn_ui)
attn_add_qt_test(tst_ui_lineview LABELS ui LIBS attn_ui)
