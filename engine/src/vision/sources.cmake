# SPDX-License-Identifier: GPL-3.0-or-later
# Vision preprocessing (engine/include/attnscope/image.h): preprocessor_config.json, Pillow-exact resampling,
# rescale/normalize to pixel_values, ViT's position-embedding interpolation.
set(_vision_sources
  ${CMAKE_CURRENT_LIST_DIR}/resample.cpp
  ${CMAKE_CURRENT_LIST_DIR}/preprocessor_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/preprocess.cpp
  ${CMAKE_CURRENT_LIST_DIR}/posembed.cpp)
target_sources(attn_engine PRIVATE ${_vision_sources})
# Bit-exact parity with Pillow and NumPy: no fused multiply-adds (-march=native offers them, and GCC contracts
# a*b + c across statements by default in C++), each product and sum rounded on its own as theirs are.
set_source_files_properties(${_vision_sources} PROPERTIES COMPILE_OPTIONS "-ffp-contract=off")
# Vision Transformers (engine/include/attnscope/vit.h), on the text models' dense blocks (src/model/ops.h).
target_sources(attn_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/vit_load.cpp
  ${CMAKE_CURRENT_LIST_DIR}/vit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/vitfaithfulness.cpp)
