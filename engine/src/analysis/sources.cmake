# SPDX-License-Identifier: GPL-3.0-or-later
# Analysis of captured attention: head statistics, rollout and flow (analysis.h); metric primitives (metrics.h),
# permutation equivariance (equivariance.h), the faithfulness suite (faithfulness.h) and masks' effects
# (maskeffects.h); dataset-level statistics (stats.h) and dataset runs (dataset.h); attention variants for
# teaching (variants.h: scoring functions, RNN-era step, dropout) and approximate attention (approximate.h);
# word alignment from cross-attention and its error rate (alignment.h).
target_sources(attn_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/headstats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aggregation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/equivariance.cpp
  ${CMAKE_CURRENT_LIST_DIR}/perturb.cpp
  ${CMAKE_CURRENT_LIST_DIR}/importances.cpp
  ${CMAKE_CURRENT_LIST_DIR}/faithfulness.cpp
  ${CMAKE_CURRENT_LIST_DIR}/randomization.cpp
  ${CMAKE_CURRENT_LIST_DIR}/faithfulness_names.cpp
  ${CMAKE_CURRENT_LIST_DIR}/maskeffects.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dataset_run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dataset_summary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/variants_scoring.cpp
  ${CMAKE_CURRENT_LIST_DIR}/variants_dropout.cpp
  ${CMAKE_CURRENT_LIST_DIR}/variants_approx.cpp
  ${CMAKE_CURRENT_LIST_DIR}/variants_cost.cpp
  ${CMAKE_CURRENT_LIST_DIR}/alignment.cpp)
