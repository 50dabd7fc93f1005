#!/usr/bin/env python3
"""The PyTorch side of `recurlab_bench`: PyTorch's own modules on the shapes recurlab_bench sends.

recurlab_bench starts this script once and talks to it over stdin/stdout, one JSON object per line,
so that the two sides run in interleaved rounds on the same machine with the same thread count:

  request  {"case": NAME, "threads": N, "blas_threads": M, "steps": K, "warmup": W, "shape": {...}}
  reply    {"seconds": S, "units": U, "parameters": P}   (K timed steps after W untimed ones)
           {"error": "..."}                              (the case failed; the bench says so)

A request's thread count applies to LibTorch's intra-op threads and, unless blas_threads says
otherwise, to OpenBLAS's (recurlab_bench sets its own the same way). The first line written is {"ready": true, "torch": VERSION}, or {"ready": false, "reason": ...}
when this Python has no torch. Cases (the shapes are recurlab's):
  mt_train   nn.Transformer (post-norm, as recurlab's) with a shared embedding and tied output,
             label-smoothed cross-entropy, Adam step; units: target tokens.
  mt_beam    the same model, beam search batched over sentences (nn.Transformer has no
             incremental state: each step reruns the decoder on the prefix); units: sentences.
  lm_train   embedding -> nn.LSTM -> linear over the vocabulary, BPTT segment, Adam step;
             units: characters (batch x bptt).
  sru_train  a plain-PyTorch SRU (one matmul per layer, then the elementwise recurrence as a
             loop over time steps: the reference SRU's CPU fallback) under the same head;
             units: as the case that names it (characters or sentences).
  cls_train  embedding -> encoder (nn.LSTM or the plain SRU) -> mean over time -> linear, Adam step;
             units: sentences.
  qa_train   the DrQA reader with stacked one-layer bi-LSTMs (nn.LSTM), span losses, clipping,
             Adamax step; units: questions.
"""
import ctypes
import json
import math
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as missing:  # recurlab_bench tries the next interpreter, or runs alone
    print(json.dumps({"ready": False, "reason": f"{sys.executable}: {missing}"}), flush=True)
    sys.exit(0)


def padded_batch(lengths, vocab, first_id, pad, generator):
    """(T, B) tokens with each column real for its length, pad after; and the pad mask."""
    T, B = max(lengths), len(lengths)
    tokens = torch.randint(first_id, vocab, (T, B), generator=generator)
    pad_mask = torch.arange(T).unsqueeze(1) >= torch.tensor(lengths).unsqueeze(0)
    return tokens.masked_fill(pad_mask, pad), pad_mask


