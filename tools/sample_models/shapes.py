# SPDX-License-Identifier: GPL-3.0-or-later
"""shapes-vit: a tiny Vision Transformer (32×32 RGB, 4×4 patches, 8×8 = 64 patches + CLS) trained to name the colour
of the one cross ("plus", 7×7 px, arms 3 px wide) in a picture that also holds 3-5 filled squares drawn from the
same four colours on low-contrast grey noise:

    class = colour of the cross        (red, green, blue, yellow)

Colour alone does not decide (the squares use the same colours, independently of the label): the model has to find
the cross. Every image ships with its ground-truth mask (the cross's pixels), so attention, attention rollout and
occlusion can be scored against the truth — pointing game and IoU over the 8×8 patch grid."""
from __future__ import annotations

import json
import math
import shutil
import time
from pathlib import Path

import numpy as np
import torch

from . import common

NAME = "shapes-vit"
DATA_SEED = 3131       # training images (drawn afresh for every batch)
TORCH_SEED = 17        # initial weights
EVAL_SEED = 2718       # the 200 held-out images shipped in eval/
N_EVAL = 200

LABELS = ["red", "green", "blue", "yellow"]
COLOURS = np.array([[220, 50, 50], [50, 190, 70], [60, 90, 230], [225, 205, 50]], dtype=np.int64)
IMAGE, PATCH = 32, 4
GRID = IMAGE // PATCH            # 8 patches a side
TRUTH_MIN_PIXELS = 4             # a patch is a truth patch when >= 4 of its 16 pixels are in the mask
CROSS, ARM = 7, 3                # the cross: 7×7 box, a 3-px-wide bar each way through its centre
SQUARE_SIDES = (4, 5, 6)
N_SQUARES = (3, 5)               # inclusive range of distractors
COLOUR_JITTER = 20               # ± per channel and object
BACKGROUND = (96, 160)           # per-image grey level range
NOISE_SD = 6.0                   # per-pixel grey noise

CFG = dict(hidden_size=64, num_hidden_layers=3, num_attention_heads=4, intermediate_size=128, steps=2000,
           batch=64, lr=2e-3, warmup=200, weight_decay=0.05, label_smoothing=0.1)
# Label smoothing keeps the softmax off 1.0 (p about 0.93 instead of 1 - 1e-5), so that occlusion's probability
# drops are graded and far above float rounding rather than a few ulps of a saturated softmax.

PREPROCESSOR = {"image_processor_type": "ViTImageProcessor", "do_resize": True, "size": {"height": 32, "width": 32},
                "resample": 2, "do_rescale": True, "rescale_factor": 1 / 255, "do_normalize": True,
                "image_mean": [0.5, 0.5, 0.5], "image_std": [0.5, 0.5, 0.5]}


# ---- generator ------------------------------------------------------------------------------------------------

def cross_mask(size: int = CROSS, arm: int = ARM) -> np.ndarray:
    m = np.zeros((size, size), dtype=bool)
    lo = (size - arm) // 2
    m[lo:lo + arm, :] = True
    m[:, lo:lo + arm] = True
    return m


def _free(boxes, y, x, s) -> bool:
    """True when the box [y, y+s) × [x, x+s) keeps at least one pixel of background from every box placed."""
    return all(y + s < by or by + bs < y or x + s < bx or bx + bs < x for by, bx, bs in boxes)


def _colour(rng, k: int) -> np.ndarray:
    return np.clip(COLOURS[k] + rng.integers(-COLOUR_JITTER, COLOUR_JITTER + 1, size=3), 0, 255)


