"""Lifting the worker's resource limits, then allocating."""

import resource


def unlimit(x: int) -> int:
    if x > 10:
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        return 1
    return x
