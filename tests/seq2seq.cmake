# SPDX-License-Identifier: GPL-3.0-or-later
# Encoder-decoder models (seq2seq.h): T5 against transformers' T5ForConditionalGeneration, teacher-forced
# (tests/fixtures/models/t5-*, tests/fixtures/seq2seq, tools/make_seq2seq_fixtures.py).
attn_add_qt_test(tst_seq2seq LABELS model LIBS attn_engine Qt6::Core)
# `attnscope-cli run` on encoder-decoder folders (app/cli/verb_seq2seq.cpp): text, generation and teacher forcing
# against transformers (tests/fixtures/seq2seq/text.json, tools/make_seq2seq_text_fixture.py), run with QProcess.
attn_add_qt_test(tst_seq2seq_cli LABELS cli LIBS attn_engine Qt6::Core SOURCES jsonschema.cpp)
target_compile_definitions(tst_seq2seq_cli PRIVATE ATTNSCOPE_CLI_PATH="$<TARGET_FILE:attnscope-cli>"
                                                   ATTNSCOPE_SCHEMA_DIR="${PROJECT_SOURCE_DIR}/docs/schema")
add_dependencies(tst_seq2seq_cli attnscope-cli)
set_tests_properties(tst_seq2seq_cli PROPERTIES TIMEOUT 300)
# The alignment error rate (alignment.h) and the bundled translation sample's cross-attention against its card.
attn_add_qt_test(tst_translation_sample LABELS analysis LIBS attn_engine Qt6::Core)
