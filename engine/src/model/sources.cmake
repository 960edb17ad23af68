# model loading sources: target_sources(attn_engine PRIVATE ...)
