# SPDX-License-Identifier: GPL-3.0-or-later
# Tokenizer suites (label "model"): parity with Hugging Face tokenizers on tests/fixtures/tokenizers (made by
# tools/make_tokenizer_fixtures.py), and every bad tokenizer file as an error value.

attn_add_qt_test(tst_tokenizer LABELS model LIBS attn_engine nlohmann_json::nlohmann_json)
attn_add_qt_test(tst_tokenizer_forms LABELS model LIBS attn_engine nlohmann_json::nlohmann_json)
