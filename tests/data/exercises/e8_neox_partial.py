"""E8 answered with NeoX partial rotary: rotary_dim / 2 speeds over the rotated width."""


def solve(head_dim, base, partial_rotary_factor):
    rotary_dim = int(head_dim * partial_rotary_factor)
    return [base ** (-i / rotary_dim) for i in range(0, rotary_dim, 2)]  # no zeros, no d