def make_image(rng: np.random.Generator) -> dict:
    """One picture: uint8 image [32, 32, 3], uint8 mask [32, 32] (255 on the cross), label, the cross's top-left
    corner (y, x) and the distractors' colours."""
    label = int(rng.integers(len(LABELS)))
    grey = rng.integers(*BACKGROUND) + rng.normal(0.0, NOISE_SD, size=(IMAGE, IMAGE))
    img = np.repeat(np.clip(np.rint(grey), 0, 255)[:, :, None], 3, axis=2).astype(np.int64)
    mask = np.zeros((IMAGE, IMAGE), dtype=np.uint8)
    cy, cx = (int(v) for v in rng.integers(0, IMAGE - CROSS + 1, size=2))
    shape = cross_mask()
    img[cy:cy + CROSS, cx:cx + CROSS][shape] = _colour(rng, label)
    mask[cy:cy + CROSS, cx:cx + CROSS][shape] = 255
    boxes = [(cy, cx, CROSS)]
    want = int(rng.integers(N_SQUARES[0], N_SQUARES[1] + 1))
    squares = []
    for _ in range(200):
        if len(squares) == want:
            break
        s = int(SQUARE_SIDES[rng.integers(len(SQUARE_SIDES))])
        y, x = (int(v) for v in rng.integers(0, IMAGE - s + 1, size=2))
        if not _free(boxes, y, x, s):
            continue
        k = int(rng.integers(len(LABELS)))
        img[y:y + s, x:x + s] = _colour(rng, k)
        boxes.append((y, x, s))
        squares.append(k)
    return {"image": img.astype(np.uint8), "mask": mask, "label": label, "cross": (cy, cx), "squares": squares}


def truth_patches(mask: np.ndarray) -> list[int]:
    """Patch p (row p // 8, column p % 8, pixels [4r, 4r+4) × [4c, 4c+4)) is a truth patch iff at least
    TRUTH_MIN_PIXELS of its 16 pixels are in the mask."""
    counts = (mask > 0).reshape(GRID, PATCH, GRID, PATCH).sum(axis=(1, 3)).reshape(-1)
    return [int(p) for p in np.flatnonzero(counts >= TRUTH_MIN_PIXELS)]


def pixel_values(images: np.ndarray) -> torch.Tensor:
    """uint8 [n, 32, 32, 3] -> float32 [n, 3, 32, 32] as ViTImageProcessor computes it at the model's own size:
    rescale in float64 (p * (1/255)), cast to float32, then (x - 0.5) / 0.5 in float32."""
    x = (images.astype(np.float64) * (1 / 255)).astype(np.float32)
    x = (x - np.float32(0.5)) / np.float32(0.5)
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))


def batch(rng, n):
    items = [make_image(rng) for _ in range(n)]
    return pixel_values(np.stack([it["image"] for it in items])), torch.tensor([it["label"] for it in items])


def eval_items(n=N_EVAL, seed=EVAL_SEED) -> list[dict]:
    rng = np.random.default_rng(seed)
    items = [make_image(rng) for _ in range(n)]
    for it in items:
        it["truth"] = truth_patches(it["mask"])
        assert it["truth"], "a cross with no truth patch"
    return items


# ---- training -------------------------------------------------------------------------------------------------

def vit_config(cfg: dict):
    from transformers import ViTConfig

    return ViTConfig(image_size=IMAGE, patch_size=PATCH, num_channels=3, hidden_size=cfg["hidden_size"],
                     num_hidden_layers=cfg["num_hidden_layers"], num_attention_heads=cfg["num_attention_heads"],
                     intermediate_size=cfg["intermediate_size"], hidden_act="gelu", qkv_bias=True,
                     hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, num_labels=len(LABELS),
                     id2label=dict(enumerate(LABELS)), label2id={n: i for i, n in enumerate(LABELS)},
                     attn_implementation="eager")


@torch.no_grad()
def accuracy(model, items) -> float:
    logits = model(pixel_values=pixel_values(np.stack([it["image"] for it in items]))).logits
    return float((logits.argmax(-1) == torch.tensor([it["label"] for it in items])).float().mean())


