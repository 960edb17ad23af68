# SPDX-License-Identifier: GPL-3.0-or-later
# analysis tests: head statistics, rollout and flow against hand-computed answers (faithfulness.md A.2).
attn_add_qt_test(tst_analysis LABELS analysis LIBS attn_engine)
