#!/usr/bin/env bash
# Every test: the main environment (stable OPM 2.2.0), then a second environment
# pinned in tests/persona_env/constraints.txt with the real ovos-persona 0.9.0a25
# (it pulls OPM pre-releases, which must never enter the main environment).
set -euo pipefail
cd "$(dirname "$0")/.."
pip install -e '.[test,voice-test]'
python -m pytest
python3 -m venv /tmp/ovos-memory-persona-env
/tmp/ovos-memory-persona-env/bin/pip install -c tests/persona_env/constraints.txt -e '.[test]' ovos-persona==0.9.0a25
/tmp/ovos-memory-persona-env/bin/python -m pytest tests/persona_env tests/plugins/test_persona_plugin.py
# The device recipe (docs/device.md), opt-in: OVOS_MEMORY_DEVICE_TESTS=1. A third venv from
# tests/device_env/constraints.txt (ovos-core + ovos-persona + ovos-openai-plugin + this
# project); about 40 s to install and 15 s to run (tests/device_env/README.md).
if [ "${OVOS_MEMORY_DEVICE_TESTS:-0}" = 1 ]; then
    python3 -m venv /tmp/ovos-memory-device-env
    /tmp/ovos-memory-device-env/bin/pip install -c tests/device_env/constraints.txt -e '.[test]' \
        ovos-core==2.1.5a1 ovos-persona==0.9.0a25
    /tmp/ovos-memory-device-env/bin/python -m pytest tests/device_env
fi
