# export sources: target_sources(attn_engine PRIVATE ...)
# The documents of the CLI's `info` and `run` verbs (JSON, docs/json-format.md), the run pipeline behind them,
# and atomic file writing.
target_sources(attn_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/export.cpp
  ${CMAKE_CURRENT_LIST_DIR}/atomicfile.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis_export.cpp
)
