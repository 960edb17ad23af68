#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Known answers for the engine's Vision Transformer (engine/include/attnscope/vit.h) -> tests/fixtures/.

  models/<name>/      tiny ViT checkpoints made by transformers with random weights (config.json, model.safetensors
                      as save_pretrained writes them, and a preprocessor_config.json for ViTImageProcessorPil)
  vision/<case>/      pixel_values.npy [3, H, W], attentions.npy [layers, heads, T, T], hidden_states.npy
                      [layers + 1, T, D] (output_hidden_states), last_hidden.npy [T, D] (after the final
                      layernorm), logits.npy [num_labels] (classifiers) or pooled.npy [D] (ViTModel's pooler)
  vision/index.json   every case with its model, image size, interpolate_pos_encoding and the package versions

Weights are drawn with large spreads (N(0, 0.2²) for the query and key matrices, so attention is peaked, not uniform, N(0, 0.15²) for the other
matrices; layer norms
1 + N(0, 0.1²); biases N(0, 0.1²)), so a swapped, transposed or missing tensor changes the answers. T = 1 + patches
(the CLS token first). Cases: the model's own image size (no resampling enters), a second image size through
interpolate_pos_encoding, and an image file run through ViTImageProcessorPil (the CLI's --image path: a PNG that
Qt decodes, then the engine's Pillow-exact resize and normalisation).

Run from the repository root:  /work/venv/bin/python tools/make_vision_fixtures.py
"""

import json
import pathlib
import shutil

import numpy as np
import PIL
import torch
import transformers
from PIL import Image
from transformers import ViTConfig, ViTForImageClassification, ViTImageProcessorPil, ViTModel

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SEED = 20261202

# name -> (class, config kwargs, preprocessor kwargs)
MODELS = {
    # 28×28 pixels in 4×4 patches: 7×7 = 49 patches, T = 50; d = 16 per head; erf GELU; five labels.
    "vit-cls-d48h3": (ViTForImageClassification,
                      dict(hidden_size=48, num_hidden_layers=2, num_attention_heads=3, intermediate_size=96,
                           image_size=28, patch_size=4, num_labels=5, hidden_act="gelu",
                           id2label={i: f"class_{i}" for i in range(5)}, label2id={f"class_{i}": i for i in range(5)}),
                      dict(size={"height": 28, "width": 28}, resample=2)),
    # 30×30 pixels in 5×5 patches: 6×6 = 36 patches, T = 37; five heads of 16; three layers, tanh GELU, no q/k/v
    # bias; ViTModel with its pooler; a non-square second size through interpolate_pos_encoding.
    "vit-base-d80h5": (ViTModel,
                       dict(hidden_size=80, num_hidden_layers=3, num_attention_heads=5, intermediate_size=112,
                            image_size=30, patch_size=5, hidden_act="gelu_new", qkv_bias=False, layer_norm_eps=1e-6),
                       dict(size={"height": 30, "width": 30}, resample=3, image_mean=[0.485, 0.456, 0.406],
                            image_std=[0.229, 0.224, 0.225])),
}

# case -> (model, pixel source, interpolate_pos_encoding)
CASES = {
    "vit-cls-plain": ("vit-cls-d48h3", ("random", 28, 28), False),
    "vit-cls-image": ("vit-cls-d48h3", ("png", "gradient_45x37.png"), False),
    "vit-base-plain": ("vit-base-d80h5", ("random", 30, 30), False),
    "vit-base-interp": ("vit-base-d80h5", ("random", 35, 20), True),   # 7×4 patches from the 6×6 grid
}


def randomize(model: torch.nn.Module, gen: torch.Generator) -> None:
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=gen)
            if "layernorm" in name.lower() and name.endswith("weight"):
                p.copy_(1.0 + 0.1 * noise)
            elif p.ndim == 1:
                p.copy_(0.1 * noise)
            elif any(k in name for k in ("q_proj", "k_proj", "query", "key")):
                p.copy_(0.2 * noise)   # scores of several units: peaked attention
            else:
                p.copy_(0.15 * noise)


def test_image(rng: np.random.Generator) -> np.ndarray:
    # A smooth gradient plus noise, 45 wide and 37 high (resized to the model's size by the processor).
    y, x = np.mgrid[0:37, 0:45]
    base = np.stack([x * 255 / 44, y * 255 / 36, (x + y) * 255 / 80], axis=-1)
    return np.clip(base + rng.normal(0, 25, base.shape), 0, 255).astype(np.uint8)


def save_npy(path: pathlib.Path, a) -> None:
    if isinstance(a, torch.Tensor):
        a = a.detach()
    np.save(path, np.ascontiguousarray(np.asarray(a, dtype=np.float32)))


def main() -> None:
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    vision = FIXTURES / "vision"
    if vision.exists():
        shutil.rmtree(vision)
    vision.mkdir(parents=True)
    models, processors = {}, {}
    for name, (cls, kwargs, proc_kwargs) in MODELS.items():
        cfg = ViTConfig(**kwargs, attn_implementation="eager")
        model = cls(cfg).eval()
        randomize(model, gen)
        folder = FIXTURES / "models" / name
        if folder.exists():
            shutil.rmtree(folder)
        model.save_pretrained(folder)
        proc = ViTImageProcessorPil(**proc_kwargs)
        proc.save_pretrained(folder)
        models[name], processors[name] = model, proc

    Image.fromarray(test_image(rng)).save(vision / "gradient_45x37.png")

    index = {"versions": {"transformers": transformers.__version__, "torch": torch.__version__,
                          "pillow": PIL.__version__, "numpy": np.__version__}, "cases": []}
    for case, (model_name, source, interp) in CASES.items():
        model = models[model_name]
        if source[0] == "random":
            _, h, w = source
            pixels = torch.from_numpy(rng.uniform(-1.5, 1.5, size=(1, 3, h, w)).astype(np.float32))
        else:
            image = Image.open(vision / source[1]).convert("RGB")
            pixels = processors[model_name](image, return_tensors="pt")["pixel_values"]
        with torch.no_grad():
            out = model(pixels, output_attentions=True, output_hidden_states=True, interpolate_pos_encoding=interp)
        d = vision / case
        d.mkdir()
        save_npy(d / "pixel_values.npy", pixels[0])
        save_npy(d / "attentions.npy", torch.stack([a[0] for a in out.attentions]))
        save_npy(d / "hidden_states.npy", torch.stack([h[0] for h in out.hidden_states]))
        if isinstance(model, ViTForImageClassification):
            # The classifier's input is the final layernorm's CLS row; last_hidden is recomputed from the last
            # hidden state the same way the model does it.
            save_npy(d / "last_hidden.npy", model.vit.layernorm(out.hidden_states[-1])[0])
            save_npy(d / "logits.npy", out.logits[0])
        else:
            save_npy(d / "last_hidden.npy", out.last_hidden_state[0])
            save_npy(d / "pooled.npy", out.pooler_output[0])
        att = torch.stack([a[0] for a in out.attentions])
        # transformers' own float32 rounding: the same model and input in float64. The engine's error cannot be
        # expected below this, so the fixtures are kept where it is well under the tests' 1e-5.
        with torch.no_grad():
            out64 = model.double()(pixels.double(), output_attentions=True, interpolate_pos_encoding=interp)
            model.float()
        att64 = torch.stack([a[0] for a in out64.attentions])
        entry = {"case": case, "model": model_name, "height": int(pixels.shape[2]), "width": int(pixels.shape[3]),
                 "interpolate_pos_encoding": interp, "tokens": int(att.shape[-1]),
                 "mean_max_weight": round(float(att.max(-1).values.mean()), 4),
                 "hf_float32_vs_float64_attention": float(f"{float((att.double() - att64).abs().max()):.3g}")}
        if source[0] == "png":
            entry["image"] = source[1]
        index["cases"].append(entry)
        print(case, entry)
    (vision / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    for name in MODELS:
        print(name, sorted((FIXTURES / "models" / name).iterdir()))


if __name__ == "__main__":
    main()
