# tokenizer sources: target_sources(attn_engine PRIVATE ...)
