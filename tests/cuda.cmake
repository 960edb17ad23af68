# SPDX-License-Identifier: GPL-3.0-or-later
# The optional CUDA path (label "cuda"). Built in every configuration: without CUDA (or without a GPU) the GPU
# tests QSKIP with attn::cudaUnavailableReason() and the rest (reasons, fallbacks, refusals) still run.
attn_add_qt_test(tst_cuda LABELS cuda LIBS attn_testsupport attn_bench attn_engine)
if(ATTNSCOPE_HAVE_CUDA)
  target_compile_definitions(tst_cuda PRIVATE ATTNSCOPE_TEST_CUDA_BUILT=1)
else()
  target_compile_definitions(tst_cuda PRIVATE ATTNSCOPE_TEST_CUDA_BUILT=0)
endif()
# On a GPU the parity rows at n = 4099 spend most of their time in the scalar fp64 oracle: give the suite room.
set_tests_properties(tst_cuda PROPERTIES TIMEOUT 1800
                     ENVIRONMENT "QT_QPA_PLATFORM=offscreen;QTEST_FUNCTION_TIMEOUT=1500000")
