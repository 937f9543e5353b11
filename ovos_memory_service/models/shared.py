"""The models loaded in this process, each once: an engine may be opened
again (the command line, tests, benchmarks), and its models stay loaded."""
import threading

_loaded = {}  # the models loaded in this process: (name, settings...) -> model
_loading = threading.Lock()


def shared_model(key: tuple, load):
    """The model ``key`` names, loaded by ``load()`` once per process (engines may be reopened)."""
    with _loading:
        if key not in _loaded:
            _loaded[key] = load()
        return _loaded[key]


def forget_models(keep):
    """Let go of every loaded model but ``keep`` (after a model change)."""
    with _loading:
        for key in [k for k, model in _loaded.items() if model is not keep]:
            del _loaded[key]
