"""Many recordings on a Dask cluster: :func:`run_many` runs ``zeroflow run``'s pipeline on every
recording as one Dask task each and writes one folder per recording, named as ``zeroflow run A B
...`` names them, plus ``runs.csv``.

Without a client, a local cluster is started: ``dask_cuda.LocalCUDACluster`` (one worker process
per GPU, each seeing only its own GPU) when GPUs are present, else a ``LocalCluster`` of worker
processes. Each worker keeps zeroflow, LibTorch and its GPU set up between recordings (zeroflow's
stream-ordered pool is the memory manager of every zeroflow and LibTorch allocation in it), so a
task costs the pipeline and little more.

A recording that fails (bad file, too few beats, ...) is a row with status ``failed`` and its
error, and leaves no folder behind; a worker that dies (out of memory, killed) is replaced and its
recordings are run again by Dask (``retries``), the other results are kept.

``python -m zeroflow.dask INPUT... --out DIR --scheduler ADDRESS|local`` is the command-line front
that ``zeroflow run --scheduler`` runs (docs/scaling.md).
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import shutil
import sys
import time
import uuid
from typing import Any, Dict, List, Optional, Sequence, Union

from ._interop import _core

PathLike = Union[str, os.PathLike]

#: runs.csv's columns, as `zeroflow run A B ...` writes them.
RUNS_COLUMNS = ["input", "out", "status", "samples", "beats_found", "beats_kept", "seconds", "error"]
#: run_many's DataFrame: one row per recording, in the order given.
RESULT_COLUMNS = ["input", "out", "status", "samples", "beats", "beats_kept", "seconds", "error", "worker"]
#: The files of one recording's run; a folder holding any of them is an earlier result.
_RESULT_FILES = (
    "beats.csv",
    "summary.json",
    "report.html",
    "model.safetensors",
    "beats.atr",
    "episodes.csv",
    "events.csv",
)


def _require_distributed():
    try:
        import distributed  # noqa: F401  (dask's scheduler, also importable as dask.distributed)
    except ImportError as e:
        raise ImportError(
            "zeroflow.dask needs Dask's distributed scheduler: pip install 'dask[distributed]' "
            "(or pip install 'zeroflow[dask]')"
        ) from e
    return distributed


def folder_names(paths: Sequence[PathLike]) -> List[str]:
    """The output folder name of each recording, exactly as ``zeroflow run A B ...`` names them:
    the file name without its extension, sanitised (no separators, control characters, leading dots),
    made distinct (``-2``, ``-3``, ... even where case is ignored) and never ``runs.csv``."""
    return list(_core._distinct_folder_names([os.fspath(p) for p in paths], ["runs.csv"]))


def _count_true(values: Any) -> int:
    import numpy as np

    return int(np.count_nonzero(np.asarray(values)))


def run_recording(input: str, out_dir: str, name: str, options: Dict[str, Any], force: bool = False) -> Dict[str, Any]:
    """One Dask task: the pipeline on `input`, its files in ``out_dir/name``.

    The files are written into a hidden staging folder beside the target and renamed into place
    once the run has succeeded, so a failure leaves nothing behind. Errors of the recording are a
    row (status "failed"), not an exception: they are no reason to retry on another worker.
    """
    from .pipeline import run as run_pipeline

    target = os.path.join(out_dir, name)
    row: Dict[str, Any] = dict(
        input=input,
        out=target,
        status="ok",
        samples=0,
        beats=0,
        beats_kept=0,
        seconds=0.0,
        error="",
        worker=_worker_name(),
    )
    staging = os.path.join(out_dir, f".{name}.zeroflow-staging-{uuid.uuid4().hex[:12]}")
    start = time.perf_counter()
    try:
        if os.path.lexists(target) and not (force and os.path.isdir(target) and not os.path.islink(target)):
            raise FileExistsError(
                f"{target} already exists; pass force=True (--force) to replace it, or choose another output folder"
            )
        os.makedirs(staging)
        result = run_pipeline(input, out=staging, model_out=os.path.join(staging, "model.safetensors"), **options)
        if os.path.lexists(target):  # force: the old results go only once the new ones are complete
            old = staging + ".old"
            os.rename(target, old)
            os.rename(staging, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(staging, target)
        row.update(samples=int(result.samples), beats=int(len(result.length)), beats_kept=_count_true(result.kept))
    except Exception as e:  # noqa: BLE001  (every failure of a recording is reported in its row)
        shutil.rmtree(staging, ignore_errors=True)
        row.update(status="failed", error=_one_line(e))
    row["seconds"] = time.perf_counter() - start
    return row


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().name)
    except (ImportError, ValueError):
        return ""


def gpu_count() -> int:
    """GPUs visible to this process (0 without CUDA or without PyTorch to ask)."""
    if not _core.cuda_available():
        return 0
    try:
        import torch

        return int(torch.cuda.device_count())
    except ImportError:
        return 1


def local_cluster(n_workers: Optional[int] = None, *, device: str = "auto", dashboard_address: str = ":0"):
    """A local cluster for :func:`run_many`: one worker process per GPU (``dask_cuda.LocalCUDACluster``
    when it is installed, else one ``distributed.Nanny`` per GPU with ``CUDA_VISIBLE_DEVICES`` set)
    when GPUs are present and `device` is not "cpu"; otherwise a ``LocalCluster`` of `n_workers`
    single-threaded worker processes (default: the CPU count).
    """
    distributed = _require_distributed()
    gpus = 0 if device == "cpu" else gpu_count()
    if gpus > 0:
        n = gpus if n_workers is None else min(n_workers, gpus)
        try:
            from dask_cuda import LocalCUDACluster
        except ImportError:
            LocalCUDACluster = None
        if LocalCUDACluster is not None:
            # No RMM pool: zeroflow's own stream-ordered pool serves zeroflow and LibTorch in each worker.
            return LocalCUDACluster(
                CUDA_VISIBLE_DEVICES=list(range(n)), threads_per_worker=1, dashboard_address=dashboard_address
            )
        workers = {
            f"gpu-{i}": {"cls": distributed.Nanny, "options": {"nthreads": 1, "env": {"CUDA_VISIBLE_DEVICES": str(i)}}}
            for i in range(n)
        }
        scheduler = {"cls": distributed.Scheduler, "options": {"dashboard_address": dashboard_address}}
        return distributed.SpecCluster(workers=workers, scheduler=scheduler)
    n = n_workers or os.cpu_count() or 1
    return distributed.LocalCluster(
        n_workers=n, threads_per_worker=1, processes=True, dashboard_address=dashboard_address
    )


def _earlier_results(out_dir: str, names: Sequence[str]) -> List[str]:
    found = []
    runs = os.path.join(out_dir, "runs.csv")
    if os.path.lexists(runs):
        found.append(runs)
    for name in names:
        if os.path.lexists(os.path.join(out_dir, name)):
            found.append(os.path.join(out_dir, name))
    return found


def write_runs_csv(path: PathLike, rows: Sequence[Dict[str, Any]]) -> None:
    """runs.csv as ``zeroflow run A B ...`` writes it, atomically (a temporary file renamed into place)."""
    path = os.fspath(path)
    tmp = f"{path}.tmp-{uuid.uuid4().hex[:12]}"
    try:
        with open(tmp, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(RUNS_COLUMNS)
            for r in rows:
                w.writerow(
                    [
                        r["input"],
                        r["out"],
                        r["status"],
                        r["samples"],
                        r["beats"],
                        r["beats_kept"],
                        f"{r['seconds']:.6g}",
                        r["error"],
                    ]
                )
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _failed_row(input: str, target: str, error: str) -> Dict[str, Any]:
    return dict(
        input=input,
        out=target,
        status="failed",
        samples=0,
        beats=0,
        beats_kept=0,
        seconds=math.nan,
        error=error,
        worker="",
    )


def run_many(
    paths: Sequence[PathLike],
    out_dir: PathLike,
    client: Any = None,
    *,
    n_workers: Optional[int] = None,
    retries: int = 2,
    force: bool = False,
    progress: Union[bool, Any] = True,
    **run_options: Any,
):
    """Runs the pipeline of ``zeroflow run`` on every recording, one Dask task each.

    Args:
        paths: the recordings (CSV, WFDB ``NAME.hea``, EDF), readable from every worker.
        out_dir: gets one folder per recording (:func:`folder_names`) and ``runs.csv``; it must be
            on storage every worker writes to (a shared file system on a multi-node cluster).
        client: a ``distributed.Client``; None starts a local cluster (:func:`local_cluster`) for
            this call and closes it afterwards.
        n_workers: workers of that local cluster (default: one per GPU, else one per CPU core).
        retries: how often Dask runs a recording again whose worker died.
        force: replace earlier results (a recording's folder, runs.csv) instead of refusing them.
        progress: True shows Dask's progress bar (text in a terminal, a widget in a notebook);
            a callable is called with each finished row (a dict) instead; False shows nothing.
        run_options: passed to :func:`zeroflow.run` for every recording (device, epochs, batch,
            seed, column, sample_rate, ...); ``labels`` defaults to each recording's NAME.labels.csv.

    Returns:
        A pandas DataFrame, one row per recording in the order given: input, out, status ("ok" or
        "failed"), samples, beats (beats found), beats_kept, seconds (the task's run time), error
        (one line, empty when ok), worker (the Dask worker that ran it).

    Raises:
        FileExistsError: `out_dir` holds earlier results and `force` is False (nothing is run).
        TypeError: an option that :func:`zeroflow.run` does not take (before anything is run).
    """
    import pandas as pd

    from .pipeline import OPTION_TABLE

    distributed = _require_distributed()
    known = {o["name"] for o in OPTION_TABLE} | {"column", "options", "figures"}
    unknown = sorted(set(run_options) - known)
    unknown += sorted({"out", "model_out", "progress", "input"} & set(run_options))
    if unknown:
        raise TypeError(f"run_many() got option(s) zeroflow.run does not take here: {', '.join(unknown)}")
    inputs = [os.fspath(p) for p in paths]
    if not inputs:
        raise ValueError("run_many() needs at least one recording")
    out_dir = os.fspath(out_dir)
    names = folder_names(inputs)
    os.makedirs(out_dir, exist_ok=True)
    earlier = _earlier_results(out_dir, names)
    if earlier and not force:
        raise FileExistsError(
            f"{out_dir} already holds results of an earlier run ({', '.join(earlier[:3])}"
            f"{', ...' if len(earlier) > 3 else ''}); pass force=True (--force) to replace them, or "
            "choose another output folder"
        )
    targets = [os.path.join(out_dir, n) for n in names]

    own_cluster = None
    if client is None:
        own_cluster = local_cluster(
            n_workers if n_workers is not None else None, device=str(run_options.get("device", "auto"))
        )
        client = distributed.Client(own_cluster)
    try:
        futures = [
            client.submit(
                run_recording,
                path,
                out_dir,
                name,
                run_options,
                force,
                retries=retries,
                pure=False,
                key=f"zeroflow-run-{i}-{uuid.uuid4().hex[:8]}",
            )
            for i, (path, name) in enumerate(zip(inputs, names))
        ]
        if progress is True:
            distributed.progress(futures)
        rows: List[Optional[Dict[str, Any]]] = [None] * len(futures)
        index = {f.key: i for i, f in enumerate(futures)}
        for future in distributed.as_completed(futures):
            i = index[future.key]
            if future.status == "finished":
                rows[i] = future.result()
            else:  # the task itself failed: its worker died more often than `retries` allows
                try:
                    future.result()
                    error = "the task was cancelled"
                except BaseException as e:  # noqa: BLE001
                    error = f"{type(e).__name__}: {_one_line(e)}"
                rows[i] = _failed_row(inputs[i], targets[i], error)
            if callable(progress) and progress is not True:
                progress(dict(rows[i]))
    finally:
        if own_cluster is not None:
            client.close()
            own_cluster.close()
    done = [r for r in rows if r is not None]
    write_runs_csv(os.path.join(out_dir, "runs.csv"), done)
    return pd.DataFrame(done, columns=RESULT_COLUMNS)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="zeroflow run --scheduler", description="zeroflow run on many recordings, one Dask task each."
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT")
    p.add_argument("--out", "-o", required=True)
    p.add_argument(
        "--scheduler",
        required=True,
        help="a Dask scheduler's address (tcp://host:8786) or 'local' for a cluster on this machine",
    )
    p.add_argument("--workers", type=int, default=None, help="workers of a local cluster")
    p.add_argument("--retries", type=int, default=2)
    p.add_argument("--force", "-f", action="store_true")
    p.add_argument("--figures", default="none", choices=["none", "png"])
    p.add_argument("--jobs", "-j", type=int, default=1, help="not used: the workers decide (see --workers)")
    # Every run option of `zeroflow run`, from the library's table, under the library's flag
    # (--min-beat-seconds; `zeroflow run --scheduler` forwards its own spellings as these), checked
    # by the library (a value it refuses is a usage error naming the flag).
    for o in _core._run_option_table():
        if not o["flag"] or o["use"] == "scoring":
            continue
        if o["kind"] == "bool":
            p.add_argument(o["flag"], dest=o["name"], action="store_const", const="true", default=None)
        else:
            p.add_argument(o["flag"], dest=o["name"], default=None)
    return p


class _UsageError(Exception):
    pass


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command-line front (``zeroflow run --scheduler``): exit 0 when every recording succeeded,
    1 when any failed or the run could not start, 2 for a usage error; one line per failure."""
    parser = _parser()
    parser.error = lambda message: (_ for _ in ()).throw(_UsageError(message))  # type: ignore[method-assign]
    try:
        a = parser.parse_args(argv)
    except _UsageError as e:
        print(f"zeroflow: error: {e} (see zeroflow run --help)", file=sys.stderr)
        return 2
    options: Dict[str, Any] = {
        o["name"]: getattr(a, o["name"])
        for o in _core._run_option_table()
        if o["flag"] and o["use"] != "scoring" and getattr(a, o["name"], None) is not None
    }
    problem = _core._run_options_problem(list(options.items()))
    if problem is not None:
        print(f"zeroflow: error: {problem} (see zeroflow run --help)", file=sys.stderr)
        return 2
    if a.figures != "none":
        options["figures"] = a.figures
    if a.jobs != 1:
        print(
            "zeroflow: note: with --scheduler the cluster's workers decide how many recordings run at once "
            "(--workers for a local one); --jobs is not used",
            file=sys.stderr,
        )
    if options.get("labels") is not None and len(a.inputs) > 1:
        print(
            f"zeroflow: error: --labels names one file, but {len(a.inputs)} recordings were given; each "
            "recording's labels are read from beside it (see zeroflow run --help)",
            file=sys.stderr,
        )
        return 2
    missing = [p for p in a.inputs if not os.path.isfile(p)]
    if missing:
        print(f"zeroflow: error: {missing[0]}: no such file (see zeroflow run --help)", file=sys.stderr)
        return 2
    t0 = time.perf_counter()

    def said(row: Dict[str, Any]) -> None:
        what = "done" if row["status"] == "ok" else "failed: " + row["error"]
        print(
            f"[{time.perf_counter() - t0:7.1f} s] {row['input']} ({row['worker'] or 'no worker'}): {what}",
            file=sys.stderr,
            flush=True,
        )

    try:
        distributed = _require_distributed()
        client = None
        if a.scheduler != "local":
            client = distributed.Client(a.scheduler, timeout="30s")
            print(
                f"[{time.perf_counter() - t0:7.1f} s] scheduler {a.scheduler}: "
                f"{len(client.scheduler_info().get('workers', {}))} workers; dashboard {client.dashboard_link}",
                file=sys.stderr,
                flush=True,
            )
        try:
            frame = run_many(
                a.inputs, a.out, client, n_workers=a.workers, retries=a.retries, force=a.force, progress=said, **options
            )
        finally:
            if client is not None:
                client.close()
    except (ImportError, OSError, ValueError, TypeError, TimeoutError) as e:
        print(f"zeroflow: error: {_one_line(e)}", file=sys.stderr)
        return 1
    failed = int((frame["status"] != "ok").sum())
    runs = os.path.join(a.out, "runs.csv")
    print(
        f"[{time.perf_counter() - t0:7.1f} s] wrote {runs}: {len(frame) - failed} of {len(frame)} recordings done",
        file=sys.stderr,
    )
    if failed:
        print(f"zeroflow: error: {failed} of {len(frame)} recordings failed (see {runs})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    # Through the imported module, so that the tasks pickle as zeroflow.dask.run_recording (workers
    # import it) rather than as functions of this __main__.
    from zeroflow.dask import main as _main

    sys.exit(_main())
