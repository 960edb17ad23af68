# util sources: target_sources(attn_engine PRIVATE ...)
# Limits shared by every part of the engine: the memory budget for model weights (limits.h), strict UTF-8
# validation (utf8.h).
target_sources(attn_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/limits.cpp
  ${CMAKE_CURRENT_LIST_DIR}/utf8.cpp
)
