# model tests: the safetensors reader, model loading, each family's config mapping, the forward pass with hooks, and parity with
# Hugging Face transformers (fixtures from tools/make_parity_fixtures.py under tests/fixtures/).
attn_add_qt_test(tst_safetensors LABELS model LIBS attn_engine)
attn_add_qt_test(tst_model LABELS model LIBS attn_engine)
attn_add_qt_test(tst_model_parity LABELS model LIBS attn_engine)
attn_add_qt_test(tst_model_forward LABELS model LIBS attn_engine)
attn_add_qt_test(tst_textmodel LABELS model LIBS attn_engine)
attn_add_qt_test(tst_model_families LABELS model LIBS attn_engine)
attn_add_qt_test(tst_model_export LABELS model LIBS attn_engine Qt6::Core SOURCES jsonschema.cpp)
target_compile_definitions(tst_model_export PRIVATE ATTNSCOPE_SCHEMA_DIR="${PROJECT_SOURCE_DIR}/docs/schema")
