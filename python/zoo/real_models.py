"""Real model families for the conformance suite, built from their libraries
with random weights (nothing is downloaded): torchvision classification,
segmentation and video models, and transformers models from tiny configs.

    build(name) -> (module in eval mode, args tuple, kwargs dict)

MODELS maps each name to (family, builder, slow). `slow` models take long
enough to export, print and run on a small CPU that they are left to
`make test-slow` (pytest -m slow). Every builder seeds torch first, so the
weights and inputs are the same in every process.
"""
from __future__ import annotations

import contextlib

import torch


@contextlib.contextmanager
def _fake_registration_off():
    """torchvision's C++ extension (torchvision::nms, roi_align...) does not load
    against torch's CPU build, and its Python module then fails registering fake
    kernels for those ops; make register_fake a no-op decorator during the import."""
    rf = torch.library.register_fake
    torch.library.register_fake = lambda *a, **k: (lambda f: f)
    try:
        yield
    finally:
        torch.library.register_fake = rf


def import_torchvision():
    """torchvision, or raise ImportError."""
    with _fake_registration_off():
        import torchvision  # noqa: F401
        from torchvision import models  # noqa: F401
    return torchvision


def import_transformers():
    """transformers, or raise ImportError. transformers imports torchvision (when
    installed) from its model modules, so torchvision is imported first, the way
    import_torchvision does."""
    try:
        import_torchvision()
    except ImportError:
        pass
    import transformers  # noqa: F401
    return transformers


# ---------------------------------------------------------------- torchvision

def _tv(ctor_path, shape, **kw):
    def build():
        tv = import_torchvision()
        torch.manual_seed(0)
        obj = tv.models
        for part in ctor_path.split("."):
            obj = getattr(obj, part)
        m = obj(weights=None, **kw).eval()
        x = torch.randn(*shape)
        return m, (x,), {}
    return build


# ---------------------------------------------------------------- transformers

def _ids(vocab, n=8, batch=1):
    return torch.randint(0, vocab, (batch, n), generator=torch.Generator().manual_seed(1))


def _bert():
    tr = import_transformers()
    torch.manual_seed(0)
    cfg = tr.BertConfig(vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=64, max_position_embeddings=64)
    m = tr.BertModel(cfg).eval()
    ids = _ids(128)
    return m, (), {"input_ids": ids, "attention_mask": torch.ones_like(ids)}


def _causal(cfg_cls, model_cls, **extra):
    def build():
        tr = import_transformers()
        torch.manual_seed(0)
        cfg = getattr(tr, cfg_cls)(**extra)
        cfg.use_cache = False
        m = getattr(tr, model_cls)(cfg).eval()
        ids = _ids(128)
        return m, (), {"input_ids": ids}
    return build


_LLAMA_LIKE = dict(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)


def _t5():
    tr = import_transformers()
    torch.manual_seed(0)
    cfg = tr.T5Config(vocab_size=128, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2,
                      num_heads=4, use_cache=False)
    m = tr.T5ForConditionalGeneration(cfg).eval()
    return m, (), {"input_ids": _ids(128), "decoder_input_ids": _ids(128, 4)}


def _whisper():
    tr = import_transformers()
    torch.manual_seed(0)
    cfg = tr.WhisperConfig(vocab_size=128, num_mel_bins=16, encoder_layers=2, decoder_layers=2,
                           encoder_attention_heads=4, decoder_attention_heads=4, d_model=32,
                           encoder_ffn_dim=64, decoder_ffn_dim=64, max_source_positions=16,
                           max_target_positions=32, use_cache=False, pad_token_id=0,
                           bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    m = tr.WhisperForConditionalGeneration(cfg).eval()
    feats = torch.randn(1, 16, 32)  # (batch, mel bins, 2 * max_source_positions)
    return m, (), {"input_features": feats, "decoder_input_ids": _ids(128, 4)}


def _hf_vit():
    tr = import_transformers()
    torch.manual_seed(0)
    cfg = tr.ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=32, num_hidden_layers=2,
                       num_attention_heads=4, intermediate_size=64)
    m = tr.ViTModel(cfg, add_pooling_layer=True).eval()
    return m, (), {"pixel_values": torch.randn(1, 3, 32, 32)}


