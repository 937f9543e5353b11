"""``ovos-memory-service``: run the daemon until SIGTERM or SIGINT; SIGHUP
reloads the configuration instead of killing the process."""
import argparse
import signal
import sys
import threading
from typing import List, Optional

from ovos_utils.log import LOG, init_service_logger

from ovos_memory_service.common import privacy
from ovos_memory_service.common.errors import StoreLocked
from ovos_memory_service.version import __version__
from ovos_memory_service.edge.service import MemoryService, _log_error, _log_ready, _log_stopping

# another daemon holds the store (systemd: RestartPreventExitStatus)
EXIT_STORE_HELD_BY_DAEMON = 69  # EX_UNAVAILABLE


def arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ovos-memory-service",
        description="The OVOS memory service: conversational memory for every persona, answering "
                    "memory.* requests on the messagebus (mycroft.conf's websocket) until SIGTERM or "
                    "SIGINT; SIGHUP reloads the configuration (mycroft.conf's memory_service section).",
        epilog="See what it keeps, and forget it, with ovos-memory.")
    parser.add_argument("--version", action="version", version=f"%(prog)s, version {__version__}")
    return parser


def main(ready_hook=_log_ready, error_hook=_log_error, stopping_hook=_log_stopping,
         argv: Optional[List[str]] = None):
    arguments().parse_args(argv)  # --help and --version answer and exit; nothing else is an option
    init_service_logger("memory")
    for name, value in privacy.opted_in().items():
        LOG.warning(f"{name}={value} in the environment: that library's telemetry may be on")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        service = MemoryService(ready_hook=ready_hook, error_hook=error_hook,
                                stopping_hook=stopping_hook)
        signal.signal(signal.SIGHUP, lambda *_: service.reload())
        service.start(stop)
    except StoreLocked as e:  # raised only when another daemon holds the store
        LOG.error(f"{e}: another ovos-memory-service already runs on this store; exiting")
        error_hook(e)
        sys.exit(EXIT_STORE_HELD_BY_DAEMON)
    except Exception as e:
        LOG.exception("memory service failed to start")
        error_hook(e)
        sys.exit(1)
    while not stop.wait(1):
        pass
    service.shutdown()


if __name__ == "__main__":
    main()
