# model loading sources: target_sources(attn_engine PRIVATE ...)
# Checkpoints (safetensors + config.json), every family's config mapping and tensor names, synthetic models, and
# the forward pass with hooks.
target_sources(attn_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/safetensors.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/families.cpp
  ${CMAKE_CURRENT_LIST_DIR}/synthetic.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tensornames.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rope.cpp
  ${CMAKE_CURRENT_LIST_DIR}/attentionlayer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/randomize.cpp
  ${CMAKE_CURRENT_LIST_DIR}/forward.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/textmodel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hubcache.cpp
)
# Where `sample:NAME` finds the bundled models when running from a build tree.
set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/textmodel.cpp APPEND PROPERTY COMPILE_DEFINITIONS
  ATTNSCOPE_SOURCE_SAMPLE_MODELS="${PROJECT_SOURCE_DIR}/sample_models")
# Encoder-decoder models (engine/include/attnscope/seq2seq.h), outside Model: T5, BART and Marian, each with its own
# loader and forward pass behind Seq2SeqModel.
target_sources(attn_engine PRIVATE ${CMAKE_CURRENT_LIST_DIR}/seq2seq.cpp ${CMAKE_CURRENT_LIST_DIR}/t5.cpp
                                   ${CMAKE_CURRENT_LIST_DIR}/bart.cpp)