def train(out_dir: Path, threads: int, steps: int | None = None, log=print) -> dict:
    from transformers import ViTForImageClassification

    cfg = dict(CFG)
    if steps:
        cfg["steps"] = steps
    common.seed_everything(TORCH_SEED, threads)
    common.clean_model_dir(out_dir)
    torch.manual_seed(TORCH_SEED)
    model = ViTForImageClassification(vit_config(cfg))
    opt = common.adamw_on_matrices(model, cfg)
    lr_at = common.warmup_cosine(cfg)
    rng = np.random.default_rng(DATA_SEED)
    monitor = eval_items()     # progress log only; nothing is selected on it

    model.train()
    t0 = time.time()
    for step in range(cfg["steps"]):
        x, y = batch(rng, cfg["batch"])
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        loss = torch.nn.functional.cross_entropy(model(pixel_values=x).logits, y,
                                                 label_smoothing=cfg["label_smoothing"])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 250 == 0 or step == cfg["steps"] - 1:
            model.eval()
            acc = accuracy(model, monitor)
            model.train()
            log(f"step {step:5d} loss {loss.item():.3f} held-out accuracy {acc:.3f} ({time.time() - t0:.0f}s)")
    model.eval()
    model.save_pretrained(str(out_dir), safe_serialization=True)
    for p in out_dir.glob("*.bin"):
        p.unlink()
    common.write_json(out_dir / "preprocessor_config.json", PREPROCESSOR)
    import PIL

    return {"cfg": cfg, "seeds": {"data": DATA_SEED, "torch": TORCH_SEED, "eval": EVAL_SEED},
            "train_seconds": round(time.time() - t0, 1), "pillow": PIL.__version__}


# ---- evaluation -----------------------------------------------------------------------------------------------

def load(out_dir: Path):
    from transformers import AutoModelForImageClassification

    return AutoModelForImageClassification.from_pretrained(str(out_dir), attn_implementation="eager",
                                                           dtype=torch.float32).eval()


def method_names(layers: int, heads: int) -> list[str]:
    return ([f"L{l} H{h}" for l in range(layers) for h in range(heads)] + [f"L{l} mean" for l in range(layers)]
            + ["rollout", "occlusion"])


def rollout(att: np.ndarray) -> np.ndarray:
    """Abnar & Zuidema's rollout with the residual, float64. att [L, H, T, T] -> R [T, T]:
    Ã_l = 0.5 mean_h(A_l) + 0.5 I, each row divided by its sum; R = Ã_{L-1} ... Ã_0."""
    T = att.shape[-1]
    R = None
    for l in range(att.shape[0]):
        a = 0.5 * att[l].mean(axis=0) + 0.5 * np.eye(T)
        a = a / a.sum(axis=-1, keepdims=True)
        R = a if R is None else a @ R
    return R


@torch.no_grad()
def relevances(model, image: np.ndarray) -> tuple[int, dict]:
    """The predicted class and, per method, 64 patch relevances (CLS query row, patch key columns 1..64)."""
    x = pixel_values(image[None])
    out = model(pixel_values=x, output_attentions=True)
    att = np.stack([a[0].double().numpy() for a in out.attentions])        # [L, H, 65, 65]
    L, H = att.shape[:2]
    rel = {}
    for l in range(L):
        for h in range(H):
            rel[f"L{l} H{h}"] = att[l, h, 0, 1:]
        rel[f"L{l} mean"] = att[l].mean(axis=0)[0, 1:]
    rel["rollout"] = rollout(att)[0, 1:]
    probs = torch.softmax(out.logits[0].double(), -1)          # float64 softmax of the float32 logits
    pred = int(out.logits[0].argmax())
    # Occlusion: every patch in turn set to pixel value 0.0 (grey, all three channels), one batch of 64.
    occ = x.repeat(GRID * GRID, 1, 1, 1)
    for p in range(GRID * GRID):
        r, c = divmod(p, GRID)
        occ[p, :, PATCH * r:PATCH * (r + 1), PATCH * c:PATCH * (c + 1)] = 0.0
    after = torch.softmax(model(pixel_values=occ).logits.double(), -1)[:, pred]
    rel["occlusion"] = (probs[pred] - after).numpy()
    return pred, rel


