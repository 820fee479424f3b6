"""Stub of the play-generator extension ``shuangkou._generate`` (hand-written; checked by stubtest).

It has no Python-level names: its entry points ``sk_generate``, ``sk_count`` and ``sk_nth`` are
C functions declared in ``_generate.pxd``, which the other extensions cimport.
"""

__pyx_capi__: dict[str, object]  # the C entry points' capsules, which cimport reads
