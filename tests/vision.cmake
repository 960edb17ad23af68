# SPDX-License-Identifier: GPL-3.0-or-later
# Image preprocessing (image.h, npy.h) against Pillow, transformers' PIL-backend processors and torch
# (tests/fixtures/images, tools/make_image_fixtures.py).
attn_add_qt_test(tst_image LABELS engine LIBS attn_engine Qt6::Core)
# Vision Transformers (vit.h) against transformers' ViTModel / ViTForImageClassification
# (tests/fixtures/models/vit-*, tests/fixtures/vision, tools/make_vision_fixtures.py).
attn_add_qt_test(tst_vision LABELS model LIBS attn_engine Qt6::Gui)
