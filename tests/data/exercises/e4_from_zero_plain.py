"""E4 with one series for every head count, its heads counted from 0."""


def solve(num_heads):
    ratio = 2 ** (-8 / num_heads)
    return [ratio**h for h in range(num_heads)]  # two mistakes: h from 0, and no rule for H
