#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Known answers for the engine's image preprocessing (engine/include/attnscope/image.h) -> tests/fixtures/images/.

  resize/     Pillow's Image.resize on small synthetic RGB images (odd sizes, up, down, one axis only, strong
              antialiasing) for all six filters; inputs and outputs as binary PPM (P6).
  preprocess/ transformers' PIL-backend image processors (ViTImageProcessorPil, DeiTImageProcessorPil) on those
              images with the preprocessor_config.json files beside them: pixel_values [3, H, W] float32 .npy.
  posembed/   torch.nn.functional.interpolate(mode="bicubic", align_corners=False) on random [rows, cols, dim]
              grids, and once through ViTEmbeddings.interpolate_pos_encoding itself: [N, dim] float32 .npy.
  index.json  every case, with the package versions.

Run from the repository root:  /work/venv/bin/python tools/make_image_fixtures.py
"""

import json
import pathlib

import numpy as np
import PIL
import torch
import transformers
from PIL import Image
from transformers import DeiTImageProcessorPil, ViTConfig, ViTImageProcessorPil
from transformers.models.vit.modeling_vit import ViTEmbeddings

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "images"
FILTERS = {0: "nearest", 1: "lanczos", 2: "bilinear", 3: "bicubic", 4: "box", 5: "hamming"}


def write_ppm(path: pathlib.Path, rgb: np.ndarray) -> None:
    h, w, _ = rgb.shape
    path.write_bytes(b"P6\n%d %d\n255\n" % (w, h) + np.ascontiguousarray(rgb, dtype=np.uint8).tobytes())


def synthetic_images() -> dict:
    rng = np.random.default_rng(20261201)
    images = {}
    # Uniform noise: every rounding decision of the resampler is exercised.
    images["noise_31x23"] = rng.integers(0, 256, size=(23, 31, 3), dtype=np.uint8)
    images["noise_17x13"] = rng.integers(0, 256, size=(13, 17, 3), dtype=np.uint8)
    # Smooth gradients with a hard edge: overshoot of bicubic/lanczos gets clipped at 0 and 255.
    y, x = np.mgrid[0:7, 0:9]
    g = np.stack([x * 28, y * 36, np.where(x > 4, 255, 0)], axis=-1)
    images["grad_9x7"] = g.astype(np.uint8)
    yy, xx = np.mgrid[0:37, 0:50]
    checker = ((xx // 3 + yy // 2) % 2) * 255
    images["checker_50x37"] = np.stack([checker, 255 - checker, (xx * 5) % 256], axis=-1).astype(np.uint8)
    images["noise_97x61"] = rng.integers(0, 256, size=(61, 97, 3), dtype=np.uint8)
    images["pixel_1x1"] = np.array([[[200, 17, 99]]], dtype=np.uint8)
    return images


RESIZE_CASES = [  # (image, width, height)
    ("noise_31x23", 16, 16),
    ("noise_31x23", 64, 48),
    ("noise_31x23", 31, 10),
    ("noise_31x23", 7, 23),
    ("grad_9x7", 24, 20),
    ("checker_50x37", 37, 50),
    ("noise_97x61", 5, 3),
    ("noise_17x13", 64, 64),
    ("pixel_1x1", 5, 3),
]

PREPROCESS_CASES = [  # (name, processor class, image, preprocessor_config.json content)
    ("vit_hw", ViTImageProcessorPil, "noise_31x23",
     {"image_processor_type": "ViTImageProcessor", "do_resize": True, "size": {"height": 32, "width": 24},
      "resample": 2, "do_rescale": True, "rescale_factor": 0.00392156862745098, "do_normalize": True,
      "image_mean": [0.5, 0.5, 0.5], "image_std": [0.5, 0.5, 0.5]}),
    ("vit_int_imagenet_bicubic", ViTImageProcessorPil, "checker_50x37",
     {"feature_extractor_type": "ViTFeatureExtractor", "size": 16, "resample": 3,
      "image_mean": [0.485, 0.456, 0.406], "image_std": [0.229, 0.224, 0.225]}),
    ("deit_shortest_crop", DeiTImageProcessorPil, "noise_97x61",
     {"image_processor_type": "DeiTImageProcessor", "do_resize": True, "size": {"shortest_edge": 20},
      "resample": 3, "do_center_crop": True, "crop_size": {"height": 15, "width": 18}, "do_rescale": True,
      "rescale_factor": 0.00392156862745098, "do_normalize": True,
      "image_mean": [0.485, 0.456, 0.406], "image_std": [0.229, 0.224, 0.225]}),
    ("vit_no_resize_no_rescale", ViTImageProcessorPil, "grad_9x7",
     {"image_processor_type": "ViTImageProcessor", "do_resize": False, "do_rescale": False,
      "do_normalize": True, "image_mean": [127.5, 100.0, 3.0], "image_std": [64.0, 50.5, 7.25]}),
    ("vit_nearest_lanczos_odd", ViTImageProcessorPil, "noise_17x13",
     {"image_processor_type": "ViTImageProcessor", "size": {"height": 29, "width": 11}, "resample": 1,
      "rescale_factor": 0.01, "image_mean": 0.25, "image_std": 0.75}),
    ("vit_nearest", ViTImageProcessorPil, "noise_31x23",
     {"image_processor_type": "ViTImageProcessor", "size": {"height": 9, "width": 40}, "resample": 0}),
]

POSEMBED_CASES = [  # (in_rows, in_cols, dim, out_rows, out_cols)
    (4, 4, 16, 6, 5),
    (7, 7, 80, 3, 4),
    (5, 3, 16, 5, 3),
    (1, 1, 16, 3, 2),
    (3, 5, 7, 8, 2),
    (14, 14, 16, 17, 23),
]


def save_npy(path: pathlib.Path, a: np.ndarray) -> None:
    np.save(path, np.ascontiguousarray(a, dtype="<f4"))


def main() -> None:
    for sub in ("resize", "preprocess", "posembed"):
        (OUT / sub).mkdir(parents=True, exist_ok=True)
    index = {"versions": {"pillow": PIL.__version__, "torch": torch.__version__,
                          "transformers": transformers.__version__, "numpy": np.__version__},
             "images": [], "resize": [], "preprocess": [], "posembed": []}

    images = synthetic_images()
    for name, rgb in images.items():
        write_ppm(OUT / f"{name}.ppm", rgb)
        index["images"].append(f"{name}.ppm")

    for name, w, h in RESIZE_CASES:
        src = Image.fromarray(images[name], mode="RGB")
        for code, fname in FILTERS.items():
            out = np.asarray(src.resize((w, h), resample=code))
            file = f"resize/{name}_to_{w}x{h}_{fname}.ppm"
            write_ppm(OUT / file, out)
            index["resize"].append({"input": f"{name}.ppm", "width": w, "height": h, "resample": code,
                                    "expected": file})

    for case, cls, name, config in PREPROCESS_CASES:
        config_file = f"preprocess/{case}.json"
        (OUT / config_file).write_text(json.dumps(config, indent=2) + "\n")
        processor = cls(**{k: v for k, v in config.items() if not k.endswith("_type")})
        pixel_values = processor(Image.fromarray(images[name], mode="RGB"), return_tensors="np")["pixel_values"][0]
        assert pixel_values.dtype == np.float32 and pixel_values.shape[0] == 3, pixel_values.shape
        file = f"preprocess/{case}.pixel_values.npy"
        save_npy(OUT / file, pixel_values)
        index["preprocess"].append({"name": case, "input": f"{name}.ppm", "config": config_file,
                                    "processor": cls.__name__, "expected": file,
                                    "shape": list(pixel_values.shape)})

    gen = torch.Generator().manual_seed(1201)
    for ir, ic, dim, orow, ocol in POSEMBED_CASES:
        grid = torch.randn(1, dim, ir, ic, generator=gen, dtype=torch.float32) * 0.5
        out = torch.nn.functional.interpolate(grid, size=(orow, ocol), mode="bicubic", align_corners=False)
        stem = f"posembed/grid_{ir}x{ic}_d{dim}_to_{orow}x{ocol}"
        save_npy(OUT / f"{stem}.input.npy", grid[0].permute(1, 2, 0).reshape(ir * ic, dim).numpy())
        save_npy(OUT / f"{stem}.expected.npy", out[0].permute(1, 2, 0).reshape(orow * ocol, dim).numpy())
        index["posembed"].append({"in_rows": ir, "in_cols": ic, "dim": dim, "out_rows": orow, "out_cols": ocol,
                                  "input": f"{stem}.input.npy", "expected": f"{stem}.expected.npy", "source": "F.interpolate"})

    # Once through the model's own method: a 4×4 grid of 4-pixel patches asked for a 24×20 image (6×5 patches).
    config = ViTConfig(hidden_size=16, image_size=16, patch_size=4, num_channels=3)
    emb = ViTEmbeddings(config)
    with torch.no_grad():
        emb.position_embeddings.copy_(torch.randn(emb.position_embeddings.shape, generator=gen) * 0.5)
        full = emb.interpolate_pos_encoding(torch.zeros(1, 1 + 6 * 5, 16), height=24, width=20)
    pos = emb.position_embeddings.detach()[0]
    stem = "posembed/vit_embeddings_4x4_d16_to_6x5"
    save_npy(OUT / f"{stem}.input.npy", pos[1:].numpy())
    save_npy(OUT / f"{stem}.expected.npy", full[0, 1:].numpy())
    assert torch.equal(full[0, 0], pos[0]), "the CLS position is kept as it is"
    index["posembed"].append({"in_rows": 4, "in_cols": 4, "dim": 16, "out_rows": 6, "out_cols": 5,
                              "input": f"{stem}.input.npy", "expected": f"{stem}.expected.npy",
                              "source": "ViTEmbeddings.interpolate_pos_encoding"})

    (OUT / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    total = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    print(f"wrote {OUT} ({total / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
