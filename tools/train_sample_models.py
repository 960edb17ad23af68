#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Train (or re-evaluate) AttnScope's sample models into sample_models/<name>/.

    tools/.venv/bin/python tools/train_sample_models.py --model induction-gpt2
    tools/.venv/bin/python tools/train_sample_models.py --model rationale-bert
    tools/.venv/bin/python tools/train_sample_models.py --model agreement-gpt2
    tools/.venv/bin/python tools/train_sample_models.py --model translation-t5
    tools/.venv/bin/python tools/train_sample_models.py --model shapes-vit
    tools/.venv/bin/python tools/train_sample_models.py --model all
    tools/.venv/bin/python tools/train_sample_models.py --model induction-gpt2 --eval   # check a saved folder

Everything is generated here from fixed seeds (see each module's *_SEED constants); nothing is downloaded.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sample_models import common  # noqa: E402

MODULES = {
    "induction-gpt2": "sample_models.induction",
    "rationale-bert": "sample_models.rationale",
    "agreement-gpt2": "sample_models.agreement",
    "retrieval-qwen2": "sample_models.retrieval",
    "translation-t5": "sample_models.translation",
    "shapes-vit": "sample_models.shapes",
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, choices=[*MODULES, "all"])
    ap.add_argument("--out", type=Path, default=common.SAMPLE_DIR, help="parent folder (default: sample_models/)")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    ap.add_argument("--steps", type=int, default=None, help="override the number of training steps (experiments)")
    ap.add_argument("--card", action="store_true", help="do not train: re-evaluate the saved folder and rewrite "
                                                        "metrics.json, examples.json and the model card")
    ap.add_argument("--eval", action="store_true", help="do not train: load the saved folder, recompute metrics, "
                                                        "compare with metrics.json")
    args = ap.parse_args()
    names = list(MODULES) if args.model == "all" else [args.model]
    ok = True
    for name in names:
        mod = importlib.import_module(MODULES[name])
        out_dir = args.out / name
        if args.eval:
            ok &= run_eval(mod, out_dir)
            continue
        if args.card:
            info = json.loads((out_dir / "metrics.json").read_text())["training"]
        else:
            info = mod.train(out_dir, threads=args.threads, steps=args.steps)
            info["threads"] = args.threads
        ev = mod.evaluate(out_dir)
        common.write_json(out_dir / "metrics.json", {"model": name, "training": info, "metrics": ev,
                                                     "versions": common.versions()})
        common.write_json(out_dir / "examples.json", examples(mod, out_dir))
        mod.write_card(out_dir, info, ev)
        getattr(mod, "finalize_dir", common.finalize_dir)(out_dir)
        common.assert_no_pickle(out_dir)
        print(f"{name}: wrote {out_dir} ({common.dir_size_kib(out_dir):.0f} KiB)")
        ok &= run_eval(mod, out_dir)
    return 0 if ok else 1


def examples(mod, out_dir: Path) -> list[dict]:
    """A module's examples.json; modules whose examples depend on the saved model (shapes-vit) take the folder."""
    return mod.examples(out_dir) if "out_dir" in inspect.signature(mod.examples).parameters else mod.examples()


def _close(a, b, tol) -> bool:
    if isinstance(a, dict):
        return all(k in b and _close(a[k], b[k], tol) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= tol
    return a == b


def run_eval(mod, out_dir: Path) -> bool:
    """Reload the folder with AutoModel*/AutoTokenizer and check the metrics stored in metrics.json."""
    ev = mod.evaluate(out_dir)
    stored = json.loads((out_dir / "metrics.json").read_text())["metrics"]
    same = _close(stored, json.loads(json.dumps(ev)), 1e-4)
    print(f"{out_dir.name}: reloaded; metrics {'match' if same else 'DIFFER from'} metrics.json")
    print(json.dumps(mod.summary(ev), indent=1))
    return same


if __name__ == "__main__":
    sys.exit(main())
