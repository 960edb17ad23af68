# SPDX-License-Identifier: GPL-3.0-or-later
# Image preprocessing (image.h, npy.h) against Pillow, transformers' PIL-backend processors and torch
# (tests/fixtures/images, tools/make_image_fixtures.py).
attn_add_qt_test(tst_image LABELS engine LIBS attn_engine Qt6::Core)
# Vision Transformers (vit.h) against transformers' ViTModel / ViTForImageClassification
# (tests/fixtures/models/vit-*, tests/fixtures/vision, tools/make_vision_fixtures.py).
attn_add_qt_test(tst_vision LABELS model LIBS attn_engine Qt6::Gui)
# `attnscope-cli run --image / --pixel-values` (app/cli/verb_vision.cpp), run with QProcess.
attn_add_qt_test(tst_vision_cli LABELS cli LIBS attn_engine Qt6::Gui)
target_compile_definitions(tst_vision_cli PRIVATE ATTNSCOPE_CLI_PATH="$<TARGET_FILE:attnscope-cli>")
add_dependencies(tst_vision_cli attnscope-cli)
set_tests_properties(tst_vision_cli PROPERTIES TIMEOUT 300)
# The bundled ViT sample (sample_models/shapes-vit) scored against its card: pointing game and IoU of attention,
# rollout and occlusion on the 200 held-out images with their true masks (tools/sample_models/shapes.py).
attn_add_qt_test(tst_vision_sample LABELS analysis LIBS attn_engine Qt6::Gui)