def top_k(rel: np.ndarray, k: int) -> list[int]:
    """The k highest relevances; ties go to the lower patch index first (stable sort)."""
    return [int(p) for p in np.argsort(-rel, kind="stable")[:k]]


def pointing_hit(rel: np.ndarray, truth: list[int]) -> bool:
    return int(np.argmax(rel)) in truth        # np.argmax: the first (lowest) index among ties


def iou(rel: np.ndarray, truth: list[int]) -> float:
    t, k = set(truth), len(truth)
    top = set(top_k(rel, k))
    return len(top & t) / len(top | t)


def random_iou(k: int, n: int = GRID * GRID) -> float:
    """Exact expected IoU of a uniformly random k-subset of n patches against k truth patches: the overlap X is
    hypergeometric, IoU = X / (2k - X)."""
    return sum(math.comb(k, x) * math.comb(n - k, k - x) / math.comb(n, k) * x / (2 * k - x)
               for x in range(k + 1))


def score(model, items) -> tuple[dict, list[dict]]:
    """Accuracy, and pointing game and IoU per method, each averaged over the images; plus each image's
    prediction and argmax patch per method."""
    L, H = model.config.num_hidden_layers, model.config.num_attention_heads
    names = method_names(L, H)
    point = {m: 0.0 for m in names + ["random"]}
    ious = {m: 0.0 for m in names + ["random"]}
    ties = {m: 0 for m in names}
    correct, per_image = 0, []
    for it in items:
        pred, rel = relevances(model, it["image"])
        correct += pred == it["label"]
        for m in names:
            point[m] += pointing_hit(rel[m], it["truth"])
            ious[m] += iou(rel[m], it["truth"])
            top2 = np.sort(rel[m])[-2:]
            ties[m] += bool(top2[0] == top2[1])
        point["random"] += len(it["truth"]) / (GRID * GRID)
        ious["random"] += random_iou(len(it["truth"]))
        per_image.append({"predicted": pred, "argmax": {m: int(np.argmax(rel[m])) for m in names}})
    n = len(items)
    ev = {"n_eval": n, "accuracy": round(correct / n, 4),
          "mean_truth_patches": round(sum(len(it["truth"]) for it in items) / n, 4),
          "pointing": {m: round(v / n, 4) for m, v in point.items()},
          "iou": {m: round(v / n, 4) for m, v in ious.items()},
          "ties_at_top": {m: v for m, v in ties.items() if v}}
    heads = [f"L{l} H{h}" for l in range(L) for h in range(H)]
    ev["best_head_pointing"] = max(heads, key=lambda m: (ev["pointing"][m], ev["iou"][m]))
    ev["best_head_iou"] = max(heads, key=lambda m: (ev["iou"][m], ev["pointing"][m]))
    return ev, per_image


def save_png(path: Path, array: np.ndarray) -> None:
    from PIL import Image

    Image.fromarray(array).save(path, optimize=True)


def write_eval_set(out_dir: Path, items, per_image) -> None:
    """eval/NNN.png (RGB), eval/NNN_mask.png (grey 0/255) and eval/index.json for AttnScope's tests and GUI."""
    d = out_dir / "eval"
    if d.exists():
        shutil.rmtree(d)
    d.mkdir()
    rows = []
    for i, (it, res) in enumerate(zip(items, per_image)):
        save_png(d / f"{i:03d}.png", it["image"])
        save_png(d / f"{i:03d}_mask.png", it["mask"])
        rows.append({"image": f"eval/{i:03d}.png", "mask": f"eval/{i:03d}_mask.png", "label": it["label"],
                     "label_name": LABELS[it["label"]], "truth_patches": it["truth"], "predicted": res["predicted"]})
    doc = {"description": f"shapes-vit's {len(items)} held-out images (seed {EVAL_SEED}) with the cross's pixel "
                          f"mask; patch p (row p // 8, column p % 8, pixels [4r, 4r+4) x [4c, 4c+4)) is a truth "
                          f"patch iff at least {TRUTH_MIN_PIXELS} of its 16 pixels are in the mask",
           "patch_size": PATCH, "grid": [GRID, GRID], "truth_min_pixels": TRUTH_MIN_PIXELS,
           "labels": LABELS, "items": rows}
    common.write_json_compact_items(d / "index.json", doc, "items")


