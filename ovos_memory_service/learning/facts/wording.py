"""A fact read back in the listener's language.

A fact is stored in the words of the rule (or the person, or the LLM) that
learnt it: "Lives in Porto" when it was said in English. Read to a Portuguese
listener it should sound Portuguese. Where the fact model knows the fact's
slot and value, and the listener's rule pack (``locale/<lang>/facts/``) has a
block for that slot whose value is the captured ``{value}``, the block's
``@text`` template is filled with the value ("Mora em Porto"); a word the
template takes from a map (``{in}``, ``{animal}``) is the map's first word for
the key the slot names, else its first word, as the file writes it; a person's
``{name}`` comes from the slot ("family.sister.ana.residence": "Ana"). A
block whose template keeps a ``{detail}`` of the sentence cannot be filled:
the slot's other blocks are tried. A fact already worded by one of
the listener's templates (learnt in that language) is read as it was said, and
so is one the listener's patterns understand (said in that language: "I live
in Porto", given to ``memory.remember``), and any fact without a slot, or whose slot the listener's pack lacks.
"""
import re
from functools import lru_cache
from typing import List, Optional, Tuple

from ovos_memory_service.learning.facts.extract import PLACEHOLDER, Rule, capitalise_name, extract_facts, load_language
from ovos_memory_service.common.resources import match_lang

VALUE_NAMES = ("value", "phrase")


@lru_cache(maxsize=16)
def _blocks(folder: str) -> Tuple[Tuple[Rule, dict], ...]:
    """Every block of a language's pack once, with the maps of its file."""
    language = load_language(folder)
    if language is None:
        return ()
    seen, blocks = set(), []
    for _, _, _, rule, maps in language.compiled:
        if id(rule) not in seen:
            seen.add(id(rule))
            blocks.append((rule, maps))
    order = {id(r): n for n, r in enumerate(language.rules)}  # file order: a slot's first block first
    return tuple(sorted(blocks, key=lambda b: order.get(id(b[0]), 0)))


def _slot_keys(template: str, slot: str) -> Optional[dict]:
    """``pet.{animal}.name`` against ``pet.dog.name``: ``{"animal": "dog"}``; None if it is not that slot."""
    parts, names = [], []
    for piece in re.split(r"(\{\w+\})", template):
        found = PLACEHOLDER.fullmatch(piece)
        if found:
            names.append(found.group(1))
            parts.append(r"([^.]+)")
        else:
            parts.append(re.escape(piece))
    matched = re.fullmatch("".join(parts), slot)
    return dict(zip(names, matched.groups())) if matched else None


def _template_regex(template: str, maps: dict) -> re.Pattern:
    """Text worded by ``template``, whatever its value and map words."""
    parts = []
    for piece in re.split(r"(\{\w+\})", template):
        found = PLACEHOLDER.fullmatch(piece)
        if found and found.group(1) in maps:
            words = sorted(maps[found.group(1)], key=len, reverse=True)
            parts.append("(?:%s)" % "|".join(re.escape(w) for w in words))
        elif found:
            parts.append(".+")
        else:
            parts.append(re.escape(piece))
    return re.compile("".join(parts), re.IGNORECASE | re.DOTALL)


def _map_word(table: dict, key: Optional[str]) -> Optional[str]:
    words = [w for w, k in table.items() if key is None or k == key]
    return getattr(table, "written", {}).get(words[0], words[0]) if words else None


def _blocks_for(folder: str, slot: str) -> List[Tuple[Rule, dict, dict]]:
    found = []
    for rule, maps in _blocks(folder):
        keys = _slot_keys(rule.slot, slot)
        if keys is not None:
            found.append((rule, maps, keys))
    return found


def read_back(content: str, slot: Optional[str], value: Optional[str], lang: str) -> str:
    """``content`` in the words of ``lang``'s rule pack when the slot is known there."""
    folder = match_lang(lang) if (slot and value and lang) else None
    if not folder:
        return content
    blocks = _blocks_for(folder, slot)
    for rule, maps, _ in blocks:
        if any(t and _template_regex(t, maps).fullmatch(content.strip())
               for t in (rule.text, rule.not_text)):
            return content  # already in this language's words
    if any(f.slot == slot for f in extract_facts(content, folder)):
        return content  # as the person said it, in this language ("I live in Porto")
    for rule, maps, keys in blocks:
        if rule.value != "{value}":
            continue  # the value comes from a map word said in another language
        fill = {}
        for name in PLACEHOLDER.findall(rule.text):
            if name in VALUE_NAMES:
                fill[name] = value
            elif name == "name" and keys.get("name"):
                fill[name] = capitalise_name(keys["name"].replace("_", " "), load_language(folder))
            elif name in maps:
                word = _map_word(maps[name], keys.get(name))
                if word is None:
                    break
                fill[name] = word
            else:
                break
        else:
            text = rule.text.format(**fill)
            return text[:1].upper() + text[1:]
    return content
