"""E1 with a loop over the even columns j = 2i that still doubles j in the exponent."""

import math


def solve(length, width, base=10000.0):
    table = []
    for pos in range(length):
        row = [0.0] * width
        for j in range(0, width, 2):
            angle = pos / base ** (2 * j / width)  # the mistake: j is already 2i
            row[j] = math.sin(angle)
            row[j + 1] = math.cos(angle)
        table.append(row)
    return table
