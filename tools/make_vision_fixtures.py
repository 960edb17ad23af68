#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Known answers for the engine's Vision Transformers, ViT and DeiT (engine/include/attnscope/vit.h) -> tests/fixtures/.

  models/<name>/      tiny ViT and DeiT checkpoints made by transformers with random weights (config.json, model.safetensors
                      as save_pretrained writes them, and a preprocessor_config.json for ViTImageProcessorPil)
  vision/<case>/      pixel_values.npy [3, H, W], attentions.npy [layers, heads, T, T], hidden_states.npy
                      [layers + 1, T, D] (output_hidden_states), last_hidden.npy [T, D] (after the final
                      layernorm), logits.npy [num_labels] (classifiers) or pooled.npy [D] (the base models'
                      pooler); DeiT with teacher also cls_logits.npy and distillation_logits.npy (logits = their mean)
  vision/index.json   every case with its model, image size, interpolate_pos_encoding and the package versions

Weights are drawn with large spreads (N(0, 0.2²) for the query and key matrices, so attention is peaked, not uniform, N(0, 0.15²) for the other
matrices and the CLS / distillation tokens; layer norms
1 + N(0, 0.1²); biases N(0, 0.1²)), so a swapped, transposed or missing tensor changes the answers. T = S + patches
(S = 1: the CLS token first; DeiT S = 2: CLS, then the distillation token). The DeiT models and cases come after
the ViT ones in MODELS and CASES, so adding them left every ViT fixture's random draws, and bytes, as they were. Cases: the model's own image size (no resampling enters), a second image size through
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
from transformers import (DeiTConfig, DeiTForImageClassification, DeiTForImageClassificationWithTeacher,
                          DeiTImageProcessorPil, DeiTModel, ViTConfig, ViTForImageClassification, ViTImageProcessorPil,
                          ViTModel)

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
    # DeiT with teacher (the distilled classifiers the Hub ships, facebook/deit-*-distilled-*): 24×24 pixels in 4×4
    # patches, 6×6 = 36 patches + CLS + DIST = 38 tokens; four heads of 10; four labels; its processor resizes to
    # 28×28 (bicubic) and crops the centre 24×24, as DeiT's 256 → 224.
    "deit-teacher-d40h4": (DeiTForImageClassificationWithTeacher,
                           dict(hidden_size=40, num_hidden_layers=2, num_attention_heads=4, intermediate_size=72,
                                image_size=24, patch_size=4, num_labels=4, hidden_act="gelu",
                                id2label={i: f"kind_{i}" for i in range(4)}, label2id={f"kind_{i}": i for i in range(4)}),
                           dict(size={"height": 28, "width": 28}, crop_size={"height": 24, "width": 24},
                                do_center_crop=True, resample=3)),
    # DeiTForImageClassification (the CLS head only, the distillation token still in the sequence): 20×20 in 5×5
    # patches, 4×4 = 16 + 2 = 18 tokens; three labels; no q/k/v bias.
    "deit-cls-d32h2": (DeiTForImageClassification,
                       dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=48,
                            image_size=20, patch_size=5, num_labels=3, hidden_act="gelu", qkv_bias=False),
                       dict(size={"height": 20, "width": 20}, do_center_crop=False, resample=2)),
    # DeiTModel with its pooler: 18×18 in 3×3 patches, 6×6 = 36 + 2 = 38 tokens; three heads of 12; interpolated to
    # a 7×5 grid (21×15 pixels).
    "deit-base-d36h3": (DeiTModel,
                        dict(hidden_size=36, num_hidden_layers=3, num_attention_heads=3, intermediate_size=60,
                             image_size=18, patch_size=3, hidden_act="gelu_new", layer_norm_eps=1e-6),
                        dict(size={"height": 18, "width": 18}, do_center_crop=False, resample=3)),
}

# case -> (model, pixel source, interpolate_pos_encoding)
CASES = {
    "vit-cls-plain": ("vit-cls-d48h3", ("random", 28, 28), False),
    "vit-cls-image": ("vit-cls-d48h3", ("png", "gradient_45x37.png"), False),
    "vit-base-plain": ("vit-base-d80h5", ("random", 30, 30), False),
    "vit-base-interp": ("vit-base-d80h5", ("random", 35, 20), True),   # 7×4 patches from the 6×6 grid
    "deit-teacher-plain": ("deit-teacher-d40h4", ("random", 24, 24), False),
    "deit-teacher-image": ("deit-teacher-d40h4", ("png", "gradient_45x37.png"), False),   # resize 28², crop 24²
    "deit-cls-plain": ("deit-cls-d32h2", ("random", 20, 20), False),
    "deit-base-plain": ("deit-base-d36h3", ("random", 18, 18), False),
    "deit-base-interp": ("deit-base-d36h3", ("random", 21, 15), True),   # 7×5 patches from the 6×6 grid
    # The PNG through a processor of its own (saved in the case folder; the GUI test puts it beside the model):
    # resized to 21×15, so the positions are interpolated as in deit-base-interp, from a real image.
    "deit-base-image-interp": ("deit-base-d36h3", ("png", "gradient_45x37.png",
                                                   dict(size={"height": 21, "width": 15}, do_center_crop=False,
                                                        resample=3)), True),
}

CONFIGS = {ViTForImageClassification: ViTConfig, ViTModel: ViTConfig, DeiTForImageClassificationWithTeacher: DeiTConfig,
           DeiTForImageClassification: DeiTConfig, DeiTModel: DeiTConfig}
PROCESSORS = {ViTConfig: ViTImageProcessorPil, DeiTConfig: DeiTImageProcessorPil}


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
        cfg = CONFIGS[cls](**kwargs, attn_implementation="eager")
        model = cls(cfg).eval()
        randomize(model, gen)
        folder = FIXTURES / "models" / name
        if folder.exists():
            shutil.rmtree(folder)
        model.save_pretrained(folder)
        proc = PROCESSORS[CONFIGS[cls]](**proc_kwargs)
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
            proc = processors[model_name]
            if len(source) > 2:   # a processor of the case's own
                proc = type(proc)(**source[2])
            pixels = proc(image, return_tensors="pt")["pixel_values"]
        with torch.no_grad():
            out = model(pixels, output_attentions=True, output_hidden_states=True, interpolate_pos_encoding=interp)
        d = vision / case
        d.mkdir()
        if source[0] == "png" and len(source) > 2:
            proc.save_pretrained(d)
        save_npy(d / "pixel_values.npy", pixels[0])
        save_npy(d / "attentions.npy", torch.stack([a[0] for a in out.attentions]))
        save_npy(d / "hidden_states.npy", torch.stack([h[0] for h in out.hidden_states]))
        if isinstance(model, (ViTForImageClassification, DeiTForImageClassification,
                              DeiTForImageClassificationWithTeacher)):
            # The classifier's input is the final layernorm's CLS row; last_hidden is recomputed from the last
            # hidden state the same way the model does it.
            base = model.vit if isinstance(model, ViTForImageClassification) else model.deit
            save_npy(d / "last_hidden.npy", base.layernorm(out.hidden_states[-1])[0])
            save_npy(d / "logits.npy", out.logits[0])
            if isinstance(model, DeiTForImageClassificationWithTeacher):
                save_npy(d / "cls_logits.npy", out.cls_logits[0])
                save_npy(d / "distillation_logits.npy", out.distillation_logits[0])
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
