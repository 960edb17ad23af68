# SPDX-License-Identifier: GPL-3.0-or-later
# Encoder-decoder models (seq2seq.h): T5 against transformers' T5ForConditionalGeneration, teacher-forced
# (tests/fixtures/models/t5-*, tests/fixtures/seq2seq, tools/make_seq2seq_fixtures.py).
attn_add_qt_test(tst_seq2seq LABELS model LIBS attn_engine Qt6::Core)
