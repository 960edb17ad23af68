# model loading sources: target_sources(attn_engine PRIVATE ...)
# Checkpoints (safetensors + config.json), GPT-2 / BERT / synthetic models, and the forward pass with hooks.
target_sources(attn_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/safetensors.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/forward.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops.cpp
)