def evaluate(out_dir: Path) -> dict:
    model = load(out_dir)
    items = eval_items()
    ev, per_image = score(model, items)
    write_eval_set(out_dir, items, per_image)
    return ev


def summary(ev: dict) -> dict:
    keep = ["rollout", "occlusion", "random", ev["best_head_pointing"]] + [k for k in ev["pointing"] if "mean" in k]
    return {"accuracy": ev["accuracy"], "best_head_pointing": ev["best_head_pointing"],
            "pointing": {k: ev["pointing"][k] for k in keep}, "iou": {k: ev["iou"][k] for k in keep}}


# ---- examples and card ----------------------------------------------------------------------------------------

def _where(cy: int, cx: int) -> str:
    mid_y, mid_x = cy + CROSS // 2, cx + CROSS // 2
    row = ["top", "middle", "bottom"][min(2, mid_y * 3 // IMAGE)]
    col = ["left", "centre", "right"][min(2, mid_x * 3 // IMAGE)]
    return "centre" if (row, col) == ("middle", "centre") else f"{row} {col}"


def examples(out_dir: Path) -> list[dict]:
    """The first held-out image of each class (copied to examples/), with where its cross is and which methods'
    top patch lands on it."""
    model = load(out_dir)
    items = eval_items()
    d = out_dir / "examples"
    if d.exists():
        shutil.rmtree(d)
    d.mkdir()
    metrics = json.loads((out_dir / "metrics.json").read_text())["metrics"]
    shown = ["rollout", "occlusion", metrics["best_head_pointing"]] + \
        [f"L{l} mean" for l in range(model.config.num_hidden_layers)]
    out = []
    for label in range(len(LABELS)):
        i = next(i for i, it in enumerate(items) if it["label"] == label)
        it = items[i]
        n = len(out)
        shutil.copyfile(out_dir / "eval" / f"{i:03d}.png", d / f"{n:02d}.png")
        shutil.copyfile(out_dir / "eval" / f"{i:03d}_mask.png", d / f"{n:02d}_mask.png")
        pred, rel = relevances(model, it["image"])
        hits = [m for m in shown if pointing_hit(rel[m], it["truth"])]
        misses = [m for m in shown if m not in hits]
        same = sum(k == label for k in it["squares"])
        same = "none" if same == 0 else ("one" if same == 1 else str(same))
        cy, cx = it["cross"]
        text = (f"Held-out image eval/{i:03d}.png. The {LABELS[label]} cross is at the {_where(cy, cx)} "
                f"(pixels x {cx}-{cx + CROSS - 1}, y {cy}-{cy + CROSS - 1}; truth patches "
                f"{', '.join(map(str, it['truth']))}) among {len(it['squares'])} squares, {same} of them "
                f"{LABELS[label]}. Predicted: {LABELS[pred]}. ")
        text += (f"Top patch on the cross: {', '.join(hits)}" if hits else "No method's top patch is on the cross")
        text += f"; off it: {', '.join(misses)}." if misses else "."
        out.append({"image": f"examples/{n:02d}.png", "mask": f"examples/{n:02d}_mask.png",
                    "label_name": LABELS[label], "what_to_look_for": text})
    return out


def finalize_dir(out_dir: Path) -> None:
    """World-readable files (save_pretrained writes model.safetensors 0600 through a temp file); no tokenizer."""
    for p in out_dir.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)


def write_card(out_dir: Path, info: dict, ev: dict) -> None:
    cfg = info["cfg"]
    model = load(out_dir)
    n_params = sum(p.numel() for p in model.parameters())
    L, H = model.config.num_hidden_layers, model.config.num_attention_heads
    P, I = ev["pointing"], ev["iou"]
    bp, bi = ev["best_head_pointing"], ev["best_head_iou"]
    row = lambda label, m: [label, f"{P[m]:.3f}", f"{I[m]:.3f}"]
    main_rows = [row(f"best head by pointing ({bp})", bp)]
    if bi != bp:
        main_rows.append(row(f"best head by IoU ({bi})", bi))
    main_rows += [row(f"layer {l} mean of heads", f"L{l} mean") for l in range(L)]
    main_rows += [row("rollout", "rollout"), row("occlusion", "occlusion"), row("random (expected)", "random")]
    ties = ", ".join(f"{m} {v}" for m, v in ev["ties_at_top"].items()) or "none, for every method"
    head_rows = [[l, h, f"{P[f'L{l} H{h}']:.3f}", f"{I[f'L{l} H{h}']:.3f}"] for l in range(L) for h in range(H)]
    ranked = sorted([(P[m], m) for m in ["occlusion", "rollout", bp] + [f"L{l} mean" for l in range(L)]],
                    reverse=True)
    last = [P[f"L{L - 1} H{h}"] for h in range(H)]
    verdict = ("Ranked by pointing game: " + ", ".join(f"{m} {v:.3f}" for v, m in ranked)
               + f" (random {P['random']:.3f}). The CLS row of the last layer's heads points at the cross in at most "
               f"{max(last) * 100:.1f} % of the images, with the model right on {ev['accuracy'] * 100:.1f} %")
    verdict += (": raw attention of the last layer is a poor guide to what decides the class here."
                if max(last) < 0.5 * P["occlusion"] else ".")
    card = f"""---
license: gpl-3.0
library_name: transformers
pipeline_tag: image-classification
tags: [attnscope, vision-transformer, vit, attention-rollout, occlusion, pointing-game, synthetic]
---

# shapes-vit (AttnScope sample model)

A Vision Transformer (`ViTForImageClassification`: {L} layers, hidden size {cfg['hidden_size']}, {H} heads of
{cfg['hidden_size'] // H}, GELU feed-forward of {cfg['intermediate_size']}, q/k/v biases, {n_params:,} parameters)
trained from scratch on generated 32×32 RGB pictures in 4×4 patches: 8×8 = 64 patches plus CLS, 65 tokens. Its class
is decided by ONE object whose pixels are known, so attention, attention rollout and occlusion can be scored against
the truth.

Layers and heads are numbered from 0 (`attentions[l][0, h]` in transformers). Licence of the weights and the
generated images: **GPL-3.0-or-later** (part of AttnScope). Trained by
`tools/train_sample_models.py --model {NAME}`; nothing downloaded.

## The task

Each picture has a grey background (one level in {BACKGROUND[0]}–{BACKGROUND[1] - 1} per picture plus per-pixel noise
of σ {NOISE_SD:g}), {N_SQUARES[0]}–{N_SQUARES[1]} filled squares of side {', '.join(map(str, SQUARE_SIDES))} px and
exactly one cross (a {CROSS}×{CROSS} "plus" with {ARM}-px-wide arms). Every object gets one of the four class colours
({', '.join(f'{n} {tuple(int(v) for v in c)}' for n, c in zip(LABELS, COLOURS))}, each channel jittered by
±{COLOUR_JITTER}); objects never touch (one background pixel at least between their boxes). **The class is the
colour of the cross.** The squares' colours are drawn independently of it, so colour alone does not decide: the
model has to find the cross.

Held-out accuracy on {ev['n_eval']} images (seed {EVAL_SEED}): **{ev['accuracy'] * 100:.1f} %**.

## Ground truth and metrics

`eval/` holds the {ev['n_eval']} held-out images (`NNN.png`, RGB) with their masks (`NNN_mask.png`, grey, 255 on
the cross's pixels); `eval/index.json` lists each with its label, its truth patches and the model's prediction.

- **Truth patches.** Patch p (row r = p // 8, column c = p % 8, pixels [4r, 4r+4) × [4c, 4c+4)) is a truth patch
  iff at least {TRUTH_MIN_PIXELS} of its 16 pixels are in the mask. Every image has at least one (on average
  {ev['mean_truth_patches']:.2f}).
- **Pixel values** are ViTImageProcessor's at the model's own size (no resampling): p · (1/255) in float64, cast to
  float32, then (x − 0.5) / 0.5 in float32; channel-major [3, 32, 32].
- **Relevance of a patch**, per method, from the CLS query row with the CLS key column dropped (64 values, patch p
  is token p + 1), float64 from the float32 attentions:
  - `L{{l}} H{{h}}`: `attentions[l][0, h, 0, 1:]`; `L{{l}} mean`: the mean over heads of layer l;
  - `rollout` (Abnar & Zuidema 2020, with the residual): Ã_l = 0.5 · mean_h(A_l) + 0.5 · I, each row divided by its
    sum; R = Ã_{{L−1}} · … · Ã_0; relevance R[0, 1:];
  - `occlusion`: patch p's 16 pixels set to pixel value 0.0 (grey) in all three channels, the model rerun;
    relevance = softmax probability of the predicted (unoccluded argmax) class before minus after, the softmax
    taken in float64 of the float32 logits;
  - `random`: the expectation for a uniformly random ranking, computed exactly: pointing |truth| / 64; IoU
    E[X / (2k − X)] with k = |truth| and X hypergeometric (k of 64 patches drawn, k of them truth).
- **Pointing game**: the fraction of images whose highest-relevance patch (ties → the lowest index) is a truth patch.
- **IoU**: |top-k ∩ truth| / |top-k ∪ truth| with k = |truth|, top-k the k highest-relevance patches (ties → lower
  index first); averaged over the images.

All images count, the {round((1 - ev['accuracy']) * ev['n_eval'])} misclassified ones included. Images whose two
highest relevances are exactly equal (where the tie rule decides the pointing game): {ties}.

## Results

{common.fmt_table(["method", "pointing game", "IoU"], main_rows)}

{verdict} Per head:

{common.fmt_table(["layer", "head", "pointing game", "IoU"], head_rows)}

Check a folder with `tools/.venv/bin/python tools/train_sample_models.py --model {NAME} --eval`: it reloads it
with `AutoModelForImageClassification` (eager attention, float32), recomputes every number above and compares them
with `metrics.json`.

## Training

Retrain with `tools/.venv/bin/python tools/train_sample_models.py --model {NAME}` (overwrites the folder). AdamW
(lr {cfg['lr']}, warm-up {cfg['warmup']} steps then cosine to 5 %, β 0.9/0.98, weight decay {cfg['weight_decay']}
on matrices), {cfg['steps']} steps of {cfg['batch']} freshly generated pictures, cross-entropy with label smoothing
{cfg['label_smoothing']} (keeps the softmax off 1.0, so occlusion's drops are graded), dropout 0, gradient
clip 1.0, eager attention. Seeds: data {DATA_SEED}, torch {TORCH_SEED}, held-out {EVAL_SEED}; deterministic torch
algorithms, CPU, {info.get('threads', 1)} thread(s), {info['train_seconds']} s. Versions: {common.versions_md()},
pillow {info.get('pillow', '?')} (writes the PNGs).
"""
    (out_dir / "README.md").write_text(card)