def _maxvit():
    """MaxViT as maxvit_t builds it (channels, head size) with one layer per stage and
    partition size 2: maxvit_t's window of 7 needs a 224x224 image (a 64x64 one gives
    16/8/4/2-pixel stages)."""
    tv = import_torchvision()
    from torchvision.models.maxvit import MaxVit
    torch.manual_seed(0)
    m = MaxVit(input_size=(64, 64), stem_channels=64, partition_size=2, block_channels=[64, 128, 256, 512],
               block_layers=[1, 1, 1, 1], head_dim=32, stochastic_depth_prob=0.2, num_classes=1000).eval()
    del tv
    return m, (torch.randn(1, 3, 64, 64),), {}


IMG = (1, 3, 64, 64)

# name -> (family, builder, slow)
MODELS = {
    # torchvision classification
    "resnet18": ("torchvision", _tv("resnet18", IMG), False),
    "mobilenet_v2": ("torchvision", _tv("mobilenet_v2", IMG), False),
    "mobilenet_v3_small": ("torchvision", _tv("mobilenet_v3_small", IMG), False),
    "efficientnet_b0": ("torchvision", _tv("efficientnet_b0", IMG), False),
    "convnext_tiny": ("torchvision", _tv("convnext_tiny", IMG), True),
    "regnet_y_400mf": ("torchvision", _tv("regnet_y_400mf", IMG), False),
    "densenet121": ("torchvision", _tv("densenet121", IMG), True),
    "shufflenet_v2_x0_5": ("torchvision", _tv("shufflenet_v2_x0_5", IMG), False),
    "inception_v3": ("torchvision", _tv("inception_v3", (1, 3, 75, 75), init_weights=False, aux_logits=False), True),
    "vit_b_16": ("torchvision", _tv("vit_b_16", (1, 3, 64, 64), image_size=64), True),
    "swin_t": ("torchvision", _tv("swin_t", (1, 3, 64, 64)), True),
    "maxvit": ("torchvision", _maxvit, True),
    # torchvision segmentation (the forward argument is named `input`)
    "lraspp_mobilenet_v3_large": ("torchvision", _tv("segmentation.lraspp_mobilenet_v3_large", IMG,
                                                     weights_backbone=None, num_classes=4), False),
    "deeplabv3_mobilenet_v3_large": ("torchvision", _tv("segmentation.deeplabv3_mobilenet_v3_large", IMG,
                                                        weights_backbone=None, num_classes=4, aux_loss=False), True),
    "fcn_resnet50": ("torchvision", _tv("segmentation.fcn_resnet50", IMG, weights_backbone=None,
                                        num_classes=4, aux_loss=False), True),
    # torchvision video
    "r3d_18": ("torchvision", _tv("video.r3d_18", (1, 3, 4, 32, 32)), True),
    "mc3_18": ("torchvision", _tv("video.mc3_18", (1, 3, 4, 32, 32)), True),
    # transformers, tiny configs
    "bert": ("transformers", _bert, False),
    "gpt2": ("transformers", _causal("GPT2Config", "GPT2LMHeadModel", vocab_size=128, n_embd=32, n_layer=2,
                                     n_head=4, n_positions=64, bos_token_id=1,
                                     eos_token_id=2), False),
    "llama": ("transformers", _causal("LlamaConfig", "LlamaForCausalLM", **_LLAMA_LIKE), False),
    "qwen2": ("transformers", _causal("Qwen2Config", "Qwen2ForCausalLM", **_LLAMA_LIKE), False),
    "t5": ("transformers", _t5, False),
    "whisper": ("transformers", _whisper, False),
    "hf_vit": ("transformers", _hf_vit, False),
}


def build(name):
    return MODELS[name][1]()


def export(name):
    """(ep as users export it: strict=False, args, kwargs)."""
    m, args, kwargs = build(name)
    with torch.no_grad():
        ep = torch.export.export(m, args, kwargs=kwargs or None, strict=False)
    return ep, args, kwargs