def sinusoids(length, d):
    pos = torch.arange(length, dtype=torch.float32).unsqueeze(1)
    i = torch.arange(d // 2, dtype=torch.float32)
    angle = pos / torch.pow(10000.0, 2 * i / d)
    return torch.cat([angle.sin(), angle.cos()], 1)


class Seq2SeqTransformer(nn.Module):
    PAD, BOS, EOS = 0, 1, 2

    def __init__(self, s):
        super().__init__()
        self.d = s["d_model"]
        self.embedding = nn.Embedding(s["vocab"], self.d, padding_idx=self.PAD)
        self.transformer = nn.Transformer(
            d_model=self.d, nhead=s["heads"], num_encoder_layers=s["encoder_layers"],
            num_decoder_layers=s["decoder_layers"], dim_feedforward=s["ffn"],
            dropout=s["dropout"])
        self.dropout = s["dropout"]
        self.register_buffer("positions", sinusoids(1024, self.d), persistent=False)

    def embed(self, tokens):
        x = self.embedding(tokens) * math.sqrt(self.d) + self.positions[:tokens.size(0)].unsqueeze(1)
        return F.dropout(x, self.dropout, self.training)

    def encode(self, source, source_pad):
        return self.transformer.encoder(self.embed(source), src_key_padding_mask=source_pad.t())

    def decode(self, target_in, target_pad, memory, memory_pad):
        T = target_in.size(0)
        causal = torch.triu(torch.full((T, T), float("-inf")), 1)
        x = self.transformer.decoder(
            self.embed(target_in), memory, tgt_mask=causal,
            tgt_key_padding_mask=None if target_pad is None else target_pad.t(),
            memory_key_padding_mask=memory_pad.t())
        return x @ self.embedding.weight.t()


class MtTrain:
    def __init__(self, s):
        g = torch.Generator().manual_seed(1)
        self.model = Seq2SeqTransformer(s)
        self.model.train()
        self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-4, betas=(0.9, 0.998))
        self.source, self.source_pad = padded_batch(s["source_lengths"], s["vocab"], 3, 0, g)
        target, self.target_pad = padded_batch([n + 1 for n in s["target_lengths"]], s["vocab"], 3, 0, g)
        self.target_in, self.target_out = target[:-1], target[1:]
        self.target_in = self.target_in.clone()
        self.target_in[0] = Seq2SeqTransformer.BOS
        self.target_pad = self.target_pad[1:]
        self.smoothing = s["label_smoothing"]
        self.units = int((~self.target_pad).sum())

    def step(self):
        self.opt.zero_grad(set_to_none=True)
        memory = self.model.encode(self.source, self.source_pad)
        logits = self.model.decode(self.target_in, self.target_pad, memory, self.source_pad)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), self.target_out.reshape(-1),
                               ignore_index=0, label_smoothing=self.smoothing, reduction="sum")
        (loss / self.units).backward()
        self.opt.step()


