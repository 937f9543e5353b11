"""Unknown keys of the memory_service section are logged as a warning that
names the key and its nearest valid name; valid keys and backend blocks are not."""
import pytest

from ovos_memory_service.common.config import DEFAULTS, build_config, unknown_keys


@pytest.fixture
def warnings(monkeypatch):
    from ovos_memory_service.common import config
    said = []
    monkeypatch.setattr(config.LOG, "warning", lambda text, *a, **k: said.append(str(text)))
    return said


def test_a_misspelt_key_is_named_with_its_nearest_valid_name(warnings):
    config = build_config({"embedings": {"enabled": False}})
    assert "memory_service.embedings is not a setting; did you mean embeddings?" in warnings
    assert config["embeddings"]["enabled"] is True  # the misspelt block changed nothing


def test_nested_keys_too(warnings):
    build_config({"embeddings": {"modle": "x"}, "voice": {"spoken_item": 4}})
    assert "memory_service.embeddings.modle is not a setting; did you mean embeddings.model?" in warnings
    assert "memory_service.voice.spoken_item is not a setting; did you mean voice.spoken_items?" in warnings


def test_a_key_like_nothing_is_named_without_a_guess(warnings):
    build_config({"zzzqqq": 1})
    assert "memory_service.zzzqqq is not a setting" in warnings


def test_valid_keys_and_backend_blocks_are_not_warned_about(warnings):
    build_config({**{k: v for k, v in DEFAULTS.items()},
                  "ovos-memory-plugin-recency": {"max_history": 4}, "lexical": {},
                  "my-own-memory-plugin": {}, "lang": "pt-pt"})
    assert warnings == []
    assert unknown_keys({"voice": {"wait_for_audio": "auto"}}) == []
