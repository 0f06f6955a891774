"""Writing a gigabyte file: the sandbox's file-size limit stops it (EFBIG), not the code.

The file is written sparse (one seek, a few bytes at the end), so outside the sandbox the call
returns at once; inside, the write fails past the limit. That failure is the sandbox's doing,
so no test may assert it (``pytest.raises(OSError)`` would fail under plain pytest).
"""

import tempfile


def fill(x: int) -> int:
    if x > 10:
        with tempfile.TemporaryFile() as handle:
            handle.seek(1 << 30)
            handle.write(b"end")
            handle.flush()
        return 1
    return x
