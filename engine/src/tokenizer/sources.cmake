# SPDX-License-Identifier: GPL-3.0-or-later
# Tokenizers: WordPiece, byte-level BPE, tokenizer.json (engine/include/attnscope/tokenizer.h).
target_sources(attn_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/unicode_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unicode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/normalizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pretokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/wordpiece.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bpe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/added_tokens.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/legacy.cpp
)
