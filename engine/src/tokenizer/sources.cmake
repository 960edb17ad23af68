# SPDX-License-Identifier: GPL-3.0-or-later
# Tokenizers: tokenizer.json pipelines (BPE, WordPiece, Unigram; normalizers, pre-tokenizers, post-processors,
# decoders, added tokens) and the legacy vocabulary files (engine/include/attnscope/tokenizer.h). The regular
# expressions run on Oniguruma, the engine Hugging Face tokenizers uses (docs/tokenizers.md).
target_sources(attn_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/unicode_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unicode_probed.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unicode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unicode_norm.cpp
  ${CMAKE_CURRENT_LIST_DIR}/regex.cpp
  ${CMAKE_CURRENT_LIST_DIR}/normalized.cpp
  ${CMAKE_CURRENT_LIST_DIR}/normalizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/precompiled.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pretokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/wordpiece.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bpe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unigram.cpp
  ${CMAKE_CURRENT_LIST_DIR}/added_tokens.cpp
  ${CMAKE_CURRENT_LIST_DIR}/postprocess.cpp
  ${CMAKE_CURRENT_LIST_DIR}/decoder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loader_components.cpp
  ${CMAKE_CURRENT_LIST_DIR}/legacy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sentencepiece.cpp
)
# Oniguruma (Debian libonig-dev), private to the engine.
find_package(PkgConfig REQUIRED)
pkg_check_modules(ONIGURUMA REQUIRED IMPORTED_TARGET GLOBAL oniguruma)
target_link_libraries(attn_engine PRIVATE PkgConfig::ONIGURUMA)
# SentencePiece (Debian libsentencepiece-dev 0.1.97), private to the engine: Marian's source.spm / target.spm.
pkg_check_modules(SENTENCEPIECE REQUIRED IMPORTED_TARGET GLOBAL sentencepiece)
target_link_libraries(attn_engine PRIVATE PkgConfig::SENTENCEPIECE)
