"""One LightVAE over the beats of many recordings (a population model), trained with zeroflow's own
trainer (the library's, as ``zeroflow train-population``): on the CPU or one GPU in one process, or
on the CPU data-parallel over several processes. The model file it writes is a zeroflow model file,
so ``zeroflow score --model MODEL`` (and ``zeroflow.run(..., model=MODEL)``) scores any recording
with it. Several GPUs train with ``zeroflow train-population --gpus N`` (NCCL between them).

How (docs/scaling.md has the reasoning):

- Recordings are shared out among the processes (rank r reads recordings r, r+W, r+2W, ...); each
  reads and segments its own with zeroflow (``zeroflow run``'s rows: the robust segmentation's
  windows, robust z-scores), then every recording's rows are broadcast from the process that read
  them, so that every process holds all rows.
- Every process draws the same split, the same per-epoch order of all training beats and the same
  noise (counter-based: a function of the seed, the epoch and the step). Each takes its slice of
  every global batch of ``batch`` beats and the group sums the gradients before every Adam step, so
  one process and W processes take the same steps, up to the order of floating-point sums.
- The processes' sums and broadcasts go through ``torch.distributed``'s gloo, used only as a
  transport (zeroflow has no transport of its own, and one process needs none: no torch then).
- Rank 0 writes the model file, recording the rows' provenance, and every few epochs the
  checkpoint (:mod:`zeroflow._population_checkpoint`: the library's format, the same on the CPU and
  GPUs), from which a resumed run takes the steps the interrupted run would have taken. It is
  removed once the model file is written.

``python -m zeroflow.population PATHS --out MODEL [--processes N] [--resume]`` is the command line
(``zeroflow train-population`` comes here for several CPU processes); under ``torchrun`` it joins
the launched process group.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import _population_checkpoint as _checkpoint

PathLike = Union[str, os.PathLike]


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
    backend: str  #: "gloo" or "" (one process)
    device: str  #: this process's device
    seconds: Dict[str, float] = field(default_factory=dict)  #: train, and all of it
    skipped: List[Tuple[str, str]] = field(default_factory=list)  #: recordings that failed: (path, why, naming it)


def _distributed() -> Any:
    """torch.distributed when this process is in an initialised group of several, else None (no
    import of torch when it is not loaded already)."""
    dist = sys.modules.get("torch.distributed")
    if dist is None or not dist.is_available() or not dist.is_initialized() or dist.get_world_size() == 1:
        return None
    return dist


class _GlooGroup:
    """The group of torch.distributed's processes as the trainer's transport: in-place sums and
    broadcasts of NumPy views of the trainer's host buffers (torch.from_numpy shares the memory)."""

    def __init__(self, dist: Any):
        import torch

        self._dist, self._torch = dist, torch

    def rank(self) -> int:
        return int(self._dist.get_rank())

    def size(self) -> int:
        return int(self._dist.get_world_size())

    def sum(self, values: Any) -> None:
        self._dist.all_reduce(self._torch.from_numpy(values), op=self._dist.ReduceOp.SUM)

    def broadcast(self, values: Any, root: int) -> None:
        self._dist.broadcast(self._torch.from_numpy(values), src=root)


def _device_of(device: str, in_group: bool) -> str:
    from ._interop import _core

    if device == "auto":
        device = "cuda" if _core.cuda_available() and not in_group else "cpu"
    if device == "cuda":
        device = "cuda:0"
    if in_group and device != "cpu":
        raise ValueError(
            "a group of processes trains on the CPU; several GPUs train with `zeroflow train-population --gpus N`"
        )
    return device


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
    threads: int = 0,
) -> PopulationResult:
    """Trains one LightVAE on the beats of every recording and writes it to `out` (a zeroflow model file).

    In one process this trains alone; inside an initialised ``torch.distributed`` process group
    (gloo: ``torchrun``, or :func:`train_population` with ``processes``) every process of the group
    must call it with the same arguments, and they train one model together on the CPU, each on
    its share of the recordings. The result does not depend on how many processes there are, up to
    rounding.

    Args:
        paths: recordings (CSV, WFDB ``NAME.hea``, EDF) of one sample rate, readable by every process.
        out: the model file to write (by rank 0).
        epochs, batch, seed, test_fraction, learning_rate: as ``zeroflow run`` trains (``batch`` beats
            per optimiser step over all processes).
        device: "auto" (the GPU when there is one, alone; the CPU in a group), "cpu", "cuda" or
            "cuda:N". Both run zeroflow's own trainer and take the same steps.
        column: the lead (CSV column, WFDB/EDF signal), by name or index; None: the default lead.
        sample_rate: of CSV recordings (default 250 Hz); WFDB and EDF files state their own.
        progress: called with one line per recording read and per epoch (on rank 0).
        checkpoint: the file in which rank 0 keeps the run's state (default: `out` + ".checkpoint"),
            written atomically after every `checkpoint_every` epochs and deleted once `out` is
            written. A run killed at any moment leaves the previous checkpoint whole.
        resume: continue the interrupted run from `checkpoint` (the same recordings and settings;
            `epochs` may be raised), taking exactly the steps it would have taken.
        force: replace an existing `out`, and start over when a run left a checkpoint (only a
            population checkpoint is ever removed).
        threads: the CPU kernels' threads in this process (0: every CPU it may run on).

    Raises:
        ValueError: no recording gives beats, the recordings differ in sample rate, `out` exists
            without `force`, a checkpoint is in the way or cannot be resumed (the reason named).
    """
    from ._interop import _core

    dist = _distributed()
    rank = dist.get_rank() if dist is not None else 0
    out = os.fspath(out)
    if os.path.exists(out) and not force:
        raise ValueError(f"{out} exists; give force=True (--force) to replace it")
    path = os.fspath(checkpoint) if checkpoint is not None else _checkpoint.default_path(out)
    # Refused before the training rather than when the first file is written.
    for name, file in (("out", out), ("checkpoint", path)):
        if os.path.isdir(file):
            raise ValueError(f"{name} {file} is a folder; give a file in it")
        if not os.path.isdir(os.path.dirname(os.path.abspath(file))):
            raise ValueError(f"{name} {file}: the folder {os.path.dirname(os.path.abspath(file))} does not exist")
    if rank == 0:
        _checkpoint.prepare(path, resume=resume, force=force)
    if dist is not None:
        dist.barrier()  # the checkpoint is as rank 0 left it before anyone reads it
    where = _device_of(device, dist is not None)
    t0 = time.perf_counter()
    r = _core._train_population(
        [os.fspath(p) for p in paths],
        out,
        "" if column is None else str(column),
        sample_rate,
        epochs,
        batch,
        seed,
        test_fraction,
        learning_rate,
        path,
        checkpoint_every,
        resume,
        "",
        where,
        threads,
        progress if rank == 0 else None,
        _GlooGroup(dist) if dist is not None else None,
    )
    # Each line names its recording first (the readers add the line number after the path).
    names = sorted((os.fspath(p) for p in paths), key=len, reverse=True)
    skipped = [(next((p for p in names if line.startswith(p)), line.split(": ", 1)[0]), line) for line in r["skipped"]]
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
        processes=dist.get_world_size() if dist is not None else 1,
        backend="gloo" if dist is not None else "",
        device=where,
        seconds={"train": r["train_seconds"], "all": time.perf_counter() - t0},
        skipped=skipped,  # type: ignore[arg-type]
    )


