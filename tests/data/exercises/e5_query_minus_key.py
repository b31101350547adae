"""E5 with the offset taken as query minus key."""

import math


def bucket(n, half, max_distance):
    exact = half // 2
    if n < exact:
        return n
    q = int(math.log(n / exact) / math.log(max_distance / exact) * (half - exact))
    return min(exact + q, half - 1)


def solve(relative_position, bidirectional, num_buckets=32, max_distance=128):
    half = num_buckets // 2 if bidirectional else num_buckets
    out = []
    for offset in relative_position:
        offset = -int(offset)  # the mistake: query - key
        if bidirectional:
            out.append((half if offset > 0 else 0) + bucket(abs(offset), half, max_distance))
        else:
            out.append(bucket(max(-offset, 0), half, max_distance))
    return out
