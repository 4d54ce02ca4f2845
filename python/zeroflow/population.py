"""One LightVAE over the beats of many recordings (a population model), trained data-parallel
with ``torch.distributed``: NCCL between GPUs, gloo on CPUs. The model file it writes is a
zeroflow model file, so ``zeroflow score --model MODEL`` (and ``zeroflow.run(..., model=MODEL)``)
scores any recording with it.

One process on one GPU does not use PyTorch at all: it calls the library's population training
(zeroflow's fused step, as ``zeroflow train-population`` on GPUs, which also trains on several GPUs
with NCCL). The rest of this module is the path of the CPU and of process groups:

How (docs/scaling.md has the reasoning):

- Recordings are shared out among the processes (rank r takes recordings r, r+W, r+2W, ...);
  each process reads and segments its own with zeroflow (``zeroflow run``'s rows: the robust
  segmentation's windows, robust z-scores) on its device, and hands the rows to PyTorch through
  DLPack without a copy. Rows never cross between processes; only gradients do.
- The network is a PyTorch replica of zeroflow's LightVAE (same layers, same parameter names),
  starting from zeroflow's own initial weights for the seed, wrapped in
  ``DistributedDataParallel``.
- Every process draws the same split, the same per-epoch permutation of all training beats and
  the same noise from one seeded generator. Each global batch of ``batch`` beats is then the same
  whatever the number of processes: every process computes the seed's loss over the beats of the
  batch that it holds, and DDP's all-reduce adds the gradients. One process and W processes take
  the same steps, up to the order of floating-point sums.
- Rank 0 writes the weights as a zeroflow model file (safetensors, ``zeroflow._model_file``),
  recording the rows' provenance (sample rate, segmentation, normalisation, window), and reads it
  back with zeroflow's verifying loader.
- Every few epochs rank 0 writes a checkpoint (``zeroflow._population_checkpoint``): the weights,
  Adam's state and the generator's state, which is all the state there is, so a run resumed from it
  takes the steps the interrupted run would have taken. It is deleted once the model file is written.

``python -m zeroflow.population PATHS --out MODEL [--processes N] [--resume]`` is the command line (also
``zeroflow train-population``); under ``torchrun`` it joins the launched process group.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import torch
import torch.distributed as dist
import torch.nn.functional as F

from . import _population_checkpoint as _checkpoint

PathLike = Union[str, os.PathLike]


class LightVAE(torch.nn.Module):
    """PyTorch replica of zeroflow's LightVAE (tests/torch_oracle/light_vae.cpp, the seed's class): the same
    layers and parameter names, so that its state moves to and from zeroflow's model file."""

    def __init__(self, width: int):
        super().__init__()
        if width < 16 or width & (width - 1):
            raise ValueError(f"LightVAE width must be a power of two >= 16, got {width}")
        self.width = width
        self.down = _Downsample()
        self.sigma = _Swish()
        conv = torch.nn.Conv1d
        self.conv0, self.conv1, self.conv2 = conv(1, 4, 3, 1, 1), conv(4, 8, 3, 1, 1), conv(8, 16, 3, 1, 1)
        self.convA, self.convB = conv(16, 2, 3, 1, 1), conv(16, 2, 3, 1, 1)
        self.restore = torch.nn.Linear(2, width)
        self.conv3, self.conv4, self.conv5 = conv(8, 4, 3, 1, 1), conv(4, 2, 3, 1, 1), conv(2, 1, 3, 1, 1)

    def encode(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        h = x.reshape(-1, 1, self.width)
        for c in (self.conv0, self.conv1, self.conv2):
            h = self.down(self.sigma(c(h)))
        return self.convA(h).mean(2), self.convB(h).mean(2)

    def decode(self, z: torch.Tensor) -> torch.Tensor:
        h = self.restore(z).view(-1, 8, self.width // 8)
        h = self.sigma(self.conv3(F.interpolate(h, scale_factor=2.0, mode="nearest")))
        h = self.sigma(self.conv4(F.interpolate(h, scale_factor=2.0, mode="nearest")))
        return self.conv5(F.interpolate(h, scale_factor=2.0, mode="nearest")).view(-1, self.width)

    def forward(self, x: torch.Tensor, noise: torch.Tensor):
        """x̂ from z = μ + noise·σ (noise given, so that every process can draw the same), μ, log σ²."""
        mu, logvar = self.encode(x)
        return self.decode(mu + noise * torch.exp(0.5 * logvar)), mu, logvar


class _Swish(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.alpha = torch.nn.Parameter(torch.ones(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(self.alpha * x)


class _Downsample(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("filter", torch.tensor([1.0, 2.0, 1.0]).view(1, 1, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        channels = x.shape[1]
        return F.conv1d(x, self.filter.expand(channels, 1, 3), stride=2, padding=1, groups=channels)


def seed_loss(recon: torch.Tensor, x: torch.Tensor, mu: torch.Tensor, logvar: torch.Tensor) -> torch.Tensor:
    """The seed's loss, summed over the rows: Σ mean_t (x̂−x)² − 0.1 Σ mean_d (1 + log σ² − μ² − σ²)."""
    mse = torch.square(recon - x.reshape(recon.shape)).mean(1).sum()
    kld = -0.1 * (1 + logvar - mu.pow(2) - logvar.exp()).mean(1).sum()
    return mse + kld


@dataclass
class PopulationResult:
    """What :func:`train` reports (the same on every process)."""

    model_file: str
    epoch_loss: List[float]  #: per epoch: Σ of the batch losses / training beats (zeroflow run's figure)
    test_loss: float  #: the same over the held-out beats after training (NaN when there are none)
    recordings: int  #: recordings whose beats were used
    beats: int  #: beats of all of them
    train_beats: int
    test_beats: int
    width: int
    sample_rate: float
    processes: int
    backend: str  #: "gloo", "nccl" or "" (one process)
    device: str  #: this process's device
    seconds: Dict[str, float] = field(default_factory=dict)  #: rows, train, save (slowest process)
    skipped: List[Tuple[str, str]] = field(default_factory=list)  #: recordings that failed: (path, error)


def _train_on_gpu(paths: List[str], out: PathLike, dev: torch.device, **o: Any) -> PopulationResult:
    """One process on one GPU: the library's population training (zeroflow's fused step, no
    PyTorch model), as ``zeroflow train-population --device cuda`` runs it. Its checkpoint is the
    library's (a run resumes on the trainer that wrote it)."""
    from ._interop import _core

    out = os.fspath(out)
    path = os.fspath(o["checkpoint"]) if o["checkpoint"] is not None else _checkpoint.default_path(out)
    if not _checkpoint.refuse_or_resume(path, resume=o["resume"], force=o["force"]):
        _checkpoint.discard(path)  # --force: the interrupted run's checkpoint goes
    column = o["column"]
    t0 = time.perf_counter()
    r = _core._train_population_on_gpu(
        paths,
        out,
        "" if column is None else str(column),
        o["sample_rate"],
        o["epochs"],
        o["batch"],
        o["seed"],
        o["test_fraction"],
        o["learning_rate"],
        path,
        o["checkpoint_every"],
        o["resume"],
        "",
        dev.index or 0,
        o["progress"],
    )
    skipped = [tuple(line.split(": ", 1)) if ": " in line else (line, "") for line in r["skipped"]]
    return PopulationResult(
        model_file=out,
        epoch_loss=list(r["epoch_loss"]),
        test_loss=r["test_loss"],
        recordings=r["recordings"],
        beats=r["beats"],
        train_beats=r["train_beats"],
        test_beats=r["test_beats"],
        width=r["width"],
        sample_rate=r["sample_rate"],
        processes=1,
        backend="",
        device=str(dev),
        seconds={"train": r["train_seconds"], "all": time.perf_counter() - t0},
        skipped=skipped,  # type: ignore[arg-type]
    )


def _round_samples(seconds: float, rate: float) -> int:
    # Half away from zero, as zeroflow's seconds-to-samples conversion (std::round) does.
    x = seconds * rate
    n = math.floor(x)
    return n + 1 if x - n >= 0.5 else n


def _resolve_device(device: str) -> torch.device:
    from ._interop import _core

    if device == "auto":
        device = "cuda" if torch.cuda.is_available() and _core.cuda_available() else "cpu"
    if device.startswith("cuda"):
        if device == "cuda":
            local = int(os.environ.get("LOCAL_RANK", dist.get_rank() if dist.is_initialized() else 0))
            device = f"cuda:{local % max(1, torch.cuda.device_count())}"
        torch.cuda.set_device(torch.device(device))
    return torch.device(device)


def _recording_rows(path: str, device: torch.device, column: Any, sample_rate: float, rate_given: bool):
    """zeroflow run's training rows of one recording (on `device`, shared with zeroflow through
    DLPack), its sample rate and its beat window in samples."""
    from . import io, signal
    from ._interop import _core

    where = "cpu" if device.type == "cpu" else f"cuda:{device.index or 0}"
    rec = io.read_recording(path, column, where)
    rate = sample_rate
    if rec.sample_rate > 0:
        if rate_given and abs(rec.sample_rate - sample_rate) > 1e-9 * rec.sample_rate:
            raise ValueError(
                f"{path} is recorded at {rec.sample_rate:g} Hz, but a sample rate of {sample_rate:g} "
                "was given; leave it out for this file"
            )
        rate = rec.sample_rate
    seg = signal.segment_beats(rec.signal, sample_rate=rate, method="robust")
    rows = torch.from_dlpack(seg.beats.rows)
    if rows.shape[0] < 8:
        raise ValueError(
            f"{path}: only {rows.shape[0]} beats were found; is the sample rate ({rate:g} Hz) right for this recording?"
        )
    # The robust segmentation's beat window, as the library's defaults give it (zeroflow run's).
    defaults = _core._segment_defaults()
    window = (
        _round_samples(defaults["window_before_seconds"], rate),
        _round_samples(defaults["window_after_seconds"], rate),
    )
    return rows, float(rate), window


def _gather(obj: Any) -> List[Any]:
    if not dist.is_initialized() or dist.get_world_size() == 1:
        return [obj]
    out: List[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(out, obj)
    return out


def _sum(value: torch.Tensor) -> torch.Tensor:
    if dist.is_initialized() and dist.get_world_size() > 1:
        dist.all_reduce(value, op=dist.ReduceOp.SUM)
    return value


def _from_rank0(obj: Any, device: torch.device) -> Any:
    if not dist.is_initialized() or dist.get_world_size() == 1:
        return obj
    box = [obj]
    dist.broadcast_object_list(box, src=0, device=device if device.type == "cuda" else None)
    return box[0]


def _opening(
    paths: Sequence[str],
    out: PathLike,
    *,
    checkpoint: Optional[PathLike],
    resume: bool,
    force: bool,
    seed: int,
    batch: int,
    learning_rate: float,
    test_fraction: float,
    sample_rate: Optional[float],
    column: Any,
    epochs: int,
    **_not_in_the_fingerprint: Any,
) -> Tuple[str, Dict[str, Any], Optional[Dict[str, Any]]]:
    """Where a run of :func:`train`'s arguments keeps its checkpoint, its fingerprint, and the
    checkpoint it continues from (None: it starts from the beginning). Raises ValueError as
    :func:`zeroflow._population_checkpoint.start` does."""
    path = os.fspath(checkpoint) if checkpoint is not None else _checkpoint.default_path(out)
    fingerprint = _checkpoint.settings(
        paths,
        seed=seed,
        batch=batch,
        learning_rate=learning_rate,
        test_fraction=test_fraction,
        sample_rate=sample_rate,
        column=column,
        epochs=epochs,
    )
    return path, fingerprint, _checkpoint.start(path, fingerprint, resume=resume, force=force)


def train(
    paths: Sequence[PathLike],
    out: PathLike,
    *,
    epochs: int = 30,
    batch: int = 1024,
    seed: int = 42,
    test_fraction: float = 0.25,
    learning_rate: float = 1e-3,
    device: str = "auto",
    column: Any = None,
    sample_rate: Optional[float] = None,
    progress: Optional[Callable[[str], None]] = None,
    checkpoint: Optional[PathLike] = None,
    checkpoint_every: int = 1,
    resume: bool = False,
    force: bool = False,
) -> PopulationResult:
    """Trains one LightVAE on the beats of every recording and writes it to `out` (a zeroflow model file).

    In one process this trains alone; inside an initialised ``torch.distributed`` process group
    (``torchrun``, or :func:`train_population` with ``processes``) every process of the group must
    call it with the same arguments, and they train one model together, each on its share of the
    recordings. The result does not depend on how many processes there are, up to rounding.

    Args:
        paths: recordings (CSV, WFDB ``NAME.hea``, EDF) of one sample rate, readable by every process.
        out: the model file to write (by rank 0).
        epochs, batch, seed, test_fraction, learning_rate: as ``zeroflow run`` trains (``batch`` beats
            per optimiser step over all processes).
        device: "auto" (this process's GPU when there is one), "cpu", "cuda" or "cuda:N". One
            process on a GPU trains with zeroflow's own fused step (the library's trainer, as
            ``zeroflow train-population`` on a GPU: ~10 M beats a second); on the CPU, or in a
            process group, the PyTorch replica below trains under ``torch.distributed``.
        column: the lead (CSV column, WFDB/EDF signal), by name or index; None: the default lead.
        sample_rate: of CSV recordings (default 250 Hz); WFDB and EDF files state their own.
        progress: called with one line per epoch (on rank 0).
        checkpoint: the file in which rank 0 keeps the run's state (default: `out` + ".checkpoint"),
            written atomically after every `checkpoint_every` epochs and deleted once `out` is
            written.
        checkpoint_every: epochs between checkpoints (0: none).
        resume: continue the interrupted run whose checkpoint is at `checkpoint`. It must have had
            the same recordings (paths and sizes), seed, batch, learning rate, test fraction,
            sample rate and lead; `epochs` may be raised. The processes may be fewer or more.
            The result is the uninterrupted run's, bit for bit with the same processes and threads.
        force: start from the beginning even though `checkpoint` exists (it is deleted).

    Raises:
        ValueError: no recording gave beats, or the recordings differ in sample rate or row width
            (one model only scores rows made like its training rows); a checkpoint exists and
            neither `resume` nor `force` is given; `resume` without a checkpoint, or with one of a
            run of other settings (the message names the setting).
    """
    from . import _model_file

    if epochs < 1 or batch < 1 or not 0 <= test_fraction < 1 or checkpoint_every < 0:
        raise ValueError("epochs and batch must be at least 1, checkpoint_every at least 0 and test_fraction in [0, 1)")
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ValueError("train_population needs at least one recording")
    world = dist.get_world_size() if dist.is_initialized() else 1
    rank = dist.get_rank() if dist.is_initialized() else 0
    backend = str(dist.get_backend()) if dist.is_initialized() else ""
    dev = _resolve_device(device)
    if dev.type == "cuda" and not dist.is_initialized():
        return _train_on_gpu(
            paths,
            out,
            dev,
            epochs=epochs,
            batch=batch,
            seed=seed,
            test_fraction=test_fraction,
            learning_rate=learning_rate,
            column=column,
            sample_rate=sample_rate,
            progress=progress,
            checkpoint=checkpoint,
            checkpoint_every=checkpoint_every,
            resume=resume,
            force=force,
        )
    t0 = time.perf_counter()

    # Rank 0 alone reads and writes the checkpoint; every process gets the state it holds.
    opening: Any = None
    if rank == 0:
        try:
            opening = _opening(
                paths,
                out,
                checkpoint=checkpoint,
                resume=resume,
                force=force,
                seed=seed,
                batch=batch,
                learning_rate=learning_rate,
                test_fraction=test_fraction,
                sample_rate=sample_rate,
                column=column,
                epochs=epochs,
            )
            if opening[2] is None and force:
                _checkpoint.discard(opening[0])
        except (ValueError, OSError) as e:
            opening = str(e)
    opening = _from_rank0(opening, dev)
    if isinstance(opening, str):
        raise ValueError(opening)
    checkpoint_path, fingerprint, resumed = opening

    # Rows of this process's recordings; every process then learns every recording's beat count.
    mine: Dict[int, torch.Tensor] = {}
    info: Dict[int, Any] = {}
    for i in range(rank, len(paths), world):
        try:
            rows, rate, window = _recording_rows(paths[i], dev, column, sample_rate or 250.0, sample_rate is not None)
            mine[i] = rows
            info[i] = (int(rows.shape[0]), int(rows.shape[1]), rate, window, "")
        except Exception as e:  # noqa: BLE001  (a broken recording is reported, not fatal to the population)
            info[i] = (0, 0, 0.0, (0, 0), " ".join(str(e).split()) or type(e).__name__)
    every: Dict[int, Any] = {}
    for part in _gather(info):
        every.update(part)
    skipped = [(paths[i], every[i][4]) for i in range(len(paths)) if every[i][4]]
    used = [i for i in range(len(paths)) if not every[i][4]]
    if not used:
        raise ValueError("no recording gave beats: " + "; ".join(f"{p}: {e}" for p, e in skipped[:3]))
    kinds = {(every[i][1], every[i][2], every[i][3]) for i in used}
    if len(kinds) > 1:
        (w1, r1, _), (w2, r2, _) = sorted(kinds)[:2]
        raise ValueError(
            f"the recordings' beats differ: rows of {w1} samples at {r1:g} Hz and of {w2} samples at "
            f"{r2:g} Hz; one model scores only rows made like its training rows, so train one per "
            "sample rate"
        )
    width, rate, window = next(iter(kinds))
    counts = [every[i][0] if i in used else 0 for i in range(len(paths))]
    offsets = [0] * len(paths)
    for i in range(1, len(paths)):
        offsets[i] = offsets[i - 1] + counts[i - 1]
    n = offsets[-1] + counts[-1]

    # Global beat id -> row of this process (-1: another process holds it), and this process's rows.
    lookup = torch.full((n,), -1, dtype=torch.long)
    local_parts, filled = [], 0
    for i in sorted(mine):
        lookup[offsets[i] : offsets[i] + counts[i]] = torch.arange(filled, filled + counts[i])
        local_parts.append(mine[i])
        filled += counts[i]
    local_rows = torch.cat(local_parts) if local_parts else torch.zeros((0, width), device=dev)
    lookup = lookup.to(dev)
    t_rows = time.perf_counter() - t0
    if resumed is not None and resumed["beats"] != n:
        raise ValueError(
            f"cannot resume from {checkpoint_path}: the recordings gave {resumed['beats']} beats then and "
            f"{n} now (segmented by another zeroflow?); give --force to start over"
        )

    # zeroflow's own initial weights for this seed, so that one process trains as zeroflow would start.
    initial = _model_file.template_weights(width, seed)
    model = LightVAE(width)
    model.load_state_dict({k: torch.from_numpy(initial[k]) for k in model.state_dict()})
    if resumed is not None:
        model.load_state_dict(resumed["model"])
    model.to(dev)
    net: torch.nn.Module = model
    if world > 1:
        net = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index] if dev.type == "cuda" else None)
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)

    generator = torch.Generator().manual_seed(seed)  # the same draws in every process
    split = torch.randperm(n, generator=generator)
    n_train = int(math.floor((1 - test_fraction) * n))
    train_ids, test_ids = split[:n_train], split[n_train:]
    epoch_loss: List[float] = []
    if resumed is not None:
        optimizer.load_state_dict(resumed["optimizer"])
        generator.set_state(resumed["generator"])  # after the split: the draws the next epoch makes
        epoch_loss = list(resumed["epoch_loss"])
        if progress and rank == 0:
            progress(f"resumed from {checkpoint_path}: {len(epoch_loss)}/{epochs} epochs done")

    def batch_loss(ids: torch.Tensor, module: torch.nn.Module) -> torch.Tensor:
        noise = torch.randn(len(ids), 2, generator=generator)
        where = lookup[ids.to(dev)]
        held = where >= 0
        x = local_rows[where[held]]
        recon, mu, logvar = module(x, noise.to(dev)[held])
        return seed_loss(recon, x, mu, logvar)

    t1 = time.perf_counter()
    for epoch in range(len(epoch_loss), epochs):
        order = train_ids[torch.randperm(n_train, generator=generator)]
        total = torch.zeros((), dtype=torch.float64, device=dev)
        for start in range(0, n_train, batch):
            loss = batch_loss(order[start : start + batch], net)
            optimizer.zero_grad(set_to_none=True)
            # DDP averages the processes' gradients; the seed's loss is a sum over the batch.
            (loss * world).backward()
            optimizer.step()
            total += loss.detach().double()
        value = float(_sum(total).item()) / max(1, n_train)
        if not math.isfinite(value):
            raise ValueError(f"training diverged at epoch {epoch + 1} (loss {value})")
        epoch_loss.append(value)
        if rank == 0 and checkpoint_every and (epoch + 1) % checkpoint_every == 0:
            state = _checkpoint.snapshot(fingerprint, n, epoch_loss, model, optimizer, generator)
            _checkpoint.write(checkpoint_path, state)
        if progress and rank == 0:
            progress(f"epoch {epoch + 1}/{epochs}  loss {value:.6f}")
    with torch.no_grad():
        total = torch.zeros((), dtype=torch.float64, device=dev)
        for start in range(0, len(test_ids), batch):
            total += batch_loss(test_ids[start : start + batch], model).double()
        test_loss = float(_sum(total).item()) / len(test_ids) if len(test_ids) else math.nan
    t_train = time.perf_counter() - t1

    t2 = time.perf_counter()
    out = os.fspath(out)
    if rank == 0:
        rows = {"sample_rate": rate, "segmentation": "robust", "normalized": True}
        rows.update(window_before=window[0], window_after=window[1])
        meta = _model_file.metadata("lightvae", width, rows=rows, init_seed=seed, train_seed=seed, epochs=epochs)
        _model_file.write(out, model.state_dict(), meta)
        from .model import VAE

        VAE.load(out)  # zeroflow's verifying reader: what `zeroflow score` will read
        _checkpoint.discard(checkpoint_path)
    t_save = time.perf_counter() - t2
    # DDP's reducer holds the process group's pending work: gone before the group is destroyed.
    del net
    if world > 1:
        dist.barrier()
    seconds = {"rows": t_rows, "train": t_train, "save": t_save}
    slowest = _gather(seconds)
    seconds = {k: max(s[k] for s in slowest) for k in seconds}
    return PopulationResult(
        model_file=out,
        epoch_loss=epoch_loss,
        test_loss=test_loss,
        recordings=len(used),
        beats=n,
        train_beats=n_train,
        test_beats=n - n_train,
        width=width,
        sample_rate=rate,
        processes=world,
        backend=backend,
        device=str(dev),
        seconds=seconds,
        skipped=skipped,
    )


def _spawned(
    rank: int,
    world: int,
    backend: str,
    init_file: str,
    result_file: str,
    paths: List[str],
    out: str,
    options: Dict[str, Any],
    threads: int,
) -> None:
    if threads > 0:
        torch.set_num_threads(threads)
    dist.init_process_group(backend, init_method=f"file://{init_file}", rank=rank, world_size=world)
    try:
        device = options.pop("device", "auto")
        if device in ("auto", "cuda") and backend == "nccl":
            device = f"cuda:{rank % torch.cuda.device_count()}"
        result = train(paths, out, device=device, **options)
        if rank == 0:
            with open(result_file, "w") as f:
                json.dump(asdict(result), f)
        dist.barrier()  # no process leaves while another still talks to it
    finally:
        dist.destroy_process_group()
    # Interpreter finalisation can race gloo's worker threads into std::terminate (SIGABRT) after
    # the work is done and the result written; a spawned process has nothing left to finalise.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def train_population(
    paths: Sequence[PathLike],
    out: PathLike,
    *,
    processes: int = 1,
    backend: Optional[str] = None,
    threads: int = 0,
    **options: Any,
) -> PopulationResult:
    """:func:`train` in `processes` local processes (``torch.multiprocessing``, one process group);
    one process trains in this one.

    Args:
        processes: processes on this machine; on GPUs, one per GPU.
        backend: "nccl" (GPUs) or "gloo" (CPUs); default: nccl when the device is a GPU.
        threads: PyTorch CPU threads per process (0: PyTorch's default).
        options: as :func:`train` (epochs, batch, seed, device, checkpoint, checkpoint_every,
            resume, force, ...).
    """
    if processes < 1:
        raise ValueError("processes must be at least 1")
    if processes == 1 or dist.is_initialized():
        if threads > 0:
            torch.set_num_threads(threads)
        return train(paths, out, **options)
    # A checkpoint refused here is one clear error; raised in a spawned process it would be a traceback.
    arguments = inspect.signature(train).bind([os.fspath(p) for p in paths], out, **options)
    arguments.apply_defaults()
    _opening(**arguments.arguments)
    device = str(options.get("device", "auto"))
    gpu = device.startswith("cuda") or (device == "auto" and torch.cuda.is_available())
    backend = backend or ("nccl" if gpu else "gloo")
    import torch.multiprocessing as mp

    with tempfile.TemporaryDirectory(prefix="zeroflow-population-") as tmp:
        init_file, result_file = os.path.join(tmp, "init"), os.path.join(tmp, "result.json")
        progress = options.pop("progress", None)
        if progress is not None:
            raise ValueError("progress callbacks need processes=1 (spawned processes cannot call back)")
        mp.start_processes(
            _spawned,
            args=(
                processes,
                backend,
                init_file,
                result_file,
                [os.fspath(p) for p in paths],
                os.fspath(out),
                dict(options),
                threads,
            ),
            nprocs=processes,
            join=True,
            start_method="spawn",
        )
        with open(result_file) as f:
            d = json.load(f)
    d["skipped"] = [tuple(s) for s in d["skipped"]]
    return PopulationResult(**d)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``zeroflow train-population`` / ``python -m zeroflow.population``: exit 0 on success, 1 on
    failure, 2 for a usage error; one ``zeroflow: error:`` line on failure."""
    p = argparse.ArgumentParser(
        prog="zeroflow train-population", description="Train one LightVAE on the beats of many recordings."
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT")
    p.add_argument("--out", "-o", required=True, help="the model file to write (e.g. population.pt)")
    p.add_argument("--processes", "-n", type=int, default=1, help="data-parallel processes on this machine")
    p.add_argument("--backend", choices=["gloo", "nccl"], default=None)
    p.add_argument("--device", "-d", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--lead", "--column", "-c", dest="column", default=None)
    p.add_argument("--sample-rate", "-r", type=float, default=None)
    # The run's defaults, as the library's option table gives them (written once).
    from ._interop import _core

    defaults = {o["name"]: o["default"] for o in _core._run_option_table()}
    p.add_argument("--epochs", type=int, default=int(defaults["epochs"]))
    p.add_argument("--batch", type=int, default=int(defaults["batch"]))
    p.add_argument("--seed", type=int, default=int(defaults["seed"]))
    p.add_argument("--threads", type=int, default=0)
    p.add_argument(
        "--force",
        "-f",
        action="store_true",
        help="replace an existing model file, and start over when an interrupted run left a checkpoint",
    )
    p.add_argument("--checkpoint", default=None, metavar="FILE", help="the run's checkpoint (default: OUT.checkpoint)")
    p.add_argument("--checkpoint-every", type=int, default=1, metavar="N", help="epochs between checkpoints (0: none)")
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue the interrupted run from its checkpoint (same settings; --epochs may be raised)",
    )

    class _Usage(Exception):
        pass

    p.error = lambda message: (_ for _ in ()).throw(_Usage(message))  # type: ignore[method-assign]
    try:
        a = p.parse_args(argv)
        if a.epochs < 1 or a.batch < 1 or a.processes < 1:
            raise _Usage("--epochs, --batch and --processes must be at least 1")
        if a.checkpoint_every < 0:
            raise _Usage("--checkpoint-every must be at least 0")
        missing = [x for x in a.inputs if not os.path.isfile(x)]
        if missing:
            raise _Usage(f"{missing[0]}: no such file")
        if os.path.exists(a.out) and not a.force:
            raise _Usage(f"{a.out} exists; give --force to replace it")
    except _Usage as e:
        print(f"zeroflow: error: {e} (see zeroflow train-population --help)", file=sys.stderr)
        return 2
    column: Any = int(a.column) if a.column is not None and a.column.isdigit() else a.column
    options = dict(
        epochs=a.epochs,
        batch=a.batch,
        seed=a.seed,
        device=a.device,
        column=column,
        sample_rate=a.sample_rate,
        checkpoint=a.checkpoint,
        checkpoint_every=a.checkpoint_every,
        resume=a.resume,
        force=a.force,
    )
    say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    try:
        if "WORLD_SIZE" in os.environ and not dist.is_initialized():  # launched by torchrun
            gpu = a.device != "cpu" and torch.cuda.is_available()
            dist.init_process_group(a.backend or ("nccl" if gpu else "gloo"))
        if a.processes == 1 or dist.is_initialized():
            options["progress"] = say
        result = train_population(
            a.inputs, a.out, processes=a.processes, backend=a.backend, threads=a.threads, **options
        )
    except (ValueError, OSError, RuntimeError) as e:
        print(f"zeroflow: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 1
    if not dist.is_initialized() or dist.get_rank() == 0:
        for path, error in result.skipped:
            # The readers name the file in their messages; others' reasons get its name in front.
            say(f"skipped {error}" if error.startswith(path) else f"skipped {path}: {error}")
        say(
            f"wrote {result.model_file}: {result.beats} beats of {result.recordings} recordings, "
            f"{result.processes} process(es) ({result.backend or 'single'}), test loss {result.test_loss:.6f}"
        )
    return 0 if result.recordings else 1


if __name__ == "__main__":
    from zeroflow.population import main as _main  # through the package, as spawned processes import it

    sys.exit(_main())
