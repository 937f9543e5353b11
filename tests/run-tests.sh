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
/tmp/ovos-memory-persona-env/bin/python -m pytest tests/persona_env tests/test_persona_plugin.py
