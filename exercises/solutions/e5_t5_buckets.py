"""E5, T5 buckets: the bucket of each offset key - query, the floor decided in integers.

In each half of h buckets, distance n < e = h // 2 has bucket n; a larger one has bucket
e + q, q the largest whole number with n**(h - e) * e**q >= M**q * e**(h - e), capped
at h - 1. That is floor(ln(n / e) / ln(M / e) * (h - e)), without a float logarithm.
Check it with:  posenc exercise check E5 exercises/solutions/e5_t5_buckets.py
"""

import numpy as np


def bucket_of_distance(n, half, max_distance):
    exact = half // 2
    if n < exact:
        return n  # one bucket for each small distance
    a = half - exact  # the logarithmic buckets of this half
    q = 0
    while q < a - 1 and n**a * exact ** (q + 1) >= max_distance ** (q + 1) * exact**a:
        q += 1  # ln(n / e) / ln(M / e) * a >= q + 1, checked in integers
    return exact + q  # at most e + a - 1 = h - 1


def solve(relative_position, bidirectional, num_buckets=32, max_distance=128):
    half = num_buckets // 2 if bidirectional else num_buckets
    out = []
    for offset in np.asarray(relative_position).tolist():  # Python ints: no overflow
        if bidirectional:
            upper, n = (half if offset > 0 else 0), abs(offset)  # keys after the query: upper
        else:
            upper, n = 0, max(-offset, 0)  # the future counts as distance 0
        out.append(upper + bucket_of_distance(n, half, max_distance))
    return np.array(out, dtype=np.int64)


if __name__ == "__main__":
    print(solve([0, 1, 7, 8, 12, 90, 91, 500], True).tolist())  # [0, 17, 23, 24, 25, 30, 31, 31]
    print(solve([3, 0, -15, -16, -113], False).tolist())  # [0, 0, 15, 16, 31]
