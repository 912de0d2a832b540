"""A small decoder that generates tokens under the profiler: one forward over the prompt (the prefill), then one
forward a new token (the decode steps), each in a region named after its phase, with its batch and its tokens.

The model is built from a small configuration with random weights: nothing is downloaded, and the recording needs
nothing but torch. Its cache of keys and values grows by concatenation (``dynamic``) or is written in place into
buffers sized for the whole generation (``static``).

Run it as a script to print each phase's calls and CPU time in one generation.
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

PHASES = ("prefill", "decode")


# --8<-- [start:cache]
class DynamicCache:
    """Each layer's keys and values, grown by concatenation: every step allocates the whole cache anew."""

    def __init__(self, layers):
        self.keys, self.values = [None] * layers, [None] * layers

    def update(self, layer, position, k, v):
        """Add this step's keys and values (batch × heads × tokens × head width); return all of them so far."""
        if self.keys[layer] is not None:
            k = torch.cat([self.keys[layer], k], dim=2)
            v = torch.cat([self.values[layer], v], dim=2)
        self.keys[layer], self.values[layer] = k, v
        return k, v, None  # no mask: a decode step's one query may see every key


class StaticCache:
    """Buffers for the whole generation, allocated once and written in place: every step attends over all of
    them, with a mask that hides the positions not yet written, so that every decode step has the same shapes."""

    def __init__(self, layers, batch, heads, head_width, max_tokens, dtype, device):
        shape = (batch, heads, max_tokens, head_width)
        self.keys = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(layers)]
        self.values = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(layers)]
        self.max_tokens = max_tokens

    def update(self, layer, position, k, v):
        written = position + torch.arange(k.shape[2], device=k.device)
        self.keys[layer].index_copy_(2, written, k)
        self.values[layer].index_copy_(2, written, v)
        seen = torch.arange(self.max_tokens, device=k.device) <= written[:, None]  # query × key: causal
        return self.keys[layer], self.values[layer], seen
# --8<-- [end:cache]


# --8<-- [start:model]
class Block(nn.Module):
    """A pre-norm decoder block: attention over the cache, then a SwiGLU MLP, each added to the residual."""

    def __init__(self, width, heads, hidden):
        super().__init__()
        self.heads = heads
        self.attention_norm, self.mlp_norm = nn.RMSNorm(width), nn.RMSNorm(width)
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width, bias=False)
        self.gate_up = nn.Linear(width, 2 * hidden, bias=False)
        self.down = nn.Linear(hidden, width, bias=False)

    def forward(self, x, cache, layer, position):
        batch, tokens, width = x.shape
        q, k, v = self.qkv(self.attention_norm(x)).view(batch, tokens, 3, self.heads, -1).transpose(1, 3).unbind(2)
        k, v, seen = cache.update(layer, position, k, v)
        causal = seen is None and tokens > 1  # the prefill of a dynamic cache: its queries are its keys
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=seen, is_causal=causal)
        x = x + self.out(y.transpose(1, 2).reshape(batch, tokens, width))
        gate, up = self.gate_up(self.mlp_norm(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


class Decoder(nn.Module):
    """Token and position embeddings, a stack of blocks, a final norm and the projection to the vocabulary."""

    def __init__(self, vocabulary=2048, layers=2, width=256, heads=4, hidden=1024, max_tokens=512):
        super().__init__()
        self.heads, self.max_tokens = heads, max_tokens
        self.embed, self.positions = nn.Embedding(vocabulary, width), nn.Embedding(max_tokens, width)
        self.blocks = nn.ModuleList(Block(width, heads, hidden) for _ in range(layers))
        self.norm = nn.RMSNorm(width)
        self.head = nn.Linear(width, vocabulary, bias=False)

    def forward(self, ids, cache, position):
        """Logits of the tokens ``ids`` (batch × tokens) that start at ``position``, their keys and values added
        to ``cache``."""
        x = self.embed(ids) + self.positions(position + torch.arange(ids.shape[1], device=ids.device))
        for layer, block in enumerate(self.blocks):
            x = block(x, cache, layer, position)
        return self.head(self.norm(x))

    def new_cache(self, kind, batch):
        if kind == "dynamic":
            return DynamicCache(len(self.blocks))
        head_width = self.head.in_features // self.heads
        return StaticCache(len(self.blocks), batch, self.heads, head_width, self.max_tokens,
                           self.head.weight.dtype, self.head.weight.device)
# --8<-- [end:model]


# --8<-- [start:generate]
@torch.inference_mode()
def generate(model, prompt, new_tokens, cache="dynamic", step=None):
    """Greedy decoding: the prefill reads the whole prompt at once, then each decode step feeds back the one
    token the step before chose. ``step`` is called after each phase's step (a profiler's ``step``)."""
    batch, prompt_tokens = prompt.shape
    cache = model.new_cache(cache, batch)
    with record_function(f"prefill bs={batch} toks={batch * prompt_tokens}"):
        token = model(prompt, cache, 0)[:, -1:].argmax(-1)
    chosen = [token]
    if step:
        step()
    for position in range(prompt_tokens, prompt_tokens + new_tokens - 1):
        with record_function(f"decode bs={batch} toks={batch}"):
            token = model(token, cache, position)[:, -1:].argmax(-1)
        chosen.append(token)
        if step:
            step()
    return torch.cat(chosen, dim=1)
# --8<-- [end:generate]


def make_decoder(vocabulary=2048, layers=2, width=256, heads=4, hidden=1024, max_tokens=512, batch=1,
                 prompt_tokens=64, dtype=torch.float32, device="cpu"):
    """The decoder with random weights, in eval mode, and a batch of random prompts."""
    torch.manual_seed(0)
    model = Decoder(vocabulary, layers, width, heads, hidden, max_tokens).to(device=device, dtype=dtype).eval()
    prompt = torch.randint(vocabulary, (batch, prompt_tokens), device=device)
    return model, prompt


# --8<-- [start:profile]
def profile_generation(new_tokens=32, cache="dynamic", vocabulary=32000, layers=8, width=1024, heads=16,
                       hidden=4096, batch=1, prompt_tokens=512, threads=None, device=None, on_trace_ready=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if threads:
        torch.set_num_threads(threads)
    dtype = torch.bfloat16 if device == "cuda" else torch.float32  # a CPU multiplies float32 fastest
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    model, prompt = make_decoder(vocabulary, layers, width, heads, hidden, prompt_tokens + new_tokens, batch,
                                 prompt_tokens, dtype, device)
    # The first generation is the profiler's warm-up step (kernels load, the allocator fills its cache): traced,
    # then thrown away. The second is kept, one profiler step a phase's step: the prefill, then each decode step.
    with profile(activities=activities, schedule=schedule(wait=0, warmup=1, active=new_tokens, repeat=1),
                 on_trace_ready=on_trace_ready) as prof:
        generate(model, prompt, new_tokens, cache)
        prof.step()
        generate(model, prompt, new_tokens, cache, step=prof.step)
    return prof
# --8<-- [end:profile]


def print_phases(prof):
    """Each phase's calls and CPU time (the regions' names carry the batch and the tokens)."""
    for row in prof.key_averages():
        if row.key.startswith(PHASES):
            print(f"{row.key:>28}: {row.count} calls, {row.cpu_time_total / 1000:.1f} ms")


if __name__ == "__main__":
    profile_generation(new_tokens=8, vocabulary=512, layers=2, width=64, heads=2, hidden=128, prompt_tokens=16,
                       on_trace_ready=print_phases)
