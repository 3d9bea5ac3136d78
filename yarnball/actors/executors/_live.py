"""The NodeManager's live executor: real processes for real containers, on the wall clock.

What it does, after Hadoop's NodeManager:

- **Launch** (``ContainerLaunch.call`` with ``DefaultContainerExecutor``): a command runs as ``/bin/bash -c
  "<commands>"``, a Python callable in a ``multiprocessing`` forkserver process (one process per container, as the
  NM forks one; a shared pool worker could not be signalled or measured per container), or as a Ray task when
  ``yarnball.executor.callable-runner`` says so (``_ray.py``: its worker is measured, a cancel file is its SIGTERM
  and ``ray.cancel(force=True)`` its SIGKILL). A process is a session leader. Each has the container's environment
  (``CONTAINER_ID``, ``APPLICATION_ID``, ``NM_HOST``, ``NM_PORT``, ``LOG_DIRS``, ``PWD`` plus the launch
  context's), its working directory
  ``<local-dir>/usercache/<user>/appcache/<application>/<container>`` and its stdout and stderr in
  ``<log-dir>/<application>/<container>/``. The directories are ``yarn.nodemanager.local-dirs`` and
  ``yarn.nodemanager.log-dirs`` (first entry) when set, else ``nm-local-dir`` and ``userlogs`` under the live
  cluster's work directory.
- **Kill** (``ContainerLaunch.cleanupContainer``): SIGTERM to the process group, SIGKILL
  ``yarn.nodemanager.sleep-delay-before-sigkill.ms`` (250) later if it is still there. The container stays RUNNING
  until the process is gone, then completes with the kill's exit status (KILLED_BY_APPMASTER -105,
  KILLED_BY_RESOURCEMANAGER -106, KILLED_EXCEEDED_PMEM -104, ...) and diagnostics.
- **Monitor** (``ContainersMonitorImpl.MonitoringThread``): every ``yarn.nodemanager.container-monitor.interval-ms``
  (3000 by default, as Hadoop's) of wall time, the RSS and virtual size of each container's process group are read
  from /proc (``ProcfsBasedProcessTree``); a tree over its limit (memory of the allocation; times
  ``yarn.nodemanager.vmem-pmem-ratio`` for virtual memory) is killed with Hadoop's diagnostics when
  ``yarn.nodemanager.pmem-check-enabled`` / ``vmem-check-enabled`` say so. As ``isProcessTreeOverLimit``: over twice
  the limit at once, or over the limit counting only processes already seen one interval earlier. vcores are
  advisory (YARN without cgroups).
- **Exit**: the process's exit code (128 + signal for a signal, as bash reports it) becomes the container's exit
  status, with ``Exception from container-launch`` diagnostics, the tail of stderr and the log directory for a
  non-zero one. It reaches the NodeManager as a :class:`ContainerProcessExited` event at the wall-clock time of
  the exit.

Everything runs on the asyncio loop the live kernel runs on (``Kernel.run_async``): exits are watched with a pidfd
(or the process's sentinel), timers are the loop's. Nothing here runs in virtual time.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.forkserver
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from yarnball.actors._kernel import WallClock
from yarnball.actors.executors._launch import LAUNCHED_AT_ENV, real_work
from yarnball.actors.executors._procfs import long2string, scan_groups, tree_dump
from yarnball.actors.executors._task import run_callable
from yarnball.errors import ConfigurationError
from yarnball.protocols import Configuration, ContainerExitStatus, ContainerId, keys
from yarnball.protocols._executor import ContainerProcessExited

__all__ = ["LiveExecutor", "container_log_dir", "container_work_dir", "start_forkserver"]

#: The forkserver preloads the callable runner (and with it yarnball), so a container process starts in ~10 ms.
_MP = multiprocessing.get_context("forkserver")
_MP.set_forkserver_preload(["__main__", "yarnball.actors.executors._task"])



def start_forkserver() -> None:
    """Start the forkserver now (a live cluster does it before its run), so that the first callable container does
    not wait for it (~0.5-1 s: a new interpreter importing yarnball)."""
    multiprocessing.forkserver.ensure_running()


#: Values of ``yarnball.executor.callable-runner``.
RUNNERS = ("auto", "ray", "process")
TERMINATED = 143  # ExitCode.TERMINATED (SIGTERM)
FORCE_KILLED = 137  # ExitCode.FORCE_KILLED (SIGKILL)
STDERR_TAIL = 4096  # ContainerLaunch: "Last 4096 bytes of stderr"


def container_log_dir(log_root: str | os.PathLike[str], container_id: ContainerId) -> Path:
    """``<log-dir>/<application id>/<container id>``: where the container's stdout and stderr are."""
    return Path(log_root) / str(container_id.application_attempt_id.application_id) / str(container_id)


