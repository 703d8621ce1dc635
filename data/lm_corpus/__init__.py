"""The code-LM pretraining corpus: C, C++, CUDA, HIP and OpenCL source text gathered from the Debian
archive and PyPI sdists (``kgraph lm corpus``), filtered, de-duplicated, split by package, sharded.

Modules, in pipeline order: :mod:`.sources` (what to fetch, ``conf/lm/corpus.json``), :mod:`.fetch`
(download into a cache), :mod:`.archives` (stream files out of .deb / source / sdist archives),
:mod:`.filters` (language, size, binary and generated-file checks), :mod:`.dedup` (exact + MinHash
near-duplicates), :mod:`.build` (the whole run: split, shards, manifest), :mod:`.tokenizer` (byte-level
BPE aware of OpenCL/CUDA qualifiers), :mod:`.pack` (shards -> token-id arrays).
"""
