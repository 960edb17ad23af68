# export sources: target_sources(attn_engine PRIVATE ...)
# The documents of the CLI's `info` and `run` verbs (JSON, docs/json-format.md), the run pipeline behind them,
# atomic file writing, and dataset runs' files (datasets, results JSONL, SHA-256).
target_sources(attn_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/export.cpp
  ${CMAKE_CURRENT_LIST_DIR}/atomicfile.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis_export.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sha256.cpp
  ${CMAKE_CURRENT_LIST_DIR}/provenance.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dataset_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dataset_results.cpp
  ${CMAKE_CURRENT_LIST_DIR}/npy_read.cpp
  ${CMAKE_CURRENT_LIST_DIR}/seq2seq_run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/vision_export.cpp
)
