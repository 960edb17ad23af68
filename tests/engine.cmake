# SPDX-License-Identifier: GPL-3.0-or-later
# Engine suites (Qt Test, label "engine"): one executable per area. The shared helpers (testsupport: seeded
# inputs, the naive fp32 attention, error measures) are plain C++ and built once as a small static library.

add_library(attn_testsupport STATIC testsupport.cpp)
target_link_libraries(attn_testsupport PUBLIC attn_engine)
target_include_directories(attn_testsupport PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
set_target_properties(attn_testsupport PROPERTIES AUTOMOC OFF)

attn_add_qt_test(tst_attention    LABELS engine LIBS attn_testsupport attn_engine) # fast paths vs fp64, weights
attn_add_qt_test(tst_attention_options LABELS engine LIBS attn_testsupport attn_engine) # softcap, headBias, dtypes, LSE-only, split-KV
attn_add_qt_test(tst_knownanswers LABELS engine LIBS attn_testsupport attn_engine) # hand-computed tiny cases
attn_add_qt_test(tst_masks        LABELS engine LIBS attn_testsupport attn_engine) # mask semantics and patterns
attn_add_qt_test(tst_errors       LABELS engine LIBS attn_testsupport attn_engine) # every bad input is a value
attn_add_qt_test(tst_mha          LABELS engine LIBS attn_testsupport attn_engine) # equivariance, RoPE, ALiBi
attn_add_qt_test(tst_cancel       LABELS engine LIBS attn_testsupport attn_engine) # progress and cancel
