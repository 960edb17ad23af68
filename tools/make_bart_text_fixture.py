#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A tiny BART with its byte-level BPE tokenizer.json, for BART from text (`run --text/--target-text` on a
BartForConditionalGeneration folder): tests/fixtures/models/bart-text-d32 and tests/fixtures/seq2seq_bart/
bart_text.json, the known answers made by transformers' BartTokenizerFast and BartForConditionalGeneration:

- strings: texts (words, punctuation, digits, capitals, accents, CJK and emoji outside the merges, runs of spaces,
  tabs, newlines, leading and trailing spaces, special tokens inside the text, the empty string), each with the
  tokenizer's ids and tokens (`<s> … </s>`, BART's RoBERTa-style post-processor);
- generation: per source text, the ids and greedy generate() (8 new tokens at most, every rule off);
- pairs: per (source, target) the labels (the target through the same tokenizer: `<s> … </s>`), the decoder input
  shift_tokens_right(labels) = [decoder_start] + labels[:-1] and the eager attentions of the teacher-forced pass,
  encoder / decoder / cross.

The tokenizer is trained here (tokenizers' BPE trainer, byte-level alphabet, 400 tokens) on seeded sentences; the
special tokens take BART's ids (<s> 0, <pad> 1, </s> 2, <unk> 3) and <mask> the last. Random weights as
tools/make_bart_fixtures.py draws them (q/k wide so attention is peaked), with </s>'s logit bias lowered by 8 so
greedy generation does not stop at once.

    tools/.venv/bin/python tools/make_bart_text_fixture.py
"""
import json
import pathlib
import random
import shutil

import torch
import transformers
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import BartConfig, BartForConditionalGeneration, BartTokenizerFast

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SEED = 20261206
WORDS = ("the a cat dog sat ran on in mat park big small red blue sees likes and with house tree bird eats "
         "quickly slowly happy old new green under over").split()


def sentences(rng, n):
    out = []
    for _ in range(n):
        k = rng.randint(3, 9)
        s = " ".join(rng.choice(WORDS) for _ in range(k))
        if rng.random() < 0.3:
            s = s.capitalize()
        out.append(s + rng.choice([".", "", "!", "?", ","]))
    return out


def build_tokenizer(folder, rng):
    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=["<s>", "<pad>", "</s>", "<unk>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(sentences(rng, 2000), trainer)
    tok.add_special_tokens(["<mask>"])
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True,
                                                      add_prefix_space=False)
    fast = BartTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", sep_token="</s>",
                             cls_token="<s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>")
    fast.save_pretrained(folder)
    for name in ("vocab.json", "merges.txt"):   # tokenizer.json holds everything the engine reads
        (folder / name).unlink(missing_ok=True)
    return BartTokenizerFast.from_pretrained(folder)


def test_strings(rng):
    fixed = ["", " ", "the cat sat on the mat.", "The Cat SAT!", "  leading and trailing  ", "tabs\tand\nnewlines",
             "digits 0123 456789", "café naïve über", "数字 and 漢字", "emoji 🐈 🐕", "a  b   c    d",
             "<mask> in the middle", "the <s> cat </s> sat", "punctuation: (a), [b]; {c}?!", "dog's tree-house",
             "x" * 40, "quickly quickly quickly"]
    return fixed + sentences(rng, 60)


def randomize(model, gen):
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "layernorm" in name.lower() or "layer_norm" in name:
                p.copy_((1.0 if name.endswith("weight") else 0.0) + 0.1 * torch.randn(p.shape, generator=gen))
            elif "q_proj" in name or "k_proj" in name:
                p.copy_(0.3 * torch.randn(p.shape, generator=gen))
            elif "embed" in name or "shared" in name:
                p.copy_(torch.randn(p.shape, generator=gen))
            else:
                p.copy_(0.1 * torch.randn(p.shape, generator=gen))
        model.final_logits_bias.copy_(0.5 * torch.randn(model.final_logits_bias.shape, generator=gen))
        model.final_logits_bias[0, 2] -= 8.0   # </s> unlikely, so greedy generation runs its 8 tokens


def main():
    rng = random.Random(SEED)
    gen = torch.Generator().manual_seed(SEED)
    folder = FIXTURES / "models" / "bart-text-d32"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    tok = build_tokenizer(folder, rng)
    config = BartConfig(vocab_size=len(tok), d_model=32, encoder_layers=2, decoder_layers=2,
                        encoder_attention_heads=4, decoder_attention_heads=2, encoder_ffn_dim=48, decoder_ffn_dim=40,
                        max_position_embeddings=64, scale_embedding=True, activation_function="gelu",
                        pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2,
                        forced_eos_token_id=None, forced_bos_token_id=None, attn_implementation="eager")
    model = BartForConditionalGeneration(config).eval()
    randomize(model, gen)
    model.save_pretrained(folder)
    (folder / "generation_config.json").unlink(missing_ok=True)

    strings = [{"text": s, "ids": tok(s)["input_ids"], "tokens": tok.convert_ids_to_tokens(tok(s)["input_ids"])}
               for s in test_strings(rng)]

    def attentions(o, field):
        return [x[0].reshape(-1).tolist() for x in getattr(o, field)]   # per layer: [heads · rows · cols]

    generation = []
    for text in ["the cat sat on the mat.", "a big dog likes the park", "Happy birds eat quickly!"]:
        ids = tok(text, return_tensors="pt")["input_ids"]
        with torch.no_grad():
            out = model.generate(ids, max_new_tokens=8, do_sample=False, num_beams=1, min_length=0,
                                 no_repeat_ngram_size=0, repetition_penalty=1.0, forced_bos_token_id=None,
                                 forced_eos_token_id=None, use_cache=False)
        generation.append({"text": text, "ids": ids[0].tolist(), "generated_8": out[0, 1:].tolist()})
        print("generate", text, out[0, 1:].tolist())
    pairs = []
    for source, target in [("the cat sat on the mat.", "a small bird eats."),
                           ("Old trees in the park", "the house under the tree!"),
                           ("dog", "cat")]:
        enc = tok(source, text_target=target, return_tensors="pt")
        labels = enc["labels"]
        dec = torch.cat([torch.full((1, 1), config.decoder_start_token_id), labels[:, :-1]], 1)
        with torch.no_grad():
            o = model(input_ids=enc["input_ids"], decoder_input_ids=dec, output_attentions=True, use_cache=False)
        pairs.append({"source": source, "target": target, "input_ids": enc["input_ids"][0].tolist(),
                      "labels": labels[0].tolist(), "decoder_input_ids": dec[0].tolist(),
                      "encoder_attentions": attentions(o, "encoder_attentions"),
                      "decoder_attentions": attentions(o, "decoder_attentions"),
                      "cross_attentions": attentions(o, "cross_attentions")})
    doc = {"versions": {"transformers": transformers.__version__, "torch": torch.__version__},
           "strings": strings, "generation": generation, "pairs": pairs}
    out = FIXTURES / "seq2seq_bart" / "bart_text.json"
    out.write_text(json.dumps(doc, ensure_ascii=False) + "\n")
    print(out, out.stat().st_size, "bytes;", sorted(p.name for p in folder.iterdir()))


if __name__ == "__main__":
    main()
