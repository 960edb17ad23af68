# SPDX-License-Identifier: GPL-3.0-or-later
# Analysis of captured attention: head statistics, rollout and flow (analysis.h).
target_sources(attn_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/headstats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aggregation.cpp)