def _spawned(
    rank: int,
    world: int,
    init_file: str,
    result_file: str,
    paths: List[str],
    out: str,
    options: Dict[str, Any],
) -> None:
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world)
    try:
        result = train(paths, out, **options)
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
    **options: Any,
) -> PopulationResult:
    """:func:`train` in `processes` local CPU processes (``torch.multiprocessing``, one gloo process
    group as the transport); one process trains in this one, without torch.

    Args:
        processes: processes on this machine.
        backend: "gloo" (the default; the only transport of CPU processes). Several GPUs: ``zeroflow
            train-population --gpus N``.
        options: as :func:`train` (epochs, batch, seed, device, threads, checkpoint, checkpoint_every,
            resume, force, ...).
    """
    if processes < 1:
        raise ValueError("processes must be at least 1")
    if backend not in (None, "gloo"):
        raise ValueError(
            f"backend {backend!r}: CPU processes sum through gloo; several GPUs train with "
            "`zeroflow train-population --gpus N` (NCCL)"
        )
    if processes == 1 or _distributed() is not None:
        return train(paths, out, **options)
    # What would be refused in every spawned process is refused here, once, as one clear error.
    arguments = inspect.signature(train).bind([os.fspath(p) for p in paths], out, **options)
    arguments.apply_defaults()
    a = arguments.arguments
    _device_of(str(a["device"]) if a["device"] != "auto" else "cpu", True)
    if os.path.exists(os.fspath(out)) and not a["force"]:
        raise ValueError(f"{os.fspath(out)} exists; give force=True (--force) to replace it")
    if a["progress"] is not None:
        raise ValueError("progress callbacks need processes=1 (spawned processes cannot call back)")
    path = os.fspath(a["checkpoint"]) if a["checkpoint"] is not None else _checkpoint.default_path(out)
    _checkpoint.prepare(path, resume=a["resume"], force=a["force"])
    options = {**options, "force": True, "device": "cpu"}  # the checks are done; the processes do not repeat them
    import torch.multiprocessing as mp

    with tempfile.TemporaryDirectory(prefix="zeroflow-population-") as tmp:
        init_file, result_file = os.path.join(tmp, "init"), os.path.join(tmp, "result.json")
        mp.start_processes(
            _spawned,
            args=(processes, init_file, result_file, [os.fspath(p) for p in paths], os.fspath(out), options),
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
    p.add_argument("--out", "-o", required=True, help="the model file to write (e.g. population.safetensors)")
    p.add_argument("--processes", "-n", type=int, default=1, help="data-parallel CPU processes on this machine")
    p.add_argument("--backend", choices=["gloo"], default=None)
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
        threads=a.threads,
    )
    say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    try:
        if "WORLD_SIZE" in os.environ:  # launched by torchrun: join its group, gloo as the transport
            import torch.distributed as dist

            if not dist.is_initialized():
                dist.init_process_group("gloo")
        if a.processes == 1 or _distributed() is not None:
            options["progress"] = say
        result = train_population(a.inputs, a.out, processes=a.processes, backend=a.backend, **options)
    except (ValueError, OSError, RuntimeError) as e:
        print(f"zeroflow: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 1
    dist = _distributed()
    if dist is None or dist.get_rank() == 0:
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
