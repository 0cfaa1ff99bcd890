"""The reader's model in PyTorch: the packaged encoder with a span head.

Training (``scripts/train_reader.py``) and PyTorch reading use it; ONNX Runtime reads
from its export (``reader.Reader``) and, once the export is cached, never loads it, so
a process that only asks questions does not import PyTorch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file

from ..errors import ModelUnavailable
from ..settings import DEFAULT_MODEL
from .embedding import resolve_model_path


class ReaderModel(torch.nn.Module):
    """Encoder + a linear head giving each token a start and an end logit."""

    def __init__(self, encoder: Any) -> None:
        super().__init__()
        self.encoder = encoder
        self.qa = torch.nn.Linear(encoder.config.hidden_size, 2)
        torch.nn.init.normal_(self.qa.weight, std=0.02)
        torch.nn.init.zeros_(self.qa.bias)

    @classmethod
    def from_encoder(cls) -> ReaderModel:
        from transformers import AutoModel

        encoder = AutoModel.from_pretrained(resolve_model_path(DEFAULT_MODEL))
        return cls(encoder)

    def freeze_embeddings(self) -> None:
        for p in self.encoder.embeddings.parameters():
            p.requires_grad = False

    def trainable_state(self) -> dict[str, torch.Tensor]:
        """The weights the reader ships: everything but the frozen embeddings."""
        return {k: v for k, v in self.state_dict().items() if ".embeddings." not in f".{k}"}

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state
        logits = self.qa(hidden).float().masked_fill((mask == 0).unsqueeze(-1), -1e4)
        return logits[..., 0], logits[..., 1]


def load(weights: Path, bf16: bool) -> ReaderModel:
    """The shipped reader over the packaged encoder (whose frozen embeddings it reads),
    ready to read: in bf16, or fp32."""
    model = ReaderModel.from_encoder()
    missing, unexpected = model.load_state_dict(load_file(str(weights)), strict=False)
    if unexpected or any(".embeddings." not in f".{k}" for k in missing):
        raise ModelUnavailable(f"{weights} does not fit the packaged encoder")
    model.eval()
    return model.to(torch.bfloat16) if bf16 else model