def container_work_dir(local_root: str | os.PathLike[str], user: str, container_id: ContainerId) -> Path:
    """``<local-dir>/usercache/<user>/appcache/<application id>/<container id>``: the working directory."""
    app = str(container_id.application_attempt_id.application_id)
    return Path(local_root) / "usercache" / user / "appcache" / app / str(container_id)


class _Process:
    """One container's process and what the NM knows of it."""

    __slots__ = ("cid", "fd", "handle", "kill", "kind", "log_dir", "pid", "pmem_limit", "seen", "sigkill",
                 "started", "vmem_limit")  # fmt: skip

    def __init__(self, cid: ContainerId, kind: str, handle: Any, log_dir: Path, pmem: int, vmem: int) -> None:
        self.cid = cid
        self.kind = kind
        self.handle = handle
        self.pid: int = handle.pid
        self.fd = -1
        self.log_dir = log_dir
        self.pmem_limit = pmem
        self.vmem_limit = vmem
        self.kill: tuple[int, str] | None = None  # (exit status, diagnostics) of the kill asked for
        self.sigkill: asyncio.TimerHandle | None = None
        self.seen: set[int] = set()  # pids seen by the previous monitoring round (the "aged" processes)
        self.started = time.monotonic()


class LiveExecutor:
    """Runs the real containers of one NodeManager ``nm``; ``work_dir`` holds their logs and working dirs."""

    def __init__(self, nm: Any, conf: Configuration, work_dir: str | os.PathLike[str]) -> None:
        self.nm = nm
        root = Path(work_dir)
        self.log_root = Path(_first(conf.get(keys.NM_LOG_DIRS)) or root / "userlogs")
        self.local_root = Path(_first(conf.get(keys.NM_LOCAL_DIRS)) or root / "nm-local-dir")
        delay = conf.get_int(keys.NM_SLEEP_DELAY_BEFORE_SIGKILL_MS, keys.DEFAULT_NM_SLEEP_DELAY_BEFORE_SIGKILL_MS)
        interval = conf.get_int(keys.NM_CONTAINER_MONITOR_INTERVAL_MS, keys.DEFAULT_NM_CONTAINER_MONITOR_INTERVAL_MS)
        if delay < 0:
            raise ValueError(f"{keys.NM_SLEEP_DELAY_BEFORE_SIGKILL_MS}: must be >= 0, got {delay}")
        if interval <= 0:
            raise ValueError(f"{keys.NM_CONTAINER_MONITOR_INTERVAL_MS}: must be > 0, got {interval}")
        self.sigkill_delay_s = delay / 1000.0
        self.monitor_interval_s = interval / 1000.0
        self.pmem_check = conf.get_bool(keys.NM_PMEM_CHECK_ENABLED, keys.DEFAULT_NM_PMEM_CHECK_ENABLED)
        self.vmem_check = conf.get_bool(keys.NM_VMEM_CHECK_ENABLED, keys.DEFAULT_NM_VMEM_CHECK_ENABLED)
        self.vmem_ratio = conf.get_float(keys.NM_VMEM_PMEM_RATIO, keys.DEFAULT_NM_VMEM_PMEM_RATIO)
        runner = (conf.get(keys.EXECUTOR_CALLABLE_RUNNER) or keys.DEFAULT_EXECUTOR_CALLABLE_RUNNER).strip().lower()
        if runner not in RUNNERS:
            raise ConfigurationError(
                f"{keys.EXECUTOR_CALLABLE_RUNNER}: expected one of {', '.join(RUNNERS)}, got {runner!r}"
            )
        self.callable_runner = runner
        self.processes: dict[ContainerId, _Process] = {}
        #: Per container, the signals sent and the exit, as (what, time.monotonic()) pairs (for tests and reports).
        self.history: dict[ContainerId, list[tuple[str, float]]] = {}
        self._monitor: asyncio.TimerHandle | None = None
        self._seq = 0
        self.closed = False
        self.loop: asyncio.AbstractEventLoop | None = None  # the live run's loop (set at the first launch)

    # -- the NodeManager's calls ------------------------------------------------------------------------------
    def launch(self, entry: Any) -> bool:
        """Start the real work of ``entry`` (a RUNNING container); False when its context asks for none."""
        work = real_work(entry.context)
        if work is None:
            return False
        container = entry.container
        cid = container.id
        env = dict(work.environment)
        log_dir = container_log_dir(self.log_root, cid)
        work_dir = container_work_dir(self.local_root, env.get("USER") or "yarnball", cid)
        env.update(
            CONTAINER_ID=str(cid),
            APPLICATION_ID=str(cid.application_attempt_id.application_id),
            NM_HOST=self.nm.node_id.host,
            NM_PORT=str(self.nm.node_id.port),
            LOG_DIRS=str(log_dir),
            PWD=str(work_dir),
        )
        env[LAUNCHED_AT_ENV] = repr(time.monotonic())
        try:
            loop = self.loop = asyncio.get_running_loop()
            log_dir.mkdir(parents=True, exist_ok=True)
            work_dir.mkdir(parents=True, exist_ok=True)
            kind = work.kind
            if kind == "command":
                handle: Any = self._start_command(work.command, env, work_dir, log_dir)
            elif self._on_ray():
                from yarnball.actors.executors._ray import RayTask

                kind = "ray"
                handle = RayTask(str(cid), work.payload, env, work_dir, log_dir)
            else:
                handle = _MP.Process(
                    target=run_callable,
                    args=(work.payload, env, str(work_dir), str(log_dir / "stdout"), str(log_dir / "stderr")),
                    name=str(cid),
                )
                handle.start()
        except (OSError, RuntimeError, ValueError) as err:
            # ContainerLaunch.call's catch: the launch itself failed (no loop, no directory, no fork).
            why = "no running event loop (real containers need a live run)" if isinstance(err, RuntimeError) else err
            self._post(cid, -1, f"Failed to launch container {cid}: {why}")
            return True
        pmem = container.resource.memory_mb * 1024 * 1024
        proc = _Process(cid, kind, handle, log_dir, pmem, int(pmem * self.vmem_ratio))
        self.processes[cid] = proc
        self.history[cid] = [("start", proc.started)]
        if kind == "command":
            proc.fd = os.pidfd_open(proc.pid)
            loop.add_reader(proc.fd, self._exited, cid)
        elif kind == "ray":
            handle.future.add_done_callback(lambda _: _call_soon(loop, self._exited, cid))
        else:
            loop.add_reader(handle.sentinel, self._exited, cid)
        if self._monitor is None and (self.pmem_check or self.vmem_check):
            self._monitor = loop.call_later(self.monitor_interval_s, self._monitoring_round)
        self.nm.log.info("container_process_started", container=str(cid), pid=proc.pid, kind=kind,
                         log_dir=str(log_dir))  # fmt: skip
        return True

    def _on_ray(self) -> bool:
        """Whether a callable container runs as a Ray task (the runner the configuration asks for)."""
        from yarnball.actors.executors._ray import ray_is_initialized

        if self.callable_runner == "process":
            return False
        if self.callable_runner == "ray" and not ray_is_initialized():
            raise ValueError(f"{keys.EXECUTOR_CALLABLE_RUNNER} is ray but Ray is not initialized (call ray.init())")
        return ray_is_initialized()

    def _start_command(
        self, command: str, env: dict[str, str], work_dir: Path, log_dir: Path
    ) -> subprocess.Popen[bytes]:
        with open(log_dir / "stdout", "ab") as out, open(log_dir / "stderr", "ab") as err:
            return subprocess.Popen(
                ["/bin/bash", "-c", command],
                cwd=work_dir,
                env={**os.environ, **env},
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,  # DefaultContainerExecutor's setsid: the container is a process group
            )

    def running(self, cid: ContainerId) -> bool:
        """Whether ``cid`` has a live process here (the NM then waits for its exit instead of completing it)."""
        return cid in self.processes

    def terminate(self, cid: ContainerId, exit_status: int, diagnostics: str) -> bool:
        """Kill ``cid``'s process: SIGTERM now, SIGKILL after the delay; it completes when the process is gone.
        False when no process of ours runs ``cid``. A second kill while the first is under way changes nothing."""
        proc = self.processes.get(cid)
        if proc is None:
            return False
        if proc.kill is not None:
            return True
        proc.kill = (exit_status, diagnostics)
        self._signal(proc, signal.SIGTERM)
        assert self.loop is not None  # (set by the launch)
        proc.sigkill = self.loop.call_later(self.sigkill_delay_s, self._force_kill, cid)
        return True

    def kill_all(self, exit_status: int, diagnostics: str) -> None:
        """The node is going away: SIGKILL every process now; their exits are not reported (the NM is gone)."""
        self.closed = True
        for proc in list(self.processes.values()):
            if proc.kill is None:
                proc.kill = (exit_status, diagnostics)
            self._signal(proc, signal.SIGKILL)

    def shutdown(self) -> None:
        """The run is over: SIGKILL whatever still runs and reap it (no report)."""
        self.closed = True
        for cid, proc in list(self.processes.items()):
            self._signal(proc, signal.SIGKILL)
            self._unwatch(proc)
            if proc.kind != "ray":  # (Ray reaps its worker; the task's result is not waited for)
                self._reap(proc)
            del self.processes[cid]
        if self._monitor is not None:
            self._monitor.cancel()
            self._monitor = None

    # -- signals and exits ------------------------------------------------------------------------------------
    def _signal(self, proc: _Process, sig: signal.Signals) -> None:
        self.history.setdefault(proc.cid, []).append((sig.name, time.monotonic()))
        if proc.kind == "ray":
            # SIGTERM: the task's cancel file (ctx.cancelled); SIGKILL: ray.cancel(force=True) kills the worker
            if sig == signal.SIGTERM:
                proc.handle.terminate()
            else:
                proc.handle.force_kill()
            self.nm.log.info("container_signalled", container=str(proc.cid), pid=proc.pid, signal=sig.name)
            return
        try:
            os.killpg(proc.pid, sig)  # the whole container (ContainerExecutor.signalContainer on the group)
        except ProcessLookupError:
            try:
                os.kill(proc.pid, sig)  # not a group leader yet (a callable sets up its session first)
            except ProcessLookupError:
                return
        self.nm.log.info("container_signalled", container=str(proc.cid), pid=proc.pid, signal=sig.name)

    def _force_kill(self, cid: ContainerId) -> None:
        proc = self.processes.get(cid)
        if proc is not None:
            proc.sigkill = None
            self._signal(proc, signal.SIGKILL)

    def _unwatch(self, proc: _Process) -> None:
        loop = self.loop
        fd = proc.fd if proc.kind == "command" else -1 if proc.kind == "ray" else proc.handle.sentinel
        if loop is not None and not loop.is_closed() and fd >= 0:
            loop.remove_reader(fd)
        if proc.kind == "command" and proc.fd >= 0:
            os.close(proc.fd)
            proc.fd = -1
        if proc.sigkill is not None:
            proc.sigkill.cancel()
            proc.sigkill = None

    @staticmethod
    def _reap(proc: _Process) -> int:
        if proc.kind == "command":
            code = proc.handle.wait()
        elif proc.kind == "ray":
            code = proc.handle.exit_code()
        else:
            proc.handle.join()
            code = proc.handle.exitcode
            proc.handle.close()
        return 128 - code if code < 0 else code  # a signal: 128 + its number, as the container's shell reports

    def _exited(self, cid: ContainerId) -> None:
        proc = self.processes.pop(cid, None)
        if proc is None:
            return
        self._unwatch(proc)
        code = self._reap(proc)
        if proc.kind == "ray" and proc.pid < 0:
            proc.pid = proc.handle.worker_pid()  # (for the log: the monitor may not have read it yet)
        self.history.setdefault(cid, []).append(("exit", time.monotonic()))
        if proc.kind != "ray":  # (a Ray worker's group is not the container's: Ray reuses its workers)
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # what the container left running in its group goes with it
            except (ProcessLookupError, PermissionError):
                pass
        self.nm.log.info("container_process_exited", container=str(cid), pid=proc.pid, exit_code=code)
        if proc.kill is not None:
            status, diagnostics = proc.kill
            lines = [diagnostics] if diagnostics else []
            if code in (TERMINATED, FORCE_KILLED):
                lines.append(f"Container killed on request. Exit code is {code}")  # LinuxContainerExecutor
            if code != 0:
                lines.append(f"Container exited with a non-zero exit code {code}. ")
            lines.append(f"For more detailed output, check the container logs: {proc.log_dir}")
            self._post(cid, status, "\n".join(lines))
        elif code == 0:
            self._post(cid, int(ContainerExitStatus.SUCCESS), "")
        else:
            # ContainerExecutor.launchContainer's "Exception from container-launch." and ContainerLaunch's
            # handleContainerExitWithFailure ("Container exited with a non-zero exit code ...", stderr's tail).
            self._post(
                cid,
                code,
                f"Exception from container-launch.\nContainer id: {cid}\nExit code: {code}\n\n"
                f"Container exited with a non-zero exit code {code}. Last {STDERR_TAIL} bytes of stderr :\n"
                f"{_tail(proc.log_dir / 'stderr')}\n"
                f"For more detailed output, check the container logs: {proc.log_dir}",
            )
        if not self.processes and self._monitor is not None:
            self._monitor.cancel()
            self._monitor = None

    def _post(self, cid: ContainerId, exit_status: int, diagnostics: str) -> None:
        """Tell the NodeManager that ``cid``'s process ended, as an event at the wall clock's time now."""
        if self.closed:
            return
        nm = self.nm
        kernel = nm.kernel
        clock = kernel.clock
        t = max(clock.now_ms() if isinstance(clock, WallClock) else kernel.now, kernel.now)
        self._seq += 1
        message = ContainerProcessExited(container_id=cid, exit_status=exit_status, diagnostics=diagnostics)
        nm.post(t, f"{nm.id}/executor", self._seq, message)

    # -- ContainersMonitor ------------------------------------------------------------------------------------
    def _monitoring_round(self) -> None:
        self._monitor = None
        if not self.processes or self.closed:
            return
        for proc in self.processes.values():
            if proc.kind == "ray" and proc.pid < 0:
                proc.pid = proc.handle.worker_pid()  # (known once the task started)
        groups = scan_groups({p.pid for p in self.processes.values() if p.pid > 0})
        for proc in list(self.processes.values()):
            tree = groups.get(proc.pid) or []
            if proc.kind == "ray":
                tree = tree[:1]  # the worker alone (its process group is Ray's, not the container's)
            if proc.kill is not None or not tree:
                continue
            rss = sum(p.rss_bytes for p in tree)
            vmem = sum(p.vmem_bytes for p in tree)
            aged_rss = sum(p.rss_bytes for p in tree if p.pid in proc.seen)
            aged_vmem = sum(p.vmem_bytes for p in tree if p.pid in proc.seen)
            proc.seen = {p.pid for p in tree}
            usage = (
                f"{long2string(rss)}B of {long2string(proc.pmem_limit)}B physical memory used; "
                f"{long2string(vmem)}B of {long2string(proc.vmem_limit)}B virtual memory used"
            )  # formatUsageString
            # A Ray worker's address space is mostly Ray's (its object store mappings, gigabytes): no vmem check.
            if self.vmem_check and proc.kind != "ray" and _over_limit(vmem, aged_vmem, proc.vmem_limit):
                kind, status = "virtual", ContainerExitStatus.KILLED_EXCEEDED_VMEM
            elif self.pmem_check and _over_limit(rss, aged_rss, proc.pmem_limit):
                kind, status = "physical", ContainerExitStatus.KILLED_EXCEEDED_PMEM
            else:
                continue
            # ContainersMonitorImpl.formatErrorMessage (Hadoop 2.x-3.1 wording, the one YARN users know)
            message = (
                f"Container [pid={proc.pid},containerID={proc.cid}] is running beyond {kind} memory limits. "
                f"Current usage: {usage}. Killing container.\n"
                f"Dump of the process-tree for {proc.cid} :\n{tree_dump(tree)}"
            )
            self.nm.log.warning("container_over_memory_limit", container=str(proc.cid), kind=kind, rss=rss, vmem=vmem)
            self.terminate(proc.cid, int(status), message)
        if self.processes:
            assert self.loop is not None
            self._monitor = self.loop.call_later(self.monitor_interval_s, self._monitoring_round)


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Any, *args: Any) -> None:
    """``loop.call_soon_threadsafe`` from Ray's callback thread, unless the run's loop is already closed."""
    try:
        loop.call_soon_threadsafe(callback, *args)
    except RuntimeError:
        pass


def _over_limit(current: int, aged: int, limit: int) -> bool:
    """``ContainersMonitorImpl.isProcessTreeOverLimit``: over twice the limit now, or the aged processes over it."""
    return limit > 0 and (current > 2 * limit or aged > limit)


def _first(value: str | None) -> str | None:
    if not value:
        return None
    return value.split(",")[0].strip() or None


def _tail(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - STDERR_TAIL))
            return f.read().decode(errors="replace")
    except OSError:
        return ""
