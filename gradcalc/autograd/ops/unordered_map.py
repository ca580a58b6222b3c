"""The order in which libstdc++'s std::unordered_map<std::string, ...> gives back its keys:
PyTorch's argument parser collects a call's keywords in one, and its message lists the ones it
does not know in that order.

The keys hash with std::hash<std::string> (std::_Hash_bytes, a 64-bit MurmurHash with libstdc++'s
seed) into 13 buckets (the first table's size, for up to 13 keys). The table is one singly linked
list: a key whose bucket is empty goes to the front of the list; one whose bucket holds keys goes
in front of that bucket's first key.
"""
from __future__ import annotations

from typing import Iterable

_MASK = (1 << 64) - 1
_MULTIPLIER = (0xC6A4A793 << 32) + 0x5BD1E995
_SEED = 0xC70F6907
_FIRST_BUCKETS = 13


def _shift_mix(value: int) -> int:
    return value ^ (value >> 47)


def std_hash(text: str) -> int:
    """std::hash<std::string> on a 64-bit libstdc++ (std::_Hash_bytes)."""
    data = text.encode("utf-8", "surrogatepass")
    aligned = len(data) & ~7
    result = (_SEED ^ (len(data) * _MULTIPLIER)) & _MASK
    for start in range(0, aligned, 8):
        word = int.from_bytes(data[start:start + 8], "little")
        result = ((result ^ (_shift_mix((word * _MULTIPLIER) & _MASK) * _MULTIPLIER & _MASK)) * _MULTIPLIER) & _MASK
    if len(data) & 7:
        result = ((result ^ int.from_bytes(data[aligned:], "little")) * _MULTIPLIER) & _MASK
    return _shift_mix((_shift_mix(result) * _MULTIPLIER) & _MASK)


def iteration_order(keys: Iterable[str]) -> list:
    """The distinct `keys`, inserted in the order given, as the map iterates them."""
    listed: list = []
    bucket_first: dict = {}
    for key in keys:
        if key in listed:
            continue
        bucket = std_hash(key) % _FIRST_BUCKETS
        first = bucket_first.get(bucket)
        listed.insert(0 if first is None else listed.index(first), key)
        bucket_first[bucket] = key
    return listed