class MtBeam:
    """Beam search batched over sentences and beams, finished hypotheses kept aside, GNMT length
    penalty; stops when every sentence's beams have ended or at a * |source| + b tokens."""

    def __init__(self, s):
        g = torch.Generator().manual_seed(2)
        self.model = Seq2SeqTransformer(s)
        self.model.eval()
        self.source, self.source_pad = padded_batch(s["source_lengths"], s["vocab"], 3, 0, g)
        self.beam, self.alpha = s["beam"], s["alpha"]
        self.max_len = int(s["max_length_a"] * max(s["source_lengths"]) + s["max_length_b"])
        self.units = len(s["source_lengths"])

    @torch.no_grad()
    def step(self):
        m, K = self.model, self.beam
        B = self.source.size(1)
        memory = m.encode(self.source, self.source_pad)
        memory = memory.repeat_interleave(K, 1)
        memory_pad = self.source_pad.repeat_interleave(K, 1)
        prefix = torch.full((1, B * K), m.BOS, dtype=torch.long)
        scores = torch.zeros(B, K)
        scores[:, 1:] = float("-inf")
        done = torch.zeros(B * K, dtype=torch.bool)
        for t in range(self.max_len):
            logits = m.decode(prefix, None, memory, memory_pad)[-1]
            lp = F.log_softmax(logits, -1)
            lp[done] = float("-inf")
            lp[done, m.EOS] = 0.0
            V = lp.size(-1)
            total = (scores.view(B * K, 1) + lp).view(B, K * V)
            scores, flat = total.topk(K, -1)
            origin = (flat // V) + torch.arange(B).unsqueeze(1) * K
            token = (flat % V).view(-1)
            origin = origin.view(-1)
            prefix = torch.cat([prefix[:, origin], token.unsqueeze(0)], 0)
            done = done[origin] | (token == m.EOS)
            if bool(done.all()):
                break
        length = (prefix != m.EOS).sum(0).float()
        penalty = ((5 + length) / 6) ** self.alpha
        best = (scores.view(-1) / penalty).view(B, K).argmax(-1)
        return best


class PlainSru(nn.Module):
    """SRU layers (Lei et al. 2018, eq. 3-7) in plain PyTorch: U = X W in one matmul, then
    c_t = f ⊙ c_{t-1} + (1 - f) ⊙ z, h_t = r ⊙ c_t + (1 - r) ⊙ x_t step by step."""

    def __init__(self, input_size, hidden, layers, projection):
        super().__init__()
        self.layers = nn.ModuleList()
        for i in range(layers):
            d_in = input_size if i == 0 else hidden
            layer = nn.Module()
            if projection and projection < d_in:
                layer.proj = nn.Parameter(torch.randn(d_in, projection) / math.sqrt(d_in))
                d_w = projection
            else:
                layer.proj = None
                d_w = d_in
            k = 3 if d_in == hidden else 4
            layer.k = k
            layer.weight = nn.Parameter(torch.randn(d_w, hidden * k) / math.sqrt(d_w))
            layer.weight_c = nn.Parameter(torch.randn(2 * hidden) * 0.5)
            layer.bias = nn.Parameter(torch.zeros(2 * hidden))
            self.layers.append(layer)
        self.hidden = hidden

    def forward(self, x):
        for layer in self.layers:
            L, B, _ = x.shape
            flat = x.reshape(L * B, -1)
            if layer.proj is not None:
                flat = flat @ layer.proj
            u = (flat @ layer.weight).view(L, B, self.hidden, layer.k)
            skip = x if layer.k == 3 else u[..., 3]
            vf, vr = layer.weight_c.view(2, self.hidden)
            bf, br = layer.bias.view(2, self.hidden)
            c = x.new_zeros(B, self.hidden)
            hs = []
            for t in range(L):
                f = torch.sigmoid(u[t, :, :, 1] + vf * c + bf)
                r = torch.sigmoid(u[t, :, :, 2] + vr * c + br)
                c = f * c + (1 - f) * u[t, :, :, 0]
                hs.append(r * c + (1 - r) * skip[t])
            x = torch.stack(hs)
        return x


class PlainMinGru(nn.Module):
    """minGRU layers (Feng et al. 2024, section 3 and the log-space form of its appendix) in plain
    PyTorch, all steps at once: k and the candidate from one matmul, then
    log h_t = A_t + log sum_{i<=t} exp(log z_i + log g(candidate_i) - A_i), A the cumulative sum
    of log(1 - z) (cumsum and logcumsumexp over time)."""

    def __init__(self, input_size, hidden, layers):
        super().__init__()
        self.weights = nn.ParameterList()
        self.biases = nn.ParameterList()
        for i in range(layers):
            d_in = input_size if i == 0 else hidden
            self.weights.append(nn.Parameter(torch.randn(d_in, 2 * hidden) / math.sqrt(d_in)))
            self.biases.append(nn.Parameter(torch.zeros(2 * hidden)))
        self.hidden = hidden

    @staticmethod
    def log_g(x):
        return torch.where(x >= 0, torch.log(F.relu(x) + 0.5), -F.softplus(-x))

    def forward(self, x):
        for weight, bias in zip(self.weights, self.biases):
            k, candidate = torch.addmm(bias, x.flatten(0, 1), weight).view(
                x.shape[0], x.shape[1], 2, self.hidden).unbind(2)
            log_a = -F.softplus(k)
            log_b = -F.softplus(-k) + self.log_g(candidate)
            a_star = torch.cumsum(log_a, dim=0)
            x = torch.exp(a_star + torch.logcumsumexp(log_b - a_star, dim=0))
        return x


def encoder_of(s, input_size):
    if s["encoder"] == "min_gru":
        return PlainMinGru(input_size, s["hidden"], s["layers"])
    if s["encoder"] == "lstm":
        return nn.LSTM(input_size, s["hidden"], s["layers"], bidirectional=s.get("bidirectional", False))
    return PlainSru(input_size, s["hidden"], s["layers"], s.get("projection", 0))


def run_encoder(encoder, x):
    out = encoder(x)
    return out[0] if isinstance(out, tuple) else out


class LmTrain:
    def __init__(self, s):
        torch.manual_seed(3)
        self.embedding = nn.Embedding(s["vocab"], s["embed"])
        self.encoder = encoder_of(s, s["embed"])
        self.decoder = nn.Linear(s["hidden"], s["vocab"])
        self.modules = nn.ModuleList([self.embedding, self.encoder, self.decoder])
        self.modules.train()
        self.opt = torch.optim.Adam(self.modules.parameters(), lr=1e-4)
        self.inputs = torch.randint(0, s["vocab"], (s["bptt"], s["batch"]))
        self.targets = torch.randint(0, s["vocab"], (s["bptt"], s["batch"]))
        self.dropout = s.get("dropout", 0.0)
        self.units = s["bptt"] * s["batch"]

    def step(self):
        self.opt.zero_grad(set_to_none=True)
        h = run_encoder(self.encoder, self.embedding(self.inputs))
        logits = self.decoder(F.dropout(h, self.dropout, True))
        F.cross_entropy(logits.view(-1, logits.size(-1)), self.targets.view(-1)).backward()
        nn.utils.clip_grad_norm_(self.modules.parameters(), 1.0)
        self.opt.step()


class ClsTrain:
    def __init__(self, s):
        torch.manual_seed(4)
        self.embedding = nn.Embedding(s["vocab"], s["embed"])
        self.encoder = encoder_of(s, s["embed"])
        width = s["hidden"] * (2 if s.get("bidirectional") else 1)
        self.head = nn.Linear(width, s["classes"])
        self.modules = nn.ModuleList([self.embedding, self.encoder, self.head])
        self.modules.train()
        self.opt = torch.optim.Adam(self.modules.parameters(), lr=1e-4)
        self.inputs = torch.randint(0, s["vocab"], (s["length"], s["batch"]))
        self.labels = torch.randint(0, s["classes"], (s["batch"],))
        self.units = s["batch"]

    def step(self):
        self.opt.zero_grad(set_to_none=True)
        h = run_encoder(self.encoder, self.embedding(self.inputs))
        F.cross_entropy(self.head(h.mean(0)), self.labels).backward()
        self.opt.step()


class DrqaReader(nn.Module):
    """The DrQA document reader (Chen et al. 2017, section 3.1) with PyTorch's nn.LSTM: aligned
    question embedding, one-layer bi-LSTMs stacked with their outputs concatenated (DrQA's
    concat_rnn_layers), question self-attention pooling, bilinear start and end scores."""

    def __init__(self, s):
        super().__init__()
        E, H, n = s["embed"], s["hidden"], s["layers"]
        self.embedding = nn.Embedding(s["vocab"], E, padding_idx=0)
        self.align = nn.Linear(E, E)
        self.paragraph_rnns = nn.ModuleList(
            [nn.LSTM(2 * E + s["features"] if i == 0 else 2 * H, H, bidirectional=True) for i in range(n)])
        self.question_rnns = nn.ModuleList(
            [nn.LSTM(E if i == 0 else 2 * H, H, bidirectional=True) for i in range(n)])
        width = 2 * H * n
        self.question_weight = nn.Linear(width, 1)
        self.start_weight = nn.Linear(width, width)
        self.end_weight = nn.Linear(width, width)
        self.embed_dropout, self.output_dropout = s["embed_dropout"], s["output_dropout"]
        self.layer_dropout = s["layer_dropout"]

    def stack(self, rnns, x):  # x (B, L, D) -> (B, L, 2H·n)
        x, outputs = x.transpose(0, 1), []
        for rnn in rnns:
            x = rnn(F.dropout(x, self.layer_dropout, self.training))[0]
            outputs.append(x)
        return torch.cat(outputs, 2).transpose(0, 1)

    def forward(self, p, p_pad, features, q, q_pad):
        p_emb = F.dropout(self.embedding(p), self.embed_dropout, self.training)
        q_emb = F.dropout(self.embedding(q), self.embed_dropout, self.training)
        scores = F.relu(self.align(p_emb)) @ F.relu(self.align(q_emb)).transpose(1, 2)
        scores = scores.masked_fill(q_pad.unsqueeze(1), float("-inf"))
        aligned = F.softmax(scores, -1) @ q_emb
        p_h = F.dropout(self.stack(self.paragraph_rnns, torch.cat([p_emb, aligned, features], 2)),
                        self.output_dropout, self.training)
        q_h = F.dropout(self.stack(self.question_rnns, q_emb), self.output_dropout, self.training)
        b = self.question_weight(q_h).squeeze(2).masked_fill(q_pad, float("-inf"))
        q_vec = (F.softmax(b, 1).unsqueeze(2) * q_h).sum(1)

        def bilinear(linear):
            return (p_h @ linear(q_vec).unsqueeze(2)).squeeze(2).masked_fill(p_pad, float("-inf"))

        return bilinear(self.start_weight), bilinear(self.end_weight)


class QaTrain:
    def __init__(self, s):
        torch.manual_seed(5)
        g = torch.Generator().manual_seed(5)
        self.model = DrqaReader(s)
        self.model.train()
        self.opt = torch.optim.Adamax(self.model.parameters(), lr=s["lr"])
        p, p_pad = padded_batch(s["paragraph_lengths"], s["vocab"], 1, 0, g)
        q, q_pad = padded_batch(s["question_lengths"], s["vocab"], 1, 0, g)
        self.p, self.p_pad, self.q, self.q_pad = p.t(), p_pad.t(), q.t(), q_pad.t()
        self.features = torch.rand(*self.p.shape, s["features"]).masked_fill(self.p_pad.unsqueeze(2), 0)
        self.start, self.end = torch.tensor(s["starts"]), torch.tensor(s["ends"])
        self.clip = s["clip"]
        self.units = len(s["paragraph_lengths"])

    def step(self):
        self.opt.zero_grad(set_to_none=True)
        start, end = self.model(self.p, self.p_pad, self.features, self.q, self.q_pad)
        (F.nll_loss(F.log_softmax(start, 1), self.start) +
         F.nll_loss(F.log_softmax(end, 1), self.end)).backward()
        if self.clip > 0:
            nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.opt.step()


CASES = {"mt_train": MtTrain, "mt_beam": MtBeam, "lm_train": LmTrain, "cls_train": ClsTrain,
         "qa_train": QaTrain}


def parameters_of(case):
    for name in ("model", "modules"):
        module = getattr(case, name, None)
        if module is not None:
            return sum(p.numel() for p in module.parameters() if p.requires_grad)
    return 0


def blas_thread_setter():
    """OpenBLAS's openblas_set_num_threads, from the copy torch loaded (None for another BLAS)."""
    for name in ("libopenblas.so.0", "libblas.so.3"):
        try:
            return ctypes.CDLL(name).openblas_set_num_threads
        except (OSError, AttributeError):
            continue
    return None


def main():
    torch.set_num_interop_threads(1)
    set_blas_threads = blas_thread_setter()
    cache = {}
    print(json.dumps({"ready": True, "torch": torch.__version__}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            torch.set_num_threads(int(request["threads"]))
            if set_blas_threads is not None:
                set_blas_threads(int(request.get("blas_threads", request["threads"])))
            key = json.dumps([request["case"], request["shape"]], sort_keys=True)
            if key not in cache:
                cache[key] = CASES[request["case"]](request["shape"])
            case = cache[key]
            for _ in range(int(request.get("warmup", 1))):
                case.step()
            steps = int(request["steps"])
            start = time.perf_counter()
            for _ in range(steps):
                case.step()
            seconds = time.perf_counter() - start
            reply = {"seconds": seconds, "units": case.units * steps,
                     "parameters": parameters_of(case)}
        except Exception as error:  # the bench reports it and goes on with our side
            reply = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
