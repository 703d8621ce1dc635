"""The vocabulary's builtin names come from the dialect tables (issue 13 §3), and its ids never move: the
shipped models (models/default) were trained on them."""
from __future__ import annotations

import zlib

import pytest

from kgraph import vocab
from kgraph.parsers.dialect import LANGS, get_dialect

VOCAB_ONLY = (*vocab.VOCAB_ONLY_NAMES, *vocab.NAMED_CONSTANTS, *vocab.RULE_SPELLINGS)


def _section() -> list[str]:
    tokens = vocab.load_vocabulary().tokens
    rules = set(vocab._rule_tokens())
    return [t for t in tokens if t not in rules]


def _enumerated_dialect_builtins() -> set[str]:
    """Every builtin the dialect tables name one by one (library prefixes aside)."""
    names: set[str] = set()
    for lang in LANGS:
        t = get_dialect(lang).tables
        names |= set(t.get("work_item_functions", {})) | set(t.get("work_item_variables", {}))
        names |= {fn for costs in t.get("math", {}).values() for fn in costs}
        names |= set(t.get("barriers", [])) | set(t.get("atomics", {}))
        names |= set(t.get("library", {}).get("functions", []))
    return names


def test_vocab_json_regenerates_byte_identically():
    assert vocab.vocabulary_json() == vocab.VOCAB_PATH.read_text(encoding="utf-8")


def test_every_builtin_token_is_a_dialect_builtin_or_named_vocab_only():
    section = _section()
    assert len(section) == 521 and section[0] == "get_global_id" and section[-1] == "CHAR_BIT"
    strays = [t for t in section if t not in VOCAB_ONLY and not vocab.is_dialect_builtin(t)]
    assert strays == [], "dialect tables lost builtins the vocabulary has ids for"


def test_vocab_only_lists_name_no_dialect_builtin_and_no_missing_token():
    """A name a dialect table gains leaves the vocab-only lists; each listed name has its id."""
    assert [n for n in VOCAB_ONLY if vocab.is_dialect_builtin(n)] == []
    assert set(VOCAB_ONLY) <= set(_section())


def test_a_dialect_table_losing_a_builtin_is_refused(monkeypatch):
    monkeypatch.setattr(vocab, "is_dialect_builtin", lambda name: name != "atomicCAS")
    with pytest.raises(ValueError, match="atomicCAS"):
        vocab.build_vocabulary()


def test_dialect_builtins_without_an_id_hash_to_their_bucket():
    v = vocab.load_vocabulary()
    without = sorted(_enumerated_dialect_builtins() - set(v.tokens))
    assert "atomicAdd_block" in without and "get_global_id" not in without
    for name in without:
        assert v.id(name) == len(v.tokens) + zlib.crc32(name.encode()) % vocab.NUM_UNK_BUCKETS
