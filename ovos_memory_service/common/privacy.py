"""Nothing leaves the device: the off-switches of every library in the
dependency tree that reports usage, set before any of them is imported.

``ovos_memory_service/__init__.py`` imports this module first, so the daemon,
the ``ovos-memory`` command line, the persona plugin and the benchmarks all go
through it. Each switch is a default: a value the owner put in the environment
wins (``ORT_DISABLE_TELEMETRY=0`` opts back in knowingly), and the daemon says
so in its log (``opted_in()``).

Checked in the installed packages (grep for telemetry, analytics, posthog,
segment, sentry, DO_NOT_TRACK, and the env var names in their native
libraries), and by tests/project/test_privacy.py (loopback-only namespace, strace):
- onnxruntime (1.32, through fastembed): records telemetry events with a
  device id in ~/.cache/Microsoft/DeveloperTools/.onnxruntime/ and looks up a
  Microsoft events host every few seconds. ``disable_telemetry_events()`` does
  not stop it; ``ORT_DISABLE_TELEMETRY=1`` read at import does.
- huggingface_hub (fastembed downloads named models through it): its user
  agent carries telemetry and, on the first Hub request, it fetches an
  "agent harnesses" registry; ``HF_HUB_DISABLE_TELEMETRY=1`` stops both. hf_xet
  (its download backend) sends transfer telemetry and reads the same switch.
  ``HF_HUB_DISABLE_UPDATE_CHECK=1``: no PyPI query from its CLI parts.
  ``HF_HUB_OFFLINE`` is not set here: a fastembed model named in the
  configuration is downloaded on a device with internet; models/embedder.py sets it
  when the model is a local folder.
- ``DO_NOT_TRACK=1`` (https://donottrack.sh): the common switch that
  huggingface_hub, hf_xet and other tools honour.
- no switch needed: LanceDB and Lance (local tables make no network call; the
  OpenTelemetry bridge in lancedb.otel only reports to a MeterProvider the
  caller installs; the LANCEDB_*/LANCE_* variables are tuning and cloud
  settings), pyarrow (OpenTelemetry only when built with and configured for
  it), fastembed, tokenizers, the OVOS libraries.
"""
import os

SWITCHES = {
    "ORT_DISABLE_TELEMETRY": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HF_HUB_DISABLE_UPDATE_CHECK": "1",
    "DO_NOT_TRACK": "1",
}

for _name, _value in SWITCHES.items():
    os.environ.setdefault(_name, _value)


def opted_in() -> dict:
    """The switches the owner set to something else in the environment."""
    return {name: os.environ[name] for name, value in SWITCHES.items()
            if os.environ.get(name) != value}
